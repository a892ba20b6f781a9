//! Where a config value comes from, and the error that points there: the file being read
//! (`FileContext`) and a failure in it (`ConfigError`, naming the file and the key path).
//!
//! Invariant: a `ConfigError` always names its file; its key path is empty only when the whole
//! file is at fault (unreadable, not YAML). This file reads and parses nothing: the readers of a
//! config file (`file.rs`, `value.rs`, `servers.rs`, `request.rs`, `sandbox.rs`) use it, and it
//! uses none of them, so the arrows between them run one way.

use super::expand::Lookup;
use std::path::Path;

/// A config error: the file, the key path inside it and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub file: String,
    pub key_path: String,
    pub message: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.key_path.is_empty() {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}: {}: {}", self.file, self.key_path, self.message)
        }
    }
}

impl std::error::Error for ConfigError {}

/// How to read a file: its display name, its directory (relative `ca_file` paths resolve there)
/// and whether `${VAR}` expansion is allowed (not for an untrusted project file).
pub(crate) struct FileContext<'a> {
    pub display: &'a str,
    pub dir: &'a Path,
    pub lookup: Option<Lookup<'a>>,
}

/// The error at `key_path` (empty: the whole file) of the file `ctx` reads.
pub(super) fn error(ctx: &FileContext, key_path: &str, message: String) -> ConfigError {
    ConfigError { file: ctx.display.to_string(), key_path: key_path.to_string(), message }
}

#[cfg(test)]
#[path = "error_tests.rs"]
mod tests;
