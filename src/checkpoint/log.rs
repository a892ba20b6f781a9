//! The per-session record log, `<project>/.mewcode/sessions/<id>/checkpoints.jsonl`: one JSON
//! line per record — a header, each turn's start, and each snapshot as the entries that differ
//! from the previous snapshot of the log (the first one lists every file). It lives in the
//! session's directory so that it goes when the session is pruned.
//!
//! Invariant: append-only, every line fsynced before `append` returns (as the session log). A
//! line that does not parse — the torn last line a kill leaves — is skipped on load, and the next
//! append starts on a line of its own; later snapshots were computed against what loads without
//! it, so replaying the deltas that load always gives the states that were recorded.

use super::Moment;
use super::store::{Digest, MEWCODE_DIR};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The log's format; a log of a newer one is not read (nor appended to).
pub(crate) const VERSION: u32 = 1;
/// The log's name in the session's directory.
pub(crate) const LOG_NAME: &str = "checkpoints.jsonl";

/// What a snapshot recorded at one path.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub(crate) enum Entry {
    /// A regular file whose content is object `hash`, with its permission bits (`& 0o777`).
    File { hash: Digest, mode: u32, size: u64 },
    /// A symbolic link, recorded as its target, never followed.
    Link {
        #[serde(rename = "link")]
        target: String,
    },
    /// A file not stored (over the size cap, or unreadable): only its size and mtime, so that a
    /// change to it is still seen.
    Unstored {
        #[serde(rename = "unstored")]
        size: u64,
        mtime_ns: i64,
    },
}

/// One line of the log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum Record {
    /// The first line: the format.
    Header { version: u32 },
    /// A user turn started.
    Turn { turn: u32, prompt: String, history_len: usize, ts: u64 },
    /// The state of the covered files.
    Snapshot(Snapshot),
}

/// A snapshot record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Snapshot {
    /// The turn it belongs to; for a rewind's two snapshots, the turn it went back to.
    pub turn: u32,
    pub moment: MomentName,
    pub ts: u64,
    /// The extra roots this snapshot covers (keys under any other absolute root are not
    /// comparable with it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extra: Vec<String>,
    /// Extra roots skipped for holding too many files (never covered again in this session).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
    /// For a rewind's snapshots: the rewind undid an earlier one.
    #[serde(default, skip_serializing_if = "is_false")]
    pub undo: bool,
    /// What differs from the previous snapshot: a key's entry now, or null when it is gone.
    pub entries: BTreeMap<String, Option<Entry>>,
}

fn is_false(value: &bool) -> bool {
    !*value
}

/// `Moment` as the log spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum MomentName {
    Before,
    After,
    PreRewind,
    PostRewind,
}

impl From<Moment> for MomentName {
    fn from(moment: Moment) -> MomentName {
        match moment {
            Moment::Before => MomentName::Before,
            Moment::After => MomentName::After,
            Moment::PreRewind => MomentName::PreRewind,
            Moment::PostRewind => MomentName::PostRewind,
        }
    }
}

impl From<MomentName> for Moment {
    fn from(name: MomentName) -> Moment {
        match name {
            MomentName::Before => Moment::Before,
            MomentName::After => Moment::After,
            MomentName::PreRewind => Moment::PreRewind,
            MomentName::PostRewind => Moment::PostRewind,
        }
    }
}

/// A loaded log.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Loaded {
    /// The records, in order (the header left out).
    pub records: Vec<Record>,
    /// True when the file exists.
    pub exists: bool,
    /// True when the file ends in the middle of a line (a torn last line).
    pub torn: bool,
}

/// Session `session_id`'s log relative to the project root.
pub(crate) fn log_rel(session_id: &str) -> PathBuf {
    Path::new(crate::session::SESSIONS_REL).join(session_id).join(LOG_NAME)
}

/// The records of a log's bytes: lines that do not parse are skipped. An error when the header
/// names a newer format.
fn parse_log(bytes: &[u8]) -> Result<Loaded, String> {
    let mut records = Vec::new();
    for line in bytes.split(|&byte| byte == b'\n') {
        match serde_json::from_slice::<Record>(line) {
            Ok(Record::Header { version }) if version > VERSION => {
                return Err(format!(
                    "this session's checkpoints were written by a newer mewcode (format {version}); use that version \
                     to rewind it"
                ));
            }
            Ok(Record::Header { .. }) | Err(_) => {}
            Ok(record) => records.push(record),
        }
    }
    let torn = bytes.last().is_some_and(|&byte| byte != b'\n');
    Ok(Loaded { records, exists: true, torn })
}

/// Loads the log of `session_id` (nothing yet: an empty log that does not exist).
pub(crate) fn load_log(project: &Path, session_id: &str) -> Result<Loaded, String> {
    check_session_id(session_id)?;
    let path = project.join(log_rel(session_id));
    match std::fs::symlink_metadata(&path) {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Loaded::default()),
        Ok(meta) if !meta.file_type().is_file() => {
            return Err(format!("{} is not a regular file; checkpoints are off for this session", path.display()));
        }
        _ => {}
    }
    let bytes = std::fs::read(&path).map_err(|err| format!("cannot read {}: {err}", path.display()))?;
    parse_log(&bytes)
}

/// A session id is one plain name.
fn check_session_id(session_id: &str) -> Result<(), String> {
    if session_id.is_empty() || session_id == "." || session_id == ".." || session_id.contains('/') {
        return Err(format!("{session_id:?} is not a session id"));
    }
    Ok(())
}

/// Appends records to one session's log, opening it at the first append.
#[derive(Debug)]
pub(crate) struct LogWriter {
    project: PathBuf,
    rel: PathBuf,
    file: Option<File>,
    exists: bool,
    /// The file ends in a torn line: the next record starts on a new line.
    torn: bool,
}

impl LogWriter {
    /// A writer for the log `loaded` came from.
    pub(crate) fn new(project: &Path, session_id: &str, loaded: &Loaded) -> LogWriter {
        LogWriter {
            project: project.to_path_buf(),
            rel: log_rel(session_id),
            file: None,
            exists: loaded.exists,
            torn: loaded.torn,
        }
    }

    /// Appends `record` as one fsynced line (the header first, into a new log).
    pub(crate) fn append(&mut self, record: &Record) -> Result<(), String> {
        let path = self.project.join(&self.rel);
        let mut bytes = Vec::new();
        if self.file.is_none() {
            self.open().map_err(|err| format!("cannot write the checkpoints of this session: {err}"))?;
            if !self.exists {
                bytes.extend(render(&Record::Header { version: VERSION }));
                self.exists = true;
            }
        }
        if self.torn {
            bytes.insert(0, b'\n');
        }
        bytes.extend(render(record));
        let Some(file) = self.file.as_mut() else { return Err("the checkpoint log is not open".into()) };
        file.write_all(&bytes)
            .and_then(|()| file.sync_data())
            .map_err(|err| format!("cannot write {}: {err}", path.display()))?;
        self.torn = false;
        Ok(())
    }

    fn open(&mut self) -> std::io::Result<()> {
        crate::fsx::ensure_gitignored_dir(&self.project, Path::new(MEWCODE_DIR))?;
        let file = match crate::fsx::open_append_beneath(&self.project, &self.rel, !self.exists) {
            // Pruned since it was loaded: start it again.
            Err(err) if self.exists && err.kind() == std::io::ErrorKind::NotFound => {
                self.exists = false;
                self.torn = false;
                crate::fsx::open_append_beneath(&self.project, &self.rel, true)?
            }
            other => other?,
        };
        self.file = Some(file);
        Ok(())
    }
}

/// One record as a line with its newline.
fn render(record: &Record) -> Vec<u8> {
    let mut line = serde_json::to_vec(record).unwrap_or_default();
    line.push(b'\n');
    line
}

#[cfg(test)]
#[path = "log_tests.rs"]
mod tests;
