//! Layer 1: the non-negotiable blacklist of catastrophic shell commands (SPEC §5.1).
//!
//! The seed's ten regexes become families checked on the structure of the command, not its
//! spelling: every simple command the splitter finds (substitution bodies, groups, `-c`
//! scripts, `eval`, `env -S`, `find -exec`, here-docs fed to a shell) is normalised — wrappers
//! peeled, program basenames taken, braces expanded, same-script variables substituted,
//! `$IFS` split, relative paths read from where the script's `cd`s led — and then checked.
//! A family is a class, not a list of spellings: any program that deletes recursively
//! (`rm`, `find -delete`, `find -exec rm`, `xargs rm` fed by `find`, `rsync --delete`,
//! `git clean -f`, an interpreter's `rmtree`) on `/`, home or a system directory however
//! spelled; any tool that formats, partitions or wipes a block device (the table in
//! `disks.rs`); any download fed to any shell or interpreter (piped, substituted, redirected,
//! saved then run); signalling every process (`processes.rs`); any writer overwriting files in
//! `/etc`, `/boot`, `/bin`, `/sbin`, `/lib*`, `/usr/bin`, `/usr/lib*`. Each hit names its
//! family and the offending sub-command.
//!
//! Invariant: nothing caps the number of sub-commands, and a command that cannot be parsed is
//! still checked, on its raw text split as well as possible. It cannot be configured and
//! applies in every mode. It is a seatbelt against catastrophe, not a sandbox (the OS-level
//! confinement is the guarantee). Known blind spots: interpreter code beyond literal targets
//! and argument lists (`rmtree(sys.argv[1])`, `perl -e 'system $x'`); values computed at run
//! time (`X=$(cat f); rm -rf $X`, `read X`, `xargs` fed from a file, arithmetic); scripts
//! written by anything but echo/printf/cat here-docs (`sed`, `tee`, `cp`) and run later;
//! `ssh host CMD`; `case` bodies and other unparseable text beyond the raw-text word scan; a
//! fork bomb whose body is padded past 4 KiB; anything done through a compiled program or a
//! script already on disk.
//!
//! - `mod.rs` — the families, what a hit is, and the walk over every command of every nested script
//! - `families.rs` — the per-program checks, the fork-bomb shape, the raw-text fallback
//! - `scope.rs` — the variables and the directory a script carries from command to command
//! - `find.rs` — `find -delete` and what `-exec` runs on each start path
//! - `deleters.rs` — recursive deletes by `rsync --delete` and a forced `git clean`
//! - `disks.rs` — the reviewed table of tools that format, partition or wipe a block device
//! - `processes.rs` — signalling every process, every process of a user, or init
//! - `inline_code.rs` — interpreter one-liners that delete a critical tree or run an argv list
//! - `staged.rs` — scripts assembled from parts of the line: echoed, written, downloaded, then run
//! - `structure.rs` — what the splitter flattens: background jobs, piped loops, functions
//! - `bombs.rs` — process-count bombs, by shape
//! - `network.rs` — network data reaching anything that runs it
//! - `tests.rs` — table tests: the seed's letter, evasions of it, benign look-alikes
//! - `widened_tests.rs` — each family as a class: other programs, spellings and places
//! - `intent_tests.rs` — network data, process bombs and permission sweeps judged by structure

use crate::command::normalize::{self, Variables};
use crate::command::wrappers::{self, SHELLS, is_interpreter};
use crate::shell::{self, RedirectOp, SimpleCommand};
use regex::Regex;
use scope::Scope;
use std::sync::LazyLock;

/// The blacklist families; the number is the seed's pattern it generalises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Family {
    /// Seed 1: recursive delete of `/`, `/*`, home or a system directory (`rm -r`, `find -delete`).
    RecursiveDelete,
    /// Seed 2, 5, 7: writing a block device (`dd of=`, `>`, `tee`, `cp`).
    BlockDeviceWrite,
    /// Seed 3: unbounded process creation — a function calling itself in the background or a
    /// pipeline, `$0` restarting itself, an endless loop backgrounding, `yes | xargs -P0`,
    /// inline code forking in an endless loop (`bombs.rs`).
    ForkBomb,
    /// Seed 4: making a filesystem (`mkfs`, `mkfs.ext4`, `mke2fs`, `mkswap`).
    Mkfs,
    /// Seed 6: recursive chmod/chown/chgrp/chattr/setfacl of `/`, home or a system directory,
    /// also as `find START -exec` or `find START | xargs` over every entry.
    RecursivePermissionChange,
    /// Seed 8: `--no-preserve-root`, whatever the target.
    NoPreserveRoot,
    /// Seed 9: overwriting or deleting `/etc/passwd`, `/etc/shadow`, `/etc/sudoers`, `/boot`.
    SystemFileOverwrite,
    /// Seed 10: wiping partition tables or discarding a device (`wipefs`, `blkdiscard`, `shred`).
    PartitionWipe,
    /// SPEC: `shutdown`, `reboot`, `halt`, `poweroff`, `init 0`, `systemctl poweroff`, `kill 1`.
    Shutdown,
    /// Signalling every process, or every process of a user: `kill -9 -1`, `killall5`,
    /// `pkill -u alice`, `pkill .`.
    KillAll,
    /// SPEC (the seed's admitted gap): a download or any network read (`/dev/tcp`, nc, ssh, …)
    /// reaching anything that runs it: piped, substituted, redirected, read into a variable,
    /// sourced from `/dev/stdin`, turned into command lines by xargs (`network.rs`).
    PipeToShell,
    /// Fail-closed guard: shell scripts nested deeper than we inspect.
    TooDeep,
}

impl Family {
    /// A short stable name for messages and tests.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Family::RecursiveDelete => "recursive delete of a system or home directory",
            Family::BlockDeviceWrite => "write to a block device",
            Family::ForkBomb => "fork bomb (processes multiplying without bound)",
            Family::Mkfs => "filesystem creation",
            Family::RecursivePermissionChange => {
                "recursive mode, owner or attribute change of the whole system, a system directory or home"
            }
            Family::NoPreserveRoot => "--no-preserve-root",
            Family::SystemFileOverwrite => "overwrite of a critical system file",
            Family::PartitionWipe => "partition table or device wipe",
            Family::Shutdown => "shutdown or reboot",
            Family::KillAll => "killing every process or every process of a user",
            Family::PipeToShell => "download or network read fed to a program that runs it",
            Family::TooDeep => "shell scripts nested too deeply to inspect",
        }
    }
}

/// A blacklist match: the family and the offending (sub-)command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BlacklistHit {
    pub family: Family,
    pub reason: String,
}

/// How deep `bash -c "bash -c '…'"` nesting is followed before failing closed.
const MAX_NESTING: usize = 8;

/// Checks a bash command string against every family; `None` means no catastrophe was seen.
pub(crate) fn check_blacklist(command: &str) -> Option<BlacklistHit> {
    check_script(command, 0)
}

fn hit(family: Family, what: &str) -> Option<BlacklistHit> {
    let what: String = what.chars().take(120).collect();
    Some(BlacklistHit { family, reason: format!("{}: {}", family.as_str(), what.trim()) })
}

fn check_script(command: &str, depth: usize) -> Option<BlacklistHit> {
    check_script_in(command, depth, &Scope::default())
}

/// Checks a script that starts where `outer` is (a `bash -c` script starts in its parent's
/// directory).
fn check_script_in(command: &str, depth: usize, outer: &Scope) -> Option<BlacklistHit> {
    if depth > MAX_NESTING {
        return hit(Family::TooDeep, command);
    }
    match shell::parse_command(command) {
        Ok(parsed) => {
            let structure = structure::read_structure(command, &parsed);
            if let Some(found) = bombs::check_bombs(command, &parsed, &structure) {
                return Some(found);
            }
            let flow = network::read_flow(&parsed, &structure, outer.stdin_from_network);
            check_parsed(&parsed.subcommands, depth, outer.clone(), &flow)
        }
        // The shape of an unparseable fork bomb is looked for in the raw text.
        Err(_) => fork_bomb(command).or_else(|| check_unparsed(command, depth)),
    }
}

fn check_parsed(
    commands: &[SimpleCommand],
    depth: usize,
    mut scope: Scope,
    flow: &network::Flow,
) -> Option<BlacklistHit> {
    scope.stdin_from_network = false;
    // Variables first, so a use before the assignment in our order (substitutions are listed
    // before their command) still sees the value.
    for (index, command) in commands.iter().enumerate() {
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
        // `curl x | while read line; do eval "$line"; done`: a variable read from network data
        // holds a download.
        let fed = flow.stdin.get(index).copied().unwrap_or(false);
        if fed && matches!(command.words.first().map(String::as_str), Some("read" | "mapfile" | "readarray")) {
            for name in command.words[1..].iter().filter(|word| !word.starts_with('-')) {
                normalize::record_assignment(&mut scope.variables, &format!("{name}={}", network::NETWORK_VALUE));
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
    for (index, command) in commands.iter().enumerate() {
        // A nested script (`bash -c`, `find -exec sh -c`) reads this command's stdin.
        let fed = flow.stdin.get(index).copied().unwrap_or(false);
        let command_scope;
        let scope_here = if fed {
            let mut fed_scope = scope.clone();
            fed_scope.stdin_from_network = true;
            command_scope = fed_scope;
            &command_scope
        } else {
            &scope
        };
        for redirect in command.redirections.iter().filter(|redirect| redirect.op.writes()) {
            if scope.names(&redirect.target, normalize::is_block_device) {
                return hit(Family::BlockDeviceWrite, &command.raw);
            }
            if scope.names(&redirect.target, normalize::is_system_file) {
                return hit(Family::SystemFileOverwrite, &command.raw);
            }
        }
        let mut moves = Vec::new();
        for words in word_variants(command, &scope.variables) {
            let mut effective = wrappers::unwrap_command(&words);
            if effective.wrappers.iter().any(|wrapper| wrapper == "xargs") {
                effective.words.extend(xargs_input(command, commands, &scope));
            }
            if network::runs_network_data(flow, commands, index, &effective) {
                return hit(Family::PipeToShell, &command.raw);
            }
            if let Some(found) = check_effective(&effective, command, commands, scope_here, depth) {
                return Some(found);
            }
            moves.extend(scope::directory_move(&effective.words));
        }
        scope.change_directory(&moves);
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

/// The words xargs appends to its command, as far as the script tells: what an upstream
/// `echo` prints (`echo / | xargs rm -rf`); for an upstream `find`, its start directories
/// with `-r` (running a program on every entry under a directory is running it recursively on
/// the directory); for unknown input in a critical directory, `*` (its entries).
fn xargs_input(command: &SimpleCommand, all: &[SimpleCommand], scope: &Scope) -> Vec<String> {
    let echoed = staged::piped_echo_words(command, all);
    if !echoed.is_empty() {
        return echoed;
    }
    let upstream = command.pipe_input_from.and_then(|index| all.get(index));
    let upstream_words = upstream.map(|stage| wrappers::unwrap_command(&stage.words).words).unwrap_or_default();
    if upstream_words.first().is_some_and(|program| wrappers::program_name(program) == "find") {
        let starts = find_starts(&upstream_words[1..]);
        return std::iter::once("-r".to_string()).chain(starts).collect();
    }
    if scope.cwd_is_critical() { vec!["*".to_string()] } else { Vec::new() }
}

/// Programs an unresolvable program name (`$cmd -rf /`) is assumed to possibly be.
/// Only programs whose check depends on the arguments: an unknown program with any arguments
/// must not count as `mkfs`.
const SUSPECTS: &[&str] = &["rm", "chmod", "chown", "dd", "mv", "cp", "tee", "shred", "rsync", "git"];

fn check_effective(
    effective: &wrappers::Effective,
    command: &SimpleCommand,
    all: &[SimpleCommand],
    scope: &Scope,
    depth: usize,
) -> Option<BlacklistHit> {
    for script in &effective.scripts {
        if let Some(found) = check_script_in(script, depth + 1, scope) {
            return Some(found);
        }
    }
    let program_word = effective.words.first()?;
    let args = &effective.words[1..];
    if !command.header && program_word.contains(['$', '*', '?', '[', '`']) {
        // `$(curl …)` as the program runs the download's words as a command.
        if is_substitution(program_word) && fetches(program_word) {
            return hit(Family::PipeToShell, &command.raw);
        }
        // An expansion we could not resolve or a glob (`/bin/r?`, `$SHELL`): it may be any
        // program, so check the arguments as each dangerous program would read them, and
        // what it is fed as a shell would.
        return SUSPECTS
            .iter()
            .find_map(|suspect| check_program(suspect, args, &command.raw, scope))
            .or_else(|| check_nested(program_word, args, command, all, scope, depth));
    }
    let program = wrappers::program_name(program_word);
    if let Some(found) = check_program(program, args, &command.raw, scope) {
        return Some(found);
    }
    check_nested(program, args, command, all, scope, depth)
}

fn fetches(text: &str) -> bool {
    DOWNLOADER.is_match(text) || DECODER.is_match(text) || network::is_network_path(text)
}

fn is_substitution(text: &str) -> bool {
    text.contains("$(") || text.contains('`') || text.contains("<(")
}

/// Scripts run by the command itself: `sh -c`, `eval`, `su -c`, `trap`, `alias`, `watch`,
/// `find -exec`, a shell's stdin (here-doc, here-string, or an upstream pipe stage), and an
/// interpreter's code. `program` is a basename, or the word as written when it could not be
/// resolved.
fn check_nested(
    program: &str,
    args: &[String],
    command: &SimpleCommand,
    all: &[SimpleCommand],
    scope: &Scope,
    depth: usize,
) -> Option<BlacklistHit> {
    let option_value =
        |flags: &[&str]| args.iter().position(|arg| flags.contains(&arg.as_str())).and_then(|i| args.get(i + 1));
    // A program we could not name (`$SHELL`, `$(which python3)`) may be any shell or interpreter.
    // A header (`[[ … ]]`, `for`, `case`, `((…))`) is syntax, not a program whose name is unknown.
    let unknown = !command.header && program.contains(['$', '*', '?', '[', '`']);
    let is_shell = SHELLS.contains(&program) || is_interpreter(program) || unknown;
    let runs_text = is_shell || matches!(program, "eval" | "source" | ".");
    // What the program reads as its script besides its arguments: `bash < <(curl …)`,
    // `bash <<< "$(curl …)"`, `bash < /dev/tcp/host/80`.
    let fed: Vec<&String> = command
        .redirections
        .iter()
        .filter(|redirect| {
            matches!(redirect.op, RedirectOp::Read | RedirectOp::HereString | RedirectOp::HereDoc { quoted: false })
        })
        .map(|redirect| &redirect.target)
        .collect();
    let texts = || args.iter().chain(fed.iter().copied());
    if runs_text && texts().any(|text| is_substitution(text)) && texts().any(|text| fetches(text)) {
        return hit(Family::PipeToShell, &command.raw);
    }
    if runs_text && fed.iter().any(|target| is_network_socket(target)) {
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
        "find" => return check_find(args, &command.raw, scope, depth),
        _ => Vec::new(),
    };
    for script in scripts {
        if let Some(found) = check_script_in(&script, depth + 1, scope) {
            return Some(found);
        }
    }
    if !is_shell {
        return None;
    }
    if is_interpreter(program) || unknown {
        let here_docs = command
            .redirections
            .iter()
            .filter(|redirect| matches!(redirect.op, RedirectOp::HereDoc { .. } | RedirectOp::HereString))
            .map(|redirect| redirect.target.clone());
        let piped = command
            .pipe_input_from
            .and_then(|index| all.get(index))
            .and_then(|stage| staged::echo_text(&wrappers::unwrap_command(&stage.words).words));
        let code: Vec<String> = args.iter().cloned().chain(here_docs).chain(piped).collect();
        if code.iter().any(|text| inline_code::deletes_critical_tree(text, scope)) {
            return hit(Family::RecursiveDelete, &command.raw);
        }
        for words in code.iter().flat_map(|text| inline_code::argv_lists(text)) {
            let script = words.iter().map(|word| quote(word)).collect::<Vec<_>>().join(" ");
            if let Some(found) = check_script_in(&script, depth + 1, scope) {
                return Some(found);
            }
        }
    }
    let dash_c = args
        .iter()
        .position(|arg| arg.len() > 1 && arg.starts_with('-') && !arg.starts_with("--") && arg.contains(['c', 'e']));
    if let Some(position) = dash_c
        && let Some(script) = args[position + 1..].iter().find(|arg| !arg.starts_with('-'))
    {
        return check_script_in(script, depth + 1, scope);
    }
    // The shell reads its script from stdin: a here-doc, a here-string, or a pipe.
    for redirect in &command.redirections {
        if matches!(redirect.op, RedirectOp::HereDoc { .. } | RedirectOp::HereString)
            && let Some(found) = check_script_in(&redirect.target, depth + 1, scope)
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
        let reads_socket = stage
            .redirections
            .iter()
            .any(|redirect| redirect.op == RedirectOp::Read && is_network_socket(&redirect.target));
        // `curl api | python3 parse.py` is data for a script named on the command line.
        let code_from_stdin = unknown || network::takes_code_from_stdin(program, args);
        if code_from_stdin && (DOWNLOADER.is_match(stage_program) || DECODER.is_match(stage_program) || reads_socket) {
            return hit(Family::PipeToShell, &format!("{} | {}", stage.raw, command.raw));
        }
        if immediate
            && let Some(text) = staged::echo_text(&effective.words)
            && let Some(found) = check_script_in(&text, depth + 1, scope)
        {
            return Some(found);
        }
        immediate = false;
        upstream = stage.pipe_input_from;
    }
    None
}

/// bash's `/dev/tcp/HOST/PORT` and `/dev/udp/…`: reading one is a download.
fn is_network_socket(target: &str) -> bool {
    target.starts_with("/dev/tcp/") || target.starts_with("/dev/udp/")
}

/// Programs that turn an opaque blob into a script: piping them into a shell hides the script.
static DECODER: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(^|[^A-Za-z0-9_-])(base64|base32|basenc|xxd|uudecode|openssl|gunzip|zcat|bzcat|xzcat|rev)([^A-Za-z0-9_-]|$)",
    )
    .ok()
});

/// Programs that fetch bytes from the network.
static DOWNLOADER: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(^|[^A-Za-z0-9_-])(curl|curlie|wget|wget2|fetch|aria2c|axel|http|https|xh|lwp-request|lwp-download|GET",
        r"|nc|ncat|netcat|socat|ftp|tftp)([^A-Za-z0-9_-]|$)",
    ))
    .ok()
});

trait MaybeMatch {
    fn is_match(&self, text: &str) -> bool;
}

impl MaybeMatch for LazyLock<Option<Regex>> {
    /// A regex that failed to compile matches everything: fail closed.
    fn is_match(&self, text: &str) -> bool {
        self.as_ref().is_none_or(|regex| regex.is_match(text))
    }
}

/// Single-quotes a word so it re-parses as exactly that word.
fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', "'\\''"))
}

mod bombs;
mod deleters;
mod disks;
mod families;
mod find;
mod inline_code;
mod network;
mod processes;
mod scope;
mod staged;
mod structure;
use families::{check_program, check_unparsed, fork_bomb};
use find::{check_find, find_starts};

#[cfg(test)]
mod tests;

#[cfg(test)]
mod widened_tests;

#[cfg(test)]
mod intent_tests;
