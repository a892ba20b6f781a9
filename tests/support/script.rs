//! Builders for scripted model turns as SSE bodies in each protocol's real framing (the same
//! event shapes as the recorded transcripts), so end-to-end tests can script any tool call.

use super::Reply;
use serde_json::json;

/// An Anthropic stream: optional text, then tool_use blocks (`(id, name, input_json)`).
pub fn anthropic(text: &str, calls: &[(&str, &str, &str)]) -> Reply {
    anthropic_with_usage(text, calls, 100, 20)
}

/// `anthropic` reporting `input_tokens` and `output_tokens` as the usage.
pub fn anthropic_with_usage(text: &str, calls: &[(&str, &str, &str)], input_tokens: u64, output_tokens: u64) -> Reply {
    let mut out = anthropic_open(text, input_tokens);
    let mut index = 0;
    if !text.is_empty() {
        out.push_str(&sse_event("content_block_stop", json!({"type":"content_block_stop","index":index})));
        index += 1;
    }
    for (id, name, input) in calls {
        out.push_str(&sse_event(
            "content_block_start",
            json!({"type":"content_block_start","index":index,"content_block":{"type":"tool_use","id":id,"name":name,"input":{}}}),
        ));
        // Split the input in two fragments, as the real API does.
        let cut = input.char_indices().nth(input.chars().count() / 2).map_or(0, |(at, _)| at);
        for fragment in [&input[..cut], &input[cut..]] {
            out.push_str(&sse_event(
                "content_block_delta",
                json!({"type":"content_block_delta","index":index,"delta":{"type":"input_json_delta","partial_json":fragment}}),
            ));
        }
        out.push_str(&sse_event("content_block_stop", json!({"type":"content_block_stop","index":index})));
        index += 1;
    }
    let stop = if calls.is_empty() { "end_turn" } else { "tool_use" };
    out.push_str(&sse_event(
        "message_delta",
        json!({"type":"message_delta","delta":{"stop_reason":stop,"stop_sequence":null},"usage":{"output_tokens":output_tokens}}),
    ));
    out.push_str(&sse_event("message_stop", json!({"type":"message_stop"})));
    Reply::sse(&out)
}

/// The opening of an Anthropic stream that is never finished (for stalled and cut streams):
/// `message_start`, then, unless `text` is empty, `text` in a text block left open.
pub fn anthropic_open(text: &str, input_tokens: u64) -> String {
    let mut out = sse_event(
        "message_start",
        json!({"type":"message_start","message":{"id":"msg_test","type":"message","role":"assistant","content":[],"model":"test-model","stop_reason":null,"usage":{"input_tokens":input_tokens,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}),
    );
    if !text.is_empty() {
        out.push_str(&sse_event(
            "content_block_start",
            json!({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}),
        ));
        out.push_str(&sse_event(
            "content_block_delta",
            json!({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":text}}),
        ));
    }
    out
}

/// One SSE event in Anthropic's framing.
fn sse_event(name: &str, data: serde_json::Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

/// An OpenAI Chat Completions stream: optional text, then tool calls with arguments in fragments.
pub fn openai(text: &str, calls: &[(&str, &str, &str)]) -> Reply {
    openai_with_usage(text, calls, 100, 20)
}

/// `openai` reporting `prompt_tokens` and `completion_tokens` as the usage.
pub fn openai_with_usage(
    text: &str,
    calls: &[(&str, &str, &str)],
    prompt_tokens: u64,
    completion_tokens: u64,
) -> Reply {
    let mut out = String::new();
    let mut chunk = |delta: serde_json::Value, finish: Option<&str>| {
        let value = json!({"id":"chatcmpl-test","object":"chat.completion.chunk","created":1,"model":"test-model",
            "choices":[{"index":0,"delta":delta,"logprobs":null,"finish_reason":finish}],"usage":null});
        out.push_str(&format!("data: {value}\n\n"));
    };
    chunk(json!({"role":"assistant","content":""}), None);
    if !text.is_empty() {
        chunk(json!({"content":text}), None);
    }
    for (index, (id, name, input)) in calls.iter().enumerate() {
        chunk(
            json!({"tool_calls":[{"index":index,"id":id,"type":"function","function":{"name":name,"arguments":""}}]}),
            None,
        );
        let cut = input.char_indices().nth(input.chars().count() / 2).map_or(0, |(at, _)| at);
        for fragment in [&input[..cut], &input[cut..]] {
            chunk(json!({"tool_calls":[{"index":index,"function":{"arguments":fragment}}]}), None);
        }
    }
    chunk(json!({}), Some(if calls.is_empty() { "stop" } else { "tool_calls" }));
    let usage = json!({"id":"chatcmpl-test","object":"chat.completion.chunk","created":1,"model":"test-model","choices":[],
        "usage":{"prompt_tokens":prompt_tokens,"completion_tokens":completion_tokens,"total_tokens":prompt_tokens + completion_tokens}});
    out.push_str(&format!("data: {usage}\n\ndata: [DONE]\n\n"));
    Reply::sse(&out)
}
