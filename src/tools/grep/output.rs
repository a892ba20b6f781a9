//! Output of the grep tool: the entries of files and count modes, and the lines (with context)
//! of content mode.
//!
//! Invariant: nothing is appended once the output is full (`head_limit` lines or
//! `MAX_OUTPUT_BYTES`), a group separator `--` is never the last line, and the closing note counts
//! exactly what was left out. Content mode reads again only the files whose lines are shown.

use super::{
    FileResult, MAX_LINE_CHARS, MAX_OUTPUT_BYTES, Mode, ReadBuffer, ReadOutcome, Search, for_each_matching_line,
};
use crate::text::truncate_chars;
use crate::tools::display_path;
use std::path::Path;

/// An output line of content mode, before the path is put in front.
enum ContentLine {
    /// `--` between groups of lines that are not adjacent.
    Separator,
    Line {
        number: usize,
        is_match: bool,
        text: String,
    },
}

/// Content mode for one file: its matching lines with their context, at most `max_lines` of them.
fn content_lines(search: &Search, bytes: &[u8], max_lines: usize) -> Vec<ContentLine> {
    let mut matched: Vec<(usize, usize, usize)> = Vec::new(); // (line number, start, end)
    let mut line_number = 1;
    let mut counted_to = 0;
    for_each_matching_line(&search.regex, bytes, |start, end| {
        line_number += bytes[counted_to..start].iter().filter(|&&byte| byte == b'\n').count();
        counted_to = start;
        matched.push((line_number, start, end));
        matched.len() < max_lines // no later match could be shown
    });
    let mut out = Vec::new();
    if search.before == 0 && search.after == 0 {
        for &(number, start, end) in &matched {
            out.push(ContentLine::Line { number, is_match: true, text: line_text(&bytes[start..end]) });
        }
        return out;
    }
    // With context, index every line of this (matching) file; files without matches never get here.
    let mut starts = vec![0];
    starts.extend(bytes.iter().enumerate().filter(|&(_, &byte)| byte == b'\n').map(|(index, _)| index + 1));
    if starts.last() == Some(&bytes.len()) && !bytes.is_empty() {
        starts.pop();
    }
    let line_bytes = |index: usize| {
        let end = starts.get(index + 1).map_or(bytes.len(), |&next| next - 1);
        let line = &bytes[starts[index]..end];
        line.strip_suffix(b"\n").unwrap_or(line) // the last line's own newline
    };
    let indexes: Vec<usize> = matched.iter().map(|&(number, _, _)| number - 1).collect();
    let mut next_to_print = 0;
    for (position, &index) in indexes.iter().enumerate() {
        let from = index.saturating_sub(search.before).max(next_to_print);
        if position > 0 && from > next_to_print {
            out.push(ContentLine::Separator);
        }
        let next_match = indexes.get(position + 1).copied().unwrap_or(usize::MAX);
        let to = (index + search.after).min(starts.len() - 1).min(next_match.saturating_sub(1)).max(index);
        for line in from..=to {
            out.push(ContentLine::Line {
                number: line + 1,
                is_match: line == index,
                text: line_text(line_bytes(line)),
            });
        }
        next_to_print = to + 1;
        if out.len() >= max_lines {
            break;
        }
    }
    out
}

/// A line for display: `\r` dropped, invalid UTF-8 replaced, cut at `MAX_LINE_CHARS`.
fn line_text(bytes: &[u8]) -> String {
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    let text = String::from_utf8_lossy(bytes);
    truncate_chars(&text, MAX_LINE_CHARS, " [... line cut]")
}

/// Files and count modes: one entry per file, within `limit` entries and `MAX_OUTPUT_BYTES`.
pub(super) fn render_entries(results: &[FileResult], search: &Search, root: &Path, limit: usize) -> String {
    let mut sink = Sink { out: String::new(), shown: 0, limit, full: false };
    let mut shown_files = 0;
    for result in results {
        let shown_path = display_path(root, &result.path);
        let entry = if search.mode == Mode::Count { format!("{shown_path}:{}", result.count) } else { shown_path };
        if !sink.add(&entry) {
            break;
        }
        shown_files += 1;
    }
    let mut out = sink.out;
    if shown_files < results.len() {
        out.push_str(&format!(
            "... {} more files not shown (limit {limit} lines / {MAX_OUTPUT_BYTES} bytes); narrow the pattern, \
             path or glob, or raise head_limit\n",
            results.len() - shown_files
        ));
    }
    if search.mode == Mode::Count && !results.is_empty() {
        let total: usize = results.iter().map(|result| result.count).sum();
        out.push_str(&format!("{total} matching lines in {} files\n", results.len()));
    }
    out
}

/// Content mode, second phase: the files are known and sorted, so only those whose lines fit in
/// the output are read again and formatted. Memory and time stay proportional to the output, not
/// to the number of matches in the tree.
pub(super) fn render_content(results: &[FileResult], search: &Search, root: &Path, limit: usize) -> String {
    let mut sink = Sink { out: String::new(), shown: 0, limit, full: false };
    let mut buf = ReadBuffer::default();
    let mut shown_matches = 0;
    let with_context = search.before > 0 || search.after > 0;
    for (index, result) in results.iter().enumerate() {
        if sink.full {
            break;
        }
        if !matches!(buf.read_file(&result.path), ReadOutcome::Read) {
            continue; // vanished since the first phase; its lines count as not shown
        }
        let shown_path = display_path(root, &result.path);
        // Files are separated like groups when there is context; never end the output on `--`.
        let mut separator_due = index > 0 && with_context;
        for line in content_lines(search, buf.contents(), limit - sink.shown) {
            let (text, is_match) = match line {
                ContentLine::Separator => {
                    separator_due = true;
                    continue;
                }
                ContentLine::Line { number, is_match: true, text } => (format!("{shown_path}:{number}:{text}"), true),
                ContentLine::Line { number, is_match: false, text } => (format!("{shown_path}-{number}-{text}"), false),
            };
            if std::mem::take(&mut separator_due) && !sink.add_pair("--", &text) {
                break;
            }
            if !sink.add(&text) {
                break;
            }
            shown_matches += usize::from(is_match);
        }
    }
    let total: usize = results.iter().map(|result| result.count).sum();
    let mut out = sink.out;
    if shown_matches < total {
        out.push_str(&format!(
            "... {} more matching lines not shown (limit {limit} lines / {MAX_OUTPUT_BYTES} bytes); narrow the \
             pattern, path or glob, or raise head_limit\n",
            total - shown_matches
        ));
    }
    out
}

/// The output being assembled: once a line does not fit (count or bytes), it is full for good.
struct Sink {
    out: String,
    shown: usize,
    limit: usize,
    full: bool,
}

impl Sink {
    /// Appends `line` if it fits; false once the output is full.
    fn add(&mut self, line: &str) -> bool {
        if self.full || self.shown >= self.limit || self.out.len() + line.len() >= MAX_OUTPUT_BYTES {
            self.full = true;
            return false;
        }
        self.out.push_str(line);
        self.out.push('\n');
        self.shown += 1;
        true
    }

    /// Appends `first` only if `second` fits after it (the caller adds `second` next).
    fn add_pair(&mut self, first: &str, second: &str) -> bool {
        let fits = self.shown + 2 <= self.limit && self.out.len() + first.len() + second.len() + 1 < MAX_OUTPUT_BYTES;
        if !fits {
            self.full = true;
            return false;
        }
        self.add(first)
    }
}
