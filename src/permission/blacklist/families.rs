//! The per-program checks of the blacklist families, the fork-bomb detector, and the raw-text
//! fallback for commands the splitter cannot parse.
//!
//! Invariant: a check reads options the way the program does (GNU option permutation, short
//! clusters, `--` ending options), so `rm / -rf`, `rm -r -f`, `rm --recursive` all count.

use super::scope::Scope;
use super::{BlacklistHit, Family, MaybeMatch, deleters, disks, hit, processes};
use crate::command::normalize::{self, clean_path, is_block_device, is_system_file};
use crate::command::options::{CommandLine, split_options};
use crate::command::wrappers::{self, SHELLS};
use regex::Regex;
use std::sync::LazyLock;

/// Checks one program's arguments against the families. Relative operands are read from the
/// directory the script's `cd`s led to, when known.
pub(super) fn check_program(program: &str, args: &[String], raw: &str, scope: &Scope) -> Option<BlacklistHit> {
    let line = split_options(args);
    let recursive = line.short.contains(['r', 'R']) || line.flags.contains(&"recursive");
    let critical = |operand: &&str| scope.is_critical(operand);
    let system = |operand: &&str| scope.names(operand, is_system_file);
    let device = |operand: &&str| scope.names(operand, is_block_device);
    let has_flag = |name: &str| line.flags.contains(&name);
    if let Some(found) = disks::check_disk_tool(program, &line, raw, scope) {
        return Some(found);
    }
    if let Some(found) = processes::check_processes(program, args, raw) {
        return Some(found);
    }
    match program {
        "rm" | "rmdir" | "unlink" | "shred" | "srm" => {
            if has_flag("no-preserve-root") {
                return hit(Family::NoPreserveRoot, raw);
            }
            if (recursive || program == "srm") && line.operands.iter().any(critical) {
                return hit(Family::RecursiveDelete, raw);
            }
            if line.operands.iter().any(system) {
                return hit(Family::SystemFileOverwrite, raw);
            }
            if program == "shred" && line.operands.iter().any(device) {
                return hit(Family::PartitionWipe, raw);
            }
        }
        program if changes_permissions(program) => {
            if has_flag("no-preserve-root") {
                return hit(Family::NoPreserveRoot, raw);
            }
            if recursive && line.operands.iter().any(critical) {
                return hit(Family::RecursivePermissionChange, raw);
            }
        }
        "dd" | "dcfldd" | "dc3dd" => {
            for target in args.iter().filter_map(|arg| arg.strip_prefix("of=")) {
                if device(&target) {
                    return hit(Family::BlockDeviceWrite, raw);
                }
                if system(&target) {
                    return hit(Family::SystemFileOverwrite, raw);
                }
            }
        }
        // ddrescue refuses to write a device without --force; its output follows its input.
        "ddrescue" if (line.short.contains('f') || has_flag("force")) && line.operands.iter().skip(1).any(device) => {
            return hit(Family::BlockDeviceWrite, raw);
        }
        "mv" => {
            let sources = &line.operands[..line.operands.len().saturating_sub(1)];
            if sources.iter().any(critical) {
                return hit(Family::RecursiveDelete, raw);
            }
            if sources.iter().any(system) {
                return hit(Family::SystemFileOverwrite, raw);
            }
            return destination_check(program, &line, args, raw, scope);
        }
        "rsync" => {
            return deleters::check_rsync(args, raw, scope)
                .or_else(|| destination_check(program, &line, args, raw, scope));
        }
        "cp" | "install" | "ln" => return destination_check(program, &line, args, raw, scope),
        "git" => return deleters::check_git(args, raw, scope),
        "shutdown" | "reboot" | "halt" | "poweroff" => return hit(Family::Shutdown, raw),
        // Runlevels 0 and 6 stop or restart the machine, 1/S drop every service.
        "init" | "telinit" if line.operands.iter().any(|operand| matches!(*operand, "0" | "6" | "1" | "s" | "S")) => {
            return hit(Family::Shutdown, raw);
        }
        "systemctl" | "loginctl"
            if line.operands.iter().any(|operand| {
                matches!(*operand, "poweroff" | "reboot" | "halt" | "kexec" | "soft-reboot" | "rescue" | "emergency")
            }) =>
        {
            return hit(Family::Shutdown, raw);
        }
        "tee" | "truncate" => {
            if line.operands.iter().any(device) {
                return hit(Family::BlockDeviceWrite, raw);
            }
            if line.operands.iter().any(system) {
                return hit(Family::SystemFileOverwrite, raw);
            }
        }
        "sed" | "perl" if (line.short.contains('i') || has_flag("in-place")) && line.operands.iter().any(system) => {
            return hit(Family::SystemFileOverwrite, raw);
        }
        "curl" | "wget" | "tar" | "gtar" | "bsdtar" | "unzip"
            if output_places(program, args)
                .iter()
                .any(|place| scope.names(place, |place| is_system_file(place) || clean_path(place) == "/")) =>
        {
            return hit(Family::SystemFileOverwrite, raw);
        }
        _ => {}
    }
    None
}

/// Programs that change a file's mode, owner, group, ACL or attributes.
pub(super) fn changes_permissions(program: &str) -> bool {
    matches!(program, "chmod" | "chown" | "chgrp" | "setfacl" | "chattr")
}

/// Where a downloader or an archive extractor writes: `curl -o F`, `wget -O F`/`-P DIR`,
/// `tar -x -C DIR`, `unzip -d DIR`.
fn output_places(program: &str, args: &[String]) -> Vec<String> {
    let (short, long): (&[&str], &[&str]) = match program {
        "curl" => (&["-o"], &["--output"]),
        "wget" => (&["-O", "-P"], &["--output-document", "--directory-prefix"]),
        "unzip" => (&["-d"], &[]),
        "tar" | "gtar" | "bsdtar" => {
            // `tar xf a.tar` (old style, no dash) or `-x`/`--extract` anywhere.
            let extracts = args.first().is_some_and(|first| !first.starts_with('-') && first.contains('x'))
                || args.iter().any(|arg| is_short_with(arg, 'x') || arg == "--extract" || arg == "--get");
            if !extracts {
                return Vec::new();
            }
            (&["-C"], &["--directory"])
        }
        _ => return Vec::new(),
    };
    let mut places = Vec::new();
    for (index, arg) in args.iter().enumerate() {
        if let Some((name, value)) = arg.split_once('=')
            && long.contains(&name)
        {
            places.push(value.to_string());
        } else if long.contains(&arg.as_str()) || short.contains(&arg.as_str()) {
            places.extend(args.get(index + 1).cloned());
        } else if let Some(attached) =
            short.iter().find_map(|flag| arg.strip_prefix(flag)).filter(|rest| !rest.is_empty())
        {
            places.push(attached.to_string());
        }
    }
    places
}

/// `-xvf` containing `letter` (not `--long`).
fn is_short_with(arg: &str, letter: char) -> bool {
    arg.starts_with('-') && !arg.starts_with("--") && arg[1..].contains(letter)
}

/// `cp`/`mv`/`install`/`ln`/`rsync`: the destination is the last operand or `-t DIR` (rsync's
/// `-t` keeps times, so only its last operand counts).
fn destination_check(
    program: &str,
    line: &CommandLine<'_>,
    args: &[String],
    raw: &str,
    scope: &Scope,
) -> Option<BlacklistHit> {
    let target_dir =
        args.iter().position(|arg| arg == "-t" && program != "rsync").and_then(|i| args.get(i + 1)).map(String::as_str);
    let long_target = args.iter().find_map(|arg| arg.strip_prefix("--target-directory="));
    let destination = target_dir
        .or(long_target)
        .or_else(|| if line.operands.len() >= 2 { line.operands.last().copied() } else { None });
    let destination = destination?;
    if scope.names(destination, is_block_device) {
        return hit(Family::BlockDeviceWrite, raw);
    }
    if scope.names(destination, is_system_file) {
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
    let unquoted = unquoted.replace("${HOME}", "$HOME").replace("$HOME", normalize::HOME);
    // A downloader, a pipe, any wrapper words, then a shell or an interpreter.
    static PIPE_TO_SHELL: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(concat!(
            r"(curl|wget|fetch|aria2c|axel|xh|nc|ncat|netcat|socat)\b[^;\n]*\|\s*(?:\S+\s+)*?(?:\S*/)?",
            r"(?:(?:ba|rba|z|da|k|mk|fi|c|tc|a|ya)?sh|python[\d.]*|perl|ruby|node|php|lua|\$\{?SHELL\}?)",
            r"(?:[\s;&|)]|$)",
        ))
        .ok()
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
            let effective = wrappers::unwrap_command(window);
            let Some(program) = effective.words.first() else { continue };
            let program = wrappers::program_name(program);
            if let Some(found) = check_program(program, &effective.words[1..], text, &scope) {
                return Some(found);
            }
            if (program == "eval" || SHELLS.contains(&program)) && depth < super::MAX_NESTING {
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
