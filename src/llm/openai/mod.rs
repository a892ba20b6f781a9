//! The OpenAI Chat Completions adapter's two pure halves: the request encoder and the tolerant
//! stream decoder shared by every OpenAI-compatible server.
//!
//! Invariant: nothing here does IO; the provider that wires HTTP to these lives elsewhere.

pub(crate) mod decode;
pub(crate) mod encode;

pub(crate) use decode::OpenAiDecoder;
pub(crate) use encode::encode_request_with_fallback;

#[cfg(test)]
mod decode_tests;
#[cfg(test)]
mod encode_tests;
#[cfg(test)]
mod error_shape_tests;
#[cfg(test)]
mod local_decode_tests;
