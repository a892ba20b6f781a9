//! `bash` [Bash]: runs a shell command in the project root and returns its merged output.
//!
//! Invariant: nothing the command starts outlives a timeout or a cancel, and nothing it prints can
//! exhaust our memory. The command runs as `bash -c` in its own process group (`process_group(0)`);
//! on timeout or cancel the whole group gets SIGKILL (`sys::kill_process_group`) and is reaped.
//! stdout and stderr are drained by two named threads into one `CappedOutput` (head and tail kept,
//! the middle counted), so memory stays under `OUTPUT_HEAD_BYTES + OUTPUT_TAIL_BYTES`.
//!
//! Decisions:
//! - Environment: exactly the `env` given to `BashTool::new` (the caller scrubs it to PATH, HOME,
//!   LANG, TERM once); this module never reads our own environment. stdin is /dev/null.
//! - `timeout` is in seconds (default 120, max 600); a value of 1000 or more is read as
//!   milliseconds, since models trained on other agents often send milliseconds.
//! - The exit code is always reported on the last line (`exit code: N`); a non-zero code, a
//!   signal, a timeout or a cancel make the result `is_error`, so the model sees the failure.
//! - Background jobs: after the shell exits, the drains get `DRAIN_GRACE` to reach end of file.
//!   A background process still holding our pipes then has its group killed (it would otherwise
//!   hang the call); one that redirected its output elsewhere keeps running. A process that left
//!   the group (`setsid`) and kept the pipes is out of reach: its drain thread is left detached
//!   and the output read so far is returned.

use super::{BASH, Tool, ToolContext, ToolOutput, lenient, parse_input};
use crate::cancel::CancelToken;
use crate::proc::{self, Ending};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// Seconds a command may run when the model gives no timeout.
pub const DEFAULT_TIMEOUT_S: u64 = 120;
/// The longest timeout the model may ask for.
pub const MAX_TIMEOUT_S: u64 = 600;
/// Output bytes kept from the start of the output.
pub const OUTPUT_HEAD_BYTES: usize = 15_000;
/// Output bytes kept from the end of the output.
pub const OUTPUT_TAIL_BYTES: usize = 15_000;

/// The `bash` tool, holding the complete environment its commands get.
pub struct BashTool {
    env: Vec<(String, String)>,
}

impl BashTool {
    /// A bash tool whose commands see exactly `env` (already scrubbed by the caller).
    pub fn new(env: Vec<(String, String)>) -> BashTool {
        BashTool { env }
    }
}

#[derive(serde::Deserialize)]
struct Input {
    command: String,
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    timeout: Option<u64>,
    #[serde(default)]
    #[allow(dead_code)] // shown to the user by the front end from the raw arguments, unused here
    description: Option<String>,
}

impl Tool for BashTool {
    fn name(&self) -> &str {
        BASH.name
    }

    fn rule_name(&self) -> &str {
        BASH.rule
    }

    fn description(&self) -> &str {
        "Runs a command with `bash -c` in the project root and returns its combined stdout and stderr \
         (long output keeps its first and last 15 000 bytes) followed by the exit code. The \
         environment holds only PATH, HOME, LANG and TERM; stdin is empty, so interactive commands \
         fail. The command and everything it started are killed at the timeout."
    }

    fn input_schema(&self) -> serde_json::Value {
        serde_json::json!({
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "The shell command to run"},
                "timeout": {"type": "integer", "minimum": 1, "description": "Timeout in seconds (default 120, max 600)"},
                "description": {"type": "string", "description": "A short description of what the command does, shown to the user"}
            },
            "required": ["command"]
        })
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
        let timeout = Duration::from_secs(plan_timeout_s(input.timeout));
        run_command(&input.command, &ctx.root, &self.env, timeout, &ctx.cancel)
    }
}

/// The timeout in whole seconds for the model's value (see the module doc).
fn plan_timeout_s(requested: Option<u64>) -> u64 {
    match requested {
        None | Some(0) => DEFAULT_TIMEOUT_S,
        Some(value) if value >= 1000 => value.div_ceil(1000).clamp(1, MAX_TIMEOUT_S),
        Some(value) => value.min(MAX_TIMEOUT_S),
    }
}

fn run_command(
    command: &str,
    root: &Path,
    env: &[(String, String)],
    timeout: Duration,
    cancel: &CancelToken,
) -> ToolOutput {
    let mut shell = Command::new("bash");
    shell.arg("-c").arg(command).current_dir(root).env_clear().envs(env.iter().map(|(key, value)| (key, value)));
    let job = proc::Job {
        command: shell,
        stdin: None,
        timeout,
        cancel,
        merge_output: true,
        head_bytes: OUTPUT_HEAD_BYTES,
        tail_bytes: OUTPUT_TAIL_BYTES,
        label: "bash",
    };
    match proc::run(job) {
        Ok(finished) => render_result(finished.stdout, finished.ending, timeout),
        Err(message) => ToolOutput::error(format!("{message} (in {})", root.display())),
    }
}

fn render_result(text: String, ending: Ending, timeout: Duration) -> ToolOutput {
    let mut content = if text.is_empty() { "(no output)".to_string() } else { text };
    if !content.ends_with('\n') {
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
    ToolOutput { content, is_error }
}

#[cfg(test)]
#[path = "bash_tests.rs"]
mod tests;
