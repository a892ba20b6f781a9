//! Appending to a session log: one JSON line per message, fsynced before `append` returns.
//!
//! Invariant: a message that `append` reported written survives `kill -9` and power loss
//! (`sync_data` after every line), and every record starts on a line of its own, even after a
//! torn last line (reopening adds the missing newline). The first write failure is returned once
//! as a notice for the front end; later failures are silent and the conversation goes on.
//! A writer belongs to one conversation (`agent::Conversation`), which appends to it and to its
//! history in the same call.

use super::SessionError;
use super::record::{Meta, render_compact, render_message, render_meta};
use crate::msg::Message;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// An open session log.
#[derive(Debug)]
pub struct SessionWriter {
    id: String,
    path: PathBuf,
    file: File,
    model: String,
    failed: bool,
}

impl SessionWriter {
    /// Creates the log `rel` beneath the project root `root` (its directories too) and writes
    /// the header. Fails if it exists. Never through a symbolic link, neither on a directory of
    /// `rel` nor at the log's name (`fsx::open_append_beneath`): a repository can ship any of
    /// them as one pointing outside the project.
    pub fn create(root: &Path, rel: &Path, meta: &Meta) -> Result<SessionWriter, SessionError> {
        let path = root.join(rel);
        let file = crate::fsx::open_append_beneath(root, rel, true).map_err(|err| SessionError::io(&path, err))?;
        let mut writer = SessionWriter { id: meta.id.clone(), path, file, model: meta.model.clone(), failed: false };
        writer.write_line(&render_meta(meta)).map_err(|err| SessionError::io(&writer.path, err))?;
        Ok(writer)
    }

    /// Reopens the existing log `rel` beneath `root` for append (resume), ending a torn last
    /// line first. Never through a symbolic link, as `create`: append mode would follow one.
    pub(crate) fn reopen(root: &Path, rel: &Path, id: &str, model: &str) -> Result<SessionWriter, SessionError> {
        let path = root.join(rel);
        let path = path.as_path();
        let mut file = crate::fsx::open_append_beneath(root, rel, false).map_err(|err| SessionError::io(path, err))?;
        let length = file.metadata().map_err(|err| SessionError::io(path, err))?.len();
        if length > 0 {
            let mut last = [0u8; 1];
            file.seek(SeekFrom::Start(length - 1))
                .and_then(|_| file.read_exact(&mut last))
                .map_err(|err| SessionError::io(path, err))?;
            if last[0] != b'\n' {
                file.write_all(b"\n").and_then(|()| file.sync_data()).map_err(|err| SessionError::io(path, err))?;
            }
        }
        Ok(SessionWriter {
            id: id.to_string(),
            path: path.to_path_buf(),
            file,
            model: model.to_string(),
            failed: false,
        })
    }

    /// The session id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The log file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The model later assistant records are tagged with (REPL `/model`).
    pub(crate) fn set_model(&mut self, model: &str) {
        self.model = model.to_string();
    }

    /// Appends one message written at `ts` (seconds since 1970). Returns a notice on the first
    /// failure only.
    pub fn append(&mut self, message: &Message, ts: u64) -> Option<String> {
        let model = (message.role == crate::msg::Role::Assistant).then_some(self.model.as_str());
        let line = render_message(message, ts, model);
        self.write_or_warn(&line)
    }

    /// Appends a compact marker followed by the compacted history (the summary and kept tail),
    /// so loading starts from them. Returns a notice on the first failure only.
    pub(crate) fn append_compacted(&mut self, messages: &[Message], ts: u64) -> Option<String> {
        let mut notice = self.write_or_warn(&render_compact(ts));
        for message in messages {
            notice = notice.or(self.append(message, ts));
        }
        notice
    }

    fn write_or_warn(&mut self, line: &str) -> Option<String> {
        match self.write_line(line) {
            Ok(()) => None,
            Err(_) if self.failed => None,
            Err(err) => {
                self.failed = true;
                Some(format!(
                    "could not write the session log {}: {err}; the conversation goes on but may not be resumable",
                    self.path.display()
                ))
            }
        }
    }

    /// One `write_all` of the whole line (with its newline) then `sync_data`.
    fn write_line(&mut self, line: &str) -> std::io::Result<()> {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        self.file.write_all(&bytes)?;
        self.file.sync_data()
    }
}

#[cfg(test)]
#[path = "writer_tests.rs"]
mod tests;
