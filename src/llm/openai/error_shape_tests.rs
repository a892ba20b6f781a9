//! Errors that servers report outside the JSON `data:` path of a 200 stream, through the real
//! transport, SSE parser and OpenAI decoder against a scripted server: a non-standard `error:`
//! field (old llama.cpp), `event: error`, a bare JSON body (`{"error"}` or FastAPI's `{"detail"}`)
//! and plain text. Each must come out as the typed error its message implies (the one
//! prompt-too-long table of `error.rs`), never as a malformed stream.

use super::OpenAiDecoder;
use crate::cancel::CancelToken;
use crate::http::net::NetEnv;
use crate::llm::decode::Decoder;
use crate::llm::http::HttpClient;
use crate::llm::retry::RetryPolicy;
use crate::llm::stream::{HttpCall, spawn_stream};
use crate::llm::test_server::{Reply, ScriptedServer, sse, status};
use crate::llm::{LlmError, StreamEvent};
use std::time::Duration;

/// One attempt, no retries: each test sees the error of its one scripted reply.
fn single_attempt() -> RetryPolicy {
    RetryPolicy { max_attempts_before_output: 1, max_restarts_after_output: 0, ..RetryPolicy::default() }
}

/// The events a consumer sees for one scripted reply.
fn run(reply: Reply) -> Vec<StreamEvent> {
    let server = ScriptedServer::start(vec![reply]);
    let client = HttpClient::new(
        &server.base_url,
        "the TEST_KEY environment variable",
        Duration::from_secs(10),
        &NetEnv::default(),
        &[],
    )
    .unwrap();
    let call = HttpCall {
        url: format!("{}/v1/chat/completions", server.base_url),
        headers: Vec::new(),
        body: std::sync::Arc::new(b"{}".to_vec()),
        fallback: None,
    };
    let decoder = || Box::new(OpenAiDecoder::new(7)) as Box<dyn Decoder>;
    spawn_stream("local", client, call, decoder, single_attempt(), CancelToken::new()).iter().collect()
}

fn error_of(reply: Reply) -> LlmError {
    match run(reply).pop() {
        Some(StreamEvent::Error(error)) => error,
        other => panic!("expected an error, got {other:?}"),
    }
}

fn prompt_too_long(message: &str) -> LlmError {
    LlmError::PromptTooLong { message: message.to_string() }
}

fn server_error(message: &str) -> LlmError {
    LlmError::Server { status: 500, message: message.to_string(), retry_after: None }
}

const LLAMA_OVERFLOW: &str = "the request exceeds the available context size, try increasing it";

#[test]
fn a_non_standard_error_field_is_the_error() {
    let body =
        format!("error: {{\"code\":400,\"message\":\"{LLAMA_OVERFLOW}\",\"type\":\"invalid_request_error\"}}\n\n");
    assert_eq!(error_of(sse(&body)), prompt_too_long(LLAMA_OVERFLOW));
}

#[test]
fn a_non_standard_error_field_after_partial_text_is_the_error() {
    let body =
        "data: {\"choices\":[{\"delta\":{\"content\":\"Here\"}}]}\n\nerror: {\"message\":\"slot unavailable\"}\n\n";
    let events = run(sse(body));
    assert_eq!(
        events,
        vec![StreamEvent::Text("Here".to_string()), StreamEvent::Error(server_error("slot unavailable"))]
    );
}

#[test]
fn an_error_event_is_the_error_whatever_its_data() {
    let json = format!("event: error\ndata: {{\"message\":\"{LLAMA_OVERFLOW}\"}}\n\n");
    assert_eq!(error_of(sse(&json)), prompt_too_long(LLAMA_OVERFLOW));
    assert_eq!(error_of(sse("event: error\ndata: model worker crashed\n\n")), server_error("model worker crashed"));
}

#[test]
fn a_bare_json_error_body_with_status_200_is_the_error() {
    let json = [("content-type", "application/json")];
    let detail =
        r#"{"detail":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens."}"#;
    assert_eq!(
        error_of(status(200, &json, detail)),
        prompt_too_long("This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.")
    );
    let error = r#"{"error":{"message":"CUDA out of memory","type":"server_error"}}"#;
    assert_eq!(error_of(status(200, &json, error)), server_error("CUDA out of memory"));
}

#[test]
fn a_bare_json_error_body_labelled_as_an_event_stream_is_the_error() {
    let body = "{\n  \"error\": {\"message\": \"input length exceeds the context length\", \"code\": 400}\n}\n";
    assert_eq!(error_of(sse(body)), prompt_too_long("input length exceeds the context length"));
}

#[test]
fn plain_text_with_status_200_is_the_error() {
    let text = [("content-type", "text/plain; charset=utf-8")];
    assert_eq!(error_of(status(200, &text, "Internal Server Error\n")), server_error("Internal Server Error"));
    assert_eq!(
        error_of(status(200, &text, "Error: input length exceeds the context length (8192)")),
        prompt_too_long("Error: input length exceeds the context length (8192)")
    );
}

#[test]
fn a_complete_stream_with_stray_lines_is_still_complete() {
    let body = "ping: 1\ndata: {\"choices\":[{\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
    let events = run(sse(body));
    assert_eq!(events.first(), Some(&StreamEvent::Text("ok".to_string())));
    assert!(matches!(events.last(), Some(StreamEvent::Done(_))), "{events:?}");
}

#[test]
fn data_that_is_words_not_json_is_the_error_but_broken_json_is_a_damaged_stream() {
    let words = "data: upstream connect error or disconnect/reset before headers\n\n";
    assert_eq!(error_of(sse(words)), server_error("upstream connect error or disconnect/reset before headers"));
    let detail = "data: {\"detail\":\"input length exceeds the context length\"}\n\n";
    assert_eq!(error_of(sse(detail)), prompt_too_long("input length exceeds the context length"));
    assert!(matches!(error_of(sse("data: {\"choices\":[\n\n")), LlmError::Protocol { .. }));
}
