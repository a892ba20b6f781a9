//! The Anthropic Messages request encoder: a `Request` in, the JSON body out.
//!
//! Invariant: the history it produces strictly alternates user / assistant, every `tool_result`
//! sits first in the user message right after its `tool_use`, and thinking is switched on only
//! when every assistant turn of the current tool loop can be sent back with a signed thinking
//! block (otherwise the API rejects the request). Pure: no IO, no clock, no environment.
//!
//! Prompt caching uses three of the four allowed breakpoints: the last tool definition, the
//! stable system block and the last block of history before the reminder. The reminder changes
//! every iteration, so a breakpoint after it would never be read back; one before it makes the
//! whole history a cache hit on the next iteration.

use crate::config::ProviderConfig;
use crate::msg::{Message, Request, Role, ThinkingBlock, ToolCall, ToolDefinition, ToolResult};
use serde_json::{Map, Value, json};

/// Thinking budget of extended thinking (SPEC §2); `max_tokens` is raised above it.
pub const THINKING_BUDGET_TOKENS: u32 = 16_000;

/// Builds the streaming request body for `POST {base_url}/messages`.
///
/// The output cap is `request.max_tokens`, or `config.max_tokens` when the request leaves it 0;
/// with thinking on, the budget is added on top so the answer keeps its whole cap.
pub fn encode_request(request: &Request, config: &ProviderConfig) -> Value {
    let thinking = config.thinking && tool_loop_has_signed_thinking(&request.messages);
    let output_cap = if request.max_tokens > 0 { request.max_tokens } else { config.max_tokens };
    let mut body = Map::new();
    body.insert("model".to_string(), json!(config.model));
    let max_tokens = if thinking { output_cap.saturating_add(THINKING_BUDGET_TOKENS) } else { output_cap };
    body.insert("max_tokens".to_string(), json!(max_tokens));
    body.insert("stream".to_string(), json!(true));
    let system = system_blocks(&request.system.stable, &request.system.environment);
    if !system.is_empty() {
        body.insert("system".to_string(), Value::Array(system));
    }
    if !request.tools.is_empty() {
        body.insert("tools".to_string(), Value::Array(tool_definitions(&request.tools)));
        body.insert("tool_choice".to_string(), json!({"type": "auto"}));
    }
    if thinking {
        body.insert("thinking".to_string(), json!({"type": "enabled", "budget_tokens": THINKING_BUDGET_TOKENS}));
    }
    body.insert(
        "messages".to_string(),
        Value::Array(messages(&request.messages, request.reminder.as_deref(), thinking)),
    );
    crate::llm::settings::apply_request_settings(&mut body, &config.request);
    Value::Object(body)
}

/// The seed's safe fallback: with thinking on, the API requires every assistant turn of an
/// unfinished tool loop to start with its signed thinking block. A turn recorded without one
/// (thinking was off, another provider answered, the session was resumed from an older log)
/// cannot be repaired, so thinking is switched off for the request instead. The loop is what
/// follows the last plain user message (one that opens an exchange, not text the user added
/// while tools were running); earlier turns are complete and need no thinking.
pub fn tool_loop_has_signed_thinking(messages: &[Message]) -> bool {
    let loop_start = (0..messages.len())
        .rev()
        .find(|&index| messages[index].role == Role::User && opens_exchange(&messages[..index]))
        .map_or(0, |index| index + 1);
    messages[loop_start..]
        .iter()
        .filter(|message| message.role == Role::Assistant && !message.tool_calls.is_empty())
        .all(|message| message.thinking.iter().any(is_sendable))
}

/// A user message opens an exchange unless the turn before it (other user text aside) is still
/// waiting on tools: tool results, or an assistant turn that made calls.
fn opens_exchange(before: &[Message]) -> bool {
    match before.iter().rev().find(|message| message.role != Role::User) {
        None => true,
        Some(message) => message.role == Role::Assistant && message.tool_calls.is_empty(),
    }
}

const EPHEMERAL: &str = "ephemeral";

fn system_blocks(stable: &str, environment: &str) -> Vec<Value> {
    let mut blocks = Vec::new();
    // Empty text blocks are rejected by the API, so an empty part is omitted.
    if !stable.is_empty() {
        blocks.push(json!({"type": "text", "text": stable, "cache_control": {"type": EPHEMERAL}}));
    }
    if !environment.is_empty() {
        blocks.push(json!({"type": "text", "text": environment}));
    }
    blocks
}

fn tool_definitions(tools: &[ToolDefinition]) -> Vec<Value> {
    let mut definitions: Vec<Value> = tools
        .iter()
        .map(|tool| json!({"name": tool.name, "description": tool.description, "input_schema": tool.input_schema}))
        .collect();
    if let Some(Value::Object(last)) = definitions.last_mut() {
        last.insert("cache_control".to_string(), json!({"type": EPHEMERAL}));
    }
    definitions
}

/// One wire message being built: `user` or `assistant` and its content blocks.
struct Turn {
    role: &'static str,
    blocks: Vec<Value>,
}

fn messages(history: &[Message], reminder: Option<&str>, thinking: bool) -> Vec<Value> {
    let mut turns: Vec<Turn> = Vec::new();
    for message in history {
        let (role, blocks) = match message.role {
            Role::User => ("user", text_block(&message.content).into_iter().collect()),
            Role::Tool => ("user", message.tool_results.iter().map(tool_result_block).collect()),
            Role::Assistant => ("assistant", assistant_blocks(message, thinking)),
        };
        // A message with nothing to say (an empty refusal, a blank prompt) is left out rather
        // than sent as an empty block, which the API rejects; neighbours then merge.
        if blocks.is_empty() {
            continue;
        }
        match turns.last_mut() {
            // Strict alternation: consecutive same-role messages become one turn.
            Some(last) if last.role == role => last.blocks.extend(blocks),
            _ => turns.push(Turn { role, blocks }),
        }
    }
    for turn in turns.iter_mut().filter(|turn| turn.role == "user") {
        // Tool results must open the user turn; a stable sort keeps everything else in order.
        turn.blocks.sort_by_key(|block| block.get("type") != Some(&json!("tool_result")));
    }
    if let Some(Value::Object(last_block)) =
        turns.last_mut().filter(|turn| turn.role == "user").and_then(|turn| turn.blocks.last_mut())
    {
        last_block.insert("cache_control".to_string(), json!({"type": EPHEMERAL}));
    }
    if let Some(reminder) = text_block(reminder.unwrap_or("")) {
        match turns.last_mut() {
            Some(last) if last.role == "user" => last.blocks.push(reminder),
            _ => turns.push(Turn { role: "user", blocks: vec![reminder] }),
        }
    }
    turns.into_iter().map(|turn| json!({"role": turn.role, "content": turn.blocks})).collect()
}

fn text_block(text: &str) -> Option<Value> {
    (!text.is_empty()).then(|| json!({"type": "text", "text": text}))
}

/// Thinking blocks first (the API demands it), then the text, then the tool calls.
fn assistant_blocks(message: &Message, thinking: bool) -> Vec<Value> {
    let mut blocks = Vec::new();
    if thinking {
        blocks.extend(message.thinking.iter().filter(|block| is_sendable(block)).map(thinking_block));
    }
    blocks.extend(text_block(&message.content));
    blocks.extend(message.tool_calls.iter().map(tool_use_block));
    blocks
}

/// A signed block without a signature (the stream broke before it) would be rejected.
fn is_sendable(block: &ThinkingBlock) -> bool {
    match block {
        ThinkingBlock::Signed { signature, .. } => !signature.is_empty(),
        ThinkingBlock::Redacted { .. } => true,
    }
}

fn thinking_block(block: &ThinkingBlock) -> Value {
    match block {
        ThinkingBlock::Signed { text, signature } => {
            json!({"type": "thinking", "thinking": text, "signature": signature})
        }
        ThinkingBlock::Redacted { data } => json!({"type": "redacted_thinking", "data": data}),
    }
}

/// `input` must be a JSON object on the wire, so the raw text is parsed here.
///
/// Numbers: integers within i64/u64 come back digit for digit; other numbers go through an
/// f64 and are printed shortest-round-trip, which is the same double the API's own parser
/// builds, so only digits beyond double precision could change. That affects only the model's
/// view of its own past call: the tool itself always ran with the raw text.
/// Invalid JSON or a non-object (the tool already answered with an error for it) is sent as
/// `{}`: the API rejects anything else, and the paired error result tells the model what went
/// wrong.
fn tool_use_block(call: &ToolCall) -> Value {
    let input = match serde_json::from_str::<Value>(&call.input) {
        Ok(Value::Object(object)) => Value::Object(object),
        _ => json!({}),
    };
    json!({"type": "tool_use", "id": call.id, "name": call.name, "input": input})
}

/// `is_error` is only sent when true: absent means success, and it keeps bodies small.
fn tool_result_block(result: &ToolResult) -> Value {
    let mut block = json!({"type": "tool_result", "tool_use_id": result.tool_call_id, "content": result.content});
    if result.is_error
        && let Value::Object(fields) = &mut block
    {
        fields.insert("is_error".to_string(), json!(true));
    }
    block
}
