//! Request-shape tests: the exact JSON body the Anthropic encoder builds for typical histories.

use super::{encode_request, tool_loop_has_signed_thinking};
use crate::config::{Protocol, ProviderConfig};
use crate::msg::{Message, Request, System, ThinkingBlock, ToolCall, ToolDefinition, ToolResult};
use serde_json::{Value, json};

fn config(thinking: bool) -> ProviderConfig {
    ProviderConfig {
        name: "claude".to_string(),
        protocol: Protocol::Anthropic,
        model: "claude-sonnet-4-5".to_string(),
        api_key: String::new(),
        auth_token: String::new(),
        api_key_hint: String::new(),
        base_url: "https://api.anthropic.com".to_string(),
        context_window: 200_000,
        window_source: crate::config::WindowSource::Configured,
        vision: None,
        max_tokens: 8192,
        thinking,
        ca_file: None,
        idle_timeout_s: 120,
        max_tokens_field: "max_tokens".to_string(),
        stream_options: false,
        compact_at: None,
        text_tool_calls: true,
        request: crate::config::RequestSettings::default(),
        source: String::new(),
        price: None,
    }
}

fn check(request: &Request, thinking: bool, expected: Value) {
    // Compared as text: key order and every byte count, not only the JSON value.
    assert_eq!(text(encode_request(request, &config(thinking))), expected.to_string());
}

/// The body as text (the encoder writes UTF-8 JSON).
fn text(body: Vec<u8>) -> String {
    String::from_utf8(body).unwrap()
}

fn call(id: &str, name: &str, input: &str) -> ToolCall {
    ToolCall { id: id.to_string(), name: name.to_string(), input: input.to_string() }
}

fn result(id: &str, content: &str, is_error: bool) -> ToolResult {
    ToolResult { tool_call_id: id.to_string(), content: content.to_string(), is_error, images: Vec::new() }
}

fn signed(text: &str, signature: &str) -> ThinkingBlock {
    ThinkingBlock::Signed { text: text.to_string(), signature: signature.to_string() }
}

/// User text, an assistant turn with text and two tool calls, their results (one failed) and
/// a reminder: the history shape of every tool-loop iteration.
fn tool_loop(thinking: Vec<ThinkingBlock>) -> Request {
    let assistant = Message {
        tool_calls: vec![
            call("toolu_1", "read_file", r#"{"path": "src/main.rs"}"#),
            call("toolu_2", "grep", r#"{"pattern": "fn main", "limit": 20}"#),
        ],
        thinking,
        ..Message::assistant("Let me look.")
    };
    Request {
        system: System { stable: "You are mewcode.".to_string(), environment: "cwd: /repo".to_string() },
        messages: vec![
            Message::user("Explain main."),
            assistant,
            Message::tool_results(vec![result("toolu_1", "fn main() {}", false), result("toolu_2", "bad regex", true)]),
        ]
        .into(),
        tools: vec![
            ToolDefinition {
                name: "read_file".to_string(),
                description: "Read a file".to_string(),
                input_schema: json!({"type": "object"}),
            },
            ToolDefinition {
                name: "grep".to_string(),
                description: "Search".to_string(),
                input_schema: json!({"type": "object"}),
            },
        ],
        reminder: Some("Mode: default.".to_string()),
        max_tokens: 0,
    }
}

fn tools_json() -> Value {
    json!([
        {"name": "read_file", "description": "Read a file", "input_schema": {"type": "object"}},
        {"name": "grep", "description": "Search", "input_schema": {"type": "object"}, "cache_control": {"type": "ephemeral"}}
    ])
}

fn system_json() -> Value {
    json!([
        {"type": "text", "text": "You are mewcode.", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "cwd: /repo"}
    ])
}

/// The tool-loop history as sent, with `assistant_prefix` blocks before the assistant text.
fn tool_loop_messages(assistant_prefix: Vec<Value>) -> Value {
    let mut assistant = assistant_prefix;
    assistant.extend([
        json!({"type": "text", "text": "Let me look."}),
        json!({"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "src/main.rs"}}),
        json!({"type": "tool_use", "id": "toolu_2", "name": "grep", "input": {"pattern": "fn main", "limit": 20}}),
    ]);
    json!([
        {"role": "user", "content": [{"type": "text", "text": "Explain main."}]},
        {"role": "assistant", "content": assistant},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "fn main() {}"},
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": "bad regex", "is_error": true,
             "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": "Mode: default."}
        ]}
    ])
}

#[test]
fn tool_loop_with_thinking_off() {
    check(
        &tool_loop(Vec::new()),
        false,
        json!({
            "model": "claude-sonnet-4-5",
            "max_tokens": 8192,
            "stream": true,
            "system": system_json(),
            "tools": tools_json(),
            "tool_choice": {"type": "auto"},
            "messages": tool_loop_messages(Vec::new())
        }),
    );
}

#[test]
fn thinking_off_does_not_send_stored_thinking_blocks() {
    check(
        &tool_loop(vec![signed("Look first.", "sig-1")]),
        false,
        json!({
            "model": "claude-sonnet-4-5",
            "max_tokens": 8192,
            "stream": true,
            "system": system_json(),
            "tools": tools_json(),
            "tool_choice": {"type": "auto"},
            "messages": tool_loop_messages(Vec::new())
        }),
    );
}

#[test]
fn thinking_on_for_a_fresh_prompt_raises_max_tokens_above_the_budget() {
    let request = Request {
        system: System { stable: "You are mewcode.".to_string(), environment: String::new() },
        messages: vec![Message::user("Hi")].into(),
        max_tokens: 4000,
        ..Request::default()
    };
    check(
        &request,
        true,
        json!({
            "model": "claude-sonnet-4-5",
            "max_tokens": 20000,
            "stream": true,
            "system": [{"type": "text", "text": "You are mewcode.", "cache_control": {"type": "ephemeral"}}],
            "thinking": {"type": "enabled", "budget_tokens": 16000},
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "Hi", "cache_control": {"type": "ephemeral"}}]}
            ]
        }),
    );
}

#[test]
fn thinking_on_sends_signed_and_redacted_blocks_first() {
    let thinking = vec![ThinkingBlock::Redacted { data: "opaque".to_string() }, signed("Look first.", "sig-1")];
    check(
        &tool_loop(thinking),
        true,
        json!({
            "model": "claude-sonnet-4-5",
            "max_tokens": 24192,
            "stream": true,
            "system": system_json(),
            "tools": tools_json(),
            "tool_choice": {"type": "auto"},
            "thinking": {"type": "enabled", "budget_tokens": 16000},
            "messages": tool_loop_messages(vec![
                json!({"type": "redacted_thinking", "data": "opaque"}),
                json!({"type": "thinking", "thinking": "Look first.", "signature": "sig-1"}),
            ])
        }),
    );
}

#[test]
fn thinking_falls_back_to_off_when_a_tool_turn_has_no_signature() {
    // Same body as thinking off: the unsigned turn could not be sent back with thinking on.
    check(
        &tool_loop(vec![signed("Look first.", "")]),
        true,
        json!({
            "model": "claude-sonnet-4-5",
            "max_tokens": 8192,
            "stream": true,
            "system": system_json(),
            "tools": tools_json(),
            "tool_choice": {"type": "auto"},
            "messages": tool_loop_messages(Vec::new())
        }),
    );
}

#[test]
fn safe_fallback_only_looks_at_the_current_tool_loop() {
    let unsigned_old_loop: Vec<Message> = tool_loop(Vec::new()).messages.to_vec();
    let mut history = unsigned_old_loop.clone();
    history.extend([Message::assistant("Done."), Message::user("Next question.")]);
    let signed_turn = Message {
        tool_calls: vec![call("toolu_3", "glob", "{}")],
        thinking: vec![signed("t", "s")],
        ..Message::assistant("")
    };
    let mut signed_loop = history.clone();
    signed_loop.push(signed_turn);
    // Text the user typed while tools ran does not end the loop.
    let mut interjected = unsigned_old_loop.clone();
    interjected.push(Message::user("also check the tests"));
    assert_eq!(
        [
            tool_loop_has_signed_thinking(&unsigned_old_loop),
            tool_loop_has_signed_thinking(&history),
            tool_loop_has_signed_thinking(&signed_loop),
            tool_loop_has_signed_thinking(&interjected),
            tool_loop_has_signed_thinking(&[Message::user("hi")]),
        ],
        [false, true, true, false, true]
    );
}

#[test]
fn reminder_opens_a_user_message_after_an_assistant_turn_and_same_roles_merge() {
    let request = Request {
        messages: vec![
            Message::user("one"),
            Message::user("two"),
            Message::assistant(""),
            Message::user("three"),
            Message::assistant("answer"),
        ]
        .into(),
        reminder: Some("Mode: plan.".to_string()),
        max_tokens: 100,
        ..Request::default()
    };
    check(
        &request,
        false,
        json!({
            "model": "claude-sonnet-4-5",
            "max_tokens": 100,
            "stream": true,
            "messages": [
                {"role": "user", "content": [
                    {"type": "text", "text": "one"}, {"type": "text", "text": "two"}, {"type": "text", "text": "three"}
                ]},
                {"role": "assistant", "content": [{"type": "text", "text": "answer"}]},
                {"role": "user", "content": [{"type": "text", "text": "Mode: plan."}]}
            ]
        }),
    );
}

#[test]
fn tool_input_numbers_survive_and_invalid_input_becomes_an_empty_object() {
    let assistant = Message {
        tool_calls: vec![
            call("toolu_1", "edit", r#"{"line": 18446744073709551615, "low": -9223372036854775808, "ratio": 0.1}"#),
            call("toolu_2", "edit", r#"{"line": 3"#),
            call("toolu_3", "edit", "[1]"),
        ],
        ..Message::assistant("")
    };
    let body: Value = serde_json::from_slice(&encode_request(
        &Request { messages: vec![Message::user("go"), assistant].into(), max_tokens: 1, ..Request::default() },
        &config(false),
    ))
    .unwrap();
    let inputs: Vec<String> = body["messages"][1]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|block| serde_json::to_string(&block["input"]).unwrap())
        .collect();
    assert_eq!(inputs, [r#"{"line":18446744073709551615,"low":-9223372036854775808,"ratio":0.1}"#, "{}", "{}"]);
}

#[test]
fn user_text_next_to_tool_results_joins_their_turn_after_them() {
    let assistant = Message { tool_calls: vec![call("toolu_1", "glob", "{}")], ..Message::assistant("") };
    let request = Request {
        messages: vec![
            Message::user("go"),
            assistant,
            Message::user("also check tests"),
            Message::tool_results(vec![result("toolu_1", "a.rs", false)]),
        ]
        .into(),
        max_tokens: 10,
        ..Request::default()
    };
    check(
        &request,
        false,
        json!({
            "model": "claude-sonnet-4-5",
            "max_tokens": 10,
            "stream": true,
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "go"}]},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "glob", "input": {}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.rs"},
                    {"type": "text", "text": "also check tests", "cache_control": {"type": "ephemeral"}}
                ]}
            ]
        }),
    );
}

#[test]
fn request_settings_are_sent_last_on_anthropic_too() {
    let mut config = config(false);
    config.request = crate::config::RequestSettings {
        temperature: Some(1.0),
        top_p: Some(0.5),
        headers: Vec::new(),
        extra_body: json!({"metadata": {"user_id": "u-1"}}).as_object().cloned().unwrap_or_default(),
    };
    let request = Request { messages: vec![Message::user("hi")].into(), max_tokens: 100, ..Request::default() };
    assert_eq!(
        text(encode_request(&request, &config)),
        json!({
            "model": "claude-sonnet-4-5", "max_tokens": 100, "stream": true,
            "messages": [{"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]}],
            "temperature": 1.0, "top_p": 0.5, "metadata": {"user_id": "u-1"}
        })
        .to_string()
    );
}

#[test]
fn the_tool_loop_with_signed_thinking_is_encoded_as_the_golden_file() {
    let request = tool_loop(vec![signed("Reading main first.", "sig-1")]);
    // The exact bytes sent, one line.
    let body = String::from_utf8(encode_request(&request, &config(true))).unwrap();
    crate::test_golden::assert_golden("anthropic-tool-loop.json", &(body + "\n"));
}

fn image(source: &str) -> crate::msg::Image {
    crate::msg::Image {
        media_type: "image/png".to_string(),
        data: "iVBORw0KGgo=".into(),
        size_px: Some((2, 3)),
        source: source.to_string(),
    }
}

fn image_json() -> Value {
    json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}})
}

fn sent_messages(request: &Request) -> Value {
    let body: Value = serde_json::from_slice(&encode_request(request, &config(false))).unwrap();
    body["messages"].clone()
}

#[test]
fn a_tool_result_with_images_sends_its_content_as_text_then_image_blocks() {
    let mut request = tool_loop(Vec::new());
    request.reminder = None;
    let mut messages = request.messages.to_vec();
    messages[2].tool_results[0].images = vec![image("shot.png")];
    request.messages = messages.into();
    let sent = sent_messages(&request);
    assert_eq!(
        sent[2]["content"],
        json!([
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "fn main() {}"}, image_json()]},
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": "bad regex", "is_error": true, "cache_control": {"type": "ephemeral"}}
        ])
    );
}

#[test]
fn a_prompt_with_images_sends_the_images_before_its_text() {
    let request = Request {
        messages: vec![Message::user_with_images("what is this?", vec![image("a.png"), image("b.png")])].into(),
        ..Request::default()
    };
    assert_eq!(
        sent_messages(&request),
        json!([{"role": "user", "content": [image_json(), image_json(), {"type": "text", "text": "what is this?", "cache_control": {"type": "ephemeral"}}]}])
    );
}

#[test]
fn an_image_over_the_request_limit_goes_as_its_placeholder() {
    let mut messages = Vec::new();
    for index in 0..101 {
        messages.push(Message::user_with_images(format!("look {index}"), vec![image(&format!("{index}.png"))]));
        messages.push(Message::assistant("ok"));
    }
    let request = Request { messages: messages.into(), ..Request::default() };
    let sent = sent_messages(&request);
    assert_eq!(sent[0]["content"][0], json!({"type": "text", "text": "[image: 0.png, 8 B]"}));
    assert_eq!(sent[2]["content"][0], image_json());
}
