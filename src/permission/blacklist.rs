//! Layer 1: the non-negotiable blacklist of catastrophic shell commands (SPEC §5.1).
//!
//! The seed's ten regexes become ten families checked on the structure of the command, not
//! its spelling: every simple command the splitter finds (substitution bodies, groups, `-c`
//! scripts, `eval`, `env -S`, `find -exec`, here-docs fed to a shell) is normalised — wrappers
//! peeled, program basenames taken, braces expanded, same-script variables substituted,
//! `$IFS` split — and then checked. Invariant: nothing caps the number of sub-commands, and a
//! command that cannot be parsed is still checked, on its raw text split as well as possible.
//! It cannot be configured and applies in every mode. It is a seatbelt against catastrophe,
//! not a sandbox. Known blind spots: code in other languages (`python -c 'shutil.rmtree("/")'`,
//! `perl -e 'system …'` beyond a shell-looking `-e` string); values computed at run time
//! (`X=$(cat f); rm -rf $X`, `read X`, `xargs` fed from a file, arithmetic); scripts written by
//! anything but echo/printf/cat here-docs (`sed`, `tee`, `cp`) and run later; `ssh host CMD`;
//! `case` bodies and other unparseable text beyond the raw-text word scan; a fork bomb whose body
//! is padded past 4 KiB; anything done through an interpreter, a compiled program or a script
//! already on disk.

use super::normalize::{self, Variables};
use super::shell::{self, RedirectOp, SimpleCommand};
use super::wrappers::{self, SHELLS};
use regex::Regex;
use std::sync::LazyLock;

/// The blacklist families; the number is the seed's pattern it generalises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Seed 1: recursive delete of `/`, `/*`, home or a system directory (`rm -r`, `find -delete`).
    RecursiveDelete,
    /// Seed 2, 5, 7: writing a block device (`dd of=`, `>`, `tee`, `cp`).
    BlockDeviceWrite,
    /// Seed 3: a function that pipes into itself in the background.
    ForkBomb,
    /// Seed 4: making a filesystem (`mkfs`, `mkfs.ext4`, `mke2fs`, `mkswap`).
    Mkfs,
    /// Seed 6: recursive chmod/chown/chgrp of `/`, home or a system directory.
    RecursivePermissionChange,
    /// Seed 8: `--no-preserve-root`, whatever the target.
    NoPreserveRoot,
    /// Seed 9: overwriting or deleting `/etc/passwd`, `/etc/shadow`, `/etc/sudoers`, `/boot`.
    SystemFileOverwrite,
    /// Seed 10: wiping partition tables or discarding a device (`wipefs`, `blkdiscard`, `shred`).
    PartitionWipe,
    /// SPEC: `shutdown`, `reboot`, `halt`, `poweroff`, `init 0`, `systemctl poweroff`, `kill -9 -1`.
    Shutdown,
    /// SPEC (the seed's admitted gap): a download piped or substituted into a shell.
    PipeToShell,
    /// Fail-closed guard: shell scripts nested deeper than we inspect.
    TooDeep,
}

impl Family {
    /// A short stable name for messages and tests.
    pub fn as_str(self) -> &'static str {
        match self {
            Family::RecursiveDelete => "recursive delete of a system or home directory",
            Family::BlockDeviceWrite => "write to a block device",
            Family::ForkBomb => "fork bomb",
            Family::Mkfs => "filesystem creation",
            Family::RecursivePermissionChange => "recursive permission change of a system directory",
            Family::NoPreserveRoot => "--no-preserve-root",
            Family::SystemFileOverwrite => "overwrite of a critical system file",
            Family::PartitionWipe => "partition table or device wipe",
            Family::Shutdown => "shutdown or reboot",
            Family::PipeToShell => "download piped into a shell",
            Family::TooDeep => "shell scripts nested too deeply to inspect",
        }
    }
}

/// A blacklist match: the family and the offending (sub-)command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlacklistHit {
    pub family: Family,
    pub reason: String,
}

/// How deep `bash -c "bash -c '…'"` nesting is followed before failing closed.
const MAX_NESTING: usize = 8;

/// Checks a bash command string against every family; `None` means no catastrophe was seen.
pub fn check_blacklist(command: &str) -> Option<BlacklistHit> {
    check_script(command, 0)
}

fn hit(family: Family, what: &str) -> Option<BlacklistHit> {
    let what: String = what.chars().take(120).collect();
    Some(BlacklistHit { family, reason: format!("{}: {}", family.as_str(), what.trim()) })
}

fn check_script(command: &str, depth: usize) -> Option<BlacklistHit> {
    if depth > MAX_NESTING {
        return hit(Family::TooDeep, command);
    }
    if let Some(found) = fork_bomb(command) {
        return Some(found);
    }
    match shell::parse_command(command) {
        Ok(parsed) => check_parsed(&parsed.subcommands, depth),
        Err(_) => check_unparsed(command, depth),
    }
}

/// State carried along the script: literal variables and whether `cd` went somewhere critical.
#[derive(Default)]
struct Scope {
    variables: Variables,
    cwd_is_critical: bool,
}

fn check_parsed(commands: &[SimpleCommand], depth: usize) -> Option<BlacklistHit> {
    let mut scope = Scope::default();
    // Variables first, so a use before the assignment in our order (substitutions are listed
    // before their command) still sees the value.
    for command in commands {
        for assignment in &command.assignments {
            normalize::record_assignment(&mut scope.variables, assignment);
        }
        if matches!(
            command.words.first().map(String::as_str),
            Some("export" | "declare" | "local" | "readonly" | "typeset")
        ) {
            for word in &command.words[1..] {
                normalize::record_assignment(&mut scope.variables, word);
            }
        }
        // `for x in / ~; do rm -rf $x; done`: every listed value is a value of the variable.
        if let [keyword, name, keyword_in, values @ ..] = command.words.as_slice()
            && matches!(keyword.as_str(), "for" | "select")
            && keyword_in == "in"
        {
            for value in values {
                normalize::record_assignment(&mut scope.variables, &format!("{name}={value}"));
            }
        }
    }
    if let Some(found) = staged::staged_scripts(commands, depth) {
        return Some(found);
    }
    for command in commands {
        for redirect in &command.redirections {
            if redirect.op.writes() {
                if normalize::is_block_device(&redirect.target) {
                    return hit(Family::BlockDeviceWrite, &command.raw);
                }
                if normalize::is_system_file(&redirect.target) {
                    return hit(Family::SystemFileOverwrite, &command.raw);
                }
            }
        }
        for words in word_variants(command, &scope.variables) {
            let mut effective = wrappers::unwrap_command(&words);
            // `echo / | xargs rm -rf`: xargs appends what it reads to the command.
            if effective.wrappers.iter().any(|wrapper| wrapper == "xargs") {
                effective.words.extend(staged::piped_echo_words(command, commands));
            }
            if let Some(found) = check_effective(&effective, command, commands, &scope, depth) {
                return Some(found);
            }
            update_cwd(&effective.words, &mut scope);
        }
    }
    None
}

/// The command's words after brace expansion, variable substitution and `$IFS` splitting —
/// one list per variable variant.
fn word_variants(command: &SimpleCommand, variables: &Variables) -> Vec<Vec<String>> {
    let braced: Vec<String> = command
        .words
        .iter()
        .zip(&command.word_info)
        .flat_map(|(word, info)| match (info.brace, info.substitution) {
            (true, _) => normalize::brace_words(&info.pattern),
            (false, true) => vec![staged::resolve_echo_substitutions(word)],
            (false, false) => vec![word.clone()],
        })
        .collect();
    let count = normalize::variant_count(&braced, variables);
    // Every known value, and the unresolved spelling too: a value we saw assigned may not be
    // the one the variable holds when the command runs.
    (0..count)
        .map(Some)
        .chain(std::iter::once(None))
        .map(|variant| braced.iter().flat_map(|word| normalize::expand_word(word, variables, variant)).collect())
        .collect()
}

fn update_cwd(words: &[String], scope: &mut Scope) {
    let program = words.first().map(|word| wrappers::program_name(word));
    if matches!(program, Some("cd" | "pushd")) {
        scope.cwd_is_critical = match words.get(1).filter(|arg| *arg != "--") {
            None => true,
            Some(target) => normalize::is_critical_target(target, scope.cwd_is_critical),
        };
    }
}

/// Programs an unresolvable program name (`$cmd -rf /`) is assumed to possibly be.
/// Only programs whose check depends on the arguments: an unknown program with any arguments
/// must not count as `mkfs`.
const SUSPECTS: &[&str] = &["rm", "chmod", "chown", "dd", "mv", "cp", "tee", "shred"];

fn check_effective(
    effective: &wrappers::Effective,
    command: &SimpleCommand,
    all: &[SimpleCommand],
    scope: &Scope,
    depth: usize,
) -> Option<BlacklistHit> {
    for script in &effective.scripts {
        if let Some(found) = check_script(script, depth + 1) {
            return Some(found);
        }
    }
    let program_word = effective.words.first()?;
    let args = &effective.words[1..];
    if program_word.contains(['$', '*', '?', '[']) {
        // An expansion we could not resolve or a glob (`/bin/r?`): it may be any program, so
        // check the arguments as each dangerous program would read them.
        return SUSPECTS.iter().find_map(|suspect| check_program(suspect, args, &command.raw, scope));
    }
    let program = wrappers::program_name(program_word);
    if let Some(found) = check_program(program, args, &command.raw, scope) {
        return Some(found);
    }
    check_nested(program, args, command, all, depth)
}

/// Scripts run by the command itself: `sh -c`, `eval`, `su -c`, `trap`, `alias`, `watch`,
/// `find -exec`, and a shell's stdin (here-doc, here-string, or an upstream pipe stage).
fn check_nested(
    program: &str,
    args: &[String],
    command: &SimpleCommand,
    all: &[SimpleCommand],
    depth: usize,
) -> Option<BlacklistHit> {
    let fetches = |text: &str| DOWNLOADER.is_match(text) || DECODER.is_match(text);
    let substitutes = |arg: &String| arg.contains("$(") || arg.contains('`') || arg.contains("<(");
    let option_value =
        |flags: &[&str]| args.iter().position(|arg| flags.contains(&arg.as_str())).and_then(|i| args.get(i + 1));
    let is_shell = SHELLS.contains(&program) || is_interpreter(program);
    let runs_text = is_shell || matches!(program, "eval" | "source" | ".");
    if runs_text && args.iter().any(substitutes) && args.iter().any(|arg| fetches(arg)) {
        return hit(Family::PipeToShell, &command.raw);
    }
    let scripts: Vec<String> = match program {
        "eval" => vec![args.join(" ")],
        "su" | "runuser" | "script" => option_value(&["-c", "--command"]).cloned().into_iter().collect(),
        "trap" => args.first().cloned().into_iter().collect(),
        "alias" => args.iter().filter_map(|arg| arg.split_once('=').map(|(_, value)| value.to_string())).collect(),
        "watch" => {
            let mut rest = args;
            while let Some(first) = rest.first().filter(|arg| arg.starts_with('-')) {
                let takes_value = matches!(first.as_str(), "-n" | "--interval" | "-q" | "--equexit");
                rest = &rest[if takes_value { 2 } else { 1 }.min(rest.len())..];
            }
            vec![rest.join(" ")]
        }
        "find" => return check_find(args, &command.raw, depth),
        _ => Vec::new(),
    };
    for script in scripts {
        if let Some(found) = check_script(&script, depth + 1) {
            return Some(found);
        }
    }
    if !is_shell {
        return None;
    }
    let dash_c = args
        .iter()
        .position(|arg| arg.len() > 1 && arg.starts_with('-') && !arg.starts_with("--") && arg.contains(['c', 'e']));
    if let Some(position) = dash_c
        && let Some(script) = args[position + 1..].iter().find(|arg| !arg.starts_with('-'))
    {
        return check_script(script, depth + 1);
    }
    // The shell reads its script from stdin: a here-doc, a here-string, or a pipe.
    for redirect in &command.redirections {
        if matches!(redirect.op, RedirectOp::HereDoc { .. } | RedirectOp::HereString)
            && let Some(found) = check_script(&redirect.target, depth + 1)
        {
            return Some(found);
        }
    }
    let mut upstream = command.pipe_input_from;
    let mut immediate = true;
    while let Some(index) = upstream {
        let stage = all.get(index)?;
        let effective = wrappers::unwrap_command(&stage.words);
        let stage_program = effective.words.first().map(|word| wrappers::program_name(word)).unwrap_or_default();
        if DOWNLOADER.is_match(stage_program) || DECODER.is_match(stage_program) {
            return hit(Family::PipeToShell, &format!("{} | {}", stage.raw, command.raw));
        }
        if immediate
            && let Some(text) = staged::echo_text(&effective.words)
            && let Some(found) = check_script(&text, depth + 1)
        {
            return Some(found);
        }
        immediate = false;
        upstream = stage.pipe_input_from;
    }
    None
}

fn is_interpreter(program: &str) -> bool {
    let base = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    matches!(base, "python" | "perl" | "ruby" | "node" | "php")
}

/// Programs that turn an opaque blob into a script: piping them into a shell hides the script.
static DECODER: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(^|[^A-Za-z0-9_-])(base64|base32|basenc|xxd|uudecode|openssl|gunzip|zcat|bzcat|xzcat|rev)([^A-Za-z0-9_-]|$)",
    )
    .ok()
});

static DOWNLOADER: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(^|[^A-Za-z0-9_-])(curl|wget|fetch|aria2c|http|https|xh)([^A-Za-z0-9_-]|$)").ok());

trait MaybeMatch {
    fn is_match(&self, text: &str) -> bool;
}

impl MaybeMatch for LazyLock<Option<Regex>> {
    /// A regex that failed to compile matches everything: fail closed.
    fn is_match(&self, text: &str) -> bool {
        self.as_ref().is_none_or(|regex| regex.is_match(text))
    }
}

/// `find START… -delete` and `find START… -exec CMD {} ;`, with `{}` taken as each start path.
fn check_find(args: &[String], raw: &str, depth: usize) -> Option<BlacklistHit> {
    let starts: Vec<&String> =
        args.iter().take_while(|arg| !arg.starts_with('-') && *arg != "(" && *arg != "!").collect();
    let starts: Vec<&String> = if starts.is_empty() { Vec::new() } else { starts };
    let critical_start = starts.iter().any(|start| normalize::is_critical_target(start, false));
    if critical_start && args.iter().any(|arg| arg == "-delete") {
        return hit(Family::RecursiveDelete, raw);
    }
    let mut index = 0;
    while index < args.len() {
        if matches!(args[index].as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
            let end =
                args[index + 1..].iter().position(|arg| arg == ";" || arg == "+").map_or(args.len(), |p| index + 1 + p);
            let inner = &args[index + 1..end];
            let mut candidates: Vec<Vec<String>> =
                starts.iter().map(|start| inner.iter().map(|word| word.replace("{}", start)).collect()).collect();
            candidates.push(inner.to_vec());
            for words in candidates {
                let script = words.iter().map(|word| quote(word)).collect::<Vec<_>>().join(" ");
                if let Some(found) = check_script(&script, depth + 1) {
                    return Some(found);
                }
            }
            index = end;
        }
        index += 1;
    }
    None
}

/// Single-quotes a word so it re-parses as exactly that word.
fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', "'\\''"))
}

#[path = "staged.rs"]
mod staged;

#[path = "families.rs"]
mod families;
use families::{check_program, check_unparsed, fork_bomb};

#[cfg(test)]
#[path = "blacklist_tests.rs"]
mod tests;
