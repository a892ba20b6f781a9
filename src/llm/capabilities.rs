//! What an OpenAI-compatible server does with tools, reasoning and usage, learnt from one small
//! bounded test request with a trivial tool (`mewcode doctor`): whether the tool call comes
//! structured (`delta.tool_calls`, in one piece or streamed in fragments) or as text in the
//! content (`<tool_call>`, `[TOOL_CALLS]`, a bare JSON object...), where reasoning appears
//! (`reasoning_content`, `reasoning`, `<think>` in the content), and whether usage is sent.
//!
//! Invariant: `analyze` is pure over the stream's JSON chunks; `probe` is the only IO, one
//! request (plus one retry without `stream_options` if the server rejects it), bounded by its
//! timeout. It detects and reports; decoding text tool calls is the decoder's business.

use crate::config::ProviderConfig;
use crate::http::net::NetEnv;
use crate::sse::SseReader;
use serde_json::{Value, json};
use std::time::Duration;

/// How long doctor waits for the test answer: a local server may have to load the model first.
pub(crate) const PROBE_TIMEOUT: Duration = Duration::from_secs(30);

/// The test tool's name; its call is asked for in the prompt.
const PROBE_TOOL: &str = "ping";

/// The probe's output cap: room for a reasoning model to think a little first, small enough to
/// stay a probe.
const PROBE_MAX_TOKENS: u32 = 512;

/// How the tool call came back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ToolCallShape {
    /// In `delta.tool_calls`; `fragments` chunks carried pieces of its arguments (1: in one piece).
    Structured { fragments: usize },
    /// Written into the content as text; `marker` is what gave it away.
    Text { marker: String },
    /// No call at all: the model answered in prose (or the server dropped the tools).
    Absent,
}

/// What the test request showed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Capabilities {
    pub tool_calls: ToolCallShape,
    /// Where reasoning appeared: `reasoning_content`, `reasoning`, `<think> in content`.
    pub reasoning: Vec<&'static str>,
    /// A usage object with counts arrived.
    pub usage: bool,
    /// The server refused `stream_options` (the request was retried without it).
    pub stream_options_rejected: bool,
    /// The answer ended on the probe's output cap (`finish_reason: length`): a reasoning model
    /// may not have reached its call yet, so an absent call proves little.
    pub cut_off: bool,
}

impl Capabilities {
    /// One line for doctor: `tool calls structured, streamed in 4 fragments · reasoning in
    /// reasoning_content · usage sent`, its parts joined by `separator` (doctor's symbol).
    pub(crate) fn describe(&self, separator: &str) -> String {
        let calls = match &self.tool_calls {
            ToolCallShape::Structured { fragments: 0 | 1 } => {
                "tool calls structured, arguments in one piece".to_string()
            }
            ToolCallShape::Structured { fragments } => {
                format!("tool calls structured, arguments streamed in {fragments} fragments")
            }
            ToolCallShape::Text { marker } => format!("tool calls as TEXT in the content ({marker})"),
            ToolCallShape::Absent if self.cut_off => {
                format!("no tool call before the probe's {PROBE_MAX_TOKENS}-token cap (still thinking?)")
            }
            ToolCallShape::Absent => "NO tool call (the model answered in prose)".to_string(),
        };
        let reasoning = if self.reasoning.is_empty() {
            "no reasoning seen".to_string()
        } else {
            format!("reasoning in {}", self.reasoning.join(" and "))
        };
        let usage = if self.usage { "usage sent" } else { "NO usage (mewcode estimates it, shown with ~)" };
        format!("{calls}{separator}{reasoning}{separator}{usage}")
    }

    /// Provider settings worth writing down, as `key: value  # why` lines.
    pub(crate) fn recommendations(&self) -> Vec<String> {
        let mut lines = Vec::new();
        match &self.tool_calls {
            ToolCallShape::Text { .. } => {
                lines.push("text_tool_calls: auto   # the server writes tool calls as text".to_string());
            }
            ToolCallShape::Absent if self.cut_off => {}
            ToolCallShape::Absent => lines.push(
                "# the model did not call the test tool: pick a tool-capable model (or a server chat template with tools)"
                    .to_string(),
            ),
            ToolCallShape::Structured { .. } => {}
        }
        if self.stream_options_rejected {
            lines.push("stream_options: false   # the server rejects stream_options".to_string());
        }
        lines
    }
}

/// Reads the stream's JSON chunks (the `data:` payloads in order).
pub(crate) fn analyze(chunks: &[Value], stream_options_rejected: bool) -> Capabilities {
    let mut content = String::new();
    let mut fragments = 0;
    let mut structured = false;
    let mut reasoning = Vec::new();
    let mut usage = false;
    let mut cut_off = false;
    for chunk in chunks {
        if chunk.pointer("/choices/0/finish_reason").and_then(Value::as_str) == Some("length") {
            cut_off = true;
        }
        if chunk.get("usage").is_some_and(|usage| usage.get("prompt_tokens").and_then(Value::as_u64).unwrap_or(0) > 0) {
            usage = true;
        }
        let Some(delta) = chunk.pointer("/choices/0/delta").or_else(|| chunk.pointer("/choices/0/message")) else {
            continue;
        };
        if let Some(text) = delta.get("content").and_then(Value::as_str) {
            content.push_str(text);
        }
        for (field, place) in [("reasoning_content", "reasoning_content"), ("reasoning", "reasoning")] {
            if delta.get(field).and_then(Value::as_str).is_some_and(|text| !text.is_empty())
                && !reasoning.contains(&place)
            {
                reasoning.push(place);
            }
        }
        if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array).filter(|calls| !calls.is_empty()) {
            structured = true;
            let pieces = calls
                .iter()
                .filter(|call| {
                    call.pointer("/function/arguments").and_then(Value::as_str).is_some_and(|text| !text.is_empty())
                })
                .count();
            fragments += pieces;
        }
    }
    if content.contains("<think>") {
        reasoning.push("<think> in content");
    }
    let tool_calls = if structured {
        ToolCallShape::Structured { fragments }
    } else if let Some(marker) = text_call_marker(&content) {
        ToolCallShape::Text { marker: marker.to_string() }
    } else {
        ToolCallShape::Absent
    };
    Capabilities { tool_calls, reasoning, usage, stream_options_rejected, cut_off }
}

/// What in the content looks like a tool call written as text.
fn text_call_marker(content: &str) -> Option<&'static str> {
    const MARKERS: [(&str, &str); 6] = [
        ("<tool_call>", "<tool_call>"),
        ("<function=", "<function=...>"),
        ("[TOOL_CALLS]", "[TOOL_CALLS]"),
        ("<|tool_call", "<|tool_call|>"),
        ("<|python_tag|>", "<|python_tag|>"),
        ("<tool_calls>", "<tool_calls>"),
    ];
    if let Some((_, marker)) = MARKERS.iter().find(|(needle, _)| content.contains(needle)) {
        return Some(marker);
    }
    let names_the_tool = content.contains(&format!("\"{PROBE_TOOL}\""));
    let has_arguments = content.contains("\"arguments\"") || content.contains("\"parameters\"");
    (names_the_tool && has_arguments && content.contains("\"name\"")).then_some("a JSON object naming the tool")
}

/// The test request's body.
fn probe_body(provider: &ProviderConfig, stream_options: bool) -> Value {
    let mut body = json!({
        "model": provider.model,
        "stream": true,
        "messages": [
            {"role": "system", "content": "You are a connectivity test. Answer only by calling the tool you are asked to call."},
            {"role": "user", "content": format!("Call the {PROBE_TOOL} tool with text \"hi\". Do not answer in prose.")}
        ],
        "tools": [{"type": "function", "function": {
            "name": PROBE_TOOL,
            "description": "Replies pong. Call it when you are asked to.",
            "parameters": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
        }}]
    });
    body[provider.max_tokens_field.as_str()] = json!(provider.max_tokens.min(PROBE_MAX_TOKENS));
    if stream_options {
        body["stream_options"] = json!({"include_usage": true});
    }
    body
}

/// Sends the test request and reads its stream; Err says why nothing could be learnt.
pub(crate) fn probe(provider: &ProviderConfig, net: &NetEnv, timeout: Duration) -> Result<Capabilities, String> {
    let agent = super::http::one_off_agent(provider, net, timeout)?;
    let url = format!("{}/chat/completions", provider.base_url);
    let send = |stream_options: bool| {
        let mut request = agent.post(&url).config().timeout_global(Some(timeout)).build();
        if !provider.api_key.is_empty() {
            request = request.header("authorization", &format!("Bearer {}", provider.api_key));
        }
        request
            .header("content-type", "application/json")
            .header("accept", "text/event-stream")
            .send(probe_body(provider, stream_options).to_string())
            .map_err(|err| format!("{url}: {err}"))
    };
    let mut response = send(provider.stream_options)?;
    let mut rejected = false;
    if response.status().as_u16() == 400 && provider.stream_options {
        let text = response.body_mut().with_config().limit(64 * 1024).read_to_string().unwrap_or_default();
        if text.contains("stream_options") {
            rejected = true;
            response = send(false)?;
        } else {
            return Err(format!("HTTP 400: {}", text.chars().take(300).collect::<String>().trim()));
        }
    }
    let status = response.status().as_u16();
    if status != 200 {
        let text = response.body_mut().with_config().limit(64 * 1024).read_to_string().unwrap_or_default();
        return Err(format!("HTTP {status}: {}", text.chars().take(300).collect::<String>().trim()));
    }
    let (_, body) = response.into_parts();
    let mut reader = SseReader::new(body.into_reader());
    let mut chunks = Vec::new();
    loop {
        match reader.next_event() {
            Ok(Some(event)) if event.data.trim() == "[DONE]" => break,
            Ok(Some(event)) => {
                if let Ok(value) = serde_json::from_str::<Value>(&event.data) {
                    if let Some(error) = value.get("error") {
                        return Err(format!("the server sent an error: {error}"));
                    }
                    chunks.push(value);
                }
            }
            Ok(None) => break,
            Err(err) if chunks.is_empty() => return Err(format!("reading the answer: {err}")),
            // A stream cut after some chunks still says what the server does.
            Err(_) => break,
        }
    }
    if chunks.is_empty() {
        return Err("the answer had no events (is this an OpenAI-compatible endpoint?)".to_string());
    }
    Ok(analyze(&chunks, rejected))
}

#[cfg(test)]
#[path = "capabilities_tests.rs"]
mod tests;
