//! The Anthropic Messages request encoder: a `Request` in, the JSON body out.
//!
//! Invariant: the history it produces strictly alternates user / assistant, every `tool_result`
//! sits first in the user message right after its `tool_use`, and thinking is switched on only
//! when every assistant turn of the current tool loop can be sent back with a signed thinking
//! block (otherwise the API rejects the request). Pure: no IO, no clock, no environment.
//!
//! Images: a user message's go first, before its text (Anthropic's advice); a tool result with
//! images sends its `content` as blocks, the text then the images; an image the request leaves
//! out (`llm::images`: the count and size limits) goes as its placeholder text. Without images
//! every body is what it was before images existed.
//!
//! Prompt caching uses three of the four allowed breakpoints: the last tool definition, the
//! stable system block and the last block of history before the reminder. The reminder changes
//! every iteration, so a breakpoint after it would never be read back; one before it makes the
//! whole history a cache hit on the next iteration.

use crate::config::ProviderConfig;
use crate::llm::body::{MESSAGES, encode_body, text_estimate};
use crate::msg::{Image, Message, Request, Role, ThinkingBlock, ToolCall, ToolDefinition, ToolResult};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value, json};

/// Thinking budget of extended thinking (SPEC §2); `max_tokens` is raised above it.
const THINKING_BUDGET_TOKENS: u32 = 16_000;

/// Builds the streaming request body for `POST {base_url}/messages`, as the bytes to send.
///
/// The output cap is `request.max_tokens`, or `config.max_tokens` when the request leaves it 0;
/// with thinking on, the budget is added on top so the answer keeps its whole cap. The history
/// is written from the borrowed messages (`llm::body`), never copied into a JSON tree.
pub(crate) fn encode_request(request: &Request, config: &ProviderConfig) -> Vec<u8> {
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
    // A placeholder: `encode_body` writes the turns in its place.
    body.insert(MESSAGES.to_string(), Value::Null);
    crate::llm::settings::apply_request_settings(&mut body, &config.request);
    let sent = crate::llm::images::plan_images(&request.messages);
    let turns = messages(&request.messages, &sent, request.reminder.as_deref(), thinking);
    let estimate = turns.iter().map(Turn::estimate).sum();
    encode_body(&body, &turns, estimate, None).0
}

/// The seed's safe fallback: with thinking on, the API requires every assistant turn of an
/// unfinished tool loop to start with its signed thinking block. A turn recorded without one
/// (thinking was off, another provider answered, the session was resumed from an older log)
/// cannot be repaired, so thinking is switched off for the request instead. The loop is what
/// follows the last plain user message (one that opens an exchange, not text the user added
/// while tools were running); earlier turns are complete and need no thinking.
fn tool_loop_has_signed_thinking(messages: &[Message]) -> bool {
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

/// One wire message: `user` or `assistant` and its content blocks, borrowing the history.
struct Turn<'a> {
    role: &'static str,
    blocks: Vec<Block<'a>>,
}

/// One content block, borrowed; `cache` adds the `cache_control` breakpoint after its fields.
struct Block<'a> {
    kind: BlockKind<'a>,
    cache: bool,
}

enum BlockKind<'a> {
    Text(&'a str),
    Thinking(&'a ThinkingBlock),
    ToolUse(&'a ToolCall),
    /// A result and whether each of its images is sent.
    ToolResult(&'a ToolResult, &'a [bool]),
    Image(&'a Image),
    /// An image the request leaves out, as its placeholder text.
    ImagePlaceholder(&'a Image),
}

impl<'a> Block<'a> {
    fn new(kind: BlockKind<'a>) -> Block<'a> {
        Block { kind, cache: false }
    }

    fn is_tool_result(&self) -> bool {
        matches!(self.kind, BlockKind::ToolResult(..))
    }

    fn text_bytes(&self) -> usize {
        match self.kind {
            BlockKind::Text(text) => text.len(),
            BlockKind::Thinking(ThinkingBlock::Signed { text, signature }) => text.len() + signature.len(),
            BlockKind::Thinking(ThinkingBlock::Redacted { data }) => data.len(),
            BlockKind::ToolUse(call) => call.id.len() + call.name.len() + call.input.len(),
            BlockKind::ToolResult(result, _) => {
                result.tool_call_id.len()
                    + result.content.len()
                    + result.images.iter().map(|image| image.data.len() + 96).sum::<usize>()
            }
            BlockKind::Image(image) => image.data.len(),
            BlockKind::ImagePlaceholder(image) => image.source.len() + 32,
        }
    }
}

impl Turn<'_> {
    fn estimate(&self) -> usize {
        text_estimate(self.blocks.iter().map(Block::text_bytes).sum(), self.blocks.len() + 1)
    }
}

fn messages<'a>(history: &'a [Message], sent: &'a [bool], reminder: Option<&'a str>, thinking: bool) -> Vec<Turn<'a>> {
    let mut turns: Vec<Turn<'a>> = Vec::new();
    let firsts = crate::llm::images::first_image_of(history);
    for (message, first) in history.iter().zip(firsts) {
        // Whether each of the next `count` images is sent, from the plan (all, when none are planned).
        let mut next = first;
        let mut take = |count: usize| -> &'a [bool] {
            let slice = sent.get(next..next + count).unwrap_or(&[]);
            next += count;
            slice
        };
        let (role, blocks) = match message.role {
            Role::User => ("user", user_blocks(message, take(message.images.len()))),
            Role::Tool => (
                "user",
                message
                    .tool_results
                    .iter()
                    .map(|result| Block::new(BlockKind::ToolResult(result, take(result.images.len()))))
                    .collect(),
            ),
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
        turn.blocks.sort_by_key(|block| !block.is_tool_result());
    }
    if let Some(last_block) =
        turns.last_mut().filter(|turn| turn.role == "user").and_then(|turn| turn.blocks.last_mut())
    {
        last_block.cache = true;
    }
    if let Some(reminder) = text_block(reminder.unwrap_or("")) {
        match turns.last_mut() {
            Some(last) if last.role == "user" => last.blocks.push(reminder),
            _ => turns.push(Turn { role: "user", blocks: vec![reminder] }),
        }
    }
    turns
}

/// The prompt's images first (each sent or its placeholder, by `sent`), then its text.
fn user_blocks<'a>(message: &'a Message, sent: &[bool]) -> Vec<Block<'a>> {
    let mut blocks: Vec<Block<'a>> =
        message.images.iter().enumerate().map(|(index, image)| image_block(image, sent, index)).collect();
    blocks.extend(text_block(&message.content));
    blocks
}

/// Image `index` of a list whose plan is `sent` (missing from the plan: sent).
fn image_block<'a>(image: &'a Image, sent: &[bool], index: usize) -> Block<'a> {
    match sent.get(index) {
        Some(false) => Block::new(BlockKind::ImagePlaceholder(image)),
        Some(true) | None => Block::new(BlockKind::Image(image)),
    }
}

fn text_block(text: &str) -> Option<Block<'_>> {
    (!text.is_empty()).then(|| Block::new(BlockKind::Text(text)))
}

/// Thinking blocks first (the API demands it), then the text, then the tool calls.
fn assistant_blocks(message: &Message, thinking: bool) -> Vec<Block<'_>> {
    let mut blocks = Vec::new();
    if thinking {
        blocks.extend(
            message
                .thinking
                .iter()
                .filter(|block| is_sendable(block))
                .map(|block| Block::new(BlockKind::Thinking(block))),
        );
    }
    blocks.extend(text_block(&message.content));
    blocks.extend(message.tool_calls.iter().map(|call| Block::new(BlockKind::ToolUse(call))));
    blocks
}

/// A signed block without a signature (the stream broke before it) would be rejected.
fn is_sendable(block: &ThinkingBlock) -> bool {
    match block {
        ThinkingBlock::Signed { signature, .. } => !signature.is_empty(),
        ThinkingBlock::Redacted { .. } => true,
    }
}

impl Serialize for Turn<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("role", self.role)?;
        map.serialize_entry("content", &self.blocks)?;
        map.end()
    }
}

/// Each block's fields in the order the API documents them; `is_error` only when true (absent
/// means success, and it keeps bodies small); `cache_control` last.
impl Serialize for Block<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match self.kind {
            BlockKind::Text(text) => {
                map.serialize_entry("type", "text")?;
                map.serialize_entry("text", text)?;
            }
            BlockKind::Thinking(ThinkingBlock::Signed { text, signature }) => {
                map.serialize_entry("type", "thinking")?;
                map.serialize_entry("thinking", text)?;
                map.serialize_entry("signature", signature)?;
            }
            BlockKind::Thinking(ThinkingBlock::Redacted { data }) => {
                map.serialize_entry("type", "redacted_thinking")?;
                map.serialize_entry("data", data)?;
            }
            BlockKind::ToolUse(call) => {
                map.serialize_entry("type", "tool_use")?;
                map.serialize_entry("id", &call.id)?;
                map.serialize_entry("name", &call.name)?;
                map.serialize_entry("input", &tool_input(call))?;
            }
            BlockKind::ToolResult(result, sent) => {
                map.serialize_entry("type", "tool_result")?;
                map.serialize_entry("tool_use_id", &result.tool_call_id)?;
                if result.images.is_empty() {
                    map.serialize_entry("content", &result.content)?;
                } else {
                    map.serialize_entry("content", &ResultBlocks(result, sent))?;
                }
                if result.is_error {
                    map.serialize_entry("is_error", &true)?;
                }
            }
            BlockKind::Image(image) => serialize_image(&mut map, image)?,
            BlockKind::ImagePlaceholder(image) => {
                map.serialize_entry("type", "text")?;
                map.serialize_entry("text", &image.placeholder())?;
            }
        }
        if self.cache {
            map.serialize_entry("cache_control", &json!({"type": EPHEMERAL}))?;
        }
        map.end()
    }
}

/// `{"type":"image","source":{"type":"base64","media_type":..,"data":..}}`'s fields.
fn serialize_image<M: SerializeMap>(map: &mut M, image: &Image) -> Result<(), M::Error> {
    map.serialize_entry("type", "image")?;
    map.serialize_entry("source", &ImageSource(image))
}

struct ImageSource<'a>(&'a Image);

impl Serialize for ImageSource<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("type", "base64")?;
        map.serialize_entry("media_type", &self.0.media_type)?;
        map.serialize_entry("data", &*self.0.data)?;
        map.end()
    }
}

/// A tool result's `content` as blocks: its text (when there is any), then its images (each
/// sent or its placeholder, by the plan).
struct ResultBlocks<'a>(&'a ToolResult, &'a [bool]);

impl Serialize for ResultBlocks<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let ResultBlocks(result, sent) = self;
        let mut blocks: Vec<Block<'_>> = text_block(&result.content).into_iter().collect();
        blocks.extend(result.images.iter().enumerate().map(|(index, image)| image_block(image, sent, index)));
        blocks.serialize(serializer)
    }
}

/// `input` must be a JSON object on the wire, so the raw text is parsed here (one call at a
/// time, while the body is written).
///
/// Numbers: integers within i64/u64 come back digit for digit; other numbers go through an
/// f64 and are printed shortest-round-trip, which is the same double the API's own parser
/// builds, so only digits beyond double precision could change. That affects only the model's
/// view of its own past call: the tool itself always ran with the raw text.
/// Invalid JSON or a non-object (the tool already answered with an error for it) is sent as
/// `{}`: the API rejects anything else, and the paired error result tells the model what went
/// wrong.
fn tool_input(call: &ToolCall) -> Value {
    match serde_json::from_str::<Value>(&call.input) {
        Ok(Value::Object(object)) => Value::Object(object),
        _ => json!({}),
    }
}

#[cfg(test)]
#[path = "encode_tests.rs"]
mod tests;
