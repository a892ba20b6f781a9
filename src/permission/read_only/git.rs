//! git for the read-only check: the subcommands and options that only read, and the repository
//! configuration (`.git/config`, worktree and submodule configurations) that must name no program.
//!
//! Invariant: a subcommand, global option or configuration section it has not reviewed refuses —
//! `-c`, `--git-dir`, `-C`, `diff.external`, `filter`, `include` and the like bring programs or
//! configuration it did not read. It reads configuration files and nothing else of the repository.

use super::{MAX_WALK, NotReadOnly};
use crate::command::options::Options;
use std::path::Path;

/// git subcommands that only read, given the hardened environment auto-allowed commands get
/// (`tools::HARDENED_GIT`: no fsmonitor, no hooks, no bare repository discovered) and a
/// repository configuration that names no program ([`confirm`]).
const GIT_READERS: &[&str] =
    &["status", "diff", "log", "show", "branch", "rev-parse", "ls-files", "blame", "grep", "ls-tree", "describe"];

/// Global options that change nothing git runs or reads. Everything else is refused: `-c` and
/// `--config-env` set any key, `--exec-path=` picks helpers, `-p` runs the pager, `--git-dir`,
/// `--work-tree`, `--bare` and `-C` bring another repository's configuration, which was not read.
const GIT_GLOBALS: &[&str] = &[
    "--no-pager",
    "-P",
    "--no-optional-locks",
    "--literal-pathspecs",
    "--glob-pathspecs",
    "--noglob-pathspecs",
    "--icase-pathspecs",
];

/// Options of the readers that write a file (`--output`), run a program (`--ext-diff`,
/// `--textconv`, `--show-signature` runs gpg, `--remerge-diff` runs merge drivers, `grep -O` a
/// pager), or read beyond the repository's tracked files and configuration (`--no-index`,
/// `--untracked`, `--recurse-submodules`).
const GIT_REFUSED: &[&str] = &[
    "output",
    "output-directory",
    "ext-diff",
    "textconv",
    "show-signature",
    "remerge-diff",
    "open-files-in-pager",
    "no-index",
    "untracked",
    "recurse-submodules",
    "exec",
];

/// git's own options that a refused name begins with; written out whole they are harmless.
const GIT_HARMLESS_PREFIXES: &[&str] = &["--text"];

pub(super) fn git(args: &[String]) -> Result<(), NotReadOnly> {
    let Some(start) = args.iter().position(|arg| !GIT_GLOBALS.contains(&arg.as_str())) else {
        return Err("git without a subcommand".into());
    };
    let subcommand = args[start].as_str();
    if subcommand.starts_with('-') {
        return Err(format!("git {subcommand} may bring configuration or programs of its own"));
    }
    if !GIT_READERS.contains(&subcommand) {
        return Err(format!("git {subcommand} is not a reviewed read-only subcommand"));
    }
    let rest = &args[start + 1..];
    let options = Options::new(rest);
    let refused = options.args.iter().find(|arg| {
        let long = arg.strip_prefix("--").map(|long| long.split_once('=').map_or(long, |(name, _)| name));
        let abbreviates =
            long.is_some_and(|name| !name.is_empty() && GIT_REFUSED.iter().any(|full| full.starts_with(name)));
        (abbreviates && !GIT_HARMLESS_PREFIXES.contains(&arg.as_str()))
            // A format's `%G?`, `%GS`, … verify signatures with gpg.
            || arg.contains("%G")
    });
    if let Some(option) = refused {
        return Err(format!("git {subcommand} {option} writes or runs a program"));
    }
    if subcommand == "grep" && options.args.iter().any(|arg| arg.starts_with("-O")) {
        return Err("git grep -O runs a pager".into());
    }
    if subcommand == "branch" {
        return git_branch_lists(rest);
    }
    Ok(())
}

/// `git branch` that only lists: listing options, and names only as patterns of `--list` or
/// commits of `--contains`/`--merged`/`--points-at` (which imply listing). `git branch NAME`
/// creates, `-d`/`-m`/`-c`/`-u`/`-f` change branches.
fn git_branch_lists(args: &[String]) -> Result<(), NotReadOnly> {
    const LISTING: &[&str] = &[
        "--all",
        "--remotes",
        "--verbose",
        "--list",
        "--show-current",
        "--contains",
        "--no-contains",
        "--merged",
        "--no-merged",
        "--points-at",
        "--sort",
        "--format",
        "--color",
        "--no-color",
        "--column",
        "--no-column",
        "--ignore-case",
        "--abbrev",
        "--no-abbrev",
        "--quiet",
        "--omit-empty",
    ];
    const IMPLY_LIST: &[&str] = &["--list", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at"];
    let mut lists = false;
    let mut names = false;
    for arg in args {
        if let Some(long) = arg.strip_prefix("--") {
            let name = format!("--{}", long.split_once('=').map_or(long, |(name, _)| name));
            if !LISTING.contains(&name.as_str()) {
                return Err(format!("git branch {arg} changes branches"));
            }
            lists |= IMPLY_LIST.contains(&name.as_str());
        } else if arg.len() > 1 && arg.starts_with('-') {
            if !arg[1..].chars().all(|letter| "arvliq".contains(letter)) {
                return Err(format!("git branch {arg} changes branches"));
            }
            lists |= arg.contains('l');
        } else {
            names = true;
        }
    }
    if names && !lists { Err("git branch NAME creates a branch".into()) } else { Ok(()) }
}

/// Sections of a repository's git configuration that name no program any reader above runs.
/// Everything else is refused, among them `diff` (`diff.external`, a driver's `command` and
/// `textconv`), `filter` (clean filters run on `git status`), `gpg` and `log`
/// (`log.showSignature` runs gpg), `merge`, `include`/`includeIf` (a file this check did not
/// read), `alias`, `pager`. `core`'s program keys are either overridden for auto-allowed
/// commands (`core.fsmonitor`, `core.hooksPath`: `tools::HARDENED_GIT`) or run only with a
/// terminal or a remote (`core.pager`, `core.editor`, `core.sshCommand`, `core.askPass`).
const GIT_SECTIONS: &[&str] = &[
    "core",
    "remote",
    "branch",
    "user",
    "init",
    "pull",
    "push",
    "fetch",
    "gc",
    "pack",
    "index",
    "color",
    "advice",
    "submodule",
    "lfs",
    "maintenance",
    "rerere",
    "feature",
    "checkout",
    "status",
    "column",
    "help",
    "extensions",
    "http",
    "credential",
    "safe",
    "transfer",
    "protocol",
    "receive",
    "i18n",
    "gui",
];

/// The repository git would find from the root (the nearest `.git` at or above it): its
/// configuration, its worktree configuration and its submodules' must name no program.
pub(super) fn git_configuration_runs_nothing(root: &Path) -> Result<(), NotReadOnly> {
    let Some(dot_git) = root.ancestors().map(|dir| dir.join(".git")).find(|path| path.symlink_metadata().is_ok())
    else {
        // No repository: git reads no repository configuration.
        return Ok(());
    };
    if !dot_git.symlink_metadata().is_ok_and(|meta| meta.is_dir()) {
        return Err(format!("{} is not a directory: its git directory was not checked", dot_git.display()));
    }
    let mut configs = vec![dot_git.join("config"), dot_git.join("config.worktree")];
    let mut pending = vec![dot_git.join("modules")];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten().take(MAX_WALK) {
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => pending.push(entry.path()),
                _ if entry.file_name() == "config" || entry.file_name() == "config.worktree" => {
                    configs.push(entry.path())
                }
                _ => {}
            }
        }
    }
    // A submodule whose `.git` is a directory of its own (not absorbed into `.git/modules`)
    // brings a configuration this check does not read; `git status` recurses into it.
    let top = dot_git.parent().unwrap_or(root);
    let gitmodules = std::fs::read_to_string(top.join(".gitmodules")).unwrap_or_default();
    for path in gitmodules.lines().filter_map(|line| line.trim().strip_prefix("path")) {
        let path = path.trim_start().trim_start_matches('=').trim().trim_matches('"');
        if top.join(path).join(".git").symlink_metadata().is_ok_and(|meta| !meta.is_file()) {
            return Err(format!("the submodule {path} keeps its own git directory, which was not checked"));
        }
    }
    for config in configs {
        match std::fs::read(&config) {
            Ok(bytes) => config_runs_nothing(&String::from_utf8_lossy(&bytes))
                .map_err(|what| format!("{} has {what}", config.display()))?,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => return Err(format!("{} cannot be read ({err})", config.display())),
        }
    }
    Ok(())
}

/// The first section (or `core.worktree`, which moves the work tree out of the project) of a git
/// configuration text outside [`GIT_SECTIONS`], read the way git reads headers: several may
/// share a line (`[core] [diff "x"]`), and a key may follow one.
fn config_runs_nothing(text: &str) -> Result<(), String> {
    let mut section = String::new();
    for line in text.trim_start_matches('\u{feff}').lines() {
        let mut rest = line.trim_start();
        while let Some(header) = rest.strip_prefix('[') {
            let end = header.find(']').unwrap_or(header.len());
            section = header[..end]
                .trim_start()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect::<String>()
                .to_ascii_lowercase();
            if !GIT_SECTIONS.contains(&section.as_str()) {
                return Err(format!("a [{section}] section (it can name programs git runs)"));
            }
            rest = header.get(end + 1..).unwrap_or_default().trim_start();
        }
        let key = rest.split(['=', ' ', '\t']).next().unwrap_or_default().to_ascii_lowercase();
        if section == "core" && key == "worktree" {
            return Err("core.worktree (a work tree elsewhere)".into());
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "git_tests.rs"]
mod tests;
