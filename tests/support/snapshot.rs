//! What a directory tree is, entry by entry, for tests that check a command changed nothing
//! there: content, mode, owner, group and modification time. Shared by the integration tests
//! (`support::snapshot`) and the red-team kernel corpus (`#[path]`).

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// One entry: path, content (files), mode, owner, group, modification time.
pub(crate) type Entry = (PathBuf, Vec<u8>, u32, u32, u32, i64);

/// Every entry under `dir` (itself included, links not followed), sorted by path.
pub(crate) fn state_under(dir: &Path) -> Vec<Entry> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(path) = stack.pop() {
        let Ok(meta) = std::fs::symlink_metadata(&path) else { continue };
        let content = if meta.is_file() { std::fs::read(&path).unwrap_or_default() } else { Vec::new() };
        found.push((path.clone(), content, meta.mode(), meta.uid(), meta.gid(), meta.mtime()));
        if meta.is_dir() {
            stack.extend(std::fs::read_dir(&path).into_iter().flatten().flatten().map(|entry| entry.path()));
        }
    }
    found.sort();
    found
}
