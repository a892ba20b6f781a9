//! A background job's output on disk: appended as it comes, read from where the last read
//! stopped, bounded in size.
//!
//! Invariant: the file never holds more than `cap` bytes. When a write would pass it, what was
//! not read yet is dropped (counted, and said by the next read) and the file starts again: the
//! newest output is kept, as a terminal's scrollback keeps it. A read returns whole UTF-8
//! characters only (an incomplete one waits for its end), at most `max` bytes, and says how much
//! more is waiting.

use std::fs::File;
use std::io::{self, Seek, SeekFrom, Write};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// What one read returned.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Read {
    pub text: String,
    /// Bytes written and not read yet beyond this read.
    pub waiting: u64,
    /// Bytes dropped unread since the last read (the cap was reached).
    pub dropped: u64,
}

/// The spool of one job.
#[derive(Debug)]
pub(crate) struct Spool {
    path: PathBuf,
    file: File,
    cap: u64,
    /// Bytes in the file.
    written: u64,
    /// Where the next read starts, in the file.
    read: u64,
    /// Bytes dropped unread since the last read.
    dropped: u64,
    /// Every byte the job wrote, dropped or not.
    total: u64,
}

impl Spool {
    /// A new, empty spool at `path` (readable by the user only), at most `cap` bytes on disk.
    pub(crate) fn create(path: &Path, cap: u64) -> io::Result<Spool> {
        let file = std::fs::OpenOptions::new().read(true).write(true).create_new(true).mode(0o600).open(path)?;
        Ok(Spool { path: path.to_path_buf(), file, cap: cap.max(1), written: 0, read: 0, dropped: 0, total: 0 })
    }

    /// Appends `bytes` (the newest output wins when the cap is reached).
    pub(crate) fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.total += bytes.len() as u64;
        // More than the whole cap at once: only its end is kept.
        let bytes = &bytes[bytes.len().saturating_sub(self.cap as usize)..];
        if self.written + bytes.len() as u64 > self.cap {
            self.dropped += self.written - self.read;
            self.file.set_len(0)?;
            self.written = 0;
            self.read = 0;
        }
        self.file.seek(SeekFrom::Start(self.written))?;
        self.file.write_all(bytes)?;
        self.written += bytes.len() as u64;
        Ok(())
    }

    /// What was written since the last read, at most `max` bytes of it.
    pub(crate) fn read_new(&mut self, max: usize) -> io::Result<Read> {
        let available = (self.written - self.read) as usize;
        let mut buffer = vec![0u8; available.min(max)];
        self.file.read_exact_at(&mut buffer, self.read)?;
        let whole = match std::str::from_utf8(&buffer) {
            Ok(_) => buffer.len(),
            // An incomplete character at the end waits for the rest; an invalid one is shown.
            Err(error) if error.error_len().is_none() => error.valid_up_to(),
            Err(_) => buffer.len(),
        };
        buffer.truncate(whole);
        self.read += whole as u64;
        let dropped = std::mem::take(&mut self.dropped);
        Ok(Read { text: String::from_utf8_lossy(&buffer).into_owned(), waiting: self.written - self.read, dropped })
    }

    /// Every byte the job wrote so far.
    pub(crate) fn total(&self) -> u64 {
        self.total
    }
}

impl Drop for Spool {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
#[path = "spool_tests.rs"]
mod tests;
