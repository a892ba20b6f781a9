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
            ToolResult { tool_call_id: "c1".into(), content: "ok".into(), is_error: false, images: Vec::new() },
            ToolResult {
                tool_call_id: "c2".into(),
                content: "denied by user: no".into(),
                is_error: true,
                images: Vec::new(),
            },
        ]),
        Message::user(""),
        Message::user_with_images("look", vec![image(Some((2, 3)))]),
        Message::tool_results(vec![ToolResult {
            images: vec![image(None)],
            ..ToolResult::text("c3", "image: a.png", false)
        }]),
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
    // 136 since messages carry images (one more Vec).
    assert!(std::mem::size_of::<Line>() <= 136, "{}", std::mem::size_of::<Line>());
}

fn image(size_px: Option<(u32, u32)>) -> Image {
    Image { media_type: "image/png".into(), data: "iVBORw0KGgo=".into(), size_px, source: "a.png".into() }
}

#[test]
fn a_message_without_images_is_logged_as_before_and_an_older_line_loads() {
    let line = render_message(&Message::user("hi"), 1, None);
    assert!(!line.contains("images"), "{line}");
    let older = r#"{"role":"tool","content":"","tool_results":[{"tool_call_id":"c","content":"x"}],"ts":3}"#;
    let Some(Line::Message { message, .. }) = parse_line(older) else { panic!("{older}") };
    assert_eq!(message.tool_results, [ToolResult::text("c", "x", false)]);
}
