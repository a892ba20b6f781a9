//! The OpenAI Chat Completions request encoder: a `Request` in, the JSON body out.
//!
//! Invariant: every assistant message with `tool_calls` is followed by exactly one `role: tool`
//! message per call, in call order, before anything else (OpenAI answers 400 otherwise); tool
//! arguments are sent as the raw text the model produced. Pure: no IO, no environment.
//!
//! Images go as `image_url` parts holding a `data:` URL: a user message with images is a list of
//! parts (its text, then its images); a `tool` message can carry no image in Chat Completions,
//! so a round's images follow its tool messages in ONE user message, each introduced by a text
//! part naming the call. An image the request leaves out (`llm::images`: the count and size
//! limits) goes as its placeholder text. Without images every body is what it was before images
//! existed.
//!
//! Not sent: reasoning text (some servers reject it in input; echoing it per model is a future
//! option), `parallel_tool_calls` (not every compatible server knows it).

use crate::config::ProviderConfig;
use crate::llm::body::{MESSAGES, encode_body, text_estimate};
use crate::msg::{Image, Message, Request, Role, ToolCall, ToolDefinition, ToolResult};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value, json};
use std::ops::Range;

/// The per-request choices that are not in `ProviderConfig` or are overridden for one retry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct EncodeOptions {
    /// Send `stream_options: {include_usage: true}`. The provider retries once with `false`
    /// when a server rejects the field.
    stream_options: bool,
}

impl EncodeOptions {
    /// The options a provider entry asks for: `stream_options` from the config.
    fn from_config(config: &ProviderConfig) -> EncodeOptions {
        EncodeOptions { stream_options: config.stream_options }
    }
}

/// The body with the config's options, and, when it carries `stream_options` that a server may
/// reject, the byte range whose removal gives exactly the body without it (the fallback body
/// encoded with `stream_options: false`), so the fallback costs no second
/// encoding nor a second copy of the history unless it is used. None when `extra_body` sets
/// `stream_options` itself: the user chose its value, and sending it again would not help.
pub(crate) fn encode_request_with_fallback(
    request: &Request,
    config: &ProviderConfig,
) -> (Vec<u8>, Option<Range<usize>>) {
    let (body, cut) = encode(request, config, EncodeOptions::from_config(config));
    (body, cut.filter(|_| !config.request.extra_body.contains_key(STREAM_OPTIONS)))
}

const STREAM_OPTIONS: &str = "stream_options";

/// The request body with explicit options, and the byte range of `stream_options` in it.
///
/// The output cap is `request.max_tokens`, or `config.max_tokens` when the request leaves it
/// 0, sent under `config.max_tokens_field` (`max_tokens` or `max_completion_tokens`). The
/// history is written from the borrowed messages (`llm::body`), never copied into a JSON tree.
fn encode(request: &Request, config: &ProviderConfig, options: EncodeOptions) -> (Vec<u8>, Option<Range<usize>>) {
    let output_cap = if request.max_tokens > 0 { request.max_tokens } else { config.max_tokens };
    let mut body = Map::new();
    body.insert("model".to_string(), json!(config.model));
    body.insert("stream".to_string(), json!(true));
    if options.stream_options {
        body.insert(STREAM_OPTIONS.to_string(), json!({"include_usage": true}));
    }
    let cap_field = if config.max_tokens_field.is_empty() { "max_tokens" } else { config.max_tokens_field.as_str() };
    body.insert(cap_field.to_string(), json!(output_cap));
    // A placeholder: `encode_body` writes the messages in its place.
    body.insert(MESSAGES.to_string(), Value::Null);
    if !request.tools.is_empty() {
        body.insert("tools".to_string(), Value::Array(request.tools.iter().map(tool_definition).collect()));
        body.insert("tool_choice".to_string(), json!("auto"));
    }
    crate::llm::settings::apply_request_settings(&mut body, &config.request);
    let sent = crate::llm::images::plan_images(&request.messages);
    let messages = messages(request, &sent);
    let estimate = text_estimate(messages.iter().map(Wire::text_bytes).sum(), messages.len());
    encode_body(&body, &messages, estimate, Some(STREAM_OPTIONS))
}

/// One wire message, borrowing the history (the system prompt is joined once per request).
enum Wire<'a> {
    /// `system` or `user` text.
    Text {
        role: &'static str,
        content: std::borrow::Cow<'a, str>,
    },
    Assistant(&'a Message),
    Tool(&'a ToolResult),
    /// A user message as parts: text parts and images, in order.
    Parts(Vec<Part<'a>>),
}

/// One part of a user message's content.
enum Part<'a> {
    Text(std::borrow::Cow<'a, str>),
    Image(&'a Image),
}

impl<'a> Part<'a> {
    /// Image `index` of a list whose plan is `sent`: the image, or its placeholder text.
    fn image(image: &'a Image, sent: &[bool], index: usize) -> Part<'a> {
        match sent.get(index) {
            Some(false) => Part::Text(image.placeholder().into()),
            Some(true) | None => Part::Image(image),
        }
    }
}

impl Wire<'_> {
    fn text_bytes(&self) -> usize {
        match self {
            Wire::Text { content, .. } => content.len(),
            Wire::Assistant(message) => {
                message.content.len()
                    + message
                        .tool_calls
                        .iter()
                        .map(|call| 64 + call.id.len() + call.name.len() + call.input.len() * 9 / 8)
                        .sum::<usize>()
            }
            Wire::Tool(result) => result.tool_call_id.len() + result.content.len(),
            Wire::Parts(parts) => parts
                .iter()
                .map(|part| match part {
                    Part::Text(text) => text.len() + 32,
                    Part::Image(image) => image.data.len() + image.media_type.len() + 64,
                })
                .sum(),
        }
    }
}

/// Keys in the order the encoder always sent them: role, then content, then calls or ids.
impl Serialize for Wire<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match self {
            Wire::Text { role, content } => {
                map.serialize_entry("role", role)?;
                map.serialize_entry("content", content)?;
            }
            Wire::Assistant(message) => {
                map.serialize_entry("role", "assistant")?;
                map.serialize_entry("content", &message.content)?;
                if !message.tool_calls.is_empty() {
                    let calls: Vec<WireCall<'_>> = message.tool_calls.iter().map(WireCall).collect();
                    map.serialize_entry("tool_calls", &calls)?;
                }
            }
            // An error result goes as is: the tool's own text already says what failed, and the
            // protocol has no error flag on tool messages.
            Wire::Tool(result) => {
                map.serialize_entry("role", "tool")?;
                map.serialize_entry("tool_call_id", &result.tool_call_id)?;
                map.serialize_entry("content", &result.content)?;
            }
            Wire::Parts(parts) => {
                map.serialize_entry("role", "user")?;
                map.serialize_entry("content", parts)?;
            }
        }
        map.end()
    }
}

/// `{"type":"text","text":..}` or `{"type":"image_url","image_url":{"url":"data:..;base64,.."}}`.
impl Serialize for Part<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        match self {
            Part::Text(text) => {
                map.serialize_entry("type", "text")?;
                map.serialize_entry("text", text)?;
            }
            Part::Image(image) => {
                map.serialize_entry("type", "image_url")?;
                let url = format!("data:{};base64,{}", image.media_type, image.data);
                map.serialize_entry("image_url", &json!({"url": url}))?;
            }
        }
        map.end()
    }
}

/// `arguments` is the raw text the model produced, byte for byte (no float rounding).
struct WireCall<'a>(&'a ToolCall);

impl Serialize for WireCall<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let call = self.0;
        let mut function = serializer.serialize_map(Some(3))?;
        function.serialize_entry("id", &call.id)?;
        function.serialize_entry("type", "function")?;
        function.serialize_entry("function", &FunctionCall(call))?;
        function.end()
    }
}

struct FunctionCall<'a>(&'a ToolCall);

impl Serialize for FunctionCall<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("name", &self.0.name)?;
        map.serialize_entry("arguments", &self.0.input)?;
        map.end()
    }
}

fn messages<'a>(request: &'a Request, sent: &[bool]) -> Vec<Wire<'a>> {
    let mut messages = Vec::new();
    // Stable part first so the servers' automatic prefix caching hits across runs.
    let system = match (request.system.stable.as_str(), request.system.environment.as_str()) {
        (stable, "") => std::borrow::Cow::Borrowed(stable),
        ("", environment) => std::borrow::Cow::Borrowed(environment),
        (stable, environment) => std::borrow::Cow::Owned(format!("{stable}\n\n{environment}")),
    };
    if !system.is_empty() {
        messages.push(Wire::Text { role: "system", content: system });
    }
    let firsts = crate::llm::images::first_image_of(&request.messages);
    for (at, message) in request.messages.iter().enumerate() {
        let planned = sent.get(firsts[at]..).unwrap_or(&[]);
        match message.role {
            Role::User if message.images.is_empty() => {
                messages.push(Wire::Text { role: "user", content: message.content.as_str().into() });
            }
            Role::User => {
                let text = (!message.content.is_empty()).then(|| Part::Text(message.content.as_str().into()));
                let images = message.images.iter().enumerate().map(|(index, image)| Part::image(image, planned, index));
                messages.push(Wire::Parts(text.into_iter().chain(images).collect()));
            }
            Role::Assistant => messages.extend(assistant_message(message)),
            Role::Tool => {
                messages.extend(message.tool_results.iter().map(Wire::Tool));
                messages.extend(round_images(&request.messages, at, planned));
            }
        }
    }
    if let Some(reminder) = request.reminder.as_deref().filter(|reminder| !reminder.is_empty()) {
        match messages.last_mut() {
            // After a round's images: one user message, not two in a row (some chat templates
            // of local servers refuse consecutive user turns).
            Some(Wire::Parts(parts)) => parts.push(Part::Text(reminder.into())),
            _ => messages.push(Wire::Text { role: "user", content: reminder.into() }),
        }
    }
    messages
}

/// The user message carrying the images of the tool round at `at`, each after a text part
/// naming its call (`Image from read_file (call_1): shot.png`); None when the round has none.
/// `sent` plans the round's images in order.
fn round_images<'a>(history: &'a [Message], at: usize, sent: &[bool]) -> Option<Wire<'a>> {
    let mut parts = Vec::new();
    let mut index = 0;
    for result in history[at].tool_results.iter().filter(|result| !result.images.is_empty()) {
        let name = crate::msg::call_answered(history, at, result).map_or("a tool", |call| call.name.as_str());
        for image in &result.images {
            let intro = format!("Image from {name} ({}): {}", result.tool_call_id, image.source);
            parts.push(Part::Text(intro.into()));
            parts.push(Part::image(image, sent, index));
            index += 1;
        }
    }
    (!parts.is_empty()).then_some(Wire::Parts(parts))
}

/// An assistant turn with neither text nor calls (an empty refusal) is left out: several
/// servers reject an assistant message without content or tool calls.
///
/// With calls and no text, `content` is `""`: OpenAI sends `null` back, but strict servers
/// (llama-cpp-python) answer 500 to it, and every server takes an empty string.
fn assistant_message(message: &Message) -> Option<Wire<'_>> {
    (!message.tool_calls.is_empty() || !message.content.is_empty()).then_some(Wire::Assistant(message))
}

fn tool_definition(tool: &ToolDefinition) -> Value {
    json!({
        "type": "function",
        "function": {"name": tool.name, "description": tool.description, "parameters": tool.input_schema}
    })
}

#[cfg(test)]
#[path = "encode_tests.rs"]
mod tests;
