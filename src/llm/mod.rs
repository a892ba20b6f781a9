//! The LLM engine's contract: the Provider trait, the stream events and the typed errors.
//!
//! Invariant: everything above this module is protocol-blind. A stream always ends with exactly
//! one terminal event (`Done` or `Error`) after which the producer drops its sender; `Restart`
//! voids everything the consumer received since the request began.
//!
//! - `mod.rs` — the `Provider` trait, `StreamEvent`, `Completion` and `StopReason`
//! - `provider.rs` — the thin providers: encoder, transport and decoder wired per protocol
//! - `anthropic/` — the Anthropic Messages encoder and decoder (pure)
//! - `openai/` — the OpenAI Chat Completions encoder and tolerant decoder (pure)
//! - `body.rs` — request body bytes: top-level fields plus the history serialized in place
//! - `images.rs` — which of a history's images a request carries (the count and size limits)
//! - `settings.rs` — per-provider sampling fields and the `extra_body` merge
//! - `decode.rs` — the contract between the SSE transport and a protocol's decoder
//! - `stream.rs` — the stream producer: POST, read SSE, decode, forward, retry, cancel
//! - `retry.rs` — the retry policy as a pure function, and the `Retry` notice
//! - `error.rs` — `LlmError` and the one table of context-overflow wordings
//! - `http.rs` — the HTTP transport of model calls (over `crate::http`): one POST per attempt
//! - `content.rs` — the answer-text filter of local models: `<think>` and calls written as text
//! - `text_calls.rs` — the recognisers of tool calls written as text
//! - `discovery.rs` — asking an OpenAI-compatible server for its context window
//! - `window_cache.rs` — what discovery learned per endpoint and model, kept under `$MEWCODE_HOME`
//! - `capabilities.rs` — doctor's test request: what a server does with tools and reasoning
//! - `probe.rs` — finding a local server, and checking that an endpoint answers
//! - `tokenize.rs` — the server's own token count, for servers that stream no usage
//! - `test_server/` — test-only fakes: the scripted server, the route server, transcript replay

use crate::cancel::CancelToken;
use crate::msg::{Request, ThinkingBlock, ToolCall, Usage};
use crossbeam_channel::Receiver;

pub(crate) mod anthropic;
pub(crate) mod body;
pub(crate) mod capabilities;
pub(crate) mod content;
pub(crate) mod decode;
pub(crate) mod discovery;
pub(crate) mod error;
pub(crate) mod http;
pub(crate) mod images;
pub(crate) mod openai;
pub(crate) mod probe;
pub(crate) mod provider;
pub(crate) mod retry;
pub(crate) mod settings;
pub(crate) mod stream;
#[cfg(test)]
pub(crate) mod test_server;
pub(crate) mod text_calls;
pub(crate) mod tokenize;
pub(crate) mod window_cache;

pub(crate) use error::{ErrorKind, LlmError};
pub(crate) use retry::RetryNotice;

/// A model endpoint. Implementations spawn a producer thread per call and return at once.
pub trait Provider: Send + Sync {
    /// The configured provider name (`claude`, `local`, ...).
    fn name(&self) -> &str;
    /// The model id sent on every request.
    fn model(&self) -> &str;
    /// Starts one streamed completion. Cancelling `cancel` makes the producer stop reading the
    /// HTTP body promptly and end the stream with `Error(LlmError::Cancelled)`.
    fn stream(&self, request: Request, cancel: CancelToken) -> Receiver<StreamEvent>;
    /// The server's own token count of the text `text` makes, for a response that came without
    /// usage; None where the server offers no tokenizer (the text is then never made).
    fn count_tokens(&self, _text: &dyn Fn() -> String) -> Option<u64> {
        None
    }
}

/// Why the model stopped, normalised across protocols.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// Natural end (`end_turn`, `stop`, `stop_sequence`).
    EndTurn,
    /// The model asked for tools (`tool_use`, `tool_calls`).
    ToolUse,
    /// The output cap was hit (`max_tokens`, `length`, `model_context_window_exceeded`).
    MaxTokens,
    /// A safety refusal (`refusal`, `content_filter`).
    Refusal,
    /// Anthropic `pause_turn`: a server-side tool loop paused; resend to resume.
    PauseTurn,
    /// Any other value, kept verbatim (unknown values are tolerated, not fatal).
    Other(String),
}

/// The terminal success event's payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    pub stop_reason: StopReason,
    /// Thinking blocks of this turn with their signatures, to store on the assistant message
    /// and send back unchanged (empty for protocols without signed thinking).
    pub thinking: Vec<ThinkingBlock>,
    /// Names of tool calls the model started but the output cap cut off (no complete input):
    /// they are never executed; the caller tells the model they were truncated.
    pub dropped_tool_calls: Vec<String>,
}

/// One event of a streamed completion.
///
/// Order: any number of `Text`/`Thinking` deltas, at most one `ToolCalls` and `Usage` before
/// `Done`; `Done` and `Error` are terminal and exclusive. `Restart` may appear before the
/// terminal event when a broken attempt is re-requested from scratch, `Retry` when an attempt
/// failed before output and is sent again.
#[derive(Clone, Debug, PartialEq)]
pub enum StreamEvent {
    /// A fragment of the answer text.
    Text(String),
    /// A fragment of reasoning text, for display only (never put into history as content).
    Thinking(String),
    /// Every complete tool call of the turn, in the model's order.
    ToolCalls(Vec<ToolCall>),
    /// Final token usage of the attempt.
    Usage(Usage),
    /// The attempt so far is void: drop partial text; a fresh attempt follows. `restart` is
    /// this restart's 1-based number, `max` how many the retry policy allows in a call.
    Restart { restart: u32, max: u32, reason: String },
    /// An attempt failed before any output and will be sent again after `delay` (a 429 with
    /// `retry-after`, a 503, a refused connection). Display only: nothing was received, so
    /// there is nothing to drop. Not in SPEC §2's list; see ARCHITECTURE.md "Retries".
    Retry(RetryNotice),
    /// The stream completed normally.
    Done(Completion),
    /// The stream failed; nothing of it should enter history.
    Error(LlmError),
}

#[cfg(test)]
mod tests;
