//! Tests of `replay.rs`.

use super::*;
use crate::msg::ToolCall;

fn conversation() -> Vec<Message> {
    let mut asked = Message::assistant("Let me look.");
    asked.tool_calls = vec![ToolCall { id: "c1".into(), name: "bash".into(), input: r#"{"command":"ls"}"#.into() }];
    vec![
        Message::user("list the files\n\n[mewcode: the user ran this shell command themselves: `x`]"),
        asked,
        Message::tool_results(vec![ToolResult {
            tool_call_id: "c1".into(),
            content: "a.txt\nb.txt".into(),
            is_error: false,
            images: Vec::new(),
        }]),
        Message::assistant("There are two files."),
        Message::user("one\ntwo\nthree\nfour\nfive\n\n<mentioned-file path=\"a\">\nsecret\n</mentioned-file>"),
    ]
}

#[test]
fn prompts_answers_and_calls_come_back_in_order_without_what_mewcode_added() {
    let text = replay(&conversation(), false, &crate::glyphs::UNICODE, 80);
    let expected = "\n› list the files\nLet me look.\n● bash ls\n  ⎿ a.txt (+1 lines)\nThere are two files.\n\n› one\n  two\n  three\n  (+2 more lines)\n";
    assert_eq!(text, expected);
}

#[test]
fn only_the_newest_messages_are_replayed_and_model_text_is_neutralised() {
    let mut history: Vec<Message> =
        (0..(REPLAY_MESSAGES + 5)).map(|n| Message::assistant(format!("answer {n}"))).collect();
    history.push(Message::assistant("evil \x1b]0;title\x07 text"));
    let text = replay(&history, false, &crate::glyphs::UNICODE, 80);
    assert!(text.starts_with("(… 6 earlier messages not shown)\n"), "{text}");
    assert!(!text.contains("answer 5\n") && text.contains("answer 6\n"), "{text}");
    assert!(!text.contains('\x1b') && !text.contains('\x07'), "{text:?}");
    let ascii = replay(&conversation(), false, &crate::glyphs::ASCII, 80);
    assert!(ascii.is_ascii() && ascii.contains("> list the files\n"), "{ascii}");
}
