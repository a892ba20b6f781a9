//! What a directory holds, for tests that check a planted link let nothing through: every file
//! under it with its bytes. Shared by the integration tests and, through `#[path]`, the unit
//! tests of the code that writes beneath a project.

use std::path::{Path, PathBuf};

/// Every file under `dir` with its bytes, sorted by path. Links found there are not followed
/// into (listed as entries, with the bytes they lead to, or none).
pub(crate) fn files_under(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if std::fs::symlink_metadata(&path).unwrap().is_dir() {
            found.extend(files_under(&path));
        } else {
            found.push((path.clone(), std::fs::read(&path).unwrap_or_default()));
        }
    }
    found.sort();
    found
}
