//! The control paths of a project as they are on disk: what the view binds read-only inside the
//! writable root. One list with the permission engine: a directory entry is a control path when
//! `special_paths::is_protected_component` says so (`.husky`, `AGENTS.md` in any case,
//! `.vscode`, `*.code-workspace` …), at every level from the root down to the working directory.
//! `.git` is the one exception, since git must write its objects and refs: only the parts that
//! make code run are protected — `hooks/`, `config`, `config.worktree`, the same in each
//! submodule's git dir, and for a worktree or submodule checkout the `.git` file itself (it
//! names the git dir) plus the hooks and config of the git dir and common dir it points to.
//!
//! A control path that does not exist yet cannot be bound read-only (a mount needs something to
//! cover), so `Watch` notes which exist before a command and removes the ones the command
//! created (`AGENTS.md`, `.husky/`, `.git/hooks` …), saying so in the result: the command cannot
//! leave one behind. A `.git` the command created is reported, not removed (`git init` is
//! ordinary work; its hooks are samples).
//!
//! Invariant: reads directory listings and `.git` files only, follows no link out of what it
//! reads (a linked control path is protected as the link; its target, outside, is read-only in
//! the view anyway); a path listed here may vanish before the view is built (the plan skips it);
//! removing never follows a link (a planted link is removed as a link).

use crate::special_paths::is_protected_component;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The parts of a git dir that make code run.
const GIT_CONTROL: [&str; 3] = ["hooks", "config", "config.worktree"];

/// The control paths under `levels` (the root first, then each directory down to the working
/// directory).
pub(super) fn control_paths(levels: &[PathBuf]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for dir in levels {
        let Ok(entries) = std::fs::read_dir(dir) else { continue };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().to_lowercase();
            if name == ".git" {
                found.extend(git_control(&entry.path()));
            } else if is_protected_component(&name) {
                found.push(entry.path());
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

/// The control paths of one `.git` (a directory, or a file naming the git dir).
fn git_control(dot_git: &Path) -> Vec<PathBuf> {
    let Ok(meta) = std::fs::symlink_metadata(dot_git) else { return Vec::new() };
    if meta.is_dir() {
        let mut paths = git_dir_parts(dot_git);
        if let Ok(modules) = std::fs::read_dir(dot_git.join("modules")) {
            paths.extend(modules.flatten().flat_map(|module| git_dir_parts(&module.path())));
        }
        return paths;
    }
    let mut paths = vec![dot_git.to_path_buf()];
    let Some(git_dir) = std::fs::read_to_string(dot_git).ok().and_then(|text| pointed_dir(dot_git, &text, "gitdir:"))
    else {
        return paths;
    };
    paths.extend(git_dir_parts(&git_dir));
    if let Some(common) = std::fs::read_to_string(git_dir.join("commondir"))
        .ok()
        .and_then(|text| pointed_dir(&git_dir.join("x"), &text, ""))
    {
        paths.extend(git_dir_parts(&common));
    }
    paths
}

/// The control paths that exist before a command, to find the ones it created.
#[derive(Debug)]
pub(crate) struct Watch {
    levels: Vec<PathBuf>,
    before: BTreeSet<PathBuf>,
}

impl Watch {
    pub(super) fn start(levels: &[PathBuf]) -> Watch {
        Watch { levels: levels.to_vec(), before: existing(levels) }
    }

    /// Removes the control paths created since `start` (not a new `.git`, whose creation is
    /// only reported) and says what was done, a line each.
    pub(crate) fn undo(&self) -> Vec<String> {
        let created: Vec<PathBuf> = existing(&self.levels).difference(&self.before).cloned().collect();
        let new_git: Vec<&PathBuf> = created
            .iter()
            .filter(|path| {
                path.ancestors().any(|up| {
                    up.file_name() == Some(".git".as_ref()) && !self.before.iter().any(|old| old.starts_with(up))
                })
            })
            .collect();
        let mut notes = Vec::new();
        for path in created.iter().filter(|path| !new_git.contains(path)) {
            let removed = match std::fs::symlink_metadata(path) {
                Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(path),
                Ok(_) => std::fs::remove_file(path),
                Err(_) => continue,
            };
            notes.push(match removed {
                Ok(()) => format!(
                    "denied by sandbox: commands cannot create control files (they run code or steer the agent later); removed {}",
                    path.display()
                ),
                Err(err) => format!("denied by sandbox: the command created the control path {} and it could not be removed ({err}): review it", path.display()),
            });
        }
        if let Some(first) = new_git.first() {
            let repository = first.ancestors().find(|up| up.file_name() == Some(".git".as_ref())).unwrap_or(first);
            notes.push(format!(
                "note: the command created a git repository at {}; review its config and hooks before running git yourself",
                repository.display()
            ));
        }
        notes
    }
}

/// The control paths under `levels` that exist now (links included, not followed).
fn existing(levels: &[PathBuf]) -> BTreeSet<PathBuf> {
    control_paths(levels).into_iter().filter(|path| std::fs::symlink_metadata(path).is_ok()).collect()
}

/// `hooks`, `config` and `config.worktree` of a git dir.
fn git_dir_parts(git_dir: &Path) -> Vec<PathBuf> {
    GIT_CONTROL.iter().map(|part| git_dir.join(part)).collect()
}

/// The directory a `gitdir: PATH` (or `commondir`) line names, relative to the file's directory.
fn pointed_dir(file: &Path, text: &str, prefix: &str) -> Option<PathBuf> {
    let target = text.lines().next()?.strip_prefix(prefix)?.trim();
    if target.is_empty() {
        return None;
    }
    let target = Path::new(target);
    Some(if target.is_absolute() { target.to_path_buf() } else { file.parent()?.join(target) })
}

#[cfg(test)]
#[path = "control_tests.rs"]
mod tests;
