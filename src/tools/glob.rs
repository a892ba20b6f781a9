//! `glob` [Glob]: lists files whose path matches a glob pattern, newest first.
//!
//! Invariant: the listing is deterministic for a given tree: sorted by modification time (newest
//! first), ties by path, and capped at `MAX_RESULTS` with a "... N more" line. It uses the shared
//! walker, so `.gitignore` is honoured and `.git` and symlinked directories are skipped.
//!
//! Pattern semantics: matched against the path relative to the search directory, with `*`, `?`
//! and `[...]` never crossing `/` and `**` spanning directories (`**/*.rs` finds every Rust file,
//! `*.rs` only those directly in the search directory), case-sensitive; hidden files match `*`.
//! An absolute pattern inside the search directory is made relative to it.
//!
//! Permissions: a matching file is listed only when the `permission::FileGate` admits it (inside
//! the project once resolved, not sensitive, named by no deny rule of Read, Grep or Glob);
//! the others are counted on a last line and never named.

use super::walk::walk_parallel;
use super::{GLOB, Tool, ToolContext, ToolKind, ToolOutput, display_path, parse_input, skipped_note};
use crate::fsx::resolve_path;
use glob::{MatchOptions, Pattern};
use serde::Deserialize;
use std::path::PathBuf;
use std::time::SystemTime;

/// Paths listed at most; the rest is counted.
const MAX_RESULTS: usize = 200;

/// The `glob` tool.
pub(crate) struct GlobTool;

#[derive(Deserialize)]
struct Input {
    pattern: String,
    #[serde(default)]
    path: Option<String>,
}

const MATCH_OPTIONS: MatchOptions =
    MatchOptions { case_sensitive: true, require_literal_separator: true, require_literal_leading_dot: false };

impl Tool for GlobTool {
    fn name(&self) -> &str {
        GLOB.name
    }

    fn rule_name(&self) -> &str {
        GLOB.rule
    }

    fn kind(&self) -> ToolKind {
        GLOB.kind
    }

    fn description(&self) -> &str {
        "Finds files by glob pattern (e.g. `**/*.rs`, `src/**/test_*.py`), matched against paths \
         relative to the search directory; `*` stays within one directory, `**` spans directories. \
         Respects .gitignore. Returns matching paths, most recently modified first (at most 200)."
    }

    fn input_schema(&self) -> serde_json::Value {
        serde_json::json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "Glob pattern, e.g. **/*.ts"},
                "path": {"type": "string", "description": "Directory to search in (default: the project root)"}
            },
            "required": ["pattern"]
        })
    }

    fn lean_description(&self) -> String {
        "List files whose path matches a glob pattern, newest first; .gitignore respected.".to_string()
    }

    fn lean_input_schema(&self) -> serde_json::Value {
        super::lean::lean_schema(self.input_schema(), &[("path", "directory")])
    }

    fn read_only(&self) -> bool {
        true
    }

    fn execute(&self, input_json: &str, ctx: &ToolContext) -> ToolOutput {
        let input: Input = match parse_input(GLOB.name, input_json) {
            Ok(input) => input,
            Err(output) => return output,
        };
        let search_dir = resolve_path(&ctx.root, input.path.as_deref().unwrap_or("."));
        if !search_dir.is_dir() {
            return ToolOutput::error(format!("not a directory: {}", display_path(&ctx.root, &search_dir)));
        }
        let relative_pattern = match relative_pattern(&input.pattern, &search_dir) {
            Ok(pattern) => pattern,
            Err(message) => return ToolOutput::error(message),
        };
        let patterns = match expand_braces(&relative_pattern).iter().map(|one| Pattern::new(one)).collect() {
            Ok(patterns) => patterns,
            Err(err) => return ToolOutput::error(format!("invalid glob pattern {:?}: {err}", input.pattern)),
        };
        let patterns: Vec<Pattern> = patterns;
        let gate = match ctx.file_gate(GLOB.rule, &search_dir) {
            Ok(gate) => gate,
            Err(denial) => {
                return ToolOutput::error(format!(
                    "denied by sandbox: {}: {denial}",
                    display_path(&ctx.root, &search_dir)
                ));
            }
        };
        let states = walk_parallel(&search_dir, &ctx.root, &ctx.cancel, Listing::default, |listing, entry| {
            if !patterns.iter().any(|pattern| pattern.matches_with(&entry.rel, MATCH_OPTIONS)) {
                return;
            }
            if gate.admits(&entry.path, entry.is_symlink).is_err() {
                listing.skipped += 1;
                return;
            }
            let modified = std::fs::metadata(&entry.path).and_then(|meta| meta.modified()).ok();
            listing
                .found
                .push(Found { path: entry.path.clone(), modified: modified.unwrap_or(SystemTime::UNIX_EPOCH) });
        });
        if ctx.cancel.is_cancelled() {
            return ToolOutput::error("cancelled");
        }
        let mut found = Vec::new();
        let mut skipped = 0;
        for listing in states {
            found.extend(listing.found);
            skipped += listing.skipped;
        }
        ToolOutput::ok(render(&mut found, skipped, &ctx.root, &input.pattern))
    }
}

/// Expands `{a,b}` alternatives (nested and repeated) into plain glob patterns, which the `glob`
/// crate does not support: `*.{ts,tsx}` becomes `*.ts` and `*.tsx`. An unbalanced brace is kept
/// literally. The expansion is capped at `MAX_BRACE_EXPANSIONS` patterns.
pub(crate) fn expand_braces(pattern: &str) -> Vec<String> {
    let mut done = Vec::new();
    let mut todo = vec![pattern.to_string()];
    while let Some(current) = todo.pop() {
        match first_brace_group(&current) {
            Some((open, close, alternatives)) if done.len() + todo.len() < MAX_BRACE_EXPANSIONS => {
                for alternative in alternatives.into_iter().rev() {
                    todo.push(format!("{}{alternative}{}", &current[..open], &current[close + 1..]));
                }
            }
            _ => done.push(current),
        }
    }
    done
}

const MAX_BRACE_EXPANSIONS: usize = 64;

/// The first top-level `{...}` holding a comma: its byte range and its comma-separated parts.
fn first_brace_group(pattern: &str) -> Option<(usize, usize, Vec<&str>)> {
    let open = pattern.find('{')?;
    let mut depth = 0;
    let mut part_start = open + 1;
    let mut parts = Vec::new();
    for (index, character) in pattern.char_indices().skip_while(|&(index, _)| index < open) {
        match character {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    parts.push(&pattern[part_start..index]);
                    return (parts.len() > 1).then_some((open, index, parts));
                }
            }
            ',' if depth == 1 => {
                parts.push(&pattern[part_start..index]);
                part_start = index + 1;
            }
            _ => {}
        }
    }
    None
}

struct Found {
    path: PathBuf,
    modified: SystemTime,
}

/// A walker thread's findings, and how many matching files the gate left out.
#[derive(Default)]
struct Listing {
    found: Vec<Found>,
    skipped: usize,
}

fn relative_pattern(raw: &str, search_dir: &std::path::Path) -> Result<String, String> {
    let pattern = raw.strip_prefix("./").unwrap_or(raw);
    if !pattern.starts_with('/') {
        return Ok(pattern.to_string());
    }
    let prefix = format!("{}/", search_dir.to_string_lossy().trim_end_matches('/'));
    match pattern.strip_prefix(&prefix) {
        Some(rest) => Ok(rest.to_string()),
        None => Err(format!(
            "the absolute pattern {raw:?} is outside the search directory {}; give a relative pattern and a path",
            search_dir.display()
        )),
    }
}

fn render(found: &mut [Found], skipped: usize, root: &std::path::Path, pattern: &str) -> String {
    if found.is_empty() {
        let note = skipped_note(skipped);
        return if note.is_empty() {
            format!("no files match {pattern:?}")
        } else {
            format!("no files match {pattern:?}\n{note}")
        };
    }
    found.sort_by(|left, right| right.modified.cmp(&left.modified).then_with(|| left.path.cmp(&right.path)));
    let mut out = String::new();
    for item in found.iter().take(MAX_RESULTS) {
        out.push_str(&display_path(root, &item.path));
        out.push('\n');
    }
    if found.len() > MAX_RESULTS {
        out.push_str(&format!(
            "... {} more files (showing the {MAX_RESULTS} most recently modified; narrow the pattern or path)\n",
            found.len() - MAX_RESULTS
        ));
    }
    out.push_str(&skipped_note(skipped));
    out
}

#[cfg(test)]
#[path = "glob_tests.rs"]
mod tests;
