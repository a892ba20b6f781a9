//! Hooks: user commands run at PreToolUse, PostToolUse, UserPromptSubmit and Stop, following
//! Claude Code's hook contract so users can reuse their scripts (SPEC §5).
//!
//! Contract: the event is one JSON object on stdin (`hook_event_name`, `session_id`, `cwd`, and
//! `tool_name` / `tool_input` / `tool_response` / `prompt` as the event has them). Exit 0 = go on
//! (stdout of UserPromptSubmit and PostToolUse is added to the model's context); exit 2 = block,
//! with stderr as the reason; any other exit (or a timeout, or a command that cannot start) =
//! a warning for the user, and the loop goes on. Invariant: a hook can never take the loop down,
//! every hook is bounded by its timeout (60 s default), after which everything it started is
//! killed, and a hook runs in the same sandbox as bash commands (`confine`): it is the user's
//! command, but it reads what the model and the repository wrote.

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
pub const DEFAULT_HOOK_TIMEOUT_S: u64 = 60;
/// Output kept from a hook (head and tail each).
const HOOK_OUTPUT_BYTES: usize = 8 * 1024;

/// The configured hooks and what they run with.
#[derive(Clone, Debug, Default)]
pub struct Hooks {
    hooks: Vec<HookConfig>,
    root: PathBuf,
    /// The environment hooks get: the host's (hooks are the user's own trusted commands).
    env: Vec<(String, String)>,
    session_id: String,
    sandbox: Arc<Sandbox>,
}

/// What the hooks of one event decided.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HookOutcome {
    /// Set when a hook exited 2: the call (or prompt, or stop) is blocked for this reason.
    pub blocked: Option<String>,
    /// Text to add to the model's context (stdout of UserPromptSubmit / PostToolUse hooks).
    pub context: Vec<String>,
    /// Problems for the user: non-zero exits, timeouts, hooks that could not start.
    pub warnings: Vec<String>,
}

impl Hooks {
    /// Hooks for a project root; `env` is the complete environment they run with (the sandbox
    /// adds its temp dir), `sandbox` confines them.
    pub fn new(
        hooks: Vec<HookConfig>,
        root: PathBuf,
        env: Vec<(String, String)>,
        session_id: &str,
        sandbox: Arc<Sandbox>,
    ) -> Hooks {
        Hooks { hooks, root, env, session_id: session_id.to_string(), sandbox }
    }

    /// True when no hook is configured for `event` (callers skip building the input).
    pub fn is_empty_for(&self, event: HookEvent) -> bool {
        !self.hooks.iter().any(|hook| hook.event == event)
    }

    /// Before a tool runs. `tool_name` is the friendly name (`Bash`); `tool_input` the raw JSON.
    pub fn pre_tool_use(&self, tool_name: &str, tool_input: &str, cancel: &CancelToken) -> HookOutcome {
        let input = json!({"tool_name": tool_name, "tool_input": parse_or_string(tool_input)});
        self.fire(HookEvent::PreToolUse, Some(tool_name), input, cancel)
    }

    /// After a tool ran, with its result.
    pub fn post_tool_use(
        &self,
        tool_name: &str,
        tool_input: &str,
        output: &str,
        is_error: bool,
        cancel: &CancelToken,
    ) -> HookOutcome {
        let input = json!({
            "tool_name": tool_name,
            "tool_input": parse_or_string(tool_input),
            "tool_response": {"content": output, "is_error": is_error},
        });
        self.fire(HookEvent::PostToolUse, Some(tool_name), input, cancel)
    }

    /// When the user submits a prompt.
    pub fn user_prompt_submit(&self, prompt: &str, cancel: &CancelToken) -> HookOutcome {
        self.fire(HookEvent::UserPromptSubmit, None, json!({"prompt": prompt}), cancel)
    }

    /// When the agent is about to finish a turn. `already_continued` is true when a Stop hook
    /// already sent the model back to work in this turn (Claude Code's `stop_hook_active`).
    pub fn stop(&self, already_continued: bool, cancel: &CancelToken) -> HookOutcome {
        self.fire(HookEvent::Stop, None, json!({"stop_hook_active": already_continued}), cancel)
    }

    /// Runs every hook of `event` whose matcher accepts `tool_name`, in config order; the first
    /// block wins and later hooks of the event do not run.
    fn fire(&self, event: HookEvent, tool_name: Option<&str>, mut input: Value, cancel: &CancelToken) -> HookOutcome {
        let mut outcome = HookOutcome::default();
        let matching = self
            .hooks
            .iter()
            .filter(|hook| hook.event == event && tool_name.is_none_or(|name| matches(&hook.matcher, name)));
        for hook in matching {
            if cancel.is_cancelled() {
                break;
            }
            input["hook_event_name"] = json!(event.as_str());
            input["session_id"] = json!(self.session_id);
            input["cwd"] = json!(self.root.display().to_string());
            match self.run_one(hook, &input, cancel) {
                Run::Continue(stdout) => {
                    let wants_context = matches!(event, HookEvent::UserPromptSubmit | HookEvent::PostToolUse);
                    if wants_context && !stdout.trim().is_empty() {
                        outcome.context.push(stdout.trim().to_string());
                    }
                }
                Run::Block(reason) => {
                    outcome.blocked = Some(reason);
                    break;
                }
                Run::Warn(warning) => {
                    outcome.warnings.push(format!("{} hook `{}`: {warning}", event.as_str(), hook.command))
                }
            }
        }
        outcome
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
        let finished = match proc::run(job) {
            Ok(finished) => finished,
            Err(message) => return Run::Warn(message),
        };
        plan_outcome(&finished.ending, finished.stdout, finished.stderr, timeout_s)
    }
}

/// One hook's result.
#[derive(Debug, PartialEq, Eq)]
enum Run {
    Continue(String),
    Block(String),
    Warn(String),
}

/// Maps an ending and the output to the contract's meaning (pure).
fn plan_outcome(ending: &Ending, stdout: String, stderr: String, timeout_s: u64) -> Run {
    match ending {
        Ending::Exited(status) => match status.code() {
            Some(0) => Run::Continue(stdout),
            Some(2) => {
                let reason = stderr.trim();
                Run::Block(if reason.is_empty() {
                    "blocked by a hook (no reason given)".to_string()
                } else {
                    reason.to_string()
                })
            }
            Some(code) => Run::Warn(format!("exited with {code}: {}", first_line(&stderr))),
            None => Run::Warn("killed by a signal".to_string()),
        },
        Ending::TimedOut => Run::Warn(format!("timed out after {timeout_s} s and was killed")),
        Ending::Cancelled => Run::Warn("cancelled".to_string()),
        Ending::WaitFailed(err) => Run::Warn(format!("lost track of it: {err}")),
    }
}

/// Claude Code's matcher: empty or `*` = every tool; otherwise a regex matched against the whole
/// friendly name (`Edit|Write`), or the literal name when it is not a valid regex.
pub fn matches(matcher: &str, tool_name: &str) -> bool {
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
        Hooks::new(vec![hook], dir.to_path_buf(), vec![("PATH".into(), path)], "sess-1", Arc::default())
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
        let blocked = hooks.pre_tool_use("Bash", r#"{"command":"rm -rf x"}"#, &CancelToken::new());
        assert_eq!(blocked.blocked.as_deref(), Some("no rm here"));
        let allowed = hooks.pre_tool_use("Bash", r#"{"command":"ls"}"#, &CancelToken::new());
        assert_eq!(allowed, HookOutcome::default());
        let other_tool = hooks.pre_tool_use("Read", r#"{"path":"x"}"#, &CancelToken::new());
        assert_eq!(other_tool, HookOutcome::default());
    }

    #[test]
    fn the_event_json_carries_the_contract_fields() {
        let dir = std::env::temp_dir();
        let hooks = hooks_in(&dir, HookEvent::PostToolUse, "", "cat", None);
        let outcome = hooks.post_tool_use("Read", r#"{"path":"a"}"#, "content", false, &CancelToken::new());
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
        let outcome = failing.user_prompt_submit("hi", &CancelToken::new());
        assert_eq!(outcome.blocked, None);
        assert!(outcome.warnings[0].ends_with("exited with 1: broken"), "{:?}", outcome.warnings);
        let hanging = hooks_in(&dir, HookEvent::Stop, "", "sleep 30", Some(1));
        let started = std::time::Instant::now();
        let outcome = hanging.stop(false, &CancelToken::new());
        assert!(outcome.warnings[0].contains("timed out after 1 s"), "{:?}", outcome.warnings);
        assert!(started.elapsed() < Duration::from_secs(10));
        let missing = hooks_in(&dir, HookEvent::Stop, "", "/definitely/not/a/hook", None);
        assert!(missing.stop(false, &CancelToken::new()).warnings[0].contains("exited with 127"));
    }

    #[test]
    fn user_prompt_submit_stdout_becomes_context() {
        let hooks =
            hooks_in(&std::env::temp_dir(), HookEvent::UserPromptSubmit, "", "echo 'Remember: run make lint.'", None);
        let outcome = hooks.user_prompt_submit("fix it", &CancelToken::new());
        assert_eq!(outcome.context, ["Remember: run make lint."]);
    }
}
