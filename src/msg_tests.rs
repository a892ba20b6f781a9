//! Unit tests of `msg.rs`: the size of the message types every layer passes around, and which
//! call a tool result answers.

use super::*;

#[test]
fn message_types_stay_small() {
    // A message is copied into the history, the session log and every request: a fat new field
    // or variant must be a decision, not an accident.
    assert!(std::mem::size_of::<Message>() <= 104);
    assert!(std::mem::size_of::<ToolCall>() <= 72);
    assert!(std::mem::size_of::<ToolResult>() <= 56);
    assert!(std::mem::size_of::<ThinkingBlock>() <= 48);
}

#[test]
fn a_result_answers_the_call_of_the_nearest_assistant_message_before_it() {
    let call = |id: &str, name: &str| ToolCall { id: id.into(), name: name.into(), input: "{}".into() };
    let result = |id: &str| ToolResult { tool_call_id: id.into(), content: String::new(), is_error: false };
    let mut first = Message::assistant("");
    first.tool_calls = vec![call("c1", "grep")];
    let mut second = Message::assistant("");
    second.tool_calls = vec![call("c1", "read_file"), call("c2", "glob")];
    let history =
        vec![Message::user("go"), first, Message::tool_results(vec![result("c1")]), second, Message::user("x")];
    assert_eq!(call_answered(&history, 2, &result("c1")).map(|call| call.name.as_str()), Some("grep"));
    assert_eq!(call_answered(&history, 4, &result("c1")).map(|call| call.name.as_str()), Some("read_file"));
    assert_eq!(call_answered(&history, 4, &result("c9")), None);
    assert_eq!(call_answered(&history, 0, &result("c1")), None);
}
