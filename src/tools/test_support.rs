//! Test helpers for the tool modules: a tool context rooted in a `test_dir::TempDir` project, and
//! the two ways every tool test calls a tool.
//!
//! Invariant: a tool test's project is a fresh `TempDir` (canonical, unique, removed on drop), so
//! parallel tests never share files and nothing depends on HOME.

use super::{Tool, ToolContext, ToolOutput};
use crate::cancel::CancelToken;
use crate::test_dir::TempDir;

/// A temporary directory as the project root of a tool call.
pub(super) trait ProjectContext {
    /// A fresh context whose project root is this directory.
    fn ctx(&self) -> ToolContext;
}

impl ProjectContext for TempDir {
    fn ctx(&self) -> ToolContext {
        ToolContext::new(self.path().to_path_buf(), CancelToken::new())
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
