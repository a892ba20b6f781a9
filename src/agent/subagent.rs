//! The `task` tool: a sub-agent with read-only tools that runs a fresh conversation to
//! completion and returns its final answer.
//!
//! Invariant: it lives in `agent/` and implements `tools::Tool`, so `tools/` never depends on the
//! agent (app.rs registers it). The sub-agent cannot write, has a lower iteration budget and
//! stops after 2 all-unknown-tool iterations; it never asks the human.

use super::{Agent, Conversation, Event, Gate, Settings, Stop};
use crate::llm::Provider;
use crate::mode::Mode;
use crate::msg::{Message, Role, System};
use crate::tools::{Registry, Tool, ToolContext, ToolOutput};
use std::sync::{Arc, Mutex};

/// Iteration budget of a sub-agent run.
pub const SUBAGENT_MAX_ITERATIONS: u32 = 12;
/// All-unknown-tool iterations that stop a sub-agent.
pub const SUBAGENT_UNKNOWN_TOOL_LIMIT: u32 = 2;

const SUBAGENT_PROMPT: &str = "\
You are a research sub-agent of mewcode, a coding agent. You have read-only tools: find, read \
and search what the task asks for, then answer with a complete, self-contained report (file \
paths with line numbers, the facts found, and what remains uncertain). You cannot change files \
or run commands; do not ask the user questions.";

/// The sub-agent tool.
pub struct TaskTool {
    provider: Arc<dyn Provider>,
    /// Read-only tools only (never `task` itself: no recursion).
    registry: Registry,
    gate: Arc<dyn Gate>,
    environment: String,
    max_tokens: u32,
}

impl TaskTool {
    /// Builds the tool from the main registry's read-only tools.
    pub fn new(
        provider: Arc<dyn Provider>,
        main_registry: &Registry,
        gate: Arc<dyn Gate>,
        environment: String,
        max_tokens: u32,
    ) -> TaskTool {
        let mut registry = Registry::new();
        for definition in main_registry.read_only_definitions() {
            if definition.name != "task"
                && let Some(tool) = main_registry.get(&definition.name)
            {
                registry.register(tool);
            }
        }
        TaskTool { provider, registry, gate, environment, max_tokens }
    }
}

impl Tool for TaskTool {
    fn name(&self) -> &str {
        "task"
    }

    fn rule_name(&self) -> &str {
        "Task"
    }

    fn description(&self) -> &str {
        "Delegate a self-contained research task (finding code, reading several files, answering a \
         question about the codebase) to a sub-agent with read-only tools. It returns its final \
         report. Give it everything it needs in the prompt: it does not see this conversation."
    }

    fn input_schema(&self) -> serde_json::Value {
        serde_json::json!({
            "type": "object",
            "properties": {
                "description": {"type": "string", "description": "A short (3-5 word) label for the task"},
                "prompt": {"type": "string", "description": "The full task for the sub-agent"}
            },
            "required": ["prompt"]
        })
    }

    fn read_only(&self) -> bool {
        true
    }

    fn execute(&self, input_json: &str, ctx: &ToolContext) -> ToolOutput {
        let input: serde_json::Value = match serde_json::from_str(input_json) {
            Ok(value) => value,
            Err(err) => return ToolOutput::error(format!("invalid JSON arguments: {err}")),
        };
        let Some(prompt) = input.get("prompt").and_then(|prompt| prompt.as_str()).filter(|p| !p.trim().is_empty())
        else {
            return ToolOutput::error("missing required string field: prompt");
        };
        let agent = Arc::new(Agent {
            provider: Arc::clone(&self.provider),
            registry: self.registry.clone(),
            gate: Arc::clone(&self.gate),
            system: System { stable: SUBAGENT_PROMPT.to_string(), environment: self.environment.clone() },
            settings: Settings {
                root: ctx.root.clone(),
                max_iterations: SUBAGENT_MAX_ITERATIONS,
                unknown_tool_limit: SUBAGENT_UNKNOWN_TOOL_LIMIT,
                max_tokens: self.max_tokens,
                interactive: false,
                reads: crate::tools::ReadTracker::new(),
                log: Default::default(),
            },
            hooks: crate::hooks::Hooks::default(),
            // A sub-agent's conversation is short-lived: no window (no summaries), no session
            // directory (no offloads); a prompt-too-long ends it with an error result.
            context: crate::context::Context::default(),
        });
        let conversation: Conversation = Arc::new(Mutex::new(vec![Message::user(prompt)].into()));
        let events = agent.run(Arc::clone(&conversation), Mode::Plan, ctx.cancel.clone());
        let mut stop = Stop::Cancelled;
        let mut error = None;
        for event in events {
            match event {
                Event::Done(reason) => stop = reason,
                Event::Error(message) => error = Some(message),
                Event::Iter(_)
                | Event::Text(_)
                | Event::Thinking(_)
                | Event::Restart { .. }
                | Event::ToolStart { .. }
                | Event::ToolEnd { .. }
                | Event::Usage(_)
                | Event::Notice(_)
                | Event::Approval(_)
                | Event::Compact(_) => {}
            }
        }
        let final_text = super::lock(&conversation)
            .iter()
            .rev()
            .find(|message| message.role == Role::Assistant)
            .map(|message| message.content.clone())
            .unwrap_or_default();
        match stop {
            Stop::Completed => ToolOutput::ok(final_text),
            Stop::Cancelled => ToolOutput::error("the sub-agent was cancelled"),
            Stop::IterationLimit | Stop::UnknownTools => ToolOutput::error(format!(
                "the sub-agent stopped before finishing ({}); its last words: {final_text}",
                stop.as_str()
            )),
            Stop::Failed => ToolOutput::error(format!("the sub-agent failed: {}", error.unwrap_or_default())),
        }
    }
}
