//! Layer 2 (SPEC §6): summarise the older part of the conversation with the same provider, then
//! rebuild the history as [summary + recovery attachment] + the recent tail.
//!
//! Invariant: the rebuilt history is a valid request for both protocols — it starts with a user
//! message, alternates, and never starts the tail between a tool call and its results. The
//! summary request is a separate one-message conversation: its usage never moves the anchor, and
//! when it is itself too long the oldest user turns are dropped (one at a time three times, then
//! 20 % per try) until it fits or nothing is left. Decisions (tail, drop schedule, extraction)
//! are pure; `summarize` and `load_recovery_files` are the IO.

use super::{message_chars, tokens_for_chars};
use crate::cancel::CancelToken;
use crate::llm::{LlmError, Provider, StreamEvent};
use crate::msg::{Message, Request, Role, System, ToolDefinition};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The tail keeps at least this many tokens...
pub const RECENT_KEEP_TOKENS: u64 = 10_000;
/// ...and at least this many messages.
pub const RECENT_KEEP_MESSAGES: usize = 5;
/// Recently read files re-read into the recovery attachment.
pub const RECOVERY_FILES: usize = 5;
/// Token cap per recovered file.
pub const RECOVERY_TOKENS_PER_FILE: u64 = 5_000;
/// Summary-request retries that drop one user turn each before dropping 20 % per try.
pub const SINGLE_DROP_RETRIES: u32 = 3;
/// The fraction of user turns dropped per retry after the single drops.
pub const DROP_FRACTION: f64 = 0.2;

const SUMMARIZER_SYSTEM: &str = "You summarise coding-agent conversations so the work can continue \
from the summary alone. You never call tools.";

/// The analysis-then-summary instructions with the nine fixed sections (from the seed).
pub const SUMMARY_PROMPT: &str = "\
Your task is to summarise the conversation above so that the work can continue without it.

## Phase 1: Analysis (will be discarded)
Write your analysis draft inside <analysis> tags. Think through:
- What was the user trying to accomplish?
- What key decisions were made?
- What files were modified or read?
- What errors were encountered and how were they fixed?
- What is the current state of work?

## Phase 2: Formal Summary (will be kept)
Write the formal summary inside <summary> tags. Follow these 9 sections exactly, in this order:

## 1 Primary request and intent
## 2 Key technical concepts
## 3 Files and code sections
## 4 Errors and fixes
## 5 Problem solving
## 6 All user messages, verbatim
## 7 Pending tasks
## 8 Current work (the most detailed section)
## 9 Possible next step

Write the whole summary, the section headings included, in the language the user writes in. For \
a user who writes Chinese the headings are: ## 1 主要请求和意图, ## 2 关键技术概念, ## 3 文件和代码段, \
## 4 错误和修复, ## 5 问题解决过程, ## 6 所有用户消息原文, ## 7 待办任务, ## 8 当前工作（最详细）, \
## 9 可能的下一步. Section 6 quotes every user message word for word. Do not call any tool.";

/// The notice that ends the recovery attachment: the summary is not authoritative.
pub const BOUNDARY_NOTICE: &str = "\
## Important
The summary above only gives the context. If you need a file's full content, an exact error \
message or the user's exact words, read the file again with read_file. Do not infer or guess code \
from the summary's descriptions.";

/// Where the recent tail starts: walking back from the end until it holds at least
/// `RECENT_KEEP_TOKENS` tokens and `RECENT_KEEP_MESSAGES` messages, then further back while the
/// start is a tool message, so a tool round is never split. 0 means everything is tail.
pub fn select_tail_start(messages: &[Message]) -> usize {
    let mut start = messages.len();
    let mut tokens = 0;
    while start > 0 && (tokens < RECENT_KEEP_TOKENS || messages.len() - start < RECENT_KEEP_MESSAGES) {
        start -= 1;
        tokens += tokens_for_chars(message_chars(&messages[start]));
    }
    while start > 0 && messages[start].role == Role::Tool {
        start -= 1;
    }
    start
}

/// The start index of each user-turn group (a group runs from one user message to the next;
/// messages before the first user message form a group of their own).
pub fn user_turn_starts(messages: &[Message]) -> Vec<usize> {
    let mut starts: Vec<usize> =
        messages.iter().enumerate().filter(|(_, message)| message.role == Role::User).map(|(index, _)| index).collect();
    if !messages.is_empty() && starts.first() != Some(&0) {
        starts.insert(0, 0);
    }
    starts
}

/// How many of the oldest `groups` to drop after the summary request's `attempt`-th (0-based)
/// prompt-too-long: one for the first three, then 20 % (at least one).
pub fn next_drop(attempt: u32, groups: usize) -> usize {
    if attempt < SINGLE_DROP_RETRIES { 1 } else { ((groups as f64 * DROP_FRACTION).ceil() as usize).max(1) }
}

/// The text inside the last complete `<summary>…</summary>` (or after an unclosed `<summary>`);
/// the whole raw text, trimmed, when there is no tag (a summary is better than none).
pub fn extract_summary(raw: &str) -> String {
    let Some(open) = raw.rfind("<summary>") else { return raw.trim().to_string() };
    let body = &raw[open + "<summary>".len()..];
    let body = body.find("</summary>").map_or(body, |close| &body[..close]);
    body.trim().to_string()
}

/// The conversation as plain text for the summary request.
pub fn render_transcript(messages: &[Message]) -> String {
    let mut out = String::new();
    for message in messages {
        match message.role {
            Role::User => out.push_str("[user]\n"),
            Role::Assistant => out.push_str("[assistant]\n"),
            Role::Tool => {}
        }
        if !message.content.is_empty() {
            out.push_str(&message.content);
            out.push('\n');
        }
        for call in &message.tool_calls {
            out.push_str(&format!("[tool call {} {}] {}\n", call.name, call.id, call.input));
        }
        for result in &message.tool_results {
            let error = if result.is_error { " (error)" } else { "" };
            out.push_str(&format!("[tool result {}{error}]\n{}\n", result.tool_call_id, result.content));
        }
        out.push('\n');
    }
    out
}

/// The summary request for `messages`: one user message, no tools.
pub fn summary_request(messages: &[Message], max_tokens: u32) -> Request {
    let text = format!("<conversation>\n{}</conversation>\n\n{SUMMARY_PROMPT}", render_transcript(messages));
    Request {
        system: System { stable: SUMMARIZER_SYSTEM.to_string(), environment: String::new() },
        messages: Arc::new(vec![Message::user(text)]),
        tools: Vec::new(),
        reminder: None,
        max_tokens,
    }
}

/// Why a summary could not be made.
#[derive(Debug)]
pub enum SummaryError {
    /// The conversation is all tail: there is nothing older to summarise.
    TooShort,
    /// Even with every user turn dropped, the summary request was too long.
    NothingLeft,
    /// The model answered with no text.
    Empty,
    /// The request failed (including `LlmError::Cancelled`).
    Llm(LlmError),
}

impl std::fmt::Display for SummaryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SummaryError::TooShort => write!(f, "the conversation is too short to compact"),
            SummaryError::NothingLeft => write!(f, "the summary request is too long even with every turn dropped"),
            SummaryError::Empty => write!(f, "the model returned an empty summary"),
            SummaryError::Llm(err) => write!(f, "the summary request failed: {err}"),
        }
    }
}

/// Summarises `messages` with `provider`, dropping the oldest user turns on prompt-too-long.
pub fn summarize(
    provider: &dyn Provider,
    messages: &[Message],
    max_tokens: u32,
    cancel: &CancelToken,
) -> Result<String, SummaryError> {
    let starts = user_turn_starts(messages);
    let mut first_group = 0;
    let mut attempt = 0;
    loop {
        let from = starts.get(first_group).copied().unwrap_or(messages.len());
        match collect_text(provider, summary_request(&messages[from..], max_tokens), cancel) {
            Ok(raw) => {
                let summary = extract_summary(&raw);
                return if summary.is_empty() { Err(SummaryError::Empty) } else { Ok(summary) };
            }
            Err(LlmError::PromptTooLong { .. }) => {
                first_group += next_drop(attempt, starts.len() - first_group);
                attempt += 1;
                if first_group >= starts.len() {
                    return Err(SummaryError::NothingLeft);
                }
            }
            Err(err) => return Err(SummaryError::Llm(err)),
        }
    }
}

/// Streams one request and returns its text (a restarted attempt's partial text is dropped).
fn collect_text(provider: &dyn Provider, request: Request, cancel: &CancelToken) -> Result<String, LlmError> {
    let stream = provider.stream(request, cancel.clone());
    let mut text = String::new();
    loop {
        match stream.recv_timeout(Duration::from_millis(25)) {
            Ok(StreamEvent::Text(delta)) => text.push_str(&delta),
            Ok(StreamEvent::Restart { .. }) => text.clear(),
            Ok(StreamEvent::Thinking(_) | StreamEvent::ToolCalls(_) | StreamEvent::Usage(_)) => {}
            Ok(StreamEvent::Done(_)) => return Ok(text),
            Ok(StreamEvent::Error(err)) => return Err(err),
            Err(crossbeam_channel::RecvTimeoutError::Timeout) => {
                if cancel.is_cancelled() {
                    return Err(LlmError::Cancelled);
                }
            }
            Err(crossbeam_channel::RecvTimeoutError::Disconnected) => {
                return Err(LlmError::Protocol { message: "the provider stopped without finishing".to_string() });
            }
        }
    }
}

/// Re-reads up to `RECOVERY_FILES` files now (most recent first), each cut to
/// `RECOVERY_TOKENS_PER_FILE` tokens; unreadable files are skipped. Paths are shown relative to
/// `root` when inside it.
pub fn load_recovery_files(recent_last: &[PathBuf], root: &Path) -> Vec<(String, String)> {
    let max_chars = (RECOVERY_TOKENS_PER_FILE as f64 * super::CHARS_PER_TOKEN) as usize;
    recent_last
        .iter()
        .rev()
        .take(RECOVERY_FILES)
        .filter_map(|path| {
            let bytes = std::fs::read(path).ok()?;
            let text = String::from_utf8_lossy(&bytes);
            let mut content: String = text.chars().take(max_chars).collect();
            if content.len() < text.len() {
                content.push_str("\n… (cut at 5 000 tokens; read the file for the rest)");
            }
            Some((crate::tools::display_path(root, path), content))
        })
        .collect()
}

/// The recovery attachment: the re-read files, the current tools and the boundary notice.
pub fn recovery_attachment(files: &[(String, String)], tools: &[ToolDefinition]) -> String {
    let mut out = String::from("## Recently read files\n");
    if files.is_empty() {
        out.push_str("(none)\n");
    }
    for (path, content) in files {
        out.push_str(&format!("### {path}\n```\n{}\n```\n", content.trim_end_matches('\n')));
    }
    out.push_str("\n## Available tools\n");
    for tool in tools {
        let first_sentence = tool.description.split(". ").next().unwrap_or("").trim_end_matches('.');
        out.push_str(&format!("- {}: {first_sentence}\n", tool.name));
    }
    out.push('\n');
    out.push_str(BOUNDARY_NOTICE);
    out
}

/// The compacted history: a user message with the summary and the attachment, then the tail.
/// A tail that starts with a user message gets the summary in front of that message's text, so
/// roles still alternate.
pub fn build_history(summary: &str, attachment: &str, tail: &[Message]) -> Vec<Message> {
    let block =
        format!("[mewcode] The earlier part of this conversation was compacted. Summary:\n\n{summary}\n\n{attachment}");
    match tail.split_first() {
        Some((first, rest)) if first.role == Role::User => {
            let mut merged = first.clone();
            merged.content = format!("{block}\n\n---\n\n{}", first.content);
            std::iter::once(merged).chain(rest.iter().cloned()).collect()
        }
        _ => std::iter::once(Message::user(block)).chain(tail.iter().cloned()).collect(),
    }
}
