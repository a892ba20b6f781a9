//! Test helpers for the tool modules: a temporary project directory removed on drop, and a context
//! rooted in it.
//!
//! Invariant: every directory lives under `std::env::temp_dir()` with a unique name (pid plus a
//! counter), so parallel tests never share files and nothing depends on HOME.

use super::{Tool, ToolContext, ToolOutput};
use crate::cancel::CancelToken;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

/// A temporary project directory, deleted when dropped.
pub(super) struct TempProject {
    pub root: PathBuf,
}

impl TempProject {
    pub(super) fn new(tag: &str) -> TempProject {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let name = format!("mewcode-tools-{tag}-{}-{}", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed));
        let root = std::env::temp_dir().join(name);
        std::fs::create_dir_all(&root).unwrap();
        // Canonical, as the real root is (the temp dir may itself sit behind a symlink).
        let root = std::fs::canonicalize(&root).unwrap();
        TempProject { root }
    }

    /// Writes `content` at `relative`, creating parent directories.
    pub(super) fn write(&self, relative: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let path = self.root.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&path, content).unwrap();
        path
    }

    pub(super) fn read(&self, relative: &str) -> String {
        std::fs::read_to_string(self.root.join(relative)).unwrap()
    }

    pub(super) fn ctx(&self) -> ToolContext {
        ToolContext::new(self.root.clone(), CancelToken::new())
    }

    pub(super) fn path(&self, relative: &str) -> PathBuf {
        self.root.join(relative)
    }
}

impl Drop for TempProject {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// Runs `tool` with `input` (a JSON value) in `ctx`.
pub(super) fn run(tool: &dyn Tool, ctx: &ToolContext, input: serde_json::Value) -> ToolOutput {
    tool.execute(&input.to_string(), ctx)
}

/// Asserts that malformed or incomplete arguments become error outputs naming the problem.
pub(super) fn check_rejects_bad_arguments(tool: &dyn Tool, required_field: &str) {
    let ctx = ToolContext::new(std::env::temp_dir(), CancelToken::new());
    for bad in ["not json", "{\"unterminated\": ", "[1, 2]", "42"] {
        let output = tool.execute(bad, &ctx);
        assert!(output.is_error, "{}: {bad} accepted", tool.name());
        assert!(output.content.starts_with(&format!("invalid arguments for {}:", tool.name())), "{}", output.content);
    }
    let output = tool.execute("{}", &ctx);
    assert!(output.is_error);
    assert!(output.content.contains(&format!("missing field `{required_field}`")), "{}", output.content);
    let output = tool.execute(&format!("{{\"{required_field}\": 17}}"), &ctx);
    assert!(output.is_error);
    assert!(output.content.contains("invalid type"), "{}", output.content);
}
