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
mod tests {
    use super::*;
    use crate::tools::test_support::{TempProject, check_rejects_bad_arguments, run};
    use serde_json::json;
    use std::time::Duration;

    fn set_mtime(project: &TempProject, rel: &str, seconds_ago: u64) {
        let file = std::fs::File::options().write(true).open(project.path(rel)).unwrap();
        file.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000 - seconds_ago)).unwrap();
    }

    fn glob(project: &TempProject, input: serde_json::Value) -> ToolOutput {
        run(&GlobTool, &project.ctx(), input)
    }

    #[test]
    fn glob_lists_matches_newest_first() {
        let project = TempProject::new("glob-order");
        for (rel, age) in [("old.rs", 300), ("src/new.rs", 10), ("src/deep/mid.rs", 100), ("notes.md", 1)] {
            project.write(rel, "");
            set_mtime(&project, rel, age);
        }
        let output = glob(&project, json!({"pattern": "**/*.rs"}));
        assert_eq!(output, ToolOutput::ok("src/new.rs\nsrc/deep/mid.rs\nold.rs\n"));
        let output = glob(&project, json!({"pattern": "*.rs"}));
        assert_eq!(output, ToolOutput::ok("old.rs\n"));
    }

    #[test]
    fn glob_respects_gitignore_and_skips_git() {
        let project = TempProject::new("glob-ignore");
        project.write(".gitignore", "target/\n*.tmp\n!keep.tmp\n");
        project.write("sub/.gitignore", "/local.rs\n");
        for rel in [
            ".gitignore",
            "sub/.gitignore",
            "a.rs",
            "target/b.rs",
            "x.tmp",
            "keep.tmp",
            ".git/c.rs",
            "sub/local.rs",
            "sub/ok.rs",
        ] {
            if !rel.ends_with(".gitignore") {
                project.write(rel, "");
            }
            set_mtime(&project, rel, 5);
        }
        let output = glob(&project, json!({"pattern": "**/*"}));
        assert_eq!(output, ToolOutput::ok(".gitignore\na.rs\nkeep.tmp\nsub/.gitignore\nsub/ok.rs\n"));
    }

    #[test]
    fn glob_searches_under_path_and_shows_root_relative_paths() {
        let project = TempProject::new("glob-path");
        project.write("src/a.rs", "");
        project.write("b.rs", "");
        let output = glob(&project, json!({"pattern": "*.rs", "path": "src"}));
        assert_eq!(output, ToolOutput::ok("src/a.rs\n"));
        let absolute = format!("{}/src/*.rs", project.root.display());
        assert_eq!(glob(&project, json!({"pattern": absolute})), ToolOutput::ok("src/a.rs\n"));
    }

    #[test]
    fn glob_caps_results_with_a_more_line() {
        let project = TempProject::new("glob-cap");
        for file in 0..(MAX_RESULTS + 5) {
            project.write(&format!("f{file:03}.txt"), "");
        }
        let output = glob(&project, json!({"pattern": "*.txt"}));
        assert_eq!(output.content.lines().count(), MAX_RESULTS + 1);
        assert!(output.content.contains("... 5 more files"), "{}", output.content);
    }

    #[test]
    fn glob_reports_no_match_bad_pattern_and_bad_path() {
        let project = TempProject::new("glob-errors");
        project.write("a.txt", "");
        assert_eq!(glob(&project, json!({"pattern": "*.zig"})), ToolOutput::ok("no files match \"*.zig\""));
        assert!(glob(&project, json!({"pattern": "[z-a"})).is_error);
        assert!(glob(&project, json!({"pattern": "*", "path": "a.txt"})).is_error);
        assert!(glob(&project, json!({"pattern": "*", "path": "missing"})).is_error);
        assert!(glob(&project, json!({"pattern": "/elsewhere/*.rs"})).is_error);
    }

    #[test]
    fn expand_braces_expands_alternatives_in_order() {
        let cases: [(&str, &[&str]); 5] = [
            ("*.rs", &["*.rs"]),
            ("*.{ts,tsx}", &["*.ts", "*.tsx"]),
            ("{src,lib}/**/*.{c,h}", &["src/**/*.c", "src/**/*.h", "lib/**/*.c", "lib/**/*.h"]),
            ("a{b,{c,d}}e", &["abe", "ace", "ade"]),
            ("odd{brace", &["odd{brace"]),
        ];
        for (pattern, expected) in cases {
            assert_eq!(expand_braces(pattern), expected.to_vec(), "{pattern}");
        }
    }

    #[test]
    fn glob_accepts_brace_alternatives() {
        let project = TempProject::new("glob-braces");
        for rel in ["a.ts", "b.tsx", "c.js"] {
            project.write(rel, "");
            set_mtime(&project, rel, 5);
        }
        assert_eq!(glob(&project, json!({"pattern": "*.{ts,tsx}"})), ToolOutput::ok("a.ts\nb.tsx\n"));
    }

    #[test]
    fn glob_rejects_bad_arguments() {
        check_rejects_bad_arguments(&GlobTool, "pattern");
    }

    /// A project with a link to a key outside it, a link inside it, a loop, a `.env` and a
    /// directory a rule may deny; every file has the same age, so the listing is by path.
    fn guarded_tree() -> (TempProject, TempProject) {
        let outside = TempProject::new("glob-outside");
        outside.write("id_ed25519", "PRIVATE");
        let project = TempProject::new("glob-guarded");
        for rel in ["src/main.rs", ".env", "secret/plan.txt"] {
            project.write(rel, "");
            set_mtime(&project, rel, 5);
        }
        let link = |target: &std::path::Path, rel: &str| std::os::unix::fs::symlink(target, project.path(rel)).unwrap();
        link(&outside.path("id_ed25519"), "src/id.txt");
        link(std::path::Path::new("main.rs"), "src/alias.rs");
        link(std::path::Path::new("loop"), "src/loop");
        link(&outside.root, "away");
        (project, outside)
    }

    fn ctx_denying(project: &TempProject, deny: &str) -> ToolContext {
        use crate::permission::Engine;
        use crate::permission::rules::{Level, RuleSet, RuleTexts};
        let (rules, _) =
            RuleSet::from_texts(vec![(Level::Project, RuleTexts { allow: Vec::new(), deny: vec![deny.into()] })]);
        let engine = Engine::new(project.root.clone(), None, rules);
        ToolContext { read_filter: Some(engine.read_filter()), ..project.ctx() }
    }

    #[test]
    fn glob_omits_links_out_of_the_project_and_sensitive_files_and_counts_them() {
        let (project, _outside) = guarded_tree();
        let output = glob(&project, json!({"pattern": "**/*"}));
        let expected =
            "secret/plan.txt\nsrc/alias.rs\nsrc/main.rs\n2 files skipped: outside the project or protected\n";
        assert_eq!(output, ToolOutput::ok(expected));
        // Only matching files are counted.
        assert_eq!(glob(&project, json!({"pattern": "**/*.rs"})), ToolOutput::ok("src/alias.rs\nsrc/main.rs\n"));
        let output = glob(&project, json!({"pattern": "**/.env"}));
        assert_eq!(
            output,
            ToolOutput::ok("no files match \"**/.env\"\n1 file skipped: outside the project or protected\n")
        );
        let output = glob(&project, json!({"pattern": "*", "path": "away"}));
        assert!(output.is_error && output.content.starts_with("denied by sandbox: away: "), "{}", output.content);
    }

    #[test]
    fn glob_omits_files_named_by_read_grep_or_glob_deny_rules() {
        let (project, _outside) = guarded_tree();
        for rule in ["Read(secret/**)", "Grep(secret/plan.txt)", "Glob(**/plan.*)"] {
            let output = run(&GlobTool, &ctx_denying(&project, rule), json!({"pattern": "**/*.txt"}));
            assert_eq!(
                output,
                ToolOutput::ok("no files match \"**/*.txt\"\n2 files skipped: outside the project or protected\n"),
                "{rule}"
            );
        }
        let output = run(&GlobTool, &ctx_denying(&project, "Edit(secret/**)"), json!({"pattern": "**/*.txt"}));
        assert_eq!(output, ToolOutput::ok("secret/plan.txt\n1 file skipped: outside the project or protected\n"));
    }
}
