//! Layer 2 (SPEC §6): summarise the older part of the conversation with the same provider, then
//! rebuild the history as [summary + recovery attachment] + the recent tail.
//!
//! Invariant: the rebuilt history is a valid request for both protocols — it starts with a user
//! message, alternates, and never starts the tail between a tool call and its results; the
//! latest user message is always in it verbatim (restated after the summary when the tail starts
//! later), and a history that ended with an answer still does. The summary request is a separate
//! one-message conversation sized to the window (`Limits`): its transcript is cut to fit from the
//! start, its usage never moves the anchor, and when it is still too long the oldest user turns
//! are dropped (one at a time three times, then 20 % per try) until it fits or nothing is left.
//! Decisions (tail, transcript cuts, drop schedule, extraction) are pure; `summarize` and
//! `load_recovery_files` are the IO.

use super::{Limits, message_chars, tokens_for_chars};
use crate::cancel::CancelToken;
use crate::llm::{LlmError, Provider, StreamEvent};
use crate::msg::{Message, Request, Role, System, ToolDefinition, Usage};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The tail keeps at least this many tokens...
pub(crate) const RECENT_KEEP_TOKENS: u64 = 10_000;
/// ...and at least this many messages.
pub(crate) const RECENT_KEEP_MESSAGES: usize = 5;
/// Recently read files re-read into the recovery attachment.
pub(crate) const RECOVERY_FILES: usize = 5;
/// Token cap per recovered file.
pub(crate) const RECOVERY_TOKENS_PER_FILE: u64 = 5_000;
/// Summary-request retries that drop one user turn each before dropping 20 % per try.
const SINGLE_DROP_RETRIES: u32 = 3;
/// The fraction of user turns dropped per retry after the single drops.
const DROP_FRACTION: f64 = 0.2;

const SUMMARIZER_SYSTEM: &str = "You summarise coding-agent conversations so the work can continue \
from the summary alone. You never call tools.";

/// The analysis-then-summary instructions with the nine fixed sections (from the seed).
pub(crate) const SUMMARY_PROMPT: &str = "\
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
const BOUNDARY_NOTICE: &str = "\
## Important
The summary above only gives the context. If you need a file's full content, an exact error \
message or the user's exact words, read the file again with read_file. Do not infer or guess code \
from the summary's descriptions.";

/// Where the recent tail starts before any budget: walking back from the end until it holds at
/// least `limits.tail_keep_tokens` tokens and `limits.tail_keep_messages` messages, then further
/// back while the start is a tool message, so a tool round is never split. 0 means everything is
/// tail.
fn select_tail_start(messages: &[Message], limits: &Limits) -> usize {
    let mut start = messages.len();
    let mut tokens = 0;
    while start > 0 && (tokens < limits.tail_keep_tokens || messages.len() - start < limits.tail_keep_messages) {
        start -= 1;
        tokens += tokens_for_chars(message_chars(&messages[start]));
    }
    while start > 0 && messages.get(start).is_some_and(|message| message.role == Role::Tool) {
        start -= 1;
    }
    start
}

/// The part of a conversation a compaction keeps verbatim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tail {
    /// `messages[start..]` stay as they are; `messages[..start]` are summarised.
    pub start: usize,
    /// The latest user message, when it is among the summarised ones: it is restated verbatim
    /// right after the summary (it is the task; a summary is not authoritative).
    pub restated: Option<usize>,
}

/// Chooses the tail: `select_tail_start`, then later starts (never on a tool message) while the
/// tail is over `limits.tail_budget`, down to no message at all; the latest user message is then
/// restated. When that would summarise nothing but the restated message, the tail shrinks further
/// so a compaction always gains something. A conversation that ends with an answer keeps it
/// (the next user message must follow an assistant one). None: there is nothing to summarise
/// (only the latest user message and its answer).
pub(crate) fn plan_tail(messages: &[Message], limits: &Limits) -> Option<Tail> {
    let len = messages.len();
    let last_start = if messages.last().is_some_and(|message| message.role == Role::Assistant) { len - 1 } else { len };
    let next_cut =
        |from: usize| (from + 1..=last_start).find(|index| *index == len || messages[*index].role != Role::Tool);
    let mut start = select_tail_start(messages, limits).min(last_start);
    let mut tail_tokens: u64 = messages[start..].iter().map(|message| tokens_for_chars(message_chars(message))).sum();
    while tail_tokens > limits.tail_budget {
        let Some(next) = next_cut(start) else { break };
        tail_tokens -=
            messages[start..next].iter().map(|message| tokens_for_chars(message_chars(message))).sum::<u64>();
        start = next;
    }
    let latest_user = messages.iter().rposition(|message| message.role == Role::User);
    loop {
        let restated = latest_user.filter(|index| *index < start);
        if start > usize::from(restated.is_some()) {
            return Some(Tail { start, restated });
        }
        start = next_cut(start)?;
    }
}

/// The messages kept after the summary: the restated latest user message, then the tail.
pub(crate) fn tail_messages(messages: &[Message], tail: Tail) -> Vec<Message> {
    let restated = tail.restated.and_then(|index| messages.get(index)).cloned();
    restated.into_iter().chain(messages[tail.start..].iter().cloned()).collect()
}

/// What a compaction keeps: the tail and the recovery attachment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Fit {
    pub tail: Tail,
    pub attachment: String,
    /// Tokens of what is kept besides the summary: the tail (with the restated message) and the
    /// attachment.
    pub kept_tokens: u64,
}

/// Chooses what a compaction keeps so that the result (a summary of at most `max_tokens`, the
/// attachment and the tail) stays under `room` tokens of messages where it can: the planned
/// `tail` (`plan_tail`'s) with the recovery `files`; else without the files; else the tail cut
/// down to the latest user message (and an answer that ends the conversation). The last choice
/// stands when none fits; the caller then says what is too big.
pub(crate) fn plan_fit(
    messages: &[Message],
    tail: Tail,
    limits: &Limits,
    files: &[(String, String)],
    tools: &[ToolDefinition],
    room: u64,
    max_tokens: u32,
) -> Fit {
    let fit = |tail: Tail, attachment: String| {
        let kept: u64 = tail_messages(messages, tail).iter().map(message_chars).sum();
        let kept_tokens = tokens_for_chars(kept + attachment.chars().count() as u64);
        Fit { tail, attachment, kept_tokens }
    };
    let fits = |fit: &Fit| u64::from(max_tokens) + fit.kept_tokens < room;
    let planned = fit(tail, recovery_attachment(files, tools));
    if fits(&planned) {
        return planned;
    }
    let without_files = fit(tail, recovery_attachment(&[], tools));
    if fits(&without_files) {
        return without_files;
    }
    // A budget of nothing: the tail shrinks as far as it can (to the latest user message).
    let tight = Limits { tail_budget: 0, ..*limits };
    let shortest = plan_tail(messages, &tight).unwrap_or(tail);
    fit(shortest, without_files.attachment)
}

/// The start index of each user-turn group (a group runs from one user message to the next;
/// messages before the first user message form a group of their own).
fn user_turn_starts(messages: &[Message]) -> Vec<usize> {
    let mut starts: Vec<usize> =
        messages.iter().enumerate().filter(|(_, message)| message.role == Role::User).map(|(index, _)| index).collect();
    if !messages.is_empty() && starts.first() != Some(&0) {
        starts.insert(0, 0);
    }
    starts
}

/// How many of the oldest `groups` to drop after the summary request's `attempt`-th (0-based)
/// prompt-too-long: one for the first three, then 20 % (at least one).
fn next_drop(attempt: u32, groups: usize) -> usize {
    if attempt < SINGLE_DROP_RETRIES { 1 } else { ((groups as f64 * DROP_FRACTION).ceil() as usize).max(1) }
}

/// The text inside the last complete `<summary>…</summary>` (or after an unclosed `<summary>`);
/// the whole raw text, trimmed, when there is no tag (a summary is better than none).
fn extract_summary(raw: &str) -> String {
    let Some(open) = raw.rfind("<summary>") else { return raw.trim().to_string() };
    let body = &raw[open + "<summary>".len()..];
    let body = body.find("</summary>").map_or(body, |close| &body[..close]);
    body.trim().to_string()
}

/// The conversation as plain text for the summary request, in at most about `max_chars` bytes:
/// a text or tool result longer than a quarter of that keeps only its head, and when the whole is
/// still too long the oldest messages are left out (a note says how many), so the request fits
/// the window from the first try.
fn render_transcript(messages: &[Message], max_chars: usize) -> String {
    let item_cap = (max_chars / 4).max(200);
    let blocks: Vec<String> = messages.iter().map(|message| render_message(message, item_cap)).collect();
    let mut first = blocks.len();
    let mut total = 0;
    while first > 0 && total + blocks[first - 1].len() <= max_chars {
        first -= 1;
        total += blocks[first].len();
    }
    let mut out = String::new();
    if first > 0 {
        out.push_str(&format!(
            "[{first} earlier message(s) left out: the model's context window cannot hold them]\n\n"
        ));
    }
    if first == blocks.len()
        && let Some(last) = blocks.last()
    {
        // The newest message alone is too long: keep its end, the most recent part.
        let mut cut = last.len().saturating_sub(max_chars);
        while !last.is_char_boundary(cut) {
            cut += 1;
        }
        out.push_str(&last[cut..]);
    }
    for block in &blocks[first..] {
        out.push_str(block);
    }
    out
}

/// One message of the transcript, each text cut to `item_cap` bytes. An image is its
/// placeholder (`[image: shot.png, 12 KB]`): the summary request carries no image.
fn render_message(message: &Message, item_cap: usize) -> String {
    let mut out = String::new();
    match message.role {
        Role::User => out.push_str("[user]\n"),
        Role::Assistant => out.push_str("[assistant]\n"),
        Role::Tool => {}
    }
    if !message.content.is_empty() {
        out.push_str(&cut_head(&message.content, item_cap));
        out.push('\n');
    }
    for image in &message.images {
        out.push_str(&image.placeholder());
        out.push('\n');
    }
    for call in &message.tool_calls {
        out.push_str(&format!("[tool call {} {}] {}\n", call.name, call.id, cut_head(&call.input, item_cap)));
    }
    for result in &message.tool_results {
        let error = if result.is_error { " (error)" } else { "" };
        out.push_str(&format!(
            "[tool result {}{error}]\n{}\n",
            result.tool_call_id,
            cut_head(&result.content, item_cap)
        ));
        for image in &result.images {
            out.push_str(&image.placeholder());
            out.push('\n');
        }
    }
    out.push('\n');
    out
}

/// `text` cut to its first `max` bytes (at a character boundary), with a note of what was cut.
fn cut_head(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if text.len() <= max {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut cut = max;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    std::borrow::Cow::Owned(format!(
        "{}\n[… {} more bytes cut to fit the summary request]",
        &text[..cut],
        text.len() - cut
    ))
}

/// Characters of a summary request besides the transcript: the instructions and the framing.
pub(crate) fn fixed_request_chars() -> usize {
    SUMMARIZER_SYSTEM.len() + SUMMARY_PROMPT.len() + length_note(u32::MAX).len() + 200
}

/// The sentence that keeps the summary within its output cap.
fn length_note(max_tokens: u32) -> String {
    format!(
        "\n\nYour whole answer, the analysis included, must fit in {max_tokens} tokens: keep the analysis to a \
         few lines and the summary to what the work needs."
    )
}

/// The summary request for `messages`: one user message, no tools, the transcript within
/// `transcript_chars` (see `render_transcript`).
pub(crate) fn summary_request(messages: &[Message], max_tokens: u32, transcript_chars: usize) -> Request {
    let text = format!(
        "<conversation>\n{}</conversation>\n\n{SUMMARY_PROMPT}{}",
        render_transcript(messages, transcript_chars),
        length_note(max_tokens)
    );
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
pub(crate) enum SummaryError {
    /// There is nothing to summarise: only the latest user message (and its answer).
    TooShort,
    /// What would be summarised (`older` tokens) is no bigger than what a summary adds.
    NothingToGain { older: u64 },
    /// The part a compaction must keep (`kept` tokens: the latest message, the attachment) and
    /// the fixed part (`overhead`) leave no room for a summary in the `window`.
    NoRoom { overhead: u64, kept: u64, window: u64 },
    /// The summary was made, but the conversation it would give is no smaller than the one it
    /// replaces (tokens before and after); the conversation is kept as it was.
    WouldGrow { before: u64, after: u64 },
    /// The conversation cannot fit the window whatever is summarised: why, and what to do.
    DoesNotFit(String),
    /// Even with every older user turn dropped and the last one cut short, the summary request
    /// was too long.
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
            SummaryError::NothingToGain { older } => write!(
                f,
                "nothing to gain: the part that would be summarised is only about {older} tokens, no more than a \
                 summary adds"
            ),
            SummaryError::NoRoom { overhead, kept, window } => write!(
                f,
                "no room for a summary: the system prompt and tools take about {overhead} tokens and what must be \
                 kept (the latest message, always kept) about {kept}, of a {window}-token context window; raise \
                 context_window to the model's real context size, or save long text to a file and ask for it to be \
                 read in parts"
            ),
            SummaryError::WouldGrow { before, after } => write!(
                f,
                "the summary would not make the conversation smaller (about {before} tokens of messages now, {after} \
                 after), so it was kept as it is"
            ),
            SummaryError::DoesNotFit(reason) => write!(f, "{reason}"),
            SummaryError::NothingLeft => {
                write!(f, "the summary request is too long even with every turn dropped and the last one cut short")
            }
            SummaryError::Empty => write!(f, "the model returned an empty summary"),
            SummaryError::Llm(err) => write!(f, "the summary request failed: {err}"),
        }
    }
}

/// The smallest transcript a summary request is tried with before giving up.
const MIN_TRANSCRIPT_CHARS: usize = 512;
/// Characters any summary takes at least (a few lines under its nine headings): a part smaller
/// than this plus the recovery attachment is not worth a summary request.
pub(crate) const MIN_SUMMARY_CHARS: u64 = 400;
/// The smallest output a summary request is given: less is no summary.
pub(crate) const MIN_SUMMARY_TOKENS: u64 = 128;

/// A summary the model wrote, and what its request cost.
#[derive(Debug)]
pub(crate) struct Made {
    pub text: String,
    /// The summary request's usage: the server's, or estimated from characters when it sent none.
    pub usage: Usage,
    pub estimated: bool,
}

/// Summarises `messages` with `provider` (output cap `max_tokens`, transcript within
/// `transcript_chars`). On prompt-too-long the oldest user turns are dropped (SPEC's schedule);
/// once a single turn is left — a 3-message conversation in a small window, or text that
/// tokenises far worse than 3.5 characters a token — its transcript is halved instead, down to
/// `MIN_TRANSCRIPT_CHARS`, so the estimate's error cannot make the summary impossible.
pub(crate) fn summarize(
    provider: &dyn Provider,
    messages: &[Message],
    max_tokens: u32,
    transcript_chars: usize,
    cancel: &CancelToken,
) -> Result<Made, SummaryError> {
    let starts = user_turn_starts(messages);
    let mut first_group = 0;
    let mut attempt = 0;
    let mut cap = transcript_chars;
    loop {
        let from = starts.get(first_group).copied().unwrap_or(messages.len());
        let request = summary_request(&messages[from..], max_tokens, cap);
        let request_chars = request.messages.iter().map(message_chars).sum::<u64>() + SUMMARIZER_SYSTEM.len() as u64;
        match collect_text(provider, request, cancel) {
            Ok((raw, usage)) => {
                let estimated = usage.total() == 0;
                let usage = if estimated {
                    Usage {
                        input_tokens: tokens_for_chars(request_chars),
                        output_tokens: tokens_for_chars(raw.chars().count() as u64),
                        ..Usage::default()
                    }
                } else {
                    usage
                };
                let text = extract_summary(&raw);
                return if text.is_empty() { Err(SummaryError::Empty) } else { Ok(Made { text, usage, estimated }) };
            }
            Err(LlmError::PromptTooLong { .. }) => {
                let groups_left = starts.len().saturating_sub(first_group);
                if groups_left > 1 {
                    first_group += next_drop(attempt, groups_left).min(groups_left - 1);
                } else {
                    let sent = render_transcript(&messages[from..], cap).len();
                    if sent <= MIN_TRANSCRIPT_CHARS {
                        return Err(SummaryError::NothingLeft);
                    }
                    cap = (sent / 2).max(MIN_TRANSCRIPT_CHARS);
                }
                attempt += 1;
            }
            Err(err) => return Err(SummaryError::Llm(err)),
        }
    }
}

/// Streams one request and returns its text (a restarted attempt's partial text is dropped)
/// and the usage the server reported (zero when it sent none).
fn collect_text(provider: &dyn Provider, request: Request, cancel: &CancelToken) -> Result<(String, Usage), LlmError> {
    let stream = provider.stream(request, cancel.clone());
    let mut text = String::new();
    let mut usage = Usage::default();
    loop {
        match stream.recv_timeout(Duration::from_millis(25)) {
            Ok(StreamEvent::Text(delta)) => text.push_str(&delta),
            Ok(StreamEvent::Restart { .. }) => text.clear(),
            Ok(StreamEvent::Usage(reported)) => usage = reported,
            Ok(StreamEvent::Thinking(_) | StreamEvent::ToolCalls(_) | StreamEvent::Retry(_)) => {}
            Ok(StreamEvent::Done(_)) => return Ok((text, usage)),
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
/// `limits.recovery_per_file` tokens and all together to `limits.recovery_total`; unreadable files
/// are skipped. Paths are shown relative to `root` when inside it.
pub(crate) fn load_recovery_files(recent_last: &[PathBuf], root: &Path, limits: &Limits) -> Vec<(String, String)> {
    let to_chars = |tokens: u64| (tokens as f64 * super::CHARS_PER_TOKEN) as usize;
    let mut left = to_chars(limits.recovery_total);
    let mut files = Vec::new();
    for path in recent_last.iter().rev().take(RECOVERY_FILES) {
        let max_chars = left.min(to_chars(limits.recovery_per_file));
        if max_chars == 0 {
            break;
        }
        let Ok(bytes) = std::fs::read(path) else { continue };
        let text = String::from_utf8_lossy(&bytes);
        let mut content: String = text.chars().take(max_chars).collect();
        left -= content.chars().count();
        if content.len() < text.len() {
            let tokens = tokens_for_chars(max_chars as u64);
            content.push_str(&format!("\n… (cut at {tokens} tokens; read the file for the rest)"));
        }
        files.push((crate::fsx::display_path(root, path), content));
    }
    files
}

/// The files the `read_file` calls in `messages` read, resolved against `root` as the tool
/// resolves them: their content is in those messages already.
pub(crate) fn files_read_in(messages: &[Message], root: &Path) -> Vec<PathBuf> {
    let path_of = |input: &str| -> Option<PathBuf> {
        let input: serde_json::Value = serde_json::from_str(input).ok()?;
        Some(crate::fsx::resolve_path(root, input.get("path")?.as_str()?))
    };
    let calls = messages.iter().flat_map(|message| &message.tool_calls);
    calls.filter(|call| call.name == crate::tools::READ_FILE.name).filter_map(|call| path_of(&call.input)).collect()
}

/// Characters of a tool's description in the attachment's list (an MCP tool's first sentence
/// can be a page).
const TOOL_LINE_CHARS: usize = 120;

/// The recovery attachment: the re-read files, the current tools and the boundary notice.
pub(crate) fn recovery_attachment(files: &[(String, String)], tools: &[ToolDefinition]) -> String {
    let mut out = String::from("## Recently read files\n");
    if files.is_empty() {
        out.push_str("(none)\n");
    }
    for (path, content) in files {
        out.push_str(&format!("### {path}\n```\n{}\n```\n", content.trim_end_matches('\n')));
    }
    out.push_str("\n## Available tools\n");
    for tool in tools {
        // The lean form's first sentence (`tools::lean`), without its full stop.
        let sentence = crate::tools::lean::first_sentence(&tool.description, TOOL_LINE_CHARS);
        let sentence = if sentence.ends_with("...") { &sentence } else { sentence.trim_end_matches('.') };
        out.push_str(&format!("- {}: {sentence}\n", tool.name));
    }
    out.push('\n');
    out.push_str(BOUNDARY_NOTICE);
    out
}

/// The compacted history: a user message with the summary and the attachment, then the tail.
/// A tail that starts with a user message gets the summary in front of that message's text, so
/// roles still alternate.
pub(crate) fn build_history(summary: &str, attachment: &str, tail: &[Message]) -> Vec<Message> {
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

#[cfg(test)]
#[path = "summary_tests.rs"]
mod tests;
