//! The typed error of the LLM engine and the one table that recognises context-overflow errors.
//!
//! Invariant: every variant says how callers react; classification is pure (status, type, code,
//! message in, variant out) so it is tested without HTTP.

use std::time::Duration;

/// Failures of a model call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LlmError {
    /// The prompt does not fit the model's context window: compact and retry; never retried as is.
    PromptTooLong { message: String },
    /// HTTP 429 or an in-band rate-limit error: retried after `retry_after` (or backoff).
    RateLimited { message: String, retry_after: Option<Duration> },
    /// HTTP 529, Anthropic `overloaded_error`: retried with backoff.
    Overloaded { message: String, retry_after: Option<Duration> },
    /// HTTP 408/409/5xx or an in-band server error: retried with backoff.
    Server { status: u16, message: String, retry_after: Option<Duration> },
    /// HTTP 401/403: never retried; `fix` names the config key or env var to set.
    Auth { status: u16, message: String, fix: String },
    /// Any other non-2xx (400, 404, 422, ...): the request itself is wrong; never retried.
    Request { status: u16, message: String },
    /// Connect, DNS, TLS, proxy, reset or idle-timeout failures; retried. Names the host.
    Network { message: String },
    /// A malformed or truncated stream (bad JSON chunk, EOF before the terminal event); retried
    /// from scratch.
    Protocol { message: String },
    /// The turn was cancelled by the user; never retried.
    Cancelled,
}

impl std::fmt::Display for LlmError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LlmError::PromptTooLong { message } => write!(f, "prompt too long for the model's context: {message}"),
            LlmError::RateLimited { message, .. } => write!(f, "rate limited: {message}"),
            LlmError::Overloaded { message, .. } => write!(f, "server overloaded: {message}"),
            LlmError::Server { status, message, .. } => write!(f, "server error {status}: {message}"),
            LlmError::Auth { status, message, fix } => write!(f, "authentication failed ({status}): {message}; {fix}"),
            LlmError::Request { status, message } => write!(f, "request rejected ({status}): {message}"),
            LlmError::Network { message } => write!(f, "network error: {message}"),
            LlmError::Protocol { message } => write!(f, "malformed stream: {message}"),
            LlmError::Cancelled => write!(f, "cancelled"),
        }
    }
}

impl std::error::Error for LlmError {}

/// Classifies an error reported by a server, before the stream (`status` = the HTTP status) or
/// inside a 200 stream (`status` = None, or the in-band `code` when it is numeric).
/// `error_type` / `code` / `message` are the fields of the error object ("" when absent).
///
/// STUB: the engine issue replaces this with the full table; the signature stays.
pub fn classify(status: Option<u16>, error_type: &str, code: &str, message: &str) -> LlmError {
    let _ = code;
    if error_type == "overloaded_error" {
        return LlmError::Overloaded { message: message.to_string(), retry_after: None };
    }
    match status {
        Some(status) if status >= 500 => LlmError::Server { status, message: message.to_string(), retry_after: None },
        Some(status) => LlmError::Request { status, message: message.to_string() },
        None => LlmError::Server { status: 500, message: message.to_string(), retry_after: None },
    }
}
