//! Hooks: user commands run at PreToolUse, PostToolUse, UserPromptSubmit and Stop, following
//! Claude Code's hook contract so users can reuse their scripts (SPEC §5).
//!
//! Contract: the event is one JSON object on stdin (`hook_event_name`, `session_id`, `cwd`, and
//! `tool_name` / `tool_input` / `tool_response` / `prompt` as the event has them). Exit 0 = go on
//! (stdout of UserPromptSubmit and PostToolUse is added to the model's context); exit 2 = block,
//! with stderr as the reason; any other exit (or a timeout, or a command that cannot start) =
//! a warning for the user, and the loop goes on. On exit 0, stdout that is one JSON object is
//! Claude Code's JSON control instead (`parse_control`): `decision` / `reason`, `continue: false`
//! with `stopReason`, `systemMessage`, `suppressOutput`, and `hookSpecificOutput` with
//! `permissionDecision` (allow / ask / deny) and `permissionDecisionReason` for PreToolUse and
//! `additionalContext` for UserPromptSubmit and PostToolUse. The hooks of one event run in
//! parallel and their results are combined in config order (`combine`); deny beats ask beats
//! allow. Invariant: a hook can never take the loop down, every hook is bounded by its timeout
//! (60 s default), after which everything it started is killed, and a hook runs in the same
//! sandbox as bash commands (`confine`): it is the user's command, but it reads what the model
//! and the repository wrote. A hook's "allow" never overrides the blacklist, the sandbox or a deny
//! rule: the agent applies it only where the mode would have asked a person.

use crate::cancel::CancelToken;
use crate::config::{HookConfig, HookEvent};
use crate::confine::Sandbox;
use crate::proc::{self, Ending};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

/// A hook's timeout when the config does not give one.
const DEFAULT_HOOK_TIMEOUT_S: u64 = 60;
/// Output kept from a hook (head and tail each).
const HOOK_OUTPUT_BYTES: usize = 8 * 1024;

/// The configured hooks and what they run with.
#[derive(Clone, Debug, Default)]
pub struct Hooks {
    hooks: Vec<HookConfig>,
    root: PathBuf,
    /// The environment hooks get: the host's (hooks are the user's own trusted commands).
    env: Vec<(String, String)>,
    sandbox: Arc<Sandbox>,
}

/// Which run an event belongs to: the session hooks are told, and the run's cancel token (a
/// cancelled run fires no more hooks and stops the ones running).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Origin<'a> {
    /// The conversation's session id (`session_id` of the event).
    pub session_id: &'a str,
    pub cancel: &'a CancelToken,
}

/// What the hooks of one event decided.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct HookOutcome {
    /// Set when a hook exited 2, answered `decision: "block"`, or (PreToolUse) denied with
    /// `permissionDecision: "deny"`: the call (or prompt, or stop) is blocked for this reason
    /// (the reasons of every blocking hook, in config order).
    pub blocked: Option<String>,
    /// Text to add to the model's context (stdout of UserPromptSubmit / PostToolUse hooks, or
    /// their `additionalContext`).
    pub context: Vec<String>,
    /// Problems for the user: non-zero exits, timeouts, hooks that could not start, JSON
    /// control the contract does not allow.
    pub warnings: Vec<String>,
    /// PreToolUse only, when no hook blocked: a hook's `permissionDecision` of ask or allow
    /// (`decision: "approve"` is allow). Ask beats allow.
    pub permission: Option<HookPermission>,
    /// `continue: false`: the run stops after this event, for this reason (`stopReason`).
    pub stop: Option<String>,
    /// `systemMessage`s: shown to the user, never to the model.
    pub messages: Vec<String>,
}

/// A PreToolUse hook's say on a call that no hook blocked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum HookPermission {
    /// Run without asking a person, where only the mode would have asked.
    Allow { reason: Option<String> },
    /// Ask a person even where rules or the mode would allow (in -p: a "needs approval" refusal).
    Ask { reason: String },
}

impl Hooks {
    /// Hooks for a project root; `env` is the complete environment they run with (the sandbox
    /// adds its temp dir), `sandbox` confines them. Every event names the session it belongs to
    /// (`Origin::session_id`), which the conversation, not the hooks, knows.
    pub fn new(hooks: Vec<HookConfig>, root: PathBuf, env: Vec<(String, String)>, sandbox: Arc<Sandbox>) -> Hooks {
        Hooks { hooks, root, env, sandbox }
    }

    /// True when no hook is configured for `event` (callers skip building the input).
    fn is_empty_for(&self, event: HookEvent) -> bool {
        !self.hooks.iter().any(|hook| hook.event == event)
    }

    /// Before a tool runs. `tool_name` is the friendly name (`Bash`); `tool_input` the raw JSON.
    pub(crate) fn pre_tool_use(&self, tool_name: &str, tool_input: &str, origin: Origin<'_>) -> HookOutcome {
        if self.is_empty_for(HookEvent::PreToolUse) {
            // Nothing configured: not even the input is built (the common case, every call).
            return HookOutcome::default();
        }
        let input = json!({"tool_name": tool_name, "tool_input": parse_or_string(tool_input)});
        self.fire(HookEvent::PreToolUse, Some(tool_name), input, origin)
    }

    /// After a tool ran, with its result.
    pub(crate) fn post_tool_use(
        &self,
        tool_name: &str,
        tool_input: &str,
        output: &str,
        is_error: bool,
        origin: Origin<'_>,
    ) -> HookOutcome {
        if self.is_empty_for(HookEvent::PostToolUse) {
            return HookOutcome::default();
        }
        let input = json!({
            "tool_name": tool_name,
            "tool_input": parse_or_string(tool_input),
            "tool_response": {"content": output, "is_error": is_error},
        });
        self.fire(HookEvent::PostToolUse, Some(tool_name), input, origin)
    }

    /// When the user submits a prompt.
    pub(crate) fn user_prompt_submit(&self, prompt: &str, origin: Origin<'_>) -> HookOutcome {
        self.fire(HookEvent::UserPromptSubmit, None, json!({"prompt": prompt}), origin)
    }

    /// When the agent is about to finish a turn. `already_continued` is true when a Stop hook
    /// already sent the model back to work in this turn (Claude Code's `stop_hook_active`).
    pub(crate) fn stop(&self, already_continued: bool, origin: Origin<'_>) -> HookOutcome {
        self.fire(HookEvent::Stop, None, json!({"stop_hook_active": already_continued}), origin)
    }

    /// Runs every hook of `event` whose matcher accepts `tool_name`, all at once (as Claude Code
    /// does), and combines their results in config order.
    fn fire(&self, event: HookEvent, tool_name: Option<&str>, mut input: Value, origin: Origin<'_>) -> HookOutcome {
        let cancel = origin.cancel;
        let matching: Vec<&HookConfig> = self
            .hooks
            .iter()
            .filter(|hook| hook.event == event && tool_name.is_none_or(|name| matches(&hook.matcher, name)))
            .collect();
        if matching.is_empty() || cancel.is_cancelled() {
            return HookOutcome::default();
        }
        input["hook_event_name"] = json!(event.as_str());
        input["session_id"] = json!(origin.session_id);
        input["cwd"] = json!(self.root.display().to_string());
        let input = &input;
        let runs: Vec<Run> = match matching.as_slice() {
            [hook] => vec![self.run_one(hook, input, cancel)],
            hooks => std::thread::scope(|scope| {
                let handles: Vec<_> = hooks
                    .iter()
                    .enumerate()
                    .map(|(index, hook)| {
                        std::thread::Builder::new()
                            .name(format!("hook-{index}"))
                            .spawn_scoped(scope, move || self.run_one(hook, input, cancel))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|handle| match handle {
                        Ok(handle) => handle.join().unwrap_or_else(|_| Run::Warn("the hook's thread failed".into())),
                        Err(err) => Run::Warn(format!("could not start a thread for it: {err}")),
                    })
                    .collect()
            }),
        };
        let commands: Vec<&str> = matching.iter().map(|hook| hook.command.as_str()).collect();
        combine(event, &commands, runs)
    }

    fn run_one(&self, hook: &HookConfig, input: &Value, cancel: &CancelToken) -> Run {
        let timeout_s = hook.timeout_s.unwrap_or(DEFAULT_HOOK_TIMEOUT_S);
        let confinement = match self.sandbox.confinement() {
            Ok(confinement) => confinement,
            Err(message) => return Run::Warn(format!("not run: {message}")),
        };
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(&hook.command)
            .current_dir(&self.root)
            .env_clear()
            .envs(self.env.iter().map(|(key, value)| (key, value)))
            .env("MEWCODE_PROJECT_DIR", &self.root)
            .env("CLAUDE_PROJECT_DIR", &self.root)
            .envs(self.sandbox.env());
        let job = proc::Job {
            command,
            stdin: Some(input.to_string().into_bytes()),
            timeout: Duration::from_secs(timeout_s),
            cancel,
            merge_output: false,
            head_bytes: HOOK_OUTPUT_BYTES,
            tail_bytes: HOOK_OUTPUT_BYTES,
            label: "hook",
            confinement,
        };
        let (result, undone) = self.sandbox.run(job);
        let undone = undone.join("; ");
        let finished = match result {
            Ok(finished) => finished,
            Err(message) => return Run::Warn(message),
        };
        let outcome = plan_outcome(&finished.ending, finished.stdout, finished.stderr, timeout_s);
        if undone.is_empty() {
            return outcome;
        }
        // A hook that left control files behind is said aloud; a block or a decision stands.
        match outcome {
            Run::Continue(_) => Run::Warn(undone),
            Run::Warn(warning) => Run::Warn(format!("{warning}; {undone}")),
            Run::Block(reason) => Run::Block(format!("{reason}\n{undone}")),
            control @ Run::Control(_) => control,
        }
    }
}

/// One hook's result.
#[derive(Debug, PartialEq, Eq)]
enum Run {
    /// Exit 0 with plain stdout.
    Continue(String),
    /// Exit 0 with a JSON object on stdout.
    Control(Value),
    /// Exit 2, with stderr as the reason.
    Block(String),
    Warn(String),
}

/// Maps an ending and the output to the contract's meaning (pure).
fn plan_outcome(ending: &Ending, stdout: String, stderr: String, timeout_s: u64) -> Run {
    match ending {
        Ending::Exited(status) => match status.code() {
            // One JSON object with a field of the contract is control; any other output (a
            // hook that prints some other JSON document included) is plain stdout.
            Some(0) => match serde_json::from_str::<Value>(stdout.trim()) {
                Ok(value) if CONTROL_FIELDS.iter().any(|field| value.get(field).is_some()) => Run::Control(value),
                _ => Run::Continue(stdout),
            },
            Some(2) => {
                let reason = stderr.trim();
                Run::Block(if reason.is_empty() { NO_REASON.to_string() } else { reason.to_string() })
            }
            Some(code) => Run::Warn(format!("exited with {code}: {}", first_line(&stderr))),
            None => Run::Warn("killed by a signal".to_string()),
        },
        Ending::TimedOut => Run::Warn(format!("timed out after {timeout_s} s and was killed")),
        Ending::Cancelled => Run::Warn("cancelled".to_string()),
        Ending::WaitFailed(err) => Run::Warn(format!("lost track of it: {err}")),
    }
}

/// A hook's JSON control object, read per Claude Code's contract for `event`.
#[derive(Debug, Default, PartialEq, Eq)]
struct Control {
    /// `continue: false` → Some(`stopReason`, or a default).
    stop: Option<String>,
    system_message: Option<String>,
    /// What the hook says about the call, prompt or stop.
    verdict: Option<Verdict>,
    additional_context: Option<String>,
    /// Fields present but not valid for the contract (ignored, reported).
    problems: Vec<String>,
}

/// One hook's decision, before combining. Order matters: deny beats ask beats allow.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Verdict {
    Deny(String),
    Ask(String),
    Allow(Option<String>),
}

/// Reads a JSON control object (pure). Top-level: `continue`, `stopReason`, `systemMessage`,
/// `suppressOutput` (mewcode never shows a hook's stdout, so there is nothing to suppress),
/// `decision` ("block"; "approve" for PreToolUse) with `reason`. `hookSpecificOutput` counts
/// only when its `hookEventName` is this event (or absent): `permissionDecision` allow / ask /
/// deny with `permissionDecisionReason` (PreToolUse; it wins over a top-level `decision`), and
/// `additionalContext` (UserPromptSubmit, PostToolUse).
fn parse_control(event: HookEvent, value: &Value) -> Control {
    let mut control = Control::default();
    let text = |object: &Value, key: &str| object.get(key).and_then(Value::as_str).map(str::to_string);
    if value.get("continue").and_then(Value::as_bool) == Some(false) {
        control.stop = Some(text(value, "stopReason").unwrap_or_else(|| "a hook stopped the run".to_string()));
    }
    control.system_message = text(value, "systemMessage").filter(|message| !message.trim().is_empty());
    let reason = text(value, "reason").filter(|reason| !reason.trim().is_empty());
    match (value.get("decision").and_then(Value::as_str), event) {
        (None, _) => {}
        (Some("block"), _) => {
            control.verdict = Some(Verdict::Deny(reason.unwrap_or_else(|| NO_REASON.to_string())));
        }
        (Some("approve"), HookEvent::PreToolUse) => control.verdict = Some(Verdict::Allow(reason)),
        (Some(other), _) => control.problems.push(format!("decision {other:?} is not valid for {}", event.as_str())),
    }
    let Some(specific) = value.get("hookSpecificOutput").filter(|specific| specific.is_object()) else {
        return control;
    };
    if let Some(name) = text(specific, "hookEventName")
        && name != event.as_str()
    {
        control.problems.push(format!("hookSpecificOutput for {name} ignored in {}", event.as_str()));
        return control;
    }
    let permission_reason = text(specific, "permissionDecisionReason").filter(|reason| !reason.trim().is_empty());
    match (specific.get("permissionDecision").and_then(Value::as_str), event) {
        (None, _) => {}
        (Some("deny"), HookEvent::PreToolUse) => {
            control.verdict = Some(Verdict::Deny(permission_reason.unwrap_or_else(|| NO_REASON.to_string())));
        }
        (Some("ask"), HookEvent::PreToolUse) => {
            let reason = permission_reason.unwrap_or_else(|| "a hook asks for confirmation".to_string());
            control.verdict = Some(Verdict::Ask(reason));
        }
        (Some("allow"), HookEvent::PreToolUse) => control.verdict = Some(Verdict::Allow(permission_reason)),
        (Some(other), _) => {
            control.problems.push(format!("permissionDecision {other:?} is not valid for {}", event.as_str()));
        }
    }
    if matches!(event, HookEvent::UserPromptSubmit | HookEvent::PostToolUse) {
        control.additional_context = text(specific, "additionalContext").filter(|context| !context.trim().is_empty());
    }
    control
}

/// The top-level fields of Claude Code's JSON control.
const CONTROL_FIELDS: &[&str] =
    &["continue", "stopReason", "suppressOutput", "systemMessage", "decision", "reason", "hookSpecificOutput"];

/// The reason when a hook blocks without giving one.
const NO_REASON: &str = "blocked by a hook (no reason given)";

/// Combines the results of one event's hooks, given in config order (pure): context, warnings
/// and messages in that order; every blocking hook's reason; deny beats ask beats allow; the
/// first `continue: false` stops the run.
fn combine(event: HookEvent, commands: &[&str], runs: Vec<Run>) -> HookOutcome {
    let mut outcome = HookOutcome::default();
    let mut denials: Vec<String> = Vec::new();
    let mut asks: Vec<String> = Vec::new();
    let mut allow: Option<Option<String>> = None;
    let wants_context = matches!(event, HookEvent::UserPromptSubmit | HookEvent::PostToolUse);
    for (command, run) in commands.iter().zip(runs) {
        let warn = |message: &str| format!("{} hook `{command}`: {message}", event.as_str());
        match run {
            Run::Continue(stdout) => {
                if wants_context && !stdout.trim().is_empty() {
                    outcome.context.push(stdout.trim().to_string());
                }
            }
            Run::Block(reason) => denials.push(reason),
            Run::Warn(warning) => outcome.warnings.push(warn(&warning)),
            Run::Control(value) => {
                let control = parse_control(event, &value);
                outcome.warnings.extend(control.problems.iter().map(|problem| warn(problem)));
                outcome.messages.extend(control.system_message);
                if outcome.stop.is_none() {
                    outcome.stop = control.stop;
                }
                outcome.context.extend(control.additional_context);
                match control.verdict {
                    None => {}
                    Some(Verdict::Deny(reason)) => denials.push(reason),
                    Some(Verdict::Ask(reason)) => asks.push(reason),
                    // The first allow that gives a reason (else the first) is the one reported.
                    Some(Verdict::Allow(reason)) if allow.as_ref().is_none_or(Option::is_none) => allow = Some(reason),
                    Some(Verdict::Allow(_)) => {}
                }
            }
        }
    }
    if !denials.is_empty() {
        outcome.blocked = Some(denials.join("; "));
    } else if !asks.is_empty() {
        outcome.permission = Some(HookPermission::Ask { reason: asks.join("; ") });
    } else if let Some(reason) = allow {
        outcome.permission = Some(HookPermission::Allow { reason });
    }
    outcome
}

/// Claude Code's matcher: empty or `*` = every tool; otherwise a regex matched against the whole
/// friendly name (`Edit|Write`), or the literal name when it is not a valid regex.
pub(crate) fn matches(matcher: &str, tool_name: &str) -> bool {
    let matcher = matcher.trim();
    if matcher.is_empty() || matcher == "*" {
        return true;
    }
    match regex::Regex::new(&format!("^(?:{matcher})$")) {
        Ok(pattern) => pattern.is_match(tool_name),
        Err(_) => matcher == tool_name,
    }
}

fn parse_or_string(raw: &str) -> Value {
    serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_string()))
}

fn first_line(text: &str) -> String {
    let line = text.lines().find(|line| !line.trim().is_empty()).unwrap_or("(no output)");
    line.chars().take(200).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin<'a>(session_id: &'a str, cancel: &'a CancelToken) -> Origin<'a> {
        Origin { session_id, cancel }
    }

    fn hooks_in(
        dir: &std::path::Path,
        event: HookEvent,
        matcher: &str,
        command: &str,
        timeout_s: Option<u64>,
    ) -> Hooks {
        let hook =
            HookConfig { event, matcher: matcher.into(), command: command.into(), timeout_s, source: "test".into() };
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
        let dir = std::env::temp_dir();
        let script =
            r#"input=$(cat); case "$input" in *'"command":"rm -rf x"'*) echo "no rm here" >&2; exit 2;; esac; exit 0"#;
        let hooks = hooks_in(&dir, HookEvent::PreToolUse, "Bash", script, None);
        let blocked = hooks.pre_tool_use("Bash", r#"{"command":"rm -rf x"}"#, origin("sess-1", &CancelToken::new()));
        assert_eq!(blocked.blocked.as_deref(), Some("no rm here"));
        let allowed = hooks.pre_tool_use("Bash", r#"{"command":"ls"}"#, origin("sess-1", &CancelToken::new()));
        assert_eq!(allowed, HookOutcome::default());
        let other_tool = hooks.pre_tool_use("Read", r#"{"path":"x"}"#, origin("sess-1", &CancelToken::new()));
        assert_eq!(other_tool, HookOutcome::default());
    }

    #[test]
    fn the_event_json_carries_the_contract_fields() {
        let dir = std::env::temp_dir();
        let hooks = hooks_in(&dir, HookEvent::PostToolUse, "", "cat", None);
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
        let dir = std::env::temp_dir();
        let failing = hooks_in(&dir, HookEvent::UserPromptSubmit, "", "echo broken >&2; exit 1", None);
        let outcome = failing.user_prompt_submit("hi", origin("sess-1", &CancelToken::new()));
        assert_eq!(outcome.blocked, None);
        assert!(outcome.warnings[0].ends_with("exited with 1: broken"), "{:?}", outcome.warnings);
        let hanging = hooks_in(&dir, HookEvent::Stop, "", "sleep 30", Some(1));
        let started = std::time::Instant::now();
        let outcome = hanging.stop(false, origin("sess-1", &CancelToken::new()));
        assert!(outcome.warnings[0].contains("timed out after 1 s"), "{:?}", outcome.warnings);
        assert!(started.elapsed() < Duration::from_secs(10));
        let missing = hooks_in(&dir, HookEvent::Stop, "", "/definitely/not/a/hook", None);
        assert!(missing.stop(false, origin("sess-1", &CancelToken::new())).warnings[0].contains("exited with 127"));
    }

    #[test]
    fn user_prompt_submit_stdout_becomes_context() {
        let hooks =
            hooks_in(&std::env::temp_dir(), HookEvent::UserPromptSubmit, "", "echo 'Remember: run make lint.'", None);
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
            Run::Control(
                json!({"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": reason}}),
            )
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
        let dir = std::env::temp_dir().join(format!("mewcode-hooks-parallel-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("meet");
        let _ = std::fs::remove_file(&fifo);
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
        };
        let path = std::env::var("PATH").unwrap_or_default();
        let hooks =
            Hooks::new(vec![hook(first), hook(second)], dir.clone(), vec![("PATH".into(), path)], Arc::default());
        let outcome = hooks.post_tool_use("Read", "{}", "out", false, origin("sess-1", &CancelToken::new()));
        assert_eq!(outcome.context, ["first", "second"], "{outcome:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
