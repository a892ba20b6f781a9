//! The tool contract and the registry that the agent calls through.
//!
//! Invariant: a tool failure is data (an `is_error` output the model reads), never a panic or an
//! `Err` that stops the turn; unknown names become "unknown tool: X" errors.

use crate::cancel::CancelToken;
use crate::msg::ToolDefinition;
use std::path::PathBuf;
use std::sync::Arc;

/// What a tool returns: the text the model reads and whether it is an error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolOutput {
    pub content: String,
    pub is_error: bool,
}

impl ToolOutput {
    /// A successful output.
    pub fn ok(content: impl Into<String>) -> ToolOutput {
        ToolOutput { content: content.into(), is_error: false }
    }

    /// An error output the model reads and can correct itself from.
    pub fn error(content: impl Into<String>) -> ToolOutput {
        ToolOutput { content: content.into(), is_error: true }
    }
}

/// Everything a tool may touch: the project root and the turn's cancel token.
#[derive(Clone, Debug)]
pub struct ToolContext {
    /// The project root (absolute, canonical); relative paths resolve against it.
    pub root: PathBuf,
    /// Cancelled when the user interrupts the turn; long tools check it.
    pub cancel: CancelToken,
}

/// A tool the model can call.
pub trait Tool: Send + Sync {
    /// The model-facing name (`read_file`).
    fn name(&self) -> &str;
    /// The friendly name used in permission rules (`Read`).
    fn rule_name(&self) -> &str;
    /// What the model is told the tool does.
    fn description(&self) -> &str;
    /// The JSON Schema of the input object.
    fn input_schema(&self) -> serde_json::Value;
    /// True when the tool never changes anything (it may then run concurrently with others).
    fn read_only(&self) -> bool;
    /// Runs the tool on the model's raw JSON input.
    fn execute(&self, input_json: &str, ctx: &ToolContext) -> ToolOutput;
}

/// The set of tools of a run, in registration order.
#[derive(Clone, Default)]
pub struct Registry {
    tools: Vec<Arc<dyn Tool>>,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Registry {
        Registry::default()
    }

    /// Adds a tool; a later tool with the same name replaces the earlier one.
    pub fn register(&mut self, tool: Arc<dyn Tool>) {
        self.tools.retain(|existing| existing.name() != tool.name());
        self.tools.push(tool);
    }

    /// The definitions of every tool, in registration order.
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        self.tools.iter().map(|tool| definition_of(tool.as_ref())).collect()
    }

    /// The definitions of the read-only tools only (plan mode, sub-agents).
    pub fn read_only_definitions(&self) -> Vec<ToolDefinition> {
        self.tools.iter().filter(|tool| tool.read_only()).map(|tool| definition_of(tool.as_ref())).collect()
    }

    /// The tool called `name`, if registered.
    pub fn get(&self, name: &str) -> Option<Arc<dyn Tool>> {
        self.tools.iter().find(|tool| tool.name() == name).cloned()
    }

    /// Runs `name` on `input_json`; an unknown name is an error output, and a panicking tool is
    /// caught and becomes an error output instead of ending the session.
    pub fn execute(&self, name: &str, input_json: &str, ctx: &ToolContext) -> ToolOutput {
        match self.get(name) {
            Some(tool) => execute_caught(tool.as_ref(), input_json, ctx),
            None => ToolOutput::error(format!("unknown tool: {name}")),
        }
    }
}

/// Runs one tool, turning a panic into an error output: one bug must not end the session.
pub fn execute_caught(tool: &dyn Tool, input_json: &str, ctx: &ToolContext) -> ToolOutput {
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| tool.execute(input_json, ctx)));
    outcome.unwrap_or_else(|_| ToolOutput::error(format!("tool {} failed internally (a bug in mewcode)", tool.name())))
}

fn definition_of(tool: &dyn Tool) -> ToolDefinition {
    ToolDefinition {
        name: tool.name().to_string(),
        description: tool.description().to_string(),
        input_schema: tool.input_schema(),
    }
}
