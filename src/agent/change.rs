//! What a write or edit changed, described for the front ends: the unified diff of a text file
//! with its added and removed lines, or a one-line summary for a binary file or one too large to
//! diff.
//!
//! Invariant: pure and bounded. Only text of at most `TEXT_MAX_BYTES` on both sides is diffed
//! (the diff itself is bounded by `diff.rs`), and the diff kept is cut at `MAX_DIFF_BYTES`, so an
//! event never carries more than that whatever the file. The counts are those of the whole diff.
//! It reads nothing: `freshness.rs` loads the file before and after the call.

use super::event::FileChange;
use crate::diff::unified_diff;

/// The largest file (before or after the call) whose content is kept to be diffed.
pub(super) const TEXT_MAX_BYTES: usize = 1024 * 1024;
/// The largest diff an event carries.
const MAX_DIFF_BYTES: usize = 256 * 1024;
/// Lines of context around each change (as `diff -u` and the approval preview).
const CONTEXT_LINES: usize = 3;

/// A file on one side of a call, as far as describing the change goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Side<'a> {
    /// No file there (or not a regular file).
    Absent,
    /// Its whole content: text, or bytes that are not (a NUL byte, not UTF-8).
    Bytes(&'a [u8]),
    /// Larger than `TEXT_MAX_BYTES`: only its length is known.
    Large { len: u64 },
}

/// What the call changed from `before` to `after` in the file shown as `path`; `None` when no
/// file is there after it (nothing to show).
pub(super) fn describe_change(path: &str, before: Side, after: Side) -> Option<FileChange> {
    let created = before == Side::Absent;
    let change = |diff: String, summary: Option<String>| {
        let (lines_added, lines_removed) = count_changes(&diff);
        FileChange { path: path.to_string(), created, lines_added, lines_removed, diff: cap(diff), summary }
    };
    let old_text = match before {
        Side::Absent => Some(""),
        Side::Bytes(bytes) => as_text(bytes),
        Side::Large { .. } => None,
    };
    let new_text = match after {
        Side::Absent => return None,
        Side::Bytes(bytes) => as_text(bytes),
        Side::Large { .. } => None,
    };
    match (old_text, new_text) {
        (Some(old), Some(new)) => {
            let old_label = if created { "/dev/null".to_string() } else { format!("a/{path}") };
            Some(change(unified_diff(old, new, &old_label, &format!("b/{path}"), CONTEXT_LINES), None))
        }
        (Some(_) | None, _) => Some(change(String::new(), Some(summarize(before, after)))),
    }
}

/// `bytes` as text, when it is text: UTF-8 without a NUL byte.
fn as_text(bytes: &[u8]) -> Option<&str> {
    if bytes.contains(&0) { None } else { std::str::from_utf8(bytes).ok() }
}

/// The line that stands in for a diff: what kind of file, and its size before and after (there
/// is a file after).
fn summarize(before: Side, after: Side) -> String {
    let binary = |side: Side| matches!(side, Side::Bytes(bytes) if as_text(bytes).is_none());
    let kind = if binary(before) || binary(after) { "binary file" } else { "too large to diff" };
    let size = |side: Side| match side {
        Side::Absent => 0,
        Side::Bytes(bytes) => bytes.len() as u64,
        Side::Large { len } => len,
    };
    match before {
        Side::Absent => format!("{kind}: created, {}", human_bytes(size(after))),
        Side::Bytes(_) | Side::Large { .. } => {
            format!("{kind}: {} -> {}", human_bytes(size(before)), human_bytes(size(after)))
        }
    }
}

/// `812 B`, `4.0 KiB`, `5.2 MiB`, `1.1 GiB`.
fn human_bytes(len: u64) -> String {
    const UNITS: [&str; 3] = ["KiB", "MiB", "GiB"];
    if len < 1024 {
        return format!("{len} B");
    }
    let mut value = len as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// The lines a unified diff adds and removes: its `+` and `-` lines after the two header lines.
fn count_changes(diff: &str) -> (usize, usize) {
    let body = diff.lines().skip(2);
    body.fold((0, 0), |(added, removed), line| match line.as_bytes().first() {
        Some(b'+') => (added + 1, removed),
        Some(b'-') => (added, removed + 1),
        Some(_) | None => (added, removed),
    })
}

/// `diff` cut at the last whole line within `MAX_DIFF_BYTES`, with a line saying how many more
/// there were.
fn cap(diff: String) -> String {
    if diff.len() <= MAX_DIFF_BYTES {
        return diff;
    }
    // A newline is always a character boundary; the cut is one.
    let cut =
        diff.as_bytes()[..MAX_DIFF_BYTES].iter().rposition(|&byte| byte == b'\n').map_or(0, |newline| newline + 1);
    let more = diff[cut..].lines().count();
    let mut kept = diff[..cut].to_string();
    kept.push_str(&format!("... diff cut at {} KiB: {more} more lines\n", MAX_DIFF_BYTES / 1024));
    kept
}

#[cfg(test)]
#[path = "change_tests.rs"]
mod tests;
