//! Unit tests of the lean request: when it applies, what it leaves out, and that every figure
//! computed for a request (overhead, max_tokens) is computed on the request actually sent.

use super::*;
use crate::agent::test_gate::ModeMatrix;
use crate::agent::tests::{LogTool, ScriptedProvider, run_agent, settings, text_turn, tool_turn};
use crate::agent::{Agent, FrontEnd, Settings, Toolbox};
use crate::confine::Sandbox;
use crate::mode::Mode;
use crate::tools::Registry;
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[test]
fn lean_applies_below_the_configured_window_and_never_to_an_unknown_one() {
    let lean = Lean::below(16_384, String::new(), Vec::new());
    assert!(lean.applies(4_096));
    assert!(lean.applies(16_383));
    assert!(!lean.applies(16_384));
    assert!(!lean.applies(131_072));
    assert!(!lean.applies(0), "an unknown window gets the full form");
    let never = Lean::below(0, String::new(), Vec::new());
    assert_eq!(never.when, LeanWhen::Never);
    assert!(!never.applies(4_096));
    assert!(!Lean::default().applies(1));
    let always = Lean { when: LeanWhen::Always, ..Lean::default() };
    assert!(always.applies(0), "a sub-agent of a lean parent");
}

#[test]
fn optional_tools_are_left_out_unless_kept() {
    assert_eq!(Lean::below(16_384, String::new(), Vec::new()).left_out(), ["task", "job"]);
    let kept = vec!["task".to_string(), "job".to_string()];
    assert!(Lean::below(16_384, String::new(), kept).left_out().is_empty());
}

#[test]
fn the_optional_tools_of_the_config_are_the_task_tool() {
    let provider = ScriptedProvider::new(Vec::new());
    let toolbox = toolbox(provider, 1000);
    let task = crate::agent::subagent::TaskTool::new(toolbox, &Registry::new(), false);
    let job = crate::tools::JobTool::new(Arc::default());
    let names = [crate::tools::Tool::name(&task), crate::tools::Tool::name(&job)];
    assert_eq!(crate::config::lean::OPTIONAL_TOOLS, names);
}

fn toolbox(provider: Arc<ScriptedProvider>, max_tokens: u32) -> Arc<Toolbox> {
    Arc::new(Toolbox {
        provider,
        max_tokens,
        gate: Arc::new(ModeMatrix),
        hooks: crate::hooks::Hooks::default(),
        checks: crate::checks::Checks::default(),
        environment: crate::agent::toolbox::Environment::fixed("env"),
        silent_truncation: None,
    })
}

/// An agent with the built-ins and a `task` stand-in, lean below 16 384 tokens, on `window`.
fn agent(provider: Arc<ScriptedProvider>, window: u64) -> Arc<Agent> {
    let mut registry = Registry::with_builtins(Vec::new(), Arc::new(Sandbox::off()), Arc::default());
    let log = Arc::new(Mutex::new(Vec::new()));
    registry.register(Arc::new(LogTool { name: "task", read_only: true, delay: Duration::ZERO, log }));
    Arc::new(Agent {
        toolbox: toolbox(provider, 8_192),
        registry,
        stable_prompt: "the full prompt".into(),
        settings: Settings {
            lean: Lean::below(16_384, "the lean prompt".into(), Vec::new()),
            ..settings(5, FrontEnd::Headless)
        },
        context: crate::context::ContextConfig { window, compact_at: None, sessions_dir: None },
    })
}

#[test]
fn a_small_window_gets_the_lean_request_and_its_figures() {
    let provider = ScriptedProvider::new(vec![text_turn("ok")]);
    let agent = agent(provider.clone(), 4_096);
    run_agent(&agent, Mode::Default, &[]);
    let request = &provider.requests()[0];
    assert_eq!(request.system.stable, "the lean prompt");
    assert_eq!(request.system.environment, "env");
    let names: Vec<&str> = request.tools.iter().map(|tool| tool.name.as_str()).collect();
    assert_eq!(names, ["read_file", "write_file", "edit_file", "glob", "grep", "bash"], "no task, no job");
    assert_eq!(request.tools, agent.registry.lean_definitions(false, &["task", "job"]));
    let bash = request.tools.iter().find(|tool| tool.name == "bash").unwrap();
    assert!(bash.input_schema["properties"].get("run_in_background").is_none(), "no job tool, no background jobs");
    // max_tokens leaves room for the request that was sent: window - margin - its estimate.
    let overhead = crate::context::overhead_tokens(&request.system, &request.tools);
    let prompt = crate::context::tokens_for_chars(crate::context::message_chars(&request.messages[0]));
    let limits = crate::context::Limits::for_window(4_096);
    assert_eq!(u64::from(request.max_tokens), 4_096 - limits.safety_margin - overhead - prompt);
    assert_eq!(agent.tools_for(Mode::Plan), agent.registry.lean_definitions(true, &["task", "job"]));
}

#[test]
fn a_large_window_gets_the_full_request() {
    let provider = ScriptedProvider::new(vec![text_turn("ok")]);
    let agent = agent(provider.clone(), 131_072);
    run_agent(&agent, Mode::Default, &[]);
    let request = &provider.requests()[0];
    assert_eq!(request.system.stable, "the full prompt");
    assert_eq!(request.tools, agent.registry.definitions());
    assert!(request.tools.iter().any(|tool| tool.name == "task"));
}

#[test]
fn a_sub_agent_of_a_lean_parent_sends_lean_requests() {
    for parent_lean in [true, false] {
        let provider = ScriptedProvider::new(vec![text_turn("the report")]);
        let registry = Registry::with_builtins(Vec::new(), Arc::new(Sandbox::off()), Arc::default());
        let task = crate::agent::subagent::TaskTool::new(toolbox(provider.clone(), 1000), &registry, parent_lean);
        let ctx = crate::tools::ToolContext::new(std::env::temp_dir(), crate::cancel::CancelToken::new());
        let output = crate::tools::Tool::execute(&task, r#"{"prompt": "find it"}"#, &ctx);
        assert_eq!(output, crate::tools::ToolOutput::ok("the report"));
        let request = &provider.requests()[0];
        assert!(request.system.stable.starts_with("You are a research sub-agent"));
        let expected =
            if parent_lean { registry.lean_definitions(true, &[]) } else { registry.read_only_definitions() };
        assert_eq!(request.tools, expected, "parent lean: {parent_lean}");
    }
}

#[test]
fn a_tool_the_lean_request_left_out_is_unknown_when_called_anyway() {
    // The model calls `task`, which a 4 096-token window's request did not offer: it is refused
    // as unknown, naming what was offered, and never runs; in a large window it runs.
    let provider = ScriptedProvider::new(vec![tool_turn(&[("c1", "task", "{}")]), text_turn("ok")]);
    let small = agent(provider.clone(), 4_096);
    let (conversation, _, _) = run_agent(&small, Mode::Default, &[]);
    let result = &conversation.history()[2].tool_results[0];
    assert!(result.is_error);
    assert_eq!(result.content, "unknown tool: task (available: read_file, write_file, edit_file, glob, grep, bash)");
    let provider = ScriptedProvider::new(vec![tool_turn(&[("c1", "task", "{}")]), text_turn("ok")]);
    let large = agent(provider.clone(), 131_072);
    let (conversation, _, _) = run_agent(&large, Mode::Default, &[]);
    let result = &conversation.history()[2].tool_results[0];
    assert!(!result.is_error, "{}", result.content);
}
