//! Usage through the agent loop with a scripted provider: estimated when the server sends none
//! (and the context anchor then moves), and the silent-truncation check firing or not.

use super::*;
use crate::agent::test_gate::ModeMatrix;
use crate::agent::tests::{Script, ScriptedProvider, done, settings, stop_of, submit, windowed_agent};
use crate::agent::*;
use crate::context::{ContextConfig, tokens_for_chars};
use crate::llm::StopReason;
use crate::llm::StreamEvent;
use crate::msg::{ToolCall, Usage};

fn agent(provider: Arc<ScriptedProvider>) -> Arc<Agent> {
    windowed_agent(provider, 5, 4_096)
}

fn usage(input_tokens: u64, cache_read: u64) -> Usage {
    Usage { input_tokens, output_tokens: 20, cache_write: 0, cache_read }
}

/// Runs one turn on `prompt`; returns the conversation, the events and the stop.
fn run_prompt(agent: &Arc<Agent>, prompt: &str) -> (Conversation, Vec<Event>, Stop) {
    let mut conversation = Conversation::default();
    let events = submit(agent, &mut conversation, prompt, Mode::Default, CancelToken::new());
    let stop = stop_of(&events).expect("Done");
    (conversation, events, stop)
}

fn usages(events: &[Event]) -> Vec<(Usage, bool)> {
    events
        .iter()
        .filter_map(
            |event| if let Event::Usage { usage, estimated, .. } = event { Some((*usage, *estimated)) } else { None },
        )
        .collect()
}

fn errors(events: &[Event]) -> Vec<&str> {
    events
        .iter()
        .filter_map(|event| if let Event::Error(failure) = event { Some(failure.message.as_str()) } else { None })
        .collect()
}

#[test]
fn usage_is_estimated_from_characters_when_the_server_sends_none_and_the_anchor_moves() {
    let answer = "x".repeat(700);
    let provider =
        ScriptedProvider::new(vec![Script::Events(vec![StreamEvent::Text(answer), done(StopReason::EndTurn)])]);
    let agent = agent(provider.clone());
    let (conversation, events, stop) = run_prompt(&agent, &"p".repeat(7_000));
    assert_eq!(stop, Stop::Completed);
    let request = &provider.requests()[0];
    let prompt_chars = fixed_chars(&request.system, &request.tools) + 7_000;
    let expected =
        Usage { input_tokens: tokens_for_chars(prompt_chars), output_tokens: 200, cache_write: 0, cache_read: 0 };
    assert_eq!(usages(&events), [(expected, true)]);
    assert!(expected.input_tokens > 2_000, "{expected:?}");
    // The anchor is the estimate (system prompt and tools included), not 0 and not messages only.
    // And it covers the answer too: counting what is new adds nothing.
    let mut conversation = conversation;
    conversation.count_new_messages();
    assert_eq!(conversation.context.estimate.tokens(), expected.total());
}

#[test]
fn a_reported_usage_is_passed_on_as_is() {
    let provider = ScriptedProvider::new(vec![Script::Events(vec![
        StreamEvent::Text("ok".into()),
        StreamEvent::Usage(usage(2_500, 0)),
        done(StopReason::EndTurn),
    ])]);
    let agent = agent(provider);
    let (_, events, stop) = run_prompt(&agent, &"p".repeat(7_000));
    assert_eq!(stop, Stop::Completed);
    assert_eq!(usages(&events), [(usage(2_500, 0), false)]);
    assert!(errors(&events).is_empty());
}

#[test]
fn a_prompt_the_server_cut_stops_the_turn_with_the_fix() {
    let call = ToolCall { id: "c1".into(), name: "read".into(), input: "{}".into() };
    let provider = ScriptedProvider::new(vec![Script::Events(vec![
        StreamEvent::ToolCalls(vec![call]),
        // About 5 800 tokens sent (20 000 characters), 1 500 read: Ollama at num_ctx 2048.
        StreamEvent::Usage(usage(1_200, 300)),
        done(StopReason::ToolUse),
    ])]);
    let agent = agent(provider.clone());
    let (conversation, events, stop) = run_prompt(&agent, &"p".repeat(20_000));
    assert_eq!(stop, Stop::Failed);
    let errors = errors(&events);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].starts_with("the server read only 1500 prompt tokens of about "), "{}", errors[0]);
    assert!(errors[0].contains("OLLAMA_CONTEXT_LENGTH") && errors[0].contains("context_window"), "{}", errors[0]);
    // The tool call made from a partial prompt is not run, and history stays valid.
    assert!(!events.iter().any(|event| matches!(event, Event::ToolStart { .. })));
    let history = conversation.history();
    assert_eq!(history.last().map(|message| message.role), Some(Role::Assistant));
    assert_eq!(provider.requests().len(), 1);
}

#[test]
fn a_server_that_refuses_overlong_prompts_is_never_suspected_of_cutting_them() {
    let provider = ScriptedProvider::new(vec![Script::Events(vec![
        StreamEvent::Text("ok".into()),
        StreamEvent::Usage(usage(1_200, 300)),
        done(StopReason::EndTurn),
    ])]);
    let agent = agent(provider.clone());
    let public = Arc::new(Agent {
        toolbox: Arc::new(Toolbox {
            provider,
            max_tokens: 1000,
            gate: Arc::new(ModeMatrix),
            hooks: crate::hooks::Hooks::default(),
            checks: crate::checks::Checks::default(),
            environment: crate::agent::toolbox::Environment::fixed("env"),
            silent_truncation: None,
        }),
        registry: Registry::new(),
        stable_prompt: agent.stable_prompt.clone(),
        settings: settings(5, FrontEnd::Headless),
        context: ContextConfig::default(),
    });
    let (_, events, stop) = run_prompt(&public, &"p".repeat(20_000));
    assert_eq!(stop, Stop::Completed);
    assert!(errors(&events).is_empty());
}

#[test]
fn a_prompt_well_inside_a_reported_window_is_never_called_cut() {
    let provider = ScriptedProvider::new(vec![Script::Events(vec![
        StreamEvent::Text("ok".into()),
        StreamEvent::Usage(usage(1_200, 300)),
        done(StopReason::EndTurn),
    ])]);
    // The server reported a 32 768-token window: nothing under 80 % of it can have been cut.
    let toolbox = Toolbox {
        provider,
        max_tokens: 1000,
        gate: Arc::new(ModeMatrix),
        hooks: crate::hooks::Hooks::default(),
        checks: crate::checks::Checks::default(),
        environment: crate::agent::toolbox::Environment::fixed("env"),
        silent_truncation: Some(26_214),
    };
    let agent = Arc::new(Agent {
        toolbox: Arc::new(toolbox),
        registry: Registry::new(),
        stable_prompt: "stable".into(),
        settings: settings(5, FrontEnd::Headless),
        context: ContextConfig::default(),
    });
    let (_, events, stop) = run_prompt(&agent, &"p".repeat(20_000));
    assert_eq!(stop, Stop::Completed);
    assert!(errors(&events).is_empty());
}

#[test]
fn truncation_check_fires_only_far_below_the_estimate() {
    // Far below: fires.
    assert_eq!(check_truncation(1_500, 5_800), Some(Truncation { reported: 1_500, estimated: 5_800 }));
    assert_eq!(check_truncation(4_000, 60_000), Some(Truncation { reported: 4_000, estimated: 60_000 }));
    // Ordinary estimation error (prose tokenises at ~4 characters, so the estimate overshoots).
    assert_eq!(check_truncation(5_000, 5_800), None);
    assert_eq!(check_truncation(3_000, 5_800), None);
    // Exactly half is not "far fewer".
    assert_eq!(check_truncation(2_900, 5_800), None);
    // Small prompts: the estimate's error dominates.
    assert_eq!(check_truncation(600, 1_900), None);
    // A tiny report is a server counting only uncached tokens, not a cut prompt.
    assert_eq!(check_truncation(300, 9_000), None);
}

#[test]
fn prompt_meter_counts_new_messages_and_recounts_a_replaced_history() {
    let mut meter = PromptMeter::default();
    let mut messages = vec![Message::user("abcd"), Message::assistant("ef")];
    assert_eq!(meter.message_chars(&messages), 6);
    messages.push(Message::user("ghi"));
    assert_eq!(meter.message_chars(&messages), 9);
    // Compaction: a summary replaces the start (same length, another first message).
    let replaced = vec![Message::user("summary!"), Message::assistant("ef"), Message::user("ghi")];
    assert_eq!(meter.message_chars(&replaced), 13);
    assert_eq!(meter.message_chars(&replaced[..1]), 8);
}

#[test]
fn the_meter_counts_a_conversation_once_across_runs() {
    let provider = ScriptedProvider::new(vec![
        Script::Events(vec![StreamEvent::Text("one".into()), done(StopReason::EndTurn)]),
        Script::Events(vec![StreamEvent::Text("two".into()), done(StopReason::EndTurn)]),
    ]);
    let agent = agent(provider.clone());
    let mut conversation = Conversation::default();
    let mut run = |prompt: &str| usages(&submit(&agent, &mut conversation, prompt, Mode::Default, CancelToken::new()));
    let first = run(&"p".repeat(7_000));
    let second = run("again");
    let fixed = fixed_chars(&provider.requests()[0].system, &provider.requests()[0].tools);
    // The second prompt is the first one plus the answer "one" and "again", not counted twice.
    assert_eq!(first[0].0.input_tokens, tokens_for_chars(fixed + 7_000));
    assert_eq!(second[0].0.input_tokens, tokens_for_chars(fixed + 7_000 + 3 + 5));
}

#[test]
fn estimates_use_the_one_chars_per_token_constant() {
    assert_eq!(estimate_usage(35, 7), Usage { input_tokens: 10, output_tokens: 2, cache_write: 0, cache_read: 0 });
    assert!(is_missing(&Usage::default()));
    assert!(!is_missing(&usage(1, 0)));
    assert_eq!(reported_prompt(&usage(1_200, 300)), 1_500);
}

#[test]
fn a_requests_text_for_the_tokenizer_holds_every_part_the_characters_count() {
    let system = System { stable: "STABLE".into(), environment: "ENV".into() };
    let tools = vec![ToolDefinition {
        name: "read_file".into(),
        description: "Reads".into(),
        input_schema: serde_json::json!({"type": "object"}),
    }];
    let mut call = Message::assistant("thinking aloud");
    call.tool_calls =
        vec![crate::msg::ToolCall { id: "c1".into(), name: "read_file".into(), input: r#"{"path":"a"}"#.into() }];
    let results = Message::tool_results(vec![crate::msg::ToolResult {
        tool_call_id: "c1".into(),
        content: "RESULT".into(),
        is_error: false,
        images: Vec::new(),
    }]);
    let text = request_text(&system, &[Message::user("PROMPT"), call, results], &tools, Some("REMINDER"));
    for part in [
        "STABLE",
        "ENV",
        "read_file",
        "Reads",
        r#"{"type":"object"}"#,
        "PROMPT",
        "thinking aloud",
        r#"{"path":"a"}"#,
        "RESULT",
        "REMINDER",
    ] {
        assert!(text.contains(part), "{part} in {text}");
    }
    assert!(!text.contains("\n\n"), "empty parts are left out: {text:?}");
}
