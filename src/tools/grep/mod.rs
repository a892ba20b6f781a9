//! `grep` [Grep]: searches file contents with a regular expression, in parallel.
//!
//! Invariant: the output is deterministic (files sorted by path, lines in file order) and bounded
//! (`head_limit` lines, default `DEFAULT_HEAD_LIMIT`, and `MAX_OUTPUT_BYTES`), with a note saying
//! what was left out. Memory is bounded too: each worker reuses one read buffer and keeps only a
//! path and a count per matching file.
//!
//! Speed: each file is read whole into the worker's reusable buffer (open, read, close: no stat)
//! and searched as one slice with `regex::bytes` (literal prefilters apply); lines are only located
//! around matches, so a file without matches costs one read and one scan, with no per-line work or
//! allocation. Content mode runs in two phases: the parallel walk counts matching lines per file,
//! then the files are sorted and only those whose lines fit in the output are read again and
//! formatted, so a pattern matching millions of lines costs no more memory than the output.
//!
//! Permissions: every file is passed through the `permission::FileGate` before it is opened, so a
//! link out of the project, a sensitive file (unless it is the `path` searched) or a file a deny
//! rule names is never read; such files are counted on a last line, never named.
//!
//! Semantics: `.gitignore` is honoured and `.git` skipped (see `walk`); files with a NUL byte in
//! their first 8 KB are binary and skipped silently, as ripgrep does; files over
//! `MAX_FILE_BYTES` are skipped with a note. `^` and `$` match at line boundaries (also before
//! `\r\n`). A match is reported on the line where it starts; a pattern that can match a newline
//! (`\s`, `[^x]`) may therefore match across lines, which ripgrep would refuse. The `glob` filter
//! matches the file name, or the path relative to the search directory when it contains `/`;
//! `{a,b}` alternatives are expanded.
//!
//! - `mod.rs` — the tool: arguments, the parallel search and the matching lines of a file
//! - `output.rs` — rendering of the entries, counts and lines within the output bounds

use super::glob::expand_braces;
use super::walk::{WalkEntry, walk_parallel};
use super::{GREP, Tool, ToolContext, ToolKind, ToolOutput, display_path, lenient, parse_input, skipped_note};
use crate::fsx::resolve_path;
use crate::permission::FileGate;
use glob::{MatchOptions, Pattern};
use regex::bytes::{Regex, RegexBuilder};
use serde::Deserialize;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Output lines (or files, or counts) shown when the model gives no `head_limit`.
const DEFAULT_HEAD_LIMIT: usize = 250;
/// Output size cap in bytes, whatever the limit.
pub(super) const MAX_OUTPUT_BYTES: usize = 30_000;
/// Characters kept of one matching line (minified files have megabyte lines).
pub(super) const MAX_LINE_CHARS: usize = 500;
/// Files larger than this are not searched (they would be read whole into memory).
const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;

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

    fn kind(&self) -> ToolKind {
        GREP.kind
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

    fn lean_description(&self) -> String {
        "Search file contents with a regex; shows matching files, lines (content) or counts.".to_string()
    }

    fn lean_input_schema(&self) -> serde_json::Value {
        crate::tools::lean::lean_schema(
            self.input_schema(),
            &[("path", "file or directory"), ("glob", "file name filter"), ("context", "lines around a match")],
        )
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
        let gate = match ctx.file_gate(GREP.rule, &start) {
            Ok(gate) => gate,
            Err(denial) => {
                return ToolOutput::error(format!("denied by sandbox: {}: {denial}", display_path(&ctx.root, &start)));
            }
        };
        let states = walk_parallel(&start, &ctx.root, &ctx.cancel, Worker::default, |worker, entry| {
            worker.search_file(&search, &gate, entry)
        });
        if ctx.cancel.is_cancelled() {
            return ToolOutput::error("cancelled");
        }
        let mut results = Vec::new();
        let mut skipped_large = 0;
        let mut skipped_protected = 0;
        for worker in states {
            results.extend(worker.results);
            skipped_large += worker.skipped_large;
            skipped_protected += worker.skipped_protected;
        }
        results.sort_by(|left, right| left.path.cmp(&right.path));
        let limit = input.head_limit.filter(|&limit| limit > 0).map_or(DEFAULT_HEAD_LIMIT, |limit| limit as usize);
        let mut out = match search.mode {
            Mode::Files | Mode::Count => output::render_entries(&results, &search, &ctx.root, limit),
            Mode::Content => output::render_content(&results, &search, &ctx.root, limit),
        };
        if results.is_empty() {
            out.push_str(&format!("no matches for {:?}\n", input.pattern));
        }
        if skipped_large > 0 {
            out.push_str(&format!("({skipped_large} files over {} MB were not searched)\n", MAX_FILE_BYTES >> 20));
        }
        out.push_str(&skipped_note(skipped_protected));
        ToolOutput::ok(out)
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
    Ok(Search { regex, mode, before, after, filter, filter_on_path })
}

const FILTER_OPTIONS: MatchOptions =
    MatchOptions { case_sensitive: true, require_literal_separator: true, require_literal_leading_dot: false };

/// One file's findings: its path and how many lines match (1 in files mode, which stops at the
/// first match).
struct FileResult {
    path: PathBuf,
    count: usize,
}

/// A walker thread's state: its reusable buffer and its findings.
#[derive(Default)]
struct Worker {
    buf: ReadBuffer,
    results: Vec<FileResult>,
    skipped_large: usize,
    /// Files the gate left out (outside the project, sensitive, denied by a rule): counted only.
    skipped_protected: usize,
}

impl Worker {
    fn search_file(&mut self, search: &Search, gate: &FileGate, entry: &WalkEntry) {
        if !search.filter.is_empty() {
            let subject = if search.filter_on_path { entry.rel.as_str() } else { file_name(&entry.rel) };
            if !search.filter.iter().any(|pattern| pattern.matches_with(subject, FILTER_OPTIONS)) {
                return;
            }
        }
        // Before the file is opened: its content must not even be read.
        if gate.admits(&entry.path, entry.is_symlink).is_err() {
            self.skipped_protected += 1;
            return;
        }
        match self.buf.read_file(&entry.path) {
            ReadOutcome::Read => {}
            ReadOutcome::TooLarge => {
                self.skipped_large += 1;
                return;
            }
            ReadOutcome::Failed => return,
        }
        let bytes = self.buf.contents();
        if super::has_nul(&bytes[..bytes.len().min(super::BINARY_SNIFF_BYTES)]) {
            return;
        }
        let count = match search.mode {
            Mode::Files => usize::from(search.regex.is_match(bytes)),
            Mode::Count | Mode::Content => count_matching_lines(&search.regex, bytes),
        };
        if count > 0 {
            self.results.push(FileResult { path: entry.path.clone(), count });
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

/// A reusable read buffer. `bytes` stays fully initialised (zeroed once when it grows) and only
/// `filled` moves, so reading a file costs no memset and no `stat`: just `open`, `read` until end
/// of file, and `close`.
#[derive(Default)]
struct ReadBuffer {
    bytes: Vec<u8>,
    filled: usize,
}

impl ReadBuffer {
    /// First size of the buffer; it doubles for larger files and then stays large.
    const INITIAL: usize = 64 * 1024;

    fn contents(&self) -> &[u8] {
        &self.bytes[..self.filled]
    }

    /// Reads the whole file. Unreadable files are skipped; files over `MAX_FILE_BYTES` too.
    fn read_file(&mut self, path: &Path) -> ReadOutcome {
        self.filled = 0;
        let Ok(mut file) = std::fs::File::open(path) else { return ReadOutcome::Failed };
        loop {
            if self.filled == self.bytes.len() {
                if self.bytes.len() as u64 > MAX_FILE_BYTES {
                    return ReadOutcome::TooLarge;
                }
                let grown = (self.bytes.len() * 2).max(Self::INITIAL);
                self.bytes.resize(grown, 0);
            }
            match file.read(&mut self.bytes[self.filled..]) {
                Ok(0) => return ReadOutcome::Read,
                Ok(read) => self.filled += read,
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return ReadOutcome::Failed,
            }
        }
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
        // `position` is always a line start, so the backward scan stays within the current line.
        let line_start = bytes[position..start]
            .iter()
            .rposition(|&byte| byte == b'\n')
            .map_or(position, |index| position + index + 1);
        let line_end = find_newline(&bytes[start..]).map_or(bytes.len(), |index| start + index);
        if !visit(line_start, line_end) {
            return;
        }
        position = line_end + 1;
    }
}

/// The index of the first `\n`, eight bytes at a time (a plain `position` loop is byte by byte,
/// and long lines are common in the files a search hits).
fn find_newline(haystack: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    const NEWLINES: u64 = ONES * b'\n' as u64;
    let mut chunks = haystack.chunks_exact(8);
    let mut offset = 0;
    for chunk in chunks.by_ref() {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let zeroed = u64::from_le_bytes(word) ^ NEWLINES;
        // Classic "has zero byte" test: non-zero exactly when some byte of `zeroed` is 0.
        if zeroed.wrapping_sub(ONES) & !zeroed & HIGHS != 0 {
            return chunk.iter().position(|&byte| byte == b'\n').map(|index| offset + index);
        }
        offset += 8;
    }
    chunks.remainder().iter().position(|&byte| byte == b'\n').map(|index| offset + index)
}

fn count_matching_lines(regex: &Regex, bytes: &[u8]) -> usize {
    let mut count = 0;
    for_each_matching_line(regex, bytes, |_, _| {
        count += 1;
        true
    });
    count
}

mod output;

#[cfg(test)]
mod tests;
