//! How a change a write or edit made is shown under its tool's line, and how a diff line is
//! coloured and wrapped (the approval prompt's preview uses the same rows).
//!
//! Invariant: the diff is file content, model- or user-made, so every line goes through
//! `text::reveal` (control, invisible and bidi characters spelled out) before it is painted: it
//! can never drive the terminal. A change that ran without a question shows its diff (headers
//! dropped: the tool's line names the file), folded after `SHOWN_DIFF_LINES` lines with a count of
//! the rest; one the person approved at the prompt, where they saw the diff, shows `+N −M` only.

use super::render::{BOLD, CYAN, DIM, GREEN, RED, paint, wrap};
use crate::agent::FileChange;
use crate::glyphs::Glyphs;
use crate::text::reveal;

/// Diff lines shown under an applied change before the rest is folded into a count.
const SHOWN_DIFF_LINES: usize = 40;
/// Columns the change is indented by, under the tool's `⎿` line.
const INDENT: &str = "    ";

/// The rows that show `change` under its tool's line, each ending with a newline (empty when
/// there is nothing to show). `approved`: the person approved it at the prompt.
pub(super) fn render_applied(
    change: &FileChange,
    approved: bool,
    color: bool,
    glyphs: &Glyphs,
    width: usize,
) -> String {
    let inner = width.saturating_sub(INDENT.len());
    let mut rows: Vec<String> = Vec::new();
    if let Some(summary) = &change.summary {
        rows.push(paint(color, DIM, &wrap(&reveal(summary), inner, 2)));
    } else if approved {
        let added = paint(color, GREEN, &format!("+{}", change.lines_added));
        let removed = paint(color, RED, &format!("{}{}", glyphs.minus, change.lines_removed));
        rows.push(format!("{added} {removed}"));
    } else if change.diff.is_empty() {
        rows.push(paint(color, DIM, "(no change: the file already had this content)"));
    } else {
        // The `---` / `+++` headers name the file the tool's line already names.
        let body: Vec<&str> = change.diff.lines().skip(2).collect();
        for line in body.iter().take(SHOWN_DIFF_LINES) {
            rows.push(diff_row(line, color, inner));
        }
        if body.len() > SHOWN_DIFF_LINES {
            let more = body.len() - SHOWN_DIFF_LINES;
            rows.push(paint(color, DIM, &format!("{} {more} more lines", glyphs.ellipsis)));
        }
    }
    let mut text = String::new();
    for row in rows {
        for line in row.split('\n') {
            text.push_str(INDENT);
            text.push_str(line);
            text.push('\n');
        }
    }
    text
}

/// One line of a unified diff as it is shown: revealed, wrapped to `width` (a `+`, `-` or ` `
/// line repeats its marker on every row it takes), and coloured — headers bold, additions green,
/// removals red, hunk headers cyan. A CRLF file's `\r` is a line ending, not content to show.
pub(super) fn diff_row(line: &str, color: bool, width: usize) -> String {
    let code = match line.as_bytes().first() {
        _ if line.starts_with("+++") || line.starts_with("---") => BOLD,
        Some(b'+') => GREEN,
        Some(b'-') => RED,
        Some(b'@') => CYAN,
        Some(_) | None => "",
    };
    let shown = wrap_diff_line(&reveal(line.strip_suffix('\r').unwrap_or(line)), width);
    if code.is_empty() { shown } else { paint(color, code, &shown) }
}

/// One diff line word-wrapped to `width`: a `+`, `-` or ` ` line's marker starts every row it
/// takes; headers and notes get an indented continuation.
fn wrap_diff_line(line: &str, width: usize) -> String {
    let marker = match line.chars().next() {
        Some(marker @ ('+' | '-' | ' ')) if !line.starts_with("+++") && !line.starts_with("---") => marker,
        Some(_) | None => return wrap(line, width, 4),
    };
    let body = &line[marker.len_utf8()..];
    wrap(body, width.saturating_sub(1), 0)
        .split('\n')
        .map(|row| format!("{marker}{row}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
#[path = "applied_tests.rs"]
mod tests;
