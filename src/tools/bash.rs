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
use crate::sync::lock;
use crate::sys;
use std::collections::VecDeque;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Seconds a command may run when the model gives no timeout.
pub const DEFAULT_TIMEOUT_S: u64 = 120;
/// The longest timeout the model may ask for.
pub const MAX_TIMEOUT_S: u64 = 600;
/// Output bytes kept from the start of the output.
pub const OUTPUT_HEAD_BYTES: usize = 15_000;
/// Output bytes kept from the end of the output.
pub const OUTPUT_TAIL_BYTES: usize = 15_000;
/// How long the drains may take to finish after the shell (or its killed group) ended.
const DRAIN_GRACE: Duration = Duration::from_millis(500);
/// The longest pause between two checks of the child; short checks come first so quick commands
/// return at once.
const MAX_POLL: Duration = Duration::from_millis(50);

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

/// How the command ended.
enum Ending {
    Exited(ExitStatus),
    TimedOut,
    Cancelled,
    WaitFailed(std::io::Error),
}

fn run_command(
    command: &str,
    root: &Path,
    env: &[(String, String)],
    timeout: Duration,
    cancel: &CancelToken,
) -> ToolOutput {
    let spawned = Command::new("bash")
        .arg("-c")
        .arg(command)
        .current_dir(root)
        .env_clear()
        .envs(env.iter().map(|(key, value)| (key, value)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(err) => return ToolOutput::error(format!("cannot start bash in {}: {err}", root.display())),
    };
    let output = Arc::new(Mutex::new(CappedOutput::new(OUTPUT_HEAD_BYTES, OUTPUT_TAIL_BYTES)));
    // Capacity 2: each drain sends exactly once, so neither ever blocks on it.
    let (done_tx, done_rx) = crossbeam_channel::bounded::<()>(2);
    let mut drains = Vec::new();
    let pipes: [(Option<Box<dyn Read + Send>>, &str); 2] = [
        (child.stdout.take().map(|pipe| Box::new(pipe) as Box<dyn Read + Send>), "bash-stdout"),
        (child.stderr.take().map(|pipe| Box::new(pipe) as Box<dyn Read + Send>), "bash-stderr"),
    ];
    for (pipe, name) in pipes {
        let Some(pipe) = pipe else { continue };
        let (output, done_tx) = (Arc::clone(&output), done_tx.clone());
        let spawned = std::thread::Builder::new().name(name.to_string()).spawn(move || {
            drain(pipe, &output);
            let _ = done_tx.send(());
        });
        match spawned {
            Ok(handle) => drains.push(handle),
            Err(err) => {
                kill_and_reap(&mut child);
                return ToolOutput::error(format!("cannot start an output reader thread: {err}"));
            }
        }
    }
    let ending = wait_for_exit(&mut child, timeout, cancel);
    let pgid = child.id();
    let mut finished = 0;
    let mut deadline = Instant::now() + DRAIN_GRACE;
    let mut killed_stragglers = false;
    while finished < drains.len() {
        match done_rx.recv_deadline(deadline) {
            Ok(()) => finished += 1,
            Err(_) if !killed_stragglers => {
                // Something in the group still holds our pipes: a background job of the command.
                let _ = sys::kill_process_group(pgid);
                killed_stragglers = true;
                deadline = Instant::now() + DRAIN_GRACE;
            }
            Err(_) => break, // out of our reach (left the group); leave the drains detached
        }
    }
    if finished == drains.len() {
        for handle in drains {
            let _ = handle.join();
        }
    }
    let text = lock(&output).render();
    render_result(text, ending, timeout)
}

/// Waits for the shell, killing its whole group on timeout or cancel. Polls with `try_wait` and
/// the cancel token's sleep (which wakes at once on cancel), backing off from 1 ms to `MAX_POLL`.
fn wait_for_exit(child: &mut Child, timeout: Duration, cancel: &CancelToken) -> Ending {
    let deadline = Instant::now() + timeout;
    let mut pause = Duration::from_millis(1);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ending::Exited(status),
            Ok(None) => {}
            Err(err) => {
                kill_and_reap(child);
                return Ending::WaitFailed(err);
            }
        }
        let now = Instant::now();
        if cancel.is_cancelled() {
            kill_and_reap(child);
            return Ending::Cancelled;
        }
        if now >= deadline {
            kill_and_reap(child);
            return Ending::TimedOut;
        }
        cancel.sleep(pause.min(deadline - now));
        pause = (pause * 2).min(MAX_POLL);
    }
}

/// SIGKILL to the whole group, then reap the shell so no zombie is left.
fn kill_and_reap(child: &mut Child) {
    if sys::kill_process_group(child.id()).is_err() {
        // The group id was refused or the call failed; at least the shell itself must die.
        let _ = child.kill();
    }
    let _ = child.wait();
}

fn drain(mut pipe: Box<dyn Read + Send>, output: &Mutex<CappedOutput>) {
    let mut chunk = [0u8; 8192];
    loop {
        match pipe.read(&mut chunk) {
            Ok(0) => return,
            Ok(read) => lock(output).push(&chunk[..read]),
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return,
        }
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

/// Output kept within a fixed budget: the first `head_cap` bytes, the last `tail_cap` bytes, and
/// a count of the bytes dropped between them.
struct CappedOutput {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    omitted: usize,
    head_cap: usize,
    tail_cap: usize,
}

impl CappedOutput {
    fn new(head_cap: usize, tail_cap: usize) -> CappedOutput {
        CappedOutput { head: Vec::new(), tail: VecDeque::new(), omitted: 0, head_cap, tail_cap }
    }

    fn push(&mut self, bytes: &[u8]) {
        let into_head = bytes.len().min(self.head_cap - self.head.len());
        self.head.extend_from_slice(&bytes[..into_head]);
        let rest = &bytes[into_head..];
        if rest.len() >= self.tail_cap {
            self.omitted += self.tail.len() + rest.len() - self.tail_cap;
            self.tail.clear();
            self.tail.extend(&rest[rest.len() - self.tail_cap..]);
        } else {
            self.tail.extend(rest);
            let excess = self.tail.len().saturating_sub(self.tail_cap);
            self.tail.drain(..excess);
            self.omitted += excess;
        }
    }

    /// The kept bytes as text (invalid UTF-8 replaced), with a marker where bytes were dropped.
    fn render(&self) -> String {
        let mut text = String::from_utf8_lossy(&self.head).into_owned();
        if self.omitted > 0 {
            text.push_str(&format!("\n... {} bytes omitted ...\n", self.omitted));
        }
        let (front, back) = self.tail.as_slices();
        let mut tail = Vec::with_capacity(self.tail.len());
        tail.extend_from_slice(front);
        tail.extend_from_slice(back);
        text.push_str(&String::from_utf8_lossy(&tail));
        text
    }
}

#[cfg(test)]
#[path = "bash_tests.rs"]
mod tests;
