//! The lean request for small windows: below a configured window size (`lean_below`), a request
//! carries a short system prompt (identity and the essential rules, then the same instructions
//! and environment), the tools' lean definitions (`Tool::lean_description`,
//! `Tool::lean_input_schema`) and none of the optional tools (`task`) the user did not keep.
//!
//! Invariant: the choice is made per request from the agent's window in one place
//! (`Agent::system` and `Agent::tools_for` ask `Lean::applies`), so everything that estimates a
//! request (the overhead, `max_tokens`, compaction) sees the request that is actually sent. A
//! lean definition has the same tool names, property names, types and required lists as the full
//! one: a call made from either parses the same way.

use crate::config::lean::OPTIONAL_TOOLS;

/// When an agent's requests are lean.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LeanWhen {
    /// Never: the full form (`lean_below: 0`, tests, tools without a window).
    #[default]
    Never,
    /// When the agent's window is known and below this many tokens (a main agent).
    Below(u64),
    /// Always (a `task` sub-agent of a lean parent: its own window is unknown, its parent's is
    /// small).
    Always,
}

/// How an agent's lean requests look, and when it sends them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lean {
    /// When requests are lean.
    pub when: LeanWhen,
    /// The stable system prompt of a lean request (`prompt::lean_prompt`).
    pub prompt: String,
    /// The optional tools the user keeps in lean requests (`lean_tools`).
    pub keep: Vec<String>,
}

impl Lean {
    /// Lean below `below` tokens (0: never), with `prompt` and the optional tools in `keep`.
    pub(crate) fn below(below: u64, prompt: String, keep: Vec<String>) -> Lean {
        let when = if below == 0 { LeanWhen::Never } else { LeanWhen::Below(below) };
        Lean { when, prompt, keep }
    }

    /// True when a request to a window of `window` tokens is lean; an unknown window (0) gets
    /// the full form.
    pub(crate) fn applies(&self, window: u64) -> bool {
        match self.when {
            LeanWhen::Never => false,
            LeanWhen::Below(below) => window > 0 && window < below,
            LeanWhen::Always => true,
        }
    }

    /// The tools a lean request leaves out: the optional ones the user did not keep.
    pub(crate) fn left_out(&self) -> Vec<&'static str> {
        OPTIONAL_TOOLS.iter().copied().filter(|name| !self.keep.iter().any(|kept| kept == name)).collect()
    }
}

#[cfg(test)]
#[path = "lean_tests.rs"]
mod tests;
