//! The stdio transport: the server is our child process; one JSON-RPC message per line on its
//! stdin and stdout; its stderr goes to a per-server log file.
//!
//! Invariants:
//! - The child gets exactly the host environment the caller passes in plus the configured `env`
//!   (servers are trusted configuration, unlike bash); nothing here reads our own environment.
//! - Two named threads per server, owned by the transport and joined by `shutdown`: the stdout
//!   reader (routes responses, answers server requests, logs and skips non-JSON lines; at EOF it
//!   fails every pending request so a dead server's calls end at once, and reports the loss
//!   through `Lost` unless mewcode is shutting the server down) and the stderr drain (a full
//!   stderr pipe must never block the server; it keeps the first and the last lines). A death
//!   is seen when it happens, by the reader's EOF: nothing polls the child.
//! - No orphans: `shutdown` closes stdin, waits until the deadline, then kills the child and its
//!   process group (it is spawned as the leader of its own group, so helpers it starts go too,
//!   and a Ctrl-C at the terminal reaches mewcode, not the servers). Dropping the transport
//!   without `shutdown` kills at once.

use super::McpError;
use super::client::Transport;
use super::jsonrpc::{Deadline, Incoming, Pending, parse_incoming, wait};
use super::lost::Lost;
use crate::cancel::CancelToken;
use crate::sync::lock;
use crate::text::truncate_chars;
use serde_json::Value;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How many of the first and of the last stderr lines we keep for error reports.
const STDERR_LINES: usize = 10;
/// How long the reader, at EOF on stdout, waits for the stderr drain to reach EOF too, so that
/// the loss it reports carries the server's last words (a helper that inherited stderr can keep
/// it open; then the lines read so far have to do).
const STDERR_GRACE: Duration = Duration::from_secs(1);

/// Where and how to spawn servers: values from the wiring layer.
#[derive(Clone, Debug, Default)]
pub struct SpawnEnv {
    /// The host environment, passed through to every server.
    pub host_env: Vec<(String, String)>,
    /// The servers' working directory (the project root).
    pub cwd: PathBuf,
    /// Where `mcp-<name>.log` files go (created when missing); None: stderr is only drained.
    pub log_dir: Option<PathBuf>,
}

/// A running stdio server.
pub struct StdioTransport {
    child: Arc<Mutex<Child>>,
    stdin: Arc<Mutex<Option<ChildStdin>>>,
    pending: Arc<Pending>,
    stderr: Arc<Mutex<StderrLines>>,
    /// Set by the reader on `notifications/tools/list_changed`, taken by the client.
    tools_changed: Arc<AtomicBool>,
    /// Told by the reader when the server exits by itself.
    lost: Arc<Lost>,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

/// What the server wrote to stderr: its first lines (why a start failed) and its last ones (why
/// it stopped), each trimmed and capped, blank lines skipped.
#[derive(Default)]
struct StderrLines {
    head: Vec<String>,
    tail: VecDeque<String>,
}

impl StderrLines {
    fn push(&mut self, line: &str) {
        if line.trim().is_empty() {
            return;
        }
        let line = truncate_chars(line, 300, "...");
        if self.head.len() < STDERR_LINES {
            self.head.push(line.clone());
        }
        if self.tail.len() == STDERR_LINES {
            self.tail.pop_front();
        }
        self.tail.push_back(line);
    }
}

impl StdioTransport {
    /// Starts `command args` for server `name` with the host environment plus `env`.
    pub fn spawn(
        name: &str,
        command: &str,
        args: &[String],
        env: &[(String, String)],
        spawn_env: &SpawnEnv,
    ) -> Result<StdioTransport, McpError> {
        let mut process = Command::new(command);
        process.args(args).env_clear().envs(spawn_env.host_env.iter().cloned()).envs(env.iter().cloned());
        if spawn_env.cwd.is_dir() {
            process.current_dir(&spawn_env.cwd);
        }
        process.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
        let mut child = process
            .spawn()
            .map_err(|err| McpError::Spawn { command: command.to_string(), message: err.to_string() })?;
        let (Some(stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(McpError::Spawn { command: command.to_string(), message: "no pipes to the child".to_string() });
        };
        let log = open_log(spawn_env.log_dir.as_deref(), name);
        let transport = StdioTransport {
            child: Arc::new(Mutex::new(child)),
            stdin: Arc::new(Mutex::new(Some(stdin))),
            pending: Arc::new(Pending::default()),
            stderr: Arc::new(Mutex::new(StderrLines::default())),
            tools_changed: Arc::new(AtomicBool::new(false)),
            lost: Arc::new(Lost::default()),
            threads: Mutex::new(Vec::new()),
        };
        // Never sent on: the drain drops its end at EOF, which is what the reader waits for.
        let (drained_tx, drained_rx) = crossbeam_channel::bounded::<()>(0);
        let reader = {
            let route = Route {
                pending: transport.pending.clone(),
                stdin: transport.stdin.clone(),
                tools_changed: transport.tools_changed.clone(),
                log: log.clone(),
            };
            let (child, lost) = (transport.child.clone(), transport.lost.clone());
            std::thread::Builder::new().name(format!("mcp-{name}-out")).spawn(move || {
                read_stdout(stdout, &route);
                // Stdout closed: the server is gone (or going). Its last stderr lines and its
                // exit status make the report.
                let _ = drained_rx.recv_timeout(STDERR_GRACE);
                let error = McpError::Exited { detail: exit_detail(&child) };
                route.pending.close(error.clone());
                lost.report(error);
            })
        };
        let drain = {
            let (lines, log) = (transport.stderr.clone(), log);
            std::thread::Builder::new().name(format!("mcp-{name}-err")).spawn(move || {
                drain_stderr(stderr, &lines, &log);
                drop(drained_tx);
            })
        };
        for thread in [reader, drain] {
            match thread {
                Ok(handle) => lock(&transport.threads).push(handle),
                Err(err) => {
                    transport.shutdown(Instant::now());
                    return Err(McpError::Io { message: format!("cannot start a reader thread: {err}") });
                }
            }
        }
        Ok(transport)
    }

    fn write_line(&self, message: &str) -> Result<(), McpError> {
        write_line(&self.stdin, message)
    }
}

impl Transport for StdioTransport {
    fn request(
        &self,
        id: u64,
        method: &str,
        message: &str,
        timeout: Duration,
        deadline: Instant,
        cancel: &CancelToken,
    ) -> Result<Value, McpError> {
        let deadline = Arc::new(Deadline::new(timeout, deadline, Instant::now()));
        let answer_rx = self.pending.register(id, Arc::clone(&deadline))?;
        if let Err(err) = self.write_line(message) {
            self.pending.forget(id);
            // A write fails because the server died; the reader's verdict says how.
            return Err(self.pending.closed().unwrap_or(err));
        }
        let outcome = wait(&answer_rx, method, &deadline, cancel);
        if outcome.is_err() {
            self.pending.forget(id);
        }
        outcome
    }

    fn notify(&self, message: &str) -> Result<(), McpError> {
        self.write_line(message)
    }

    fn negotiated(&self, _protocol_version: &str) {}

    fn reset_session(&self) {}

    fn shutdown(&self, deadline: Instant) {
        // The exit that follows is ours, not a loss to report.
        self.lost.silence();
        // Closing stdin is the polite stop: well-behaved servers exit at EOF.
        lock(&self.stdin).take();
        loop {
            // The lock is taken per poll so the reader thread can read the exit status meanwhile.
            let mut child = lock(&self.child);
            match child.try_wait() {
                Ok(Some(_)) | Err(_) => break,
                Ok(None) if Instant::now() >= deadline => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break;
                }
                Ok(None) => {}
            }
            drop(child);
            std::thread::sleep(Duration::from_millis(10));
        }
        let pid = lock(&self.child).id();
        kill_group(pid);
        self.pending.close(McpError::Exited { detail: "mewcode shut it down".to_string() });
        // Both pipes are closed once the group is gone, so the threads end; a pipe held open by
        // a process that left the group could keep one alive, which must not hang our exit.
        let join_by = Instant::now() + Duration::from_secs(1);
        let threads = std::mem::take(&mut *lock(&self.threads));
        for thread in threads {
            while !thread.is_finished() && Instant::now() < join_by {
                std::thread::sleep(Duration::from_millis(5));
            }
            if thread.is_finished() {
                let _ = thread.join();
            }
        }
    }

    fn stderr_head(&self) -> Vec<String> {
        lock(&self.stderr).head.clone()
    }

    fn stderr_tail(&self) -> Vec<String> {
        lock(&self.stderr).tail.iter().cloned().collect()
    }

    fn lost(&self) -> &Lost {
        &self.lost
    }

    fn take_tools_changed(&self) -> bool {
        self.tools_changed.swap(false, Ordering::SeqCst)
    }
}

impl Drop for StdioTransport {
    fn drop(&mut self) {
        if !lock(&self.threads).is_empty() {
            self.shutdown(Instant::now());
        }
    }
}

/// Kills whatever is left of the server's process group; an empty group fails harmlessly.
fn kill_group(pgid: u32) {
    let _ = crate::sys::kill_process_group(pgid);
}

type Log = Arc<Mutex<Option<std::fs::File>>>;

fn open_log(dir: Option<&Path>, name: &str) -> Log {
    let file = dir.and_then(|dir| {
        std::fs::create_dir_all(dir).ok()?;
        std::fs::File::create(dir.join(format!("mcp-{name}.log"))).ok()
    });
    Arc::new(Mutex::new(file))
}

fn log_line(log: &Log, line: &str) {
    if let Some(file) = lock(log).as_mut() {
        // The log is a convenience; a full disk must not stop the server.
        let _ = writeln!(file, "{line}");
    }
}

fn write_line(stdin: &Mutex<Option<ChildStdin>>, message: &str) -> Result<(), McpError> {
    let mut stdin = lock(stdin);
    let Some(pipe) = stdin.as_mut() else {
        return Err(McpError::Exited { detail: "its stdin is closed".to_string() });
    };
    let mut line = Vec::with_capacity(message.len() + 1);
    line.extend_from_slice(message.as_bytes());
    line.push(b'\n');
    // One write_all per message, so concurrent writers never interleave within a line.
    pipe.write_all(&line).and_then(|()| pipe.flush()).map_err(|err| McpError::Io { message: err.to_string() })
}

/// What the stdout reader routes server messages to.
struct Route {
    pending: Arc<Pending>,
    stdin: Arc<Mutex<Option<ChildStdin>>>,
    tools_changed: Arc<AtomicBool>,
    log: Log,
}

/// The stdout reader thread's body, until EOF.
fn read_stdout(stdout: std::process::ChildStdout, route: &Route) {
    let Route { pending, stdin, tools_changed, log } = route;
    let mut reader = BufReader::new(stdout);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        let messages = match parse_incoming(text) {
            Ok(messages) => messages,
            Err(reason) => {
                log_line(
                    log,
                    &format!("[mewcode] stdout line skipped, {reason}: {}", truncate_chars(text, 200, "...")),
                );
                continue;
            }
        };
        for message in messages {
            match message {
                Incoming::Response { id, outcome } => {
                    pending.resolve(id, outcome);
                }
                Incoming::ServerRequest { method, reply } => {
                    log_line(log, &format!("[mewcode] answered the server's {method} request: {reply}"));
                    if write_line(stdin, &reply).is_err() {
                        log_line(log, "[mewcode] could not answer a server request (stdin closed)");
                    }
                }
                Incoming::Progress { token } => {
                    pending.progress(token, Instant::now());
                }
                Incoming::Notification { method } => {
                    if method == super::jsonrpc::TOOLS_LIST_CHANGED {
                        tools_changed.store(true, Ordering::SeqCst);
                    }
                }
                Incoming::Ignored { reason } => log_line(log, &format!("[mewcode] ignored {reason}")),
            }
        }
    }
}

/// How the child ended, waiting briefly for its status after stdout closed.
fn exit_detail(child: &Mutex<Child>) -> String {
    let until = Instant::now() + Duration::from_millis(500);
    loop {
        match lock(child).try_wait() {
            Ok(Some(status)) => return format!("it exited with {status}"),
            Ok(None) if Instant::now() < until => {}
            Ok(None) | Err(_) => return "it closed its stdout".to_string(),
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The stderr drain thread's body: everything to the log, the first and last lines kept.
fn drain_stderr(stderr: std::process::ChildStderr, lines: &Mutex<StderrLines>, log: &Log) {
    let mut reader = BufReader::new(stderr);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end();
        log_line(log, text);
        lock(lines).push(text);
    }
}

#[cfg(test)]
#[path = "stdio_tests.rs"]
mod tests;
