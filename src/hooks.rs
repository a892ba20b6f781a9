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
//! (60 s default), after which everything it started is killed, and a project's hook runs in the
//! same sandbox as bash commands (`confine`): the repository wrote it. The user's own hooks (user
//! config, `--config`: `HookConfig::confined` false) run as the user, outside the sandbox, as
//! Claude Code runs them: a log under `~` or a desktop notification must work. A hook's "allow" never overrides the blacklist, the sandbox or a deny
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
        // The user's own hooks run as the user (a log under `~`, a desktop notification); a
        // project's run in the sandbox, as its commands do.
        // A project's hook follows the network policy with nobody to ask (a new host is refused);
        // `network` is its way out, held until it ends.
        let (confinement, network) = if hook.confined {
            match self.sandbox.confinement_asking(None) {
                Ok((confinement, network)) => (confinement, Some(network)),
                Err(message) => return Run::Warn(format!("not run: {message}")),
            }
        } else {
            (None, None)
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
            .envs(if hook.confined { self.sandbox.env() } else { Vec::new() })
            .envs(network.as_ref().map(crate::confine::Network::env).unwrap_or_default());
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
            watch: None,
        };
        let (result, undone) = if hook.confined { self.sandbox.run(job) } else { (proc::run(job), Vec::new()) };
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
#[path = "hooks_tests.rs"]
mod tests;
