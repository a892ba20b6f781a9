//! The Anthropic Messages adapter's two pure halves: the request encoder and the stream decoder.
//!
//! Invariant: nothing here does IO; the provider that wires HTTP to these lives elsewhere.

pub(crate) mod decode;
pub(crate) mod encode;

pub(crate) use decode::AnthropicDecoder;
pub(crate) use encode::encode_request;
