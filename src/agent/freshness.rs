//! Read before write, no stale overwrite, and every applied change captured: the guard around
//! each call of a tool that writes the file at its `path` argument (`ToolKind::WritesPath`:
//! write_file, edit_file, and any tool that declares it), on the one path every call takes
//! (`batch.rs`).
//!
//! Invariant: such a call runs on an existing, non-empty regular file only when the file's
//! content is what this conversation last saw of it — read with read_file (any window), or
//! written by the agent itself — compared by `tools::reads::Fingerprint` (content, not time).
//! Otherwise the call is refused with an error result that tells the model to read the file
//! (first, or again), and the file is untouched. New and empty files are free. After a successful
//! call, the fingerprint of the file as written is remembered, so the agent's own writes keep it
//! fresh, and the change is described (`change.rs`) for the front ends.
//!
//! The path is resolved as the tools resolve it (`fsx::resolve_path` against the project root)
//! and followed through symbolic links as the write follows them. A call whose arguments carry no
//! `path` string is left to the tool, which reports the bad arguments. This module asks no
//! permission: a refusal here is the tool's error, not the permission system's.

use super::change::{Side, TEXT_MAX_BYTES, describe_change};
use super::event::FileChange;
use crate::fsx::resolve_path;
use crate::tools::reads::{Fingerprint, content_key, load_fingerprint};
use crate::tools::{ReadTracker, Tool, ToolContext, ToolKind, ToolOutput, display_path, execute_caught};
use std::path::{Path, PathBuf};

/// A call that ran through the guard: its output, and what it changed.
pub(super) struct Guarded {
    pub output: ToolOutput,
    pub change: Option<Box<FileChange>>,
    /// The file a successful call left at its `path` (as the tool resolved it, links not
    /// followed): what the checks after edits look at. None when nothing is there after it.
    pub written: Option<PathBuf>,
}

/// Runs `tool` on `input_json`: a writing tool's call is checked first (and refused if the file
/// was not read or changed since), and its change is captured; any other call just runs.
pub(super) fn execute_guarded(tool: &dyn Tool, input_json: &str, ctx: &ToolContext) -> Guarded {
    let Some(target) = target_of(tool, input_json, &ctx.root) else {
        return Guarded { output: execute_caught(tool, input_json, ctx), change: None, written: None };
    };
    let before = load_on_disk(&target.key);
    if let Err(refusal) = judge(&before, ctx.reads.last_seen(&target.key)) {
        return Guarded { output: ToolOutput::error(refusal.message(&target.shown)), change: None, written: None };
    }
    let output = execute_caught(tool, input_json, ctx);
    if output.is_error {
        return Guarded { output, change: None, written: None };
    }
    // A file the call created has a real name only now (its directory may be reached by a link).
    let written = content_key(&target.path);
    let after = load_on_disk(&written);
    match &after {
        OnDisk::File { fingerprint, .. } => ctx.reads.remember(&written, *fingerprint),
        OnDisk::Absent | OnDisk::Unreadable(_) => ctx.reads.forget(&written),
    }
    let change = describe_change(&target.shown, before.side(), after.side()).map(Box::new);
    let written = change.is_some().then_some(target.path);
    Guarded { output, change, written }
}

/// Why a call of a writing tool would be refused now, before anyone is asked to approve it (a
/// person should not approve a call that cannot run); `None` when it may go ahead. The check is
/// made again when the call runs: the file may change while the question is on screen.
/// `root` is the project root, `reads` the conversation's.
pub(super) fn refusal(tool: &dyn Tool, input_json: &str, root: &Path, reads: &ReadTracker) -> Option<String> {
    let target = target_of(tool, input_json, root)?;
    let before = load_on_disk(&target.key);
    judge(&before, reads.last_seen(&target.key)).err().map(|refusal| refusal.message(&target.shown))
}

/// The file a writing call targets.
struct Target {
    /// Its path as the tool resolves it (lexically, links not followed).
    path: PathBuf,
    /// Where the write lands: the key of its fingerprint (`content_key`).
    key: PathBuf,
    /// How the tools show it to the model.
    shown: String,
}

/// The target of a call of a tool that declares it writes its `path`; `None` for other tools
/// and for arguments without a `path` string.
fn target_of(tool: &dyn Tool, input_json: &str, root: &Path) -> Option<Target> {
    if tool.kind() != ToolKind::WritesPath {
        return None;
    }
    let input: serde_json::Value = serde_json::from_str(input_json).ok()?;
    let path = resolve_path(root, input.get("path")?.as_str()?);
    Some(Target { key: content_key(&path), shown: display_path(root, &path), path })
}

/// The file at a target, before or after the call.
#[derive(Clone, Debug, PartialEq, Eq)]
enum OnDisk {
    /// Nothing there, or not a regular file (a directory: the tool says it cannot write it).
    Absent,
    /// A regular file that could not be read: why.
    Unreadable(String),
    /// A regular file: its fingerprint and length, and its bytes when at most `TEXT_MAX_BYTES`.
    File { fingerprint: Fingerprint, len: u64, bytes: Option<Vec<u8>> },
}

impl OnDisk {
    /// The file as the change description sees it.
    fn side(&self) -> Side<'_> {
        match self {
            OnDisk::Absent | OnDisk::Unreadable(_) => Side::Absent,
            OnDisk::File { bytes: Some(bytes), .. } => Side::Bytes(bytes),
            OnDisk::File { len, bytes: None, .. } => Side::Large { len: *len },
        }
    }
}

/// Reads what is at `file` now (following links); only a regular file is opened.
fn load_on_disk(file: &Path) -> OnDisk {
    match std::fs::metadata(file) {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => OnDisk::Absent,
        Err(err) if err.kind() == std::io::ErrorKind::NotADirectory => OnDisk::Absent,
        Err(err) => OnDisk::Unreadable(err.to_string()),
        Ok(meta) if !meta.is_file() => OnDisk::Absent,
        Ok(_) => match load_fingerprint(file, TEXT_MAX_BYTES) {
            Ok(loaded) => OnDisk::File { fingerprint: loaded.fingerprint, len: loaded.len, bytes: loaded.bytes },
            Err(err) => OnDisk::Unreadable(err.to_string()),
        },
    }
}

/// Why a write is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Refusal {
    /// The file has content and this conversation never read (or wrote) it.
    NotRead,
    /// Its content is not what the agent last read or wrote.
    Changed,
    /// It could not be read, so nobody can tell what the write would lose.
    Unreadable(String),
}

impl Refusal {
    /// The error the model reads, naming the file as the tools show it and what to do next.
    fn message(&self, shown: &str) -> String {
        match self {
            Refusal::NotRead => format!(
                "{shown} exists and has not been read in this conversation: read it with read_file first, then write"
            ),
            Refusal::Changed => format!(
                "{shown} changed on disk since you last read it (edited by the user or a command): read it again \
                 with read_file, then make your change"
            ),
            Refusal::Unreadable(why) => format!(
                "{shown} exists but could not be read to check what the write would replace ({why}); nothing was \
                 written"
            ),
        }
    }
}

/// Whether a write may replace `before`, given what the conversation last saw of the file.
fn judge(before: &OnDisk, last_seen: Option<Fingerprint>) -> Result<(), Refusal> {
    match before {
        OnDisk::Absent | OnDisk::File { len: 0, .. } => Ok(()),
        OnDisk::Unreadable(why) => Err(Refusal::Unreadable(why.clone())),
        OnDisk::File { fingerprint, .. } => match last_seen {
            None => Err(Refusal::NotRead),
            Some(seen) if seen == *fingerprint => Ok(()),
            Some(_) => Err(Refusal::Changed),
        },
    }
}

#[cfg(test)]
#[path = "freshness_tests.rs"]
mod tests;
