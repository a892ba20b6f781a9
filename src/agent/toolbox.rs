//! The parts an agent runs its tool calls with, shared with the `task` sub-agents it starts.
//!
//! Invariant: a sub-agent is derived from its parent's `Arc<Toolbox>` (the `TaskTool` holds a
//! clone of the very Arc its parent `Agent` holds), never assembled from parts of its own. Every
//! tool call of any agent goes through the one path of `batch.rs` (PreToolUse hook → plan-mode
//! check → permission gate → approval → execute → PostToolUse hook → result), which reads its
//! policy from here, so a policy added to this struct applies to main agents and sub-agents
//! alike. What a sub-agent does differently (read-only tools, no human to ask, no turn hooks,
//! its own conversation) lives in its `Registry` and `Settings`, not here.

use super::gate::Gate;
use crate::checks::Checks;
use crate::hooks::Hooks;
use crate::llm::Provider;
use std::sync::{Arc, Mutex};

/// The environment part of the system prompt: gathered at start-up and again before each user
/// turn (the date and git state move; the stable part, and so the prompt cache, does not), the
/// same for every request within a turn.
pub struct Environment {
    gather: Box<dyn Fn() -> String + Send + Sync>,
    current: Mutex<String>,
}

impl Environment {
    /// Gathers with `gather` now and at each `refresh`.
    pub(crate) fn gathered(gather: impl Fn() -> String + Send + Sync + 'static) -> Environment {
        let current = Mutex::new(gather());
        Environment { gather: Box::new(gather), current }
    }

    /// Text that never changes (tests, tools without a session).
    pub fn fixed(text: &str) -> Environment {
        let text = text.to_string();
        Environment::gathered(move || text.clone())
    }

    /// Gathers it again (before a user turn).
    pub fn refresh(&self) {
        let text = (self.gather)();
        *crate::sync::lock(&self.current) = text;
    }

    /// The text as last gathered.
    pub fn text(&self) -> String {
        crate::sync::lock(&self.current).clone()
    }
}

/// The model, the per-call policy and the environment of one agent and its sub-agents. There is
/// deliberately no `Default`: a toolbox is built once, by the wiring, from the session's parts.
pub struct Toolbox {
    /// The model every request of the agent and its sub-agents goes to.
    pub provider: Arc<dyn Provider>,
    /// Output cap per request (the provider's setting).
    pub max_tokens: u32,
    /// The permission system, asked about every call.
    pub gate: Arc<dyn Gate>,
    /// The user's hook commands. PreToolUse and PostToolUse fire around every call of every
    /// agent; UserPromptSubmit and Stop only around a turn of an agent whose
    /// `Settings::turn_hooks` is set (a sub-agent's run is a tool call of its parent).
    pub hooks: Hooks,
    /// The configured checks, run after every successful write of a file they match (the
    /// batch's one place that sees each change: `batch.rs`).
    pub checks: Checks,
    /// The environment part of the system prompt (cwd, OS, date, model, git state), gathered
    /// again at each user turn.
    pub environment: Environment,
    /// Some when the server may drop the start of a prompt that does not fit its window instead
    /// of refusing it (an OpenAI-compatible server of one's own: Ollama does): each reported
    /// prompt is then checked against the estimate (`usage::check_truncation`), but only when
    /// the estimate is at least this many tokens — 80 % of a window the server reported, since
    /// a prompt that fits cannot be cut; 0 when the window is configured or a default. None for
    /// the public APIs, which refuse an overlong prompt, so a prompt that tokenises unusually
    /// well (long runs of one character) can never stop a turn there.
    pub silent_truncation: Option<u64>,
}
