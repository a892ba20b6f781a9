//! Unit tests of `record.rs`: every record shape round-trips and junk is none.

use super::*;

fn call(id: &str) -> ToolCall {
    ToolCall { id: id.into(), name: "read_file".into(), input: r#"{"path":"a.rs","n":1.50}"#.into() }
}

#[test]
fn every_message_shape_round_trips() {
    let mut thinking_turn = Message::assistant("answer");
    thinking_turn.thinking = vec![
        ThinkingBlock::Signed { text: "let me think\n\"quoted\" ✓".into(), signature: "EqQBCkgIARAB+/==".into() },
        ThinkingBlock::Redacted { data: "opaque==".into() },
    ];
    let mut calls_turn = Message::assistant("");
    calls_turn.tool_calls = vec![call("c1"), call("c2")];
    calls_turn.thinking = vec![ThinkingBlock::Signed { text: "t".into(), signature: "s".into() }];
    let cases = vec![
        Message::user("héllo\nworld \u{1b}[31m"),
        Message::assistant("plain"),
        thinking_turn,
        calls_turn,
        Message::tool_results(vec![
            ToolResult { tool_call_id: "c1".into(), content: "ok".into(), is_error: false },
            ToolResult { tool_call_id: "c2".into(), content: "denied by user: no".into(), is_error: true },
        ]),
        Message::user(""),
    ];
    for message in cases {
        let line = render_message(&message, 42, Some("m"));
        assert!(!line.contains('\n'), "{line}");
        assert_eq!(parse_line(&line), Some(Line::Message { message, ts: 42 }));
    }
}

#[test]
fn meta_and_compact_round_trip_and_junk_is_none() {
    let mut meta = Meta {
        version: 1,
        id: "20261202-131500-a1b2".into(),
        created: 7,
        title: "fix".into(),
        model: "m".into(),
        owner: None,
    };
    assert_eq!(parse_line(&render_meta(&meta)), Some(Line::Meta(meta.clone())));
    assert!(!render_meta(&meta).contains("owner"), "older readers see the same header as before");
    meta.owner = Some("ab".repeat(32));
    assert_eq!(parse_line(&render_meta(&meta)), Some(Line::Meta(meta)));
    assert_eq!(parse_line(&render_compact(9)), Some(Line::Compact { ts: 9 }));
    for junk in ["", "{", r#"{"role":"user","content":"to"#, r#"{"type":"future"}"#, r#"{"role":"robot"}"#, "[1]"] {
        assert_eq!(parse_line(junk), None, "{junk}");
    }
}

#[test]
fn a_session_record_stays_small() {
    assert!(std::mem::size_of::<Line>() <= 120);
}
