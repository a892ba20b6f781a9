//! Keeping one session's checkpoints: the records loaded and appended, the state at the last
//! snapshot, the turn under way, the stat cache and its warm-up thread. `Checkpoints` (mod.rs)
//! holds one `Keeper` behind a mutex and only forwards to it.
//!
//! Invariant: `last` is always the state the log's snapshots replay to, so each new snapshot's
//! delta is computed against exactly what a later load will rebuild; a snapshot is appended only
//! after every object its delta names is in the store. The warm-up thread shares nothing with the
//! keeper: it hands its stat cache over when joined, before any scan of the keeper.

use super::cache::StatCache;
use super::log::{Entry, LogWriter, Record, Snapshot, load_log};
use super::restore::{apply_plan, plan_changes};
use super::scan::{Roots, Scanned, read_entry, scan};
use super::store::Store;
use super::timeline::{Timeline, Tree, differing};
use super::{Coverage, FileChange, Moment, Plan, Point, Report};
use crate::cancel::CancelToken;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

/// A turn's prompt is kept to its first line, at most this many characters.
const PROMPT_CHARS: usize = 200;
/// The stat cache is saved when a turn ends with at least this many files hashed since the last
/// save (and when the session ends): saving a large repository's cache costs more than hashing a
/// few files again in the next session.
const SAVE_AFTER_HASHED: usize = 256;

/// What the warm-up thread hands over.
struct Warmed {
    cache: StatCache,
    /// Files it hashed that it did not save (it was stopped first).
    unsaved: usize,
    skipped: Vec<String>,
    notes: Vec<String>,
}

/// The turn under way.
#[derive(Clone, Copy, Debug)]
struct Current {
    turn: u32,
    /// Its `Before` is recorded.
    before: bool,
}

pub(crate) struct Keeper {
    roots: Roots,
    store: Store,
    cache: StatCache,
    /// Files hashed since the cache was last saved (or loaded).
    unsaved: usize,
    warm: Option<JoinHandle<Warmed>>,
    cancel: CancelToken,
    records: Vec<Record>,
    /// The state at the last snapshot of the log (empty before the first).
    last: Tree,
    writer: LogWriter,
    current: Option<Current>,
    /// Extra roots skipped in this session (too many files): never walked again.
    skipped: BTreeSet<String>,
    notes: Vec<String>,
    /// Why this session's checkpoints cannot be used (a log of a newer format, say).
    broken: Option<String>,
}

impl Keeper {
    /// Loads the session's log and starts the warm-up (hashing and storing every covered file
    /// the stat cache does not vouch for, so that the first snapshot only waits for what is left).
    pub(crate) fn open(coverage: &Coverage, session_id: &str, cancel: &CancelToken) -> Keeper {
        let roots = Roots::new(coverage);
        let store = Store::new(&roots.project);
        let (loaded, broken) = match load_log(&roots.project, session_id) {
            Ok(loaded) => (loaded, None),
            Err(error) => (Default::default(), Some(error)),
        };
        let writer = LogWriter::new(&roots.project, session_id, &loaded);
        let timeline = Timeline::new(&loaded.records);
        let (last, skipped) = (timeline.last_tree(), timeline.skipped());
        let warm = match broken {
            None => spawn_warm(&roots, &store, &skipped, cancel),
            Some(_) => None,
        };
        Keeper {
            roots,
            store,
            cache: StatCache::default(),
            unsaved: 0,
            warm,
            cancel: cancel.clone(),
            records: loaded.records,
            last,
            writer,
            current: None,
            skipped,
            notes: Vec::new(),
            broken,
        }
    }

    pub(crate) fn begin_turn(&mut self, prompt: &str, history_len: usize) -> u32 {
        // A turn left open (its end never reported) ends here, so its changes stay its own.
        let _ = self.end_turn();
        let turn = Timeline::new(&self.records).last_turn() + 1;
        let prompt: String = prompt.lines().next().unwrap_or("").chars().take(PROMPT_CHARS).collect();
        let record = Record::Turn { turn, prompt, history_len, ts: crate::session::now_s() };
        if self.broken.is_none() {
            // A turn that could not be logged still runs; the snapshot's write says what failed.
            let _ = self.writer.append(&record);
        }
        self.records.push(record);
        self.current = Some(Current { turn, before: false });
        turn
    }

    pub(crate) fn before_change(&mut self) -> Result<(), String> {
        let Some(current) = self.current else { return Ok(()) };
        if current.before {
            return Ok(());
        }
        self.snapshot(Moment::Before, current.turn)?;
        self.current = Some(Current { turn: current.turn, before: true });
        Ok(())
    }

    pub(crate) fn end_turn(&mut self) -> Result<(), String> {
        let Some(current) = self.current.take() else { return Ok(()) };
        if !current.before {
            return Ok(());
        }
        self.snapshot(Moment::After, current.turn)?;
        if self.unsaved >= SAVE_AFTER_HASHED {
            self.save_cache();
        }
        Ok(())
    }

    pub(crate) fn points(&self) -> Vec<Point> {
        Timeline::new(&self.records).points()
    }

    pub(crate) fn notes(&self) -> Vec<String> {
        self.notes.clone()
    }

    pub(crate) fn plan(&mut self, turn: u32, rewind: bool) -> Result<Plan, String> {
        self.usable()?;
        let empty = Plan {
            turn,
            rewind,
            restore: Vec::new(),
            remove: Vec::new(),
            hand_changed: Vec::new(),
            not_covered: Vec::new(),
            unreached: Vec::new(),
        };
        let Some(index) = Timeline::new(&self.records).target(turn, rewind)? else { return Ok(empty) };
        let now = self.scan_now()?.tree;
        let timeline = Timeline::new(&self.records);
        let target = timeline.tree_at(index);
        let uncovered =
            |key: &str| std::fs::symlink_metadata(self.roots.path_of(key)).is_ok_and(|meta| !meta.file_type().is_dir());
        let changes = plan_changes(&target, &now, uncovered);
        let hand = timeline.hand_changed(index, &self.last, &now);
        let paths = |keys: &[String]| -> Vec<PathBuf> { keys.iter().map(|key| self.roots.path_of(key)).collect() };
        let touched = changes.restore.iter().chain(&changes.remove);
        let hand_changed: Vec<String> =
            touched.filter(|key| hand.contains(*key)).cloned().collect::<BTreeSet<_>>().into_iter().collect();
        Ok(Plan {
            restore: paths(&changes.restore),
            remove: paths(&changes.remove),
            hand_changed: paths(&hand_changed),
            not_covered: paths(&changes.not_covered),
            unreached: target.extra.iter().filter(|root| !now.extra.contains(root)).map(PathBuf::from).collect(),
            ..empty
        })
    }

    pub(crate) fn apply(&mut self, plan: &Plan, keep: &[PathBuf]) -> Result<Report, String> {
        self.usable()?;
        let timeline = Timeline::new(&self.records);
        let target = match timeline.target(plan.turn, plan.rewind)? {
            Some(index) => timeline.tree_at(index),
            None if plan.restore.is_empty() && plan.remove.is_empty() => return Ok(Report::default()),
            None => return Err(format!("nothing was recorded for turn {} to restore; plan again", plan.turn)),
        };
        self.record_snapshot(Moment::PreRewind, plan.turn, plan.rewind)?;
        let mut report = apply_plan(&self.roots, &self.store, &target, plan, keep);
        if let Err(error) = self.record_snapshot(Moment::PostRewind, plan.turn, plan.rewind) {
            let error = format!(
                "the files were restored, but their state after the rewind could not be recorded ({error}): undoing \
                 it would not tell later edits from the rewind's"
            );
            report.failed.push((self.roots.project.clone(), error));
        }
        Ok(report)
    }

    pub(crate) fn session_changes(&mut self) -> Result<Vec<FileChange>, String> {
        self.usable()?;
        if Timeline::new(&self.records).len() == 0 {
            return Ok(Vec::new());
        }
        let first = Timeline::new(&self.records).tree_at(0);
        let now = self.scan_now()?.tree;
        let mut changes = Vec::new();
        for key in differing(&first, &now) {
            let path = self.roots.path_of(&key);
            let (before, after) = (first.entries.get(&key), now.entries.get(&key));
            let unstored = |entry: Option<&Entry>| matches!(entry, Some(Entry::Unstored { .. }));
            if unstored(before) || unstored(after) {
                continue;
            }
            let before = before.map(|entry| self.content(entry, None)).transpose()?;
            let after = after.map(|entry| self.content(entry, Some(&path))).transpose()?;
            changes.push(FileChange { path, before, after });
        }
        Ok(changes)
    }

    /// The bytes of an entry (a link: its target): from the file at `path` when given, else from
    /// the store.
    fn content(&self, entry: &Entry, path: Option<&Path>) -> Result<Vec<u8>, String> {
        match (entry, path) {
            (Entry::File { .. }, Some(path)) => {
                std::fs::read(path).map_err(|err| format!("cannot read {}: {err}", path.display()))
            }
            (Entry::File { hash, .. }, None) => self.store.get(*hash),
            (Entry::Link { target }, _) => Ok(target.clone().into_bytes()),
            (Entry::Unstored { .. }, _) => Err("not stored".into()),
        }
    }

    fn usable(&self) -> Result<(), String> {
        match &self.broken {
            Some(error) => Err(error.clone()),
            None => Ok(()),
        }
    }

    /// Records a snapshot of `moment` for `turn` (`undo`: of a rewind that undoes one).
    fn snapshot(&mut self, moment: Moment, turn: u32) -> Result<(), String> {
        self.record_snapshot(moment, turn, false)
    }

    fn record_snapshot(&mut self, moment: Moment, turn: u32, undo: bool) -> Result<(), String> {
        self.usable()?;
        let scanned = self.scan_now()?;
        let mut tree = scanned.tree;
        let mut entries = self.last.delta(&tree);
        self.ensure_objects(&mut entries, &mut tree)?;
        let snapshot = Snapshot {
            turn,
            moment: moment.into(),
            ts: crate::session::now_s(),
            extra: tree.extra.clone(),
            skipped: self.skipped.iter().cloned().collect(),
            undo,
            entries,
        };
        let record = Record::Snapshot(snapshot);
        self.writer.append(&record)?;
        self.records.push(record);
        self.last = tree;
        Ok(())
    }

    /// Makes sure every object the delta names is stored: the stat cache vouches for content,
    /// not for the store (another mewcode's garbage collection may have removed an object the
    /// cache still names). A file whose object is missing is read and stored again.
    fn ensure_objects(&self, entries: &mut BTreeMap<String, Option<Entry>>, tree: &mut Tree) -> Result<(), String> {
        for (key, entry) in entries.iter_mut() {
            let Some(Entry::File { hash, size, .. }) = entry else { continue };
            if self.store.has(*hash, *size) {
                continue;
            }
            let path = self.roots.path_of(key);
            let fresh = read_entry(&path, None, key, &self.store, &StatCache::default())?.map(|(fresh, _)| fresh);
            match &fresh {
                Some(fresh) => tree.entries.insert(key.clone(), fresh.clone()),
                None => tree.entries.remove(key),
            };
            *entry = fresh;
        }
        entries.retain(|key, entry| self.last.entries.get(key) != entry.as_ref());
        Ok(())
    }

    /// Scans the covered files now (after the warm-up), keeping what the scan learnt.
    fn scan_now(&mut self) -> Result<Scanned, String> {
        self.join_warm();
        let scanned = scan(&self.roots, &self.skipped, &self.store, &self.cache, &self.cancel)?;
        for (key, cached) in &scanned.cached {
            self.cache.insert(key.clone(), *cached);
        }
        self.unsaved += scanned.cached.len();
        self.take_notes(&scanned.skipped, &scanned.notes);
        Ok(scanned)
    }

    fn take_notes(&mut self, skipped: &[String], notes: &[String]) {
        self.skipped.extend(skipped.iter().cloned());
        for note in notes {
            if !self.notes.contains(note) {
                self.notes.push(note.clone());
            }
        }
    }

    /// Waits for the warm-up and takes its stat cache.
    fn join_warm(&mut self) {
        let Some(handle) = self.warm.take() else { return };
        if let Ok(warmed) = handle.join() {
            let mut cache = warmed.cache;
            cache.merge(std::mem::take(&mut self.cache));
            self.cache = cache;
            self.unsaved += warmed.unsaved;
            self.take_notes(&warmed.skipped, &warmed.notes);
        }
    }

    /// Saves the stat cache. Only a cache: the next session hashes again what a failed save
    /// loses.
    fn save_cache(&mut self) {
        let _ = self.cache.save(&self.roots.project);
        self.unsaved = 0;
    }

    /// Stops the warm-up (the session ends), waits for it and saves what was learnt since.
    pub(crate) fn stop(&mut self) {
        self.cancel.cancel();
        self.join_warm();
        if self.unsaved > 0 {
            self.save_cache();
        }
    }
}

/// Starts the warm-up on a thread named `checkpoint-warm`; the keeper joins it.
fn spawn_warm(
    roots: &Roots,
    store: &Store,
    skipped: &BTreeSet<String>,
    cancel: &CancelToken,
) -> Option<JoinHandle<Warmed>> {
    let (roots, store, skipped, cancel) = (roots.clone(), store.clone(), skipped.clone(), cancel.clone());
    let warm = move || {
        let mut cache = StatCache::load(&roots.project);
        let Ok(scanned) = scan(&roots, &skipped, &store, &cache, &cancel) else {
            return Warmed { cache, unsaved: 0, skipped: Vec::new(), notes: Vec::new() };
        };
        let mut unsaved = scanned.cached.len();
        for (key, cached) in scanned.cached {
            cache.insert(key, cached);
        }
        // Saved here, in the background, unless the session is already ending (then its
        // keeper saves what this learnt).
        if unsaved > 0 && !cancel.is_cancelled() && cache.save(&roots.project).is_ok() {
            unsaved = 0;
        }
        Warmed { cache, unsaved, skipped: scanned.skipped, notes: scanned.notes }
    };
    std::thread::Builder::new().name("checkpoint-warm".into()).spawn(warm).ok()
}

#[cfg(test)]
#[path = "keeper_tests.rs"]
mod tests;
