//! Running a child process to completion under a time limit: its own session under a reaper
//! (`sys::child`), optionally confined, output drained by named threads into bounded buffers.
//!
//! Invariant: nothing the child starts outlives the call: when the command ends its reaper kills
//! every process it left behind (even one that left the group with setsid); on timeout or cancel
//! the reaper is told to do the same at once (SIGTERM), and if it does not end within
//! `REAPER_GRACE` the whole group gets SIGKILL. Nothing the child prints can exhaust our memory
//! (each buffer keeps a head and a tail and counts the bytes dropped between them). Used by the
//! bash tool and by hooks.

use crate::cancel::CancelToken;
use crate::sync::lock;
use crate::sys;
use crate::sys::child::Confinement;
use std::collections::VecDeque;
use std::io::{Read, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long the drains may take to finish after the child (or its killed group) ended.
const DRAIN_GRACE: Duration = Duration::from_millis(500);
/// The longest pause between two checks of the child; short checks come first so quick commands
/// return at once.
const MAX_POLL: Duration = Duration::from_millis(50);
/// The longest wait between two looks at the cancel token while output is still flowing.
const CANCEL_CHECK: Duration = Duration::from_millis(25);
/// How long the reaper may take to kill a command's tree after SIGTERM before the group is
/// killed from here (the reaper only makes a few system calls, so this is generous).
const REAPER_GRACE: Duration = Duration::from_secs(2);

/// What to run and how. The caller prepares `command` (program, args, cwd, environment); `run`
/// adds the session, the reaper, the confinement and the pipes.
pub struct Job<'a> {
    pub command: Command,
    /// Written to the child's stdin, which is then closed; None gives it /dev/null.
    pub stdin: Option<Vec<u8>>,
    pub timeout: Duration,
    pub cancel: &'a CancelToken,
    /// One buffer for stdout and stderr (interleaved as they arrive), or one each.
    pub merge_output: bool,
    /// Bytes kept from the start and from the end of each buffer.
    pub head_bytes: usize,
    pub tail_bytes: usize,
    /// A name for the drain threads (`bash`, `hook`).
    pub label: &'a str,
    /// The sandbox for the command; None runs it unconfined (still in its own session, reaped).
    pub confinement: Option<Confinement>,
    /// Shown every chunk of output as it arrives (stdout and stderr alike), besides keeping it:
    /// a front end's live view of a running command. Called on the drain threads.
    pub watch: Option<Watch>,
}

/// What `Job::watch` calls with each chunk of output.
pub(crate) type Watch = Arc<dyn Fn(&[u8]) + Send + Sync>;

/// A child's output pipe, read on its own thread.
type Pipe = Box<dyn Read + Send>;
/// Where a pipe's bytes go (shared by both pipes when output is merged).
type Buffer = Arc<Mutex<CappedOutput>>;

/// How the child ended.
#[derive(Debug)]
pub enum Ending {
    Exited(ExitStatus),
    TimedOut,
    Cancelled,
    WaitFailed(std::io::Error),
}

/// The outcome: the ending and the captured output (`stderr` is empty when merged).
#[derive(Debug)]
pub struct Finished {
    pub ending: Ending,
    pub stdout: String,
    pub stderr: String,
}

/// Runs the job to its end. Errors only when the child or a reader thread cannot be started.
pub fn run(job: Job<'_>) -> Result<Finished, String> {
    let Job { mut command, stdin, timeout, cancel, merge_output, head_bytes, tail_bytes, label, confinement, watch } =
        job;
    command.stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() });
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    sys::child::spawn_setup(&mut command, confinement);
    let spawned = command.spawn();
    let mut child = spawned.map_err(|err| format!("cannot start {label}: {err}"))?;
    if let (Some(bytes), Some(mut pipe)) = (stdin, child.stdin.take()) {
        // A writer thread: a child that does not read its stdin must not block us past the timeout.
        let _ = std::thread::Builder::new().name(format!("{label}-stdin")).spawn(move || {
            let _ = pipe.write_all(&bytes);
        });
    }
    let stdout_buffer = Arc::new(Mutex::new(CappedOutput::new(head_bytes, tail_bytes)));
    let stderr_buffer = if merge_output {
        Arc::clone(&stdout_buffer)
    } else {
        Arc::new(Mutex::new(CappedOutput::new(head_bytes, tail_bytes)))
    };
    // Capacity 2: each drain sends exactly once, so neither ever blocks on it.
    let (done_tx, done_rx) = crossbeam_channel::bounded::<()>(2);
    let mut drains = Vec::new();
    let pipes: [(Option<Pipe>, &Buffer, &str); 2] = [
        (child.stdout.take().map(|pipe| Box::new(pipe) as Pipe), &stdout_buffer, "stdout"),
        (child.stderr.take().map(|pipe| Box::new(pipe) as Pipe), &stderr_buffer, "stderr"),
    ];
    for (pipe, buffer, name) in pipes {
        let Some(pipe) = pipe else { continue };
        let (buffer, done_tx, watch) = (Arc::clone(buffer), done_tx.clone(), watch.clone());
        let spawned = std::thread::Builder::new().name(format!("{label}-{name}")).spawn(move || {
            drain(pipe, &buffer, watch.as_ref());
            let _ = done_tx.send(());
        });
        match spawned {
            Ok(handle) => drains.push(handle),
            Err(err) => {
                kill_and_reap(&mut child);
                return Err(format!("cannot start an output reader thread: {err}"));
            }
        }
    }
    let mut finished = 0;
    let ending = wait_for_exit(&mut child, timeout, cancel, (&done_rx, drains.len(), &mut finished));
    let pgid = child.id();
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
    let stdout = lock(&stdout_buffer).render();
    let stderr = if merge_output { String::new() } else { lock(&stderr_buffer).render() };
    Ok(Finished { ending, stdout, stderr })
}

/// Waits for the child, killing its whole group on timeout or cancel. While output pipes are
/// open it waits for them to close (the reaper closes its own at once, so they close when the
/// command's tree is gone: no polling delay on a quick command), counting closed pipes into
/// `drains.2`; after that it polls with `try_wait` and the cancel token's sleep (which wakes at
/// once on cancel), backing off from 0.1 ms to `MAX_POLL`.
fn wait_for_exit(
    child: &mut Child,
    timeout: Duration,
    cancel: &CancelToken,
    drains: (&crossbeam_channel::Receiver<()>, usize, &mut usize),
) -> Ending {
    let (done_rx, total, finished) = drains;
    let deadline = Instant::now() + timeout;
    // Once the pipes closed the child is usually exiting already: look again soon.
    let mut pause = Duration::from_micros(100);
    loop {
        if *finished < total && !cancel.is_cancelled() {
            let slice = deadline.saturating_duration_since(Instant::now()).min(CANCEL_CHECK);
            match done_rx.recv_timeout(slice) {
                Ok(()) => *finished += 1,
                Err(crossbeam_channel::RecvTimeoutError::Timeout) => {}
                // Every drain sent or is gone: from now on poll the child.
                Err(crossbeam_channel::RecvTimeoutError::Disconnected) => *finished = total,
            }
            if Instant::now() < deadline {
                match child.try_wait() {
                    Ok(Some(status)) => return Ending::Exited(status),
                    Ok(None) => continue,
                    Err(err) => {
                        kill_and_reap(child);
                        return Ending::WaitFailed(err);
                    }
                }
            }
        }
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

/// Tells the reaper to end the command's tree; if it has not ended within `REAPER_GRACE`, SIGKILL
/// to the whole group. Then reap the child so no zombie is left.
fn kill_and_reap(child: &mut Child) {
    if sys::terminate(child.id()).is_ok() {
        let deadline = Instant::now() + REAPER_GRACE;
        let mut pause = Duration::from_millis(1);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(MAX_POLL);
        }
    }
    if sys::kill_process_group(child.id()).is_err() {
        // The group id was refused or the call failed; at least the shell itself must die.
        let _ = child.kill();
    }
    let _ = child.wait();
}

fn drain(mut pipe: Box<dyn Read + Send>, output: &Mutex<CappedOutput>, watch: Option<&Watch>) {
    let mut chunk = [0u8; 8192];
    loop {
        match pipe.read(&mut chunk) {
            Ok(0) => return,
            Ok(read) => {
                lock(output).push(&chunk[..read]);
                if let Some(watch) = watch {
                    watch(&chunk[..read]);
                }
            }
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return,
        }
    }
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
#[path = "proc_tests.rs"]
mod tests;
