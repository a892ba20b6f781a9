//! The Anthropic Messages adapter's two pure halves: the request encoder and the stream decoder.
//!
//! Invariant: nothing here does IO; the provider that wires HTTP to these lives elsewhere.

pub mod decode;
pub mod encode;

pub use decode::AnthropicDecoder;
pub use encode::encode_request;

#[cfg(test)]
mod decode_tests;
#[cfg(test)]
mod encode_tests;
