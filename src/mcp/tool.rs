//! `McpTool`: one server tool as a `tools::Tool`, named `mcp__<server>__<tool>`, and the pure
//! rendering of a `tools/call` result into the text the model reads.
//!
//! Invariants: the full name is both the model-facing name and the rule name, and matches
//! `^[A-Za-z0-9_-]+$` within 64 characters (providers reject anything else), or the tool is not
//! registered. Read-only only when the server says `readOnlyHint: true`, does not also say
//! `destructiveHint: true`, and every hint is a boolean (`client::parse_read_only`); that hint spares
//! a call the approval only when the server's hints are trusted (`permission_read_only`). Every failure (a protocol
//! error, a timeout, a dead server) becomes an `is_error` output; nothing here panics or stops a
//! turn. Content the model cannot see (audio, binary resources, and images when the model takes
//! none or the image is over a limit) becomes a one-line placeholder, and the user is warned once
//! per tool; an image the model can see goes on the output beside its placeholder. A blocked tool (pinning flagged its server;
//! the flag is shared by every tool object of the server, so one a sub-agent took before the
//! flag was raised is blocked too) never reaches the server: the model sees a neutral description and an empty schema instead of
//! the changed (untrusted) ones, and every call returns the reason; it counts as read-only so that
//! the permission gate lets the call through to that refusal instead of asking about a tool that
//! cannot run. The same holds for a tool whose server stopped by itself (`Client::lost_reason`):
//! every call returns at once why (how it ended, its last stderr line) and that the user can
//! reconnect it; nothing waits on a dead server.

use super::client::{Client, ToolInfo};
use super::lost::is_loss;
use super::{McpError, WarnSink};
use crate::msg::Image;
use crate::tools::{Tool, ToolContext, ToolOutput};
use crate::warning::Warning;
use serde_json::Value;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The longest tool name providers accept (OpenAI's limit).
const MAX_NAME_CHARS: usize = 64;

/// The model-facing name of `tool` on `server`, or why it cannot have one.
pub(crate) fn full_name(server: &str, tool: &str) -> Result<String, String> {
    let name = format!("mcp__{server}__{tool}");
    if !name.bytes().all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-') {
        return Err(format!("tool name {name:?} has characters other than letters, digits, _ and -"));
    }
    if name.len() > MAX_NAME_CHARS {
        return Err(format!("tool name {name:?} is longer than {MAX_NAME_CHARS} characters"));
    }
    Ok(name)
}

/// One MCP tool, callable by the agent.
pub(crate) struct McpTool {
    name: String,
    server: String,
    info: ToolInfo,
    client: Arc<Client>,
    warn: WarnSink,
    warned: AtomicBool,
    /// Whether the server's `readOnlyHint` may spare a call the approval
    /// (`McpServerConfig::trust_hints`).
    hints_trusted: bool,
    /// Why the tool must not run (its server's definitions changed since they were accepted).
    blocked: Block,
}

/// Why a server's tools must not run, shared by all its tool objects; None: they may.
pub(crate) type Block = Arc<std::sync::Mutex<Option<String>>>;

/// What the model is told about a blocked tool instead of its (untrusted) description.
pub const BLOCKED_DESCRIPTION: &str =
    "Disabled: this MCP tool's definition changed since the user accepted it. Calling it only returns why.";

impl McpTool {
    /// The tool `info` of `server`, reached through `client`; `name` comes from `full_name`.
    pub(crate) fn new(name: String, server: &str, info: ToolInfo, client: Arc<Client>, warn: WarnSink) -> McpTool {
        McpTool {
            name,
            server: server.to_string(),
            info,
            client,
            warn,
            warned: AtomicBool::new(false),
            hints_trusted: true,
            blocked: Block::default(),
        }
    }

    /// This tool with its server's hints believed for permission or not.
    pub(crate) fn with_hints_trusted(mut self, trusted: bool) -> McpTool {
        self.hints_trusted = trusted;
        self
    }

    /// The same tool, blocked whenever `block` says so (its server's shared flag).
    pub(crate) fn sharing_block(self, block: Block) -> McpTool {
        McpTool { blocked: block, ..self }
    }

    /// Why the tool refuses to run, if it does.
    pub(crate) fn blocked_reason(&self) -> Option<String> {
        crate::sync::lock(&self.blocked).clone()
    }

    fn is_blocked(&self) -> bool {
        crate::sync::lock(&self.blocked).is_some()
    }

    /// The server's own name for the tool.
    pub(crate) fn tool_name(&self) -> &str {
        &self.info.name
    }
}

impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn rule_name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        if self.is_blocked() { BLOCKED_DESCRIPTION } else { &self.info.description }
    }

    fn input_schema(&self) -> Value {
        if self.is_blocked() {
            return serde_json::json!({"type": "object", "properties": {}});
        }
        self.info.input_schema.clone()
    }

    fn read_only(&self) -> bool {
        self.is_blocked() || self.info.read_only
    }

    fn permission_read_only(&self) -> bool {
        self.is_blocked() || self.client.lost_reason().is_some() || (self.info.read_only && self.hints_trusted)
    }

    fn execute(&self, input_json: &str, ctx: &ToolContext) -> ToolOutput {
        if let Some(reason) = self.blocked_reason() {
            return ToolOutput::error(format!("mcp server {}: {reason}", self.server));
        }
        if let Some(lost) = self.client.lost_reason() {
            return ToolOutput::error(stopped_error(&self.server, &lost, self.client.stderr_tail().last()));
        }
        let arguments = match parse_arguments(input_json) {
            Ok(arguments) => arguments,
            Err(message) => return ToolOutput::error(message),
        };
        match self.client.call_tool(&self.info.name, arguments, &ctx.cancel) {
            Ok(result) => {
                let rendered = render_result(&result, ctx.image_refusal.is_none().then_some(self.name.as_str()));
                if rendered.placeholders > 0 && !self.warned.swap(true, Ordering::SeqCst) {
                    (self.warn)(Warning::new(
                        format!("mcp server {}", self.server),
                        format!("{} returned content the model cannot see (shown as placeholders)", self.name),
                    ));
                }
                ToolOutput { content: rendered.text, is_error: rendered.is_error, images: rendered.images }
            }
            Err(err) if is_loss(&err) => {
                ToolOutput::error(stopped_error(&self.server, &err, self.client.stderr_tail().last()))
            }
            Err(err) => ToolOutput::error(call_error(&self.server, &err)),
        }
    }
}

/// What the model reads when a tool's server went away: how, its last stderr line, and that
/// only the user can bring it back (so the model stops trying and says so).
fn stopped_error(server: &str, err: &McpError, last_stderr: Option<&String>) -> String {
    let mut message = call_error(server, err);
    if let Some(line) = last_stderr {
        message.push_str(&format!("; its last stderr line: {line}"));
    }
    message.push_str(&format!(
        "; its tools cannot be used until the user reconnects it (/mcp reconnect {server} in the REPL)"
    ));
    message
}

/// The message the model reads when a call fails below the tool.
pub(crate) fn call_error(server: &str, err: &McpError) -> String {
    format!("mcp server {server}: {err}")
}

/// The model's input as the `arguments` object (empty input means no arguments).
pub(crate) fn parse_arguments(input_json: &str) -> Result<Value, String> {
    if input_json.trim().is_empty() {
        return Ok(Value::Object(serde_json::Map::new()));
    }
    match serde_json::from_str::<Value>(input_json) {
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(Value::Null) => Ok(Value::Object(serde_json::Map::new())),
        Ok(_) => Err("the input must be a JSON object".to_string()),
        Err(err) => Err(format!("the input is not valid JSON: {err}")),
    }
}

/// A `tools/call` result made readable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rendered {
    pub text: String,
    pub is_error: bool,
    /// How many blocks became placeholders the model cannot see past (an image it receives
    /// keeps its placeholder in the text but is not counted).
    pub placeholders: usize,
    /// The images the model receives.
    pub images: Vec<Image>,
}

/// Text blocks joined with newlines; `structuredContent` as JSON when there is no text;
/// images, audio and binary resources as `[image: image/png, 12 KB]`; embedded text resources
/// with their URI; `isError` kept. With `vision_for` (the tool's name, for the model that
/// accepts images), an image block whose bytes are an image within the limits also goes on the
/// result as an `Image`.
pub fn render_result(result: &Value, vision_for: Option<&str>) -> Rendered {
    let mut parts = Vec::new();
    let mut images = Vec::new();
    let mut placeholders = 0;
    let mut has_text = false;
    for block in result.get("content").and_then(Value::as_array).into_iter().flatten() {
        let field = |key: &str| block.get(key).and_then(Value::as_str).unwrap_or("");
        match field("type") {
            "text" => {
                has_text = true;
                parts.push(field("text").to_string());
            }
            kind @ ("image" | "audio") => {
                if kind == "image"
                    && let Some(image) = vision_for.and_then(|tool| sendable_image(field("data"), tool))
                {
                    parts.push(format!("[image: {}, {}]", image.media_type, size_of_base64(field("data"))));
                    images.push(image);
                    continue;
                }
                placeholders += 1;
                parts.push(format!("[{kind}: {}, {}]", or_unknown(field("mimeType")), size_of_base64(field("data"))));
            }
            "resource_link" => parts.push(format!("[resource link: {}]", field("uri"))),
            "resource" => {
                let resource = block.get("resource").unwrap_or(&Value::Null);
                let text_of = |key: &str| resource.get(key).and_then(Value::as_str);
                let uri = text_of("uri").unwrap_or("");
                match (text_of("text"), text_of("blob")) {
                    (Some(text), _) => {
                        has_text = true;
                        parts.push(format!("[resource: {uri}]\n{text}"));
                    }
                    (None, blob) => {
                        placeholders += 1;
                        let mime = or_unknown(text_of("mimeType").unwrap_or(""));
                        parts.push(format!("[resource: {uri}, {mime}, {}]", size_of_base64(blob.unwrap_or(""))));
                    }
                }
            }
            other => parts.push(format!("[{} content]", or_unknown(other))),
        }
    }
    if !has_text && let Some(structured) = result.get("structuredContent").filter(|value| !value.is_null()) {
        parts.insert(0, structured.to_string());
    }
    let is_error = result.get("isError") == Some(&Value::Bool(true));
    Rendered { text: parts.join("\n"), is_error, placeholders, images }
}

/// A server's base64 image as the model may receive it: bytes of a known format (the
/// server's `mimeType` is not trusted) within the limits; None otherwise.
fn sendable_image(data: &str, tool: &str) -> Option<Image> {
    let bytes = crate::image::base64_decode(data)?;
    let facts = crate::image::inspect(&bytes)?;
    if crate::image::check_limits(&facts).is_some() {
        return None;
    }
    Some(Image {
        media_type: facts.format.media_type().to_string(),
        data: crate::image::base64_encode(&bytes).into(),
        size_px: facts.size_px,
        source: tool.to_string(),
    })
}

fn or_unknown(text: &str) -> &str {
    if text.is_empty() { "unknown" } else { text }
}

/// The decoded size of base64 `data`, as people read it (`68 B`, `12 KB`, `3.4 MB`).
fn size_of_base64(data: &str) -> String {
    let trimmed = data.trim_end_matches('=');
    let bytes = trimmed.len() * 3 / 4;
    match bytes {
        0..1024 => format!("{bytes} B"),
        1024..1_048_576 => format!("{} KB", (bytes + 512) / 1024),
        _ => format!("{:.1} MB", bytes as f64 / 1_048_576.0),
    }
}

#[cfg(test)]
#[path = "tool_tests.rs"]
mod tests;
