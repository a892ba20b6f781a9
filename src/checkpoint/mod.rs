//! Checkpoints (issue 29): the state of every file a turn may change, recorded before its first
//! change and after it, so that code can be put back as it was before any turn — whoever changed
//! it: `write_file`, `edit_file` or a shell command.
//!
//! What is covered: every file under the project and the extra writable roots that `.gitignore`
//! does not ignore, but `.git/`, `.mewcode/` and heavy directories (`node_modules`, virtual
//! environments, caches, a Rust `target/`); a link as a link. A file over 16 MiB is only noted
//! (its size and mtime), never stored. Where: objects (content by SHA-256, stored once) and the
//! stat cache in `<project>/.mewcode/checkpoints/`; each session's record log in its session
//! directory (`checkpoints.jsonl`), so it goes when the session is pruned, and objects no log
//! names any more go with the next collection (`collect_garbage`, after the session cleanup).
//!
//! Invariant: never touches the user's git state (no git process, nothing under `.git/`), never
//! writes outside `<project>/.mewcode/` except when `apply` restores files inside the covered
//! roots, and restores through the same symlink-safe atomic writes as the file tools.
//!
//! - `mod.rs` — the API the agent, the REPL and the CLI call
//! - `keeper.rs` — one session's checkpoints at work: turns, snapshots, plans, the warm-up
//! - `scan.rs` — walking the covered roots into a state, hashing what the stat cache does not vouch for
//! - `store.rs` — the objects: content by SHA-256, written once, checked when read
//! - `cache.rs` — the stat cache: which files need no reading, saved between sessions
//! - `log.rs` — the per-session record log (turns, snapshots as deltas), its load and append
//! - `timeline.rs` — replaying the log: states, what each turn changed, targets, hand changes
//! - `restore.rs` — what a restore does (pure) and doing it, symlink-safe
//! - `gc.rs` — removing the objects no session refers to any more
//! - `describe.rs` — points, plans and restores in words, for the REPL and `mewcode rewind`
//! - tests: each `x.rs` has its `x_tests.rs`; `tests.rs` tests `mod.rs` (whole sessions)

mod cache;
pub(crate) mod describe;
mod gc;
mod keeper;
mod log;
mod restore;
mod scan;
mod store;
mod timeline;

use crate::cancel::CancelToken;
use keeper::Keeper;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// What checkpoints cover: the project, and the extra paths commands may write
/// (`sandbox.writable`). Everything else is unchanged by confined commands already.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Coverage {
    /// The project root (absolute, canonical).
    pub project: PathBuf,
    /// Extra writable roots (absolute).
    pub extra: Vec<PathBuf>,
}

/// Which moment a snapshot records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Moment {
    /// Before the first change of a turn.
    Before,
    /// When that turn ended.
    After,
    /// Just before a rewind was applied (what undoing the rewind returns to).
    PreRewind,
    /// Just after a rewind was applied.
    PostRewind,
}

/// One entry of the timeline the user picks from, newest first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Point {
    /// The turn number (1-based within the session, across resumes); for a rewind, the turn it
    /// went back to.
    pub turn: u32,
    /// True when this entry is a rewind (restoring to it undoes that rewind).
    pub rewind: bool,
    /// The turn's prompt (first line, at most 200 characters); for a rewind, a description.
    pub prompt: String,
    /// Seconds since 1970 when the turn started (or the rewind happened).
    pub ts: u64,
    /// Files the turn changed (paths as shown to the user: relative to the project when inside),
    /// sorted; empty when it changed nothing (or has no checkpoint).
    pub changed: Vec<String>,
    /// How many messages the conversation held before this turn's prompt (for restoring the
    /// conversation); None for rewinds.
    pub history_len: Option<usize>,
}

/// What restoring to a point would do, for the user to confirm.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The point restored to (its turn; for `undo`, the last turn or rewind).
    pub turn: u32,
    /// True when this plan undoes the latest rewind to `turn` (`plan(turn, true)`): `apply`
    /// restores to the state before that rewind rather than before the turn.
    pub rewind: bool,
    /// Files written back to their content at the point (changed or deleted since).
    pub restore: Vec<PathBuf>,
    /// Files created since the point: removed.
    pub remove: Vec<PathBuf>,
    /// Of `restore` and `remove`: files changed outside mewcode (by hand) since the point; the
    /// user decides whether to keep them.
    pub hand_changed: Vec<PathBuf>,
    /// Files changed since the point that cannot be restored (too large when recorded).
    pub not_covered: Vec<PathBuf>,
    /// Extra roots the point covered that this run does not (a directory added then, not now,
    /// or too big to scan now): their files are left as they are.
    pub unreached: Vec<PathBuf>,
}

/// What a restore did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    pub restored: Vec<PathBuf>,
    pub removed: Vec<PathBuf>,
    pub kept: Vec<PathBuf>,
    /// Paths that failed, with why.
    pub failed: Vec<(PathBuf, String)>,
}

/// One file's change between two states, for `/diff`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileChange {
    pub path: PathBuf,
    /// Content before (None: the file did not exist).
    pub before: Option<Vec<u8>>,
    /// Content now (None: deleted).
    pub after: Option<Vec<u8>>,
}

/// The checkpoints of one session. `Send + Sync`; shared as an `Arc`.
///
/// Paths in a `Plan`, a `Report` and a `FileChange` are absolute; `keep` may also name project
/// files relative to the project.
pub struct Checkpoints {
    keeper: Mutex<Keeper>,
}

impl Checkpoints {
    /// Opens the checkpoints of session `session_id` of the project (`coverage.project`),
    /// loading what earlier runs of the session recorded (resume). Records nothing yet; a
    /// background thread (`checkpoint-warm`, joined by the first call that scans, or on drop)
    /// starts hashing and storing the covered files, so the first snapshot only waits for what
    /// is left.
    pub fn open(coverage: Coverage, session_id: &str) -> Checkpoints {
        Checkpoints { keeper: Mutex::new(Keeper::open(&coverage, session_id, &CancelToken::new())) }
    }

    /// A user turn starts (numbered here: one more than the last recorded).
    pub fn begin_turn(&self, prompt: &str, history_len: usize) -> u32 {
        crate::sync::lock(&self.keeper).begin_turn(prompt, history_len)
    }

    /// Before the first change of the current turn: records the state once per turn.
    pub fn before_change(&self) -> Result<(), String> {
        crate::sync::lock(&self.keeper).before_change()
    }

    /// The current turn ended: when it recorded a `Before`, records the `After` state.
    pub fn end_turn(&self) -> Result<(), String> {
        crate::sync::lock(&self.keeper).end_turn()
    }

    /// The timeline, newest first.
    pub fn points(&self) -> Vec<Point> {
        crate::sync::lock(&self.keeper).points()
    }

    /// What restoring the code to the state before `turn` would do (`rewind`: to the state
    /// before that rewind was applied).
    pub fn plan(&self, turn: u32, rewind: bool) -> Result<Plan, String> {
        crate::sync::lock(&self.keeper).plan(turn, rewind)
    }

    /// Applies `plan`, leaving `keep` (hand-changed files the user keeps) as they are. Records the
    /// state before (so the rewind can be undone) and after.
    pub fn apply(&self, plan: &Plan, keep: &[PathBuf]) -> Result<Report, String> {
        crate::sync::lock(&self.keeper).apply(plan, keep)
    }

    /// Everything the session changed so far: its first snapshot against the files now.
    pub fn session_changes(&self) -> Result<Vec<FileChange>, String> {
        crate::sync::lock(&self.keeper).session_changes()
    }

    /// What the user should know about what checkpoints do not cover in this session (an extra
    /// root with too many files, names that are not UTF-8), each said once.
    pub fn notes(&self) -> Vec<String> {
        crate::sync::lock(&self.keeper).notes()
    }
}

impl Drop for Checkpoints {
    fn drop(&mut self) {
        crate::sync::lock(&self.keeper).stop();
    }
}

/// Removes objects no remaining session refers to (called by the session cleanup).
pub(crate) fn collect_garbage(project: &Path) -> Result<usize, String> {
    gc::collect_garbage(project)
}

/// Walks what a checkpoint covers with one `lstat` per entry and nothing else, and returns how
/// many entries it saw: the floor a snapshot's scan is compared with (`make bench`).
pub fn stat_walk(coverage: &Coverage) -> usize {
    scan::stat_walk(&scan::Roots::new(coverage))
}

#[cfg(test)]
mod tests;
