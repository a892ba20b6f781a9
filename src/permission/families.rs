//! The per-program checks of the blacklist families, the fork-bomb detector, and the raw-text
//! fallback for commands the splitter cannot parse.
//!
//! Invariant: a check reads options the way the program does (GNU option permutation, short
//! clusters, `--` ending options), so `rm / -rf`, `rm -r -f`, `rm --recursive` all count.

use super::normalize::{is_block_device, is_critical_target, is_system_file};
use super::{BlacklistHit, Family, MaybeMatch, Scope, hit};
use regex::Regex;
use std::sync::LazyLock;

/// Options and operands of a GNU-style command line.
struct CommandLine<'a> {
    /// Short letters and long names (without dashes) given before `--`.
    flags: Vec<&'a str>,
    short: String,
    operands: Vec<&'a str>,
}

fn split_options(args: &[String]) -> CommandLine<'_> {
    let mut line = CommandLine { flags: Vec::new(), short: String::new(), operands: Vec::new() };
    let mut options_done = false;
    for arg in args {
        if options_done || arg == "-" || !arg.starts_with('-') {
            line.operands.push(arg);
        } else if arg == "--" {
            options_done = true;
        } else if let Some(long) = arg.strip_prefix("--") {
            line.flags.push(long.split('=').next().unwrap_or(long));
        } else {
            line.short.push_str(&arg[1..]);
        }
    }
    line
}

/// Checks one program's arguments against the families.
pub(super) fn check_program(program: &str, args: &[String], raw: &str, scope: &Scope) -> Option<BlacklistHit> {
    let line = split_options(args);
    let recursive = line.short.contains(['r', 'R']) || line.flags.contains(&"recursive");
    let critical = |operand: &&str| is_critical_target(operand, scope.cwd_is_critical);
    let has_flag = |name: &str| line.flags.contains(&name);
    match program {
        "rm" | "rmdir" | "unlink" | "shred" | "srm" => {
            if has_flag("no-preserve-root") {
                return hit(Family::NoPreserveRoot, raw);
            }
            if (recursive || program == "srm") && line.operands.iter().any(critical) {
                return hit(Family::RecursiveDelete, raw);
            }
            if line.operands.iter().any(|operand| is_system_file(operand)) {
                return hit(Family::SystemFileOverwrite, raw);
            }
            if program == "shred" && line.operands.iter().any(|operand| is_block_device(operand)) {
                return hit(Family::PartitionWipe, raw);
            }
        }
        "chmod" | "chown" | "chgrp" | "setfacl" => {
            if has_flag("no-preserve-root") {
                return hit(Family::NoPreserveRoot, raw);
            }
            if recursive && line.operands.iter().any(critical) {
                return hit(Family::RecursivePermissionChange, raw);
            }
        }
        "dd" => {
            for arg in args {
                if let Some(target) = arg.strip_prefix("of=") {
                    if is_block_device(target) {
                        return hit(Family::BlockDeviceWrite, raw);
                    }
                    if is_system_file(target) {
                        return hit(Family::SystemFileOverwrite, raw);
                    }
                }
            }
        }
        "mke2fs" | "mkswap" | "mkdosfs" | "mkntfs" | "newfs" => return hit(Family::Mkfs, raw),
        mkfs if mkfs.starts_with("mkfs") => return hit(Family::Mkfs, raw),
        "wipefs" | "blkdiscard" => return hit(Family::PartitionWipe, raw),
        "sgdisk" | "gdisk" if line.short.contains(['Z', 'z', 'o']) || has_flag("zap-all") || has_flag("clear") => {
            return hit(Family::PartitionWipe, raw);
        }
        "sfdisk" if has_flag("delete") || line.short.contains('X') => return hit(Family::PartitionWipe, raw),
        "parted" if args.iter().any(|arg| arg == "mklabel" || arg == "rm") => return hit(Family::PartitionWipe, raw),
        "shutdown" | "reboot" | "halt" | "poweroff" => return hit(Family::Shutdown, raw),
        "init" | "telinit" if line.operands.iter().any(|operand| *operand == "0" || *operand == "6") => {
            return hit(Family::Shutdown, raw);
        }
        "systemctl" | "loginctl"
            if line
                .operands
                .iter()
                .any(|operand| matches!(*operand, "poweroff" | "reboot" | "halt" | "kexec" | "soft-reboot")) =>
        {
            return hit(Family::Shutdown, raw);
        }
        "kill" | "pkill" if args.len() >= 2 && args.last().is_some_and(|last| last == "-1" || last == "1") => {
            return hit(Family::Shutdown, raw);
        }
        "mv" => {
            if line.operands.len() >= 2 && line.operands[..line.operands.len() - 1].iter().any(critical) {
                return hit(Family::RecursiveDelete, raw);
            }
            return destination_check(&line, args, raw);
        }
        "cp" | "install" | "ln" | "rsync" => return destination_check(&line, args, raw),
        "tee" | "truncate" => {
            if line.operands.iter().any(|operand| is_block_device(operand)) {
                return hit(Family::BlockDeviceWrite, raw);
            }
            if line.operands.iter().any(|operand| is_system_file(operand)) {
                return hit(Family::SystemFileOverwrite, raw);
            }
        }
        "sed" | "perl"
            if (line.short.contains('i') || has_flag("in-place"))
                && line.operands.iter().any(|operand| is_system_file(operand)) =>
        {
            return hit(Family::SystemFileOverwrite, raw);
        }
        _ => {}
    }
    None
}

/// `cp`/`mv`/`install`/`ln`/`rsync`: the destination is the last operand or `-t DIR`.
fn destination_check(line: &CommandLine<'_>, args: &[String], raw: &str) -> Option<BlacklistHit> {
    let target_dir = args.iter().position(|arg| arg == "-t").and_then(|i| args.get(i + 1)).map(String::as_str);
    let long_target = args.iter().find_map(|arg| arg.strip_prefix("--target-directory="));
    let destination = target_dir
        .or(long_target)
        .or_else(|| if line.operands.len() >= 2 { line.operands.last().copied() } else { None });
    let destination = destination?;
    if is_block_device(destination) {
        return hit(Family::BlockDeviceWrite, raw);
    }
    if is_system_file(destination) {
        return hit(Family::SystemFileOverwrite, raw);
    }
    None
}

static FUNCTION_NAME: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?:^|[\s;&|(){}])(?:function\s+)?([^\s;&|(){}<>'\x22]+)\s*\(\s*\)").ok());

/// A function that calls itself twice through a pipe or `&` — the classic `:(){ :|:& };:`
/// under any name. Checked on the raw text, since the shape matters, not the words.
pub(super) fn fork_bomb(text: &str) -> Option<BlacklistHit> {
    let regex = FUNCTION_NAME.as_ref()?;
    let mut seen = std::collections::BTreeSet::new();
    for captures in regex.captures_iter(text) {
        let Some(name) = captures.get(1) else { continue };
        if !seen.insert(name.as_str()) {
            continue;
        }
        // The body follows the name closely; a bounded window keeps many definitions linear.
        let after = &text[name.end()..];
        let window_end = after.char_indices().map(|(offset, _)| offset).find(|offset| *offset >= 4096);
        let body = &after[..window_end.unwrap_or(after.len())];
        let escaped = regex::escape(name.as_str());
        let self_call = format!(r"(?:^|[^\w.-]){escaped}\s*(?:\|&?|&)\s*{escaped}(?:$|[^\w.-])");
        if Regex::new(&self_call).is_ok_and(|pattern| pattern.is_match(body)) {
            return hit(Family::ForkBomb, text);
        }
    }
    None
}

/// The fallback for commands the splitter refuses: strip quoting, split on every operator
/// and substitution delimiter, and check each piece's words as a simple command.
pub(super) fn check_unparsed(text: &str, depth: usize) -> Option<BlacklistHit> {
    // A part that parses on its own is checked as fully as a whole command would be: a deny
    // must not weaken because another part of the line is broken.
    if depth < super::MAX_NESTING {
        for piece in text.split([';', '&', '|', '\n']).map(str::trim) {
            if !piece.is_empty()
                && piece != text.trim()
                && let Some(found) = super::check_script(piece, depth + 1)
            {
                return Some(found);
            }
        }
    }
    let unquoted: String = text.chars().filter(|c| !matches!(c, '\'' | '"' | '\\')).collect();
    let unquoted = unquoted.replace("${HOME}", "$HOME").replace("$HOME", super::normalize::HOME);
    static PIPE_TO_SHELL: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"(curl|wget|fetch)\b[^;\n]*\|\s*(\S*/)?(sudo\s+)?(\S*/)?(ba|z|da|k|mk|fi)?sh\b").ok()
    });
    if PIPE_TO_SHELL.is_match(&unquoted) {
        return hit(Family::PipeToShell, text);
    }
    static REDIRECT: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r">\|?\s*([^\s;&|()<>]+)").ok());
    if let Some(regex) = REDIRECT.as_ref() {
        for captures in regex.captures_iter(&unquoted) {
            let target = captures.get(1).map_or("", |target| target.as_str());
            if is_block_device(target) {
                return hit(Family::BlockDeviceWrite, text);
            }
            if is_system_file(target) {
                return hit(Family::SystemFileOverwrite, text);
            }
        }
    }
    // Quoting is unknown here, so any word may start a command: try each position, with a
    // bounded look-ahead so a long input stays linear.
    let scope = Scope::default();
    for piece in unquoted.split([';', '&', '|', '\n', '(', ')', '`', '{', '}', '$', '<', '>']) {
        let words: Vec<String> = piece.split_whitespace().map(str::to_string).collect();
        for start in 0..words.len() {
            let window = &words[start..words.len().min(start + 64)];
            let effective = super::wrappers::unwrap_command(window);
            let Some(program) = effective.words.first() else { continue };
            let program = super::wrappers::program_name(program);
            if let Some(found) = check_program(program, &effective.words[1..], text, &scope) {
                return Some(found);
            }
            if (program == "eval" || super::SHELLS.contains(&program)) && depth < super::MAX_NESTING {
                let rest: Vec<String> =
                    effective.words[1..].iter().filter(|word| !word.starts_with('-')).cloned().collect();
                if let Some(found) = rest.first().and_then(|_| super::check_script(&rest.join(" "), depth + 1)) {
                    return Some(found);
                }
            }
        }
    }
    None
}
