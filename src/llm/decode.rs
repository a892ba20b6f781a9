//! The contract between the SSE transport and a protocol's pure stream decoder.
//!
//! Invariant: decoders are sans-IO state machines (SSE events in, StreamEvents out), one per
//! attempt; they never see HTTP or threads, so they are tested with bytes from fixtures.

use super::{LlmError, StreamEvent};
use crate::sse::SseEvent;

/// A protocol's stream decoder for ONE attempt.
pub(crate) trait Decoder: Send {
    /// Feeds one SSE event. Pushes zero or more `Text`/`Thinking` events into `out` as they
    /// arrive. Returns `Ok(true)` when the event was the protocol's terminal marker
    /// (`message_stop`, `[DONE]`): the caller then calls `finish`. Returns `Err` for an in-band
    /// error or a chunk that is not valid JSON (the transport decides whether to retry).
    fn feed(&mut self, event: &SseEvent, out: &mut Vec<StreamEvent>) -> Result<bool, LlmError>;

    /// Ends the attempt, either after the terminal marker (`saw_terminal` = true) or at EOF
    /// without one. Pushes the closing events in order — `ToolCalls` (if any), `Usage`,
    /// `Done` — or returns `Err(LlmError::Protocol)` when the stream was truncated (an OpenAI
    /// stream that ended after a finish_reason but without `[DONE]` is still complete).
    fn finish(&mut self, saw_terminal: bool, out: &mut Vec<StreamEvent>) -> Result<(), LlmError>;

    /// True once any user-visible output (text, thinking, a tool call fragment) was decoded;
    /// an error after that is "after partial output" for the retry policy.
    fn has_output(&self) -> bool;
}
