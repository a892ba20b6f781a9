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
                        by_id.remove(&call.id).unwrap_or_else(|| ToolResult {
                            tool_call_id: call.id.clone(),
                            content: MISSING_RESULT.to_string(),
                            is_error: true,
                        })
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
mod tests {
    use super::*;
    use crate::msg::ToolCall;
    use crate::session::record::{render_compact, render_message, render_meta};

    fn calls(ids: &[&str]) -> Message {
        let mut message = Message::assistant("working");
        message.tool_calls =
            ids.iter().map(|id| ToolCall { id: id.to_string(), name: "bash".into(), input: "{}".into() }).collect();
        message
    }

    fn results(ids: &[&str]) -> Message {
        Message::tool_results(
            ids.iter()
                .map(|id| ToolResult { tool_call_id: id.to_string(), content: format!("out {id}"), is_error: false })
                .collect(),
        )
    }

    fn missing(id: &str) -> ToolResult {
        ToolResult { tool_call_id: id.into(), content: MISSING_RESULT.into(), is_error: true }
    }

    fn note() -> Message {
        Message::assistant(INTERRUPTED_NOTE)
    }

    fn log(messages: &[Message]) -> String {
        messages.iter().map(|message| render_message(message, 1, None) + "\n").collect()
    }

    /// (what the file held, the history loading must give)
    fn check(input: Vec<Message>, expected: Vec<Message>) {
        assert_eq!(repair_history(input.clone()), expected);
        // Deterministic and idempotent: repairing a repaired history changes nothing.
        assert_eq!(repair_history(expected.clone()), expected);
        let loaded = read_log(log(&input).as_bytes()).unwrap();
        assert_eq!(loaded.messages, expected);
    }

    #[test]
    fn repairs_leave_a_valid_history() {
        let (user, done) = (Message::user("do it"), Message::assistant("done"));
        // A complete conversation is untouched.
        check(
            vec![user.clone(), calls(&["a"]), results(&["a"]), done.clone()],
            vec![user.clone(), calls(&["a"]), results(&["a"]), done.clone()],
        );
        // Killed after the calls were logged, before their results: the calls go.
        check(vec![user.clone(), calls(&["a"])], vec![user.clone(), note()]);
        // Killed after the results: the history ends with a note.
        check(
            vec![user.clone(), calls(&["a"]), results(&["a"])],
            vec![user.clone(), calls(&["a"]), results(&["a"]), note()],
        );
        // A resumed session appended behind a dropped turn: same repair, more history.
        check(
            vec![user.clone(), calls(&["a"]), Message::user("again"), done.clone()],
            vec![user.clone(), note(), Message::user("again"), done.clone()],
        );
        // Results out of order, one extra, one missing.
        check(
            vec![user.clone(), calls(&["a", "b", "c"]), results(&["c", "x", "a"]), done.clone()],
            vec![
                user.clone(),
                calls(&["a", "b", "c"]),
                Message::tool_results(vec![
                    results(&["a"]).tool_results[0].clone(),
                    missing("b"),
                    results(&["c"]).tool_results[0].clone(),
                ]),
                done.clone(),
            ],
        );
        // Orphan tool messages and a leading assistant are dropped.
        check(vec![done.clone(), results(&["a"]), user.clone(), done.clone()], vec![user.clone(), done.clone()]);
        check(vec![], vec![]);
    }

    #[test]
    fn loading_starts_after_the_last_compact_marker_and_skips_torn_lines() {
        let meta = Meta {
            version: 1,
            id: "20261202-131500-a1b2".into(),
            created: 1,
            title: "t".into(),
            model: "m".into(),
            owner: None,
        };
        let mut text = render_meta(&meta) + "\n";
        text += &log(&[Message::user("old"), Message::assistant("old answer")]);
        text += &(render_compact(5) + "\n");
        text += &log(&[Message::user("summary"), Message::assistant("ok")]);
        text += &(render_compact(6) + "\n");
        text += &log(&[Message::user("newest"), Message::assistant("reply")]);
        text += "\n\u{0}\u{ff}garbage\n";
        text += r#"{"role":"assistant","content":"torn mid-wri"#;
        let loaded = read_log(text.as_bytes()).unwrap();
        assert_eq!(loaded.meta, Some(meta));
        assert_eq!(loaded.messages, vec![Message::user("newest"), Message::assistant("reply")]);
        assert_eq!(loaded.skipped_lines, 2);
        assert_eq!(loaded.last_ts, 6);
    }

    #[test]
    fn read_meta_reads_only_the_header() {
        let meta = Meta { version: 1, id: "x".into(), created: 1, title: "t".into(), model: "m".into(), owner: None };
        let text = render_meta(&meta) + "\n" + &log(&[Message::user("u")]);
        assert_eq!(read_meta(text.as_bytes(), 4096), Some(meta));
        assert_eq!(read_meta(log(&[Message::user("u")]).as_bytes(), 4096), None);
        assert_eq!(read_meta(text.as_bytes(), 10), None);
    }
}
