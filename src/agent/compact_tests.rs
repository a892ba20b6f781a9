//! Context management through the agent loop, with a scripted provider: automatic compaction
//! after a usage crossing the threshold, emergency compaction on prompt-too-long (once per
//! iteration), the breaker, and the manual `/compact`.

use crate::agent::tests::{Script, ScriptedProvider, done, stop_of, submit, text_turn, windowed_agent};
use crate::agent::*;
use crate::context::summary::SUMMARY_PROMPT;
use crate::context::{Trigger, estimate_messages};
use crate::llm::StopReason;
use crate::llm::{LlmError, StreamEvent};
use crate::msg::{Request, ToolCall, Usage};
use crate::test_dir::TempDir;

/// A window whose automatic threshold is 70 834 tokens (100 000 − 100 000/6 − 100 000/8).
const WINDOW: u64 = 100_000;

fn scripted_agent(provider: Arc<ScriptedProvider>) -> Arc<Agent> {
    windowed_agent(provider, 10, WINDOW)
}

/// Earlier turns of about 5 700 tokens each (letters a, b, c, ...).
fn old_messages(count: usize) -> Vec<Message> {
    (0..count)
        .map(|index| {
            let text = ((b'a' + index as u8) as char).to_string().repeat(20_000);
            if index % 2 == 0 { Message::user(text) } else { Message::assistant(text) }
        })
        .collect()
}

/// A conversation of `old_messages(count)`; the tests submit "do it" to it.
fn old_conversation(count: usize) -> Conversation {
    Conversation::unlogged(old_messages(count))
}

/// `/compact` on `conversation`, to the end; the conversation is back in place.
fn compact_now(agent: &Arc<Agent>, conversation: &mut Conversation) -> Vec<Event> {
    let running = agent.compact(std::mem::take(conversation), Mode::Default, CancelToken::new());
    let events = running.events().iter().collect();
    *conversation = running.finish();
    events
}

fn read_turn(id: &str, input_tokens: u64) -> Script {
    let call = ToolCall { id: id.into(), name: "read".into(), input: "{}".into() };
    Script::Events(vec![
        StreamEvent::ToolCalls(vec![call]),
        StreamEvent::Usage(Usage { input_tokens, output_tokens: 10, cache_write: 0, cache_read: 0 }),
        done(StopReason::ToolUse),
    ])
}

/// `read_turn` whose call carries `pad` characters of input, so the messages are as big as the
/// usage says (a summary then has something to gain).
fn padded_read_turn(id: &str, input_tokens: u64, pad: usize) -> Script {
    let input = format!("{{\"pad\":\"{}\"}}", "p".repeat(pad));
    let call = ToolCall { id: id.into(), name: "read".into(), input };
    Script::Events(vec![
        StreamEvent::ToolCalls(vec![call]),
        StreamEvent::Usage(Usage { input_tokens, output_tokens: 10, cache_write: 0, cache_read: 0 }),
        done(StopReason::ToolUse),
    ])
}

fn summary_turn(text: &str) -> Script {
    Script::Events(vec![
        StreamEvent::Text(format!("<analysis>thinking</analysis><summary>{text}</summary>")),
        // A summary's usage must not move the anchor.
        StreamEvent::Usage(Usage { input_tokens: 999_999, output_tokens: 1, cache_write: 0, cache_read: 0 }),
        done(StopReason::EndTurn),
    ])
}

fn failing_turn(error: LlmError) -> Script {
    Script::Events(vec![StreamEvent::Error(error)])
}

fn collect(events: Vec<Event>) -> (Vec<Event>, Stop) {
    let stop = stop_of(&events).expect("Done");
    (events, stop)
}

/// The compaction phases seen, as (phase, trigger).
fn phases(events: &[Event]) -> Vec<(&'static str, Trigger)> {
    events
        .iter()
        .filter_map(|event| match event {
            Event::Compact(CompactPhase::Started { trigger }) => Some(("started", *trigger)),
            Event::Compact(CompactPhase::Finished { trigger, .. }) => Some(("finished", *trigger)),
            Event::Compact(CompactPhase::Failed { trigger, .. }) => Some(("failed", *trigger)),
            _ => None,
        })
        .collect()
}

fn is_summary_request(request: &Request) -> bool {
    request.tools.is_empty() && request.messages.len() == 1 && request.messages[0].content.contains(SUMMARY_PROMPT)
}

#[test]
fn usage_over_the_threshold_compacts_before_the_next_request() {
    let provider =
        ScriptedProvider::new(vec![read_turn("r1", 75_000), summary_turn("SUMMARY-TEXT"), text_turn("finished")]);
    let agent = scripted_agent(provider.clone());
    let mut conversation = old_conversation(4);
    let (events, stop) = collect(submit(&agent, &mut conversation, "do it", Mode::Default, CancelToken::new()));
    assert_eq!(stop, Stop::Completed);
    assert_eq!(phases(&events), [("started", Trigger::Auto), ("finished", Trigger::Auto)]);
    let requests = provider.requests();
    assert_eq!(requests.len(), 3);
    // The summary request carries only the older part (a, b); c and d stay verbatim in the tail.
    let summary_request = &requests[1];
    assert!(is_summary_request(summary_request));
    assert!(summary_request.messages[0].content.contains(&"a".repeat(100)));
    assert!(!summary_request.messages[0].content.contains(&"c".repeat(100)));
    // The next request: [summary + attachment + c], d, "do it", the call, its result.
    let next = &requests[2];
    let roles: Vec<Role> = next.messages.iter().map(|message| message.role).collect();
    assert_eq!(roles, [Role::User, Role::Assistant, Role::User, Role::Assistant, Role::Tool]);
    let first = &next.messages[0].content;
    assert!(first.contains("SUMMARY-TEXT") && !first.contains("<analysis>"));
    assert!(first.contains("## Available tools\n- read: test tool"));
    assert!(first.contains("Do not infer or guess code"));
    assert!(first.ends_with(&"c".repeat(20_000)));
    assert_eq!(next.messages[2].content, "do it");
    let (before, after, history) = events
        .iter()
        .find_map(|event| match event {
            Event::Compact(CompactPhase::Finished { before_tokens, after_tokens, history, .. }) => {
                Some((*before_tokens, *after_tokens, history.clone()))
            }
            _ => None,
        })
        .unwrap();
    assert!(before >= 75_010, "{before}");
    let overhead = crate::context::overhead_tokens(&agent.system(), &agent.tools_for(Mode::Default));
    assert!(overhead > 0);
    assert_eq!(after, estimate_messages(&history) + overhead, "after compaction: characters plus system and tools");
    assert_eq!(*history, *next.messages);
}

#[test]
fn prompt_too_long_compacts_and_retries_the_request_once() {
    let too_long = || failing_turn(LlmError::PromptTooLong { message: "prompt is too long".into() });
    let provider = ScriptedProvider::new(vec![too_long(), summary_turn("S1"), text_turn("fits now")]);
    let agent = scripted_agent(provider.clone());
    let mut conversation = old_conversation(6);
    let (events, stop) = collect(submit(&agent, &mut conversation, "do it", Mode::Default, CancelToken::new()));
    assert_eq!(stop, Stop::Completed);
    assert_eq!(phases(&events), [("started", Trigger::Emergency), ("finished", Trigger::Emergency)]);
    let requests = provider.requests();
    assert_eq!(requests.len(), 3);
    assert!(is_summary_request(&requests[1]));
    assert!(requests[2].messages[0].content.contains("S1"));
    assert_eq!(conversation.history().last().unwrap().content, "fits now");

    // A second prompt-too-long in the same iteration is not retried again.
    let provider = ScriptedProvider::new(vec![too_long(), summary_turn("S2"), too_long()]);
    let agent = scripted_agent(provider.clone());
    let mut conversation = old_conversation(6);
    let (events, stop) = collect(submit(&agent, &mut conversation, "do it", Mode::Default, CancelToken::new()));
    assert_eq!(stop, Stop::Failed);
    assert_eq!(provider.requests().len(), 3);
    assert!(
        events
            .iter()
            .any(|event| matches!(event, Event::Error(failure) if failure.message.contains("prompt too long")))
    );
    assert_eq!(conversation.history().last().unwrap().role, Role::Assistant);
}

/// Three iterations over the threshold whose automatic summaries all fail (the breaker opens
/// before the fourth request), then `rest`.
fn breaker_opening(rest: impl IntoIterator<Item = Script>) -> Vec<Script> {
    let broken = || failing_turn(LlmError::Protocol { message: "summary broke".into() });
    let mut scripts = Vec::new();
    for id in ["r1", "r2", "r3"] {
        scripts.extend([read_turn(id, 75_000), broken()]);
    }
    scripts.extend(rest);
    scripts
}

#[test]
fn three_automatic_failures_open_the_breaker() {
    // Breaker open after the third: no summary request before the last turn.
    let provider = ScriptedProvider::new(breaker_opening([read_turn("r4", 75_000), text_turn("done")]));
    let agent = scripted_agent(provider.clone());
    let (events, stop) = collect(submit(&agent, &mut old_conversation(4), "do it", Mode::Default, CancelToken::new()));
    assert_eq!(stop, Stop::Completed);
    assert_eq!(provider.requests().len(), 8);
    assert_eq!(phases(&events).iter().filter(|(phase, _)| *phase == "failed").count(), 3);
    assert!(events.iter().any(|event| matches!(event, Event::Notice(text) if text.contains("is off"))));

    // Manual compaction ignores the open breaker.
    let mut messages = old_messages(4);
    messages.extend([Message::user("do it"), Message::assistant("answered")]);
    let mut conversation = Conversation::unlogged(messages);
    lock(provider.scripts_for_test()).push_back(summary_turn("MANUAL"));
    let (events, stop) = collect(compact_now(&agent, &mut conversation));
    assert_eq!(stop, Stop::Completed);
    assert_eq!(phases(&events), [("started", Trigger::Manual), ("finished", Trigger::Manual)]);
    let history = conversation.history();
    assert!(history[0].content.contains("MANUAL"));
    assert_eq!(history.last().unwrap().content, "answered");
}

#[test]
fn another_agent_on_the_same_conversation_keeps_its_context_state() {
    // `/model` builds another agent; the conversation brings its breaker and its anchor along.
    let big_answer = Script::Events(vec![
        StreamEvent::Text("done".into()),
        StreamEvent::Usage(Usage { input_tokens: 75_000, output_tokens: 10, cache_write: 0, cache_read: 0 }),
        done(StopReason::EndTurn),
    ]);
    let first = ScriptedProvider::new(breaker_opening([big_answer]));
    let mut conversation = old_conversation(4);
    let (_, stop) =
        collect(submit(&scripted_agent(first), &mut conversation, "do it", Mode::Default, CancelToken::new()));
    assert_eq!(stop, Stop::Completed);
    assert!(conversation.context.breaker.is_open());
    // Over the threshold by the anchor, but the breaker is open: the new model gets the request
    // as it is, and no summary is asked for.
    let second = ScriptedProvider::new(vec![text_turn("still here")]);
    let agent = scripted_agent(second.clone());
    let (events, stop) = collect(submit(&agent, &mut conversation, "go on", Mode::Default, CancelToken::new()));
    assert_eq!(stop, Stop::Completed);
    assert_eq!(phases(&events), []);
    assert_eq!(second.requests().len(), 1);
    assert!(!is_summary_request(&second.requests()[0]));
    // A new conversation (`/clear`, a resume) starts afresh with the same agent.
    assert!(!Conversation::default().context.breaker.is_open());
}

#[test]
fn manual_compaction_of_a_short_conversation_fails_and_keeps_the_history() {
    let provider = ScriptedProvider::new(Vec::new());
    let agent = scripted_agent(provider.clone());
    let mut conversation = Conversation::unlogged(vec![Message::user("hi"), Message::assistant("yo")]);
    let (events, stop) = collect(compact_now(&agent, &mut conversation));
    assert_eq!(stop, Stop::Failed);
    // Nothing could come of it, so nothing was started: only the reason.
    assert_eq!(phases(&events), [("failed", Trigger::Manual)]);
    assert_eq!(conversation.history().len(), 2);
    assert!(provider.requests().is_empty());
}

/// An agent for a local model with a 4 096-token window.
fn small_window_agent(provider: Arc<ScriptedProvider>) -> Arc<Agent> {
    windowed_agent(provider, 10, 4_096)
}

#[test]
fn a_small_window_compacts_a_three_message_conversation_and_restates_the_prompt() {
    // The first answer's usage (2 950 tokens) is over 4 096's threshold (2 902): the next
    // iteration compacts [prompt, call, result] and keeps the prompt verbatim.
    let provider =
        ScriptedProvider::new(vec![padded_read_turn("r1", 2_940, 8_000), summary_turn("SMALL"), text_turn("done")]);
    let agent = small_window_agent(provider.clone());
    let mut conversation = Conversation::default();
    let (events, stop) = collect(submit(&agent, &mut conversation, "read the log", Mode::Default, CancelToken::new()));
    assert_eq!(stop, Stop::Completed);
    assert_eq!(phases(&events), [("started", Trigger::Auto), ("finished", Trigger::Auto)]);
    let requests = provider.requests();
    assert!(is_summary_request(&requests[1]));
    assert_eq!(requests[1].max_tokens, 512, "the summary's output fits the window");
    assert!(requests[1].messages[0].content.contains("[tool result r1]"));
    let next = &requests[2];
    assert_eq!(next.messages.len(), 1);
    assert!(next.messages[0].content.contains("SMALL") && next.messages[0].content.ends_with("read the log"));
    assert!(notices(&events).is_empty(), "under the threshold after it: nothing to say: {:?}", notices(&events));
}

#[test]
fn a_latest_message_larger_than_a_small_window_fails_with_the_reason() {
    let too_long = || failing_turn(LlmError::PromptTooLong { message: "exceeds the available context size".into() });
    let provider = ScriptedProvider::new(vec![too_long()]);
    let agent = small_window_agent(provider.clone());
    let prompt = "z".repeat(21_000);
    let (events, stop) =
        collect(submit(&agent, &mut Conversation::default(), &prompt, Mode::Default, CancelToken::new()));
    assert_eq!(stop, Stop::Failed);
    assert_eq!(provider.requests().len(), 1, "no summary request: it could not help");
    let error = events
        .iter()
        .find_map(|event| if let Event::Error(failure) = event { Some(failure.message.clone()) } else { None });
    let error = error.unwrap();
    assert!(
        error.contains("compaction could not make it fit: the latest message alone is about 6000 tokens and the context window is 4096 tokens"),
        "{error}"
    );
    assert!(error.contains("raise context_window"), "{error}");
}

#[test]
fn manual_compaction_in_a_small_window_keeps_the_prompt_and_the_final_answer() {
    let provider = ScriptedProvider::new(vec![summary_turn("MANUAL-SMALL")]);
    let agent = small_window_agent(provider.clone());
    let mut call = Message::assistant("");
    call.tool_calls = vec![ToolCall { id: "r1".into(), name: "read".into(), input: "{}".into() }];
    let result = Message::tool_results(vec![crate::msg::ToolResult {
        tool_call_id: "r1".into(),
        content: "x".repeat(3_000),
        is_error: false,
        images: Vec::new(),
    }]);
    let mut conversation =
        Conversation::unlogged(vec![Message::user("read the log"), call, result, Message::assistant("It is all x.")]);
    let (events, stop) = collect(compact_now(&agent, &mut conversation));
    assert_eq!(stop, Stop::Completed);
    assert_eq!(phases(&events), [("started", Trigger::Manual), ("finished", Trigger::Manual)]);
    let history = conversation.history();
    assert_eq!(history.iter().map(|message| message.role).collect::<Vec<_>>(), [Role::User, Role::Assistant]);
    assert!(history[0].content.contains("MANUAL-SMALL") && history[0].content.ends_with("read the log"));
    assert_eq!(history[1].content, "It is all x.", "the answer stays, so the next prompt follows an assistant message");
    assert!(provider.requests()[0].messages[0].content.contains(&"x".repeat(1_000)), "the read is summarised");
}

#[test]
fn a_resumed_history_is_compacted_before_its_first_request_only_with_a_window() {
    let provider = ScriptedProvider::new(vec![summary_turn("RESUMED"), text_turn("go on")]);
    let mut conversation = old_conversation(4);
    conversation.context.compact_first = true;
    let (events, stop) = collect(submit(
        &scripted_agent(provider.clone()),
        &mut conversation,
        "do it",
        Mode::Default,
        CancelToken::new(),
    ));
    assert_eq!(stop, Stop::Completed);
    assert_eq!(phases(&events), [("started", Trigger::Auto), ("finished", Trigger::Auto)]);
    let requests = provider.requests();
    assert!(is_summary_request(&requests[0]), "under the threshold, yet summarised first");
    assert!(requests[1].messages[0].content.contains("RESUMED"));
    assert_eq!(requests[1].messages.last().unwrap().content, "do it", "the prompt is kept verbatim");

    // An agent without a window (a sub-agent) never summarises, whatever the conversation asks.
    let provider = ScriptedProvider::new(vec![text_turn("fine")]);
    let mut conversation = old_conversation(4);
    conversation.context.compact_first = true;
    let agent = windowed_agent(provider.clone(), 10, 0);
    let (events, stop) = collect(submit(&agent, &mut conversation, "do it", Mode::Default, CancelToken::new()));
    assert_eq!(stop, Stop::Completed);
    assert_eq!(phases(&events), []);
    assert_eq!(provider.requests().len(), 1);
}

#[test]
fn the_reply_budget_shrinks_to_what_the_window_leaves() {
    // 4 096 tokens of window, about 3 000 of prompt: the configured 1 000 does not fit.
    let provider = ScriptedProvider::new(vec![text_turn("ok")]);
    let prompt = "p".repeat(10_500);
    let mut conversation = Conversation::default();
    submit(&small_window_agent(provider.clone()), &mut conversation, &prompt, Mode::Default, CancelToken::new());
    let max_tokens = provider.requests()[0].max_tokens;
    assert!((4_096 / 16..1000).contains(&max_tokens), "{max_tokens}");
    // Without a window the configured budget goes as it is.
    let provider = ScriptedProvider::new(vec![text_turn("ok")]);
    let mut conversation = Conversation::default();
    submit(&windowed_agent(provider.clone(), 10, 0), &mut conversation, &prompt, Mode::Default, CancelToken::new());
    assert_eq!(provider.requests()[0].max_tokens, 1000);
}

/// A read-only tool whose result is `result` characters of `x` and whose description is
/// `description` characters (a fixed part the characters overstate when the server's template
/// drops descriptions).
struct BigRead {
    result: usize,
    description: usize,
}

impl BigRead {
    fn returning(result: usize) -> BigRead {
        BigRead { result, description: 9 }
    }
}

impl crate::tools::Tool for BigRead {
    fn name(&self) -> &str {
        "read"
    }
    fn rule_name(&self) -> &str {
        "Read"
    }
    fn description(&self) -> &str {
        Box::leak("w".repeat(self.description).into_boxed_str())
    }
    fn input_schema(&self) -> serde_json::Value {
        serde_json::json!({"type": "object"})
    }
    fn read_only(&self) -> bool {
        true
    }
    fn execute(&self, _input_json: &str, _ctx: &crate::tools::ToolContext) -> crate::tools::ToolOutput {
        crate::tools::ToolOutput::ok("x".repeat(self.result))
    }
}

#[test]
fn a_large_result_is_offloaded_into_the_conversations_own_session_directory() {
    let project = TempDir::new("offload");
    let sessions = project.join(".mewcode/sessions");
    let provider = ScriptedProvider::new(vec![read_turn("big-1", 100), text_turn("seen")]);
    let mut registry = Registry::new();
    registry.register(Arc::new(BigRead::returning(60_000)));
    let agent = Arc::new(Agent {
        toolbox: crate::agent::tests::toolbox(provider.clone(), crate::hooks::Hooks::default()),
        registry,
        stable_prompt: "stable".into(),
        settings: crate::agent::tests::settings(10, FrontEnd::Headless),
        context: crate::context::ContextConfig {
            window: WINDOW,
            compact_at: None,
            sessions_dir: Some(crate::context::offload::DirBeneath {
                base: project.path().to_path_buf(),
                rel: ".mewcode/sessions".into(),
            }),
        },
    });
    let mut conversation = Conversation::new("20261204-120000-abcd");
    let (events, stop) = collect(submit(&agent, &mut conversation, "read it", Mode::Default, CancelToken::new()));
    assert_eq!(stop, Stop::Completed);
    let saved = sessions.join("20261204-120000-abcd").join(crate::context::offload::TOOL_RESULTS_DIR).join("big-1");
    assert_eq!(std::fs::read_to_string(&saved).unwrap().len(), 60_000);
    let sent = &provider.requests()[1].messages[2].tool_results[0].content;
    assert!(sent.len() < 10_000 && sent.contains(&saved.display().to_string()), "{sent}");
    assert!(events.iter().any(|event| matches!(event, Event::Notice(text) if text.contains("saved to"))));
}

#[test]
fn only_a_prompt_too_long_with_a_window_is_compacted_and_sent_again() {
    // Another error with a window: reported as it is, no summary asked for.
    let auth = LlmError::Auth { status: 401, message: "bad key".into(), fix: "set the key".into() };
    let provider = ScriptedProvider::new(vec![failing_turn(auth)]);
    let (events, stop) = collect(submit(
        &scripted_agent(provider.clone()),
        &mut old_conversation(4),
        "do it",
        Mode::Default,
        CancelToken::new(),
    ));
    assert_eq!((stop, provider.requests().len()), (Stop::Failed, 1));
    assert_eq!(phases(&events), []);
    // A prompt too long without a window (a sub-agent): the provider's own error, nothing tried.
    let too_long = LlmError::PromptTooLong { message: "prompt is too long".into() };
    let provider = ScriptedProvider::new(vec![failing_turn(too_long)]);
    let agent = windowed_agent(provider.clone(), 10, 0);
    let (events, stop) = collect(submit(&agent, &mut old_conversation(4), "do it", Mode::Default, CancelToken::new()));
    assert_eq!((stop, provider.requests().len()), (Stop::Failed, 1));
    let error =
        events.iter().find_map(|event| if let Event::Error(failure) = event { Some(&failure.message) } else { None });
    let error = error.expect("the failure is reported");
    assert!(!error.contains("compaction"), "{error}");
}

/// The usage events of a run: (input tokens, estimated, compaction).
fn usages(events: &[Event]) -> Vec<(u64, bool, bool)> {
    events
        .iter()
        .filter_map(|event| match event {
            Event::Usage { usage, estimated, compaction } => Some((usage.input_tokens, *estimated, *compaction)),
            _ => None,
        })
        .collect()
}

fn notices(events: &[Event]) -> Vec<String> {
    events.iter().filter_map(|event| if let Event::Notice(text) = event { Some(text.clone()) } else { None }).collect()
}

fn error_of(events: &[Event]) -> Option<Failure> {
    events.iter().find_map(|event| if let Event::Error(failure) = event { Some(failure.clone()) } else { None })
}

#[test]
fn a_first_message_over_the_threshold_goes_out_without_a_compaction_that_could_only_fail() {
    // About 3 000 tokens: over 4 096's threshold (2 902), under the window. Nothing is older than
    // it, so no summary could help: none is tried, nothing is reported, the request goes.
    let provider = ScriptedProvider::new(vec![text_turn("read it all")]);
    let agent = small_window_agent(provider.clone());
    let prompt = "p".repeat(10_500);
    let (events, stop) =
        collect(submit(&agent, &mut Conversation::default(), &prompt, Mode::Default, CancelToken::new()));
    assert_eq!(stop, Stop::Completed);
    assert_eq!(phases(&events), []);
    assert!(notices(&events).is_empty(), "{:?}", notices(&events));
    assert_eq!(provider.requests().len(), 1);
}

#[test]
fn after_compacting_a_conversation_still_over_the_threshold_names_its_biggest_message() {
    // Earlier turns of 6 000 characters and a 10 000-character prompt (about 2 858 tokens, under
    // the window but over the threshold with anything beside it): the summary is made and the
    // user is told the latest message is what keeps it big; the request still goes.
    let provider = ScriptedProvider::new(vec![summary_turn("S"), text_turn("ok")]);
    let agent = small_window_agent(provider.clone());
    let mut conversation =
        Conversation::unlogged(vec![Message::user("a".repeat(3_000)), Message::assistant("b".repeat(3_000))]);
    let (events, stop) =
        collect(submit(&agent, &mut conversation, &"c".repeat(10_000), Mode::Default, CancelToken::new()));
    assert_eq!(stop, Stop::Completed);
    assert_eq!(phases(&events), [("started", Trigger::Auto), ("finished", Trigger::Auto)]);
    let notices = notices(&events);
    assert!(
        notices.iter().any(|text| text.contains("still about")
            && text.contains("after compaction")
            && text.contains("the summary about 1,")
            && text.contains("the latest message alone about 2858")),
        "{notices:?}"
    );
    assert_eq!(provider.requests().len(), 2);
    // The summary request's usage is counted, marked as a compaction's; the main one is not.
    assert_eq!(usages(&events), [(999_999, false, true), (10, false, false)]);
}

#[test]
fn a_compaction_that_leaves_the_conversation_over_the_window_ends_the_run_unsent() {
    // A summary far over its output cap (a server that ignores max_tokens): the conversation it
    // gives is smaller than before but over the whole window, so the main request is not sent.
    let provider = ScriptedProvider::new(vec![summary_turn(&"s".repeat(6_000))]);
    let agent = small_window_agent(provider.clone());
    let mut conversation =
        Conversation::unlogged(vec![Message::user("a".repeat(6_000)), Message::assistant("b".repeat(6_000))]);
    let (events, stop) =
        collect(submit(&agent, &mut conversation, &"c".repeat(9_000), Mode::Default, CancelToken::new()));
    assert_eq!(stop, Stop::Failed);
    assert_eq!(provider.requests().len(), 1, "only the summary request");
    let failure = error_of(&events).unwrap();
    assert_eq!(failure.kind, FailureKind::Llm(crate::llm::ErrorKind::PromptTooLong));
    assert!(failure.message.contains("4096 tokens"), "{}", failure.message);
    assert!(!notices(&events).iter().any(|text| text.contains("still about")), "the failure says it, once");
}

#[test]
fn a_compaction_that_would_grow_the_conversation_keeps_it_as_it_was() {
    let provider = ScriptedProvider::new(vec![summary_turn(&"s".repeat(8_000))]);
    let agent = scripted_agent(provider.clone());
    let messages =
        vec![Message::user("a".repeat(3_000)), Message::assistant("b"), Message::user("c"), Message::assistant("d")];
    let mut conversation = Conversation::unlogged(messages.clone());
    let (events, stop) = collect(compact_now(&agent, &mut conversation));
    assert_eq!(stop, Stop::Failed);
    assert_eq!(phases(&events), [("started", Trigger::Manual), ("failed", Trigger::Manual)]);
    let reason = events.iter().find_map(|event| match event {
        Event::Compact(CompactPhase::Failed { reason, .. }) => Some(reason.clone()),
        _ => None,
    });
    assert!(reason.unwrap().contains("would not make the conversation smaller"));
    assert_eq!(*conversation.history().snapshot(), messages);
    assert_eq!(usages(&events), [(999_999, false, true)], "the request it cost is counted all the same");
}

#[test]
fn a_compaction_with_less_to_summarise_than_a_summary_adds_asks_nothing() {
    let provider = ScriptedProvider::new(Vec::new());
    let agent = scripted_agent(provider.clone());
    let mut conversation = Conversation::unlogged(vec![
        Message::user("a".repeat(500)),
        Message::assistant("b"),
        Message::user("c"),
        Message::assistant("d"),
    ]);
    let (events, stop) = collect(compact_now(&agent, &mut conversation));
    assert_eq!(stop, Stop::Failed);
    assert_eq!(phases(&events), [("failed", Trigger::Manual)]);
    assert!(provider.requests().is_empty());
    assert_eq!(conversation.history().len(), 4);
}

#[test]
fn a_summary_without_usage_is_counted_as_estimated() {
    let summary = Script::Events(vec![StreamEvent::Text("<summary>S</summary>".into()), done(StopReason::EndTurn)]);
    let provider = ScriptedProvider::new(vec![summary]);
    let agent = scripted_agent(provider.clone());
    let mut conversation = old_conversation(4);
    let (events, stop) = collect(compact_now(&agent, &mut conversation));
    assert_eq!(stop, Stop::Completed);
    let usage = usages(&events);
    assert_eq!(usage.len(), 1);
    let (input, estimated, compaction) = usage[0];
    assert!(estimated && compaction);
    let output = events.iter().find_map(|event| match event {
        Event::Usage { usage, .. } => Some(usage.output_tokens),
        _ => None,
    });
    // "<summary>S</summary>": 20 characters over 3.5.
    assert_eq!(output, Some(6));
    // The transcript (four 20 000-character messages, each cut for the request) over 3.5.
    assert!(input > 5_000, "{input}");
}

/// An agent for a 4 096-token window whose one tool has a 7 000-character description (2 000
/// tokens by characters).
fn wordy_agent(provider: Arc<ScriptedProvider>) -> Arc<Agent> {
    let mut registry = Registry::new();
    registry.register(Arc::new(BigRead { result: 4, description: 7_000 }));
    Arc::new(Agent {
        toolbox: crate::agent::tests::toolbox(provider, crate::hooks::Hooks::default()),
        registry,
        stable_prompt: "stable".into(),
        settings: crate::agent::tests::settings(10, FrontEnd::Headless),
        context: crate::context::ContextConfig { window: 4_096, compact_at: None, sessions_dir: None },
    })
}

fn usage_turn(text: &str, input_tokens: u64) -> Script {
    Script::Events(vec![
        StreamEvent::Text(text.into()),
        StreamEvent::Usage(Usage { input_tokens, output_tokens: 5, cache_write: 0, cache_read: 0 }),
        done(StopReason::EndTurn),
    ])
}

/// The wordy agent after a first turn whose server counted 1 300 prompt tokens for a
/// 3 500-character prompt (its template drops the tool descriptions), scripted to summarise and
/// answer once more: the provider, the agent and the conversation.
fn counted_by_the_server() -> (Arc<ScriptedProvider>, Arc<Agent>, Conversation) {
    let provider =
        ScriptedProvider::new(vec![usage_turn("first", 1_300), summary_turn("S"), usage_turn("second", 2_500)]);
    let agent = wordy_agent(provider.clone());
    let mut conversation = Conversation::default();
    let (events, stop) =
        collect(submit(&agent, &mut conversation, &"h".repeat(3_500), Mode::Default, CancelToken::new()));
    assert_eq!(stop, Stop::Completed, "{:?}", error_of(&events));
    (provider, agent, conversation)
}

#[test]
fn the_servers_count_of_the_fixed_part_is_what_a_compacted_conversation_is_measured_by() {
    // Tool descriptions of 7 000 characters (2 000 tokens by characters) that the server's
    // template drops: it counts 1 300 tokens for a 3 500-character prompt, so the fixed part is
    // about 300. After the compaction the conversation is measured with 300, not 2 000 (which
    // would put it over the 4 096 window and end the run).
    let (provider, agent, mut conversation) = counted_by_the_server();
    let (events, stop) =
        collect(submit(&agent, &mut conversation, &"g".repeat(7_000), Mode::Default, CancelToken::new()));
    assert_eq!(stop, Stop::Completed, "{:?}", error_of(&events));
    assert_eq!(phases(&events), [("started", Trigger::Auto), ("finished", Trigger::Auto)]);
    let after = events.iter().find_map(|event| match event {
        Event::Compact(CompactPhase::Finished { after_tokens, .. }) => Some(*after_tokens),
        _ => None,
    });
    let after = after.unwrap();
    assert!((2_000..2_902).contains(&after), "{after}");
    assert_eq!(provider.requests().len(), 3);
}

#[test]
fn a_too_long_error_that_counts_the_prompt_calibrates_the_estimate() {
    // The server refuses the first request and says it counted 1 000 tokens for it: the
    // emergency compaction measures the fixed part by that count, not by its 2 000-token
    // characters (which alone would say no compaction can fit).
    let too_long = failing_turn(LlmError::PromptTooLong {
        message: "Requested tokens (1000) exceed context window of 900".into(),
    });
    let provider = ScriptedProvider::new(vec![too_long, summary_turn("S"), text_turn("ok")]);
    let agent = wordy_agent(provider.clone());
    let mut conversation =
        Conversation::unlogged(vec![Message::user("a".repeat(1_400)), Message::assistant("b".repeat(1_400))]);
    let (events, stop) = collect(submit(&agent, &mut conversation, "go on", Mode::Default, CancelToken::new()));
    assert_eq!(stop, Stop::Completed, "{:?}", error_of(&events));
    assert_eq!(phases(&events), [("started", Trigger::Emergency), ("finished", Trigger::Emergency)]);
}

#[test]
fn a_compaction_without_room_for_a_summary_says_so_without_asking_for_one() {
    // A 12 500-character prompt (about 3 572 tokens) fits the 4 096 window, but with the
    // attachment beside it there is no room left for a summary of the earlier turns.
    let provider = ScriptedProvider::new(vec![text_turn("ok")]);
    let agent = small_window_agent(provider.clone());
    let mut conversation =
        Conversation::unlogged(vec![Message::user("a".repeat(3_000)), Message::assistant("b".repeat(3_000))]);
    let (events, stop) =
        collect(submit(&agent, &mut conversation, &"c".repeat(12_500), Mode::Default, CancelToken::new()));
    assert_eq!(phases(&events), [("started", Trigger::Auto), ("failed", Trigger::Auto)]);
    let reason = events.iter().find_map(|event| match event {
        Event::Compact(CompactPhase::Failed { reason, .. }) => Some(reason.clone()),
        _ => None,
    });
    let reason = reason.unwrap();
    assert!(reason.starts_with("no room for a summary") && reason.contains("4096-token"), "{reason}");
    // The request goes as it is (the server decides), and only it was sent.
    assert_eq!(stop, Stop::Completed);
    assert_eq!(provider.requests().len(), 1);
    assert!(!is_summary_request(&provider.requests()[0]));
}

#[test]
fn the_summary_is_given_only_the_room_the_window_leaves() {
    // An 11 000-character prompt (about 3 143 tokens) is kept: the summary's max_tokens is what the
    // 4 096 window leaves beside it, the floor and the attachment, less a quarter.
    let provider = ScriptedProvider::new(vec![summary_turn("S"), text_turn("ok")]);
    let agent = small_window_agent(provider.clone());
    let mut conversation =
        Conversation::unlogged(vec![Message::user("a".repeat(3_000)), Message::assistant("b".repeat(3_000))]);
    let (_, stop) = collect(submit(&agent, &mut conversation, &"c".repeat(11_000), Mode::Default, CancelToken::new()));
    assert_eq!(stop, Stop::Completed);
    let summary_request = &provider.requests()[0];
    assert!(is_summary_request(summary_request));
    assert!((128..512).contains(&summary_request.max_tokens), "{}", summary_request.max_tokens);
}

/// The scripted provider under another model's name: a conversation can outlive a `/model`
/// switch, a server's count of the fixed part cannot.
struct OtherModel(Arc<ScriptedProvider>);

impl crate::llm::Provider for OtherModel {
    fn name(&self) -> &str {
        "scripted"
    }
    fn model(&self) -> &str {
        "other-model"
    }
    fn stream(&self, request: Request, cancel: CancelToken) -> crossbeam_channel::Receiver<StreamEvent> {
        self.0.stream(request, cancel)
    }
}

#[test]
fn another_models_agent_does_not_use_the_count_the_first_models_server_gave() {
    // As in the test above, the first model's server counts the fixed part at about 300 tokens;
    // after a switch to another model the fixed part is measured by characters (2 000), beside
    // which the 2 000-token prompt cannot fit whatever is summarised: no compaction is tried and
    // the request goes to the server as it is.
    let (provider, _, mut conversation) = counted_by_the_server();
    let mut other = wordy_agent(provider.clone());
    let agent = Arc::get_mut(&mut other).unwrap();
    Arc::get_mut(&mut agent.toolbox).unwrap().provider = Arc::new(OtherModel(provider.clone()));
    let (events, stop) =
        collect(submit(&other, &mut conversation, &"g".repeat(7_000), Mode::Default, CancelToken::new()));
    assert_eq!(stop, Stop::Completed, "{:?}", error_of(&events));
    assert_eq!(phases(&events), []);
    assert_eq!(provider.requests().len(), 2, "no summary request");
}

#[test]
fn a_cancelled_manual_compaction_is_cancelled_not_failed() {
    let provider = ScriptedProvider::new(vec![Script::HangUntilCancelled]);
    let agent = scripted_agent(provider.clone());
    let cancel = CancelToken::new();
    let running = agent.compact(old_conversation(4), Mode::Default, cancel.clone());
    let mut stop = None;
    for event in running.events().iter() {
        match event {
            Event::Compact(CompactPhase::Started { .. }) => cancel.cancel(),
            Event::Done { stop: done, .. } => stop = Some(done),
            _ => {}
        }
    }
    assert_eq!(stop, Some(Stop::Cancelled));
    assert_eq!(running.finish().history().len(), 4, "the conversation is kept as it was");
}

#[test]
fn a_first_message_the_server_refuses_is_named_with_its_size_without_a_summary_request() {
    // About 3 000 tokens: under the window by the estimate, but the server says it is too long.
    // Nothing is older than it, so no summary is asked for: the error names the message.
    let too_long = failing_turn(LlmError::PromptTooLong { message: "context length exceeded".into() });
    let provider = ScriptedProvider::new(vec![too_long]);
    let agent = small_window_agent(provider.clone());
    let (events, stop) =
        collect(submit(&agent, &mut Conversation::default(), &"p".repeat(10_500), Mode::Default, CancelToken::new()));
    assert_eq!(stop, Stop::Failed);
    assert_eq!(provider.requests().len(), 1);
    let message = error_of(&events).unwrap().message;
    assert!(
        message
            .contains("the context window is 4096 tokens; the biggest part is the latest message, about 3000 tokens"),
        "{message}"
    );
}

/// A 4 096-window agent rooted in `root`, and a conversation that read `a.txt` (its result
/// `a_result` characters, summarised) and then `b.txt` (kept in the tail), both recorded as read.
fn two_reads(root: &std::path::Path, a_result: usize) -> (Arc<Agent>, Arc<ScriptedProvider>, Conversation) {
    let provider = ScriptedProvider::new(vec![summary_turn("S")]);
    let mut agent = small_window_agent(provider.clone());
    Arc::get_mut(&mut agent).unwrap().settings.root = root.to_path_buf();
    let call = |id: &str, path: &str| {
        let mut message = Message::assistant("");
        message.tool_calls =
            vec![ToolCall { id: id.into(), name: "read_file".into(), input: format!(r#"{{"path":"{path}"}}"#) }];
        message
    };
    let result = |id: &str, content: String| {
        Message::tool_results(vec![crate::msg::ToolResult {
            tool_call_id: id.into(),
            content,
            is_error: false,
            images: Vec::new(),
        }])
    };
    let conversation = Conversation::unlogged(vec![
        Message::user("read both"),
        call("ra", "a.txt"),
        result("ra", "a".repeat(a_result)),
        call("rb", "b.txt"),
        result("rb", "b".repeat(700)),
        Message::assistant("done"),
    ]);
    conversation.reads.record(&root.join("a.txt"));
    conversation.reads.record(&root.join("b.txt"));
    (agent, provider, conversation)
}

#[test]
fn a_compaction_re_reads_the_summarised_file_but_not_the_one_still_in_the_tail() {
    let root = TempDir::new("compact-reads");
    std::fs::write(root.join("a.txt"), "A".repeat(1_000)).unwrap();
    std::fs::write(root.join("b.txt"), "B".repeat(700)).unwrap();
    let (agent, _, mut conversation) = two_reads(root.path(), 4_000);
    let (events, stop) = collect(compact_now(&agent, &mut conversation));
    assert_eq!(stop, Stop::Completed, "{events:?}");
    let first = conversation.history()[0].content.clone();
    assert!(first.contains("### a.txt") && first.contains(&"A".repeat(1_000)), "{first}");
    assert!(!first.contains("### b.txt"), "b.txt is in the tail verbatim: {first}");
}

#[test]
fn re_read_files_that_would_make_the_conversation_bigger_are_left_out() {
    // a.txt grew on disk since it was read: re-reading it would make the compacted conversation
    // bigger than the one it replaces, so the attachment goes without it.
    let root = TempDir::new("compact-reads-grown");
    std::fs::write(root.join("a.txt"), "A".repeat(3_000)).unwrap();
    std::fs::write(root.join("b.txt"), "B".repeat(700)).unwrap();
    let (agent, _, mut conversation) = two_reads(root.path(), 1_500);
    let (events, stop) = collect(compact_now(&agent, &mut conversation));
    assert_eq!(stop, Stop::Completed, "{events:?}");
    let first = conversation.history()[0].content.clone();
    assert!(first.contains("## Recently read files\n(none)"), "{first}");
}

#[test]
fn the_biggest_message_is_named_by_what_it_is() {
    let mut call = Message::assistant("");
    call.tool_calls = vec![
        ToolCall { id: "c0".into(), name: "grep".into(), input: "{}".into() },
        ToolCall { id: "c1".into(), name: "read_file".into(), input: "{}".into() },
    ];
    let result = |content: &str| {
        Message::tool_results(vec![crate::msg::ToolResult {
            tool_call_id: "c1".into(),
            content: content.into(),
            is_error: false,
            images: Vec::new(),
        }])
    };
    let big = "x".repeat(3_500);
    let named = |messages: Vec<Message>| super::biggest_message(&messages);
    assert_eq!(
        named(vec![Message::user("a"), call.clone(), result(&big), Message::user("go")]),
        "the biggest part is message 3 (the result of read_file), about 1000 tokens"
    );
    assert_eq!(
        named(vec![Message::user(&big), Message::assistant("b"), Message::user("go")]),
        "the biggest part is message 1 (yours), about 1000 tokens"
    );
    assert_eq!(
        named(vec![Message::user("a"), Message::assistant(&big), Message::user("go")]),
        "the biggest part is message 2 (the model's), about 1000 tokens"
    );
    assert_eq!(
        named(vec![Message::user("a"), Message::assistant("b"), Message::user(&big)]),
        "the biggest part is the latest message, about 1000 tokens"
    );
    // A result whose call is not in the message before it is still a tool's.
    assert_eq!(
        named(vec![Message::user("a"), Message::assistant("b"), result(&big), Message::user("go")]),
        "the biggest part is message 3 (the result of a tool), about 1000 tokens"
    );
    assert_eq!(named(Vec::new()), "the conversation is empty");
}
