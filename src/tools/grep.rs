//! `grep` [Grep]: searches file contents with a regular expression, in parallel.
//!
//! Invariant: the output is deterministic (files sorted by path, lines in file order) and bounded
//! (`head_limit` lines, default `DEFAULT_HEAD_LIMIT`, and `MAX_OUTPUT_BYTES`), with a note saying
//! what was left out. Memory is bounded too: each worker reuses one read buffer, and no file
//! keeps more result lines than can be shown.
//!
//! Speed: each file is read with one `read_to_end` into the worker's buffer and searched as a
//! whole with `regex::bytes` (literal prefilters apply); lines are only located around matches, so
//! a file without matches costs one read and one scan, with no per-line work or allocation.
//!
//! Semantics: `.gitignore` is honoured and `.git` skipped (see `walk`); files with a NUL byte in
//! their first 8 KB are binary and skipped silently, as ripgrep does; files over
//! `MAX_FILE_BYTES` are skipped with a note. `^` and `$` match at line boundaries (also before
//! `\r\n`). A match is reported on the line where it starts; a pattern that can match a newline
//! (`\s`, `[^x]`) may therefore match across lines, which ripgrep would refuse. The `glob` filter
//! matches the file name, or the path relative to the search directory when it contains `/`;
//! `{a,b}` alternatives are expanded.

use super::glob::expand_braces;
use super::walk::{WalkEntry, walk_parallel};
use super::{GREP, Tool, ToolContext, ToolOutput, display_path, lenient, parse_input};
use crate::fsx::resolve_path;
use glob::{MatchOptions, Pattern};
use regex::bytes::{Regex, RegexBuilder};
use serde::Deserialize;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Output lines (or files, or counts) shown when the model gives no `head_limit`.
pub const DEFAULT_HEAD_LIMIT: usize = 250;
/// Output size cap in bytes, whatever the limit.
pub const MAX_OUTPUT_BYTES: usize = 30_000;
/// Characters kept of one matching line (minified files have megabyte lines).
pub const MAX_LINE_CHARS: usize = 500;
/// Files larger than this are not searched (they would be read whole into memory).
pub const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;

/// The `grep` tool.
pub struct GrepTool;

#[derive(Deserialize)]
struct Input {
    pattern: String,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    glob: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_bool")]
    case_insensitive: Option<bool>,
    #[serde(default, rename = "-i", deserialize_with = "lenient::opt_bool")]
    dash_i: Option<bool>,
    #[serde(default)]
    output_mode: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    context: Option<u64>,
    #[serde(default, rename = "-C", deserialize_with = "lenient::opt_u64")]
    dash_c: Option<u64>,
    #[serde(default, rename = "-B", deserialize_with = "lenient::opt_u64")]
    dash_b: Option<u64>,
    #[serde(default, rename = "-A", deserialize_with = "lenient::opt_u64")]
    dash_a: Option<u64>,
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    head_limit: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Files,
    Content,
    Count,
}

/// Everything a worker needs to search one file, decided once per call.
struct Search {
    regex: Regex,
    mode: Mode,
    before: usize,
    after: usize,
    /// Result lines kept per file: more could never be shown.
    keep_lines: usize,
    filter: Vec<Pattern>,
    filter_on_path: bool,
}

impl Tool for GrepTool {
    fn name(&self) -> &str {
        GREP.name
    }

    fn rule_name(&self) -> &str {
        GREP.rule
    }

    fn description(&self) -> &str {
        "Searches file contents with a regular expression (Rust regex syntax) under a directory, \
         respecting .gitignore and skipping binary files. output_mode: \"files_with_matches\" \
         (default, file paths), \"content\" (matching lines as path:line:text, with optional \
         context lines), or \"count\" (path:count). Filter files with glob (e.g. \"*.rs\", \
         \"*.{ts,tsx}\"). Output is capped at head_limit lines (default 250)."
    }

    fn input_schema(&self) -> serde_json::Value {
        serde_json::json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "Regular expression to search for"},
                "path": {"type": "string", "description": "File or directory to search (default: the project root)"},
                "glob": {"type": "string", "description": "Only search files whose name (or relative path, if the glob has a /) matches, e.g. *.py"},
                "case_insensitive": {"type": "boolean", "description": "Ignore case (default false); \"-i\" is accepted too"},
                "output_mode": {"type": "string", "enum": ["files_with_matches", "content", "count"], "description": "What to show (default files_with_matches)"},
                "context": {"type": "integer", "minimum": 0, "description": "Lines of context before and after each match (content mode); \"-C\", \"-B\", \"-A\" are accepted too"},
                "head_limit": {"type": "integer", "minimum": 1, "description": "Show at most this many output lines/entries (default 250)"}
            },
            "required": ["pattern"]
        })
    }

    fn read_only(&self) -> bool {
        true
    }

    fn execute(&self, input_json: &str, ctx: &ToolContext) -> ToolOutput {
        let input: Input = match parse_input(GREP.name, input_json) {
            Ok(input) => input,
            Err(output) => return output,
        };
        let search = match plan_search(&input) {
            Ok(search) => search,
            Err(message) => return ToolOutput::error(message),
        };
        let start = resolve_path(&ctx.root, input.path.as_deref().unwrap_or("."));
        if !start.exists() {
            return ToolOutput::error(format!("path not found: {}", display_path(&ctx.root, &start)));
        }
        let states = walk_parallel(&start, &ctx.root, &ctx.cancel, Worker::default, |worker, entry| {
            worker.search_file(&search, entry)
        });
        if ctx.cancel.is_cancelled() {
            return ToolOutput::error("cancelled");
        }
        let mut results = Vec::new();
        let mut skipped_large = 0;
        for worker in states {
            results.extend(worker.results);
            skipped_large += worker.skipped_large;
        }
        results.sort_by(|left, right| left.path.cmp(&right.path));
        let limit = input.head_limit.filter(|&limit| limit > 0).map_or(DEFAULT_HEAD_LIMIT, |limit| limit as usize);
        ToolOutput::ok(render(&results, &search, &ctx.root, limit, skipped_large, &input.pattern))
    }
}

/// Validates the input into a `Search` or a message for the model.
fn plan_search(input: &Input) -> Result<Search, String> {
    let mode = match input.output_mode.as_deref() {
        None | Some("files_with_matches") | Some("files") => Mode::Files,
        Some("content") => Mode::Content,
        Some("count") => Mode::Count,
        Some(other) => {
            return Err(format!("unknown output_mode {other:?}; use \"files_with_matches\", \"content\" or \"count\""));
        }
    };
    let case_insensitive = input.case_insensitive.or(input.dash_i).unwrap_or(false);
    let regex = RegexBuilder::new(&input.pattern)
        .case_insensitive(case_insensitive)
        .multi_line(true)
        .crlf(true)
        .build()
        .map_err(|err| format!("invalid regex {:?}: {err}", input.pattern))?;
    let context = input.context.or(input.dash_c).unwrap_or(0);
    let before = input.dash_b.unwrap_or(context).min(100) as usize;
    let after = input.dash_a.unwrap_or(context).min(100) as usize;
    let (filter, filter_on_path) = match &input.glob {
        None => (Vec::new(), false),
        Some(glob) => {
            let patterns = expand_braces(glob)
                .iter()
                .map(|one| Pattern::new(one.strip_prefix("./").unwrap_or(one)))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|err| format!("invalid glob {glob:?}: {err}"))?;
            (patterns, glob.contains('/'))
        }
    };
    let keep_lines = input.head_limit.filter(|&limit| limit > 0).map_or(DEFAULT_HEAD_LIMIT, |limit| limit as usize);
    Ok(Search { regex, mode, before, after, keep_lines, filter, filter_on_path })
}

const FILTER_OPTIONS: MatchOptions =
    MatchOptions { case_sensitive: true, require_literal_separator: true, require_literal_leading_dot: false };

/// One file's findings.
struct FileResult {
    path: PathBuf,
    /// Matching lines (count mode, files mode: 1 when matched).
    count: usize,
    /// Content mode: output lines without the path prefix: `N:text`, `N-text` or `--`.
    lines: Vec<String>,
    /// Content mode: lines beyond `lines` that were not kept.
    lines_dropped: usize,
}

/// A walker thread's state: its reusable buffer and its findings.
#[derive(Default)]
struct Worker {
    buf: Vec<u8>,
    results: Vec<FileResult>,
    skipped_large: usize,
}

impl Worker {
    fn search_file(&mut self, search: &Search, entry: &WalkEntry) {
        if !search.filter.is_empty() {
            let subject = if search.filter_on_path { entry.rel.as_str() } else { file_name(&entry.rel) };
            if !search.filter.iter().any(|pattern| pattern.matches_with(subject, FILTER_OPTIONS)) {
                return;
            }
        }
        match read_into(&entry.path, &mut self.buf) {
            ReadOutcome::Read => {}
            ReadOutcome::TooLarge => {
                self.skipped_large += 1;
                return;
            }
            ReadOutcome::Failed => return,
        }
        let bytes = &self.buf[..];
        if super::has_nul(&bytes[..bytes.len().min(super::BINARY_SNIFF_BYTES)]) {
            return;
        }
        let result = match search.mode {
            Mode::Files => search.regex.is_match(bytes).then_some((1, Vec::new(), 0)),
            Mode::Count => {
                Some(count_matching_lines(&search.regex, bytes)).filter(|&count| count > 0).map(|c| (c, Vec::new(), 0))
            }
            Mode::Content => content_lines(search, bytes),
        };
        if let Some((count, lines, lines_dropped)) = result {
            self.results.push(FileResult { path: entry.path.clone(), count, lines, lines_dropped });
        }
    }
}

fn file_name(rel: &str) -> &str {
    rel.rsplit('/').next().unwrap_or(rel)
}

enum ReadOutcome {
    Read,
    TooLarge,
    Failed,
}

/// Reads the whole file into `buf` (reusing its allocation). Unreadable files are skipped.
fn read_into(path: &Path, buf: &mut Vec<u8>) -> ReadOutcome {
    buf.clear();
    let Ok(mut file) = std::fs::File::open(path) else { return ReadOutcome::Failed };
    let Ok(meta) = file.metadata() else { return ReadOutcome::Failed };
    if meta.len() > MAX_FILE_BYTES {
        return ReadOutcome::TooLarge;
    }
    buf.reserve(meta.len() as usize + 1);
    match file.read_to_end(buf) {
        Ok(_) => ReadOutcome::Read,
        Err(_) => ReadOutcome::Failed,
    }
}

/// Byte offsets `(line_start, line_end_without_newline)` of each line holding the start of a
/// match, in order, each line once. `visit` returns false to stop early.
fn for_each_matching_line(regex: &Regex, bytes: &[u8], mut visit: impl FnMut(usize, usize) -> bool) {
    let mut position = 0;
    while position <= bytes.len() {
        let Some(found) = regex.find_at(bytes, position) else { return };
        let start = found.start();
        if start == bytes.len() && (bytes.is_empty() || bytes.ends_with(b"\n")) {
            return; // an empty match after the final newline is not on a line
        }
        let line_start = bytes[..start].iter().rposition(|&byte| byte == b'\n').map_or(0, |index| index + 1);
        let line_end = bytes[start..].iter().position(|&byte| byte == b'\n').map_or(bytes.len(), |index| start + index);
        if !visit(line_start, line_end) {
            return;
        }
        position = line_end + 1;
    }
}

fn count_matching_lines(regex: &Regex, bytes: &[u8]) -> usize {
    let mut count = 0;
    for_each_matching_line(regex, bytes, |_, _| {
        count += 1;
        true
    });
    count
}

/// Content mode for one file: `(matching line count, output lines, output lines not kept)`.
fn content_lines(search: &Search, bytes: &[u8]) -> Option<(usize, Vec<String>, usize)> {
    let mut matches: Vec<(usize, usize, usize)> = Vec::new(); // (line number, start, end)
    let mut line_number = 1;
    let mut counted_to = 0;
    for_each_matching_line(&search.regex, bytes, |start, end| {
        line_number += bytes[counted_to..start].iter().filter(|&&byte| byte == b'\n').count();
        counted_to = start;
        matches.push((line_number, start, end));
        true
    });
    if matches.is_empty() {
        return None;
    }
    let count = matches.len();
    let mut lines = Vec::new();
    let mut dropped = 0;
    let mut push = |line: String| {
        if lines.len() < search.keep_lines { lines.push(line) } else { dropped += 1 }
    };
    if search.before == 0 && search.after == 0 {
        for &(number, start, end) in &matches {
            push(format!("{number}:{}", line_text(&bytes[start..end])));
        }
        return Some((count, lines, dropped));
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
    let matched: Vec<usize> = matches.iter().map(|&(number, _, _)| number - 1).collect();
    let mut next_to_print = 0;
    for (position, &index) in matched.iter().enumerate() {
        let from = index.saturating_sub(search.before).max(next_to_print);
        if position > 0 && from > next_to_print {
            push("--".to_string());
        }
        let next_match = matched.get(position + 1).copied().unwrap_or(usize::MAX);
        let to = (index + search.after).min(starts.len() - 1).min(next_match.saturating_sub(1));
        for line in from..=to.max(index) {
            let mark = if line == index { ':' } else { '-' };
            push(format!("{}{mark}{}", line + 1, line_text(line_bytes(line))));
        }
        next_to_print = to.max(index) + 1;
    }
    Some((count, lines, dropped))
}

/// A line for display: `\r` dropped, invalid UTF-8 replaced, cut at `MAX_LINE_CHARS`.
fn line_text(bytes: &[u8]) -> String {
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    let text = String::from_utf8_lossy(bytes);
    match text.char_indices().nth(MAX_LINE_CHARS) {
        Some((index, _)) => format!("{} [... line cut]", &text[..index]),
        None => text.into_owned(),
    }
}

/// Assembles the output within `limit` entries and `MAX_OUTPUT_BYTES`.
fn render(
    results: &[FileResult],
    search: &Search,
    root: &Path,
    limit: usize,
    skipped_large: usize,
    pattern: &str,
) -> String {
    let mut sink = Sink { out: String::new(), shown: 0, omitted: 0, limit };
    for (index, result) in results.iter().enumerate() {
        let shown_path = display_path(root, &result.path);
        match search.mode {
            Mode::Files => sink.add(shown_path),
            Mode::Count => sink.add(format!("{shown_path}:{}", result.count)),
            Mode::Content => {
                if index > 0 && (search.before > 0 || search.after > 0) {
                    sink.add("--".to_string());
                }
                for line in &result.lines {
                    sink.add(if line == "--" { line.clone() } else { format!("{shown_path}:{line}") });
                }
                sink.omitted += result.lines_dropped;
            }
        }
    }
    let Sink { mut out, omitted, .. } = sink;
    if results.is_empty() {
        out.push_str(&format!("no matches for {pattern:?}\n"));
    }
    if omitted > 0 {
        let unit = if search.mode == Mode::Files { "files" } else { "lines" };
        out.push_str(&format!(
            "... {omitted} more {unit} not shown (limit {limit} lines / {MAX_OUTPUT_BYTES} bytes); narrow the \
             pattern, path or glob, or raise head_limit\n"
        ));
    }
    if search.mode == Mode::Count && !results.is_empty() {
        let total: usize = results.iter().map(|result| result.count).sum();
        out.push_str(&format!("{total} matching lines in {} files\n", results.len()));
    }
    if skipped_large > 0 {
        out.push_str(&format!("({skipped_large} files over {} MB were not searched)\n", MAX_FILE_BYTES >> 20));
    }
    out
}

/// The output being assembled: lines past the limits are counted, not kept.
struct Sink {
    out: String,
    shown: usize,
    omitted: usize,
    limit: usize,
}

impl Sink {
    fn add(&mut self, line: String) {
        if self.shown < self.limit && self.omitted == 0 && self.out.len() + line.len() < MAX_OUTPUT_BYTES {
            self.out.push_str(&line);
            self.out.push('\n');
            self.shown += 1;
        } else {
            self.omitted += 1;
        }
    }
}

#[cfg(test)]
#[path = "grep_tests.rs"]
mod tests;
