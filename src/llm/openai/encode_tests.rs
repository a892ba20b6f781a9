//! Request-shape tests: the exact JSON body the OpenAI encoder builds for typical histories.

use super::{EncodeOptions, encode};
use crate::config::{Protocol, ProviderConfig};
use crate::msg::{Message, Request, System, ToolCall, ToolDefinition, ToolResult};
use serde_json::{Value, json};

fn config() -> ProviderConfig {
    ProviderConfig {
        name: "local".to_string(),
        protocol: Protocol::OpenAi,
        model: "gpt-4.1".to_string(),
        api_key: String::new(),
        auth_token: String::new(),
        api_key_hint: String::new(),
        base_url: "http://127.0.0.1:11434/v1".to_string(),
        context_window: 128_000,
        window_source: crate::config::WindowSource::Configured,
        vision: None,
        max_tokens: 4096,
        thinking: false,
        ca_file: None,
        idle_timeout_s: 120,
        max_tokens_field: "max_completion_tokens".to_string(),
        stream_options: true,
        compact_at: None,
        text_tool_calls: true,
        request: crate::config::RequestSettings::default(),
        source: String::new(),
        price: None,
    }
}

/// The body with the options the config asks for.
fn encode_request(request: &Request, config: &ProviderConfig) -> Vec<u8> {
    encode_request_with(request, config, EncodeOptions::from_config(config))
}

/// The body with explicit options (as the `stream_options` fallback would be encoded).
fn encode_request_with(request: &Request, config: &ProviderConfig, options: EncodeOptions) -> Vec<u8> {
    encode(request, config, options).0
}

fn check(request: &Request, options: EncodeOptions, expected: Value) {
    // Compared as text: key order and every byte count, not only the JSON value.
    assert_eq!(text(encode_request_with(request, &config(), options)), expected.to_string());
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

/// User text, an assistant turn with text and two tool calls, their results (one failed) and
/// a reminder: the history shape of every tool-loop iteration.
fn tool_loop(assistant_text: &str) -> Request {
    let assistant = Message {
        tool_calls: vec![
            call("call_1", "read_file", r#"{"path": "src/main.rs"}"#),
            call("call_2", "grep", r#"{"pattern": "fn main", "ratio": 1.10}"#),
        ],
        ..Message::assistant(assistant_text)
    };
    Request {
        system: System { stable: "You are mewcode.".to_string(), environment: "cwd: /repo".to_string() },
        messages: vec![
            Message::user("Explain main."),
            assistant,
            Message::tool_results(vec![result("call_1", "fn main() {}", false), result("call_2", "bad regex", true)]),
        ]
        .into(),
        tools: vec![ToolDefinition {
            name: "read_file".to_string(),
            description: "Read a file".to_string(),
            input_schema: json!({"type": "object"}),
        }],
        reminder: Some("Mode: default.".to_string()),
        max_tokens: 0,
    }
}

/// In the encoder's key order (`check` compares text): `stream_options` follows `stream`.
fn expected_body(assistant_content: Value, stream_options: bool) -> Value {
    let mut body = serde_json::Map::new();
    body.insert("model".to_string(), json!("gpt-4.1"));
    body.insert("stream".to_string(), json!(true));
    if stream_options {
        body.insert("stream_options".to_string(), json!({"include_usage": true}));
    }
    let rest = json!({
        "max_completion_tokens": 4096,
        "messages": [
            {"role": "system", "content": "You are mewcode.\n\ncwd: /repo"},
            {"role": "user", "content": "Explain main."},
            {"role": "assistant", "content": assistant_content, "tool_calls": [
                {"id": "call_1", "type": "function",
                 "function": {"name": "read_file", "arguments": "{\"path\": \"src/main.rs\"}"}},
                {"id": "call_2", "type": "function",
                 "function": {"name": "grep", "arguments": "{\"pattern\": \"fn main\", \"ratio\": 1.10}"}}
            ]},
            {"role": "tool", "tool_call_id": "call_1", "content": "fn main() {}"},
            {"role": "tool", "tool_call_id": "call_2", "content": "bad regex"},
            {"role": "user", "content": "Mode: default."}
        ],
        "tools": [{"type": "function", "function": {
            "name": "read_file", "description": "Read a file", "parameters": {"type": "object"}
        }}],
        "tool_choice": "auto"
    });
    body.extend(rest.as_object().cloned().unwrap_or_default());
    Value::Object(body)
}

#[test]
fn tool_loop_one_tool_message_per_result_and_reminder_appended() {
    assert_eq!(
        text(encode_request(&tool_loop("Let me look."), &config())),
        expected_body(json!("Let me look."), true).to_string()
    );
}

#[test]
fn tool_calls_without_text_send_empty_content_never_null() {
    // llama-cpp-python answers 500 (7 validation errors) to `"content": null`.
    check(&tool_loop(""), EncodeOptions::from_config(&config()), expected_body(json!(""), true));
}

#[test]
fn stream_options_retry_fallback_omits_the_field() {
    let options = EncodeOptions { stream_options: false };
    check(&tool_loop("Let me look."), options, expected_body(json!("Let me look."), false));
}

#[test]
fn plain_prompt_without_tools_environment_or_reminder() {
    let request = Request {
        system: System { stable: "You are mewcode.".to_string(), environment: String::new() },
        messages: vec![Message::user("Hi"), Message::assistant(""), Message::user("Hello?")].into(),
        max_tokens: 100,
        ..Request::default()
    };
    let mut config = config();
    config.max_tokens_field = "max_tokens".to_string();
    config.stream_options = false;
    assert_eq!(
        text(encode_request(&request, &config)),
        json!({
            "model": "gpt-4.1",
            "stream": true,
            "max_tokens": 100,
            "messages": [
                {"role": "system", "content": "You are mewcode."},
                {"role": "user", "content": "Hi"},
                {"role": "user", "content": "Hello?"}
            ]
        })
        .to_string()
    );
}

#[test]
fn request_settings_are_sent_last_and_extra_body_cannot_touch_owned_keys() {
    let mut config = config();
    config.request = crate::config::RequestSettings {
        temperature: Some(0.2),
        top_p: Some(0.9),
        headers: Vec::new(),
        extra_body: json!({"top_k": 20, "chat_template_kwargs": {"enable_thinking": false}, "stream": false})
            .as_object()
            .cloned()
            .unwrap_or_default(),
    };
    let request = Request { messages: vec![Message::user("hi")].into(), max_tokens: 100, ..Request::default() };
    let body = encode_request_with(&request, &config, EncodeOptions { stream_options: false });
    assert_eq!(
        text(body),
        json!({
            "model": "gpt-4.1", "stream": true, "max_completion_tokens": 100,
            "messages": [{"role": "user", "content": "hi"}],
            "temperature": 0.2, "top_p": 0.9, "top_k": 20, "chat_template_kwargs": {"enable_thinking": false}
        })
        .to_string()
    );
}

#[test]
fn the_tool_loop_is_encoded_as_the_golden_file() {
    // The exact bytes sent, one line.
    let body = String::from_utf8(encode_request(&tool_loop("Let me look."), &config())).unwrap();
    crate::test_golden::assert_golden("openai-tool-loop.json", &(body + "\n"));
}

#[test]
fn the_fallback_cut_leaves_exactly_the_body_without_stream_options() {
    let (body, cut) = super::encode_request_with_fallback(&tool_loop("Let me look."), &config());
    let cut = cut.unwrap();
    let without = [&body[..cut.start], &body[cut.end..]].concat();
    let expected = encode_request_with(&tool_loop("Let me look."), &config(), EncodeOptions { stream_options: false });
    assert_eq!(text(without), text(expected));
    // Set by the user in extra_body: no fallback (sending it again would not help).
    let mut config = config();
    config.request.extra_body.insert("stream_options".to_string(), json!({"include_usage": false}));
    assert_eq!(super::encode_request_with_fallback(&tool_loop(""), &config).1, None);
}

fn image(source: &str) -> crate::msg::Image {
    crate::msg::Image {
        media_type: "image/png".to_string(),
        data: "iVBORw0KGgo=".into(),
        size_px: Some((2, 3)),
        source: source.to_string(),
    }
}

fn image_part() -> Value {
    json!({"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}})
}

fn sent_messages(request: &Request) -> Value {
    let body: Value = serde_json::from_slice(&encode_request(request, &config())).unwrap();
    body["messages"].clone()
}

#[test]
fn a_rounds_images_follow_its_tool_messages_in_one_user_message_naming_each_call() {
    let mut request = tool_loop("Let me look.");
    request.reminder = None;
    let mut messages = request.messages.to_vec();
    messages[2].tool_results[0].images = vec![image("a.png"), image("b.png")];
    request.messages = messages.into();
    let sent = sent_messages(&request);
    let roles: Vec<&str> = sent.as_array().unwrap().iter().map(|message| message["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["system", "user", "assistant", "tool", "tool", "user"]);
    assert_eq!(sent[3]["content"], "fn main() {}", "the tool message keeps its text");
    let mut reminded = request.clone();
    reminded.reminder = Some("Mode: default.".to_string());
    let with_reminder = sent_messages(&reminded);
    assert_eq!(with_reminder.as_array().unwrap().len(), 6, "the reminder joins the images' user message");
    assert_eq!(with_reminder[5]["content"][4], json!({"type": "text", "text": "Mode: default."}));
    assert_eq!(
        sent[5]["content"],
        json!([
            {"type": "text", "text": "Image from read_file (call_1): a.png"},
            image_part(),
            {"type": "text", "text": "Image from read_file (call_1): b.png"},
            image_part()
        ])
    );
}

#[test]
fn a_prompt_with_images_is_a_list_of_parts_text_first() {
    let request = Request {
        messages: vec![Message::user_with_images("what is this?", vec![image("a.png")])].into(),
        ..Request::default()
    };
    assert_eq!(
        sent_messages(&request),
        json!([{"role": "user", "content": [{"type": "text", "text": "what is this?"}, image_part()]}])
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
    assert_eq!(sent[0]["content"][1], json!({"type": "text", "text": "[image: 0.png, 8 B]"}));
    assert_eq!(sent[2]["content"][1], image_part());
}
