//! Context management (SPEC §6): the token estimate, the compaction thresholds and breaker, and
//! the per-conversation state the agent keeps between iterations. `offload.rs` is layer 1 (big
//! tool results to disk), `summary.rs` is layer 2 (an LLM summary plus the recent tail).
//!
//! Invariant: every decision here (estimate, thresholds, breaker, tail, drop schedule) is a pure
//! function over values; the only IO is layer 1's file writes, the recovery re-reads and the
//! summary request, and the agent decides when they happen. The estimate costs O(new messages)
//! per iteration: it keeps a running character count and never rescans the history unless the
//! history was replaced. This module does not emit events or touch the session log.
//!
//! - `mod.rs` — the estimate, the thresholds, the breaker and the per-conversation `State`
//! - `limits.rs` — SPEC §6's figures scaled to the model's window
//! - `calibration.rs` — the server's own counts: the fixed part as counted, the count in an error
//! - `offload.rs` — layer 1: big tool results written to disk, a preview in their place
//! - `summary.rs` — layer 2: the summary request, the recent tail and the rebuilt history
//! - tests: each `x.rs` has its `x_tests.rs`; `tests.rs` tests `mod.rs` and holds the helpers they share

pub(crate) mod calibration;
pub(crate) mod limits;
pub(crate) mod offload;
pub(crate) mod summary;

pub(crate) use limits::Limits;

use crate::msg::{Message, System, ToolDefinition};

/// Characters per token for every estimate in the program (one constant, SPEC §6).
pub(crate) const CHARS_PER_TOKEN: f64 = 3.5;
/// Consecutive automatic summary failures that stop automatic summarising.
pub(crate) const BREAKER_LIMIT: u32 = 3;

/// Tokens for `chars` characters: `ceil(chars / 3.5)`.
pub(crate) fn tokens_for_chars(chars: u64) -> u64 {
    (chars as f64 / CHARS_PER_TOKEN).ceil() as u64
}

/// Characters of one message as the model sees them: text, tool names and inputs, results and
/// reasoning, and its images as the characters of the tokens they cost (`image_chars`).
pub(crate) fn message_chars(message: &Message) -> u64 {
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
        + message.all_images().map(|image| image_chars(image.size_px)).sum::<u64>()
}

/// An image counted as characters: the tokens Anthropic documents for it (`image::
/// estimate_tokens`: width * height / 750, at most 1600), never its base64's length, which the
/// model does not read as text.
fn image_chars(size_px: Option<(u32, u32)>) -> u64 {
    (crate::image::estimate_tokens(size_px) as f64 * CHARS_PER_TOKEN) as u64
}

/// Tokens of a whole message list by characters alone (no anchor): for a fresh or resumed
/// history.
pub(crate) fn estimate_messages(messages: &[Message]) -> u64 {
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
    /// The directory of the project's sessions, beneath the project root: a conversation's
    /// offloaded results go to `<dir>/<session id>/tool-results/`, never through a symbolic link
    /// below the root. None: layer 1 is off (results stay undecided and are offloaded once a
    /// directory is known).
    pub sessions_dir: Option<offload::DirBeneath>,
}

/// Tokens every request carries besides the messages: the system prompt and the tool
/// definitions. An anchored estimate already includes them (usage counts the whole request); an
/// unanchored one (before the first answer, after a compaction) must add them, which matters in a
/// small window where they are half of it.
pub(crate) fn overhead_tokens(system: &System, tools: &[ToolDefinition]) -> u64 {
    let tools: u64 = tools.iter().map(definition_chars).sum();
    tokens_for_chars((system.stable.chars().count() + system.environment.chars().count()) as u64 + tools)
}

/// Characters of one tool definition as the model receives it: name, description and schema.
pub(crate) fn definition_chars(tool: &ToolDefinition) -> u64 {
    (tool.name.chars().count() + tool.description.chars().count() + tool.input_schema.to_string().chars().count())
        as u64
}

/// The estimate at which automatic summarising starts (see `Limits::auto_threshold`).
pub(crate) fn auto_threshold(window: u64, compact_at: Option<f64>) -> Option<u64> {
    Limits::for_window(window).auto_threshold(compact_at)
}

/// True when an automatic summary is due: over the threshold and the breaker closed.
pub fn should_summarize(estimate: u64, config: &ContextConfig, breaker: &Breaker) -> bool {
    auto_threshold(config.window, config.compact_at).is_some_and(|threshold| estimate >= threshold)
        && !breaker.is_open()
}

/// True when the estimate grew enough since the last compaction (`compacted_at`, the estimate
/// right after it) for another automatic one to gain something; always true before the first.
pub(crate) fn grew_since_compaction(estimate: u64, compacted_at: Option<u64>, limits: &Limits) -> bool {
    compacted_at.is_none_or(|after| estimate >= after.saturating_add(limits.min_growth))
}

/// True when an emergency compaction left the conversation still too close to the window.
pub(crate) fn still_too_long(estimate: u64, window: u64) -> bool {
    estimate >= window.saturating_sub(Limits::for_window(window).emergency_floor)
}

/// True when a freshly loaded history should be compacted before the first turn: its estimate
/// is within the resume margin of the window (SPEC §8: 8 000, scaled for small windows).
pub(crate) fn should_compact_on_resume(messages: &[Message], window: u64) -> bool {
    window > 0 && estimate_messages(messages) > window.saturating_sub(Limits::for_window(window).resume_margin)
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

    /// True when a main response's usage anchors the estimate (it then covers the system
    /// prompt and tools too).
    fn is_anchored(&self) -> bool {
        self.anchor_tokens > 0
    }

    /// The estimate of the next request: `tokens()`, plus `overhead` (system prompt and tools)
    /// when no usage anchors it.
    pub(crate) fn with_overhead(&self, overhead: u64) -> u64 {
        if self.is_anchored() { self.tokens() } else { self.tokens() + overhead }
    }

    /// The current estimate without counting anything new.
    pub fn tokens(&self) -> u64 {
        let delta = (self.chars_after.unsigned_abs() as f64 / CHARS_PER_TOKEN).ceil() as u64;
        if self.chars_after >= 0 { self.anchor_tokens + delta } else { self.anchor_tokens.saturating_sub(delta) }
    }

    /// Moves the anchor: the main response's `Usage::total()` covers the first `len` messages.
    /// A zero total (the provider reported no usage) keeps the character count instead.
    pub(crate) fn anchor(&mut self, usage_total: u64, len: usize) {
        if usage_total > 0 {
            *self = Estimate { anchor_tokens: usage_total, counted_len: len, chars_after: 0 };
        }
    }

    /// Layer 1 replaced content: `chars` fewer characters in the history.
    pub fn shrink(&mut self, chars: u64) {
        self.chars_after -= chars as i64;
    }

    /// The history was replaced (compaction): forget the anchor; the next `update` counts all.
    pub(crate) fn reset(&mut self) {
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
    pub(crate) fn is_open(&self) -> bool {
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

/// Everything context management remembers about one conversation between iterations; it
/// lives in the conversation it describes (`agent::Conversation`), so a `/clear` or a resume
/// starts afresh and a switch of model keeps it.
#[derive(Debug, Default)]
pub(crate) struct State {
    pub estimate: Estimate,
    pub offload: offload::Offloader,
    pub breaker: Breaker,
    /// What the server's counts said of the fixed part (kept across compactions: the estimate
    /// is reset, the model and its template are not).
    pub calibration: calibration::Calibration,
    /// The estimate right after the last compaction of this conversation (for
    /// `grew_since_compaction`).
    pub compacted_at: Option<u64>,
    /// Summarise before the next request whatever the threshold says: a resumed history nearly
    /// fills the window (SPEC §8). Set when the conversation is resumed (`Conversation::
    /// continuing`), taken by the next request once the new prompt is in the conversation (so
    /// it is the latest message the summary keeps).
    pub compact_first: bool,
}

impl ContextConfig {
    /// The window-scaled figures for this configuration.
    pub fn limits(&self) -> Limits {
        Limits::for_window(self.window)
    }
}

#[cfg(test)]
mod tests;
