//! `bash` [Bash]: runs a shell command in the project root and returns its merged output.
//!
//! Invariant: nothing the command starts outlives the call, nothing it does reaches outside what
//! the sandbox allows, and nothing it prints can exhaust our memory. The command runs as
//! `bash -c` in a session of its own, under a reaper and the sandbox's confinement
//! (`proc`, `sys::child`, `confine`); when it ends, times out or is cancelled, everything it
//! started is killed. stdout and stderr are drained by two named threads into one `CappedOutput`
//! (head and tail kept, the middle counted), so memory stays under `OUTPUT_HEAD_BYTES +
//! `OUTPUT_TAIL_BYTES`.
//!
//! Decisions:
//! - Environment: exactly the `env` given to `BashTool::new` (the caller scrubs it to PATH, HOME,
//!   LANG, TERM once) plus the sandbox's `TMPDIR`; this module never reads our own environment.
//!   stdin is /dev/null. A call no person approved (a rule or the mode let it through) also gets
//!   `HARDENED_GIT`, so the repository's own git config cannot make an auto-allowed `git status`
//!   run code.
//! - A command whose output reports "Permission denied" for a path the sandbox forbids gets a
//!   `denied by sandbox: ...` line per path, so the model knows why and does not retry.
//! - `timeout` is in seconds (default 120, max 600); a value of 1000 or more is read as
//!   milliseconds, since models trained on other agents often send milliseconds.
//! - The exit code is always reported on the last line (`exit code: N`); a non-zero code, a
//!   signal, a timeout or a cancel make the result `is_error`, so the model sees the failure.
//! - Background processes of a command do not survive the call: when the shell exits its reaper
//!   kills whatever it left running, including processes that called setsid (they are still its
//!   descendants). A command meant to keep running (a dev server, a watcher) is started with
//!   `run_in_background`: it becomes a job (`jobs::Jobs`), confined the same way, that the `job`
//!   tool reads and stops and that ends with the session.

use super::{BASH, Progress, Tool, ToolContext, ToolKind, ToolOutput, lenient, parse_input};
use crate::confine::Sandbox;
use crate::jobs::Jobs;
use crate::proc::{self, Ending};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

/// Seconds a command may run when the model gives no timeout.
const DEFAULT_TIMEOUT_S: u64 = 120;
/// The longest timeout the model may ask for.
const MAX_TIMEOUT_S: u64 = 600;
/// Output bytes kept from the start of the output.
const OUTPUT_HEAD_BYTES: usize = 15_000;
/// Output bytes kept from the end of the output.
const OUTPUT_TAIL_BYTES: usize = 15_000;

/// Git settings for a command no person approved, as `GIT_CONFIG_KEY_n`/`VALUE_n` pairs (they
/// override every config file, the repository's `.git/config` included). Reviewed, and why:
/// - `safe.bareRepository=explicit`: a bare repository checked into the project (HEAD, config,
///   objects at some directory) is not discovered by a `git` run inside it, so its config
///   (fsmonitor, hooks, filters) is never read.
/// - `core.fsmonitor=false`: the fsmonitor hook is a program `git status` runs.
/// - `core.hooksPath=/dev/null`: no hook of the repository runs (commit, checkout, merge...).
/// - `core.sshCommand`/`core.askPass`/`credential.helper`, `core.pager`/`core.editor`: run only
///   by commands that fetch, push, page or edit, which no broad rule allows unasked; left alone.
/// - `filter.<driver>.*`, `diff.<driver>.textconv`: named per driver, so they cannot be
///   overridden here; what they run is confined by the sandbox like the command itself.
pub(crate) const HARDENED_GIT: [(&str, &str); 3] =
    [("safe.bareRepository", "explicit"), ("core.fsmonitor", "false"), ("core.hooksPath", "/dev/null")];

/// The `bash` tool, holding the complete environment its commands get and their sandbox.
pub(crate) struct BashTool {
    env: Vec<(String, String)>,
    sandbox: Arc<Sandbox>,
    jobs: Arc<Jobs>,
}

impl BashTool {
    /// A bash tool whose commands see exactly `env` (already scrubbed by the caller) plus the
    /// sandbox's temp dir, confined by `sandbox`; its background commands go to `jobs`.
    pub(crate) fn new(env: Vec<(String, String)>, sandbox: Arc<Sandbox>, jobs: Arc<Jobs>) -> BashTool {
        BashTool { env, sandbox, jobs }
    }
}

#[derive(serde::Deserialize)]
struct Input {
    command: String,
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    timeout: Option<u64>,
    #[serde(default, deserialize_with = "lenient::opt_bool")]
    run_in_background: Option<bool>,
    #[serde(default)]
    #[expect(
        dead_code,
        reason = "declared so that a non-string description is refused like any bad argument; the front end shows it from the raw arguments"
    )]
    description: Option<String>,
}

impl Tool for BashTool {
    fn name(&self) -> &str {
        BASH.name
    }

    fn rule_name(&self) -> &str {
        BASH.rule
    }

    fn kind(&self) -> ToolKind {
        BASH.kind
    }

    fn description(&self) -> &str {
        "Runs a command with `bash -c` in the project root and returns its combined stdout and stderr \
         (long output keeps its first and last 15 000 bytes) followed by the exit code. The \
         environment holds only PATH, HOME, LANG, TERM and TMPDIR; stdin is empty and there is no \
         terminal, so interactive commands fail. Commands run in a sandbox: they can write only \
         inside the project and $TMPDIR (use $TMPDIR, not /tmp, for scratch files) and cannot \
         read credential stores such as ~/.ssh. Background processes are killed when the command \
         ends, and the command and everything it started are killed at the timeout. For a command \
         that must keep running (a dev server, a watcher, a database), set run_in_background: it \
         returns at once with a job number; read its output and stop it with the job tool (jobs \
         end with the session)."
    }

    fn input_schema(&self) -> serde_json::Value {
        serde_json::json!({
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "The shell command to run"},
                "timeout": {"type": "integer", "minimum": 1, "description": "Timeout in seconds (default 120, max 600)"},
                "run_in_background": {"type": "boolean", "description": "Keep it running after this call as a job (read and stop it with the job tool); no timeout"},
                "description": {"type": "string", "description": "A short description of what the command does, shown to the user"}
            },
            "required": ["command"]
        })
    }

    fn lean_description(&self) -> String {
        "Run a bash command in the project root (sandboxed, no stdin); returns output and exit code.".to_string()
    }

    fn lean_input_schema(&self) -> serde_json::Value {
        super::lean::lean_schema(self.input_schema(), &[("timeout", "seconds"), ("description", "shown to the user")])
    }

    fn read_only(&self) -> bool {
        false
    }

    fn execute(&self, input_json: &str, ctx: &ToolContext) -> ToolOutput {
        let input: Input = match parse_input(BASH.name, input_json) {
            Ok(input) => input,
            Err(output) => return output,
        };
        if input.command.trim().is_empty() {
            return ToolOutput::error("command is empty");
        }
        if input.run_in_background == Some(true) {
            return self.start_job(&input.command, ctx);
        }
        let timeout = Duration::from_secs(plan_timeout_s(input.timeout));
        self.run_command(&input.command, ctx, timeout)
    }
}

impl BashTool {
    /// `bash -c command` in the project root, with the environment and git hardening of `ctx`.
    fn shell(&self, command: &str, ctx: &ToolContext, network: &crate::confine::Network) -> Command {
        let mut shell = Command::new("bash");
        shell.arg("-c").arg(command).current_dir(&ctx.root).env_clear();
        shell.envs(self.env.iter().map(|(key, value)| (key, value)));
        shell.envs(self.sandbox.env());
        shell.envs(network.env());
        if !ctx.approved_by_user {
            shell.envs(git_config_env(&HARDENED_GIT));
        }
        shell
    }

    /// Starts `command` as a background job: its number, or why not.
    fn start_job(&self, command: &str, ctx: &ToolContext) -> ToolOutput {
        let (confinement, network) = match self.sandbox.confinement_asking(ctx.ask_host.clone()) {
            Ok(prepared) => prepared,
            Err(message) => return ToolOutput::error(message),
        };
        let shell = self.shell(command, ctx, &network);
        match self.jobs.start(command, shell, confinement, network, Arc::clone(&self.sandbox)) {
            Ok(id) => ToolOutput::ok(format!(
                "started job {id} in the background; read its output with the job tool                  ({{\"action\": \"output\", \"id\": {id}}}) and stop it with {{\"action\": \"stop\", \"id\": {id}}}"
            )),
            Err(message) => ToolOutput::error(message),
        }
    }

    fn run_command(&self, command: &str, ctx: &ToolContext, timeout: Duration) -> ToolOutput {
        let (confinement, network) = match self.sandbox.confinement_asking(ctx.ask_host.clone()) {
            Ok(prepared) => prepared,
            Err(message) => return ToolOutput::error(message),
        };
        let shell = self.shell(command, ctx, &network);
        let job = proc::Job {
            command: shell,
            stdin: None,
            timeout,
            cancel: &ctx.cancel,
            merge_output: true,
            head_bytes: OUTPUT_HEAD_BYTES,
            tail_bytes: OUTPUT_TAIL_BYTES,
            label: "bash",
            confinement,
            watch: ctx.progress.clone().map(watch_lines),
        };
        let (result, undone) = self.sandbox.run(job);
        match result {
            Ok(finished) => {
                // Also when the command succeeded: a script that ignores a failed write still
                // reports it, and the model must not build on the write.
                let mut notes = self.sandbox.explain_denials(&finished.stdout);
                notes.extend(undone);
                notes.extend(network.notes.notes());
                render_result(finished.stdout, finished.ending, timeout, &notes)
            }
            Err(message) => ToolOutput::error(format!("{message} (in {})", ctx.root.display())),
        }
    }
}

/// `GIT_CONFIG_COUNT` and the numbered key/value variables git reads as command-line config.
pub(crate) fn git_config_env(settings: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut env = vec![("GIT_CONFIG_COUNT".to_string(), settings.len().to_string())];
    for (index, (key, value)) in settings.iter().enumerate() {
        env.push((format!("GIT_CONFIG_KEY_{index}"), key.to_string()));
        env.push((format!("GIT_CONFIG_VALUE_{index}"), value.to_string()));
    }
    env
}

/// The timeout in whole seconds for the model's value (see the module doc).
fn plan_timeout_s(requested: Option<u64>) -> u64 {
    match requested {
        None | Some(0) => DEFAULT_TIMEOUT_S,
        Some(value) if value >= 1000 => value.div_ceil(1000).clamp(1, MAX_TIMEOUT_S),
        Some(value) => value.min(MAX_TIMEOUT_S),
    }
}

fn render_result(text: String, ending: Ending, timeout: Duration, notes: &[String]) -> ToolOutput {
    let mut content = if text.is_empty() { "(no output)".to_string() } else { text };
    if !content.ends_with('\n') {
        content.push('\n');
    }
    for note in notes {
        content.push_str(note);
        content.push('\n');
    }
    let (status_line, is_error) = match ending {
        Ending::Exited(status) => match (status.code(), std::os::unix::process::ExitStatusExt::signal(&status)) {
            (Some(code), _) => (format!("exit code: {code}"), code != 0),
            (None, Some(signal)) => (format!("killed by signal {signal}"), true),
            (None, None) => ("exit status unknown".to_string(), true),
        },
        Ending::TimedOut => {
            (format!("command timed out after {} s; it and its child processes were killed", timeout.as_secs()), true)
        }
        Ending::Cancelled => ("command cancelled; it and its child processes were killed".to_string(), true),
        Ending::WaitFailed(err) => (format!("lost track of the command ({err}); it was killed"), true),
    };
    content.push_str(&status_line);
    ToolOutput { content, is_error, images: Vec::new() }
}

/// Bytes of one line handed to the live view; the rest of a longer line is not shown there.
const LIVE_LINE_BYTES: usize = 1024;

/// The command's output cut into lines for the live view: a line ends at `\n` or `\r` (a
/// progress bar's redraw is a line of its own), blank lines are skipped.
pub(crate) fn watch_lines(progress: Progress) -> proc::Watch {
    let pending = std::sync::Mutex::new(Vec::<u8>::new());
    Arc::new(move |chunk: &[u8]| {
        let mut pending = crate::sync::lock(&pending);
        for &byte in chunk {
            if byte == b'\n' || byte == b'\r' {
                if !pending.iter().all(u8::is_ascii_whitespace) {
                    progress.line(&String::from_utf8_lossy(&pending));
                }
                pending.clear();
            } else if pending.len() < LIVE_LINE_BYTES {
                pending.push(byte);
            }
        }
    })
}

#[cfg(test)]
#[path = "bash_tests.rs"]
mod tests;
