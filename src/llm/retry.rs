//! The retry policy of a model call, as a pure function: error and attempt counts in, a delay or
//! "give up" out.
//!
//! Invariant: no clock, no randomness, no sleeping here; the jitter is a value the caller passes
//! in, so every decision is reproducible in tests. The stream producer (`stream.rs`) acts on it.

use super::LlmError;
use super::error::{is_retryable, retry_after_of};
use std::time::Duration;

/// The knobs of the policy. `Default` is SPEC §2: four attempts before output, two restarts
/// after partial output, 1 s doubling backoff capped at 30 s, server delays capped at 60 s.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RetryPolicy {
    /// Attempts in total that may fail before any output was shown (the first one included).
    pub max_attempts_before_output: u32,
    /// Extra attempts granted to streams that broke after showing partial output.
    pub max_restarts_after_output: u32,
    /// The first backoff; each further attempt doubles it.
    pub base_delay: Duration,
    /// The cap on computed backoff.
    pub max_delay: Duration,
    /// The cap on a server's `retry-after`: a server asking for ten minutes gets sixty seconds,
    /// and the user can always cancel the wait.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts_before_output: 4,
            max_restarts_after_output: 2,
            base_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(30),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

/// What to do after a failed attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RetryDecision {
    /// Wait this long, then send the request again from scratch.
    Retry(Duration),
    /// Surface the error.
    GiveUp,
}

/// Where a call stands when an attempt fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct AttemptState {
    /// The 1-based number of the attempt that just failed.
    pub attempt: u32,
    /// How many earlier attempts failed after partial output (and were restarted).
    pub restarts: u32,
    /// Whether the failed attempt had already shown output.
    pub had_output: bool,
}

/// Decides whether to retry. Non-retryable errors give up at once. A failure before output
/// retries while fewer than `max_attempts_before_output` such attempts were made (restarted
/// attempts do not count against that budget); a failure after output retries while fewer than
/// `max_restarts_after_output` restarts happened. The delay is the server's `retry-after`
/// (capped) when given, else `base_delay * 2^(attempt-1)` capped at `max_delay`, scaled by
/// `0.5 + jitter / 2` ("equal jitter": never less than half, spreads clients apart).
/// `jitter` is in [0, 1]; values outside are clamped.
pub(crate) fn plan_retry(policy: &RetryPolicy, error: &LlmError, state: AttemptState, jitter: f64) -> RetryDecision {
    if !is_retryable(error) {
        return RetryDecision::GiveUp;
    }
    let allowed = if state.had_output {
        state.restarts < policy.max_restarts_after_output
    } else {
        state.attempt.saturating_sub(state.restarts) < policy.max_attempts_before_output
    };
    if !allowed {
        return RetryDecision::GiveUp;
    }
    if let Some(retry_after) = retry_after_of(error) {
        return RetryDecision::Retry(retry_after.min(policy.max_retry_after));
    }
    let doublings = state.attempt.saturating_sub(1).min(16);
    let backoff = policy.base_delay.saturating_mul(1 << doublings).min(policy.max_delay);
    let jitter = if jitter.is_finite() { jitter.clamp(0.0, 1.0) } else { 0.0 };
    RetryDecision::Retry(backoff.mul_f64(0.5 + jitter / 2.0))
}

/// What the user is told when a failed attempt is about to be sent again (before any output):
/// `rate limited (429), retrying in 5 s (attempt 2 of 4)`. Plain data, carried to the front ends
/// as `StreamEvent::Retry`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetryNotice {
    /// The HTTP status (or its in-band equivalent) that failed, when the failure had one.
    pub status: Option<u16>,
    /// The 1-based number of the attempt that comes next.
    pub attempt: u32,
    /// How many attempts the call may make in all.
    pub max: u32,
    /// How long the producer waits before that attempt.
    pub delay: Duration,
    /// A short name of the failure: `rate limited (429)`, `network error`.
    pub cause: String,
    /// The failure in full, as the server or transport said it.
    pub reason: String,
}

impl RetryNotice {
    /// The notice for a failed attempt: `next_attempt` of `max`, after `delay`.
    pub fn new(error: &LlmError, next_attempt: u32, max: u32, delay: Duration) -> RetryNotice {
        let (status, cause) = match error {
            LlmError::RateLimited { .. } => (Some(429), "rate limited (429)".to_string()),
            LlmError::Overloaded { .. } => (Some(529), "server overloaded (529)".to_string()),
            LlmError::Server { status, .. } => (Some(*status), format!("server error ({status})")),
            LlmError::Network { .. } | LlmError::Refused { .. } => (None, "network error".to_string()),
            LlmError::Protocol { .. } => (None, "malformed stream".to_string()),
            LlmError::PromptTooLong { .. } | LlmError::Auth { .. } | LlmError::Request { .. } | LlmError::Cancelled => {
                (None, "request failed".to_string())
            }
        };
        RetryNotice { status, attempt: next_attempt, max, delay, cause, reason: error.to_string() }
    }

    /// One line for the user: what happened and when the next attempt goes out.
    pub(crate) fn describe(&self) -> String {
        format!("{}, retrying in {} (attempt {} of {})", self.cause, render_delay(self.delay), self.attempt, self.max)
    }
}

/// `5 s`, `1.5 s`, `250 ms`: whole seconds plainly, sub-second delays in milliseconds.
fn render_delay(delay: Duration) -> String {
    let millis = delay.as_millis();
    if millis < 1000 {
        format!("{millis} ms")
    } else if millis.is_multiple_of(1000) {
        format!("{} s", millis / 1000)
    } else {
        format!("{:.1} s", delay.as_secs_f64())
    }
}

#[cfg(test)]
#[path = "retry_tests.rs"]
mod tests;
