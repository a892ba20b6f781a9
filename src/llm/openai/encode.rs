//! The OpenAI Chat Completions request encoder: a `Request` in, the JSON body out.
//!
//! Invariant: every assistant message with `tool_calls` is followed by exactly one `role: tool`
//! message per call, in call order, before anything else (OpenAI answers 400 otherwise); tool
//! arguments are sent as the raw text the model produced. Pure: no IO, no environment.
//!
//! Not sent: reasoning text (some servers reject it in input; echoing it per model is a future
//! option), `parallel_tool_calls` (not every compatible server knows it), images.

use crate::config::ProviderConfig;
use crate::msg::{Message, Request, Role, ToolCall, ToolDefinition};
use serde_json::{Map, Value, json};

/// The per-request choices that are not in `ProviderConfig` or are overridden for one retry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EncodeOptions {
    /// Send `stream_options: {include_usage: true}`. The provider retries once with `false`
    /// when a server rejects the field.
    pub stream_options: bool,
}

impl EncodeOptions {
    /// The options a provider entry asks for: `stream_options` from the config.
    pub fn from_config(config: &ProviderConfig) -> EncodeOptions {
        EncodeOptions { stream_options: config.stream_options }
    }
}

/// Builds the streaming request body for `POST {base_url}/chat/completions` with the options
/// the config asks for.
pub fn encode_request(request: &Request, config: &ProviderConfig) -> Value {
    encode_request_with(request, config, EncodeOptions::from_config(config))
}

/// Builds the request body with explicit options (the `stream_options` retry fallback uses
/// `EncodeOptions { stream_options: false, ..EncodeOptions::from_config(config) }`).
///
/// The output cap is `request.max_tokens`, or `config.max_tokens` when the request leaves it
/// 0, sent under `config.max_tokens_field` (`max_tokens` or `max_completion_tokens`).
pub fn encode_request_with(request: &Request, config: &ProviderConfig, options: EncodeOptions) -> Value {
    let output_cap = if request.max_tokens > 0 { request.max_tokens } else { config.max_tokens };
    let mut body = Map::new();
    body.insert("model".to_string(), json!(config.model));
    body.insert("stream".to_string(), json!(true));
    if options.stream_options {
        body.insert("stream_options".to_string(), json!({"include_usage": true}));
    }
    let cap_field = if config.max_tokens_field.is_empty() { "max_tokens" } else { config.max_tokens_field.as_str() };
    body.insert(cap_field.to_string(), json!(output_cap));
    body.insert("messages".to_string(), Value::Array(messages(request)));
    if !request.tools.is_empty() {
        body.insert("tools".to_string(), Value::Array(request.tools.iter().map(tool_definition).collect()));
        body.insert("tool_choice".to_string(), json!("auto"));
    }
    crate::llm::settings::apply_request_settings(&mut body, &config.request);
    Value::Object(body)
}

fn messages(request: &Request) -> Vec<Value> {
    let mut messages = Vec::new();
    // Stable part first so the servers' automatic prefix caching hits across runs.
    let system = match (request.system.stable.as_str(), request.system.environment.as_str()) {
        (stable, "") => stable.to_string(),
        ("", environment) => environment.to_string(),
        (stable, environment) => format!("{stable}\n\n{environment}"),
    };
    if !system.is_empty() {
        messages.push(json!({"role": "system", "content": system}));
    }
    for message in request.messages.iter() {
        match message.role {
            Role::User => messages.push(json!({"role": "user", "content": message.content})),
            Role::Assistant => messages.extend(assistant_message(message)),
            Role::Tool => messages.extend(message.tool_results.iter().map(|result| {
                // An error result goes as is: the tool's own text already says what failed,
                // and the protocol has no error flag on tool messages.
                json!({"role": "tool", "tool_call_id": result.tool_call_id, "content": result.content})
            })),
        }
    }
    if let Some(reminder) = request.reminder.as_deref().filter(|reminder| !reminder.is_empty()) {
        messages.push(json!({"role": "user", "content": reminder}));
    }
    messages
}

/// An assistant turn with neither text nor calls (an empty refusal) is left out: several
/// servers reject an assistant message without content or tool calls.
///
/// With calls and no text, `content` is `""`: OpenAI sends `null` back, but strict servers
/// (llama-cpp-python) answer 500 to it, and every server takes an empty string.
fn assistant_message(message: &Message) -> Option<Value> {
    if message.tool_calls.is_empty() {
        return (!message.content.is_empty()).then(|| json!({"role": "assistant", "content": message.content}));
    }
    let tool_calls: Vec<Value> = message.tool_calls.iter().map(tool_call).collect();
    Some(json!({"role": "assistant", "content": message.content, "tool_calls": tool_calls}))
}

/// `arguments` is the raw text the model produced, byte for byte (no float rounding).
fn tool_call(call: &ToolCall) -> Value {
    json!({"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.input}})
}

fn tool_definition(tool: &ToolDefinition) -> Value {
    json!({
        "type": "function",
        "function": {"name": tool.name, "description": tool.description, "parameters": tool.input_schema}
    })
}
