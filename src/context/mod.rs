//! Context management (SPEC §6): the token estimate, the compaction thresholds and breaker, and
//! the per-conversation state the agent keeps between iterations. `offload.rs` is layer 1 (big
//! tool results to disk), `summary.rs` is layer 2 (an LLM summary plus the recent tail).
//!
//! Invariant: every decision here (estimate, thresholds, breaker, tail, drop schedule) is a pure
//! function over values; the only IO is layer 1's file writes, the recovery re-reads and the
//! summary request, and the agent decides when they happen. The estimate costs O(new messages)
//! per iteration: it keeps a running character count and never rescans the history unless the
//! history was replaced. This module does not emit events or touch the session log.

pub mod offload;
pub mod summary;

#[cfg(test)]
mod tests;

use crate::msg::{History, Message};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, Weak};

/// Characters per token for every estimate in the program (one constant, SPEC §6).
pub const CHARS_PER_TOKEN: f64 = 3.5;
/// Room left for the summary request itself (its input and its output).
pub const SUMMARY_RESERVE: u64 = 20_000;
/// Room left for the estimate's error (text that tokenises worse than 3.5 chars per token).
pub const SAFETY_MARGIN: u64 = 13_000;
/// After an emergency compaction, an estimate this close to the window gives up.
pub const EMERGENCY_FLOOR: u64 = 3_000;
/// Consecutive automatic summary failures that stop automatic summarising.
pub const BREAKER_LIMIT: u32 = 3;

/// Tokens for `chars` characters: `ceil(chars / 3.5)`.
pub fn tokens_for_chars(chars: u64) -> u64 {
    (chars as f64 / CHARS_PER_TOKEN).ceil() as u64
}

/// Characters of one message as the model sees them: text, tool names and inputs, results and
/// reasoning.
pub fn message_chars(message: &Message) -> u64 {
    let calls: usize =
        message.tool_calls.iter().map(|call| call.name.chars().count() + call.input.chars().count()).sum();
    let results: usize = message.tool_results.iter().map(|result| result.content.chars().count()).sum();
    let thinking: usize = message
        .thinking
        .iter()
        .map(|block| match block {
            crate::msg::ThinkingBlock::Signed { text, .. } => text.chars().count(),
            crate::msg::ThinkingBlock::Redacted { data } => data.len(),
        })
        .sum();
    (message.content.chars().count() + calls + results + thinking) as u64
}

/// Tokens of a whole message list by characters alone (no anchor): for a fresh or resumed
/// history.
pub fn estimate_messages(messages: &[Message]) -> u64 {
    tokens_for_chars(messages.iter().map(message_chars).sum())
}

/// What started a compaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// The estimate crossed the threshold before a request.
    Auto,
    /// The user asked (`/compact`): no layer 1, no threshold, no breaker.
    Manual,
    /// The provider said the prompt is too long: layer 1 forced, then a summary, no breaker.
    Emergency,
}

impl Trigger {
    /// The stable name used in stream-json and notices.
    pub fn as_str(self) -> &'static str {
        match self {
            Trigger::Auto => "auto",
            Trigger::Manual => "manual",
            Trigger::Emergency => "emergency",
        }
    }
}

/// The context settings of one agent.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ContextConfig {
    /// The model's context window in tokens; 0 turns summarising off (sub-agents).
    pub window: u64,
    /// The configured fraction of the window at which automatic compaction starts, if lower.
    pub compact_at: Option<f64>,
    /// The session directory; offloaded results go to `<dir>/tool-results/`. None: layer 1 is off
    /// (results stay undecided and are offloaded once a directory is known).
    pub session_dir: Option<PathBuf>,
}

/// The estimate at which automatic summarising starts: `window − 20 000 − 13 000`, or the
/// `compact_at` fraction of the window when that is lower. None when the window is unknown (0).
/// A window under 66 000 tokens (a small local model) starts at half the window instead of at
/// almost nothing, so it does not try to summarise on every iteration.
pub fn auto_threshold(window: u64, compact_at: Option<f64>) -> Option<u64> {
    if window == 0 {
        return None;
    }
    let fixed = window.saturating_sub(SUMMARY_RESERVE + SAFETY_MARGIN).max(window / 2);
    let fraction = compact_at.filter(|fraction| *fraction > 0.0 && *fraction <= 1.0);
    Some(fraction.map_or(fixed, |fraction| fixed.min((window as f64 * fraction) as u64)))
}

/// True when an automatic summary is due: over the threshold and the breaker closed.
pub fn should_summarize(estimate: u64, config: &ContextConfig, breaker: &Breaker) -> bool {
    auto_threshold(config.window, config.compact_at).is_some_and(|threshold| estimate >= threshold)
        && !breaker.is_open()
}

/// True when an emergency compaction left the conversation still too close to the window.
pub fn still_too_long(estimate: u64, window: u64) -> bool {
    estimate >= window.saturating_sub(EMERGENCY_FLOOR)
}

/// Room a resumed session must leave: a resume compacts first when its estimate is above
/// `window − 8 000` (SPEC §8).
pub const RESUME_MARGIN: u64 = 8_000;

/// True when a freshly loaded history should be compacted before the first turn.
pub fn should_compact_on_resume(messages: &[Message], window: u64) -> bool {
    window > 0 && estimate_messages(messages) > window.saturating_sub(RESUME_MARGIN)
}

/// The estimate of SPEC §6: the last main response's usage (the anchor, covering the first
/// `anchor_len` messages) plus the characters of the messages after it, over 3.5.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Estimate {
    anchor_tokens: u64,
    /// Messages covered by the anchor or already counted in `chars_after`.
    counted_len: usize,
    /// Characters counted after the anchor, minus what layer 1 removed (may go below zero when
    /// it shrank messages the anchor covers).
    chars_after: i64,
}

impl Estimate {
    /// Counts the messages appended since the last call and returns the estimate. A history
    /// shorter than what was counted was replaced: it is counted again from scratch.
    pub fn update(&mut self, messages: &[Message]) -> u64 {
        if messages.len() < self.counted_len {
            *self = Estimate::default();
        }
        for message in &messages[self.counted_len..] {
            self.chars_after += message_chars(message) as i64;
        }
        self.counted_len = messages.len();
        self.tokens()
    }

    /// The current estimate without counting anything new.
    pub fn tokens(&self) -> u64 {
        let delta = (self.chars_after.unsigned_abs() as f64 / CHARS_PER_TOKEN).ceil() as u64;
        if self.chars_after >= 0 { self.anchor_tokens + delta } else { self.anchor_tokens.saturating_sub(delta) }
    }

    /// Moves the anchor: the main response's `Usage::total()` covers the first `len` messages.
    /// A zero total (the provider reported no usage) keeps the character count instead.
    pub fn anchor(&mut self, usage_total: u64, len: usize) {
        if usage_total > 0 {
            *self = Estimate { anchor_tokens: usage_total, counted_len: len, chars_after: 0 };
        }
    }

    /// Layer 1 replaced content: `chars` fewer characters in the history.
    pub fn shrink(&mut self, chars: u64) {
        self.chars_after -= chars as i64;
    }

    /// The history was replaced (compaction): forget the anchor; the next `update` counts all.
    pub fn reset(&mut self) {
        *self = Estimate::default();
    }
}

/// The breaker of automatic summarising: `BREAKER_LIMIT` consecutive automatic failures open
/// it. Manual and emergency compactions neither count nor reset it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Breaker {
    failures: u32,
}

impl Breaker {
    /// True when automatic summarising is off.
    pub fn is_open(&self) -> bool {
        self.failures >= BREAKER_LIMIT
    }

    /// Records the outcome of a summary started by `trigger`.
    pub fn record(&mut self, trigger: Trigger, succeeded: bool) {
        match (trigger, succeeded) {
            (Trigger::Auto, true) => self.failures = 0,
            (Trigger::Auto, false) => self.failures += 1,
            (Trigger::Manual | Trigger::Emergency, _) => {}
        }
    }
}

/// Everything context management remembers about one conversation between iterations.
#[derive(Debug, Default)]
pub struct State {
    /// The conversation this state describes. A weak reference, not an address: it keeps the
    /// allocation from being reused, so a new conversation can never pass for the old one.
    conversation: Weak<Mutex<History>>,
    pub estimate: Estimate,
    pub offload: offload::Offloader,
    pub breaker: Breaker,
}

impl State {
    /// Binds the state to `conversation`: a different conversation (a `/clear`, a resume)
    /// resets the estimate and layer 1's scan, keeping the ledger (decisions are keyed by call
    /// id) and the breaker.
    pub fn bind(&mut self, conversation: &Arc<Mutex<History>>) {
        if !std::ptr::eq(self.conversation.as_ptr(), Arc::as_ptr(conversation)) {
            self.conversation = Arc::downgrade(conversation);
            self.estimate.reset();
            self.offload.reset_scan();
        }
    }
}

/// A context configuration and the state kept for it, owned by an agent.
#[derive(Debug, Default)]
pub struct Context {
    pub config: ContextConfig,
    pub state: Mutex<State>,
}

impl Context {
    /// Fresh state for `config`.
    pub fn new(config: ContextConfig) -> Context {
        Context { config, state: Mutex::new(State::default()) }
    }
}
