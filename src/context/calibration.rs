//! What the server's own counts say about the estimate: the fixed part of a request (system
//! prompt and tool definitions) as the server counted it, and the prompt count a server names in
//! its "too long" error. A local server's chat template may drop or shorten the tool definitions
//! (llama-cpp-python's does), so the characters mewcode sends can be several times what the model
//! reads; a count from the server replaces the guess wherever one exists.
//!
//! Invariant: pure functions over counts and text, no IO. A calibration only ever comes from a
//! server's number for a request this conversation sent; without one every figure is the plain
//! 3.5-characters-a-token estimate. It never makes the fixed part larger than the characters
//! say, so a wrong count can only make compaction later, never make it start on every turn.

use super::tokens_for_chars;
use regex::Regex;
use std::sync::LazyLock;

/// Below this many reported prompt tokens a count says too little to calibrate by (the error of
/// the messages' estimate is then as large as the fixed part).
const MIN_REPORTED: u64 = 64;

/// The fixed part of a request as the server counted it, once it has counted one, for the
/// model it counted it for (a conversation outlives a `/model` switch; a count does not).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Calibration {
    fixed_tokens: Option<u64>,
    model: String,
}

impl Calibration {
    /// Learns from `model`'s server: `reported` prompt tokens for a request whose messages were
    /// `message_chars` characters and whose fixed part was `fixed_chars`. The fixed part is what
    /// the count leaves after the messages' estimate, never more than its own estimate.
    pub(crate) fn learn(&mut self, model: &str, reported: u64, message_chars: u64, fixed_chars: u64) {
        if reported < MIN_REPORTED {
            return;
        }
        let computed = tokens_for_chars(fixed_chars);
        self.fixed_tokens = Some(reported.saturating_sub(tokens_for_chars(message_chars)).min(computed));
        model.clone_into(&mut self.model);
    }

    /// Tokens of `model`'s fixed part: its server's count when there is one, else `computed`
    /// (its characters over 3.5). Never above `computed`: a request with more tools than the
    /// one counted (an MCP server connected since) is not undercounted by more than it grew.
    pub(crate) fn fixed(&self, model: &str, computed: u64) -> u64 {
        match self.fixed_tokens {
            Some(counted) if self.model == model => counted.min(computed),
            _ => computed,
        }
    }
}

/// The prompt's token count in a server's "too long" error, where the server says it:
/// llama-cpp-python ("Requested tokens (5123) exceed context window of 4096"), llama.cpp
/// ("request (5123 tokens) exceeds the available context size"), vLLM ("you requested 6123
/// tokens (5123 in the messages, 1000 in the completion)"), OpenAI ("your messages resulted in
/// 5123 tokens") and Anthropic ("prompt is too long: 5123 tokens > 4096 maximum").
pub(crate) fn prompt_tokens_in_error(message: &str) -> Option<u64> {
    static COUNT: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(
            r"(?i)requested tokens \((\d+)\)|request \((\d+) tokens\)|\((\d+) in the messages|messages resulted in (\d+) tokens|prompt is too long: (\d+) tokens",
        )
        .ok()
    });
    let captures = COUNT.as_ref()?.captures(message)?;
    captures.iter().skip(1).flatten().next()?.as_str().parse().ok()
}

#[cfg(test)]
#[path = "calibration_tests.rs"]
mod tests;
