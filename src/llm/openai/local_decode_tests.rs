//! What local models (vLLM, Ollama, llama.cpp serving small open models) put in `content`,
//! replayed from `fixtures/local-models/` through the decoder: tool calls written as text in
//! each format become `ToolCalls`, `<think>` becomes Thinking, and everything that is not a
//! valid call to an offered tool stays text, byte for byte.

use super::OpenAiDecoder;
use crate::llm::fixture::{calls, load_from, replay, split, text, thinking};
use crate::llm::text_calls::ToolNames;
use crate::llm::{Completion, StopReason, StreamEvent};
use crate::msg::{ToolDefinition, Usage};
use serde_json::json;

const SEED: u64 = 7;

fn tools() -> Option<ToolNames> {
    let definition = |name: &str, schema: serde_json::Value| ToolDefinition {
        name: name.to_string(),
        description: String::new(),
        input_schema: schema,
    };
    Some(ToolNames::from_definitions(&[
        definition(
            "read_file",
            json!({"type": "object", "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}}}),
        ),
        definition("glob", json!({"type": "object", "properties": {"pattern": {"type": "string"}}})),
    ]))
}

fn check(fixture: &str, expected: Vec<StreamEvent>) {
    let mut decoder = OpenAiDecoder::new(SEED).with_text_tool_calls(tools());
    assert_eq!(replay(&mut decoder, &load_from("local-models", fixture)), expected, "{fixture}");
}

/// One content delta per string, then a finish chunk and `[DONE]`.
fn check_content(pieces: &[&str], expected: Vec<StreamEvent>) {
    let mut stream = String::new();
    for piece in pieces {
        let chunk = json!({"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": null}]});
        stream.push_str(&format!("data: {chunk}\n\n"));
    }
    stream.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n");
    let mut decoder = OpenAiDecoder::new(SEED).with_text_tool_calls(tools());
    assert_eq!(replay(&mut decoder, &split(&stream)), expected, "{pieces:?}");
}

fn usage() -> StreamEvent {
    StreamEvent::Usage(Usage { input_tokens: 300, output_tokens: 40, cache_write: 0, cache_read: 0 })
}

fn done(stop_reason: StopReason) -> StreamEvent {
    StreamEvent::Done(Completion { stop_reason, thinking: Vec::new(), dropped_tool_calls: Vec::new() })
}

/// The ids the decoder makes for recovered calls from `SEED` (`call_text_` + 24 alphanumerics).
const ID_1: &str = "call_text_H8DqTp4fg6ohl18SNPlmqI6R";
const ID_2: &str = "call_text_yC9eeVFBBs9EdkbjJtqDepaW";

#[test]
fn hermes_tool_calls_become_calls_and_the_prose_is_kept() {
    check(
        "hermes-two-calls.sse",
        vec![
            text("I'll read both files.\n"),
            calls(&[(ID_1, "read_file", r#"{"path":"a.txt"}"#), (ID_2, "read_file", r#"{"path":"b.txt"}"#)]),
            usage(),
            done(StopReason::ToolUse),
        ],
    );
}

#[test]
fn qwen3_coder_think_then_function_call_with_typed_parameters() {
    check(
        "qwen3-coder-think-function.sse",
        vec![
            thinking("\nThe user wants main.rs.\n"),
            text("Let me look.\n\n"),
            calls(&[(ID_1, "read_file", r#"{"path":"src/main.rs","limit":20}"#)]),
            usage(),
            done(StopReason::ToolUse),
        ],
    );
}

#[test]
fn mistral_tool_calls_array_becomes_calls() {
    check(
        "mistral-tool-calls.sse",
        vec![
            calls(&[(ID_1, "glob", r#"{"pattern":"*.rs"}"#), (ID_2, "read_file", r#"{"path":"Cargo.toml"}"#)]),
            usage(),
            done(StopReason::ToolUse),
        ],
    );
}

#[test]
fn fenced_json_naming_a_tool_becomes_a_call_between_prose() {
    check(
        "fenced-json-call.sse",
        vec![
            text("Sure, I'll check it:\nThen I'll summarise."),
            calls(&[(ID_1, "read_file", r#"{"path":"README.md"}"#)]),
            usage(),
            done(StopReason::ToolUse),
        ],
    );
}

#[test]
fn malformed_json_in_a_tool_call_stays_text() {
    check(
        "malformed-json-stays-text.sse",
        vec![
            text("<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": }\n</tool_call>"),
            usage(),
            done(StopReason::EndTurn),
        ],
    );
}

#[test]
fn a_call_to_a_tool_not_offered_stays_text() {
    check(
        "unknown-tool-stays-text.sse",
        vec![
            text("Running it now.\n<tool_call>\n{\"name\": \"delete_everything\", \"arguments\": {}}\n</tool_call>"),
            usage(),
            done(StopReason::EndTurn),
        ],
    );
}

#[test]
fn prose_that_mentions_the_formats_stays_text() {
    check(
        "mention-only-prose.sse",
        vec![
            text(
                "To call a tool, wrap JSON in <tool_call> tags, or write [TOOL_CALLS] before it, not <function= alone. Example:\n```python\nprint(1)\n```\nDone.",
            ),
            usage(),
            done(StopReason::EndTurn),
        ],
    );
}

#[test]
fn an_unterminated_think_block_is_all_thinking() {
    check(
        "think-unterminated.sse",
        vec![thinking("Let me think about this carefully"), usage(), done(StopReason::MaxTokens)],
    );
}

#[test]
fn mistral_name_args_variant_and_text_after_the_calls() {
    check_content(
        &["[TOOL_CALLS]read_file[ARGS]{\"path\": \"a\"}", "[TOOL_CALLS]glob[ARGS]{\"pattern\": \"*\"}\nDone."],
        vec![
            text("Done."),
            calls(&[(ID_1, "read_file", r#"{"path":"a"}"#), (ID_2, "glob", r#"{"pattern":"*"}"#)]),
            done(StopReason::ToolUse),
        ],
    );
}

#[test]
fn bare_qwen3_function_block_without_the_wrapper() {
    check_content(
        &["Reading.\n<function=glob>\n<parameter=pattern>\n*.toml\n</parameter>\n</function>"],
        vec![text("Reading.\n"), calls(&[(ID_1, "glob", r#"{"pattern":"*.toml"}"#)]), done(StopReason::ToolUse)],
    );
}

#[test]
fn hermes_call_without_its_closing_tag_at_the_end_is_still_a_call() {
    check_content(
        &["<tool_call>\n{\"name\": \"glob\", \"arguments\": {\"pattern\": \"*\"}}"],
        vec![calls(&[(ID_1, "glob", r#"{"pattern":"*"}"#)]), done(StopReason::ToolUse)],
    );
}

#[test]
fn text_tool_calls_off_leaves_the_text_alone_but_think_is_still_thinking() {
    let stream = "data: {\"choices\":[{\"delta\":{\"content\":\"<think>hm</think>ok <tool_call>{\\\"name\\\": \\\"glob\\\", \\\"arguments\\\": {}}</tool_call>\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
    let mut decoder = OpenAiDecoder::new(SEED).with_text_tool_calls(None);
    assert_eq!(
        replay(&mut decoder, &split(stream)),
        vec![
            thinking("hm"),
            text("ok <tool_call>{\"name\": \"glob\", \"arguments\": {}}</tool_call>"),
            done(StopReason::EndTurn)
        ]
    );
}

#[test]
fn when_the_server_sent_native_calls_the_same_call_in_text_is_not_run_twice() {
    let native =
        r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"n1","function":{"name":"glob","arguments":"{}"}}]}}]}"#;
    let content = json!({"choices": [{"delta": {"content": "<tool_call>{\"name\": \"glob\", \"arguments\": {}}</tool_call>"}, "finish_reason": "tool_calls"}]});
    let stream = format!("data: {native}\n\ndata: {content}\n\ndata: [DONE]\n\n");
    let mut decoder = OpenAiDecoder::new(SEED).with_text_tool_calls(tools());
    assert_eq!(replay(&mut decoder, &split(&stream)), vec![calls(&[("n1", "glob", "{}")]), done(StopReason::ToolUse)]);
}
