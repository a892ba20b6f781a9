//! Agent loop tests with a scripted provider and small in-memory tools (the model and the clock
//! are the only fakes; tool threads and channels are real).

use super::event::FailureKind;
use super::test_gate::ModeMatrix;
use super::*;
use crate::llm::{Completion, Provider, StopReason};
use crate::llm::{LlmError, StreamEvent};
use crate::msg::ToolDefinition;
use crate::msg::{Request, ToolCall, Usage};
use crate::tools::{Tool, ToolContext, ToolOutput};
use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Instant;

/// One scripted model turn.
pub(super) enum Script {
    Events(Vec<StreamEvent>),
    /// Sends nothing until cancelled, then Error(Cancelled) (a slow model).
    HangUntilCancelled,
}

pub(super) struct ScriptedProvider {
    scripts: Mutex<VecDeque<Script>>,
    requests: Mutex<Vec<Request>>,
}

impl ScriptedProvider {
    pub(super) fn new(scripts: Vec<Script>) -> Arc<ScriptedProvider> {
        Arc::new(ScriptedProvider { scripts: Mutex::new(scripts.into()), requests: Mutex::new(Vec::new()) })
    }
    pub(super) fn requests(&self) -> Vec<Request> {
        lock(&self.requests).clone()
    }
    /// The scripts still to play (a test may add more between runs).
    pub(super) fn scripts_for_test(&self) -> &Mutex<VecDeque<Script>> {
        &self.scripts
    }
}

impl Provider for ScriptedProvider {
    fn name(&self) -> &str {
        "scripted"
    }
    fn model(&self) -> &str {
        "scripted-model"
    }
    fn stream(&self, request: Request, cancel: CancelToken) -> Receiver<StreamEvent> {
        lock(&self.requests).push(request);
        let script = lock(&self.scripts).pop_front();
        let (tx, rx) = crossbeam_channel::unbounded();
        std::thread::spawn(move || match script {
            Some(Script::Events(events)) => {
                for event in events {
                    let _ = tx.send(event);
                }
            }
            Some(Script::HangUntilCancelled) => {
                // Silent until cancelled (the 60 s sleep wakes at once on cancel).
                cancel.sleep(Duration::from_secs(60));
                let _ = tx.send(StreamEvent::Error(LlmError::Cancelled));
            }
            None => {
                let _ = tx.send(StreamEvent::Error(LlmError::Protocol { message: "script exhausted".into() }));
            }
        });
        rx
    }
}

pub(super) fn text_turn(text: &str) -> Script {
    Script::Events(vec![
        StreamEvent::Text(text.to_string()),
        StreamEvent::Usage(Usage { input_tokens: 10, output_tokens: 5, cache_write: 0, cache_read: 0 }),
        done(StopReason::EndTurn),
    ])
}

pub(super) fn tool_turn(calls: &[(&str, &str, &str)]) -> Script {
    let calls = calls
        .iter()
        .map(|(id, name, input)| ToolCall { id: id.to_string(), name: name.to_string(), input: input.to_string() })
        .collect();
    Script::Events(vec![StreamEvent::ToolCalls(calls), done(StopReason::ToolUse)])
}

pub(super) fn done(stop_reason: StopReason) -> StreamEvent {
    StreamEvent::Done(Completion { stop_reason, thinking: Vec::new(), dropped_tool_calls: Vec::new() })
}

/// A tool that sleeps (cancellably) and records the order things happened in a shared log.
pub(super) struct LogTool {
    pub(super) name: &'static str,
    pub(super) read_only: bool,
    pub(super) delay: Duration,
    pub(super) log: Arc<Mutex<Vec<String>>>,
}

impl Tool for LogTool {
    fn name(&self) -> &str {
        self.name
    }
    fn rule_name(&self) -> &str {
        if self.read_only { "Read" } else { "Write" }
    }
    fn description(&self) -> &str {
        "test tool"
    }
    fn input_schema(&self) -> serde_json::Value {
        serde_json::json!({"type": "object"})
    }
    fn read_only(&self) -> bool {
        self.read_only
    }
    fn execute(&self, input_json: &str, ctx: &ToolContext) -> ToolOutput {
        if !ctx.cancel.sleep(self.delay) {
            return ToolOutput::error("cancelled");
        }
        let mut log = lock(&self.log);
        let state = log.iter().filter(|entry| entry.starts_with("write")).count();
        log.push(format!("{} {input_json}", self.name));
        ToolOutput::ok(format!("{} saw {state} writes", self.name))
    }
}

/// A toolbox over the scripted model with the mode matrix as its gate.
pub(super) fn toolbox(provider: Arc<ScriptedProvider>, hooks: crate::hooks::Hooks) -> Arc<Toolbox> {
    toolbox_in(provider, hooks, super::toolbox::Environment::fixed("env"))
}

/// `toolbox` with its own environment block.
fn toolbox_in(
    provider: Arc<ScriptedProvider>,
    hooks: crate::hooks::Hooks,
    environment: super::toolbox::Environment,
) -> Arc<Toolbox> {
    Arc::new(Toolbox {
        provider,
        max_tokens: 1000,
        gate: Arc::new(ModeMatrix),
        hooks,
        checks: crate::checks::Checks::default(),
        environment,
        silent_truncation: Some(0),
    })
}

/// A main agent with `toolbox` and `registry`, no context window.
fn main_agent(toolbox: Arc<Toolbox>, registry: Registry, max_iterations: u32, front_end: FrontEnd) -> Arc<Agent> {
    Arc::new(Agent {
        toolbox,
        registry,
        stable_prompt: "stable".into(),
        settings: settings(max_iterations, front_end),
        context: crate::context::ContextConfig::default(),
    })
}

/// An agent over the scripted model with one read-only tool (`read`) and a context window of
/// `window` tokens.
pub(super) fn windowed_agent(provider: Arc<ScriptedProvider>, max_iterations: u32, window: u64) -> Arc<Agent> {
    let mut registry = Registry::new();
    let log = Arc::new(Mutex::new(Vec::new()));
    registry.register(Arc::new(LogTool { name: "read", read_only: true, delay: Duration::ZERO, log }));
    Arc::new(Agent {
        toolbox: toolbox(provider, crate::hooks::Hooks::default()),
        registry,
        stable_prompt: "stable".into(),
        settings: settings(max_iterations, FrontEnd::Headless),
        context: crate::context::ContextConfig { window, compact_at: None, sessions_dir: None },
    })
}

/// A main agent's settings in a temp root.
pub(super) fn settings(max_iterations: u32, front_end: FrontEnd) -> Settings {
    Settings {
        root: std::env::temp_dir(),
        max_iterations,
        unknown_tool_limit: UNKNOWN_TOOL_LIMIT,
        front_end,
        turn_hooks: true,
        checkpoints: None,
        lean: Lean::default(),
        image_refusal: None,
    }
}

struct Fixture {
    provider: Arc<ScriptedProvider>,
    agent: Arc<Agent>,
    log: Arc<Mutex<Vec<String>>>,
}

fn fixture(scripts: Vec<Script>, read_delay: Duration, front_end: FrontEnd, max_iterations: u32) -> Fixture {
    let provider = ScriptedProvider::new(scripts);
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut registry = Registry::new();
    registry.register(Arc::new(LogTool { name: "read", read_only: true, delay: read_delay, log: log.clone() }));
    registry.register(Arc::new(LogTool { name: "write", read_only: false, delay: Duration::ZERO, log: log.clone() }));
    let agent =
        main_agent(toolbox(provider.clone(), crate::hooks::Hooks::default()), registry, max_iterations, front_end);
    Fixture { provider, agent, log }
}

/// Runs one turn to the end, answering approvals with `answers` in order.
fn run(fixture: &Fixture, mode: Mode, answers: &[Approval]) -> (Conversation, Vec<Event>, Stop) {
    run_agent(&fixture.agent, mode, answers)
}

/// Runs `agent` on `prompt` in `conversation` to the end, as a front end submits it (the agent
/// appends the prompt); returns every event, and the conversation is back in `conversation`.
pub(super) fn submit(
    agent: &Arc<Agent>,
    conversation: &mut Conversation,
    prompt: &str,
    mode: Mode,
    cancel: CancelToken,
) -> Vec<Event> {
    let running = agent.run(std::mem::take(conversation), prompt.to_string(), mode, cancel);
    let events = running.events().iter().collect();
    *conversation = running.finish();
    events
}

/// The stop in a run's events (its `Done`).
pub(super) fn stop_of(events: &[Event]) -> Option<Stop> {
    events.iter().find_map(|event| if let Event::Done { stop, .. } = event { Some(*stop) } else { None })
}

/// Runs one turn of `agent` on the prompt "do it" to the end, answering approvals with
/// `answers` in order (a missing answer fails the test).
pub(super) fn run_agent(agent: &Arc<Agent>, mode: Mode, answers: &[Approval]) -> (Conversation, Vec<Event>, Stop) {
    let running = agent.run(Conversation::new("sess-main"), "do it".to_string(), mode, CancelToken::new());
    let mut answers = answers.iter();
    let mut seen = Vec::new();
    for event in running.events() {
        if let Event::Approval(request) = &event {
            request.respond.send(answers.next().expect("an answer for every approval").clone()).unwrap();
        }
        seen.push(event);
    }
    let stop = stop_of(&seen).expect("Done");
    (running.finish(), seen, stop)
}

fn roles(conversation: &Conversation) -> Vec<Role> {
    conversation.history().iter().map(|message| message.role).collect()
}

#[test]
fn natural_finish_records_the_answer() {
    let fixture = fixture(vec![text_turn("All good.")], Duration::ZERO, FrontEnd::Headless, 25);
    let (conversation, events, stop) = run(&fixture, Mode::Default, &[]);
    assert_eq!(stop, Stop::Completed);
    assert_eq!(conversation.history().last().unwrap().content, "All good.");
    assert!(matches!(events[0], Event::Iter(1)));
    assert!(matches!(events.last(), Some(Event::Done { stop: Stop::Completed, answer }) if answer == "All good."));
    let request = &fixture.provider.requests()[0];
    assert_eq!(request.system.stable, "stable");
    assert_eq!(request.max_tokens, 1000);
    assert_eq!(request.reminder, None);
    let names: Vec<String> = request.tools.iter().map(|tool: &ToolDefinition| tool.name.clone()).collect();
    assert_eq!(names, ["read", "write"]);
}

#[test]
fn empty_final_answer_becomes_task_complete() {
    let fixture = fixture(vec![text_turn("  ")], Duration::ZERO, FrontEnd::Headless, 25);
    let (conversation, _, _) = run(&fixture, Mode::Default, &[]);
    assert_eq!(conversation.history().last().unwrap().content, "(task complete)");
}

#[test]
fn tool_results_pair_with_ids_in_call_order_and_reach_the_next_request() {
    let scripts = vec![tool_turn(&[("a", "read", "{\"n\":1}"), ("b", "read", "{\"n\":2}")]), text_turn("done")];
    let fixture = fixture(scripts, Duration::ZERO, FrontEnd::Headless, 25);
    let (conversation, _, stop) = run(&fixture, Mode::Default, &[]);
    assert_eq!(stop, Stop::Completed);
    assert_eq!(roles(&conversation), [Role::User, Role::Assistant, Role::Tool, Role::Assistant]);
    let second = &fixture.provider.requests()[1];
    let results = &second.messages[2].tool_results;
    let ids: Vec<&str> = results.iter().map(|result| result.tool_call_id.as_str()).collect();
    assert_eq!(ids, ["a", "b"]);
    assert_eq!(results[0].content, "read saw 0 writes");
}

/// A read-only tool whose calls finish only when `expected` of them are running at once: a
/// batch that runs them one by one gets "ran alone" errors instead of hanging the test.
struct MeetingTool {
    expected: usize,
    arrived: Mutex<usize>,
    all_here: std::sync::Condvar,
}

impl Tool for MeetingTool {
    fn name(&self) -> &str {
        "read"
    }
    fn rule_name(&self) -> &str {
        "Read"
    }
    fn description(&self) -> &str {
        "test tool that waits for the others"
    }
    fn input_schema(&self) -> serde_json::Value {
        serde_json::json!({"type": "object"})
    }
    fn read_only(&self) -> bool {
        true
    }
    fn execute(&self, _input_json: &str, _ctx: &ToolContext) -> ToolOutput {
        let mut arrived = lock(&self.arrived);
        *arrived += 1;
        self.all_here.notify_all();
        let limit = Duration::from_secs(10);
        let (arrived, _) =
            self.all_here.wait_timeout_while(arrived, limit, |arrived| *arrived < self.expected).unwrap();
        if *arrived < self.expected { ToolOutput::error("ran alone") } else { ToolOutput::ok("met the others") }
    }
}

#[test]
fn read_only_batch_runs_concurrently_with_starts_first_and_ends_in_order() {
    // Each call waits for all five to be running: only a concurrent batch lets them finish.
    let calls =
        [("1", "read", "{}"), ("2", "read", "{}"), ("3", "read", "{}"), ("4", "read", "{}"), ("5", "read", "{}")];
    let provider = ScriptedProvider::new(vec![tool_turn(&calls), text_turn("ok")]);
    let mut registry = Registry::new();
    registry.register(Arc::new(MeetingTool { expected: 5, arrived: Mutex::new(0), all_here: Default::default() }));
    let agent = main_agent(toolbox(provider, crate::hooks::Hooks::default()), registry, 25, FrontEnd::Headless);
    let (conversation, events, _) = run_agent(&agent, Mode::Default, &[]);
    let results: Vec<String> =
        conversation.history()[2].tool_results.iter().map(|result| result.content.clone()).collect();
    assert_eq!(results, ["met the others"; 5], "the five reads did not all run at once");
    let order: Vec<String> = events
        .iter()
        .filter_map(|event| match event {
            Event::ToolStart { id, .. } => Some(format!("start {id}")),
            Event::ToolEnd { id, .. } => Some(format!("end {id}")),
            _ => None,
        })
        .collect();
    assert_eq!(
        order,
        ["start 1", "start 2", "start 3", "start 4", "start 5", "end 1", "end 2", "end 3", "end 4", "end 5"]
    );
}

#[test]
fn a_write_keeps_its_position_between_reads() {
    let calls = [("1", "read", "{}"), ("2", "write", "{}"), ("3", "read", "{}")];
    let fixture = fixture(vec![tool_turn(&calls), text_turn("ok")], Duration::from_millis(20), FrontEnd::Headless, 25);
    let (conversation, _, _) = run(&fixture, Mode::Bypass, &[]);
    let history = conversation.history();
    let contents: Vec<&str> = history[2].tool_results.iter().map(|result| result.content.as_str()).collect();
    assert_eq!(contents, ["read saw 0 writes", "write saw 0 writes", "read saw 1 writes"]);
    assert_eq!(*lock(&fixture.log), ["read {}", "write {}", "read {}"]);
}

#[test]
fn ask_without_a_human_is_a_needs_approval_denial_and_the_loop_goes_on() {
    let fixture = fixture(
        vec![tool_turn(&[("w", "write", "{}")]), text_turn("I could not write.")],
        Duration::ZERO,
        FrontEnd::Headless,
        25,
    );
    let (conversation, _, stop) = run(&fixture, Mode::Default, &[]);
    assert_eq!(stop, Stop::Completed);
    let result = &conversation.history()[2].tool_results[0];
    assert!(result.is_error);
    assert!(result.content.starts_with("needs approval: "), "{}", result.content);
    assert!(lock(&fixture.log).is_empty(), "the write must not run");
}

#[test]
fn approvals_yes_no_always() {
    let scripts = vec![
        tool_turn(&[("1", "write", "{\"n\":1}")]),
        tool_turn(&[("2", "write", "{\"n\":2}")]),
        tool_turn(&[("3", "write", "{\"n\":3}")]),
        text_turn("done"),
    ];
    let fixture = fixture(scripts, Duration::ZERO, FrontEnd::Repl, 25);
    let (conversation, _, _) = run(&fixture, Mode::Default, &[Approval::Once, Approval::Deny, Approval::Always]);
    let history = conversation.history();
    assert_eq!(history[2].tool_results[0].content, "write saw 0 writes");
    let declined = &history[4].tool_results[0].content;
    assert!(declined.starts_with("denied by user: the user declined this write call, so it did not run"), "{declined}");
    assert!(declined.contains("ask the user how to proceed"), "{declined}");
    assert_eq!(history[6].tool_results[0].content, "write saw 1 writes");
}

#[test]
fn a_redirect_denies_and_the_model_reads_what_the_person_typed() {
    let scripts = vec![tool_turn(&[("1", "write", "{\"n\":1}")]), text_turn("ok")];
    let fixture = fixture(scripts, Duration::ZERO, FrontEnd::Repl, 25);
    let (conversation, _, _) =
        run(&fixture, Mode::Default, &[Approval::Redirect("write it under docs/ instead".into())]);
    let result = &conversation.history()[2].tool_results[0];
    assert!(result.is_error);
    assert_eq!(result.content, "denied by user: write it under docs/ instead");
    assert!(lock(&fixture.log).is_empty(), "the write must not run");
}

#[test]
fn three_all_unknown_iterations_stop_with_an_assistant_tail() {
    let unknown = || tool_turn(&[("x", "frobnicate", "{}")]);
    let fixture =
        fixture(vec![unknown(), unknown(), unknown(), text_turn("never")], Duration::ZERO, FrontEnd::Headless, 25);
    let (conversation, events, stop) = run(&fixture, Mode::Default, &[]);
    assert_eq!(stop, Stop::UnknownTools);
    assert_eq!(conversation.history().last().unwrap().role, Role::Assistant);
    assert!(
        conversation.history()[2].tool_results[0]
            .content
            .starts_with("unknown tool: frobnicate (available: read, write)")
    );
    assert!(events.iter().any(|event| matches!(event, Event::Notice(text) if text.contains("do not exist"))));
    assert_eq!(fixture.provider.requests().len(), 3);
}

#[test]
fn iteration_cap_stops_with_an_assistant_tail() {
    let read = |said: &str| {
        let call = ToolCall { id: "r".into(), name: "read".into(), input: "{}".into() };
        Script::Events(vec![
            StreamEvent::Text(said.into()),
            StreamEvent::ToolCalls(vec![call]),
            done(StopReason::ToolUse),
        ])
    };
    let fixture =
        fixture(vec![read("first look"), read(""), read("never sent")], Duration::ZERO, FrontEnd::Headless, 2);
    let (conversation, events, stop) = run(&fixture, Mode::Default, &[]);
    assert_eq!(stop, Stop::IterationLimit);
    assert_eq!(
        roles(&conversation),
        [Role::User, Role::Assistant, Role::Tool, Role::Assistant, Role::Tool, Role::Assistant]
    );
    // Done carries the model's last words, never the note that closes the turn.
    assert!(matches!(events.last(), Some(Event::Done { answer, .. }) if answer == "first look"), "{events:?}");
}

/// A provider whose every request panics (a bug in the loop's reach).
struct PanickingProvider;

impl Provider for PanickingProvider {
    fn name(&self) -> &str {
        "panicking"
    }
    fn model(&self) -> &str {
        "panicking-model"
    }
    fn stream(&self, _request: Request, _cancel: CancelToken) -> Receiver<StreamEvent> {
        panic!("a bug in the provider")
    }
}

#[test]
fn a_panic_in_the_loop_fails_the_run_and_gives_the_conversation_back() {
    let toolbox = Arc::new(Toolbox {
        provider: Arc::new(PanickingProvider),
        max_tokens: 1000,
        gate: Arc::new(ModeMatrix),
        hooks: crate::hooks::Hooks::default(),
        checks: crate::checks::Checks::default(),
        environment: super::toolbox::Environment::fixed("env"),
        silent_truncation: None,
    });
    let agent = main_agent(toolbox, Registry::new(), 5, FrontEnd::Headless);
    let mut conversation = Conversation::unlogged(vec![Message::user("earlier"), Message::assistant("answer")]);
    let events = submit(&agent, &mut conversation, "now", Mode::Default, CancelToken::new());
    assert!(
        events.iter().any(|event| matches!(event, Event::Error(failure) if failure.kind == FailureKind::Internal)),
        "{events:?}"
    );
    assert!(matches!(events.last(), Some(Event::Done { stop: Stop::Failed, answer }) if answer.is_empty()));
    // Nothing is lost and the next request is valid: the prompt, then the closing note.
    let contents: Vec<&str> = conversation.history().iter().map(|message| message.content.as_str()).collect();
    assert_eq!(contents, ["earlier", "answer", "now", "(the request failed; this turn was interrupted)"]);
}

#[test]
fn stream_error_fails_the_run_with_an_assistant_tail() {
    let failing = Script::Events(vec![
        StreamEvent::Text("partial".into()),
        StreamEvent::Error(LlmError::Auth { status: 401, message: "bad key".into(), fix: "set X".into() }),
    ]);
    let fixture = fixture(vec![tool_turn(&[("r", "read", "{}")]), failing], Duration::ZERO, FrontEnd::Headless, 25);
    let (conversation, events, stop) = run(&fixture, Mode::Default, &[]);
    assert_eq!(stop, Stop::Failed);
    assert_eq!(roles(&conversation), [Role::User, Role::Assistant, Role::Tool, Role::Assistant]);
    assert!(events.iter().any(|event| matches!(event, Event::Error(failure) if failure.message.contains("set X") && failure.kind == FailureKind::Llm(crate::llm::ErrorKind::Auth) && failure.fix.as_deref() == Some("set X") && !failure.retryable)));
}

#[test]
fn cancel_during_a_slow_tool_appends_results_and_a_tail() {
    let fixture = fixture(
        vec![tool_turn(&[("1", "read", "{}"), ("2", "write", "{}")])],
        Duration::from_secs(30),
        FrontEnd::Headless,
        25,
    );
    let cancel = CancelToken::new();
    let running = fixture.agent.run(Conversation::default(), "go", Mode::Bypass, cancel.clone());
    let started = Instant::now();
    let mut stop = None;
    for event in running.events() {
        if matches!(event, Event::ToolStart { .. }) {
            cancel.cancel();
        }
        if let Event::Done { stop: reason, .. } = event {
            stop = Some(reason);
        }
    }
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(stop, Some(Stop::Cancelled));
    let conversation = running.finish();
    let history = conversation.history();
    assert_eq!(
        history.iter().map(|m| m.role).collect::<Vec<_>>(),
        [Role::User, Role::Assistant, Role::Tool, Role::Assistant]
    );
    let results = &history[2].tool_results;
    assert_eq!(results.len(), 2);
    assert!(results.iter().all(|result| result.is_error));
}

#[test]
fn cancel_while_the_model_is_silent_ends_promptly() {
    let fixture = fixture(vec![Script::HangUntilCancelled], Duration::ZERO, FrontEnd::Headless, 25);
    let cancel = CancelToken::new();
    let running = fixture.agent.run(Conversation::default(), "go", Mode::Default, cancel.clone());
    assert!(matches!(running.events().recv().unwrap(), Event::Iter(1)));
    cancel.cancel();
    let rest: Vec<Event> = running.events().iter().collect();
    assert!(matches!(rest.last(), Some(Event::Done { stop: Stop::Cancelled, .. })), "{rest:?}");
    assert_eq!(running.finish().history().last().unwrap().role, Role::Assistant);
}

#[test]
fn plan_mode_offers_read_only_tools_and_reminds() {
    let fixture =
        fixture(vec![tool_turn(&[("w", "write", "{}")]), text_turn("plan")], Duration::ZERO, FrontEnd::Repl, 25);
    let (conversation, _, _) = run(&fixture, Mode::Plan, &[]);
    let requests = fixture.provider.requests();
    let names: Vec<&str> = requests[0].tools.iter().map(|tool| tool.name.as_str()).collect();
    assert_eq!(names, ["read"]);
    assert!(requests[0].reminder.as_deref().unwrap().contains("Plan mode is active"));
    assert!(requests[1].reminder.as_deref().unwrap().contains("still active"));
    assert!(
        conversation.history()[2].tool_results[0]
            .content
            .starts_with("needs approval: write is not available in plan mode")
    );
}

#[test]
fn restart_discards_the_abandoned_attempt() {
    let script = Script::Events(vec![
        StreamEvent::Text("half an ans".into()),
        StreamEvent::Restart { restart: 1, max: 2, reason: "connection reset".into() },
        StreamEvent::Text("The whole answer.".into()),
        done(StopReason::EndTurn),
    ]);
    let fixture = fixture(vec![script], Duration::ZERO, FrontEnd::Headless, 25);
    let (conversation, events, _) = run(&fixture, Mode::Default, &[]);
    assert_eq!(conversation.history().last().unwrap().content, "The whole answer.");
    assert!(events.iter().any(|event| matches!(event, Event::Restart { restart: 1, max: 2, .. })));
}

#[test]
fn truncated_tool_call_is_reported_to_the_model_and_the_loop_continues() {
    let truncated = Script::Events(vec![
        StreamEvent::Text("Writing it.".into()),
        StreamEvent::Done(Completion {
            stop_reason: StopReason::MaxTokens,
            thinking: Vec::new(),
            dropped_tool_calls: vec!["write".into()],
        }),
    ]);
    let fixture = fixture(vec![truncated, text_turn("ok, smaller")], Duration::ZERO, FrontEnd::Headless, 25);
    let (conversation, _, stop) = run(&fixture, Mode::Default, &[]);
    assert_eq!(stop, Stop::Completed);
    let history = conversation.history();
    assert!(history[2].content.contains("was cut off by the output token limit"));
    assert_eq!(history[3].content, "ok, smaller");
}

#[test]
fn a_paused_turn_is_resent_as_it_is_and_the_model_continues_it() {
    // Anthropic `pause_turn`: not an answer. The next request carries the paused text last, with
    // no reminder after it, and the run ends on the continued answer.
    let paused = Script::Events(vec![StreamEvent::Text("Searching the web.".into()), done(StopReason::PauseTurn)]);
    let silent_pause = Script::Events(vec![done(StopReason::PauseTurn)]);
    let fixture = fixture(vec![paused, silent_pause, text_turn("Found it.")], Duration::ZERO, FrontEnd::Headless, 25);
    let (conversation, _, stop) = run(&fixture, Mode::Plan, &[]);
    assert_eq!(stop, Stop::Completed);
    let requests = fixture.provider.requests();
    assert_eq!(requests.len(), 3);
    let last = |i: usize| requests[i].messages.last().map(|message| (message.role, message.content.clone()));
    assert_eq!(last(1), Some((Role::Assistant, "Searching the web.".to_string())));
    assert_eq!(requests[1].reminder, None, "a reminder would open a user turn after the paused one");
    assert_eq!(last(2), last(1), "a pause with nothing to keep resends the same conversation");
    assert_eq!(requests[2].reminder, None);
    let history = conversation.history();
    let texts: Vec<&str> = history.iter().map(|message| message.content.as_str()).collect();
    assert_eq!(texts, ["do it", "Searching the web.", "Found it."]);
}

/// A read-only tool with a bug: it panics.
struct PanickingTool;

impl Tool for PanickingTool {
    fn name(&self) -> &str {
        "crash"
    }
    fn rule_name(&self) -> &str {
        "Read"
    }
    fn description(&self) -> &str {
        "test tool that panics"
    }
    fn input_schema(&self) -> serde_json::Value {
        serde_json::json!({"type": "object"})
    }
    fn read_only(&self) -> bool {
        true
    }
    fn execute(&self, _input_json: &str, _ctx: &ToolContext) -> ToolOutput {
        panic!("a bug in a tool")
    }
}

#[test]
fn a_tool_that_panics_alone_or_in_a_concurrent_batch_becomes_an_error_result_and_the_run_goes_on() {
    let scripts = vec![
        tool_turn(&[("c1", "crash", "{}")]),
        tool_turn(&[("r1", "read", "{}"), ("c2", "crash", "{}"), ("r2", "read", "{}")]),
        text_turn("recovered"),
    ];
    let fixture = fixture(scripts, Duration::ZERO, FrontEnd::Headless, 25);
    let mut agent = Arc::try_unwrap(fixture.agent).ok().expect("the only reference");
    agent.registry.register(Arc::new(PanickingTool));
    let (conversation, _, stop) = run_agent(&Arc::new(agent), Mode::Default, &[]);
    assert_eq!(stop, Stop::Completed);
    let history = conversation.history();
    let internal = "tool crash failed internally (a bug in mewcode)";
    let alone = &history[2].tool_results;
    assert_eq!((alone[0].content.as_str(), alone[0].is_error), (internal, true));
    let batch: Vec<(&str, bool)> =
        history[4].tool_results.iter().map(|result| (result.content.as_str(), result.is_error)).collect();
    assert_eq!(batch, [("read saw 0 writes", false), (internal, true), ("read saw 0 writes", false)]);
    assert_eq!(history.last().unwrap().content, "recovered");
}

#[test]
fn the_environment_is_gathered_again_at_each_user_turn_and_holds_within_one() {
    let gathered = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = Arc::clone(&gathered);
    let environment = super::toolbox::Environment::gathered(move || {
        format!("git: {} changed", counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst))
    });
    let provider = ScriptedProvider::new(vec![tool_turn(&[("1", "read", "{}")]), text_turn("a"), text_turn("b")]);
    let toolbox = toolbox_in(provider.clone(), crate::hooks::Hooks::default(), environment);
    let mut registry = Registry::new();
    let log = Arc::new(Mutex::new(Vec::new()));
    registry.register(Arc::new(LogTool { name: "read", read_only: true, delay: Duration::ZERO, log }));
    let agent = main_agent(toolbox, registry, 25, FrontEnd::Headless);
    run_agent(&agent, Mode::Default, &[]);
    run_agent(&agent, Mode::Default, &[]);
    let systems: Vec<(String, String)> = provider
        .requests()
        .iter()
        .map(|request| (request.system.stable.clone(), request.system.environment.clone()))
        .collect();
    let stable = "stable".to_string();
    assert_eq!(
        systems,
        [
            (stable.clone(), "git: 1 changed".to_string()),
            (stable.clone(), "git: 1 changed".to_string()),
            (stable, "git: 2 changed".to_string())
        ],
        "one gathering per turn (after the one at start-up); the stable part never moves"
    );
}

#[test]
fn a_prompt_a_hook_blocks_never_reaches_the_model_nor_the_history() {
    let hook = crate::config::HookConfig {
        event: crate::config::HookEvent::UserPromptSubmit,
        matcher: String::new(),
        command: "echo 'no secrets here' >&2; exit 2".into(),
        timeout_s: None,
        source: "test".into(),
        confined: true,
    };
    let path = std::env::var("PATH").unwrap_or_default();
    let hooks = crate::hooks::Hooks::new(vec![hook], std::env::temp_dir(), vec![("PATH".into(), path)], Arc::default());
    let provider = ScriptedProvider::new(vec![text_turn("never asked")]);
    let agent = main_agent(toolbox(provider.clone(), hooks), Registry::new(), 5, FrontEnd::Headless);
    let mut conversation = Conversation::unlogged(vec![Message::user("before"), Message::assistant("earlier")]);
    let events = submit(&agent, &mut conversation, "my password is hunter2", Mode::Default, CancelToken::new());
    assert_eq!(stop_of(&events), Some(Stop::Failed));
    let refusal = events.iter().find_map(|event| if let Event::Error(failure) = event { Some(failure) } else { None });
    let refusal = refusal.expect("the block is reported");
    assert_eq!(refusal.kind, FailureKind::Hook);
    assert!(refusal.message.contains("no secrets here"), "{}", refusal.message);
    assert!(provider.requests().is_empty());
    assert_eq!(conversation.history().len(), 2, "the blocked prompt never entered the history");
}
