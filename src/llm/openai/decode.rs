//! The OpenAI Chat Completions stream decoder, tolerant of every server dialect of protocol
//! README §3.9: chunks in, `StreamEvent`s out.
//!
//! Invariant: it implements the accumulation algorithm of README §3.3 exactly — tool-call
//! fragments go to a slot by `index`, else by a new `id`, else to the most recent slot; ids and
//! names are set once and never concatenated; arguments are appended and kept as raw text (invalid
//! JSON reaches the tool, which reports it). Reasoning fields are Thinking, never content; so is
//! a leading `<think>` in content, and tool calls written as text become calls
//! (`llm/content.rs`, `llm/text_calls.rs`) unless the server sent native ones. Only
//! choice 0 is read (mewcode never asks for n > 1). No IO, no clock: synthesised ids come from a
//! seed the provider passes in.

use crate::llm::content::ContentFilter;
use crate::llm::decode::Decoder;
use crate::llm::error::{classify, is_error_body, parse_error_value, parse_stray_error};
use crate::llm::text_calls::ToolNames;
use crate::llm::{Completion, LlmError, StopReason, StreamEvent};
use crate::msg::{ToolCall, Usage};
use crate::sse::SseEvent;
use serde_json::Value;

/// Decodes one attempt of an OpenAI-compatible chat-completions stream.
#[derive(Debug)]
pub(crate) struct OpenAiDecoder {
    slots: Vec<Slot>,
    finish_reason: Option<String>,
    /// The last non-null `usage` object, normalised (README §3.5: last one wins, never added).
    usage: Option<Usage>,
    /// Answer text (content or refusal) was seen.
    saw_text: bool,
    has_output: bool,
    /// Seed and counter of the ids synthesised for calls that arrived without one.
    id_seed: u64,
    ids_made: u64,
    /// Answer text goes through here: `<think>` and tool calls written as text.
    content: ContentFilter,
}

impl OpenAiDecoder {
    /// A decoder for one fresh attempt. `id_seed` drives the ids made up for tool calls a
    /// server sent without one (`call_` + 24 alphanumerics): the provider passes something that
    /// differs per request (a clock reading, a counter), tests pass a constant.
    pub(crate) fn new(id_seed: u64) -> OpenAiDecoder {
        OpenAiDecoder {
            slots: Vec::new(),
            finish_reason: None,
            usage: None,
            saw_text: false,
            has_output: false,
            id_seed,
            ids_made: 0,
            content: ContentFilter::new(None),
        }
    }

    /// Recovers tool calls a model wrote as text (`text_calls.rs`) for these offered tools;
    /// None (the `text_tool_calls: off` setting) leaves such text as text.
    pub(crate) fn with_text_tool_calls(mut self, tools: Option<ToolNames>) -> OpenAiDecoder {
        self.content = ContentFilter::new(tools);
        self
    }
}

impl Decoder for OpenAiDecoder {
    fn feed(&mut self, event: &SseEvent, out: &mut Vec<StreamEvent>) -> Result<bool, LlmError> {
        if event.data.trim() == "[DONE]" {
            return Ok(true);
        }
        if event.event == "error" {
            // `event: error` (TGI, LiteLLM, some proxies): whatever the data, it is an error.
            return Err(parse_stray_error(&event.data));
        }
        let chunk: Value = match serde_json::from_str(&event.data) {
            Ok(chunk) => chunk,
            // Broken JSON is a damaged stream; words that are not JSON at all are a proxy's or
            // server's message (`data: upstream connect error`), and say what went wrong.
            Err(err) if event.data.trim_start().starts_with(['{', '[']) => {
                return Err(LlmError::Protocol { message: format!("openai stream chunk is not valid JSON: {err}") });
            }
            Err(_) => return Err(parse_stray_error(&event.data)),
        };
        if let Some(error) = chunk.get("error").filter(|error| !error.is_null()) {
            return Err(in_band_error(error));
        }
        if chunk.get("choices").is_none() && is_error_body(&chunk) {
            return Err(parse_error_value(None, &chunk)); // FastAPI's `{"detail": ...}`
        }
        let choice = chunk.get("choices").and_then(Value::as_array).and_then(|choices| {
            choices.iter().find(|choice| choice.get("index").and_then(Value::as_u64).unwrap_or(0) == 0)
        });
        if let Some(choice) = choice {
            if let Some(delta) = choice.get("delta") {
                self.delta(delta, out);
            }
            // After the delta of the same chunk: vLLM, DeepSeek and Z.ai put content there.
            if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
                self.finish_reason = Some(reason.to_string());
            }
        }
        if let Some(usage) = chunk.get("usage").filter(|usage| usage.is_object()) {
            self.usage = Some(normalise_usage(usage));
        }
        if self.finish_reason.as_deref() == Some("error") {
            // OpenRouter's in-band failure on an otherwise normal-looking chunk.
            return Err(classify(None, "", "", "the server ended the stream with finish_reason \"error\""));
        }
        Ok(false)
    }

    fn finish(&mut self, saw_terminal: bool, out: &mut Vec<StreamEvent>) -> Result<(), LlmError> {
        if !self.saw_text && self.slots.is_empty() && self.finish_reason.is_none() {
            // Also catches old llama.cpp builds that sent their error in a non-standard SSE
            // field the parser rightly drops.
            return Err(truncated(
                "the stream ended with no content, no tool calls and no finish_reason (a server that fails after its 200 says why in its own log)",
            ));
        }
        if !saw_terminal {
            if self.finish_reason.is_none() {
                return Err(truncated("the stream ended without [DONE] and without a finish_reason"));
            }
            if self.slots.iter().any(|slot| !is_complete_json(&slot.arguments)) {
                return Err(truncated("the stream ended without [DONE] in the middle of a tool call"));
            }
        }
        let text_calls = self.content.finish(out);
        // Cut off by the output cap: a call with incomplete arguments is dropped, never run.
        let cut_off = self.finish_reason.as_deref() == Some("length");
        let (dropped, kept): (Vec<Slot>, Vec<Slot>) =
            std::mem::take(&mut self.slots).into_iter().partition(|slot| cut_off && !is_complete_json(&slot.arguments));
        let mut tool_calls: Vec<ToolCall> = kept.into_iter().map(|slot| self.tool_call(slot)).collect();
        // A server that parsed calls itself parsed them all; some also leave the raw text in
        // content, and recovering it too would run the same call twice. Native calls win.
        let text_calls = if tool_calls.is_empty() && dropped.is_empty() { text_calls } else { Vec::new() };
        for text_call in text_calls {
            // `call_text_` marks a call recovered from text in logs and sessions.
            let id = self.synthesise_id().replacen("call_", "call_text_", 1);
            tool_calls.push(ToolCall { id, name: text_call.name, input: text_call.input });
        }
        let stop_reason = if tool_calls.is_empty() {
            stop_reason(self.finish_reason.as_deref())
        } else {
            // Several servers say `stop` after tool calls; the calls are run regardless.
            StopReason::ToolUse
        };
        if !tool_calls.is_empty() {
            out.push(StreamEvent::ToolCalls(tool_calls));
        }
        // No usage is reported rather than a made-up zero when the server sent none.
        if let Some(usage) = self.usage {
            out.push(StreamEvent::Usage(usage));
        }
        out.push(StreamEvent::Done(Completion {
            stop_reason,
            thinking: Vec::new(),
            dropped_tool_calls: dropped.into_iter().map(|slot| slot.name).collect(),
        }));
        Ok(())
    }

    fn has_output(&self) -> bool {
        self.has_output
    }
}

/// `tool_calls`/`function_call` without any call to run is an ordinary end of turn; an absent
/// finish_reason (a stream that still reached `[DONE]` with content) too.
fn stop_reason(reason: Option<&str>) -> StopReason {
    match reason {
        None | Some("stop") | Some("tool_calls") | Some("function_call") => StopReason::EndTurn,
        Some("length") => StopReason::MaxTokens,
        Some("content_filter") => StopReason::Refusal,
        Some(other) => StopReason::Other(other.to_string()),
    }
}

/// One tool call being accumulated.
#[derive(Debug)]
struct Slot {
    index: Option<u64>,
    id: String,
    name: String,
    arguments: String,
}

impl OpenAiDecoder {
    fn delta(&mut self, delta: &Value, out: &mut Vec<StreamEvent>) {
        let reasoning = non_empty(delta.get("reasoning_content")).or_else(|| non_empty(delta.get("reasoning")));
        if let Some(reasoning) = reasoning {
            self.has_output = true;
            out.push(StreamEvent::Thinking(reasoning.to_string()));
        }
        if let Some(text) = non_empty(delta.get("content")) {
            self.saw_text = true;
            self.has_output = true;
            self.content.push(text, out);
        }
        // A refusal is shown as answer text: it is what the model said, and the user must see
        // why nothing happened. It enters history as the assistant's content.
        if let Some(text) = non_empty(delta.get("refusal")) {
            self.saw_text = true;
            self.has_output = true;
            out.push(StreamEvent::Text(text.to_string()));
        }
        for fragment in delta.get("tool_calls").and_then(Value::as_array).into_iter().flatten() {
            self.tool_call_fragment(fragment);
        }
    }

    fn tool_call_fragment(&mut self, fragment: &Value) {
        self.has_output = true;
        let id = non_empty(fragment.get("id"));
        let position = match fragment.get("index").and_then(Value::as_u64) {
            Some(index) => self.slots.iter().position(|slot| slot.index == Some(index)).unwrap_or_else(|| {
                self.slots.push(Slot::open(Some(index)));
                self.slots.len() - 1
            }),
            // No index (Gemini): a new id opens a call, anything else continues the last one.
            None => match (id, self.slots.len()) {
                (Some(id), _) if !self.slots.iter().any(|slot| slot.id == id) => {
                    self.slots.push(Slot::open(None));
                    self.slots.len() - 1
                }
                (_, 0) => {
                    self.slots.push(Slot::open(None));
                    0
                }
                (_, count) => count - 1,
            },
        };
        let slot = &mut self.slots[position];
        if let Some(id) = id.filter(|_| slot.id.is_empty()) {
            slot.id = id.to_string();
        }
        // LM Studio repeats `"name": ""`, others repeat the name: set once, never concatenate.
        if let Some(name) = non_empty(fragment.pointer("/function/name")).filter(|_| slot.name.is_empty()) {
            slot.name = name.to_string();
        }
        if let Some(arguments) = fragment.pointer("/function/arguments").and_then(Value::as_str) {
            slot.arguments.push_str(arguments);
        }
    }

    fn tool_call(&mut self, slot: Slot) -> ToolCall {
        let id = if slot.id.is_empty() { self.synthesise_id() } else { slot.id };
        let input = if slot.arguments.trim().is_empty() { "{}".to_string() } else { slot.arguments };
        ToolCall { id, name: slot.name, input }
    }

    /// `call_` + 24 alphanumerics from a splitmix64 sequence over the seed and a counter:
    /// unique within the attempt, reproducible in tests.
    fn synthesise_id(&mut self) -> String {
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        self.ids_made += 1;
        let mut state = self.id_seed ^ self.ids_made.wrapping_mul(0xD1B5_4A32_D192_ED03);
        let mut id = String::from("call_");
        for _ in 0..24 {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut mixed = state;
            mixed = (mixed ^ (mixed >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            mixed = (mixed ^ (mixed >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            mixed ^= mixed >> 31;
            id.push(char::from(ALPHABET[(mixed % ALPHABET.len() as u64) as usize]));
        }
        id
    }
}

impl Slot {
    fn open(index: Option<u64>) -> Slot {
        Slot { index, id: String::new(), name: String::new(), arguments: String::new() }
    }
}

/// Normalises a usage object: `cached_tokens` are part of `prompt_tokens` on this protocol, so
/// they are subtracted to keep the four `Usage` fields disjoint.
fn normalise_usage(usage: &Value) -> Usage {
    let number = |pointer: &str| usage.pointer(pointer).and_then(Value::as_u64);
    let prompt_tokens = number("/prompt_tokens").unwrap_or(0);
    let cached =
        number("/prompt_tokens_details/cached_tokens").or_else(|| number("/prompt_cache_hit_tokens")).unwrap_or(0);
    Usage {
        input_tokens: prompt_tokens.saturating_sub(cached),
        output_tokens: number("/completion_tokens").unwrap_or(0),
        cache_write: 0,
        cache_read: cached,
    }
}

/// A top-level `error` in a 200 stream (vLLM, llama.cpp, OpenRouter, DashScope...). A numeric
/// `code` is the HTTP-like status the server would have sent.
fn in_band_error(error: &Value) -> LlmError {
    if let Some(message) = error.as_str() {
        return classify(None, "", "", message);
    }
    let text = |name: &str| error.get(name).and_then(Value::as_str).unwrap_or("");
    let (status, code) = match error.get("code") {
        Some(Value::Number(number)) => (number.as_u64().and_then(|code| u16::try_from(code).ok()), number.to_string()),
        Some(Value::String(code)) => (None, code.clone()),
        _ => (None, String::new()),
    };
    classify(status, text("type"), &code, text("message"))
}

fn truncated(message: &str) -> LlmError {
    LlmError::Protocol { message: message.to_string() }
}

/// Whether accumulated arguments form a whole JSON value (empty counts: it becomes `{}`).
fn is_complete_json(arguments: &str) -> bool {
    arguments.trim().is_empty() || serde_json::from_str::<serde::de::IgnoredAny>(arguments).is_ok()
}

fn non_empty(value: Option<&Value>) -> Option<&str> {
    value.and_then(Value::as_str).filter(|text| !text.is_empty())
}

#[cfg(test)]
#[path = "decode_tests.rs"]
mod tests;
