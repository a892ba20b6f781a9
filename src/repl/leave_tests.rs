//! Tests of `leave.rs`.

use super::*;
use crate::msg::{ToolCall, ToolResult};

#[test]
fn the_last_round_of_results_is_shown_under_its_calls() {
    let mut asked = Message::assistant("");
    asked.tool_calls = vec![ToolCall { id: "c1".into(), name: "bash".into(), input: r#"{"command":"ls"}"#.into() }];
    let results = Message::tool_results(vec![
        ToolResult { tool_call_id: "c1".into(), content: "a\nb".into(), is_error: false, images: Vec::new() },
        ToolResult { tool_call_id: "lost".into(), content: "x".into(), is_error: true, images: Vec::new() },
    ]);
    let history = vec![Message::user("hi"), asked, results, Message::assistant("done")];
    let shown = last_outputs(&history).unwrap();
    assert_eq!(shown[0], ("bash(ls)".to_string(), "a\nb".to_string(), false));
    assert_eq!(shown[1], ("lost".to_string(), "x".to_string(), true));
    assert_eq!(last_outputs(&[Message::user("hi")]), None);
}

#[test]
fn the_editor_edits_the_line_and_a_failing_editor_changes_nothing() {
    let edited = run_editor("sed -i 's/draft/final/'", "my draft").unwrap();
    assert_eq!(edited, "my final");
    let failed = run_editor("false", "kept").unwrap_err();
    assert!(failed.contains("exited with"), "{failed}");
    let missing = run_editor("/nonexistent/editor", "kept").unwrap_err();
    assert!(missing.contains("exited with"), "{missing}");
}
