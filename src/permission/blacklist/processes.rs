//! The process-killing checks of the blacklist: signalling every process (`kill -9 -1`,
//! `killall5`), every process of a user (`pkill -u alice`, `killall -u alice`), every process
//! a pattern can match (`pkill .`, `pkill -v x`), or init (`kill 1`).
//!
//! Invariant: the command line is read the way the tool reads it — a signal spelled `-9`,
//! `-KILL`, `-s KILL`, `-n 9` or `--signal=KILL` is a signal, and only what follows is a process
//! id, so `kill -1` (SIGHUP, no process) passes while `kill -- -1` does not. A pattern counts as
//! matching everything when it matches a handful of unrelated process names. Killing one named
//! program (`pkill -f 'node server.js'`, `killall -9 firefox`) is ordinary work and passes.

use super::{BlacklistHit, Family, hit};
use regex::Regex;

/// Process names a match-everything pattern must match; no real pattern matches them all.
const SAMPLE_NAMES: &[&str] = &["systemd", "sshd", "bash", "Xorg", "kworker/0:1", "python3", "init"];

/// The verdict for process-signalling programs; `None` for any other program.
pub(super) fn check_processes(program: &str, args: &[String], raw: &str) -> Option<BlacklistHit> {
    match program {
        "kill" => check_kill(args, raw),
        "pkill" => check_pkill(args, raw),
        "killall" => check_killall(args, raw),
        "killall5" => hit(Family::KillAll, raw),
        "skill" if args.iter().any(|arg| arg == "-u" || arg.starts_with("--user")) => hit(Family::KillAll, raw),
        "loginctl"
            if args.iter().any(|arg| matches!(arg.as_str(), "kill-user" | "terminate-user" | "kill-session")) =>
        {
            hit(Family::KillAll, raw)
        }
        _ => None,
    }
}

/// `kill [-s SIG | -n NUM | -SIG] [--] PID…`: -1 is every process, 0 the caller's whole
/// process group, 1 is init.
fn check_kill(args: &[String], raw: &str) -> Option<BlacklistHit> {
    let mut index = 0;
    let mut signal_given = false;
    while let Some(arg) = args.get(index) {
        match arg.as_str() {
            "-l" | "-L" | "--list" | "--table" => return None,
            "-s" | "-n" | "--signal" => {
                signal_given = true;
                index += 2;
            }
            // The first `-X` (`-9`, `-KILL`, `--signal=KILL`, or `--` ending the options) is the
            // signal; after it, `-1` is a process id. A `--` among the ids is no number.
            _ if arg.starts_with('-') && arg.len() > 1 && !signal_given => {
                signal_given = true;
                index += 1;
            }
            _ => break,
        }
    }
    let pids = args.get(index..).unwrap_or_default();
    let numbers = || pids.iter().filter_map(|pid| pid.parse::<i64>().ok());
    if numbers().any(|pid| pid == -1 || pid == 0) {
        return hit(Family::KillAll, raw);
    }
    if numbers().any(|pid| pid == 1) {
        return hit(Family::Shutdown, raw);
    }
    None
}

/// Short options of pkill that take a value in the next word (or attached).
const PKILL_VALUE_SHORT: &str = "uUGgPstFdrOq";
const PKILL_VALUE_LONG: &[&str] = &[
    "--signal",
    "--euid",
    "--uid",
    "--group",
    "--pgroup",
    "--parent",
    "--session",
    "--terminal",
    "--pidfile",
    "--ns",
    "--nslist",
    "--older",
    "--runstates",
    "--delimiter",
    "--queue",
];

/// `pkill [-SIG] [options] [PATTERN]`: a whole user's processes (`-u`/`-U`/`-G` without a
/// pattern), an inverted pattern, or a pattern that matches every name.
fn check_pkill(args: &[String], raw: &str) -> Option<BlacklistHit> {
    let mut index = 0;
    let mut pattern = None;
    let (mut whole_user, mut inverse, mut exact, mut ignore_case) = (false, false, false, false);
    if args.first().is_some_and(|first| is_signal_option(first)) {
        index = 1;
    }
    while let Some(arg) = args.get(index) {
        index += 1;
        if let Some(long) = arg.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or(long);
            whole_user |= matches!(name, "euid" | "uid" | "group");
            inverse |= name == "inverse";
            exact |= name == "exact";
            ignore_case |= name == "ignore-case";
            if !long.contains('=') && PKILL_VALUE_LONG.contains(&format!("--{name}").as_str()) {
                index += 1;
            }
        } else if arg.len() > 1 && arg.starts_with('-') {
            for (offset, letter) in arg.char_indices().skip(1) {
                whole_user |= matches!(letter, 'u' | 'U' | 'G');
                inverse |= letter == 'v';
                exact |= letter == 'x';
                ignore_case |= letter == 'i';
                if PKILL_VALUE_SHORT.contains(letter) {
                    index += usize::from(offset + 1 == arg.len());
                    break;
                }
            }
        } else if pattern.is_none() {
            pattern = Some(arg.as_str());
        }
    }
    let catastrophic = match pattern {
        None => whole_user,
        Some(_) if inverse => true,
        Some(pattern) => matches_everything(pattern, exact, ignore_case),
    };
    if catastrophic { hit(Family::KillAll, raw) } else { None }
}

/// `killall -u USER` without names, or `killall -r REGEX` with a match-everything regex.
fn check_killall(args: &[String], raw: &str) -> Option<BlacklistHit> {
    const VALUE_SHORT: &str = "suoyZn";
    const VALUE_LONG: &[&str] = &["signal", "user", "older-than", "younger-than", "context", "ns"];
    let mut names = Vec::new();
    let (mut user, mut regex, mut ignore_case) = (false, false, false);
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        index += 1;
        if let Some(long) = arg.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or(long);
            user |= name == "user";
            regex |= name == "regexp";
            ignore_case |= name == "ignore-case";
            index += usize::from(!long.contains('=') && VALUE_LONG.contains(&name));
        } else if arg.len() > 1 && arg.starts_with('-') && !is_signal_option(arg) {
            for (offset, letter) in arg.char_indices().skip(1) {
                user |= letter == 'u';
                regex |= letter == 'r';
                ignore_case |= letter == 'I';
                if VALUE_SHORT.contains(letter) {
                    index += usize::from(offset + 1 == arg.len());
                    break;
                }
            }
        } else if !is_signal_option(arg) {
            names.push(arg.as_str());
        }
    }
    let catastrophic = if names.is_empty() {
        user
    } else {
        regex && names.iter().any(|name| matches_everything(name, false, ignore_case))
    };
    if catastrophic { hit(Family::KillAll, raw) } else { None }
}

/// `-9`, `-KILL`, `-SIGTERM`: digits or upper-case letters only.
fn is_signal_option(arg: &str) -> bool {
    arg.strip_prefix('-').is_some_and(|name| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_digit() || c.is_ascii_uppercase() || c == '+')
    })
}

/// True when the (extended regular expression) pattern matches every sample process name.
fn matches_everything(pattern: &str, exact: bool, ignore_case: bool) -> bool {
    let flags = if ignore_case { "(?i)" } else { "" };
    let source = if exact { format!("{flags}^(?:{pattern})$") } else { format!("{flags}{pattern}") };
    Regex::new(&source).is_ok_and(|regex| SAMPLE_NAMES.iter().all(|name| regex.is_match(name)))
}
