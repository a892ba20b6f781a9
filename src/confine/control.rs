//! The control paths of a project as they are on disk: what the view binds read-only inside the
//! writable root. One list with the permission engine: a directory entry is a control path when
//! `permission::policy::is_protected_component` says so (`.husky`, `AGENTS.md` in any case,
//! `.vscode`, `*.code-workspace` …), at every level from the root down to the working directory.
//! `.git` is the one exception, since git must write its objects and refs: only the parts that
//! make code run are protected — `hooks/`, `config`, `config.worktree`, the same in each
//! submodule's git dir, and for a worktree or submodule checkout the `.git` file itself (it
//! names the git dir) plus the hooks and config of the git dir and common dir it points to.
//!
//! Invariant: reads directory listings and `.git` files only, follows no link out of what it
//! reads (a linked control path is protected as the link; its target, outside, is read-only in
//! the view anyway); a path listed here may vanish before the view is built (the plan skips it).

use crate::permission::policy::is_protected_component;
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
mod tests {
    use super::*;

    #[test]
    fn every_level_git_parts_and_a_worktrees_pointers_are_found() {
        let base = std::env::temp_dir().join(format!("mewcode-control-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        for dir in
            ["p/.git/hooks", "p/.git/modules/sub/hooks", "p/.husky", "p/pkg/.vscode", "p/src", "main/.git/worktrees/w"]
        {
            std::fs::create_dir_all(base.join(dir)).unwrap();
        }
        for file in ["p/Agents.md", "p/pkg/CLAUDE.md", "p/README.md", "p/src/AGENTS.md", "p/x.code-workspace"] {
            std::fs::write(base.join(file), "x").unwrap();
        }
        std::fs::write(base.join("p/pkg/.git"), "gitdir: ../../main/.git/worktrees/w\n").unwrap();
        std::fs::write(base.join("main/.git/worktrees/w/commondir"), "../..\n").unwrap();
        std::fs::write(base.join("p/.git/config"), "x").unwrap();
        std::fs::write(base.join("main/.git/config"), "x").unwrap();
        std::fs::create_dir_all(base.join("main/.git/hooks")).unwrap();
        let base = std::fs::canonicalize(&base).unwrap();
        let root = base.join("p");
        let found = control_paths(&[root.clone(), root.join("pkg")]);
        // What exists, as the sandbox sees it (canonical).
        let mut relative: Vec<String> = found
            .iter()
            .filter_map(|path| std::fs::canonicalize(path).ok())
            .map(|path| path.strip_prefix(&base).unwrap().display().to_string())
            .collect();
        relative.sort();
        assert_eq!(
            relative,
            [
                "main/.git/config",
                "main/.git/hooks",
                "p/.git/config",
                "p/.git/hooks",
                "p/.git/modules/sub/hooks",
                "p/.husky",
                "p/Agents.md",
                "p/pkg/.git",
                "p/pkg/.vscode",
                "p/pkg/CLAUDE.md",
                "p/x.code-workspace",
            ]
        );
        // `src/AGENTS.md` is below the levels given: not listed (the engine still asks for it).
        assert!(!relative.iter().any(|path| path.contains("src/")));
        std::fs::remove_dir_all(&base).unwrap();
    }
}
