//! Background jobs: commands the model started with `run_in_background`, running past the call
//! that started them, confined exactly as a command is (the same view, limits, network and
//! reaper), their output spooled to a bounded file that the `job` tool reads.
//!
//! Invariant: a job never outlives the session. Each job has a thread of its own that started it
//! and waits for it: the reaper's parent-death signal follows that thread, so when mewcode dies
//! (SIGTERM, SIGKILL) every job's tree is killed by its reaper; stopping a job, and dropping the
//! table at the end of the session, cancel it (SIGTERM to its reaper, SIGKILL to its group if the
//! reaper does not end). Nothing a job prints can fill the disk: its spool is capped.
//!
//! - `mod.rs` — `Jobs`: the table, starting, reading, stopping and listing jobs
//! - `spool.rs` — one job's output on disk, bounded, read from where the last read stopped

mod spool;

use crate::cancel::CancelToken;
use crate::confine::{Network, Sandbox};
use crate::proc::{self, Ending};
use crate::sync::lock;
use crate::sys::child::Confinement;
use spool::Spool;
use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Jobs running at once.
const MAX_RUNNING: usize = 16;
/// The most a job's spool holds on disk.
const SPOOL_CAP: u64 = 64 << 20;
/// The most one read returns.
const READ_BYTES: usize = 30_000;
/// How long a job may run (it is meant to run until stopped or the session ends).
const LIFETIME: Duration = Duration::from_secs(7 * 24 * 3600);

/// Where a job is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum State {
    Running,
    /// Ended by itself: `exit code: N` or `killed by signal N`.
    Ended(String),
    /// Stopped by the `job` tool or the end of the session.
    Stopped,
    /// Could not be started or lost: why.
    Failed(String),
}

impl State {
    /// A few words: `running`, `ended (exit code 3)`, `stopped`, `failed (why)`.
    pub(crate) fn describe(&self) -> String {
        match self {
            State::Running => "running".to_string(),
            State::Ended(how) => format!("ended ({how})"),
            State::Stopped => "stopped (it and everything it started were killed)".to_string(),
            State::Failed(why) => format!("failed ({why})"),
        }
    }
}

/// One job.
struct Job {
    id: u32,
    command: String,
    started: Instant,
    state: Arc<Mutex<State>>,
    spool: Arc<Mutex<Spool>>,
    cancel: CancelToken,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// What a read of a job gives: its state line and its new output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Report {
    pub state: State,
    pub text: String,
}

/// The session's background jobs.
#[derive(Default)]
pub(crate) struct Jobs {
    /// Where the spools go (a directory only the user can read, removed with the table); None:
    /// no background jobs in this session.
    dir: Option<PathBuf>,
    table: Mutex<Vec<Job>>,
    /// Bytes each spool holds at most (`SPOOL_CAP`).
    cap: u64,
}

impl std::fmt::Debug for Jobs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Jobs").field("dir", &self.dir).field("jobs", &lock(&self.table).len()).finish()
    }
}

impl Jobs {
    /// The jobs of a session whose spools go under `dir` (created when the first job starts).
    pub(crate) fn new(dir: PathBuf) -> Jobs {
        Jobs { dir: Some(dir), table: Mutex::default(), cap: SPOOL_CAP }
    }

    /// Starts `command` (prepared as the bash tool prepares one, with its `confinement` and
    /// `network`) as a job; its number, or why it could not start.
    pub(crate) fn start(
        &self,
        text: &str,
        command: Command,
        confinement: Option<Confinement>,
        network: Network,
        sandbox: Arc<Sandbox>,
    ) -> Result<u32, String> {
        let Some(dir) = &self.dir else { return Err("background jobs are not available here".to_string()) };
        let mut table = lock(&self.table);
        let running = table.iter().filter(|job| *lock(&job.state) == State::Running).count();
        if running >= MAX_RUNNING {
            return Err(format!("{MAX_RUNNING} background jobs are running already: stop one first"));
        }
        let id = table.last().map_or(1, |job| job.id + 1);
        std::fs::create_dir_all(dir).map_err(|err| format!("cannot make {}: {err}", dir.display()))?;
        let _ = std::fs::set_permissions(dir, std::os::unix::fs::PermissionsExt::from_mode(0o700));
        let path = dir.join(format!("{id}.log"));
        let spool = Spool::create(&path, self.cap).map_err(|err| format!("cannot make {}: {err}", path.display()))?;
        let spool = Arc::new(Mutex::new(spool));
        let state = Arc::new(Mutex::new(State::Running));
        let cancel = CancelToken::new();
        let (sink, done, token) = (Arc::clone(&spool), Arc::clone(&state), cancel.clone());
        // The thread that starts the job waits for it: the reaper's parent-death signal follows it.
        let thread = std::thread::Builder::new()
            .name(format!("job-{id}"))
            .spawn(move || {
                let watch: proc::Watch = Arc::new(move |chunk: &[u8]| {
                    let _ = lock(&sink).append(chunk);
                });
                let job = proc::Job {
                    command,
                    stdin: None,
                    timeout: LIFETIME,
                    cancel: &token,
                    merge_output: true,
                    head_bytes: 0,
                    tail_bytes: 0,
                    label: "job",
                    confinement,
                    watch: Some(watch),
                };
                let (result, _) = sandbox.run(job);
                drop(network);
                *lock(&done) = match result {
                    Ok(finished) => ended(finished.ending),
                    Err(why) => State::Failed(why),
                };
            })
            .map_err(|err| format!("cannot start the job's thread: {err}"))?;
        table.push(Job {
            id,
            command: text.to_string(),
            started: Instant::now(),
            state,
            spool,
            cancel,
            thread: Some(thread),
        });
        Ok(id)
    }

    /// Job `id`'s state and the output it wrote since the last read (at most `READ_BYTES`).
    pub(crate) fn read(&self, id: u32) -> Result<Report, String> {
        let table = lock(&self.table);
        let job = find(&table, id)?;
        let state = lock(&job.state).clone();
        let read =
            lock(&job.spool).read_new(READ_BYTES).map_err(|err| format!("cannot read job {id}'s output: {err}"))?;
        let mut text = String::new();
        if read.dropped > 0 {
            text.push_str(&format!(
                "[{} bytes of output were dropped unread: the job wrote more than the {} bytes kept since the last read]\n",
                read.dropped, self.cap
            ));
        }
        text.push_str(&read.text);
        if read.waiting > 0 {
            text.push_str(&format!("\n[{} more bytes waiting: read again]", read.waiting));
        }
        Ok(Report { state, text })
    }

    /// Stops job `id` (and everything it started), then reads what it wrote last.
    pub(crate) fn stop(&self, id: u32) -> Result<Report, String> {
        let handle = {
            let mut table = lock(&self.table);
            let job = find_mut(&mut table, id)?;
            if *lock(&job.state) != State::Running {
                None
            } else {
                job.cancel.cancel();
                job.thread.take()
            }
        };
        if let Some(handle) = handle {
            // The reaper kills the tree within proc's grace; the thread ends with it and says
            // how the job ended (stopped, or by itself just before).
            let _ = handle.join();
        }
        self.read(id)
    }

    /// Waits until job `id` ends by itself (or is stopped), then reads it as `read` does.
    pub(crate) fn wait(&self, id: u32) -> Result<Report, String> {
        let handle = find_mut(&mut lock(&self.table), id)?.thread.take();
        if let Some(handle) = handle {
            let _ = handle.join();
        }
        self.read(id)
    }

    /// Every byte job `id` wrote so far, read or not.
    pub(crate) fn written(&self, id: u32) -> Result<u64, String> {
        Ok(lock(&find(&lock(&self.table), id)?.spool).total())
    }

    /// One line per job: number, state, age, command.
    pub(crate) fn list(&self) -> Vec<String> {
        let table = lock(&self.table);
        table
            .iter()
            .map(|job| {
                let first = job.command.lines().next().unwrap_or_default();
                let shown: String = first.chars().take(80).collect();
                let cut = if shown.len() < job.command.len() { "..." } else { "" };
                let state = lock(&job.state).describe();
                let age = job.started.elapsed().as_secs();
                let bytes = lock(&job.spool).total();
                format!("job {}: {state}, started {age} s ago, {bytes} bytes of output: {shown}{cut}", job.id)
            })
            .collect()
    }
    /// Ends every job and everything it started, and removes their spools: the end of the
    /// session (also when the table is dropped).
    pub(crate) fn end_all(&self) {
        let mut table = lock(&self.table);
        for job in table.iter() {
            job.cancel.cancel();
        }
        for job in table.iter_mut() {
            if let Some(handle) = job.thread.take() {
                let _ = handle.join();
            }
        }
        table.clear();
        if let Some(dir) = &self.dir {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

impl Drop for Jobs {
    fn drop(&mut self) {
        self.end_all();
    }
}

fn find(table: &[Job], id: u32) -> Result<&Job, String> {
    table.iter().find(|job| job.id == id).ok_or_else(|| no_such_job(table, id))
}

fn find_mut(table: &mut [Job], id: u32) -> Result<&mut Job, String> {
    let missing = no_such_job(table, id);
    table.iter_mut().find(|job| job.id == id).ok_or(missing)
}

fn no_such_job(table: &[Job], id: u32) -> String {
    let ids: Vec<String> = table.iter().map(|job| job.id.to_string()).collect();
    if ids.is_empty() {
        format!("no job {id}: no background job was started in this session")
    } else {
        format!("no job {id}: the jobs are {}", ids.join(", "))
    }
}

/// The state of a job whose command ended as `ending`.
fn ended(ending: Ending) -> State {
    match ending {
        Ending::Exited(status) => match (status.code(), std::os::unix::process::ExitStatusExt::signal(&status)) {
            (Some(code), _) => State::Ended(format!("exit code {code}")),
            (None, Some(signal)) => State::Ended(format!("killed by signal {signal}")),
            (None, None) => State::Ended("exit status unknown".to_string()),
        },
        Ending::TimedOut => State::Ended("ran for a week and was killed".to_string()),
        Ending::Cancelled => State::Stopped,
        Ending::WaitFailed(err) => State::Failed(format!("lost track of it ({err}); it was killed")),
    }
}

#[cfg(test)]
mod tests;
