//! Unit tests of `hooks.rs`: matchers, exit codes, JSON control and combining outcomes, with real commands.

use super::*;
use crate::test_dir::TempDir;

fn origin<'a>(session_id: &'a str, cancel: &'a CancelToken) -> Origin<'a> {
    Origin { session_id, cancel }
}

fn hooks_in(dir: &std::path::Path, event: HookEvent, matcher: &str, command: &str, timeout_s: Option<u64>) -> Hooks {
    let hook = HookConfig {
        event,
        matcher: matcher.into(),
        command: command.into(),
        timeout_s,
        source: "test".into(),
        confined: true,
    };
    let path = std::env::var("PATH").unwrap_or_default();
    Hooks::new(vec![hook], dir.to_path_buf(), vec![("PATH".into(), path)], Arc::default())
}

#[test]
fn matchers_follow_claude_code() {
    for (matcher, name, expected) in [
        ("", "Bash", true),
        ("*", "Read", true),
        ("Bash", "Bash", true),
        ("Bash", "BashX", false),
        ("Edit|Write", "Write", true),
        ("Edit|Write", "Read", false),
        ("mcp__github__.*", "mcp__github__search", true),
        ("(", "(", true),
    ] {
        assert_eq!(matches(matcher, name), expected, "{matcher} vs {name}");
    }
}

#[test]
fn exit_2_blocks_with_stderr_and_sees_the_event_on_stdin() {
    let temp = TempDir::new("hooks");
    let dir = temp.path();
    let script =
        r#"input=$(cat); case "$input" in *'"command":"rm -rf x"'*) echo "no rm here" >&2; exit 2;; esac; exit 0"#;
    let hooks = hooks_in(dir, HookEvent::PreToolUse, "Bash", script, None);
    let blocked = hooks.pre_tool_use("Bash", r#"{"command":"rm -rf x"}"#, origin("sess-1", &CancelToken::new()));
    assert_eq!(blocked.blocked.as_deref(), Some("no rm here"));
    let allowed = hooks.pre_tool_use("Bash", r#"{"command":"ls"}"#, origin("sess-1", &CancelToken::new()));
    assert_eq!(allowed, HookOutcome::default());
    let other_tool = hooks.pre_tool_use("Read", r#"{"path":"x"}"#, origin("sess-1", &CancelToken::new()));
    assert_eq!(other_tool, HookOutcome::default());
}

#[test]
fn the_event_json_carries_the_contract_fields() {
    let temp = TempDir::new("hooks");
    let dir = temp.path();
    let hooks = hooks_in(dir, HookEvent::PostToolUse, "", "cat", None);
    let outcome =
        hooks.post_tool_use("Read", r#"{"path":"a"}"#, "content", false, origin("sess-1", &CancelToken::new()));
    let event: Value = serde_json::from_str(&outcome.context[0]).unwrap();
    assert_eq!(event["hook_event_name"], "PostToolUse");
    assert_eq!(event["session_id"], "sess-1");
    assert_eq!(event["tool_name"], "Read");
    assert_eq!(event["tool_input"], json!({"path": "a"}));
    assert_eq!(event["tool_response"], json!({"content": "content", "is_error": false}));
    assert_eq!(event["cwd"], dir.display().to_string());
}

#[test]
fn other_exit_codes_and_timeouts_warn_and_go_on() {
    let temp = TempDir::new("hooks");
    let dir = temp.path();
    let failing = hooks_in(dir, HookEvent::UserPromptSubmit, "", "echo broken >&2; exit 1", None);
    let outcome = failing.user_prompt_submit("hi", origin("sess-1", &CancelToken::new()));
    assert_eq!(outcome.blocked, None);
    assert!(outcome.warnings[0].ends_with("exited with 1: broken"), "{:?}", outcome.warnings);
    let hanging = hooks_in(dir, HookEvent::Stop, "", "sleep 30", Some(1));
    let started = std::time::Instant::now();
    let outcome = hanging.stop(false, origin("sess-1", &CancelToken::new()));
    assert!(outcome.warnings[0].contains("timed out after 1 s"), "{:?}", outcome.warnings);
    assert!(started.elapsed() < Duration::from_secs(10));
    let missing = hooks_in(dir, HookEvent::Stop, "", "/definitely/not/a/hook", None);
    assert!(missing.stop(false, origin("sess-1", &CancelToken::new())).warnings[0].contains("exited with 127"));
}

#[test]
fn user_prompt_submit_stdout_becomes_context() {
    let temp = TempDir::new("hooks");
    let hooks = hooks_in(temp.path(), HookEvent::UserPromptSubmit, "", "echo 'Remember: run make lint.'", None);
    let outcome = hooks.user_prompt_submit("fix it", origin("sess-1", &CancelToken::new()));
    assert_eq!(outcome.context, ["Remember: run make lint."]);
}
fn control(event: HookEvent, text: &str) -> Control {
    parse_control(event, &serde_json::from_str(text).unwrap())
}

#[test]
fn json_control_is_read_per_claude_codes_contract() {
    use HookEvent::*;
    let deny = |reason: &str| Some(Verdict::Deny(reason.to_string()));
    let cases: Vec<(HookEvent, &str, Option<Verdict>)> = vec![
        (PreToolUse, r#"{}"#, None),
        (PreToolUse, r#"{"decision":"block","reason":"no"}"#, deny("no")),
        (PreToolUse, r#"{"decision":"block"}"#, deny(NO_REASON)),
        (PreToolUse, r#"{"decision":"block","reason":"  "}"#, deny(NO_REASON)),
        (PreToolUse, r#"{"decision":"approve","reason":"fine"}"#, Some(Verdict::Allow(Some("fine".into())))),
        (PostToolUse, r#"{"decision":"approve"}"#, None),
        (PostToolUse, r#"{"decision":"block","reason":"fix the lint"}"#, deny("fix the lint")),
        (Stop, r#"{"decision":"block","reason":"tests fail"}"#, deny("tests fail")),
        (UserPromptSubmit, r#"{"decision":"block","reason":"secret"}"#, deny("secret")),
        (
            PreToolUse,
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"rm"}}"#,
            deny("rm"),
        ),
        (
            PreToolUse,
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"sure?"}}"#,
            Some(Verdict::Ask("sure?".into())),
        ),
        (
            PreToolUse,
            r#"{"hookSpecificOutput":{"permissionDecision":"ask"}}"#,
            Some(Verdict::Ask("a hook asks for confirmation".into())),
        ),
        (
            PreToolUse,
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}"#,
            Some(Verdict::Allow(None)),
        ),
        // hookSpecificOutput wins over the deprecated top-level decision.
        (
            PreToolUse,
            r#"{"decision":"approve","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"x"}}"#,
            deny("x"),
        ),
        // Another event's specific output is not this event's.
        (PreToolUse, r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","permissionDecision":"deny"}}"#, None),
        (PostToolUse, r#"{"hookSpecificOutput":{"permissionDecision":"deny"}}"#, None),
    ];
    for (event, text, expected) in cases {
        assert_eq!(control(event, text).verdict, expected, "{} {text}", event.as_str());
    }
    let stop = control(Stop, r#"{"continue":false,"stopReason":"budget spent","systemMessage":"bye"}"#);
    assert_eq!((stop.stop.as_deref(), stop.system_message.as_deref()), (Some("budget spent"), Some("bye")));
    assert_eq!(control(Stop, r#"{"continue":false}"#).stop.as_deref(), Some("a hook stopped the run"));
    assert_eq!(control(Stop, r#"{"continue":true,"stopReason":"x"}"#).stop, None);
    assert_eq!(control(Stop, r#"{"suppressOutput":true}"#), Control::default());
    let context =
        r#"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"today is Friday"}}"#;
    assert_eq!(control(UserPromptSubmit, context).additional_context.as_deref(), Some("today is Friday"));
    let post = r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"3 warnings"}}"#;
    assert_eq!(control(PostToolUse, post).additional_context.as_deref(), Some("3 warnings"));
    let pre = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"x"}}"#;
    assert_eq!(control(PreToolUse, pre).additional_context, None);
    let bad = control(PreToolUse, r#"{"decision":"maybe","hookSpecificOutput":{"permissionDecision":"perhaps"}}"#);
    assert_eq!(bad.verdict, None);
    assert_eq!(bad.problems.len(), 2, "{:?}", bad.problems);
}

#[test]
fn exit_0_stdout_is_control_only_when_it_is_one_json_object() {
    let ok = Ending::Exited(std::os::unix::process::ExitStatusExt::from_raw(0));
    let blocked = Ending::Exited(std::os::unix::process::ExitStatusExt::from_raw(2 << 8));
    let run = |ending: &Ending, stdout: &str| plan_outcome(ending, stdout.into(), "why".into(), 60);
    assert_eq!(run(&ok, " {\"decision\":\"block\"}\n"), Run::Control(json!({"decision": "block"})));
    assert_eq!(run(&ok, "{\"suppressOutput\":true}"), Run::Control(json!({"suppressOutput": true})));
    assert_eq!(run(&ok, "[1, 2]"), Run::Continue("[1, 2]".into()));
    assert_eq!(run(&ok, "{\"name\":\"crate\"}"), Run::Continue("{\"name\":\"crate\"}".into()));
    assert_eq!(run(&ok, "{not json"), Run::Continue("{not json".into()));
    assert_eq!(run(&ok, "plain"), Run::Continue("plain".into()));
    // Exit 2 blocks with stderr; its stdout, JSON or not, is not read.
    assert_eq!(run(&blocked, "{\"decision\":\"approve\"}"), Run::Block("why".into()));
}

#[test]
fn combining_keeps_config_order_and_deny_beats_ask_beats_allow() {
    let allow = || Run::Control(json!({"decision": "approve", "reason": "ok"}));
    let ask = |reason: &str| {
        Run::Control(json!({"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": reason}}))
    };
    let commands = ["a", "b", "c"];
    let outcome = combine(HookEvent::PreToolUse, &commands, vec![allow(), ask("one"), ask("two")]);
    assert_eq!(outcome.permission, Some(HookPermission::Ask { reason: "one; two".into() }));
    assert_eq!(outcome.blocked, None);
    let outcome = combine(HookEvent::PreToolUse, &commands, vec![ask("one"), Run::Block("no".into()), allow()]);
    assert_eq!((outcome.blocked.as_deref(), outcome.permission), (Some("no"), None));
    let outcome = combine(HookEvent::PreToolUse, &commands[..1], vec![allow()]);
    assert_eq!(outcome.permission, Some(HookPermission::Allow { reason: Some("ok".into()) }));
    let bare = || Run::Control(json!({"decision": "approve"}));
    let outcome = combine(HookEvent::PreToolUse, &commands, vec![bare(), allow(), bare()]);
    assert_eq!(outcome.permission, Some(HookPermission::Allow { reason: Some("ok".into()) }));
    let outcome = combine(HookEvent::PreToolUse, &commands[..2], vec![bare(), bare()]);
    assert_eq!(outcome.permission, Some(HookPermission::Allow { reason: None }));
    let outcome = combine(HookEvent::PreToolUse, &commands[..2], vec![Run::Continue("x".into()), allow()]);
    assert_eq!(outcome.context, Vec::<String>::new(), "PreToolUse stdout is not context");
    assert_eq!(outcome.permission, Some(HookPermission::Allow { reason: Some("ok".into()) }));
    let outcome = combine(
        HookEvent::PostToolUse,
        &commands,
        vec![
            Run::Continue("first\n".into()),
            Run::Control(json!({"systemMessage": "m1", "continue": false, "stopReason": "s1",
                "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "second"}})),
            Run::Control(json!({"systemMessage": "m2", "continue": false, "stopReason": "s2", "decision": "what"})),
        ],
    );
    assert_eq!(outcome.context, ["first", "second"]);
    assert_eq!(outcome.messages, ["m1", "m2"]);
    assert_eq!(outcome.stop.as_deref(), Some("s1"));
    assert_eq!(outcome.warnings, ["PostToolUse hook `c`: decision \"what\" is not valid for PostToolUse"]);
    assert_eq!(combine(HookEvent::Stop, &[], Vec::new()), HookOutcome::default());
}

#[test]
fn hooks_of_one_event_run_in_parallel_and_combine_in_config_order() {
    let temp = TempDir::new("hooks-parallel");
    let dir = temp.path();
    let fifo = dir.join("meet");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    // The first hook blocks opening a FIFO until the second opens it to write: run one after
    // the other, the first would only end at its timeout, with a warning and no context.
    let first = r#"read -r word < meet && printf '{"hookSpecificOutput":{"additionalContext":"%s"}}' "$word""#;
    let second = "echo first > meet; echo second";
    let hook = |command: &str| HookConfig {
        event: HookEvent::PostToolUse,
        matcher: String::new(),
        command: command.into(),
        timeout_s: Some(20),
        source: "test".into(),
        confined: true,
    };
    let path = std::env::var("PATH").unwrap_or_default();
    let hooks =
        Hooks::new(vec![hook(first), hook(second)], dir.to_path_buf(), vec![("PATH".into(), path)], Arc::default());
    let outcome = hooks.post_tool_use("Read", "{}", "out", false, origin("sess-1", &CancelToken::new()));
    assert_eq!(outcome.context, ["first", "second"], "{outcome:?}");
}

#[test]
fn a_hook_outcome_stays_small() {
    assert!(std::mem::size_of::<HookOutcome>() <= 152);
}
