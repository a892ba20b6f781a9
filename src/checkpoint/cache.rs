//! The stat cache: for each covered file, the `stat` it had when it was hashed and the hash, so a
//! file whose `stat` still matches is not read again (unchanged files cost a stat). Kept in
//! memory by a session and saved to `<project>/.mewcode/checkpoints/stat-cache`, so the next
//! session does not hash the repository again.
//!
//! Invariant: a cached hash is used only when size, mtime, ctime, inode and mode all match and
//! the file was hashed at least `RACY_NS` after its mtime. A file written again within the same
//! timestamp tick as its hashing can keep all of its `stat` (the "racy git" problem), so an entry
//! hashed that soon after its mtime is hashed again at the next scan, until it is hashed late
//! enough to be trusted. The saved file is only a cache: a missing, broken or foreign one is an
//! empty cache (the files are hashed again), and it is replaced whole (temporary file, rename).

use super::store::{Digest, STORE_REL};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// An entry hashed less than this after its mtime is hashed again at the next scan.
const RACY_NS: i64 = 2_000_000_000;
/// The cache file, relative to the project.
const CACHE_NAME: &str = "stat-cache";
/// The first line of the file: its format.
const HEADER: &str = "mewcode-stat-cache 1";

/// What a file's `stat` says about its content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stat {
    pub size: u64,
    pub mtime_ns: i64,
    pub ctime_ns: i64,
    pub ino: u64,
    pub mode: u32,
}

impl Stat {
    pub(crate) fn of(meta: &std::fs::Metadata) -> Stat {
        Stat {
            size: meta.size(),
            mtime_ns: meta.mtime().saturating_mul(1_000_000_000).saturating_add(meta.mtime_nsec()),
            ctime_ns: meta.ctime().saturating_mul(1_000_000_000).saturating_add(meta.ctime_nsec()),
            ino: meta.ino(),
            mode: meta.mode(),
        }
    }
}

/// One file's cache entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Cached {
    pub stat: Stat,
    pub digest: Digest,
    /// When the content was hashed (ns since 1970).
    pub hashed_at_ns: i64,
}

/// The cache: a key (as in a snapshot) → its entry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct StatCache {
    entries: HashMap<String, Cached, BuildHasherDefault<Fnv>>,
}

/// FNV-1a: the cache is looked up once per covered file per scan, with keys that are our own
/// paths (no adversary choosing collisions worth a DoS-resistant hash), and std's SipHash costs
/// a visible share of a scan.
#[derive(Clone, Copy, Debug)]
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

impl StatCache {
    /// The hash of `key` when its cached entry can be trusted for `stat` (see the invariant).
    pub(crate) fn lookup(&self, key: &str, stat: &Stat) -> Option<Digest> {
        let cached = self.entries.get(key)?;
        let trusted = cached.stat == *stat && cached.hashed_at_ns - stat.mtime_ns >= RACY_NS;
        trusted.then_some(cached.digest)
    }

    pub(crate) fn insert(&mut self, key: String, cached: Cached) {
        self.entries.insert(key, cached);
    }

    /// Keeps the entries whose hash `keep` accepts (the garbage collector drops those whose
    /// object is gone).
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(Digest) -> bool) {
        self.entries.retain(|_, cached| keep(cached.digest));
    }

    /// Adds every entry of `other` (newer), replacing this cache's.
    pub(crate) fn merge(&mut self, other: StatCache) {
        self.entries.extend(other.entries);
    }

    /// The file's text: the header, then one line per entry (key last, so it may hold tabs).
    pub(crate) fn render(&self) -> String {
        use std::fmt::Write;
        let mut keys: Vec<&String> = self.entries.keys().filter(|key| !key.contains('\n')).collect();
        keys.sort();
        let mut text = String::with_capacity(keys.len() * 160 + HEADER.len() + 1);
        text.push_str(HEADER);
        text.push('\n');
        for key in keys {
            let cached = &self.entries[key];
            let Stat { size, mtime_ns, ctime_ns, ino, mode } = cached.stat;
            let (hash, hashed_at_ns) = (cached.digest.to_hex(), cached.hashed_at_ns);
            let _ = writeln!(text, "{size}\t{mtime_ns}\t{ctime_ns}\t{ino}\t{mode}\t{hash}\t{hashed_at_ns}\t{key}");
        }
        text
    }

    /// The cache a file's text holds: empty when the header is not ours; lines that do not
    /// parse are left out.
    pub(crate) fn parse(text: &str) -> StatCache {
        let mut lines = text.lines();
        if lines.next() != Some(HEADER) {
            return StatCache::default();
        }
        StatCache { entries: lines.filter_map(parse_line).collect() }
    }

    /// The project's saved cache (empty when there is none or it cannot be read).
    pub(crate) fn load(project: &Path) -> StatCache {
        let path = project.join(STORE_REL).join(CACHE_NAME);
        let is_file = std::fs::symlink_metadata(&path).is_ok_and(|meta| meta.file_type().is_file());
        match std::fs::read(&path) {
            Ok(bytes) if is_file => StatCache::parse(&String::from_utf8_lossy(&bytes)),
            _ => StatCache::default(),
        }
    }

    /// Saves the cache, replacing the saved one whole.
    pub(crate) fn save(&self, project: &Path) -> Result<(), String> {
        let rel = Path::new(STORE_REL).join(CACHE_NAME);
        let text = self.render();
        let content = crate::fsx::Content::File { bytes: text.as_bytes(), mode: 0o600 };
        crate::fsx::put_beneath(project, &rel, content, false)
            .map_err(|err| format!("cannot save the checkpoints' stat cache: {err}"))
    }
}

fn parse_line(line: &str) -> Option<(String, Cached)> {
    let fields: Vec<&str> = line.splitn(8, '\t').collect();
    let [size, mtime_ns, ctime_ns, ino, mode, hash, hashed_at_ns, key] = fields.as_slice() else {
        return None;
    };
    let stat = Stat {
        size: size.parse().ok()?,
        mtime_ns: mtime_ns.parse().ok()?,
        ctime_ns: ctime_ns.parse().ok()?,
        ino: ino.parse().ok()?,
        mode: mode.parse().ok()?,
    };
    let cached = Cached { stat, digest: Digest::parse_hex(hash)?, hashed_at_ns: hashed_at_ns.parse().ok()? };
    Some((key.to_string(), cached))
}

#[cfg(test)]
#[path = "cache_tests.rs"]
mod tests;
