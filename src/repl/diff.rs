//! A line diff (Myers' O(ND) algorithm) and its unified-diff rendering, for approval previews.
//!
//! Invariant: pure and bounded. Common leading and trailing lines are trimmed first (an edit
//! touches a few lines of a big file), and the search for a shortest edit script gives up after
//! `MAX_EDIT_DISTANCE` steps, falling back to "delete the rest, insert the rest": the result is
//! always a correct diff, only sometimes not the shortest. Lines keep their `\n`, so a missing
//! final newline is a change and is shown with git's `\ No newline at end of file` marker. This
//! module does not colour or neutralise; the approval renderer does.

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
mod tests {
    use super::*;

    fn check(old: &str, new: &str, expected: &str) {
        let diff = unified_diff(old, new, "a/f", "b/f", 3);
        assert_eq!(diff, expected, "\n--- got:\n{diff}");
        // The script must rebuild `new` from `old`.
        let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
        let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
        let rebuilt: String = diff_lines(&old_lines, &new_lines)
            .iter()
            .filter(|step| step.op != Op::Delete)
            .map(|step| match step.op {
                Op::Equal => old_lines[step.old],
                Op::Insert | Op::Delete => new_lines[step.new],
            })
            .collect();
        assert_eq!(rebuilt, new);
    }

    #[test]
    fn equal_texts_have_no_diff() {
        check("a\nb\n", "a\nb\n", "");
        check("", "", "");
    }

    #[test]
    fn insertion_in_the_middle_with_context() {
        check(
            "1\n2\n3\n4\n5\n6\n7\n8\n",
            "1\n2\n3\n4\nnew\n5\n6\n7\n8\n",
            "--- a/f\n+++ b/f\n@@ -2,6 +2,7 @@\n 2\n 3\n 4\n+new\n 5\n 6\n 7\n",
        );
    }

    #[test]
    fn deletion_at_the_start_and_the_end() {
        check("x\na\nb\n", "a\nb\n", "--- a/f\n+++ b/f\n@@ -1,3 +1,2 @@\n-x\n a\n b\n");
        check("a\nb\nx\n", "a\nb\n", "--- a/f\n+++ b/f\n@@ -1,3 +1,2 @@\n a\n b\n-x\n");
    }

    #[test]
    fn replacement_shows_delete_then_insert() {
        check("a\nold\nb\n", "a\nnew\nb\n", "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-old\n+new\n b\n");
    }

    #[test]
    fn a_moved_line_is_a_delete_and_an_insert() {
        check("move\na\nb\nc\n", "a\nb\nc\nmove\n", "--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n-move\n a\n b\n c\n+move\n");
    }

    #[test]
    fn empty_files_on_either_side() {
        check("", "a\nb\n", "--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+a\n+b\n");
        check("a\n", "", "--- a/f\n+++ b/f\n@@ -1 +0,0 @@\n-a\n");
    }

    #[test]
    fn missing_final_newline_is_marked() {
        check("a\nb", "a\nb\n", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n");
        check("a\n", "a\nb", "--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n a\n+b\n\\ No newline at end of file\n");
    }

    #[test]
    fn distant_changes_make_separate_hunks_and_close_ones_merge() {
        let old: String = (1..=20).map(|n| format!("{n}\n")).collect();
        let far = old.replacen("2\n", "two\n", 1).replacen("19\n", "nineteen\n", 1);
        let diff = unified_diff(&old, &far, "a", "b", 3);
        assert_eq!(diff.matches("@@ -").count(), 2, "{diff}");
        assert!(diff.contains("@@ -1,5 +1,5 @@") && diff.contains("@@ -16,5 +16,5 @@"), "{diff}");
        let near = old.replacen("5\n", "five\n", 1).replacen("11\n", "eleven\n", 1);
        let diff = unified_diff(&old, &near, "a", "b", 3);
        assert_eq!(diff.matches("@@ -").count(), 1, "{diff}");
        assert!(diff.contains("@@ -2,13 +2,13 @@"), "{diff}");
    }

    #[test]
    fn the_script_is_shortest_on_interleaved_changes() {
        let old = ["a", "b", "c", "a", "b", "b", "a"];
        let new = ["c", "b", "a", "b", "a", "c"];
        let changes = diff_lines(&old, &new).iter().filter(|step| step.op != Op::Equal).count();
        assert_eq!(changes, 5, "Myers' paper example has edit distance 5");
    }

    #[test]
    fn huge_rewrites_fall_back_to_a_correct_replace_all() {
        let old: String = (0..3000).map(|n| format!("old {n}\n")).collect();
        let new: String = (0..3000).map(|n| format!("new {n}\n")).collect();
        let diff = unified_diff(&old, &new, "a", "b", 3);
        assert!(diff.starts_with("--- a\n+++ b\n@@ -1,3000 +1,3000 @@\n-old 0\n"), "{}", &diff[..80]);
        assert_eq!(diff.lines().filter(|line| line.starts_with('+') && !line.starts_with("+++")).count(), 3000);
    }
}
