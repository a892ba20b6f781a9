//! The figures of context management scaled to the model's window. SPEC §6's constants are made
//! for 128 000- to 200 000-token windows; a local model (llama.cpp, Ollama, vLLM) often has 4 096
//! or 8 192, where `window − 20 000 − 13 000` is negative and a 10 000-token tail is the whole
//! window. Every figure here is `min(SPEC's constant, a fixed fraction of the window)`.
//!
//! Invariant: at a 200 000-token window every figure is exactly SPEC's (most already are from
//! about 120 000), and a smaller window never gets a figure larger than SPEC's; a window of 0
//! (unknown: sub-agents) gets SPEC's figures. Pure arithmetic over values, no IO. This module does
//! not decide anything by itself; `mod.rs`, `offload.rs` and `summary.rs` use the figures.
//!
//! Why these fractions (W is the window in tokens):
//! - summary reserve `W/6` and safety margin `W/8`: automatic compaction starts at
//!   `W − W/6 − W/8 ≈ 70.8 %` of a small window (2 902 of 4 096, 5 803 of 8 192), rising to SPEC's
//!   83.5 % at 200 000 (`W/6` reaches 20 000 at 120 000, `W/8` reaches 13 000 at 104 000, so 128 000
//!   keeps SPEC's 95 000). The seed's 83.5 % relies on one model turn and one tool round being a
//!   small part of the window; in 4 096 tokens one file read is a quarter of it, so compaction
//!   must start earlier, and the 3.5 chars-per-token error is the same fraction at any size.
//! - emergency floor `W/16`: "still too long after an emergency compaction" keeps its meaning
//!   (room for an answer) instead of 3 000 tokens being most of a 4 096 window.
//! - tail `W/20` tokens and `W/16 384` messages (at least 1): SPEC's 10 000 tokens are 5 % of
//!   200 000, and its 5 messages come back from 81 920 tokens. The tail is also capped at `W/8`
//!   (new): a tail that alone refills the window defeats the compaction. The latest user message
//!   is always kept verbatim (restated after the summary when the tail starts after it).
//! - layer 1: a single result over `W/4` tokens (in bytes, `W × 3.5 / 4`) and a tool message over
//!   `W/2` are offloaded even below 50 000 / 200 000 bytes, and the preview is at most `W/16`
//!   tokens of the original (2 048 bytes from 9 363 tokens up): a result that fills a quarter of a
//!   small window cannot be summarised away in time, a preview must not refill it.
//! - summary output `W/8` (at most the configured max_tokens), and the summary request's
//!   transcript is cut to what fits with that output and the margin: the summary request must fit
//!   the same window as the conversation it summarises.
//! - recovery attachment: `W/8` tokens of re-read files in all (5 × 5 000 = 25 000 at 200 000),
//!   at most 5 000 per file.
//! - resume margin `W/4` (SPEC §8's 8 000 from 32 000 up).
//! - growth before another automatic compaction `W/16`: in a small window the compacted
//!   conversation (system prompt, tools, summary, attachment) can itself sit near the threshold;
//!   without this the agent would summarise again on every iteration for no gain.

use super::{CHARS_PER_TOKEN, offload, summary};

/// SPEC's summary reserve (room for the summary request's input and output).
const SUMMARY_RESERVE: u64 = 20_000;
/// SPEC's safety margin (room for the estimate's error).
const SAFETY_MARGIN: u64 = 13_000;
/// SPEC's floor after an emergency compaction.
const EMERGENCY_FLOOR: u64 = 3_000;
/// SPEC §8's room a resumed session must leave.
const RESUME_MARGIN: u64 = 8_000;

/// Every window-dependent figure of context management, in tokens unless the name says bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The window these figures are for (0: unknown).
    pub window: u64,
    pub summary_reserve: u64,
    pub safety_margin: u64,
    pub emergency_floor: u64,
    /// The tail keeps at least this many tokens...
    pub tail_keep_tokens: u64,
    /// ...and at least this many messages...
    pub tail_keep_messages: usize,
    /// ...but shrinks (down to the latest user message) to stay under this many tokens.
    pub tail_budget: u64,
    /// A single tool result larger than this is offloaded.
    pub single_result_bytes: usize,
    /// A tool message's undecided results totalling more than this are offloaded.
    pub aggregate_bytes: usize,
    /// Bytes of the original kept in a preview.
    pub preview_bytes: usize,
    /// The summary's output cap before the configured max_tokens is applied.
    pub summary_output: u64,
    /// Tokens of re-read files in the recovery attachment, all files together.
    pub recovery_total: u64,
    /// Tokens of one re-read file.
    pub recovery_per_file: u64,
    pub resume_margin: u64,
    /// Growth of the estimate since the last compaction before an automatic one runs again.
    pub min_growth: u64,
}

/// `min(spec, window × numerator / denominator)`; SPEC's figure when the window is unknown.
fn scaled(spec: u64, window: u64, numerator: u64, denominator: u64) -> u64 {
    if window == 0 { spec } else { spec.min(window.saturating_mul(numerator) / denominator) }
}

/// `tokens` tokens in bytes of text (3.5 characters per token, at least one byte each).
fn bytes_for_tokens(tokens: u64) -> usize {
    (tokens as f64 * CHARS_PER_TOKEN) as usize
}

impl Limits {
    /// The figures for a window of `window` tokens (0: SPEC's figures, thresholds off).
    pub(crate) fn for_window(window: u64) -> Limits {
        let unknown = window == 0;
        let bytes_of_window = |numerator: u64, denominator: u64, spec: usize| {
            if unknown { spec } else { spec.min(bytes_for_tokens(window * numerator / denominator)) }
        };
        let recovery_total = scaled(summary::RECOVERY_FILES as u64 * summary::RECOVERY_TOKENS_PER_FILE, window, 1, 8);
        Limits {
            window,
            summary_reserve: scaled(SUMMARY_RESERVE, window, 1, 6),
            safety_margin: scaled(SAFETY_MARGIN, window, 1, 8),
            emergency_floor: scaled(EMERGENCY_FLOOR, window, 1, 16),
            tail_keep_tokens: scaled(summary::RECENT_KEEP_TOKENS, window, 1, 20),
            tail_keep_messages: if unknown {
                summary::RECENT_KEEP_MESSAGES
            } else {
                (window / 16_384).clamp(1, summary::RECENT_KEEP_MESSAGES as u64) as usize
            },
            tail_budget: if unknown { u64::MAX } else { window / 8 },
            single_result_bytes: bytes_of_window(1, 4, offload::SINGLE_RESULT_LIMIT),
            aggregate_bytes: bytes_of_window(1, 2, offload::MESSAGE_AGGREGATE_LIMIT),
            preview_bytes: bytes_of_window(1, 16, offload::PREVIEW_BYTES),
            summary_output: if unknown { u64::MAX } else { (window / 8).max(1) },
            recovery_total,
            recovery_per_file: recovery_total.min(summary::RECOVERY_TOKENS_PER_FILE),
            resume_margin: scaled(RESUME_MARGIN, window, 1, 4),
            min_growth: window / 16,
        }
    }

    /// The estimate at which automatic summarising starts: `window − reserve − margin`, or the
    /// `compact_at` fraction of the window when that is lower. None when the window is unknown.
    pub(crate) fn auto_threshold(&self, compact_at: Option<f64>) -> Option<u64> {
        if self.window == 0 {
            return None;
        }
        let fixed = self.window.saturating_sub(self.summary_reserve + self.safety_margin);
        let fraction = compact_at.filter(|fraction| *fraction > 0.0 && *fraction <= 1.0);
        Some(fraction.map_or(fixed, |fraction| fixed.min((self.window as f64 * fraction) as u64)))
    }

    /// The summary's max_tokens: the window's share, never above the configured cap.
    pub(crate) fn summary_max_tokens(&self, configured: u32) -> u32 {
        self.summary_output.min(u64::from(configured)).max(1) as u32
    }

    /// The max_tokens a main request can ask for when it is about `estimate` tokens: the
    /// configured cap, lowered so input + output stay inside the window with the margin (vLLM
    /// rejects a request whose prompt plus max_tokens exceed the model's length, and the default
    /// 8 192 is twice a 4 096 window), never below `window/16`.
    pub(crate) fn reply_max_tokens(&self, configured: u32, estimate: u64) -> u32 {
        if self.window == 0 {
            return configured;
        }
        let room = self.window.saturating_sub(estimate + self.safety_margin).max(self.window / 16).max(1);
        room.min(u64::from(configured)) as u32
    }

    /// Characters of conversation transcript a summary request may carry: what is left of the
    /// window after the summary's output, the margin and the fixed instructions. Unbounded when
    /// the window is unknown.
    pub(crate) fn summary_transcript_chars(&self, output_tokens: u32) -> usize {
        if self.window == 0 {
            return usize::MAX;
        }
        let fixed = super::tokens_for_chars(summary::fixed_request_chars() as u64);
        let room = self.window.saturating_sub(u64::from(output_tokens) + self.safety_margin + fixed);
        // Even a hopeless window gets a few lines; the provider then says it is too long.
        bytes_for_tokens(room).max(512)
    }
}

/// What to tell a user whose model's window is too small: the real window is set on the server.
const RAISE_WINDOW: &str = "raise context_window to the model's real context size (llama.cpp -c, Ollama num_ctx, \
vLLM --max-model-len)";

impl Limits {
    /// Why the conversation cannot be made to fit the window, and what to do; None when it can.
    /// `overhead`: the system prompt and tools; `latest_user`: the latest user message, which a
    /// compaction always keeps; `after`: the estimate after a compaction, when there was one.
    pub(crate) fn explain_no_fit(&self, overhead: u64, latest_user: u64, after: Option<u64>) -> Option<String> {
        let usable = self.window.saturating_sub(self.emergency_floor);
        if self.window == 0 {
            return None;
        }
        if overhead >= usable {
            return Some(format!(
                "the system prompt and tool definitions alone are about {overhead} tokens and the context window is \
                 {} tokens: {RAISE_WINDOW}, or turn off MCP servers to send fewer tools",
                self.window
            ));
        }
        if overhead + latest_user >= usable {
            return Some(format!(
                "the latest message alone is about {latest_user} tokens and the context window is {} tokens ({overhead} \
                 of them go to the system prompt and tools): {RAISE_WINDOW}, or save the text to a file and ask for it \
                 to be read in parts",
                self.window
            ));
        }
        match after {
            Some(after) if after >= usable => Some(format!(
                "the conversation is still about {after} tokens after compaction ({overhead} for the system prompt and \
                 tools, {latest_user} for the latest message, which is always kept) and the context window is {} \
                 tokens: {RAISE_WINDOW}, or start a new conversation",
                self.window
            )),
            _ => None,
        }
    }
}

#[cfg(test)]
#[path = "limits_tests.rs"]
mod tests;
