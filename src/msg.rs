//! The protocol-agnostic conversation vocabulary shared by the engine, the agent and the tools.
//!
//! Invariant: plain data with no IO and no provider's serde renames; wire formats live at the
//! boundaries that speak them (llm/*/encode.rs, session/record.rs). Tool inputs stay raw JSON
//! text so no float is rounded and invalid JSON reaches the tool, which reports it.

use std::sync::Arc;

/// Who said a message. `Tool` messages carry only tool results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
    Tool,
}

/// One call the model asked for. `input` is the raw JSON text exactly as the model produced it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub input: String,
}

/// The answer to one tool call, paired by `tool_call_id`. `images` go to the model after the
/// text (an image `read_file` read, one an MCP tool returned); most results have none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolResult {
    pub tool_call_id: String,
    pub content: String,
    pub is_error: bool,
    pub images: Vec<Image>,
}

impl ToolResult {
    /// A result of text only.
    pub(crate) fn text(tool_call_id: impl Into<String>, content: impl Into<String>, is_error: bool) -> ToolResult {
        ToolResult { tool_call_id: tool_call_id.into(), content: content.into(), is_error, images: Vec::new() }
    }
}

/// An image for the model, already checked against the limits (`image::check_limits`).
/// `data` is the file's bytes in base64, shared so that every request and every snapshot of the
/// history costs one reference, not one copy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`, from the bytes, not a file name.
    pub media_type: String,
    /// Standard base64 with padding.
    pub data: Arc<str>,
    /// Width and height in pixels when the header told them (the token estimate uses them).
    pub size_px: Option<(u32, u32)>,
    /// Where it came from, for people and placeholders: a path, or `server/tool`.
    pub source: String,
}

impl Image {
    /// The decoded size in bytes (base64 is 4 characters per 3 bytes, less the padding).
    fn byte_len(&self) -> u64 {
        let padding = self.data.bytes().rev().take_while(|&byte| byte == b'=').count();
        (self.data.len() / 4 * 3).saturating_sub(padding) as u64
    }

    /// What stands in for the image where its bytes do not go (the screen, logs, summaries,
    /// stream-json): `[image: shot.png, 12 KB]`.
    pub(crate) fn placeholder(&self) -> String {
        format!("[image: {}, {}]", self.source, crate::image::human_bytes(self.byte_len()))
    }
}

/// What the model is told about a tool. `input_schema` is a JSON Schema object.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolDefinition {
    pub name: String,
    pub description: String,
    pub input_schema: serde_json::Value,
}

/// A reasoning block that must be sent back byte-identical (Anthropic extended thinking):
/// a signed thinking text, or an opaque redacted block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ThinkingBlock {
    Signed { text: String, signature: String },
    Redacted { data: String },
}

/// What a person submits: the prompt's text and the images attached to it (`@shot.png`, a
/// pasted path, `--image`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Prompt {
    pub text: String,
    pub images: Vec<Image>,
}

impl From<String> for Prompt {
    fn from(text: String) -> Prompt {
        Prompt { text, images: Vec::new() }
    }
}

impl From<&str> for Prompt {
    fn from(text: &str) -> Prompt {
        Prompt::from(text.to_string())
    }
}

/// One message of the conversation. An assistant message may carry text, tool calls and the
/// thinking blocks of its turn; a tool message carries the results of one round, in call order;
/// a user message may carry the images attached to its prompt (`@shot.png`, `--image`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    pub role: Role,
    pub content: String,
    pub tool_calls: Vec<ToolCall>,
    pub tool_results: Vec<ToolResult>,
    pub thinking: Vec<ThinkingBlock>,
    pub images: Vec<Image>,
}

impl Message {
    /// A plain user message.
    pub fn user(text: impl Into<String>) -> Message {
        Message::with_role(Role::User, text.into())
    }

    /// A plain assistant message with text only.
    pub fn assistant(text: impl Into<String>) -> Message {
        Message::with_role(Role::Assistant, text.into())
    }

    /// A tool message holding the results of one round.
    pub fn tool_results(results: Vec<ToolResult>) -> Message {
        Message { tool_results: results, ..Message::with_role(Role::Tool, String::new()) }
    }

    /// A user message with the images attached to its prompt.
    pub(crate) fn user_with_images(text: impl Into<String>, images: Vec<Image>) -> Message {
        Message { images, ..Message::user(text) }
    }

    /// Every image the message carries: its own, then its results' in call order.
    pub(crate) fn all_images(&self) -> impl Iterator<Item = &Image> {
        self.images.iter().chain(self.tool_results.iter().flat_map(|result| result.images.iter()))
    }

    fn with_role(role: Role, content: String) -> Message {
        Message {
            role,
            content,
            tool_calls: Vec::new(),
            tool_results: Vec::new(),
            thinking: Vec::new(),
            images: Vec::new(),
        }
    }

    /// Gives back the spare capacity of every text it holds. Text built piece by piece (a
    /// streamed answer, a tool's output) can own up to twice its length; a message kept for the
    /// whole conversation should cost what it says.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.content.shrink_to_fit();
        for call in &mut self.tool_calls {
            call.input.shrink_to_fit();
        }
        for result in &mut self.tool_results {
            result.content.shrink_to_fit();
        }
        for block in &mut self.thinking {
            match block {
                ThinkingBlock::Signed { text, signature } => {
                    text.shrink_to_fit();
                    signature.shrink_to_fit();
                }
                ThinkingBlock::Redacted { data } => data.shrink_to_fit(),
            }
        }
    }
}

/// The call that `result`, in the tool message at `at` of `history`, answers: the call with its
/// id in the nearest assistant message before it.
pub(crate) fn call_answered<'a>(history: &'a [Message], at: usize, result: &ToolResult) -> Option<&'a ToolCall> {
    let asked = history[..at].iter().rev().find(|message| message.role == Role::Assistant)?;
    asked.tool_calls.iter().find(|call| call.id == result.tool_call_id)
}

/// Token accounting of one response, normalised so that the four fields never overlap: the
/// prompt's total size is always `input_tokens + cache_write + cache_read` (the OpenAI adapter
/// subtracts `cached_tokens` from `prompt_tokens`, Anthropic reports them apart already).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_write: u64,
    pub cache_read: u64,
}

impl Usage {
    /// Prompt plus output: the context-window anchor of SPEC §6.
    pub fn total(&self) -> u64 {
        self.input_tokens + self.output_tokens + self.cache_write + self.cache_read
    }

    /// Adds another response's usage into a running session total.
    pub fn add(&mut self, other: &Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_write += other.cache_write;
        self.cache_read += other.cache_read;
    }
}

/// The system prompt in two parts: `stable` is byte-identical across turns (cacheable prefix),
/// `environment` is gathered once per run (cwd, date, git status, model).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct System {
    pub stable: String,
    pub environment: String,
}

/// The conversation history: cheap to snapshot (one reference count, not a copy), so building
/// each iteration's request costs O(1) whatever the history's length. Pushing after a snapshot was
/// dropped is a plain push; only a snapshot still alive at push time forces one copy.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct History {
    messages: Arc<Vec<Message>>,
}

impl History {
    /// An empty history.
    pub fn new() -> History {
        History::default()
    }

    /// Appends a message.
    pub fn push(&mut self, message: Message) {
        Arc::make_mut(&mut self.messages).push(message);
    }

    /// Removes every message (a new conversation).
    pub fn clear(&mut self) {
        self.messages = Arc::new(Vec::new());
    }

    /// Replaces the whole history (compaction, resume).
    pub fn replace(&mut self, messages: Vec<Message>) {
        self.messages = Arc::new(messages);
    }

    /// One message for an in-place edit (layer 1 swaps a big tool result for its preview). O(1)
    /// unless a snapshot is still alive, which forces one copy, as `push` does.
    pub(crate) fn get_mut(&mut self, index: usize) -> Option<&mut Message> {
        Arc::make_mut(&mut self.messages).get_mut(index)
    }

    /// A shared, immutable view of the messages as they are now.
    pub(crate) fn snapshot(&self) -> Arc<Vec<Message>> {
        Arc::clone(&self.messages)
    }
}

impl From<Vec<Message>> for History {
    fn from(messages: Vec<Message>) -> History {
        History { messages: Arc::new(messages) }
    }
}

impl std::ops::Deref for History {
    type Target = [Message];

    fn deref(&self) -> &[Message] {
        &self.messages
    }
}

/// Everything one model call needs. `reminder` is per-iteration guidance placed by the adapter
/// (merged into the last user message for Anthropic, a trailing user message for OpenAI).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Request {
    pub system: System,
    /// A snapshot of the history (shared, not copied).
    pub messages: Arc<Vec<Message>>,
    pub tools: Vec<ToolDefinition>,
    pub reminder: Option<String>,
    pub max_tokens: u32,
}

#[cfg(test)]
#[path = "msg_tests.rs"]
mod tests;
