//! Usage the server did not send, and prompts the server cut short. Local servers often send no
//! usage at all (then the response's usage is estimated from characters, with the program's one
//! `context::CHARS_PER_TOKEN`, and marked as estimated so the anchor is never 0), and Ollama at
//! its default window silently drops the start of a prompt that does not fit (then the reported
//! prompt is far smaller than what was sent, and the turn stops with the fix).
//!
//! Invariant: the decisions (`estimate_usage`, `check_truncation`) are pure functions over
//! counts. Counting costs O(new messages) per iteration: a conversation's `PromptMeter` counts
//! each of its messages once (again only when the history is replaced), and the fixed part
//! (system prompt and tool definitions) once per run.

use crate::context::{message_chars, tokens_for_chars};
use crate::msg::{Message, System, ToolDefinition, Usage};

/// Below this estimate (tokens) a low report is not called a truncation: small prompts are
/// where the estimate's relative error is largest and no real server window is that small.
const TRUNCATION_MIN_ESTIMATE: u64 = 2_000;
/// A truncated prompt fills what is left of the server's window, and no server window is
/// smaller than 2 048 tokens; a report below this is something else (a server that leaves
/// cached tokens out of `prompt_tokens` reports only the new part of a prompt).
const TRUNCATION_MIN_REPORTED: u64 = 1_024;

/// Characters of a request's fixed part: the system prompt and the tool definitions (names,
/// descriptions and schemas as JSON text), which every request carries.
pub(crate) fn fixed_chars(system: &System, tools: &[ToolDefinition]) -> u64 {
    let tools: usize = tools
        .iter()
        .map(|tool| tool.name.chars().count() + tool.description.chars().count() + tool.input_schema.to_string().len())
        .sum();
    (system.stable.chars().count() + system.environment.chars().count() + tools) as u64
}

/// The text of a request as a tokenizer should count it: the system prompt, the tool
/// definitions, every message's text, calls, results and reasoning, and the reminder — what the
/// characters of `fixed_chars` and `message_chars` count, joined by newlines.
pub(crate) fn request_text(
    system: &System,
    messages: &[Message],
    tools: &[ToolDefinition],
    reminder: Option<&str>,
) -> String {
    let mut parts: Vec<String> = vec![system.stable.clone(), system.environment.clone()];
    for tool in tools {
        parts.push(format!("{}\n{}\n{}", tool.name, tool.description, tool.input_schema));
    }
    for message in messages {
        parts.push(message.content.clone());
        parts.extend(message.tool_calls.iter().map(|call| format!("{}\n{}", call.name, call.input)));
        parts.extend(message.tool_results.iter().map(|result| result.content.clone()));
        parts.extend(message.thinking.iter().map(|block| match block {
            crate::msg::ThinkingBlock::Signed { text, .. } => text.clone(),
            crate::msg::ThinkingBlock::Redacted { data } => data.clone(),
        }));
    }
    parts.extend(reminder.map(str::to_string));
    parts.retain(|part| !part.is_empty());
    parts.join("\n")
}

/// Counts the characters of a conversation's requests incrementally, across its runs: only the
/// messages appended since the last request are counted. A replaced history (compaction:
/// shorter, or another first message) is counted again from scratch. Each conversation has its
/// own (`Conversation::meter`), so another conversation can never pass for this one.
#[derive(Clone, Debug, Default)]
pub(crate) struct PromptMeter {
    counted_len: usize,
    first_chars: Option<u64>,
    chars: u64,
}

impl PromptMeter {
    /// Characters of `messages` (the conversation's history as a request carries it), counting
    /// only what is new since the last call.
    pub(crate) fn message_chars(&mut self, messages: &[Message]) -> u64 {
        let first = messages.first().map(message_chars);
        if messages.len() < self.counted_len || first != self.first_chars {
            *self = PromptMeter { counted_len: 0, first_chars: first, chars: 0 };
        }
        for message in messages.get(self.counted_len..).unwrap_or_default() {
            self.chars += message_chars(message);
        }
        self.counted_len = messages.len();
        self.chars
    }
}

/// The usage of a response the server sent none for: the prompt's and the output's characters
/// over `CHARS_PER_TOKEN`. Never 0 for a real request, so the context anchor moves.
pub(crate) fn estimate_usage(prompt_chars: u64, output_chars: u64) -> Usage {
    Usage {
        input_tokens: tokens_for_chars(prompt_chars),
        output_tokens: tokens_for_chars(output_chars),
        cache_write: 0,
        cache_read: 0,
    }
}

/// True when the server sent no usage, or one that counts nothing (some send zeros).
pub(crate) fn is_missing(usage: &Usage) -> bool {
    usage.total() == 0
}

/// The prompt side of a usage: what the server says it read.
pub(crate) fn reported_prompt(usage: &Usage) -> u64 {
    usage.input_tokens + usage.cache_write + usage.cache_read
}

/// A prompt the server reported as far smaller than what was sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Truncation {
    pub reported: u64,
    pub estimated: u64,
}

/// Whether a reported prompt means the server cut it: the estimate is at least
/// `TRUNCATION_MIN_ESTIMATE`, the report at least `TRUNCATION_MIN_REPORTED`, and the report
/// under half the estimate. The estimate (3.5 characters per token) overshoots prose and code
/// by 10–30 % and undershoots CJK text, so an honest report never falls under half of it;
/// a silently truncated one does, by the size of what was dropped.
pub(crate) fn check_truncation(reported: u64, estimated: u64) -> Option<Truncation> {
    let truncated =
        estimated >= TRUNCATION_MIN_ESTIMATE && reported >= TRUNCATION_MIN_REPORTED && reported * 2 < estimated;
    truncated.then_some(Truncation { reported, estimated })
}

impl Truncation {
    /// The error shown when the turn stops: what happened and how to fix it.
    pub(crate) fn message(&self, provider: &str) -> String {
        format!(
            "the server read only {} prompt tokens of about {} sent: it cut the prompt to fit a smaller context \
             window (Ollama does this silently at its default num_ctx), so the model saw a partial conversation \
             and this turn was stopped. Fix: give the server a larger window (Ollama: start it with \
             OLLAMA_CONTEXT_LENGTH=32768, or create a model with `PARAMETER num_ctx 32768`; llama.cpp: -c; vLLM: \
             --max-model-len) and set context_window of provider {provider} to it, or lower that context_window \
             to the server's window so mewcode compacts before the server cuts",
            self.reported, self.estimated
        )
    }
}

#[cfg(test)]
#[path = "usage_tests.rs"]
mod tests;
