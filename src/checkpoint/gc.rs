//! Collecting garbage: objects that no session's log refers to any more (their sessions were
//! pruned), and the stat-cache entries that pointed at them.
//!
//! Invariant: only objects (files named by a digest in the objects' fan-out directories) are ever
//! removed, and only when no log under `.mewcode/sessions/` names them and they are older than
//! `MIN_AGE`: another mewcode may have stored one a moment ago for a snapshot it has not
//! written yet. A log is read for digests as text (every `"hash":"…"`), so even a damaged line
//! keeps what it names. Nothing is removed through a link: a `.mewcode`, `checkpoints` or
//! `objects` that is one is an error.

use super::cache::StatCache;
use super::log::LOG_NAME;
use super::store::{Digest, OBJECTS_REL, Store};
use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, SystemTime};

/// Objects younger than this are kept, referred to or not.
const MIN_AGE: Duration = Duration::from_secs(3600);

/// Removes the unreferenced objects of `project` older than `MIN_AGE` and returns how many went.
pub(crate) fn collect_garbage(project: &Path) -> Result<usize, String> {
    let objects = project.join(OBJECTS_REL);
    crate::fsx::check_dirs_beneath(project, Path::new(OBJECTS_REL))
        .map_err(|err| format!("cannot collect checkpoint garbage: {err}"))?;
    if !objects.is_dir() {
        return Ok(0);
    }
    let referenced = referenced_digests(&crate::session::sessions_dir(project))?;
    let now = SystemTime::now();
    let mut removed = 0;
    let fans = std::fs::read_dir(&objects).map_err(|err| format!("cannot read {}: {err}", objects.display()))?;
    for fan in fans.flatten() {
        let fan_name = fan.file_name().to_string_lossy().into_owned();
        if fan_name.len() != 2 || !fan.file_type().is_ok_and(|kind| kind.is_dir()) {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(fan.path()) else { continue };
        for entry in entries.flatten() {
            let name = format!("{fan_name}{}", entry.file_name().to_string_lossy());
            let Some(digest) = Digest::parse_hex(&name) else { continue };
            let Ok(meta) = entry.metadata() else { continue };
            let age = meta.modified().ok().and_then(|modified| now.duration_since(modified).ok());
            if is_garbage(referenced.contains(&digest), age) && std::fs::remove_file(entry.path()).is_ok() {
                removed += 1;
            }
        }
    }
    if removed > 0 {
        let store = Store::new(project);
        let mut cache = StatCache::load(project);
        cache.retain(|digest| store.object_path(digest).exists());
        cache.save(project)?;
    }
    Ok(removed)
}

/// An object goes when nothing refers to it and it is older than `MIN_AGE` (`age` unknown: kept).
fn is_garbage(referenced: bool, age: Option<Duration>) -> bool {
    !referenced && age.is_some_and(|age| age >= MIN_AGE)
}

/// Every digest the sessions' logs name. An unreadable log is an error: what it names is unknown.
fn referenced_digests(sessions: &Path) -> Result<HashSet<Digest>, String> {
    let mut digests = HashSet::new();
    let unknown =
        |err: std::io::Error| format!("cannot list {} ({err}); no checkpoint object was removed", sessions.display());
    let entries = match std::fs::read_dir(sessions) {
        Ok(entries) => entries,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(digests),
        Err(err) => return Err(unknown(err)),
    };
    for entry in entries {
        let log = entry.map_err(unknown)?.path().join(LOG_NAME);
        match std::fs::read(&log) {
            Ok(bytes) => digests.extend(digests_in(&bytes)),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => return Err(format!("cannot read {} ({err}); no checkpoint object was removed", log.display())),
        }
    }
    Ok(digests)
}

/// The digests named in a log's text: the 64 hex digits after every `"hash":"`.
fn digests_in(bytes: &[u8]) -> impl Iterator<Item = Digest> + '_ {
    const MARK: &[u8] = b"\"hash\":\"";
    let mut rest = bytes;
    std::iter::from_fn(move || {
        loop {
            let at = rest.windows(MARK.len()).position(|window| window == MARK)?;
            let start = at + MARK.len();
            let candidate = rest.get(start..start + 64);
            rest = &rest[start..];
            if let Some(digest) = candidate.and_then(|hex| std::str::from_utf8(hex).ok()).and_then(Digest::parse_hex) {
                return Some(digest);
            }
        }
    })
}

#[cfg(test)]
#[path = "gc_tests.rs"]
mod tests;
