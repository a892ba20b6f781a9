//! The typed error of the LLM engine (filled in by the engine issue).
//!
//! Invariant: every variant says how callers react (retry, compact, stop, tell the user).

/// Failures of a model call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LlmError {
    /// The prompt does not fit the model's context window: compact and retry.
    PromptTooLong { message: String },
    /// The turn was cancelled by the user.
    Cancelled,
}

impl std::fmt::Display for LlmError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LlmError::PromptTooLong { message } => write!(f, "prompt too long: {message}"),
            LlmError::Cancelled => write!(f, "cancelled"),
        }
    }
}

impl std::error::Error for LlmError {}
