//! Where the project is: the root is the git top level above the working directory (the working
//! directory itself outside git), found by reading the file system, never by running git.
//!
//! Invariant: nothing here executes anything, so a repository cannot run code through its git
//! configuration (`core.fsmonitor`, hooks) just because mewcode looked for its root; and a git
//! directory that belongs to another user, or the user's HOME being one big dotfiles repository,
//! never widens the root beyond the working directory: the root decides where config, settings,
//! sessions and the sandbox's write scope live, so it must never grow by surprise.

use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// How the root was chosen, for doctor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum RootKind {
    /// The git top level (`.git` found in the root, a directory or a worktree's `gitdir:` file).
    GitTopLevel,
    /// Not inside a git work tree: the working directory.
    NotGit,
    /// A `.git` was found above but not used (the reason says why); the working directory.
    GitIgnored(String),
}

impl RootKind {
    /// A few words for doctor.
    pub(crate) fn describe(&self) -> String {
        match self {
            RootKind::GitTopLevel => "git top level".to_string(),
            RootKind::NotGit => "working directory; not in a git work tree".to_string(),
            RootKind::GitIgnored(reason) => format!("working directory; {reason}"),
        }
    }
}

/// The project root for the (canonical) working directory `cwd`: the nearest ancestor (or `cwd`
/// itself) holding a `.git` that looks like git's, provided it belongs to `uid` (git's own
/// "dubious ownership" rule: on a shared machine anyone can create `/tmp/.git`) and is neither
/// `home` nor `/` unless the user started right there (a dotfiles repository in HOME would make
/// the whole home directory writable by commands and put `.mewcode/` into `$HOME`).
pub(crate) fn find_root(cwd: &Path, uid: u32, home: Option<&Path>) -> (PathBuf, RootKind) {
    for dir in cwd.ancestors() {
        let dot_git = dir.join(".git");
        let Ok(meta) = std::fs::metadata(&dot_git) else { continue };
        if !looks_like_git(&dot_git, &meta) {
            continue;
        }
        if meta.uid() != uid {
            let reason = format!("{} belongs to another user, so it is not used", dot_git.display());
            return (cwd.to_path_buf(), RootKind::GitIgnored(reason));
        }
        let too_wide = dir != cwd && (dir.parent().is_none() || home.is_some_and(|home| home == dir));
        if too_wide {
            let reason = format!("{} is a git work tree, but too wide to be the project", dir.display());
            return (cwd.to_path_buf(), RootKind::GitIgnored(reason));
        }
        return (dir.to_path_buf(), RootKind::GitTopLevel);
    }
    (cwd.to_path_buf(), RootKind::NotGit)
}

/// A `.git` directory with a `HEAD`, or a `.git` file that starts with `gitdir:` (worktrees and
/// submodules). Anything else (an empty directory, a FIFO) is not git's, as git itself decides.
fn looks_like_git(dot_git: &Path, meta: &std::fs::Metadata) -> bool {
    if meta.is_dir() {
        return dot_git.join("HEAD").is_file();
    }
    if !meta.is_file() {
        return false;
    }
    let mut head = [0u8; 7];
    std::fs::File::open(dot_git).and_then(|mut file| file.read_exact(&mut head)).is_ok() && &head == b"gitdir:"
}

/// True when the project's `.mewcode` directory is the user directory `home` (`$MEWCODE_HOME`),
/// compared resolved: mewcode started in `~` with the default `~/.mewcode`. The project then has
/// no state of its own to merge: its settings and commands are the user's, read once as the
/// user's, and that directory gets no `.gitignore`.
pub(crate) fn shares_user_dir(root: &Path, home: &Path) -> bool {
    resolved(&root.join(".mewcode")) == resolved(home)
}

/// `path` with links and `..` resolved; one that does not exist yet by its resolved parent and
/// its name (mewcode's first start in `~` has no `~/.mewcode` yet).
fn resolved(path: &Path) -> PathBuf {
    if let Ok(path) = std::fs::canonicalize(path) {
        return path;
    }
    match (path.parent().and_then(|parent| std::fs::canonicalize(parent).ok()), path.file_name()) {
        (Some(parent), Some(name)) => parent.join(name),
        _ => crate::fsx::clean_path(path),
    }
}

/// The instruction file names, in order of preference within one directory.
pub(crate) const INSTRUCTION_FILES: [&str; 2] = ["AGENTS.md", "CLAUDE.md"];

/// The directories whose instruction files apply, from `root` down to `cwd` (nearest last);
/// just `root` when `cwd` is not inside it.
pub(crate) fn instruction_dirs(root: &Path, cwd: &Path) -> Vec<PathBuf> {
    let mut dirs = vec![root.to_path_buf()];
    if let Ok(rel) = cwd.strip_prefix(root) {
        let mut dir = root.to_path_buf();
        for component in rel.components() {
            dir.push(component);
            dirs.push(dir.clone());
        }
    }
    dirs
}

#[cfg(test)]
#[path = "project_tests.rs"]
mod tests;
