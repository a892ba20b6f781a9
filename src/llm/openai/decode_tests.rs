//! Unit tests of `decode.rs`: every OpenAI-compatible and local-model transcript replayed, compared whole.

use super::OpenAiDecoder;
use crate::llm::decode::Decoder;
use crate::llm::test_server::fixture::{calls, load, load_from, replay, split, text, thinking};
use crate::llm::text_calls::ToolNames;
use crate::llm::{Completion, LlmError, StopReason, StreamEvent};
use crate::msg::{ToolDefinition, Usage};
use serde_json::json;

const SEED: u64 = 7;

fn check(fixture: &str, expected: Vec<StreamEvent>) {
    let mut decoder = OpenAiDecoder::new(SEED);
    assert_eq!(replay(&mut decoder, &load(fixture)), expected, "{fixture}");
}

/// Replays inline `data:` chunks (one per line, `[DONE]` included only if given).
fn check_chunks(chunks: &[&str], expected: Vec<StreamEvent>) {
    let stream: String = chunks.iter().map(|chunk| format!("data: {chunk}\n\n")).collect();
    let mut decoder = OpenAiDecoder::new(SEED);
    assert_eq!(replay(&mut decoder, &split(&stream)), expected, "{chunks:?}");
}

fn usage(input_tokens: u64, output_tokens: u64, cache_read: u64) -> StreamEvent {
    StreamEvent::Usage(Usage { input_tokens, output_tokens, cache_write: 0, cache_read })
}

fn done(stop_reason: StopReason) -> StreamEvent {
    StreamEvent::Done(Completion { stop_reason, thinking: Vec::new(), dropped_tool_calls: Vec::new() })
}

fn protocol(message: &str) -> StreamEvent {
    StreamEvent::Error(LlmError::Protocol { message: message.to_string() })
}

const ADD: &str = r#"{"a":2,"b":3}"#;

#[test]
fn openai_text() {
    check("openai-text.sse", vec![text("Olá!"), usage(20, 2, 0), done(StopReason::EndTurn)]);
}

#[test]
fn openai_parallel_tool_calls_accumulate_by_index() {
    check(
        "openai-tool-calls-parallel.sse",
        vec![
            calls(&[
                ("call_ehIWdjL1abZk1h8FWGLQ0Hie", "add", r#"{"a": 2, "b": 3}"#),
                ("call_fBSgA47J5VeONggizTIvl7AH", "multiply", r#"{"a": 2, "b": 3}"#),
            ]),
            usage(106, 50, 0),
            done(StopReason::ToolUse),
        ],
    );
}

#[test]
fn openai_cached_tokens_are_subtracted_from_input() {
    check("openai-usage-cached.sse", vec![text("The build passes."), usage(193, 4, 1920), done(StopReason::EndTurn)]);
}

#[test]
fn openai_finish_length_is_max_tokens() {
    check("openai-finish-length.sse", vec![text("{\""), usage(79, 1, 0), done(StopReason::MaxTokens)]);
}

#[test]
fn openai_refusal_is_shown_as_text() {
    check(
        "openai-refusal.sse",
        vec![text("I'm sorry, I can't assist with that request."), usage(79, 11, 0), done(StopReason::EndTurn)],
    );
}

#[test]
fn vllm_tool_call_with_args_fragment_on_the_finish_chunk() {
    check(
        "vllm-tool-call.sse",
        vec![
            text("I'll open the file."),
            calls(&[("chatcmpl-tool-5b1e9c0f7a2d4e83", "read_file", r#"{"path": "src/main.rs"}"#)]),
            usage(318, 29, 0),
            done(StopReason::ToolUse),
        ],
    );
}

#[test]
fn vllm_in_band_error_after_partial_text_fails() {
    check(
        "vllm-error-after-200.sse",
        vec![
            text("Here is"),
            StreamEvent::Error(LlmError::Server {
                status: 500,
                message: "EngineCore encountered an issue. See stack trace (above) for the root cause.".to_string(),
                retry_after: None,
            }),
        ],
    );
}

#[test]
fn ollama_reasoning_and_whole_call_in_one_chunk() {
    check(
        "ollama-tool-call.sse",
        vec![
            thinking("The user wants the file contents."),
            calls(&[("call_k3x9q2mf", "read_file", r#"{"path":"src/main.rs"}"#)]),
            usage(312, 41, 0),
            done(StopReason::ToolUse),
        ],
    );
}

#[test]
fn ollama_2026_layout() {
    check(
        "ollama-tool-call-2026.sse",
        vec![
            thinking("Need the file."),
            calls(&[("call_0p7wzq1d", "read_file", r#"{"path":"src/main.rs"}"#)]),
            usage(312, 38, 0),
            done(StopReason::ToolUse),
        ],
    );
}

#[test]
fn llamacpp_reasoning_content_and_first_args_fragment_with_the_id() {
    check(
        "llamacpp-tool-call.sse",
        vec![
            thinking("User wants weather in Florence, Italy. We can use the weather function."),
            calls(&[("g2KOIWzn722hzEaZQmNVP4roUPEiYafL", "weather", r#"{"location":"Florence, Italy"}"#)]),
            usage(139, 41, 0),
            done(StopReason::ToolUse),
        ],
    );
}

#[test]
fn deepseek_reasoning_then_text_with_usage_on_the_finish_chunk() {
    check(
        "deepseek-reasoning.sse",
        vec![
            thinking("The user asks how to run one test.\n\n"),
            text("Run `cargo test name`."),
            usage(24, 19, 0),
            done(StopReason::EndTurn),
        ],
    );
}

#[test]
fn openrouter_repeated_finish_chunk_takes_the_second_usage() {
    check(
        "openrouter-tool-call.sse",
        vec![
            calls(&[("toolu_bdrk_01RiGtttFSGiqX2bR4Uoz434", "weather", r#"{"location": "Florence, Italy"}"#)]),
            usage(577, 54, 0),
            done(StopReason::ToolUse),
        ],
    );
}

#[test]
fn groq_usage_sent_twice_is_not_added() {
    check(
        "groq-parallel-tool-calls.sse",
        vec![
            text("I'll perform both addition and multiplication on the numbers 2 and 3 for you."),
            calls(&[("functions.add:0", "add", ADD), ("functions.multiply:1", "multiply", ADD)]),
            usage(201, 58, 0),
            done(StopReason::ToolUse),
        ],
    );
}

#[test]
fn xai_cached_tokens_are_subtracted_and_total_is_ignored() {
    check(
        "xai-parallel-tool-calls.sse",
        vec![
            calls(&[("call_55070233", "add", ADD), ("call_12016531", "multiply", ADD)]),
            usage(279, 68, 153),
            done(StopReason::ToolUse),
        ],
    );
}

#[test]
fn zai_reasoning_text_and_calls_without_finish_reason_keys() {
    check(
        "zai-reasoning-parallel-tool-calls.sse",
        vec![
            thinking(
                "The user wants me to both add and multiply the numbers 2 and 3. I need to use both the add and multiply functions on the same time, as instructed.\n\nFor add: a=2, b=3\nFor multiply: a=2, b=3\n\nI'll call both functions together.",
            ),
            text("I'll both add and multiply the numbers 2 and 3 for you."),
            calls(&[("call_4f8cb52342424eb9bbc1b20e", "add", ADD), ("call_0d06add371834452b339ffdb", "multiply", ADD)]),
            usage(232, 112, 43),
            done(StopReason::ToolUse),
        ],
    );
}

#[test]
fn calls_without_index_or_id_get_slots_and_synthesised_ids() {
    check_chunks(
        &[
            // Gemini-style: no index, a new id opens a call.
            r#"{"choices":[{"delta":{"tool_calls":[{"id":"g1","function":{"name":"add","arguments":"{\"a\":"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"function":{"name":"add","arguments":"1}"}}]}}]}"#,
            // No id at all, then LM Studio-style continuation with "name": "" and a repeated id.
            r#"{"choices":[{"delta":{"tool_calls":[{"index":5,"function":{"name":"glob","arguments":""}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":5,"id":"","function":{"name":"","arguments":"{}"}}]}}]}"#,
            r#"{"choices":[{"delta":{},"finish_reason":"stop"}]}"#,
            "[DONE]",
        ],
        vec![
            calls(&[("g1", "add", r#"{"a":1}"#), ("call_H8DqTp4fg6ohl18SNPlmqI6R", "glob", "{}")]),
            done(StopReason::ToolUse),
        ],
    );
}

#[test]
fn finish_reason_without_done_is_complete() {
    check_chunks(
        &[r#"{"choices":[{"delta":{"content":"ok"},"finish_reason":"stop"}]}"#],
        vec![text("ok"), done(StopReason::EndTurn)],
    );
}

#[test]
fn eof_without_done_or_finish_reason_is_truncated() {
    check_chunks(
        &[r#"{"choices":[{"delta":{"content":"partial"}}]}"#],
        vec![text("partial"), protocol("the stream ended without [DONE] and without a finish_reason")],
    );
}

#[test]
fn eof_mid_tool_call_is_truncated() {
    check_chunks(
        &[
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"add","arguments":"{\"a\":"}}]}}]}"#,
            r#"{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}"#,
        ],
        vec![protocol("the stream ended without [DONE] in the middle of a tool call")],
    );
}

#[test]
fn empty_stream_with_done_is_a_failure() {
    check_chunks(
        &[r#"{"choices":[{"delta":{"role":"assistant","content":""}}]}"#, "[DONE]"],
        vec![protocol(
            "the stream ended with no content, no tool calls and no finish_reason (a server that fails after its 200 says why in its own log)",
        )],
    );
}

#[test]
fn finish_reason_error_fails_the_stream() {
    check_chunks(
        &[r#"{"choices":[{"delta":{"content":"Hel"},"finish_reason":"error"}]}"#, "[DONE]"],
        vec![
            text("Hel"),
            StreamEvent::Error(LlmError::Server {
                status: 500,
                message: "the server ended the stream with finish_reason \"error\"".to_string(),
                retry_after: None,
            }),
        ],
    );
}

#[test]
fn invalid_arguments_pass_through_but_a_cut_off_call_at_length_is_dropped() {
    check_chunks(
        &[
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"add","arguments":"{a:1}"}}]},"finish_reason":"stop"}]}"#,
            "[DONE]",
        ],
        vec![calls(&[("c1", "add", "{a:1}")]), done(StopReason::ToolUse)],
    );
    check_chunks(
        &[
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"write","arguments":"{\"text\":\"lo"}}]},"finish_reason":"length"}]}"#,
            "[DONE]",
        ],
        vec![StreamEvent::Done(Completion {
            stop_reason: StopReason::MaxTokens,
            thinking: Vec::new(),
            dropped_tool_calls: vec!["write".to_string()],
        })],
    );
}

#[test]
fn a_chunk_that_is_not_json_is_a_protocol_error() {
    let mut decoder = OpenAiDecoder::new(SEED);
    let result = decoder.feed(&split("data: {\"choices\":[\n\n")[0], &mut Vec::new());
    assert!(matches!(result, Err(LlmError::Protocol { .. })), "{result:?}");
}

// What local models (vLLM, Ollama, llama.cpp serving small open models) put in `content`,
// replayed from `fixtures/local-models/` through the decoder: tool calls written as text in
// each format become `ToolCalls`, `<think>` becomes Thinking, and everything that is not a
// valid call to an offered tool stays text, byte for byte.
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

fn check_local(fixture: &str, expected: Vec<StreamEvent>) {
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

fn local_usage() -> StreamEvent {
    StreamEvent::Usage(Usage { input_tokens: 300, output_tokens: 40, cache_write: 0, cache_read: 0 })
}

/// The ids the decoder makes for recovered calls from `SEED` (`call_text_` + 24 alphanumerics).
const ID_1: &str = "call_text_H8DqTp4fg6ohl18SNPlmqI6R";
const ID_2: &str = "call_text_yC9eeVFBBs9EdkbjJtqDepaW";

#[test]
fn hermes_tool_calls_become_calls_and_the_prose_is_kept() {
    check_local(
        "hermes-two-calls.sse",
        vec![
            text("I'll read both files.\n"),
            calls(&[(ID_1, "read_file", r#"{"path":"a.txt"}"#), (ID_2, "read_file", r#"{"path":"b.txt"}"#)]),
            local_usage(),
            done(StopReason::ToolUse),
        ],
    );
}

#[test]
fn qwen3_coder_think_then_function_call_with_typed_parameters() {
    check_local(
        "qwen3-coder-think-function.sse",
        vec![
            thinking("\nThe user wants main.rs.\n"),
            text("Let me look.\n\n"),
            calls(&[(ID_1, "read_file", r#"{"path":"src/main.rs","limit":20}"#)]),
            local_usage(),
            done(StopReason::ToolUse),
        ],
    );
}

#[test]
fn mistral_tool_calls_array_becomes_calls() {
    check_local(
        "mistral-tool-calls.sse",
        vec![
            calls(&[(ID_1, "glob", r#"{"pattern":"*.rs"}"#), (ID_2, "read_file", r#"{"path":"Cargo.toml"}"#)]),
            local_usage(),
            done(StopReason::ToolUse),
        ],
    );
}

#[test]
fn fenced_json_naming_a_tool_becomes_a_call_between_prose() {
    check_local(
        "fenced-json-call.sse",
        vec![
            text("Sure, I'll check it:\nThen I'll summarise."),
            calls(&[(ID_1, "read_file", r#"{"path":"README.md"}"#)]),
            local_usage(),
            done(StopReason::ToolUse),
        ],
    );
}

#[test]
fn malformed_json_in_a_tool_call_stays_text() {
    check_local(
        "malformed-json-stays-text.sse",
        vec![
            text("<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": }\n</tool_call>"),
            local_usage(),
            done(StopReason::EndTurn),
        ],
    );
}

#[test]
fn a_call_to_a_tool_not_offered_stays_text() {
    check_local(
        "unknown-tool-stays-text.sse",
        vec![
            text("Running it now.\n<tool_call>\n{\"name\": \"delete_everything\", \"arguments\": {}}\n</tool_call>"),
            local_usage(),
            done(StopReason::EndTurn),
        ],
    );
}

#[test]
fn prose_that_mentions_the_formats_stays_text() {
    check_local(
        "mention-only-prose.sse",
        vec![
            text(
                "To call a tool, wrap JSON in <tool_call> tags, or write [TOOL_CALLS] before it, not <function= alone. Example:\n```python\nprint(1)\n```\nDone.",
            ),
            local_usage(),
            done(StopReason::EndTurn),
        ],
    );
}

#[test]
fn an_unterminated_think_block_is_all_thinking() {
    check_local(
        "think-unterminated.sse",
        vec![thinking("Let me think about this carefully"), local_usage(), done(StopReason::MaxTokens)],
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
