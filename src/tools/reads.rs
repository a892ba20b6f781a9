//! What the conversation has seen of the files: the paths `read_file` read most recently (for
//! compaction to re-attach), and, per file, a fingerprint of the content the agent last read or
//! wrote (for the read-before-write check of `agent/freshness.rs`).
//!
//! Invariant: a fingerprint compares content, never only a timestamp. Up to
//! `WHOLE_HASH_MAX_BYTES` it is the SHA-256 of the whole file, streamed in pieces so the file is
//! never held whole; beyond that (a log, a dump: reading 64 MiB on every write would cost more
//! than the check is worth) it is the length, the modification time and the SHA-256 of the first
//! and last `EDGE_BYTES`, so a change in the middle of a huge file that keeps its length and its
//! modification time (`touch -d` after the change) goes unseen there. The two maps are bounded
//! separately, oldest dropped: the recency list is short, the fingerprints many.
//!
//! Files are keyed by where a write would land: the path with its symbolic links resolved, so a
//! file read through a link and written by its real name (or the other way round) is one file.

use crate::digest::Sha256;
use crate::sync::lock;
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Files up to this size are fingerprinted by the hash of their whole content.
const WHOLE_HASH_MAX_BYTES: u64 = 64 * 1024 * 1024;
/// Bytes hashed at each end of a larger file.
const EDGE_BYTES: u64 = 1024 * 1024;

/// What the agent last saw of a file's content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fingerprint {
    /// The SHA-256 of the whole content (files up to `WHOLE_HASH_MAX_BYTES`).
    Whole([u8; 32]),
    /// A larger file: its length, its modification time (ns since the epoch) and the SHA-256 of
    /// its first and last `EDGE_BYTES`.
    Sampled { len: u64, modified_ns: i128, edges: [u8; 32] },
}

/// A file as `load_fingerprint` read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Fingerprinted {
    pub fingerprint: Fingerprint,
    /// Its length in bytes, as read.
    pub len: u64,
    /// The whole content, when it is no longer than the caller asked to keep.
    pub bytes: Option<Vec<u8>>,
}

/// Reads the file at `path` (following symbolic links) and fingerprints it, keeping its bytes
/// when there are at most `keep_up_to` of them: one pass gives both the check and the content a
/// diff needs. The caller makes sure it is a regular file (opening a FIFO would wait for a writer).
pub(crate) fn load_fingerprint(path: &Path, keep_up_to: usize) -> io::Result<Fingerprinted> {
    load_with_limits(path, keep_up_to, Limits { whole_max: WHOLE_HASH_MAX_BYTES, edge: EDGE_BYTES })
}

/// Where a fingerprint stops hashing everything, and how much of each end it hashes then.
#[derive(Clone, Copy, Debug)]
struct Limits {
    whole_max: u64,
    edge: u64,
}

fn load_with_limits(path: &Path, keep_up_to: usize, limits: Limits) -> io::Result<Fingerprinted> {
    let mut file = File::open(path)?;
    let meta = file.metadata()?;
    if meta.len() > limits.whole_max {
        let modified_ns = i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec());
        let edges = hash_edges(&mut file, meta.len(), limits.edge)?;
        let fingerprint = Fingerprint::Sampled { len: meta.len(), modified_ns, edges };
        return Ok(Fingerprinted { fingerprint, len: meta.len(), bytes: None });
    }
    let mut sink = Hashing { hasher: Sha256::new(), len: 0, kept: Some(Vec::new()), keep_up_to };
    io::copy(&mut file, &mut sink)?;
    Ok(Fingerprinted { fingerprint: Fingerprint::Whole(sink.hasher.finish()), len: sink.len, bytes: sink.kept })
}

/// Where a file is copied to be fingerprinted: it hashes every piece, counts them, and keeps
/// them while they add up to at most `keep_up_to` bytes.
struct Hashing {
    hasher: Sha256,
    len: u64,
    kept: Option<Vec<u8>>,
    keep_up_to: usize,
}

impl io::Write for Hashing {
    fn write(&mut self, piece: &[u8]) -> io::Result<usize> {
        self.hasher.update(piece);
        self.len += piece.len() as u64;
        if self.len > self.keep_up_to as u64 {
            self.kept = None;
        }
        if let Some(kept) = self.kept.as_mut() {
            kept.extend_from_slice(piece);
        }
        Ok(piece.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The SHA-256 of the first and the last `edge` bytes of a file of `len` bytes.
fn hash_edges(file: &mut File, len: u64, edge: u64) -> io::Result<[u8; 32]> {
    let mut hasher = Sha256::new();
    let mut buffer = Vec::new();
    for start in [0, len.saturating_sub(edge)] {
        file.seek(SeekFrom::Start(start))?;
        buffer.clear();
        file.take(edge).read_to_end(&mut buffer)?;
        hasher.update(&buffer);
    }
    Ok(hasher.finish())
}

/// The key a file's fingerprint is kept under: where a write to `path` lands (symbolic links
/// resolved), or `path` itself when it cannot be resolved (it does not exist yet).
pub(crate) fn content_key(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Records a successful `read_file` of `path` (absolute, cleaned): the path for compaction, and
/// the fingerprint of the file as it is on disk now, whatever window of it was shown. The file is
/// read a second time for that; a change between the two reads is the one this check cannot see.
pub(crate) fn record_read(reads: &ReadTracker, path: &Path) {
    reads.record(path);
    let key = content_key(path);
    match load_fingerprint(&key, 0) {
        Ok(loaded) => reads.remember(&key, loaded.fingerprint),
        Err(_) => reads.forget(&key),
    }
}

/// The paths `read_file` read successfully, most recent last, each at most once (a re-read moves
/// the path to the end), bounded to `ReadTracker::CAPACITY` entries; and the fingerprint of each
/// file the agent last read or wrote, bounded to `ReadTracker::SEEN_CAPACITY`. Both drop their
/// oldest entries. Clones share the same record (one per conversation).
#[derive(Clone, Debug, Default)]
pub struct ReadTracker {
    inner: Arc<Mutex<Tracked>>,
}

#[derive(Debug, Default)]
struct Tracked {
    recent: Vec<PathBuf>,
    /// Fingerprints by content key, each with the stamp of its last update.
    seen: HashMap<PathBuf, (u64, Fingerprint)>,
    /// The same keys by stamp, oldest first: what to drop when `seen` is full.
    by_age: BTreeMap<u64, PathBuf>,
    next_stamp: u64,
}

impl ReadTracker {
    /// How many distinct paths are remembered; compaction needs only the last few.
    const CAPACITY: usize = 64;
    /// How many files' fingerprints are kept: far more than a conversation reads, so that only a
    /// very long one forgets a file (and then asks for it to be read again).
    pub(crate) const SEEN_CAPACITY: usize = 4096;

    /// An empty tracker.
    pub fn new() -> ReadTracker {
        ReadTracker::default()
    }

    /// Records that `path` (absolute, cleaned) was read just now.
    pub fn record(&self, path: &Path) {
        let mut tracked = lock(&self.inner);
        tracked.recent.retain(|existing| existing != path);
        tracked.recent.push(path.to_path_buf());
        let excess = tracked.recent.len().saturating_sub(Self::CAPACITY);
        tracked.recent.drain(..excess);
    }

    /// Up to `count` most recently read paths, most recent last.
    pub fn recent(&self, count: usize) -> Vec<PathBuf> {
        let tracked = lock(&self.inner);
        tracked.recent[tracked.recent.len().saturating_sub(count)..].to_vec()
    }

    /// Remembers `fingerprint` as what the agent last saw of the file keyed `file`
    /// (`content_key`), dropping the oldest fingerprint when full.
    pub(crate) fn remember(&self, file: &Path, fingerprint: Fingerprint) {
        let mut tracked = lock(&self.inner);
        let stamp = tracked.next_stamp;
        tracked.next_stamp += 1;
        if let Some((old_stamp, _)) = tracked.seen.insert(file.to_path_buf(), (stamp, fingerprint)) {
            tracked.by_age.remove(&old_stamp);
        }
        tracked.by_age.insert(stamp, file.to_path_buf());
        while tracked.seen.len() > Self::SEEN_CAPACITY {
            let Some((_, oldest)) = tracked.by_age.pop_first() else { break };
            tracked.seen.remove(&oldest);
        }
    }

    /// Forgets what was seen of `file` (it could not be read again).
    pub(crate) fn forget(&self, file: &Path) {
        let mut tracked = lock(&self.inner);
        if let Some((stamp, _)) = tracked.seen.remove(file) {
            tracked.by_age.remove(&stamp);
        }
    }

    /// What the agent last saw of `file`; `None` when this conversation never read or wrote it
    /// (or forgot it).
    pub(crate) fn last_seen(&self, file: &Path) -> Option<Fingerprint> {
        lock(&self.inner).seen.get(file).map(|(_, fingerprint)| *fingerprint)
    }
}

#[cfg(test)]
#[path = "reads_tests.rs"]
mod tests;
