//! The two wire protocols a provider speaks, and what each implies: the environment variables
//! that configure it, its public endpoint and its default context window.
//!
//! Invariant: pure constants; nothing here reads the environment.

/// The two wire protocols.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Protocol {
    Anthropic,
    OpenAi,
}

impl Protocol {
    /// The name used in config files.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Protocol::Anthropic => "anthropic",
            Protocol::OpenAi => "openai",
        }
    }

    /// The environment variable that supplies a missing key.
    pub(crate) fn key_env_var(self) -> &'static str {
        match self {
            Protocol::Anthropic => "ANTHROPIC_API_KEY",
            Protocol::OpenAi => "OPENAI_API_KEY",
        }
    }

    /// The variables that point this protocol at another endpoint, in order of precedence: the
    /// SDKs' spelling, then OpenAI's older `OPENAI_API_BASE` (aider's and LiteLLM's), so a key
    /// never goes to the public endpoint when the user named another one.
    pub(crate) fn base_url_env_vars(self) -> &'static [&'static str] {
        match self {
            Protocol::Anthropic => &["ANTHROPIC_BASE_URL"],
            Protocol::OpenAi => &["OPENAI_BASE_URL", "OPENAI_API_BASE"],
        }
    }

    /// The variable holding a gateway's bearer token, sent as `Authorization: Bearer` when no
    /// API key applies (Claude Code's `ANTHROPIC_AUTH_TOKEN`).
    pub(crate) fn token_env_var(self) -> Option<&'static str> {
        match self {
            Protocol::Anthropic => Some("ANTHROPIC_AUTH_TOKEN"),
            Protocol::OpenAi => None,
        }
    }

    /// The variable naming the model for this protocol (Claude Code's and the OpenAI tools' habit).
    pub(crate) fn model_env_var(self) -> &'static str {
        match self {
            Protocol::Anthropic => "ANTHROPIC_MODEL",
            Protocol::OpenAi => "OPENAI_MODEL",
        }
    }

    /// The public endpoint used when `base_url` is empty. Anthropic's is given without `/v1`
    /// (as its SDKs and ANTHROPIC_BASE_URL do), OpenAI's with it (as its SDKs do).
    pub(crate) fn default_base_url(self) -> &'static str {
        match self {
            Protocol::Anthropic => "https://api.anthropic.com",
            Protocol::OpenAi => "https://api.openai.com/v1",
        }
    }

    /// The context window used when the config says 0.
    pub(crate) fn default_context_window(self) -> u64 {
        match self {
            Protocol::Anthropic => 200_000,
            Protocol::OpenAi => 128_000,
        }
    }
}
