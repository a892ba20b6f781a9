//! Configuration: the three config levels merged by entry name, `${VAR}` expansion, validation.
//!
//! Invariant: loading returns `(Config, Vec<Warning>)`; hard errors name the file and key path.

use std::path::PathBuf;

/// The two wire protocols.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    Anthropic,
    OpenAi,
}

/// One resolved provider entry: every default applied, `${VAR}` expanded.
#[derive(Clone, Debug, PartialEq)]
pub struct ProviderConfig {
    pub name: String,
    pub protocol: Protocol,
    pub model: String,
    /// The key to send; empty for keyless (loopback) endpoints.
    pub api_key: String,
    /// Where the key came from or should come from, for Auth errors: e.g.
    /// "providers[0].api_key in ~/.mewcode/config.yaml" or "the ANTHROPIC_API_KEY environment variable".
    pub api_key_hint: String,
    /// Base URL including the version path (`https://api.anthropic.com/v1`,
    /// `http://127.0.0.1:11434/v1`); never empty after resolution, no trailing slash.
    pub base_url: String,
    /// Context window in tokens (anthropic 200000, openai 128000 by default).
    pub context_window: u64,
    /// Output cap per request.
    pub max_tokens: u32,
    /// Anthropic extended thinking (budget 16000).
    pub thinking: bool,
    /// Extra CA bundle (PEM) for private CAs.
    pub ca_file: Option<PathBuf>,
    /// Idle read timeout in seconds (no byte received).
    pub idle_timeout_s: u64,
    /// OpenAI only: the name of the output-cap field (`max_tokens` or `max_completion_tokens`).
    pub max_tokens_field: String,
    /// OpenAI only: send `stream_options: {include_usage: true}` (retried once without on rejection).
    pub stream_options: bool,
    /// Fraction of the window at which automatic compaction starts, if lower than the default.
    pub compact_at: Option<f64>,
}
