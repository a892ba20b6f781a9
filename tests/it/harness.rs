//! Self-tests of the fake model server: exact replay, chunking, recording, validation.

use crate::support::fake_model::fixture_bytes;
use crate::support::validate::{check_anthropic, check_openai};
use crate::support::{FakeModel, Reply};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

fn post(url_port: u16, path: &str, body: &str) -> Vec<u8> {
    let mut stream = TcpStream::connect(("127.0.0.1", url_port)).unwrap();
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nx-api-key: k\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).unwrap();
    response
}

fn body_of(response: &[u8]) -> &[u8] {
    let split = response.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    &response[split + 4..]
}

#[test]
fn replays_fixtures_byte_for_byte_whole_and_chunked() {
    let model = FakeModel::start();
    model.push(Reply::fixture("anthropic-text.sse"));
    model.push(Reply::fixture_chunked("anthropic-text.sse", 7, Duration::from_millis(1)));
    let request = r#"{"model":"m","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"hi"}]}"#;
    let whole = post(model.port(), "/v1/messages", request);
    let chunked = post(model.port(), "/v1/messages", request);
    assert_eq!(body_of(&whole), fixture_bytes("anthropic-text.sse").as_slice());
    assert_eq!(body_of(&chunked), fixture_bytes("anthropic-text.sse").as_slice());
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].path, "/v1/messages");
    assert_eq!(requests[0].header("X-Api-Key"), Some("k"));
    assert_eq!(requests[0].json.as_ref().unwrap()["model"], "m");
    assert_eq!(model.remaining(), 0);
}

#[test]
fn status_replies_carry_headers_and_an_empty_queue_is_a_500() {
    let model = FakeModel::start();
    model.push(Reply::status(429, r#"{"error":"slow down"}"#).with_header("retry-after", "2"));
    let response = String::from_utf8(post(model.port(), "/x", "{}")).unwrap();
    assert!(response.starts_with("HTTP/1.1 429"), "{response}");
    assert!(response.to_ascii_lowercase().contains("retry-after: 2"), "{response}");
    let response = String::from_utf8(post(model.port(), "/x", "{}")).unwrap();
    assert!(response.starts_with("HTTP/1.1 500") && response.contains("no scripted reply left"), "{response}");
}

#[test]
fn validation_catches_broken_histories() {
    let valid = serde_json::json!({"model":"m","max_tokens":100,"stream":true,"system":[{"type":"text","text":"s"}],"messages":[
        {"role":"user","content":"hi"},
        {"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"x","input":{}}]},
        {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"},{"type":"text","text":"more"}]}]});
    assert_eq!(check_anthropic(&valid), Ok(()));
    let mut unanswered = valid.clone();
    unanswered["messages"][2]["content"] = serde_json::json!([{"type":"text","text":"no results"}]);
    assert!(check_anthropic(&unanswered).unwrap_err().contains("do not answer tool calls"));
    let mut two_users = valid.clone();
    two_users["messages"][1]["role"] = "user".into();
    assert!(check_anthropic(&two_users).unwrap_err().contains("strict alternation"));

    let openai = serde_json::json!({"model":"m","stream":true,"messages":[
        {"role":"system","content":"s"},{"role":"user","content":"hi"},
        {"role":"assistant","content":"","tool_calls":[{"id":"a","type":"function","function":{"name":"x","arguments":"{}"}},{"id":"b","type":"function","function":{"name":"x","arguments":"{}"}}]},
        {"role":"tool","tool_call_id":"a","content":"1"},{"role":"tool","tool_call_id":"b","content":"2"}]});
    assert_eq!(check_openai(&openai), Ok(()));
    let mut null_content = openai.clone();
    null_content["messages"][2]["content"] = serde_json::Value::Null;
    assert!(check_openai(&null_content).unwrap_err().contains("content must be a string"));
    let mut swapped = openai.clone();
    swapped["messages"][3]["tool_call_id"] = "b".into();
    assert!(check_openai(&swapped).unwrap_err().contains("out of order"));
}
