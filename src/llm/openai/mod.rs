//! The OpenAI Chat Completions adapter's two pure halves: the request encoder and the tolerant
//! stream decoder shared by every OpenAI-compatible server.
//!
//! Invariant: nothing here does IO; the provider that wires HTTP to these lives elsewhere.
//!
//! - `encode.rs` — a `Request` in, the Chat Completions JSON body out (and its fallback)
//! - `decode.rs` — chunks of every server dialect in, `StreamEvent`s out

pub(crate) mod decode;
pub(crate) mod encode;

pub(crate) use decode::OpenAiDecoder;
pub(crate) use encode::encode_request_with_fallback;
