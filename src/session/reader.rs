//! Loading a session log back into a conversation.
//!
//! Invariant: whatever the file holds (a torn last line after `kill -9`, a turn cut between the
//! tool calls and their results, lines from a newer build), `load_log` returns a history that is
//! a valid request for both protocols: it starts with a user message, every assistant tool call is
//! answered by the tool message right after it (ids paired, in call order), and it ends with an
//! assistant message so the next prompt can be appended. The repair is a pure function
//! (`repair_history`) and deterministic, so loading the same file twice gives the same history
//! even after more messages were appended behind a repaired spot. The file is streamed once:
//! linear time, memory for the messages after the last compact marker only.

use super::SessionError;
use super::record::{Line, Meta, parse_line};
use crate::msg::{Message, Role, ToolResult};
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// The assistant message that closes a history which stopped mid-turn.
pub(crate) const INTERRUPTED_NOTE: &str = "(the session was interrupted here)";
/// The result given to a tool call whose result never reached the log.
const MISSING_RESULT: &str = "(no result: the session was interrupted before this tool finished)";

/// A loaded log.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Loaded {
    pub meta: Option<Meta>,
    /// The repaired history after the last compact marker.
    pub messages: Vec<Message>,
    /// The time of the last record, seconds since 1970 (0 when none).
    pub last_ts: u64,
    /// Lines that did not parse (normally 0, or 1 for a torn last line).
    pub skipped_lines: usize,
}

/// Reads and repairs the log at `path`.
pub fn load_log(path: &Path) -> Result<Loaded, SessionError> {
    let file = File::open(path).map_err(|err| SessionError::io(path, err))?;
    read_log(BufReader::with_capacity(1 << 16, file)).map_err(|err| SessionError::io(path, err))
}

/// Reads and repairs a log from any reader (the bytes of `conversation.jsonl`).
fn read_log(mut reader: impl BufRead) -> std::io::Result<Loaded> {
    let mut loaded = Loaded::default();
    let mut messages = Vec::new();
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        let parsed = std::str::from_utf8(&line).ok().map(str::trim).filter(|text| !text.is_empty()).map(parse_line);
        match parsed {
            None => {}
            Some(None) => loaded.skipped_lines += 1,
            Some(Some(Line::Meta(meta))) => loaded.meta = Some(meta),
            Some(Some(Line::Compact { ts })) => {
                messages.clear();
                loaded.last_ts = loaded.last_ts.max(ts);
            }
            Some(Some(Line::Message { message, ts })) => {
                messages.push(message);
                loaded.last_ts = loaded.last_ts.max(ts);
            }
        }
    }
    loaded.messages = repair_history(messages);
    Ok(loaded)
}

/// Reads only the header line of a log (listing): at most `limit` bytes.
pub(crate) fn read_meta(reader: impl Read, limit: u64) -> Option<Meta> {
    let mut first = Vec::new();
    BufReader::new(reader.take(limit)).read_until(b'\n', &mut first).ok()?;
    match parse_line(std::str::from_utf8(&first).ok()?.trim())? {
        Line::Meta(meta) => Some(meta),
        Line::Message { .. } | Line::Compact { .. } => None,
    }
}

/// Makes a logged message sequence a valid history (see the module invariant):
/// - leading messages before the first user message are dropped;
/// - an assistant message with tool calls not followed by a tool message is replaced by
///   `INTERRUPTED_NOTE` (its calls never ran to completion; SPEC §8);
/// - a tool message not right after an assistant with calls is dropped; otherwise its results are
///   put in call order, extras dropped and missing ones filled with an error result;
/// - a history that does not end with an assistant message gets `INTERRUPTED_NOTE`.
///
/// Consecutive user messages are kept: both encoders accept them (Anthropic merges neighbours).
fn repair_history(messages: Vec<Message>) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::with_capacity(messages.len() + 1);
    let mut iter = messages.into_iter().skip_while(|message| message.role != Role::User).peekable();
    while let Some(message) = iter.next() {
        match message.role {
            Role::User => out.push(message),
            Role::Assistant => {
                let answered = iter.peek().is_some_and(|next| next.role == Role::Tool);
                if message.tool_calls.is_empty() || answered {
                    out.push(message);
                } else if out.last().is_some_and(|last| last.role != Role::Assistant) {
                    // The same note a trailing drop gets, so the history a resumed run continued
                    // from is exactly what a later load gives back.
                    out.push(Message::assistant(INTERRUPTED_NOTE));
                }
            }
            Role::Tool => {
                let Some(calls) = out.last().filter(|last| last.role == Role::Assistant).map(|last| &last.tool_calls)
                else {
                    continue;
                };
                if calls.is_empty() {
                    continue;
                }
                let mut by_id: HashMap<String, ToolResult> =
                    message.tool_results.into_iter().map(|result| (result.tool_call_id.clone(), result)).collect();
                let results = calls
                    .iter()
                    .map(|call| {
                        by_id
                            .remove(&call.id)
                            .unwrap_or_else(|| ToolResult::text(call.id.clone(), MISSING_RESULT, true))
                    })
                    .collect();
                out.push(Message::tool_results(results));
            }
        }
    }
    if out.last().is_some_and(|last| last.role != Role::Assistant) {
        out.push(Message::assistant(INTERRUPTED_NOTE));
    }
    out
}

#[cfg(test)]
#[path = "reader_tests.rs"]
mod tests;
