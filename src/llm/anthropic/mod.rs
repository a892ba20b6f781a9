//! The Anthropic Messages adapter's two pure halves: the request encoder and the stream decoder.
//!
//! Invariant: nothing here does IO; the provider that wires HTTP to these lives elsewhere.
//!
//! - `encode.rs` — a `Request` in, the Messages JSON body out
//! - `decode.rs` — SSE events in, `StreamEvent`s out

pub(crate) mod decode;
pub(crate) mod encode;

pub(crate) use decode::AnthropicDecoder;
pub(crate) use encode::encode_request;
