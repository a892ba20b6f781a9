//! The Anthropic Messages stream decoder: SSE events in, `StreamEvent`s out.
//!
//! Invariant: a tool call is only ever emitted after its `content_block_stop`; a `tool_use`
//! block the output cap cut off is dropped (named in `Completion::dropped_tool_calls`), never
//! executed with a guessed input. Tool inputs stay the raw concatenated JSON text. This module
//! does no IO and never retries; the provider decides what to do with an `Err`.

use crate::llm::decode::Decoder;
use crate::llm::error::classify;
use crate::llm::{Completion, LlmError, StopReason, StreamEvent};
use crate::msg::{ThinkingBlock, ToolCall, Usage};
use crate::sse::SseEvent;
use serde_json::Value;

/// Decodes one attempt of an Anthropic Messages stream (protocol README §2.2).
#[derive(Debug, Default)]
pub(crate) struct AnthropicDecoder {
    /// Blocks opened and not yet stopped, by their `index`.
    open: Vec<(u64, Block)>,
    /// Completed tool calls, in block order.
    tool_calls: Vec<ToolCall>,
    /// Completed thinking blocks, in block order.
    thinking: Vec<ThinkingBlock>,
    usage: Usage,
    stop_reason: Option<String>,
    has_output: bool,
}

impl AnthropicDecoder {
    /// A decoder for one fresh attempt.
    pub(crate) fn new() -> AnthropicDecoder {
        AnthropicDecoder::default()
    }
}

impl Decoder for AnthropicDecoder {
    fn feed(&mut self, event: &SseEvent, out: &mut Vec<StreamEvent>) -> Result<bool, LlmError> {
        let payload: Value = serde_json::from_str(&event.data).map_err(|err| LlmError::Protocol {
            message: format!("anthropic {} event is not valid JSON: {err}", event.event),
        })?;
        // The JSON `type` is authoritative; the SSE event name is only a fallback (README §2.2).
        let kind = payload.get("type").and_then(Value::as_str).unwrap_or(&event.event);
        match kind {
            "message_start" => {
                if let Some(usage) = payload.pointer("/message/usage") {
                    overwrite_usage(&mut self.usage, usage);
                }
            }
            "content_block_start" => {
                let index = block_index(&payload);
                let block = payload.get("content_block").map(Block::start).unwrap_or(Block::Other);
                match block {
                    // A start block normally carries "" but may already hold text.
                    Block::Text => self.push_text(str_at(&payload, "/content_block/text"), out),
                    // The start of a call is already a visible fragment for the retry policy.
                    Block::ToolUse { .. } => self.has_output = true,
                    Block::Thinking { .. } | Block::Redacted { .. } | Block::Other => {}
                }
                self.open.push((index, block));
            }
            "content_block_delta" => self.delta(&payload, out),
            "content_block_stop" => self.stop_block(block_index(&payload)),
            "message_delta" => {
                if let Some(reason) = payload.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.stop_reason = Some(reason.to_string());
                }
                if let Some(usage) = payload.get("usage") {
                    overwrite_usage(&mut self.usage, usage);
                }
            }
            "message_stop" => return Ok(true),
            "error" => {
                return Err(classify(None, str_at(&payload, "/error/type"), "", str_at(&payload, "/error/message")));
            }
            // `ping` and event types newer than this code are ignored, as the API asks.
            _ => {}
        }
        Ok(false)
    }

    fn finish(&mut self, saw_terminal: bool, out: &mut Vec<StreamEvent>) -> Result<(), LlmError> {
        if !saw_terminal {
            return Err(LlmError::Protocol { message: "anthropic stream ended before message_stop".to_string() });
        }
        // Blocks still open at message_stop were cut off by the output cap: their content is
        // incomplete. A tool call among them is dropped and reported, never run.
        let dropped_tool_calls = std::mem::take(&mut self.open)
            .into_iter()
            .filter_map(|(_, block)| match block {
                Block::ToolUse { name, .. } => Some(name),
                _ => None,
            })
            .collect();
        if !self.tool_calls.is_empty() {
            out.push(StreamEvent::ToolCalls(std::mem::take(&mut self.tool_calls)));
        }
        out.push(StreamEvent::Usage(self.usage));
        out.push(StreamEvent::Done(Completion {
            stop_reason: stop_reason(self.stop_reason.as_deref()),
            thinking: std::mem::take(&mut self.thinking),
            dropped_tool_calls,
        }));
        Ok(())
    }

    fn has_output(&self) -> bool {
        self.has_output
    }
}

/// Maps the wire `stop_reason`; a missing one (no `message_delta`) counts as a natural end.
fn stop_reason(reason: Option<&str>) -> StopReason {
    match reason {
        None | Some("end_turn") | Some("stop_sequence") => StopReason::EndTurn,
        Some("tool_use") => StopReason::ToolUse,
        Some("max_tokens") | Some("model_context_window_exceeded") => StopReason::MaxTokens,
        Some("refusal") => StopReason::Refusal,
        Some("pause_turn") => StopReason::PauseTurn,
        Some(other) => StopReason::Other(other.to_string()),
    }
}

/// One content block being assembled.
#[derive(Debug)]
enum Block {
    Text,
    Thinking {
        text: String,
        signature: String,
    },
    Redacted {
        data: String,
    },
    ToolUse {
        id: String,
        name: String,
        json: String,
    },
    /// `server_tool_use`, `web_search_tool_result` and block types newer than this code: the
    /// server runs them; we neither execute nor echo them (mewcode enables no server tools).
    Other,
}

impl Block {
    fn start(block: &Value) -> Block {
        match block.get("type").and_then(Value::as_str).unwrap_or("") {
            "text" => Block::Text,
            "thinking" => Block::Thinking {
                text: str_at(block, "/thinking").to_string(),
                signature: str_at(block, "/signature").to_string(),
            },
            "redacted_thinking" => Block::Redacted { data: str_at(block, "/data").to_string() },
            "tool_use" => Block::ToolUse {
                id: str_at(block, "/id").to_string(),
                name: str_at(block, "/name").to_string(),
                json: String::new(),
            },
            _ => Block::Other,
        }
    }
}

impl AnthropicDecoder {
    fn delta(&mut self, payload: &Value, out: &mut Vec<StreamEvent>) {
        let index = block_index(payload);
        let Some(delta) = payload.get("delta") else { return };
        let kind = delta.get("type").and_then(Value::as_str).unwrap_or("");
        match kind {
            "text_delta" => self.push_text(str_at(delta, "/text"), out),
            "thinking_delta" => {
                let fragment = str_at(delta, "/thinking");
                if let Some(Block::Thinking { text, .. }) = self.block_mut(index) {
                    text.push_str(fragment);
                }
                if !fragment.is_empty() {
                    self.has_output = true;
                    out.push(StreamEvent::Thinking(fragment.to_string()));
                }
            }
            "signature_delta" => {
                // Documented as arriving once; set-or-append keeps us right if it ever splits.
                if let Some(Block::Thinking { signature, .. }) = self.block_mut(index) {
                    signature.push_str(str_at(delta, "/signature"));
                }
            }
            "input_json_delta" => {
                let fragment = str_at(delta, "/partial_json");
                if let Some(Block::ToolUse { json, .. }) = self.block_mut(index) {
                    json.push_str(fragment);
                    self.has_output = true;
                }
            }
            // citations_delta and unknown deltas carry nothing mewcode uses.
            _ => {}
        }
    }

    fn push_text(&mut self, text: &str, out: &mut Vec<StreamEvent>) {
        if !text.is_empty() {
            self.has_output = true;
            out.push(StreamEvent::Text(text.to_string()));
        }
    }

    fn block_mut(&mut self, index: u64) -> Option<&mut Block> {
        self.open.iter_mut().find(|(open_index, _)| *open_index == index).map(|(_, block)| block)
    }

    fn stop_block(&mut self, index: u64) {
        let Some(position) = self.open.iter().position(|(open_index, _)| *open_index == index) else { return };
        match self.open.remove(position).1 {
            Block::ToolUse { id, name, json } => {
                // The raw text is kept as is (no float rounding); an empty input means a tool
                // without parameters. Invalid JSON is passed through: the tool reports it.
                let input = if json.trim().is_empty() { "{}".to_string() } else { json };
                self.tool_calls.push(ToolCall { id, name, input });
            }
            Block::Thinking { text, signature } => self.thinking.push(ThinkingBlock::Signed { text, signature }),
            Block::Redacted { data } => self.thinking.push(ThinkingBlock::Redacted { data }),
            Block::Text | Block::Other => {}
        }
    }
}

/// Copies the usage fields present in `usage` over `target`: `message_delta` totals are
/// cumulative, and fields it omits keep their `message_start` values (README §2.5).
fn overwrite_usage(target: &mut Usage, usage: &Value) {
    let field = |name: &str| usage.get(name).and_then(Value::as_u64);
    if let Some(tokens) = field("input_tokens") {
        target.input_tokens = tokens;
    }
    if let Some(tokens) = field("output_tokens") {
        target.output_tokens = tokens;
    }
    if let Some(tokens) = field("cache_creation_input_tokens") {
        target.cache_write = tokens;
    }
    if let Some(tokens) = field("cache_read_input_tokens") {
        target.cache_read = tokens;
    }
}

fn block_index(payload: &Value) -> u64 {
    payload.get("index").and_then(Value::as_u64).unwrap_or(0)
}

fn str_at<'a>(value: &'a Value, pointer: &str) -> &'a str {
    value.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

#[cfg(test)]
#[path = "decode_tests.rs"]
mod tests;
