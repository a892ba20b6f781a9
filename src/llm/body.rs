//! The bytes of a request body: the small top-level fields as a JSON map, and the history
//! serialized straight from the borrowed messages into one buffer.
//!
//! Invariant: the output is byte for byte what serializing the same map with the messages as a
//! `serde_json::Value` in its place would give (compact, keys in insertion order, the
//! messages where the placeholder key sits), without ever holding a `Value` copy of the history:
//! a 4 MB history costs one ~4 MB buffer per request, allocated once from an estimate of its size.
//! Pure; no IO.

use serde::Serialize;
use serde_json::{Map, Value};
use std::ops::Range;

/// The key whose value (a placeholder in the map) is written from the borrowed history.
pub(crate) const MESSAGES: &str = "messages";

/// Serializes `fields` in order, writing `messages` in place of the `MESSAGES` entry.
/// `estimate` is the expected size of the messages' JSON (see `text_estimate`). Also returns
/// the byte range of the entry `cut` (with the comma before it) when the map has it and it is
/// not the first entry: the body without that range is exactly the body of the map without it.
pub(crate) fn encode_body(
    fields: &Map<String, Value>,
    messages: &impl Serialize,
    estimate: usize,
    cut: Option<&str>,
) -> (Vec<u8>, Option<Range<usize>>) {
    let fixed: usize = fields.iter().map(|(key, value)| key.len() + value_estimate(value)).sum();
    let mut out = Vec::with_capacity(fixed + estimate + 64);
    let mut cut_range = None;
    // The compact form serde_json gives a map: `{`, entries `"key":value` joined by `,`, `}`.
    // Writing to memory cannot fail, and every key is a string: there is no error to report.
    out.push(b'{');
    for (index, (key, value)) in fields.iter().enumerate() {
        let start = out.len();
        if index > 0 {
            out.push(b',');
        }
        let _ = serde_json::to_writer(&mut out, key);
        out.push(b':');
        let _ = if key == MESSAGES {
            serde_json::to_writer(&mut out, messages)
        } else {
            serde_json::to_writer(&mut out, value)
        };
        if index > 0 && cut == Some(key.as_str()) {
            cut_range = Some(start..out.len());
        }
    }
    out.push(b'}');
    (out, cut_range)
}

/// The size to reserve for messages whose texts total `text_bytes` over `blocks` blocks: JSON
/// escapes (newlines, quotes, tabs) add a little to source text, and each block adds its keys.
pub(crate) fn text_estimate(text_bytes: usize, blocks: usize) -> usize {
    text_bytes + text_bytes / 8 + blocks * 96
}

/// A rough size of a small value (tools, system blocks): only sizes the buffer.
fn value_estimate(value: &Value) -> usize {
    match value {
        Value::String(text) => text.len() + text.len() / 8 + 2,
        Value::Array(items) => items.iter().map(value_estimate).sum::<usize>() + items.len() + 2,
        Value::Object(fields) => {
            fields.iter().map(|(key, value)| key.len() + 4 + value_estimate(value)).sum::<usize>() + 2
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => 24,
    }
}

#[cfg(test)]
#[path = "body_tests.rs"]
mod tests;
