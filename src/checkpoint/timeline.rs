//! Reading the record log back: the state of the covered files at any snapshot (by replaying the
//! deltas), what each turn and each rewind changed, which snapshot a restore goes back to, and
//! which changes were made by hand (by someone other than mewcode).
//!
//! Invariant: pure, over the records as loaded. Keys under an extra root are compared only
//! between states that both cover that root, so a root that was added, dropped or skipped never
//! reads as every one of its files created or deleted. Who changed what: between a `Before` and
//! the following snapshot, the turn did; between a `PreRewind` and the following snapshot, the
//! rewind did; between an `After` or a `PostRewind` and the next snapshot (or the files now),
//! someone else did.

use super::log::{Entry, MomentName, Record, Snapshot};
use super::{Moment, Point};
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

/// The state of the covered files: key → entry (a key is a path relative to the project, or
/// absolute under an extra root), and the extra roots covered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Tree {
    pub entries: BTreeMap<String, Entry>,
    pub extra: Vec<String>,
}

impl Tree {
    /// Applies a snapshot's delta.
    pub(crate) fn apply(&mut self, snapshot: &Snapshot) {
        for (key, entry) in &snapshot.entries {
            match entry {
                Some(entry) => self.entries.insert(key.clone(), entry.clone()),
                None => self.entries.remove(key),
            };
        }
        self.extra = snapshot.extra.clone();
    }

    /// The delta that turns `self` into `now`: every key whose entry differs, with its entry now
    /// (None: gone).
    pub(crate) fn delta(&self, now: &Tree) -> BTreeMap<String, Option<Entry>> {
        // One merge of the two sorted maps: a turn's checkpoint compares every covered file.
        let mut delta = BTreeMap::new();
        let (mut old, mut new) = (self.entries.iter().peekable(), now.entries.iter().peekable());
        loop {
            let order = match (old.peek(), new.peek()) {
                (None, None) => break,
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (Some((old_key, _)), Some((new_key, _))) => old_key.cmp(new_key),
            };
            match order {
                Ordering::Less => {
                    if let Some((key, _)) = old.next() {
                        delta.insert(key.clone(), None);
                    }
                }
                Ordering::Greater => {
                    if let Some((key, entry)) = new.next() {
                        delta.insert(key.clone(), Some(entry.clone()));
                    }
                }
                Ordering::Equal => {
                    let (Some((_, before)), Some((key, entry))) = (old.next(), new.next()) else { break };
                    if before != entry {
                        delta.insert(key.clone(), Some(entry.clone()));
                    }
                }
            }
        }
        delta
    }
}

/// True when `key` can be compared between states covering the extra roots `a` and `b`: a
/// project key always; a key under an extra root when both cover that root.
pub(crate) fn comparable(key: &str, a: &[String], b: &[String]) -> bool {
    if !key.starts_with('/') {
        return true;
    }
    let under =
        |root: &String| key == root || key.strip_prefix(root.as_str()).is_some_and(|rest| rest.starts_with('/'));
    a.iter().any(under) && b.iter().any(under)
}

/// The comparable keys whose entries differ between `a` and `b`.
pub(crate) fn differing(a: &Tree, b: &Tree) -> BTreeSet<String> {
    a.delta(b).into_keys().filter(|key| comparable(key, &a.extra, &b.extra)).collect()
}

/// The snapshots of a log, in order, for the questions a restore asks.
pub(crate) struct Timeline<'a> {
    records: &'a [Record],
    /// Each snapshot with its index in `records`.
    snapshots: Vec<(usize, &'a Snapshot)>,
}

impl<'a> Timeline<'a> {
    pub(crate) fn new(records: &'a [Record]) -> Timeline<'a> {
        let snapshots = records
            .iter()
            .enumerate()
            .filter_map(|(position, record)| match record {
                Record::Snapshot(snapshot) => Some((position, snapshot)),
                Record::Header { .. } | Record::Turn { .. } => None,
            })
            .collect();
        Timeline { records, snapshots }
    }

    /// How many snapshots there are.
    pub(crate) fn len(&self) -> usize {
        self.snapshots.len()
    }

    /// Snapshot `index` (0-based among snapshots).
    fn snapshot(&self, index: usize) -> &'a Snapshot {
        self.snapshots[index].1
    }

    /// The moment of snapshot `index`.
    pub(crate) fn moment(&self, index: usize) -> Moment {
        self.snapshot(index).moment.into()
    }

    /// The highest turn recorded (0 when none).
    pub(crate) fn last_turn(&self) -> u32 {
        self.records
            .iter()
            .map(|record| match record {
                Record::Turn { turn, .. } => *turn,
                Record::Snapshot(snapshot) => snapshot.turn,
                Record::Header { .. } => 0,
            })
            .max()
            .unwrap_or(0)
    }

    /// Every extra root skipped in this log.
    pub(crate) fn skipped(&self) -> BTreeSet<String> {
        (0..self.len()).flat_map(|index| self.snapshot(index).skipped.iter().cloned()).collect()
    }

    /// The state at snapshot `index`.
    pub(crate) fn tree_at(&self, index: usize) -> Tree {
        let mut tree = Tree::default();
        for step in 0..=index {
            tree.apply(self.snapshot(step));
        }
        tree
    }

    /// The state at the last snapshot (empty when there is none).
    pub(crate) fn last_tree(&self) -> Tree {
        match self.len() {
            0 => Tree::default(),
            count => self.tree_at(count - 1),
        }
    }

    /// The entry of `key` at snapshot `index`.
    fn value_at(&self, key: &str, index: usize) -> Option<&'a Entry> {
        (0..=index).rev().find_map(|step| self.snapshot(step).entries.get(key)).and_then(Option::as_ref)
    }

    /// The comparable keys whose entries differ between snapshots `from` and `to` (`from < to`).
    pub(crate) fn changed(&self, from: usize, to: usize) -> BTreeSet<String> {
        let (from_extra, to_extra) = (&self.snapshot(from).extra, &self.snapshot(to).extra);
        let touched: BTreeSet<&String> = (from + 1..=to).flat_map(|step| self.snapshot(step).entries.keys()).collect();
        touched
            .into_iter()
            .filter(|key| comparable(key, from_extra, to_extra) && self.value_at(key, from) != self.value_at(key, to))
            .cloned()
            .collect()
    }

    /// The snapshot a restore goes back to. `rewind` false: the `Before` of `turn`, or, for a
    /// turn that recorded none, the first snapshot recorded after it began (None: nothing was
    /// recorded since, nothing to restore). `rewind` true: the `PreRewind` of the latest rewind
    /// that went to `turn` (undoing it).
    pub(crate) fn target(&self, turn: u32, rewind: bool) -> Result<Option<usize>, String> {
        if rewind {
            let found = (0..self.len()).rev().find(|&index| {
                let snapshot = self.snapshot(index);
                snapshot.turn == turn && snapshot.moment == MomentName::PreRewind
            });
            return found.map(Some).ok_or_else(|| format!("no rewind to turn {turn} to undo in this session"));
        }
        let before = (0..self.len()).find(|&index| {
            let snapshot = self.snapshot(index);
            snapshot.turn == turn && snapshot.moment == MomentName::Before
        });
        if before.is_some() {
            return Ok(before);
        }
        let began = self
            .records
            .iter()
            .position(|record| matches!(record, Record::Turn { turn: number, .. } if *number == turn));
        let Some(began) = began else {
            return Err(format!("there is no turn {turn} in this session (see the list of turns)"));
        };
        Ok(self.snapshots.iter().position(|&(position, _)| position > began))
    }

    /// The keys changed by someone else at or after snapshot `from`: across every gap that starts
    /// at an `After` or a `PostRewind`, the last one ending at `now` (`last` is the state at the
    /// last snapshot).
    pub(crate) fn hand_changed(&self, from: usize, last: &Tree, now: &Tree) -> BTreeSet<String> {
        let mut keys = BTreeSet::new();
        for index in from..self.len() {
            if !ends_mewcode_change(self.moment(index)) {
                continue;
            }
            if index + 1 < self.len() {
                keys.extend(self.changed(index, index + 1));
            } else {
                keys.extend(differing(last, now));
            }
        }
        keys
    }

    /// The timeline, newest first: every turn, and every rewind.
    pub(crate) fn points(&self) -> Vec<Point> {
        let mut points = Vec::new();
        for (position, record) in self.records.iter().enumerate().rev() {
            match record {
                Record::Turn { turn, prompt, history_len, ts } => points.push(Point {
                    turn: *turn,
                    rewind: false,
                    prompt: prompt.clone(),
                    ts: *ts,
                    changed: self.turn_changes(*turn),
                    history_len: Some(*history_len),
                }),
                Record::Snapshot(snapshot) if snapshot.moment == MomentName::PreRewind => {
                    let index = self.snapshots.iter().position(|&(at, _)| at == position).unwrap_or(0);
                    points.push(Point {
                        turn: snapshot.turn,
                        rewind: true,
                        prompt: match snapshot.undo {
                            true => format!("undo of the rewind to turn {}", snapshot.turn),
                            false => format!("rewind to turn {}", snapshot.turn),
                        },
                        ts: snapshot.ts,
                        changed: self.next_changes(index, Some(MomentName::PostRewind)),
                        history_len: None,
                    });
                }
                Record::Snapshot(_) | Record::Header { .. } => {}
            }
        }
        points
    }

    /// What turn `turn` changed: from its `Before` to its `After` (or, when it has none, such
    /// as a turn cut short by a kill, to the next snapshot).
    fn turn_changes(&self, turn: u32) -> Vec<String> {
        let before = (0..self.len()).find(|&index| {
            let snapshot = self.snapshot(index);
            snapshot.turn == turn && snapshot.moment == MomentName::Before
        });
        let Some(before) = before else { return Vec::new() };
        let after = (before + 1..self.len()).find(|&index| {
            let snapshot = self.snapshot(index);
            snapshot.turn == turn && snapshot.moment == MomentName::After
        });
        match after {
            Some(after) => self.changed(before, after).into_iter().collect(),
            None => self.next_changes(before, None),
        }
    }

    /// The changes from snapshot `index` to the next one, when there is a next one (of moment
    /// `required`, when given).
    fn next_changes(&self, index: usize, required: Option<MomentName>) -> Vec<String> {
        let next = index + 1;
        if next >= self.len() || required.is_some_and(|moment| self.snapshot(next).moment != moment) {
            return Vec::new();
        }
        self.changed(index, next).into_iter().collect()
    }
}

/// True when the gap after a snapshot of this moment is someone else's: mewcode's own changes
/// (a turn's, a rewind's) end there.
fn ends_mewcode_change(moment: Moment) -> bool {
    match moment {
        Moment::After | Moment::PostRewind => true,
        Moment::Before | Moment::PreRewind => false,
    }
}

#[cfg(test)]
#[path = "timeline_tests.rs"]
mod tests;
