//! `find` in the blacklist: its own `-delete`, and the commands its `-exec`/`-execdir`/`-ok`
//! run, checked with `{}` standing for each start path.
//!
//! Invariant: a start path is read the way find reads it (leading `-H`/`-L`/`-P`/`-D`/`-O`
//! skipped, `.` when none is given) and from where the script's `cd`s led, so `cd / && find
//! . -delete` is the delete of `/` it is. Filters (`-name`, `-type`) do not make a critical
//! start harmless: the blacklist cannot tell how much they spare. It does not follow find's
//! output into other programs; `xargs` does that in `mod.rs`.

use super::scope::Scope;
use super::{BlacklistHit, Family, check_script_in, hit, quote};
use crate::command::wrappers;

/// `find START… -delete`, and `find START… -exec CMD {} ;` with `{}` taken as each start
/// path; running a deleting program on every entry under a critical start is a recursive delete
/// of it, whatever the program's own options.
pub(super) fn check_find(args: &[String], raw: &str, scope: &Scope, depth: usize) -> Option<BlacklistHit> {
    let starts = find_starts(args);
    let critical_start = starts.iter().any(|start| scope.is_critical(start));
    if critical_start && args.iter().any(|arg| arg == "-delete") {
        return hit(Family::RecursiveDelete, raw);
    }
    let mut index = 0;
    while index < args.len() {
        if matches!(args[index].as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
            let end =
                args[index + 1..].iter().position(|arg| arg == ";" || arg == "+").map_or(args.len(), |p| index + 1 + p);
            let inner = &args[index + 1..end];
            let inner_words = wrappers::unwrap_command(inner).words;
            let inner_program = inner_words.first().map(|word| wrappers::program_name(word));
            if critical_start && matches!(inner_program, Some("rm" | "unlink" | "shred" | "srm")) {
                return hit(Family::RecursiveDelete, raw);
            }
            // Changing the mode, owner, ACL or attributes of every entry under a critical start
            // is the recursive change of it, whatever the program's own options.
            if critical_start && inner_program.is_some_and(super::families::changes_permissions) {
                return hit(Family::RecursivePermissionChange, raw);
            }
            let mut candidates: Vec<Vec<String>> =
                starts.iter().map(|start| inner.iter().map(|word| word.replace("{}", start)).collect()).collect();
            candidates.push(inner.to_vec());
            for words in candidates {
                let script = words.iter().map(|word| quote(word)).collect::<Vec<_>>().join(" ");
                if let Some(found) = check_script_in(&script, depth + 1, scope) {
                    return Some(found);
                }
            }
            index = end;
        }
        index += 1;
    }
    None
}

/// find's start paths: after its leading `-H`/`-L`/`-P`/`-D opts`/`-O3`, up to the first
/// expression word; `.` when none is given.
pub(super) fn find_starts(args: &[String]) -> Vec<String> {
    let mut rest = args;
    while let Some(first) = rest.first() {
        let skip = match first.as_str() {
            "-H" | "-L" | "-P" => 1,
            "-D" => 2,
            option if option.starts_with("-O") => 1,
            _ => break,
        };
        rest = &rest[skip.min(rest.len())..];
    }
    let starts: Vec<String> =
        rest.iter().take_while(|arg| !arg.starts_with('-') && *arg != "(" && *arg != "!").cloned().collect();
    if starts.is_empty() { vec![".".to_string()] } else { starts }
}
