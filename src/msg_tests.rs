//! Unit tests of `msg.rs`: the size of the message types every layer passes around, and which
//! call a tool result answers.

use super::*;

#[test]
fn message_types_stay_small() {
    // A message is copied into the history, the session log and every request: a fat new field
    // or variant must be a decision, not an accident.
    // Images (issue 33) added one empty Vec to a message and to a result: 24 bytes each, kept
    // inline since a prompt's or a result's images are read on every request.
    assert!(std::mem::size_of::<Message>() <= 128);
    assert!(std::mem::size_of::<ToolCall>() <= 72);
    assert!(std::mem::size_of::<ToolResult>() <= 80);
    assert!(std::mem::size_of::<ThinkingBlock>() <= 48);
}

#[test]
fn a_result_answers_the_call_of_the_nearest_assistant_message_before_it() {
    let call = |id: &str, name: &str| ToolCall { id: id.into(), name: name.into(), input: "{}".into() };
    let result =
        |id: &str| ToolResult { tool_call_id: id.into(), content: String::new(), is_error: false, images: Vec::new() };
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

#[test]
fn an_image_knows_its_decoded_size_and_its_placeholder() {
    let image =
        Image { media_type: "image/png".into(), data: "Zm9vYg==".into(), size_px: None, source: "a.png".into() };
    assert_eq!(image.byte_len(), 4);
    assert_eq!(image.placeholder(), "[image: a.png, 4 B]");
    let mut message = Message::user_with_images("x", vec![image.clone()]);
    message.tool_results = vec![ToolResult { images: vec![image.clone()], ..ToolResult::text("c", "", false) }];
    assert_eq!(message.all_images().count(), 2);
}
