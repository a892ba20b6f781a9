//! Unit tests of `decode.rs`: every Anthropic transcript replayed, compared whole with the events expected.

use super::AnthropicDecoder;
use crate::llm::decode::Decoder;
use crate::llm::test_server::fixture::{load, replay, split, text};
use crate::llm::{Completion, LlmError, StopReason, StreamEvent};
use crate::msg::{ThinkingBlock, ToolCall, Usage};

fn check(fixture: &str, expected: Vec<StreamEvent>) {
    let mut decoder = AnthropicDecoder::new();
    assert_eq!(replay(&mut decoder, &load(fixture)), expected, "{fixture}");
}

fn call(id: &str, name: &str, input: &str) -> ToolCall {
    ToolCall { id: id.to_string(), name: name.to_string(), input: input.to_string() }
}

fn usage(input_tokens: u64, output_tokens: u64, cache_write: u64, cache_read: u64) -> StreamEvent {
    StreamEvent::Usage(Usage { input_tokens, output_tokens, cache_write, cache_read })
}

fn done(stop_reason: StopReason) -> StreamEvent {
    StreamEvent::Done(Completion { stop_reason, thinking: Vec::new(), dropped_tool_calls: Vec::new() })
}

fn overloaded() -> StreamEvent {
    StreamEvent::Error(LlmError::Overloaded { message: "Overloaded".to_string(), retry_after: None })
}

const THINKING_TOOL_TEXT: &str = "The user is asking for weather information for Florence, Italy. I have access to a weather function that takes a location parameter. The user has provided the location as \"Florence, Italy\" which is specific enough for the weather function. I have all the required parameters to make the function call.";
const THINKING_TOOL_SIGNATURE: &str = "EtYDCkYICxgCKkAVHEWRYo6RgSMs4ZZDX4gW16kdfp2EIXftcLesVephGa/p1m+1Y8mRQPvvKOQICrOkGKYoJBKSNLJ4ukI/mo6LEgx7FMTwIpYzM2WTWT8aDKY6c2i52xIX2NYX3SIwY5gI8frldE4pwUhseod0S0xZV2hTAQhqMCOu4+effAu250K2RPrqrO98+VD/hjF9Kr0C7EzGQ7dZ7MNwrkE+tCARkzIRk5Wtv8vVAhADlMcs78QvxmjOToU65I91p7w2/VP11peDoc9+7AbyldRKGp3chNnQgXHI7ObK89s0ltFBGrLf6tegaQL9httOtcUGCioZnI9LI9vJHMlQeoZiiWRq8hVbHlHc3f6BwBqlUJhYUyk7ld34UoaSNc5UKUNuLAmkOLg3KQLdbI7b3BQVdsWOhNTKd12fRJQcOLhXNSCv7hQ9FtWfV5C+pX59xF6YYIO3TCPUqWSubCtqdrDEoQVWdHtyveFA+4iixZxyqZ7Ea+kzbmc/6pXxwO2MX0rHrbe/yXWYAmU/XxY9HJTzXEO+CibGQOAaHdC11s8gOCFb8EWt3ALguFfj/p2SJtqybC44Alrjnhjqk+7Mi+DoMcINUh7SCK9rVl4VeDhPFVAYAQ==";

#[test]
fn text_stream_ends_with_usage_and_end_turn() {
    check(
        "anthropic-text.sse",
        vec![
            text(
                "Olá! (That's \"hi\" in Portuguese)\n\nYou could also say \"Oi!\" which is a more casual way to say hi in Portuguese.",
            ),
            usage(16, 38, 0, 0),
            done(StopReason::EndTurn),
        ],
    );
}

#[test]
fn tool_use_input_is_the_raw_concatenated_json() {
    check(
        "anthropic-tool-use.sse",
        vec![
            text("I'll get the weather information for Florence, Italy for you."),
            StreamEvent::ToolCalls(vec![call(
                "toolu_01N2eM4V43kGCDkq2Lw7ChWQ",
                "weather",
                r#"{"location": "Florence,Italy"}"#,
            )]),
            usage(394, 67, 0, 0),
            done(StopReason::ToolUse),
        ],
    );
}

#[test]
fn prompt_below_cache_minimum_reports_zero_cache_tokens() {
    check(
        "anthropic-cache-control-below-minimum.sse",
        vec![
            text(
                "Olá! (Oh-LAH)\n\nThat's \"hello\" in Portuguese. You can also say \"Oi!\" (Oy) for a more casual \"hi!\"",
            ),
            usage(16, 43, 0, 0),
            done(StopReason::EndTurn),
        ],
    );
}

#[test]
fn parallel_tool_use_keeps_block_order() {
    check(
        "anthropic-parallel-tool-use.sse",
        vec![
            text("I'll add and multiply the numbers 2 and 3 for you."),
            StreamEvent::ToolCalls(vec![
                call("toolu_01UYxUYC2zRPY8wiutnF48eP", "add", r#"{"a": 2, "b": 3}"#),
                call("toolu_01VaRx1jpWCvPhi7L4kywAcd", "multiply", r#"{"a": 2, "b": 3}"#),
            ]),
            usage(502, 137, 0, 0),
            done(StopReason::ToolUse),
        ],
    );
}

#[test]
fn thinking_is_streamed_and_returned_signed() {
    check(
        "anthropic-thinking-tool.sse",
        vec![
            StreamEvent::Thinking(THINKING_TOOL_TEXT.to_string()),
            StreamEvent::ToolCalls(vec![call(
                "toolu_01Js4AMfx5qpTLhwTusnvT68",
                "weather",
                r#"{"location": "Florence, Italy"}"#,
            )]),
            usage(424, 119, 0, 0),
            StreamEvent::Done(Completion {
                stop_reason: StopReason::ToolUse,
                thinking: vec![ThinkingBlock::Signed {
                    text: THINKING_TOOL_TEXT.to_string(),
                    signature: THINKING_TOOL_SIGNATURE.to_string(),
                }],
                dropped_tool_calls: Vec::new(),
            }),
        ],
    );
    assert_eq!((THINKING_TOOL_TEXT.chars().count(), THINKING_TOOL_SIGNATURE.len()), (301, 636));
}

#[test]
fn tool_call_cut_off_by_max_tokens_is_dropped_and_named() {
    check(
        "anthropic-max-tokens-partial-json.sse",
        vec![
            text(
                "I'll create a comprehensive tax guide for someone with multiple W2s and save it in a file called taxes.txt. Let me do that for you now.",
            ),
            usage(450, 124, 0, 0),
            StreamEvent::Done(Completion {
                stop_reason: StopReason::MaxTokens,
                thinking: Vec::new(),
                dropped_tool_calls: vec!["make_file".to_string()],
            }),
        ],
    );
}

#[test]
fn refusal_has_no_text_and_overwrites_output_usage() {
    check("anthropic-refusal.sse", vec![usage(20, 0, 0, 0), done(StopReason::Refusal)]);
}

#[test]
fn error_event_after_partial_text_is_an_error() {
    check("anthropic-error-overloaded.sse", vec![text("Let me look at the failing test first."), overloaded()]);
}

#[test]
fn error_event_before_any_output_is_an_error_without_output() {
    let mut decoder = AnthropicDecoder::new();
    let events = replay(&mut decoder, &load("anthropic-error-overloaded-first.sse"));
    assert_eq!((events, decoder.has_output()), (vec![overloaded()], false));
}

#[test]
fn cache_write_is_reported_apart_from_input() {
    check(
        "anthropic-prompt-cache-write.sse",
        vec![text("I have read the repository map."), usage(14, 9, 14872, 0), done(StopReason::EndTurn)],
    );
}

#[test]
fn cache_hit_is_reported_apart_from_input() {
    check(
        "anthropic-prompt-cache-hit.sse",
        vec![
            text("The `parse_args` function lives in `src/cli.rs`."),
            usage(14, 19, 0, 14872),
            done(StopReason::EndTurn),
        ],
    );
}

#[test]
fn redacted_and_signed_thinking_are_kept_in_block_order() {
    check(
        "anthropic-redacted-thinking.sse",
        vec![
            StreamEvent::Thinking("The user wants a one-line answer.".to_string()),
            text("Use `cargo test -- --nocapture`."),
            usage(512, 161, 0, 0),
            StreamEvent::Done(Completion {
                stop_reason: StopReason::EndTurn,
                thinking: vec![
                    ThinkingBlock::Redacted {
                        data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj2pbyi8ZcPZrHRFNBIaLipnh2Pkj3LKBoKXWHHFNBDeSxXu0XNRyZd3RhbQ2SxY".to_string(),
                    },
                    ThinkingBlock::Signed {
                        text: "The user wants a one-line answer.".to_string(),
                        signature: "ErUBCkYIBxgCIkB0PQjRvrbnd8cEkQf2mKt5ZbT9wXw1aN3Lh6y8oQ2sVxR4uJ0kPzM7eG1cDfHqWnYbA3iUoEtS5gKjLmN2EgxcR0ZfYXNlNjRfc2lnGgwA0rP4dQ5XvLmKcT8iMJ3sNw==".to_string(),
                    },
                ],
                dropped_tool_calls: Vec::new(),
            }),
        ],
    );
}

#[test]
fn server_tool_use_is_not_a_local_tool_call() {
    check(
        "anthropic-pause-turn.sse",
        vec![text("I'll search for the current release notes."), usage(2210, 58, 0, 0), done(StopReason::PauseTurn)],
    );
}

#[test]
fn stream_cut_before_message_stop_is_a_protocol_error() {
    let mut events = load("anthropic-text.sse");
    events.truncate(events.len() - 1);
    let mut decoder = AnthropicDecoder::new();
    let replayed = replay(&mut decoder, &events);
    assert_eq!(
        replayed.last(),
        Some(&StreamEvent::Error(LlmError::Protocol {
            message: "anthropic stream ended before message_stop".to_string()
        }))
    );
}

#[test]
fn json_type_wins_over_event_name_and_empty_input_is_an_empty_object() {
    let stream = split(concat!(
        "event: message_start\n",
        "data: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n",
        "event: bogus\n",
        "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"list\",\"input\":{}}}\n\n",
        "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\"}}\n\n",
        "data: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
        "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":5}}\n\n",
        "event: message_stop\n",
        "data: {}\n\n",
    ));
    let mut decoder = AnthropicDecoder::new();
    assert_eq!(
        replay(&mut decoder, &stream),
        vec![StreamEvent::ToolCalls(vec![call("toolu_1", "list", "{}")]), usage(3, 5, 0, 0), done(StopReason::ToolUse),]
    );
}

#[test]
fn a_chunk_that_is_not_json_is_a_protocol_error() {
    let mut decoder = AnthropicDecoder::new();
    let result = decoder.feed(&split("event: ping\ndata: {oops\n\n")[0], &mut Vec::new());
    assert!(matches!(result, Err(LlmError::Protocol { .. })), "{result:?}");
}
