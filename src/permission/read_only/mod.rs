//! Which bash commands only read (issue 27's pay-off): a command is read-only when every
//! sub-command is a reviewed reader (`ls`, `cat`, `grep`, `git status`, …) with no option that
//! runs a program or writes, reading nothing outside the project or sensitive.
//!
//! Invariant: it fails closed — any shell feature, program or option it does not know makes the
//! command not read-only. The text is read first ([`classify`]); what the text leaves open (the
//! trees a recursive search walks, the repository configuration git reads) is then checked on the
//! disk ([`confirm`]). It decides nothing by itself: the engine lifts only the mode matrix's ask
//! with it, and only when every command runs in the sandbox's view.
//!
//! - `mod.rs` — the reviewed readers, the text check of each sub-command, the walk of searched trees
//! - `search.rs` — the trees `grep -r`, `rg` and `diff -r` read, from their option syntax
//! - `git.rs` — the git subcommands and options that only read, and the configuration they obey
//! - `tests.rs` — unit tests of the text check and the walk
//! - `git_tests.rs` — unit tests of the git configuration check

use super::rules::command_rules::{INERT_FILES, expanded_arguments_risk, sensitive_redirect};
use super::sandbox;
use crate::command::builtins;
use crate::command::options::Options;
use crate::command::wrappers::{self, Effective};
use crate::shell::{self, Nesting, RedirectOp, SimpleCommand};
use crate::special_paths;
use git::{git, git_configuration_runs_nothing};
use search::{Search, directories, grep_searches, rg_searches};
use std::path::{Path, PathBuf};

mod git;
mod search;

/// Why a command is not read-only, for tests and for the engine's logs.
pub(crate) type NotReadOnly = String;

/// What the text of a read-only command leaves to be checked on disk: the trees a recursive
/// search reads (`grep -r`, `rg`, `diff -r`) and whether git runs (its repository configuration
/// may name programs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Needs {
    searches: Vec<Search>,
    git: bool,
}

/// Whether `command`, run in `root`, only reads files of the project that are not sensitive:
/// [`classify`] on its text, then [`confirm`] on the disk.
pub(crate) fn check(command: &str, root: &Path) -> Result<(), NotReadOnly> {
    confirm(&classify(command, root)?, root)
}

/// The reviewed readers. Each sub-command of the command must be one of them, run directly or
/// through a harmless wrapper, with none of its refused options.
const PROGRAMS: &[&str] = &[
    "ls", "pwd", "cat", "head", "tail", "wc", "file", "stat", "du", "df", "grep", "egrep", "fgrep", "rg", "find",
    "tree", "sort", "uniq", "cut", "tr", "diff", "cmp", "echo", "printf", "which", "type", "date", "git", "true",
    "false", ":", "test", "[", "basename", "dirname", "realpath", "readlink",
];

/// Wrappers that change neither what runs nor what it may write (`time -o FILE` writes, `nohup`
/// may write `nohup.out`, `env` sets variables: none of them is here).
const WRAPPERS: &[&str] = &["timeout", "nice", "command", "builtin", "stdbuf"];

/// Reads the command's text: every sub-command must be a reviewed reader. Pure but for the
/// filesystem lookups the rules already make (symlinks of path arguments, glob matches).
fn classify(command: &str, root: &Path) -> Result<Needs, NotReadOnly> {
    let parsed = shell::parse_command(command).map_err(|error| format!("cannot be parsed ({})", error.reason))?;
    if parsed.has_substitution {
        return Err("command substitution".into());
    }
    let mut needs = Needs::default();
    for sub in &parsed.subcommands {
        if sub.context != Nesting::Script {
            return Err("process substitution".into());
        }
        redirections(sub, root)?;
        if let Some(assignment) = sub.assignments.iter().find(|assignment| !is_locale(assignment)) {
            return Err(format!("sets {assignment}"));
        }
        // A header's arithmetic (`(( j = 7 % 4 ))`) names variables without expanding them:
        // what it reads is judged below; a `$` in it is an expansion.
        let expanded = |(word, info): &(&String, &shell::WordInfo)| {
            info.substitution || if sub.header { word.contains('$') } else { info.expansion }
        };
        if let Some((word, _)) = sub.words.iter().zip(&sub.word_info).find(expanded) {
            return Err(format!("{word} is expanded by the shell"));
        }
        if sub.header {
            // `for NAME in WORDS`, `case WORD`, `[[ … ]]`, `((…))`: syntax, judged for what it
            // evaluates; without expansions it reads nothing.
            if let Some(reason) = builtins::builtin_risk(&sub.words) {
                return Err(reason);
            }
            continue;
        }
        if sub.words.is_empty() {
            continue;
        }
        let effective = wrappers::unwrap_command(&sub.words);
        if let Some(wrapper) = effective.wrappers.iter().find(|wrapper| !WRAPPERS.contains(&wrapper.as_str())) {
            // `env` with no command only prints the environment (mewcode's, already scrubbed).
            // No other wrapper is allowed, so no `env NAME=value` or `env -S` reaches the reader.
            let bare_env = wrapper == "env" && effective.words.is_empty() && sub.words.len() == 1;
            if !bare_env {
                return Err(format!("runs through {wrapper}"));
            }
            continue;
        }
        reader(sub, &effective, root, &mut needs)?;
    }
    Ok(needs)
}

/// `LANG=C`, `LC_ALL=en_US.UTF-8`: a locale by name (no path), which changes only how the
/// program prints. Any other assignment may change what runs or what it reads (`PATH`,
/// `LD_PRELOAD`, `GIT_DIR`, `LESSOPEN`) and is refused, harmless-looking ones too.
fn is_locale(assignment: &str) -> bool {
    assignment.split_once('=').is_some_and(|(name, value)| {
        (matches!(name, "LANG" | "LANGUAGE") || name.starts_with("LC_"))
            && value.chars().all(|c| c.is_ascii_alphanumeric() || "_.@-".contains(c))
    })
}

/// Redirections may read project files that are not sensitive, duplicate descriptors, feed
/// here-docs, and write only to `/dev/null` and the command's own output.
fn redirections(sub: &SimpleCommand, root: &Path) -> Result<(), NotReadOnly> {
    for redirect in &sub.redirections {
        let target = redirect.target.as_str();
        if redirect.target_info.substitution || redirect.target_info.expansion {
            return Err(format!("redirection to {target} is expanded by the shell"));
        }
        match redirect.op {
            RedirectOp::Dup | RedirectOp::HereDoc { .. } | RedirectOp::HereString => {}
            _ if INERT_FILES.contains(&target) && redirect.op != RedirectOp::ReadWrite => {}
            op if op.writes() => return Err(format!("writes {target}")),
            _ => {
                if redirect.target_info.glob
                    || target.starts_with('~')
                    || sandbox::check_path(root, target, None).is_err()
                {
                    return Err(format!("reads {target}, which may be outside the project"));
                }
                if let Some(reason) = sensitive_redirect(redirect, root) {
                    return Err(reason);
                }
            }
        }
    }
    Ok(())
}

/// One sub-command whose program runs (wrappers peeled): a reviewed reader with reviewed options
/// and arguments inside the project.
fn reader(sub: &SimpleCommand, effective: &Effective, root: &Path, needs: &mut Needs) -> Result<(), NotReadOnly> {
    let Some((program, args)) = effective.words.split_first() else { return Ok(()) };
    // `./ls` or `/tmp/ls` may be any program: only a name looked up in PATH is the reviewed one.
    if program.contains('/') || !PROGRAMS.contains(&program.as_str()) {
        return Err(format!("{program} is not a reviewed read-only program"));
    }
    if let Some(reason) = builtins::builtin_risk(&effective.words) {
        return Err(reason);
    }
    let nowhere: &dyn Fn(&str) -> bool = &|_| false;
    if let Some(reason) = wrappers::exec_risk(effective, nowhere) {
        return Err(reason.to_string());
    }
    if let Some(reason) = expanded_arguments_risk(sub, &effective.words, root) {
        return Err(reason);
    }
    let refuse = |option: &str| Err(format!("{program} {option} writes, runs a program or reads a list of files"));
    let options = Options::new(args);
    match program.as_str() {
        "wc" | "du" => options.long(&["files0-from"]).map_or(Ok(()), refuse),
        "file" => options.short("fC").or(options.long(&["files-from", "compile"])).map_or(Ok(()), refuse),
        "find" => {
            let actions = ["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"];
            let refused = args.iter().find(|arg| actions.contains(&arg.as_str()) || arg.starts_with("-files0"));
            refused.map_or(Ok(()), |arg| refuse(arg))
        }
        "tree" => options.short("oR").map_or(Ok(()), refuse),
        "sort" => {
            options.short("o").or(options.long(&["output", "compress-program", "files0-from"])).map_or(Ok(()), refuse)
        }
        "uniq" => {
            // `uniq IN OUT` writes OUT; an option's value counts as an operand (over-approximate).
            let operands = args.iter().filter(|arg| *arg == "-" || !arg.starts_with('-')).count();
            if operands > 1 { refuse("with two operands") } else { Ok(()) }
        }
        "printf" => options.short("v").map_or(Ok(()), refuse),
        "date" => options.short("sf").or(options.long(&["set", "file"])).map_or(Ok(()), refuse),
        "grep" | "egrep" | "fgrep" => {
            if let Some(option) = options.short("f").or(options.long(&["file"])) {
                return refuse(option);
            }
            needs.searches.extend(grep_searches(args, sub, root));
            Ok(())
        }
        "rg" => {
            needs.searches.extend(rg_searches(args, sub, root));
            Ok(())
        }
        "diff" => {
            if options.short("r").or(options.long(&["recursive"])).is_some() {
                needs.searches.extend(directories(sub, root).into_iter().map(|dir| Search {
                    dir,
                    hidden: true,
                    follow: true,
                }));
            }
            Ok(())
        }
        "git" => {
            needs.git = true;
            git(args)
        }
        _ => Ok(()),
    }
}

/// Files met below a search root before the walk gives up (and the command asks).
const MAX_WALK: usize = 20_000;

/// Checks on the disk what the text left open: no tree a recursive search reads holds a
/// sensitive file, a session log or (when links are followed) a symbolic link; and when git
/// runs, its repository configuration names no program.
fn confirm(needs: &Needs, root: &Path) -> Result<(), NotReadOnly> {
    let Ok(root) = std::fs::canonicalize(root) else { return Err("the project root cannot be resolved".into()) };
    for search in &needs.searches {
        let start =
            sandbox::check_path(&root, &search.dir, None).map_err(|denial| format!("{}: {denial}", search.dir))?;
        walk(&root, &start, search)?;
    }
    if needs.git {
        git_configuration_runs_nothing(&root)?;
    }
    Ok(())
}

/// Walks `start` as the search would, looking for what it must not read.
fn walk(root: &Path, start: &Path, search: &Search) -> Result<(), NotReadOnly> {
    let mut pending: Vec<PathBuf> = vec![start.to_path_buf()];
    let mut seen = 0;
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            seen += 1;
            if seen > MAX_WALK {
                return Err(format!("{} holds too many files to check", search.dir));
            }
            let path = entry.path();
            let hidden = entry.file_name().as_encoded_bytes().starts_with(b".");
            if hidden && !search.hidden {
                continue;
            }
            let Ok(kind) = entry.file_type() else { continue };
            let relative = path.strip_prefix(root).unwrap_or(&path);
            if kind.is_symlink() {
                if search.follow {
                    return Err(format!("{} is a symbolic link the search would follow", relative.display()));
                }
            } else if kind.is_dir() {
                pending.push(path);
            } else if special_paths::is_sensitive_path(&path) || special_paths::is_session_log(relative) {
                return Err(format!("the search would read {}", relative.display()));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
