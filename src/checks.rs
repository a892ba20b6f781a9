//! Checks after edits: the configured commands (`checks:`, `config::checks`) run after the agent
//! wrote a file whose project-relative path matches their pattern; a failing one's output is
//! what the model reads next, under the tool's own result.
//!
//! Invariant: every check runs confined exactly as a project hook or a bash command (the
//! session's `Sandbox`, `proc::run`: its own session under the reaper, killed with everything it
//! started at its timeout or on cancel), in the project root, with the scrubbed environment of
//! the bash tool: it reads and compiles what the model just wrote, whoever configured it. A
//! passing check adds nothing; a failing one (non-zero exit, signal, timeout, could not start)
//! adds which check, how it ended and its merged output within `OUTPUT_HEAD_BYTES` +
//! `OUTPUT_TAIL_BYTES` (head and tail kept, the middle counted). The checks of one file run one
//! after another in config order: they usually contend for the same build lock or cores (two
//! `cargo` commands wait for each other anyway), a formatter check must see the file before a
//! compiler does, and the report reads in the order the config lists them. A cancel stops the
//! running check and runs no more. Only files inside the project are checked. This module
//! decides nothing about which writes count: the agent calls it after each successful write.

use crate::cancel::CancelToken;
use crate::config::CheckConfig;
use crate::confine::Sandbox;
use crate::proc::{self, Ending, Finished};
use crate::tools::Progress;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// Output bytes kept from the start of a failing check's output.
const OUTPUT_HEAD_BYTES: usize = 2000;
/// Output bytes kept from its end.
const OUTPUT_TAIL_BYTES: usize = 2000;

/// The configured checks and what they run with.
#[derive(Clone, Debug, Default)]
pub struct Checks {
    checks: Vec<CheckConfig>,
    root: PathBuf,
    /// The environment of a check: the bash tool's (scrubbed; the sandbox adds its temp dir).
    env: Vec<(String, String)>,
    sandbox: Arc<Sandbox>,
}

/// How one check ended, when it did not pass.
#[derive(Debug, PartialEq, Eq)]
enum Failure {
    Exit(i32),
    Signal(i32),
    TimedOut(u64),
    Cancelled,
    Lost(String),
    NotStarted(String),
}

impl Checks {
    /// Checks for the project at `root`, run with exactly `env` plus the sandbox's variables.
    pub fn new(checks: Vec<CheckConfig>, root: PathBuf, env: Vec<(String, String)>, sandbox: Arc<Sandbox>) -> Checks {
        Checks { checks, root, env, sandbox }
    }

    /// Runs the checks matching the file just written at `path` (absolute, as the tools resolved
    /// it); returns the text to add to the tool's result, empty when every check passed or none
    /// matched. `progress` is the call's live view: each check's command, then its output.
    pub(crate) fn after_write(&self, path: &Path, cancel: &CancelToken, progress: Option<&Progress>) -> String {
        let Some(rel) = self.relative(path) else { return String::new() };
        let matching = self.checks.iter().filter(|check| check.pattern.matches(&rel));
        let stamp = stamp(path);
        let mut report = String::new();
        for check in matching {
            let command = check.command_for(&rel);
            if cancel.is_cancelled() {
                report.push_str(&render_failure(&command, &Failure::Cancelled, ""));
                break;
            }
            if let Some(progress) = progress {
                progress.line(&format!("check: {command}"));
            }
            let (failure, output) = self.run_one(check, &command, cancel, progress);
            if let Some(failure) = failure {
                report.push_str(&render_failure(&command, &failure, &output));
                if failure == Failure::Cancelled {
                    break;
                }
            }
        }
        if stamp.is_some() && stamp != self::stamp(path) {
            report.push_str(&format!(
                "\n\nnote: a check changed {rel} after the write; read it again before you edit it."
            ));
        }
        report
    }

    /// The file's path relative to the project root, `/`-separated; None outside it (or not
    /// UTF-8: no pattern could name it, nor `{file}` spell it).
    fn relative(&self, path: &Path) -> Option<String> {
        let rel = path.strip_prefix(&self.root).ok()?;
        let parts: Option<Vec<&str>> = rel.components().map(|part| part.as_os_str().to_str()).collect();
        Some(parts?.join("/")).filter(|rel| !rel.is_empty())
    }

    /// One check, confined: how it failed (None: it passed) and its output.
    fn run_one(
        &self,
        check: &CheckConfig,
        command: &str,
        cancel: &CancelToken,
        progress: Option<&Progress>,
    ) -> (Option<Failure>, String) {
        // Under the network policy a check has nobody to ask about a new host (it is refused);
        // `network` is its way out to the hosts allowed, held until it ends.
        let (confinement, network) = match self.sandbox.confinement_asking(None) {
            Ok(prepared) => prepared,
            Err(message) => return (Some(Failure::NotStarted(message)), String::new()),
        };
        let mut shell = Command::new("sh");
        shell.arg("-c").arg(command).current_dir(&self.root).env_clear();
        shell.envs(self.env.iter().map(|(key, value)| (key, value)));
        shell.envs(self.sandbox.env());
        shell.envs(network.env());
        let job = proc::Job {
            command: shell,
            stdin: None,
            timeout: Duration::from_secs(check.timeout_s),
            cancel,
            merge_output: true,
            head_bytes: OUTPUT_HEAD_BYTES,
            tail_bytes: OUTPUT_TAIL_BYTES,
            label: "check",
            confinement,
            watch: progress.cloned().map(crate::tools::watch_lines),
        };
        let (result, undone) = self.sandbox.run(job);
        match result {
            Ok(Finished { ending, stdout, .. }) => {
                let failure = judge(ending, check.timeout_s);
                let mut output = stdout;
                if failure.is_some() {
                    for line in undone {
                        output.push_str(&format!("\n{line}"));
                    }
                }
                (failure, output)
            }
            Err(message) => (Some(Failure::NotStarted(message)), String::new()),
        }
    }
}

/// A file's length and modification time, to tell whether a check rewrote it.
fn stamp(path: &Path) -> Option<(u64, SystemTime)> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.len(), meta.modified().ok()?))
}

/// How a check that ran ended: None when it passed (exit 0).
fn judge(ending: Ending, timeout_s: u64) -> Option<Failure> {
    match ending {
        Ending::Exited(status) => match (status.code(), std::os::unix::process::ExitStatusExt::signal(&status)) {
            (Some(0), _) => None,
            (Some(code), _) => Some(Failure::Exit(code)),
            (None, Some(signal)) => Some(Failure::Signal(signal)),
            (None, None) => Some(Failure::Lost("exit status unknown".to_string())),
        },
        Ending::TimedOut => Some(Failure::TimedOut(timeout_s)),
        Ending::Cancelled => Some(Failure::Cancelled),
        Ending::WaitFailed(err) => Some(Failure::Lost(err.to_string())),
    }
}

/// What the model reads about a failed check, after the tool's own result: unmistakably a
/// failure, and that the write itself stands.
fn render_failure(command: &str, failure: &Failure, output: &str) -> String {
    let how = match failure {
        Failure::Exit(code) => format!("exited with code {code}"),
        Failure::Signal(signal) => format!("was killed by signal {signal}"),
        Failure::TimedOut(seconds) => format!("timed out after {seconds} s and was killed"),
        Failure::Cancelled => "was cancelled by the user".to_string(),
        Failure::Lost(why) => format!("was lost track of ({why}) and killed"),
        Failure::NotStarted(why) => format!("could not run: {why}"),
    };
    let mut text = format!("\n\nCHECK FAILED: `{command}` {how}. The write itself succeeded");
    if matches!(failure, Failure::Exit(_) | Failure::Signal(_)) {
        text.push_str("; fix what the check reports");
    }
    let output = output.trim_end();
    if output.is_empty() {
        text.push_str(". (no output)");
    } else {
        text.push_str(". Its output:\n");
        text.push_str(output);
    }
    text
}

#[cfg(test)]
#[path = "checks_tests.rs"]
mod tests;
