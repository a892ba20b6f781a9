//! The one temporary directory of the unit tests: a fresh, empty, canonical directory with a
//! unique name (label, pid and a counter), removed with everything in it when dropped.
//!
//! Invariant: two tests never share a directory and nothing depends on HOME; the path is
//! canonical, so it compares equal with what the product resolves (`/tmp` may be a link).
//! Directories that a confined command must see (the sandbox's view replaces `/tmp` by a private
//! one) are made with [`TempDir::under`] a base outside `/tmp`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A directory removed on drop.
#[derive(Debug)]
pub(crate) struct TempDir {
    path: PathBuf,
}

impl TempDir {
    /// A fresh directory under the system's temp dir, `label` in its name.
    pub(crate) fn new(label: &str) -> TempDir {
        TempDir::under(&std::env::temp_dir(), label)
    }

    /// A fresh directory under `base` (made when missing).
    pub(crate) fn under(base: &Path, label: &str) -> TempDir {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let unique = format!("mewcode-unit-{label}-{}-{}", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed));
        let path = base.join(unique);
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        TempDir { path: std::fs::canonicalize(&path).unwrap() }
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// `relative` inside the directory.
    pub(crate) fn join(&self, relative: impl AsRef<Path>) -> PathBuf {
        self.path.join(relative)
    }

    /// Makes the directory `relative` (and its parents) and returns its path.
    pub(crate) fn mkdir(&self, relative: impl AsRef<Path>) -> PathBuf {
        let path = self.path.join(relative);
        std::fs::create_dir_all(&path).unwrap();
        path
    }

    /// Writes `content` at `relative`, making parent directories, and returns its path.
    pub(crate) fn write(&self, relative: impl AsRef<Path>, content: impl AsRef<[u8]>) -> PathBuf {
        let path = self.path.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&path, content).unwrap();
        path
    }

    /// The text of the file at `relative`.
    pub(crate) fn read(&self, relative: impl AsRef<Path>) -> String {
        std::fs::read_to_string(self.path.join(relative)).unwrap()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

#[cfg(test)]
#[path = "test_dir_tests.rs"]
mod tests;
