//! Recursive deletes by programs other than `rm` and `find`: `rsync --delete` onto a critical
//! target (and `--remove-source-files` from one), and a forced `git clean` whose work tree is
//! critical (`cd ~ && git clean -fdx`, `git -C / clean -ffdx`).
//!
//! Invariant: only what the command line spells is judged, and a doubt about the target leans
//! to "critical" (an unresolved rsync source counts as a whole-directory sync). It decides only
//! [`Family::RecursiveDelete`]; what these programs write elsewhere is `families.rs`'s concern.

use super::scope::{Move, Scope};
use super::{BlacklistHit, Family, hit};
use crate::command::options::split_options;

/// rsync options that take their value from the next word when written without `=`.
const RSYNC_VALUE_LONG: &[&str] = &[
    "rsh",
    "rsync-path",
    "exclude",
    "include",
    "filter",
    "files-from",
    "exclude-from",
    "include-from",
    "backup-dir",
    "suffix",
    "temp-dir",
    "compare-dest",
    "copy-dest",
    "link-dest",
    "partial-dir",
    "log-file",
    "log-file-format",
    "password-file",
    "chmod",
    "chown",
    "usermap",
    "groupmap",
    "timeout",
    "contimeout",
    "port",
    "bwlimit",
    "max-size",
    "min-size",
    "max-delete",
    "modify-window",
    "out-format",
    "iconv",
    "checksum-choice",
    "compress-choice",
    "compress-level",
    "skip-compress",
    "block-size",
    "sockopts",
    "info",
    "debug",
    "remote-option",
    "write-batch",
    "read-batch",
    "only-write-batch",
    "address",
    "protocol",
    "outbuf",
    "stop-after",
    "stop-at",
    "copy-as",
    "early-input",
    "max-alloc",
];
/// rsync short options that take a value (`-e ssh`, `-f RULE`, `-T DIR`, `-B SIZE`, `-M OPT`).
const RSYNC_VALUE_SHORT: &str = "efTBM";

/// `rsync --delete SRC/ DEST` empties DEST of everything SRC lacks; `--remove-source-files`
/// deletes what it sent. A source without a trailing `/` lands in `DEST/NAME`, so only that
/// subdirectory is synced.
pub(super) fn check_rsync(args: &[String], raw: &str, scope: &Scope) -> Option<BlacklistHit> {
    let mut operands: Vec<&str> = Vec::new();
    let (mut deletes, mut removes_sources, mut options_done) = (false, false, false);
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        index += 1;
        if options_done || arg == "-" || !arg.starts_with('-') {
            operands.push(arg);
        } else if arg == "--" {
            options_done = true;
        } else if let Some(long) = arg.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or(long);
            deletes |= name == "del" || name.starts_with("delete");
            removes_sources |= name == "remove-source-files" || name == "remove-sent-files";
            index += usize::from(!long.contains('=') && RSYNC_VALUE_LONG.contains(&name));
        } else if let Some((offset, _)) = arg.char_indices().skip(1).find(|(_, c)| RSYNC_VALUE_SHORT.contains(*c)) {
            index += usize::from(offset + 1 == arg.len());
        }
    }
    let (destination, sources) = operands.split_last()?;
    let whole_directory = |source: &&str| {
        source.ends_with('/') || source.ends_with("/.") || matches!(*source, "." | "..") || source.contains('$')
    };
    if deletes && sources.iter().any(whole_directory) && scope.is_critical(destination) {
        return hit(Family::RecursiveDelete, raw);
    }
    if removes_sources && sources.iter().any(|source| scope.is_critical(source)) {
        return hit(Family::RecursiveDelete, raw);
    }
    None
}

/// `git [-C DIR] [--work-tree DIR] clean -f…` where the work tree is critical (`cd ~ && git
/// clean -fdx`, `git -C / clean -ffdx`): it deletes every untracked file there.
pub(super) fn check_git(args: &[String], raw: &str, scope: &Scope) -> Option<BlacklistHit> {
    let mut here = scope.clone();
    let mut work_tree: Option<&str> = None;
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        let value = args.get(index + 1).map(String::as_str);
        match arg.as_str() {
            "-C" => {
                if let Some(dir) = value {
                    here.change_directory(&[Move::To(dir.to_string())]);
                }
                index += 2;
            }
            "--work-tree" => {
                work_tree = value;
                index += 2;
            }
            "-c" | "--git-dir" | "--namespace" | "--config-env" | "--super-prefix" => index += 2,
            _ if arg.starts_with("--work-tree=") => {
                work_tree = arg.split_once('=').map(|(_, dir)| dir);
                index += 1;
            }
            _ if arg.starts_with('-') => index += 1,
            _ => break,
        }
    }
    if args.get(index).map(String::as_str) != Some("clean") {
        return None;
    }
    let line = split_options(&args[index + 1..]);
    // `-c clean.requireForce=false` makes a plain `git clean` delete too.
    let unforced = args[..index].iter().any(|arg| arg.to_ascii_lowercase().contains("requireforce"));
    let forced = line.short.contains('f') || line.flags.contains(&"force") || unforced;
    let dry_run = line.short.contains('n') || line.flags.contains(&"dry-run");
    let location_critical = match work_tree {
        Some(dir) => here.is_critical(dir),
        None => here.cwd_is_critical(),
    };
    if forced && !dry_run && (location_critical || line.operands.iter().any(|operand| here.is_critical(operand))) {
        return hit(Family::RecursiveDelete, raw);
    }
    None
}
