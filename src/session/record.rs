//! The on-disk record types of the session log (`conversation.jsonl`), version 1, and the
//! lossless conversions between them and `msg::Message`.
//!
//! Invariant: `message_from_record(record_from_message(m, ..)) == m` for every message, including
//! signed and redacted thinking blocks (Anthropic needs them back byte-identical) and error tool
//! results; serde lives here, never in msg.rs. The layout, one JSON object per line:
//!
//! - line 1, the header: `{"type":"meta","version":1,"id":..,"created":secs,"title":..,"model":..,
//!   "owner"?:..}`, small (the title is cut to 50 characters) so listing reads only this line;
//!   `owner` is this installation's mark (`owner.rs`), absent in logs of older builds;
//! - a message: `{"role":"user|assistant|tool","content":..,"tool_calls":[..],"tool_results":[..],
//!   "thinking":[..],"images"?:[..],"ts":secs,"model"?:..}` (no `type`); `images` (on the message
//!   and on a tool result) only when there are any, each `{"media_type","data","size_px"?,
//!   "source"}` with the base64 inline, so a resumed session sends them again; older logs have
//!   none and load as before;
//! - a compact marker: `{"type":"compact","ts":secs}`; loading starts after the last one.
//!
//! This file does no IO.

use crate::msg::{Image, Message, Role, ThinkingBlock, ToolCall, ToolResult};
use serde::{Deserialize, Serialize};

/// The record format written by this build; the header carries it.
pub const VERSION: u32 = 1;

/// One parsed line of the log.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Line {
    Meta(Meta),
    Message { message: Message, ts: u64 },
    Compact { ts: u64 },
}

/// The header line: what listing shows without reading the conversation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Meta {
    pub version: u32,
    pub id: String,
    /// Seconds since 1970 (UTC) when the session was created.
    pub created: u64,
    /// The first user message, at most 50 characters.
    pub title: String,
    pub model: String,
    /// The creating installation's mark for this id (`Owner::mark`); `None` in older logs.
    pub owner: Option<String>,
}

/// The raw mirror of one line, all fields optional so that any of the three kinds parses.
#[derive(Debug, Default, Serialize, Deserialize)]
struct RawLine {
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    role: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    content: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tool_calls: Option<Vec<RawCall>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tool_results: Option<Vec<RawResult>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    thinking: Option<Vec<RawThinking>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    images: Vec<RawImage>,
    #[serde(default)]
    ts: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    model: Option<String>,
    // Header fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    version: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    created: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    owner: Option<String>,
}

#[derive(Debug, Serialize, Deserialize)]
struct RawCall {
    id: String,
    name: String,
    input: String,
}

#[derive(Debug, Serialize, Deserialize)]
struct RawResult {
    tool_call_id: String,
    content: String,
    #[serde(default)]
    is_error: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    images: Vec<RawImage>,
}

#[derive(Debug, Serialize, Deserialize)]
struct RawImage {
    media_type: String,
    data: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    size_px: Option<(u32, u32)>,
    #[serde(default)]
    source: String,
}

fn raw_images(images: &[Image]) -> Vec<RawImage> {
    images
        .iter()
        .map(|image| RawImage {
            media_type: image.media_type.clone(),
            data: image.data.to_string(),
            size_px: image.size_px,
            source: image.source.clone(),
        })
        .collect()
}

fn images_of(raw: Vec<RawImage>) -> Vec<Image> {
    raw.into_iter()
        .map(|image| Image {
            media_type: image.media_type,
            data: image.data.into(),
            size_px: image.size_px,
            source: image.source,
        })
        .collect()
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum RawThinking {
    Signed { text: String, signature: String },
    Redacted { data: String },
}

/// The JSON line (without its newline) for a message appended at `ts`.
pub fn render_message(message: &Message, ts: u64, model: Option<&str>) -> String {
    let raw = RawLine {
        role: Some(role_name(message.role).to_string()),
        content: Some(message.content.clone()),
        tool_calls: Some(
            message
                .tool_calls
                .iter()
                .map(|call| RawCall { id: call.id.clone(), name: call.name.clone(), input: call.input.clone() })
                .collect(),
        ),
        tool_results: Some(
            message
                .tool_results
                .iter()
                .map(|result| RawResult {
                    tool_call_id: result.tool_call_id.clone(),
                    content: result.content.clone(),
                    is_error: result.is_error,
                    images: raw_images(&result.images),
                })
                .collect(),
        ),
        thinking: Some(
            message
                .thinking
                .iter()
                .map(|block| match block {
                    ThinkingBlock::Signed { text, signature } => {
                        RawThinking::Signed { text: text.clone(), signature: signature.clone() }
                    }
                    ThinkingBlock::Redacted { data } => RawThinking::Redacted { data: data.clone() },
                })
                .collect(),
        ),
        images: raw_images(&message.images),
        ts,
        model: model.map(str::to_string),
        ..RawLine::default()
    };
    to_json(&raw)
}

/// The header line.
pub fn render_meta(meta: &Meta) -> String {
    let raw = RawLine {
        kind: Some("meta".to_string()),
        version: Some(meta.version),
        id: Some(meta.id.clone()),
        created: Some(meta.created),
        title: Some(meta.title.clone()),
        model: Some(meta.model.clone()),
        owner: meta.owner.clone(),
        ts: meta.created,
        ..RawLine::default()
    };
    to_json(&raw)
}

/// The compact marker line.
pub(crate) fn render_compact(ts: u64) -> String {
    to_json(&RawLine { kind: Some("compact".to_string()), ts, ..RawLine::default() })
}

/// Parses one line; `None` for anything that is not a record of ours (a torn last line after a
/// kill, an unknown record type from a newer build, garbage).
pub(crate) fn parse_line(line: &str) -> Option<Line> {
    let raw: RawLine = serde_json::from_str(line).ok()?;
    match raw.kind.as_deref() {
        Some("compact") => Some(Line::Compact { ts: raw.ts }),
        Some("meta") => Some(Line::Meta(Meta {
            version: raw.version.unwrap_or(VERSION),
            id: raw.id.unwrap_or_default(),
            created: raw.created.unwrap_or(raw.ts),
            title: raw.title.unwrap_or_default(),
            model: raw.model.unwrap_or_default(),
            owner: raw.owner,
        })),
        Some(_) => None,
        None => {
            let role = match raw.role.as_deref()? {
                "user" => Role::User,
                "assistant" => Role::Assistant,
                "tool" => Role::Tool,
                _ => return None,
            };
            let message = Message {
                role,
                content: raw.content.unwrap_or_default(),
                tool_calls: raw
                    .tool_calls
                    .unwrap_or_default()
                    .into_iter()
                    .map(|call| ToolCall { id: call.id, name: call.name, input: call.input })
                    .collect(),
                tool_results: raw
                    .tool_results
                    .unwrap_or_default()
                    .into_iter()
                    .map(|result| ToolResult {
                        tool_call_id: result.tool_call_id,
                        content: result.content,
                        is_error: result.is_error,
                        images: images_of(result.images),
                    })
                    .collect(),
                thinking: raw
                    .thinking
                    .unwrap_or_default()
                    .into_iter()
                    .map(|block| match block {
                        RawThinking::Signed { text, signature } => ThinkingBlock::Signed { text, signature },
                        RawThinking::Redacted { data } => ThinkingBlock::Redacted { data },
                    })
                    .collect(),
                images: images_of(raw.images),
            };
            Some(Line::Message { message, ts: raw.ts })
        }
    }
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    }
}

/// Serialising plain strings, numbers and lists cannot fail; should it ever, an empty object
/// line is skipped by the reader instead of corrupting the log.
fn to_json(raw: &RawLine) -> String {
    serde_json::to_string(raw).unwrap_or_else(|_| "{}".to_string())
}

#[cfg(test)]
#[path = "record_tests.rs"]
mod tests;
