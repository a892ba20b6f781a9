//! Where a test puts files that sandboxed commands must see: the sandbox's view replaces `/tmp`,
//! `/var/tmp`, `/run` and `/dev` with private ones, so a checkout (and cargo's scratch dirs) under
//! `/tmp` — where a CI system may clone — would hide a test's HOME and "outside" directories from
//! the commands it runs. Shared by the unit tests (`#[path]`) and both integration test binaries.

use std::path::{Path, PathBuf};

/// Directories the view makes private.
const PRIVATE: [&str; 5] = ["/tmp", "/var/tmp", "/run", "/var/run", "/dev"];

/// `preferred` when commands see it, else a directory outside the private ones (made if needed).
pub(crate) fn visible_base(preferred: &Path) -> PathBuf {
    let resolved = std::fs::create_dir_all(preferred)
        .ok()
        .and_then(|()| std::fs::canonicalize(preferred).ok())
        .unwrap_or_else(|| preferred.to_path_buf());
    if !PRIVATE.iter().any(|private| resolved.starts_with(private)) {
        return resolved;
    }
    for fallback in ["/var/lib/mewcode-tests", "/srv/mewcode-tests", "/opt/mewcode-tests"] {
        if std::fs::create_dir_all(fallback).is_ok() {
            return PathBuf::from(fallback);
        }
    }
    resolved
}
