//! Unit tests of `capabilities.rs`: the stream shapes of vLLM, llama.cpp and Ollama, from fakes and chunks.

use super::*;
use crate::config::Protocol;
use crate::llm::test_server::routes::{Route, RouteServer, json as json_route, sse};

fn provider(base_url: &str) -> ProviderConfig {
    ProviderConfig { base_url: base_url.to_string(), ..ProviderConfig::with_defaults("local", Protocol::OpenAi, "m") }
}

/// `data:` lines of the given chunks, then `[DONE]`.
fn stream(chunks: &[Value]) -> String {
    let mut body: String = chunks.iter().map(|chunk| format!("data: {chunk}\n\n")).collect();
    body.push_str("data: [DONE]\n\n");
    body
}

fn delta(delta: Value) -> Value {
    json!({"choices": [{"index": 0, "delta": delta, "finish_reason": null}]})
}

fn run(routes: Vec<Route>) -> (Result<Capabilities, String>, Vec<String>) {
    let server = RouteServer::start(routes);
    let result = probe(&provider(&format!("{}/v1", server.root)), &NetEnv::default(), Duration::from_secs(5));
    (result, server.received())
}

#[test]
fn vllm_streams_structured_call_fragments_with_reasoning_content_and_usage() {
    let chunks = [
        delta(json!({"role": "assistant", "reasoning_content": "The user wants ping."})),
        delta(
            json!({"tool_calls": [{"index": 0, "id": "c1", "type": "function", "function": {"name": "ping", "arguments": ""}}]}),
        ),
        delta(json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"text\":"}}]})),
        delta(json!({"tool_calls": [{"index": 0, "function": {"arguments": " \"hi\"}"}}]})),
        json!({"choices": [], "usage": {"prompt_tokens": 180, "completion_tokens": 20}}),
    ];
    let (result, requests) = run(vec![sse("POST", "/v1/chat/completions", &stream(&chunks))]);
    let capabilities = result.unwrap();
    assert_eq!(
        capabilities,
        Capabilities {
            tool_calls: ToolCallShape::Structured { fragments: 2 },
            reasoning: vec!["reasoning_content"],
            usage: true,
            stream_options_rejected: false,
            cut_off: false,
        }
    );
    assert_eq!(
        capabilities.describe(" · "),
        "tool calls structured, arguments streamed in 2 fragments · reasoning in reasoning_content · usage sent"
    );
    assert!(capabilities.recommendations().is_empty());
    // One request, with the trivial tool and the usage option.
    assert_eq!(requests.len(), 1, "{requests:?}");
    let body: Value = serde_json::from_str(requests[0].trim_start_matches("POST /v1/chat/completions ")).unwrap();
    assert_eq!(body["tools"][0]["function"]["name"], "ping");
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
    assert_eq!(body["max_tokens"], 512);
}

#[test]
fn text_tool_calls_and_think_tags_without_usage_are_reported_with_the_setting_to_use() {
    let chunks = [
        delta(json!({"content": "<think>I should call ping.</think>\n"})),
        delta(json!({"content": "<tool_call>\n{\"name\": \"ping\", \"arguments\": {\"text\": \"hi\"}}\n</tool_call>"})),
    ];
    let (result, _) = run(vec![sse("POST", "/v1/chat/completions", &stream(&chunks))]);
    let capabilities = result.unwrap();
    assert_eq!(capabilities.tool_calls, ToolCallShape::Text { marker: "<tool_call>".into() });
    assert_eq!(capabilities.reasoning, ["<think> in content"]);
    assert!(!capabilities.usage);
    assert_eq!(capabilities.recommendations(), ["text_tool_calls: auto   # the server writes tool calls as text"]);
    assert!(capabilities.describe(" · ").contains("NO usage"), "{}", capabilities.describe(" · "));
}

#[test]
fn a_rejected_stream_options_is_retried_without_it_and_recommended_off() {
    let server = RouteServer::start(vec![Route {
        method: "POST",
        path: "/v1/chat/completions",
        status: 400,
        content_type: "application/json",
        body: r#"{"error":{"message":"Unrecognized request argument: stream_options"}}"#.into(),
    }]);
    let result = probe(&provider(&format!("{}/v1", server.root)), &NetEnv::default(), Duration::from_secs(5));
    // The fake answers 400 to both; what matters is that the retry went out without the option.
    assert!(result.unwrap_err().starts_with("HTTP 400"));
    let requests = server.received();
    assert_eq!(requests.len(), 2, "{requests:?}");
    assert!(requests[0].contains("stream_options") && !requests[1].contains("stream_options"), "{requests:?}");
}

#[test]
fn an_endpoint_that_is_not_openai_compatible_says_so() {
    let (result, _) = run(vec![json_route("POST", "/v1/chat/completions", r#"{"ok":true}"#)]);
    assert!(result.unwrap_err().contains("no events"));
    let (result, _) = run(Vec::new());
    assert!(result.unwrap_err().starts_with("HTTP 404"));
}

#[test]
fn analyze_reads_ollama_and_llama_cpp_shapes() {
    // Ollama: the whole call in one chunk, reasoning in `reasoning`, usage at the end.
    let ollama = [
        delta(json!({"role": "assistant", "content": "", "reasoning": "ping it"})),
        delta(
            json!({"tool_calls": [{"id": "call_x", "index": 0, "type": "function", "function": {"name": "ping", "arguments": "{\"text\":\"hi\"}"}}]}),
        ),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}], "usage": {"prompt_tokens": 150, "completion_tokens": 12}}),
    ];
    let capabilities = analyze(&ollama, false);
    assert_eq!(capabilities.tool_calls, ToolCallShape::Structured { fragments: 1 });
    assert_eq!(capabilities.reasoning, ["reasoning"]);
    assert!(capabilities.usage);
    assert_eq!(
        capabilities.describe(" · "),
        "tool calls structured, arguments in one piece · reasoning in reasoning · usage sent"
    );
    // A bare JSON call in the content (llama.cpp without a tool-aware template), zero usage.
    let bare = [
        delta(json!({"content": "{\"name\": \"ping\", \"parameters\": {\"text\": \"hi\"}}"})),
        json!({"choices": [], "usage": {"prompt_tokens": 0, "completion_tokens": 0}}),
    ];
    let capabilities = analyze(&bare, false);
    assert_eq!(capabilities.tool_calls, ToolCallShape::Text { marker: "a JSON object naming the tool".into() });
    assert!(!capabilities.usage);
    // Prose only.
    let capabilities = analyze(&[delta(json!({"content": "Sure! pong."}))], true);
    assert_eq!(capabilities.tool_calls, ToolCallShape::Absent);
    assert_eq!(capabilities.recommendations().len(), 2);
    // Still reasoning when the cap hit: no verdict on tools.
    let thinking =
        [json!({"choices": [{"index": 0, "delta": {"reasoning_content": "hmm"}, "finish_reason": "length"}]})];
    let capabilities = analyze(&thinking, false);
    assert!(capabilities.cut_off);
    assert!(capabilities.recommendations().is_empty());
    assert!(
        capabilities.describe(" · ").starts_with("no tool call before the probe's 512-token cap"),
        "{}",
        capabilities.describe(" · ")
    );
}
