//! The `task` tool: a sub-agent with read-only tools that runs a fresh conversation to
//! completion and returns its final answer.
//!
//! Invariant: it lives in `agent/` and implements `tools::Tool`, so `tools/` never depends on the
//! agent (app.rs registers it). The sub-agent is built from its parent's `Toolbox` (the same
//! Arc), so its calls take the parent's path with the parent's gate and PreToolUse/PostToolUse
//! hooks; what differs is only what a sub-agent is: read-only tools in plan mode, a lower
//! iteration budget, a stop after 2 all-unknown-tool iterations, no human to ask (an Ask is a
//! refusal), no turn hooks, and its own conversation (hook context goes there, not to the parent).

use super::{Agent, Conversation, Event, FrontEnd, Lean, LeanWhen, Settings, Stop, Toolbox};
use crate::mode::Mode;
use crate::permission::network::HostAnswer;
use crate::tools::{Registry, Tool, ToolContext, ToolOutput};
use std::path::Path;
use std::sync::Arc;

/// Iteration budget of a sub-agent run.
const SUBAGENT_MAX_ITERATIONS: u32 = 12;
/// All-unknown-tool iterations that stop a sub-agent.
const SUBAGENT_UNKNOWN_TOOL_LIMIT: u32 = 2;

const SUBAGENT_PROMPT: &str = "\
You are a research sub-agent of mewcode, a coding agent. You have read-only tools: find, read \
and search what the task asks for, then answer with a complete, self-contained report (file \
paths with line numbers, the facts found, and what remains uncertain). You cannot change files \
or run commands; do not ask the user questions.";

/// The sub-agent tool.
pub(crate) struct TaskTool {
    /// The parent agent's toolbox: the sub-agent runs with the same model, gate and hooks.
    toolbox: Arc<Toolbox>,
    /// Read-only tools only (never `task` itself: no recursion).
    registry: Registry,
    /// True when the parent's requests are lean (a small window): the sub-agent, whose own
    /// window is unknown, runs on the same model and sends lean requests too.
    lean: bool,
}

impl TaskTool {
    /// Builds the tool from the parent's toolbox (pass the very Arc the parent `Agent` gets) and
    /// the read-only tools of the parent's registry, sources included: an MCP server that connects
    /// after start-up (the REPL does not wait) lends its read-only tools to the next sub-agent.
    /// `lean`: whether the parent's requests are lean.
    pub(crate) fn new(toolbox: Arc<Toolbox>, main_registry: &Registry, lean: bool) -> TaskTool {
        TaskTool { toolbox, registry: main_registry.read_only_view("task"), lean }
    }

    /// The sub-agent for one call: everything but its own limits comes from the parent.
    fn subagent(&self, root: &Path, image_refusal: Option<String>) -> Agent {
        Agent {
            toolbox: Arc::clone(&self.toolbox),
            registry: self.registry.clone(),
            stable_prompt: SUBAGENT_PROMPT.to_string(),
            settings: Settings {
                root: root.to_path_buf(),
                max_iterations: SUBAGENT_MAX_ITERATIONS,
                unknown_tool_limit: SUBAGENT_UNKNOWN_TOOL_LIMIT,
                front_end: FrontEnd::Headless,
                turn_hooks: false,
                checkpoints: None,
                // Its prompt is short already; its tools take their lean form.
                lean: Lean {
                    when: if self.lean { LeanWhen::Always } else { LeanWhen::Never },
                    prompt: SUBAGENT_PROMPT.to_string(),
                    keep: Vec::new(),
                },
                // The parent's model answers: what it takes, the sub-agent's tools may return.
                image_refusal,
            },
            // A sub-agent's conversation is short-lived: no window (no summaries), no sessions
            // directory (no offloads); a prompt-too-long ends it with an error result.
            context: crate::context::ContextConfig::default(),
        }
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

    fn lean_description(&self) -> String {
        "Give a self-contained research task to a read-only sub-agent; returns its report.".to_string()
    }

    fn lean_input_schema(&self) -> serde_json::Value {
        crate::tools::lean::lean_schema(
            self.input_schema(),
            &[("description", "short label"), ("prompt", "the full task")],
        )
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
        let agent = Arc::new(self.subagent(&ctx.root, ctx.image_refusal.clone()));
        // Its own conversation, unlogged, in the parent's session (its tool calls' hooks say so).
        let conversation = Conversation::new(ctx.session_id.clone());
        let running = agent.run(conversation, prompt.to_string(), Mode::Plan, ctx.cancel.clone());
        let mut stop = Stop::Cancelled;
        let mut error = None;
        let mut final_text = String::new();
        for event in running.events() {
            match event {
                Event::Done { stop: reason, answer } => {
                    stop = reason;
                    final_text = answer;
                }
                Event::Error(failure) => error = Some(failure.message),
                // Its commands' questions about hosts are the parent's to put to the person.
                Event::HostQuestion(request) => {
                    let answer = ctx.ask_host.as_ref().map_or(HostAnswer::Unasked, |ask| ask.ask(&request.question));
                    let _ = request.respond.send(answer);
                }
                Event::Iter(_)
                | Event::Text(_)
                | Event::Thinking(_)
                | Event::Restart { .. }
                | Event::Retry(_)
                | Event::ToolStart { .. }
                | Event::ToolEnd { .. }
                | Event::Usage { .. }
                | Event::Notice(_)
                | Event::Approval(_)
                | Event::Compact(_) => {}
            }
        }
        // Its worker ends right after Done; the conversation dies with the call.
        drop(running.finish());
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

#[cfg(test)]
#[path = "subagent_tests.rs"]
mod tests;
