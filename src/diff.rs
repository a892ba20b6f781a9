//! A line diff (Myers' O(ND) algorithm) and its unified-diff rendering: the approval preview of
//! an edit, and the change an applied edit made (`agent/freshness.rs`), shown by both front ends.
//!
//! Invariant: pure and bounded. Common leading and trailing lines are trimmed first (an edit
//! touches a few lines of a big file), and the search for a shortest edit script gives up after
//! `MAX_EDIT_DISTANCE` steps, falling back to "delete the rest, insert the rest": the result is
//! always a correct diff, only sometimes not the shortest. Lines keep their `\n`, so a missing
//! final newline is a change and is shown with git's `\ No newline at end of file` marker. This
//! module does not colour or neutralise; the front ends do.

use std::fmt::Write;

/// Beyond this many inserted plus deleted lines the diff is no longer minimised (memory grows
/// with its square).
const MAX_EDIT_DISTANCE: usize = 1000;

/// What happens to one line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    Equal,
    Delete,
    Insert,
}

/// One step of the edit script. `old` and `new` are 0-based line positions: for `Equal` both
/// lines, for `Delete` the old line and the new position it sits at, for `Insert` the new line
/// and the old position it goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Step {
    pub op: Op,
    pub old: usize,
    pub new: usize,
}

/// The unified diff from `old` to `new` with `context` lines around each change, headed by
/// `--- old_label` / `+++ new_label`; empty when the texts are equal.
pub(crate) fn unified_diff(old: &str, new: &str, old_label: &str, new_label: &str, context: usize) -> String {
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    let steps = diff_lines(&old_lines, &new_lines);
    let mut out = String::new();
    let hunks = plan_hunks(&steps, context);
    if hunks.is_empty() {
        return out;
    }
    let _ = writeln!(out, "--- {old_label}\n+++ {new_label}");
    for hunk in hunks {
        let steps = &steps[hunk];
        let old_count = steps.iter().filter(|step| step.op != Op::Insert).count();
        let new_count = steps.iter().filter(|step| step.op != Op::Delete).count();
        let (old_at, new_at) = steps.first().map_or((0, 0), |step| (step.old, step.new));
        let _ = writeln!(out, "@@ -{} +{} @@", range(old_at, old_count), range(new_at, new_count));
        for step in steps {
            let (sign, line) = match step.op {
                Op::Equal => (' ', old_lines[step.old]),
                Op::Delete => ('-', old_lines[step.old]),
                Op::Insert => ('+', new_lines[step.new]),
            };
            out.push(sign);
            out.push_str(line);
            if !line.ends_with('\n') {
                out.push_str("\n\\ No newline at end of file\n");
            }
        }
    }
    out
}

/// A shortest (or, past `MAX_EDIT_DISTANCE`, a correct) edit script turning `old` into `new`.
fn diff_lines(old: &[&str], new: &[&str]) -> Vec<Step> {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..].iter().rev().zip(new[prefix..].iter().rev()).take_while(|(a, b)| a == b).count();
    let (old_mid, new_mid) = (&old[prefix..old.len() - suffix], &new[prefix..new.len() - suffix]);
    let mut steps: Vec<Step> = (0..prefix).map(|line| Step { op: Op::Equal, old: line, new: line }).collect();
    let middle = myers(old_mid, new_mid).unwrap_or_else(|| replace_all(old_mid.len(), new_mid.len()));
    steps.extend(middle.into_iter().map(|step| Step { old: step.old + prefix, new: step.new + prefix, ..step }));
    let (old_end, new_end) = (old.len() - suffix, new.len() - suffix);
    steps.extend((0..suffix).map(|offset| Step { op: Op::Equal, old: old_end + offset, new: new_end + offset }));
    steps
}

/// Myers' greedy forward search, keeping the frontier of every step to walk the path back.
/// `None` when the edit distance exceeds `MAX_EDIT_DISTANCE`.
fn myers(old: &[&str], new: &[&str]) -> Option<Vec<Step>> {
    let (n, m) = (old.len() as isize, new.len() as isize);
    let limit = (old.len() + new.len()).min(MAX_EDIT_DISTANCE) as isize;
    let offset = limit + 1;
    // frontier[k + offset]: the furthest x reached on diagonal k = x - y.
    let mut frontier = vec![0isize; (2 * limit + 3) as usize];
    // trace[d]: the frontier before step d, diagonals -(d+1)..=(d+1).
    let mut trace: Vec<Vec<isize>> = Vec::new();
    for d in 0..=limit {
        trace.push(frontier[(offset - d - 1) as usize..=(offset + d + 1) as usize].to_vec());
        for k in (-d..=d).step_by(2) {
            let at = |k: isize| frontier[(k + offset) as usize];
            let mut x = if k == -d || (k != d && at(k - 1) < at(k + 1)) { at(k + 1) } else { at(k - 1) + 1 };
            let mut y = x - k;
            while x < n && y < m && old[x as usize] == new[y as usize] {
                x += 1;
                y += 1;
            }
            frontier[(k + offset) as usize] = x;
            if x >= n && y >= m {
                return Some(backtrack(&trace, n, m));
            }
        }
    }
    None
}

/// Walks the recorded frontiers from the end back to the start, emitting steps in reverse.
fn backtrack(trace: &[Vec<isize>], n: isize, m: isize) -> Vec<Step> {
    let mut steps = Vec::new();
    let (mut x, mut y) = (n, m);
    for (d, frontier) in trace.iter().enumerate().rev() {
        let d = d as isize;
        let at = |k: isize| frontier[(k + d + 1) as usize];
        let k = x - y;
        let previous_k = if k == -d || (k != d && at(k - 1) < at(k + 1)) { k + 1 } else { k - 1 };
        let previous_x = at(previous_k);
        let previous_y = previous_x - previous_k;
        while x > previous_x && y > previous_y {
            x -= 1;
            y -= 1;
            steps.push(Step { op: Op::Equal, old: x as usize, new: y as usize });
        }
        if d > 0 {
            if x == previous_x {
                steps.push(Step { op: Op::Insert, old: x as usize, new: previous_y as usize });
            } else {
                steps.push(Step { op: Op::Delete, old: previous_x as usize, new: y as usize });
            }
        }
        (x, y) = (previous_x, previous_y);
    }
    steps.reverse();
    steps
}

/// The fallback script: every old line deleted, then every new line inserted.
fn replace_all(old_len: usize, new_len: usize) -> Vec<Step> {
    let deletes = (0..old_len).map(|line| Step { op: Op::Delete, old: line, new: 0 });
    deletes.chain((0..new_len).map(|line| Step { op: Op::Insert, old: old_len, new: line })).collect()
}

/// Groups the steps into hunks: each change with `context` equal lines around it, hunks whose
/// contexts touch or overlap merged (as `diff -u` does).
fn plan_hunks(steps: &[Step], context: usize) -> Vec<std::ops::Range<usize>> {
    let mut hunks: Vec<std::ops::Range<usize>> = Vec::new();
    for (index, _) in steps.iter().enumerate().filter(|(_, step)| step.op != Op::Equal) {
        let start = index.saturating_sub(context);
        let end = (index + context + 1).min(steps.len());
        match hunks.last_mut() {
            Some(last) if start <= last.end => last.end = end,
            Some(_) | None => hunks.push(start..end),
        }
    }
    hunks
}

/// A hunk header range: `start,count`, 1-based; `start` alone for one line; for zero lines the
/// line before the (empty) range, as diff and git write it.
fn range(at: usize, count: usize) -> String {
    match count {
        0 => format!("{at},0"),
        1 => format!("{}", at + 1),
        _ => format!("{},{count}", at + 1),
    }
}

#[cfg(test)]
#[path = "diff_tests.rs"]
mod tests;
