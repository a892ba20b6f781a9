//! The `task` sub-agent runs its tool calls on its parent's path: the parent's PreToolUse and
//! PostToolUse hooks (real shell commands) and permission gate, with the scripted provider playing
//! both the parent's and the sub-agent's turns in the order they are asked for.

use crate::agent::subagent::TaskTool;
use crate::agent::test_gate::ModeMatrix;
use crate::agent::tests::{LogTool, ScriptedProvider, run_agent, settings, text_turn, tool_turn};
use crate::agent::*;
use crate::config::{HookConfig, HookEvent};
use crate::hooks::Hooks;
use crate::msg::ToolCall;
use crate::test_dir::TempDir;
use crate::tools::Tool;
use std::path::Path;
use std::sync::Mutex;

/// A parent agent with `read` (rule Read), `write` (rule Write) and `task` built from the same
/// toolbox, the way `app` wires it.
struct Family {
    provider: Arc<ScriptedProvider>,
    parent: Arc<Agent>,
    /// What the in-memory tools ran.
    log: Arc<Mutex<Vec<String>>>,
}

fn family(scripts: Vec<crate::agent::tests::Script>, hooks: Hooks, gate: Arc<dyn Gate>, front_end: FrontEnd) -> Family {
    let provider = ScriptedProvider::new(scripts);
    let log = Arc::new(Mutex::new(Vec::new()));
    let toolbox = Arc::new(Toolbox {
        provider: provider.clone(),
        max_tokens: 1000,
        gate,
        hooks,
        checks: crate::checks::Checks::default(),
        environment: crate::agent::toolbox::Environment::fixed("env"),
        silent_truncation: Some(0),
    });
    let mut registry = Registry::new();
    registry.register(Arc::new(LogTool { name: "read", read_only: true, delay: Duration::ZERO, log: log.clone() }));
    registry.register(Arc::new(LogTool { name: "write", read_only: false, delay: Duration::ZERO, log: log.clone() }));
    let task = TaskTool::new(Arc::clone(&toolbox), &registry, false);
    registry.register(Arc::new(task));
    let parent = Arc::new(Agent {
        toolbox,
        registry,
        stable_prompt: "stable".into(),
        settings: settings(25, front_end),
        context: crate::context::ContextConfig::default(),
    });
    Family { provider, parent, log }
}

/// A fresh directory the hooks run in and write what they saw to.
fn hook_dir(label: &str) -> TempDir {
    TempDir::new(&format!("subhooks-{label}"))
}

/// Hooks `(event, matcher, command, timeout_s)` running in `dir` with only PATH set.
fn hooks(dir: &Path, entries: &[(HookEvent, &str, &str, Option<u64>)]) -> Hooks {
    let configs = entries
        .iter()
        .map(|(event, matcher, command, timeout_s)| HookConfig {
            event: *event,
            matcher: matcher.to_string(),
            command: command.to_string(),
            timeout_s: *timeout_s,
            source: "test".into(),
            confined: true,
        })
        .collect();
    let path = std::env::var("PATH").unwrap_or_default();
    Hooks::new(configs, dir.to_path_buf(), vec![("PATH".into(), path)], Arc::default())
}

/// The JSON events a hook appended to `file`, one per line.
fn seen(dir: &Path, file: &str) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(dir.join(file)).unwrap_or_default();
    text.lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

fn task_call(id: &str) -> (String, String, String) {
    (id.to_string(), "task".to_string(), r#"{"prompt":"look into it"}"#.to_string())
}

fn turn(calls: &[(String, String, String)]) -> crate::agent::tests::Script {
    let borrowed: Vec<(&str, &str, &str)> =
        calls.iter().map(|(id, name, input)| (id.as_str(), name.as_str(), input.as_str())).collect();
    tool_turn(&borrowed)
}

#[test]
fn a_pre_tool_use_hook_blocks_the_same_read_in_the_parent_and_in_the_sub_agent() {
    let dir = hook_dir("pre");
    let block = r#"input=$(cat); printf '%s\n' "$input" >> pre.jsonl; case "$input" in *secret*) echo "secret.txt is off limits" >&2; exit 2;; esac"#;
    let scripts = vec![
        tool_turn(&[("p1", "read", r#"{"path":"secret.txt"}"#)]),
        turn(&[task_call("t1")]),
        // The sub-agent's turns.
        tool_turn(&[("s1", "read", r#"{"path":"secret.txt"}"#)]),
        text_turn("I could not read it."),
        // The parent's last turn.
        text_turn("done"),
    ];
    let hooks = hooks(dir.path(), &[(HookEvent::PreToolUse, "Read", block, None)]);
    let family = family(scripts, hooks, Arc::new(ModeMatrix), FrontEnd::Headless);
    let (conversation, _, stop) = run_agent(&family.parent, Mode::Default, &[]);
    assert_eq!(stop, Stop::Completed);
    let requests = family.provider.requests();
    assert_eq!(requests.len(), 5);
    let refusal = "denied by hook: secret.txt is off limits";
    let parent_result = &requests[1].messages[2].tool_results[0];
    assert_eq!((parent_result.content.as_str(), parent_result.is_error), (refusal, true));
    let sub_result = &requests[3].messages[2].tool_results[0];
    assert_eq!((sub_result.tool_call_id.as_str(), sub_result.content.as_str()), ("s1", refusal));
    assert!(sub_result.is_error);
    assert_eq!(conversation.history()[4].tool_results[0].content, "I could not read it.");
    assert!(lock(&family.log).is_empty(), "a blocked read never runs");
    let events = seen(dir.path(), "pre.jsonl");
    assert_eq!(events.len(), 2, "{events:?}");
    for event in &events {
        assert_eq!(event["hook_event_name"], "PreToolUse");
        assert_eq!(event["tool_name"], "Read");
        // The sub-agent's calls belong to the parent's conversation's session.
        assert_eq!(event["session_id"], conversation.session_id());
        assert_eq!(event["tool_input"], serde_json::json!({"path": "secret.txt"}));
    }
}

#[test]
fn post_tool_use_runs_for_sub_agent_calls_and_its_context_stays_in_the_sub_agent() {
    let dir = hook_dir("post");
    let note = r#"input=$(cat); printf '%s\n' "$input" >> post.jsonl; case "$input" in *'"tool_name":"Read"'*) echo "NOTE-FROM-READ-HOOK";; esac"#;
    let scripts = vec![
        turn(&[task_call("t1")]),
        tool_turn(&[("s1", "read", r#"{"path":"a.txt"}"#)]),
        text_turn("a.txt says hello"),
        text_turn("done"),
    ];
    let hooks = hooks(dir.path(), &[(HookEvent::PostToolUse, "", note, None)]);
    let family = family(scripts, hooks, Arc::new(ModeMatrix), FrontEnd::Headless);
    let (_, _, stop) = run_agent(&family.parent, Mode::Default, &[]);
    assert_eq!(stop, Stop::Completed);
    let requests = family.provider.requests();
    assert_eq!(requests.len(), 4);
    // The sub-agent's next request carries its hook's context; the parent's never does.
    let sub_reminder = requests[2].reminder.clone().unwrap_or_default();
    assert!(sub_reminder.contains("NOTE-FROM-READ-HOOK"), "{sub_reminder}");
    for parent_request in [&requests[0], &requests[3]] {
        let reminder = parent_request.reminder.clone().unwrap_or_default();
        assert!(!reminder.contains("NOTE-FROM-READ-HOOK"), "{reminder}");
        assert!(!format!("{:?}", parent_request.messages).contains("NOTE-FROM-READ-HOOK"));
    }
    // The sub-agent's read first, then the parent's task call, each under its own name.
    let events = seen(dir.path(), "post.jsonl");
    let names: Vec<&str> = events.iter().map(|event| event["tool_name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Read", "Task"]);
    assert_eq!(events[0]["tool_input"], serde_json::json!({"path": "a.txt"}));
    assert_eq!(events[0]["tool_response"], serde_json::json!({"content": "read saw 0 writes", "is_error": false}));
    assert_eq!(events[1]["tool_response"], serde_json::json!({"content": "a.txt says hello", "is_error": false}));
}

#[test]
fn prompt_and_stop_hooks_fire_around_the_parent_turn_only() {
    let dir = hook_dir("turn");
    let scripts = vec![turn(&[task_call("t1")]), text_turn("sub answer"), text_turn("done")];
    let hooks = hooks(
        dir.path(),
        &[
            (HookEvent::UserPromptSubmit, "", "cat >/dev/null; echo prompt >> turns.log", None),
            (HookEvent::Stop, "", "cat >/dev/null; echo stop >> turns.log", None),
            // Marks the end of the sub-agent's run, so a Stop fired inside it would come first.
            (HookEvent::PostToolUse, "Task", "cat >/dev/null; echo task >> turns.log", None),
        ],
    );
    let family = family(scripts, hooks, Arc::new(ModeMatrix), FrontEnd::Headless);
    let (_, _, stop) = run_agent(&family.parent, Mode::Default, &[]);
    assert_eq!(stop, Stop::Completed);
    assert_eq!(std::fs::read_to_string(dir.join("turns.log")).unwrap(), "prompt\ntask\nstop\n");
}

#[test]
fn a_hanging_or_crashing_hook_in_the_sub_agent_is_a_warning_and_it_finishes() {
    let dir = hook_dir("hang");
    let scripts =
        vec![turn(&[task_call("t1")]), tool_turn(&[("s1", "read", "{}")]), text_turn("found it"), text_turn("done")];
    let hooks = hooks(
        dir.path(),
        &[
            (HookEvent::PreToolUse, "Read", "kill -SEGV $$", None),
            (HookEvent::PreToolUse, "Read", "sleep 30", Some(1)),
            (HookEvent::PostToolUse, "Read", "exit 1", None),
        ],
    );
    let family = family(scripts, hooks, Arc::new(ModeMatrix), FrontEnd::Headless);
    let started = std::time::Instant::now();
    let (conversation, _, stop) = run_agent(&family.parent, Mode::Default, &[]);
    let elapsed = started.elapsed();
    assert!(elapsed >= Duration::from_secs(1), "the hanging hook ran in the sub-agent and was timed out");
    assert!(elapsed < Duration::from_secs(15), "{elapsed:?}");
    assert_eq!(stop, Stop::Completed);
    assert_eq!(*lock(&family.log), ["read {}"], "a failing hook does not block");
    let task_result = &conversation.history()[2].tool_results[0];
    assert_eq!((task_result.content.as_str(), task_result.is_error), ("found it", false));
}

/// Asks about every call but `task`, and records the modes it was asked in.
struct AskingGate {
    modes: Mutex<Vec<(String, Mode)>>,
}

impl Gate for AskingGate {
    fn check(&self, mode: Mode, _call: &ToolCall, tool: &dyn Tool) -> Verdict {
        let rule_name = tool.rule_name();
        lock(&self.modes).push((rule_name.to_string(), mode));
        if rule_name == "Task" { Verdict::Allow } else { Verdict::Ask { reason: format!("{rule_name} asks") } }
    }
}

#[test]
fn the_sub_agent_asks_the_parents_gate_in_plan_mode_and_never_the_human() {
    let gate = Arc::new(AskingGate { modes: Mutex::new(Vec::new()) });
    let scripts = vec![
        turn(&[task_call("t1")]),
        tool_turn(&[("s1", "read", "{}"), ("s2", "write", "{}")]),
        text_turn("nothing allowed"),
        text_turn("done"),
    ];
    let family = family(scripts, Hooks::default(), gate.clone(), FrontEnd::Repl);
    // No answers: an approval request reaching the front end would fail the run helper.
    let (_, events, stop) = run_agent(&family.parent, Mode::Bypass, &[]);
    assert_eq!(stop, Stop::Completed);
    assert!(!events.iter().any(|event| matches!(event, Event::Approval(_))));
    let requests = family.provider.requests();
    let names: Vec<&str> = requests[1].tools.iter().map(|tool| tool.name.as_str()).collect();
    assert_eq!(names, ["read"], "the sub-agent offers read-only tools, never task or write");
    let results = &requests[2].messages[2].tool_results;
    assert_eq!(results[0].content, "needs approval: Read asks; run with --mode bypass");
    assert!(results[1].content.starts_with("unknown tool: write (available: read)"), "{}", results[1].content);
    assert_eq!(*lock(&gate.modes), [("Task".to_string(), Mode::Bypass), ("Read".to_string(), Mode::Plan)]);
    assert!(lock(&family.log).is_empty());
}
