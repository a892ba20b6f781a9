//! Restoring: what a restore would do (`plan_changes`, pure, over the target state and the state
//! now) and doing it (`apply_plan`).
//!
//! Invariant: a restore only touches what the scans cover, beneath a covered root, never through
//! a link: files are put back with `fsx::put_beneath` (created directories included) and removed
//! with `fsx::remove_beneath`, which refuse a link anywhere on the way. A file mewcode could not
//! store (too large, unreadable) is never written nor removed, at the target or now: its content
//! could not be brought back by undoing the rewind. One failure does not stop the others: each is
//! reported by path.

use super::Plan;
use super::Report;
use super::log::Entry;
use super::scan::Roots;
use super::store::Store;
use super::timeline::{Tree, comparable};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// What to do with one key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Action {
    /// The same at the target and now.
    Keep,
    /// Written back as it was at the target.
    Restore,
    /// Created since the target: removed.
    Remove,
    /// Changed, but its content at the target or now was not stored.
    NotCovered,
}

/// The action for a key whose entry is `target` at the target and `now` now.
pub(crate) fn decide(target: Option<&Entry>, now: Option<&Entry>) -> Action {
    if target == now {
        return Action::Keep;
    }
    let unstored = |entry: Option<&Entry>| matches!(entry, Some(Entry::Unstored { .. }));
    if unstored(target) || unstored(now) {
        return Action::NotCovered;
    }
    if target.is_some() { Action::Restore } else { Action::Remove }
}

/// The keys of a plan, sorted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Changes {
    pub restore: Vec<String>,
    pub remove: Vec<String>,
    pub not_covered: Vec<String>,
}

/// What restoring `target` over `now` does, key by key (only keys comparable between the two).
/// `uncovered(key)` tells whether something that is not a directory sits at a key the scan did
/// not list now (a file ignored since, say): such a key is left alone, not overwritten.
pub(crate) fn plan_changes(target: &Tree, now: &Tree, uncovered: impl Fn(&str) -> bool) -> Changes {
    let keys: BTreeSet<&String> = target.entries.keys().chain(now.entries.keys()).collect();
    let mut changes = Changes::default();
    for key in keys {
        if !comparable(key, &target.extra, &now.extra) {
            continue;
        }
        let (at_target, at_now) = (target.entries.get(key), now.entries.get(key));
        match decide(at_target, at_now) {
            Action::Keep => {}
            Action::Restore if at_now.is_none() && uncovered(key) => {}
            Action::Restore => changes.restore.push(key.clone()),
            Action::Remove => changes.remove.push(key.clone()),
            Action::NotCovered => changes.not_covered.push(key.clone()),
        }
    }
    changes
}

/// Applies `plan` (minus `keep`) towards `target`: removals first, deepest first, then the
/// directories they left empty that hold nothing at the target, then the writes.
pub(crate) fn apply_plan(roots: &Roots, store: &Store, target: &Tree, plan: &Plan, keep: &[PathBuf]) -> Report {
    let keep: BTreeSet<PathBuf> = keep.iter().map(|path| absolute(roots, path)).collect();
    let mut report = Report::default();
    let mut removals: Vec<&PathBuf> = Vec::new();
    for path in &plan.remove {
        if keep.contains(path) { report.kept.push(path.clone()) } else { removals.push(path) }
    }
    removals.sort_by_key(|path| std::cmp::Reverse(path.components().count()));
    let mut emptied = BTreeSet::new();
    for path in removals {
        match remove(roots, path) {
            Ok(()) => {
                report.removed.push(path.clone());
                emptied.extend(path.ancestors().skip(1).map(Path::to_path_buf));
            }
            Err(error) => report.failed.push((path.clone(), error)),
        }
    }
    remove_emptied(roots, target, emptied);
    for path in &plan.restore {
        if keep.contains(path) {
            report.kept.push(path.clone());
            continue;
        }
        match write_back(roots, store, target, path) {
            Ok(()) => report.restored.push(path.clone()),
            Err(error) => report.failed.push((path.clone(), error)),
        }
    }
    report.kept.sort();
    report
}

/// `path` made absolute (relative paths are the project's).
fn absolute(roots: &Roots, path: &Path) -> PathBuf {
    if path.is_relative() { roots.project.join(path) } else { path.to_path_buf() }
}

fn remove(roots: &Roots, path: &Path) -> Result<(), String> {
    let (root, rel, _) = roots.locate(path).ok_or_else(|| outside(path))?;
    crate::fsx::remove_beneath(root, &rel).map_err(|err| err.to_string())
}

/// Removes, deepest first, the directories in `emptied` that lie strictly beneath a root and
/// hold nothing at the target; one still holding anything (an ignored file, say) stays.
fn remove_emptied(roots: &Roots, target: &Tree, emptied: BTreeSet<PathBuf>) {
    let mut dirs: Vec<PathBuf> = emptied.into_iter().collect();
    dirs.sort_by_key(|dir| std::cmp::Reverse(dir.components().count()));
    for dir in dirs {
        let Some((root, rel, key)) = roots.locate(&dir) else { continue };
        let prefix = format!("{key}/");
        let holds_target =
            target.entries.range(prefix.clone()..).next().is_some_and(|(next, _)| next.starts_with(&prefix));
        if !holds_target {
            let _ = crate::fsx::remove_empty_dir_beneath(root, &rel);
        }
    }
}

/// Puts `path` back as the target recorded it.
fn write_back(roots: &Roots, store: &Store, target: &Tree, path: &Path) -> Result<(), String> {
    let (root, rel, key) = roots.locate(path).ok_or_else(|| outside(path))?;
    let put = |content| crate::fsx::put_beneath(root, &rel, content, true).map_err(|err| err.to_string());
    match target.entries.get(&key) {
        Some(Entry::File { hash, mode, .. }) => {
            let bytes = store.get(*hash)?;
            put(crate::fsx::Content::File { bytes: &bytes, mode: *mode })
        }
        Some(Entry::Link { target }) => put(crate::fsx::Content::Link { target: Path::new(target) }),
        Some(Entry::Unstored { .. }) | None => Err("its content at that point was not recorded".into()),
    }
}

fn outside(path: &Path) -> String {
    format!("{} is outside the paths checkpoints cover", path.display())
}

#[cfg(test)]
#[path = "restore_tests.rs"]
mod tests;
