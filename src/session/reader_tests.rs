//! Unit tests of `reader.rs`: loading repairs, compact markers, torn lines and the header.

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
    Message::tool_results(ids.iter().map(|id| ToolResult::text(id.to_string(), format!("out {id}"), false)).collect())
}

fn missing(id: &str) -> ToolResult {
    ToolResult { tool_call_id: id.into(), content: MISSING_RESULT.into(), is_error: true, images: Vec::new() }
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
