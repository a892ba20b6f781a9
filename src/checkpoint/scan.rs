//! Walking the covered roots into a `Tree`: every file under the project and each extra root,
//! honouring `.gitignore` (the walk of grep and glob, `tools::walk`), with each file's content
//! hashed and stored, unless the stat cache vouches for it.
//!
//! Invariant: a scan never follows a link (a link is recorded as its target) and never enters
//! `.git/`, `.mewcode/` or a heavy directory (`HEAVY_DIRS`), ignored or not: gitignored files are
//! in no tree, so they are neither stored nor deleted by a restore. An unchanged file costs one
//! `lstat` (the stat cache); only changed ones are read. What a scan cannot record it says: a
//! file over `MAX_FILE_BYTES` or unreadable is `Unstored` (its size and mtime), an extra root
//! over `MAX_EXTRA_FILES` files is skipped whole, with a note.

use super::Coverage;
use super::cache::{Cached, Stat, StatCache};
use super::log::Entry;
use super::store::{Digest, MEWCODE_DIR, Store};
use super::timeline::Tree;
use crate::cancel::CancelToken;
use crate::tools::walk::{WalkEntry, WalkOptions, walk_with};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Files larger than this are not stored (a 5 MB binary is).
pub(crate) const MAX_FILE_BYTES: u64 = 16 << 20;
/// An extra root with more files than this is skipped (a writable `~` would be the whole home).
const MAX_EXTRA_FILES: usize = 20_000;

/// Directories never covered, ignored or not: installed dependencies, virtual environments and
/// caches that tools rebuild, often huge, never the user's work. Kept small on purpose; `target`
/// is pruned only when a `Cargo.toml` sits beside it (elsewhere it may be a source directory).
const HEAVY_DIRS: &[&str] =
    &["node_modules", ".venv", "venv", "__pycache__", ".tox", ".mypy_cache", ".pytest_cache", ".gradle", ".next"];

/// The covered roots, normalised: the project, and the extra roots outside it (canonical when
/// they exist), none inside another.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Roots {
    pub project: PathBuf,
    pub extra: Vec<PathBuf>,
    /// How many files an extra root may hold (`MAX_EXTRA_FILES`; tests lower it).
    pub extra_cap: usize,
}

impl Roots {
    pub(crate) fn new(coverage: &Coverage) -> Roots {
        // Restores open every directory from `/` refusing links, so the roots must be free of
        // them (the project should be canonical already; a root that does not exist yet is
        // only cleaned).
        let canonical = |root: &PathBuf| std::fs::canonicalize(root).unwrap_or_else(|_| crate::fsx::clean_path(root));
        let project = canonical(&coverage.project);
        let extra = plan_extra_roots(&project, &coverage.extra.iter().map(canonical).collect::<Vec<_>>());
        Roots { project, extra, extra_cap: MAX_EXTRA_FILES }
    }

    /// The path of `key`.
    pub(crate) fn path_of(&self, key: &str) -> PathBuf {
        if key.starts_with('/') { PathBuf::from(key) } else { self.project.join(key) }
    }

    /// The root `path` lies under, its path relative to that root, and its key; None outside
    /// every root (or for a root itself, or a name that is not UTF-8).
    pub(crate) fn locate(&self, path: &Path) -> Option<(&Path, PathBuf, String)> {
        let path = if path.is_relative() { self.project.join(path) } else { path.to_path_buf() };
        if let Ok(rel) = path.strip_prefix(&self.project) {
            let key = rel.to_str()?.to_string();
            return (!key.is_empty()).then(|| (self.project.as_path(), rel.to_path_buf(), key));
        }
        let root = self.extra.iter().find(|root| path.starts_with(root) && path != **root)?;
        let rel = path.strip_prefix(root).ok()?.to_path_buf();
        Some((root.as_path(), rel, path.to_str()?.to_string()))
    }
}

/// The extra roots to walk: those outside the project and not inside another extra root, sorted.
fn plan_extra_roots(project: &Path, extra: &[PathBuf]) -> Vec<PathBuf> {
    let mut kept: Vec<PathBuf> = Vec::new();
    for root in extra {
        if root.starts_with(project) || kept.iter().any(|other| root.starts_with(other)) {
            continue;
        }
        kept.retain(|other| !other.starts_with(root));
        kept.push(root.clone());
    }
    kept.sort();
    kept
}

/// True for a directory a scan never enters: `.mewcode`, `.git` (the walk skips it already) and
/// `HEAVY_DIRS` by name; `target` when `cargo_beside` says a `Cargo.toml` is its sibling.
fn is_pruned(name: &str, cargo_beside: impl FnOnce() -> bool) -> bool {
    name == MEWCODE_DIR || name == ".git" || HEAVY_DIRS.contains(&name) || (name == "target" && cargo_beside())
}

/// What a scan found.
#[derive(Debug, Default)]
pub(crate) struct Scanned {
    pub tree: Tree,
    /// New stat-cache entries (files hashed by this scan).
    pub cached: Vec<(String, Cached)>,
    /// Extra roots skipped by this scan (too many files).
    pub skipped: Vec<String>,
    /// What the user should know about what is not covered.
    pub notes: Vec<String>,
}

/// Scans the roots (but the extra roots in `skipped`), reading only files the stat cache does not
/// vouch for and storing their content. An error when a file's content cannot be stored: a
/// checkpoint that cannot be restored is no checkpoint.
pub(crate) fn scan(
    roots: &Roots,
    skipped: &BTreeSet<String>,
    store: &Store,
    cache: &StatCache,
    cancel: &CancelToken,
) -> Result<Scanned, String> {
    store.prepare()?;
    let mut scanned = Scanned::default();
    let project_found = walk_root(&roots.project, &[], None, cancel, &|found, entry| {
        // The walk's `rel` is the key, unless the name is not UTF-8 (then `rel` is lossy).
        let key = entry.path.to_str().map(|_| entry.rel.as_str());
        record_file(found, entry, key, store, cache);
    });
    merge(&mut scanned, project_found, &roots.project)?;
    for root in &roots.extra {
        let Some(root_key) = root.to_str() else {
            scanned.notes.push(format!("{}: a path that is not UTF-8: checkpoints do not cover it", root.display()));
            continue;
        };
        if skipped.contains(root_key) {
            continue;
        }
        let count = AtomicUsize::new(0);
        let over_cap = CancelToken::new();
        let found = walk_root(root, std::slice::from_ref(&roots.project), Some(&over_cap), cancel, &|found, entry| {
            if count.fetch_add(1, Ordering::Relaxed) >= roots.extra_cap {
                over_cap.cancel();
                return;
            }
            record_file(found, entry, entry.path.to_str(), store, cache);
        });
        if count.load(Ordering::Relaxed) > roots.extra_cap {
            scanned.skipped.push(root_key.to_string());
            scanned.notes.push(format!(
                "{root_key} holds more than {} files: checkpoints do not cover it in this session",
                roots.extra_cap
            ));
            continue;
        }
        merge(&mut scanned, found, root)?;
        scanned.tree.extra.push(root_key.to_string());
    }
    Ok(scanned)
}

/// What one walker thread found.
#[derive(Default)]
struct Found {
    entries: Vec<(String, Entry)>,
    cached: Vec<(String, Cached)>,
    errors: Vec<String>,
    not_utf8: usize,
}

type Visit<'a> = dyn Fn(&mut Found, &WalkEntry) + Sync + 'a;

/// Walks `root` (every link as a link, pruned directories and `inner` roots left out); `limit`
/// stops the walk early as `cancel` does.
fn walk_root(
    root: &Path,
    inner: &[PathBuf],
    limit: Option<&CancelToken>,
    cancel: &CancelToken,
    visit: &Visit<'_>,
) -> Vec<Found> {
    let prune = pruner(inner);
    let options = WalkOptions { start: root, ignore_root: root, all_links: true, metadata: true, prune: Some(&prune) };
    let stop = limit.cloned().unwrap_or_default();
    walk_with(&options, &stop, Found::default, |found, entry| {
        if cancel.is_cancelled() {
            stop.cancel();
            return;
        }
        visit(found, entry);
    })
}

/// The directories a scan does not enter: `is_pruned`, and the `inner` roots (covered on their
/// own).
fn pruner(inner: &[PathBuf]) -> impl Fn(&Path, &str) -> bool + Sync + '_ {
    move |path: &Path, name: &str| {
        let cargo_beside = || std::fs::symlink_metadata(path.with_file_name("Cargo.toml")).is_ok();
        is_pruned(name, cargo_beside) || inner.iter().any(|inner| inner == path)
    }
}

fn merge(scanned: &mut Scanned, found: Vec<Found>, root: &Path) -> Result<(), String> {
    let mut not_utf8 = 0;
    let mut entries = Vec::new();
    for part in found {
        if let Some(error) = part.errors.into_iter().next() {
            return Err(error);
        }
        entries.extend(part.entries);
        scanned.cached.extend(part.cached);
        not_utf8 += part.not_utf8;
    }
    // Collecting sorts once and builds the map in bulk, cheaper than one insert per file.
    let entries: BTreeMap<String, Entry> = entries.into_iter().collect();
    if scanned.tree.entries.is_empty() {
        scanned.tree.entries = entries;
    } else {
        scanned.tree.entries.extend(entries);
    }
    if not_utf8 > 0 {
        scanned.notes.push(format!(
            "{not_utf8} files under {} have names that are not UTF-8: checkpoints do not cover them",
            root.display()
        ));
    }
    Ok(())
}

/// Records one walked entry under `key` (None: a name that is not UTF-8).
fn record_file(found: &mut Found, entry: &WalkEntry, key: Option<&str>, store: &Store, cache: &StatCache) {
    let Some(key) = key else {
        found.not_utf8 += 1;
        return;
    };
    match read_entry(&entry.path, entry.metadata.as_ref(), key, store, cache) {
        Ok(Some((recorded, cached))) => {
            found.entries.push((key.to_string(), recorded));
            if let Some(cached) = cached {
                found.cached.push((key.to_string(), cached));
            }
        }
        // Gone since the directory was listed (or turned into a directory): not there now.
        Ok(None) => {}
        Err(error) => found.errors.push(error),
    }
}

/// The entry of the file at `path` (whose `lstat` is `listed` when the walk read it), hashed and
/// stored unless `cache` vouches for it, with the stat-cache entry of a file hashed here.
pub(crate) fn read_entry(
    path: &Path,
    listed: Option<&std::fs::Metadata>,
    key: &str,
    store: &Store,
    cache: &StatCache,
) -> Result<Option<(Entry, Option<Cached>)>, String> {
    let meta = match listed {
        Some(meta) => meta.clone(),
        None => match std::fs::symlink_metadata(path) {
            Ok(meta) => meta,
            Err(_) => return Ok(None),
        },
    };
    if meta.file_type().is_symlink() {
        let Ok(target) = std::fs::read_link(path) else { return Ok(None) };
        let Some(target) = target.to_str() else {
            return Ok(Some((unstored(&Stat::of(&meta)), None)));
        };
        return Ok(Some((Entry::Link { target: target.to_string() }, None)));
    }
    if !meta.file_type().is_file() {
        return Ok(None);
    }
    let stat = Stat::of(&meta);
    let mode = meta.permissions().mode() & 0o777;
    if stat.size > MAX_FILE_BYTES {
        return Ok(Some((unstored(&stat), None)));
    }
    if let Some(hash) = cache.lookup(key, &stat) {
        return Ok(Some((Entry::File { hash, mode, size: stat.size }, None)));
    }
    let Ok((bytes, stat)) = read_capped(path) else { return Ok(Some((unstored(&stat), None))) };
    let Some(bytes) = bytes else { return Ok(Some((unstored(&stat), None))) };
    let hash = Digest::of(&bytes);
    store.put(hash, &bytes)?;
    let cached = Cached { stat, digest: hash, hashed_at_ns: now_ns() };
    Ok(Some((Entry::File { hash, mode: stat.mode & 0o777, size: bytes.len() as u64 }, Some(cached))))
}

/// The content of a regular file (None: over the cap) and its `stat` as opened.
fn read_capped(path: &Path) -> std::io::Result<(Option<Vec<u8>>, Stat)> {
    let file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    if !meta.file_type().is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let stat = Stat::of(&meta);
    let mut bytes = Vec::with_capacity(usize::try_from(stat.size).unwrap_or(0).min(MAX_FILE_BYTES as usize));
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)?;
    let fits = bytes.len() as u64 <= MAX_FILE_BYTES;
    Ok((fits.then_some(bytes), stat))
}

fn unstored(stat: &Stat) -> Entry {
    Entry::Unstored { size: stat.size, mtime_ns: stat.mtime_ns }
}

/// Nanoseconds since 1970, now.
fn now_ns() -> i64 {
    let elapsed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    i64::try_from(elapsed.as_nanos()).unwrap_or(i64::MAX)
}

/// Walks the roots as a scan does, with one `lstat` per entry and nothing else: the floor a scan
/// is measured against (the benchmark). Returns how many entries it saw.
pub(crate) fn stat_walk(roots: &Roots) -> usize {
    let cancel = CancelToken::new();
    let prune = pruner(std::slice::from_ref(&roots.project));
    let mut total = 0;
    for root in std::iter::once(&roots.project).chain(&roots.extra) {
        let options =
            WalkOptions { start: root, ignore_root: root, all_links: true, metadata: true, prune: Some(&prune) };
        let counts =
            walk_with(&options, &cancel, || 0usize, |count, entry| *count += usize::from(entry.metadata.is_some()));
        total += counts.iter().sum::<usize>();
    }
    total
}

#[cfg(test)]
#[path = "scan_tests.rs"]
mod tests;
