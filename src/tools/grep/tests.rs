//! Tests of the grep tool: trees on disk, whole outputs compared.

use super::*;
use crate::test_dir::TempDir;
use crate::tools::test_support::{ProjectContext, check_rejects_bad_arguments, run};
use serde_json::json;

fn grep(project: &TempDir, input: serde_json::Value) -> ToolOutput {
    run(&GrepTool, &project.ctx(), input)
}

fn sample_tree() -> TempDir {
    let project = TempDir::new("grep");
    project.write(".gitignore", "target/\n*.gen.rs\n!keep.gen.rs\n");
    project.write("src/main.rs", "fn main() {\n    let needle = 1;\n    println!(\"{}\", needle);\n}\n");
    project.write("src/lib.rs", "// no match here\npub fn f() {}\n");
    project.write("src/.gitignore", "/scratch.rs\n");
    project.write("src/scratch.rs", "needle\n");
    project.write("src/a.gen.rs", "needle\n");
    project.write("src/keep.gen.rs", "needle\n");
    project.write("target/debug/out.rs", "needle\n");
    project.write(".git/HEAD", "needle\n");
    project.write("docs/notes.md", "A Needle in CRLF\r\nneedle again\r\n");
    project.write("bin/blob", b"needle\x00\x01\x02");
    project
}

#[test]
fn grep_lists_files_sorted_and_respects_gitignore() {
    let project = sample_tree();
    let output = grep(&project, json!({"pattern": "needle"}));
    assert_eq!(output, ToolOutput::ok("docs/notes.md\nsrc/keep.gen.rs\nsrc/main.rs\n"));
}

#[test]
fn grep_case_insensitive_accepts_both_spellings() {
    let project = sample_tree();
    for flag in ["case_insensitive", "-i"] {
        let output = grep(&project, json!({"pattern": "a needle", "output_mode": "content", flag: true}));
        assert_eq!(output, ToolOutput::ok("docs/notes.md:1:A Needle in CRLF\n"), "{flag}");
    }
}

#[test]
fn grep_content_mode_numbers_lines() {
    let project = sample_tree();
    let output = grep(&project, json!({"pattern": "needle", "output_mode": "content", "path": "src"}));
    assert_eq!(
        output,
        ToolOutput::ok(
            "src/keep.gen.rs:1:needle\nsrc/main.rs:2:    let needle = 1;\nsrc/main.rs:3:    println!(\"{}\", needle);\n"
        )
    );
}

#[test]
fn grep_dollar_matches_before_crlf() {
    let project = sample_tree();
    let output = grep(&project, json!({"pattern": "again$", "output_mode": "content"}));
    assert_eq!(output, ToolOutput::ok("docs/notes.md:2:needle again\n"));
}

#[test]
fn grep_count_mode_counts_lines_per_file() {
    let project = sample_tree();
    project.write("src/many.txt", "needle needle\nx\nneedle\n");
    let output = grep(&project, json!({"pattern": "needle", "output_mode": "count", "-i": true}));
    assert_eq!(
        output,
        ToolOutput::ok(
            "docs/notes.md:2\nsrc/keep.gen.rs:1\nsrc/main.rs:2\nsrc/many.txt:2\n7 matching lines in 4 files\n"
        )
    );
}

#[test]
fn grep_context_lines_merge_and_separate_groups() {
    let project = TempDir::new("grep-context");
    let text: String =
        (1..=12).map(|n| if n == 3 || n == 5 || n == 11 { format!("hit {n}\n") } else { format!("l{n}\n") }).collect();
    project.write("f.txt", text);
    let output = grep(&project, json!({"pattern": "hit", "output_mode": "content", "context": 1}));
    assert_eq!(
        output.content,
        "f.txt-2-l2\nf.txt:3:hit 3\nf.txt-4-l4\nf.txt:5:hit 5\nf.txt-6-l6\n--\nf.txt-10-l10\nf.txt:11:hit 11\nf.txt-12-l12\n"
    );
    let output = grep(&project, json!({"pattern": "hit 11", "output_mode": "content", "-B": 2, "-A": "0"}));
    assert_eq!(output.content, "f.txt-9-l9\nf.txt-10-l10\nf.txt:11:hit 11\n");
    let output = grep(&project, json!({"pattern": "l1$", "output_mode": "content", "-C": 3}));
    assert_eq!(output.content, "f.txt:1:l1\nf.txt-2-l2\nf.txt-3-hit 3\nf.txt-4-l4\n");
}

#[test]
fn grep_glob_filters_by_name_or_relative_path() {
    let project = sample_tree();
    let output = grep(&project, json!({"pattern": "needle", "glob": "*.md"}));
    assert_eq!(output, ToolOutput::ok("docs/notes.md\n"));
    let output = grep(&project, json!({"pattern": "needle", "glob": "src/*.{rs,md}"}));
    assert_eq!(output, ToolOutput::ok("src/keep.gen.rs\nsrc/main.rs\n"));
}

#[test]
fn grep_head_limit_caps_output_with_a_note() {
    let project = TempDir::new("grep-limit");
    for file in 0..30 {
        project.write(format!("f{file:02}.txt"), "match\n");
    }
    let output = grep(&project, json!({"pattern": "match", "head_limit": 3}));
    assert_eq!(
        output.content,
        "f00.txt\nf01.txt\nf02.txt\n... 27 more files not shown (limit 3 lines / 30000 bytes); narrow the pattern, path or glob, or raise head_limit\n"
    );
}

#[test]
fn grep_output_is_capped_in_bytes() {
    let project = TempDir::new("grep-bytes");
    let line = format!("{}\n", "m".repeat(400));
    project.write("big.txt", line.repeat(1000));
    let output = grep(&project, json!({"pattern": "m", "output_mode": "content", "head_limit": 100000}));
    assert!(output.content.len() < MAX_OUTPUT_BYTES + 300, "{}", output.content.len());
    assert!(output.content.contains("more matching lines not shown"), "{}", output.content);
}

#[test]
fn grep_content_mode_limit_spans_files_in_path_order() {
    let project = TempDir::new("grep-content-limit");
    for file in 0..5 {
        project.write(format!("f{file}.txt"), "hit\nmiss\nhit\n");
    }
    let output = grep(&project, json!({"pattern": "hit", "output_mode": "content", "head_limit": 3}));
    assert_eq!(
        output.content,
        "f0.txt:1:hit\nf0.txt:3:hit\nf1.txt:1:hit\n... 7 more matching lines not shown (limit 3 lines / 30000 bytes); \
         narrow the pattern, path or glob, or raise head_limit\n"
    );
    let output = grep(&project, json!({"pattern": "hit", "output_mode": "content", "head_limit": 4, "-A": 1}));
    assert_eq!(
        output.content,
        "f0.txt:1:hit\nf0.txt-2-miss\nf0.txt:3:hit\n... 8 more matching lines not shown (limit 4 lines / 30000 bytes); \
         narrow the pattern, path or glob, or raise head_limit\n"
    );
}

#[test]
fn grep_cuts_very_long_lines() {
    let project = TempDir::new("grep-long");
    project.write("min.js", format!("{}needle{}\n", "a".repeat(10), "b".repeat(5000)));
    let output = grep(&project, json!({"pattern": "needle", "output_mode": "content"}));
    assert!(output.content.ends_with(" [... line cut]\n"));
    assert!(output.content.len() < MAX_LINE_CHARS + 50);
}

#[test]
fn grep_searches_a_single_file_path() {
    let project = sample_tree();
    let output = grep(&project, json!({"pattern": "needle", "path": "src/scratch.rs", "output_mode": "count"}));
    assert_eq!(output, ToolOutput::ok("src/scratch.rs:1\n1 matching lines in 1 files\n"));
}

#[test]
fn grep_no_match_is_not_an_error() {
    let project = sample_tree();
    assert_eq!(grep(&project, json!({"pattern": "zebra"})), ToolOutput::ok("no matches for \"zebra\"\n"));
}

#[test]
fn grep_empty_pattern_matches_every_line_once() {
    let project = TempDir::new("grep-empty");
    project.write("a.txt", "x\n\ny\n");
    let output = grep(&project, json!({"pattern": "^", "output_mode": "count"}));
    assert_eq!(output.content, "a.txt:3\n3 matching lines in 1 files\n");
}

#[test]
fn grep_reports_invalid_regex_mode_and_path() {
    let project = sample_tree();
    let cases = [
        (json!({"pattern": "("}), "invalid regex"),
        (json!({"pattern": "x", "output_mode": "lines"}), "unknown output_mode"),
        (json!({"pattern": "x", "path": "nope"}), "path not found"),
        (json!({"pattern": "x", "glob": "[z-a"}), "invalid glob"),
    ];
    for (input, expected) in cases {
        let output = grep(&project, input);
        assert!(output.is_error && output.content.contains(expected), "{}", output.content);
    }
}

#[test]
fn grep_rejects_bad_arguments() {
    check_rejects_bad_arguments(&GrepTool, "pattern");
}

#[test]
fn for_each_matching_line_reports_each_line_once() {
    let regex = RegexBuilder::new("a").multi_line(true).build().unwrap();
    let bytes = b"aaa\nb\nxa\na";
    let mut lines = Vec::new();
    for_each_matching_line(&regex, bytes, |start, end| {
        lines.push(&bytes[start..end]);
        true
    });
    assert_eq!(lines, vec![&b"aaa"[..], b"xa", b"a"]);
}

#[test]
fn find_newline_agrees_with_a_plain_scan() {
    let mut text = Vec::new();
    for length in 0..40 {
        text.clear();
        text.extend(std::iter::repeat_n(b'x', length));
        assert_eq!(find_newline(&text), None, "length {length}");
        for newline_at in 0..length {
            text[newline_at] = b'\n';
            assert_eq!(find_newline(&text), Some(newline_at), "length {length}, at {newline_at}");
            text[newline_at] = 0x8a; // a high byte next to where the newline was must not confuse it
        }
    }
}

#[test]
fn grep_and_glob_report_a_cancelled_turn() {
    let project = sample_tree();
    let ctx = project.ctx();
    ctx.cancel.cancel();
    assert_eq!(GrepTool.execute(r#"{"pattern": "needle"}"#, &ctx), ToolOutput::error("cancelled"));
    let glob = crate::tools::GlobTool;
    assert_eq!(glob.execute(r#"{"pattern": "**/*"}"#, &ctx), ToolOutput::error("cancelled"));
}

/// A project whose walk meets a link to a secret outside it, a link into it, a link loop, a
/// dangling link, a link to a directory outside, a `.env` and a file a rule may deny.
fn guarded_tree() -> (TempDir, TempDir) {
    let outside = TempDir::new("grep-outside");
    outside.write(".ssh/id_ed25519", "needle PRIVATE KEY\n");
    outside.write("notes.txt", "needle outside\n");
    let project = TempDir::new("grep-guarded");
    project.write("src/main.rs", "needle in main\n");
    project.write(".env", "needle=SECRET_ENV\n");
    project.write("secret/plan.txt", "needle SECRET_PLAN\n");
    let link = |target: &std::path::Path, rel: &str| std::os::unix::fs::symlink(target, project.join(rel)).unwrap();
    link(&outside.join(".ssh/id_ed25519"), "src/fixture.txt");
    link(std::path::Path::new("main.rs"), "src/alias.rs");
    link(std::path::Path::new("loop-b"), "src/loop-a");
    link(std::path::Path::new("loop-a"), "src/loop-b");
    link(std::path::Path::new("gone.txt"), "src/dangling.txt");
    link(outside.path(), "away");
    link(&project.join("secret"), "inside");
    (project, outside)
}

fn deny_ctx(project: &TempDir, deny: &[&str]) -> ToolContext {
    use crate::permission::Engine;
    use crate::permission::rules::{Level, RuleSet, RuleTexts};
    let texts = RuleTexts { deny: deny.iter().map(|rule| rule.to_string()).collect(), ..RuleTexts::default() };
    let (rules, _) = RuleSet::from_texts(vec![(Level::User, texts)]);
    let engine = Engine::new(project.path().to_path_buf(), None, rules);
    ToolContext { read_filter: Some(engine.read_filter()), ..project.ctx() }
}

#[test]
fn grep_never_reads_links_out_of_the_project_or_sensitive_files_and_counts_them() {
    let (project, _outside) = guarded_tree();
    let note = "2 files skipped: outside the project or protected\n";
    let cases = [
        ("files_with_matches", format!("secret/plan.txt\nsrc/alias.rs\nsrc/main.rs\n{note}")),
        (
            "content",
            format!(
                "secret/plan.txt:1:needle SECRET_PLAN\nsrc/alias.rs:1:needle in main\nsrc/main.rs:1:needle in main\n{note}"
            ),
        ),
        ("count", format!("secret/plan.txt:1\nsrc/alias.rs:1\nsrc/main.rs:1\n3 matching lines in 3 files\n{note}")),
    ];
    for (mode, expected) in cases {
        assert_eq!(
            grep(&project, json!({"pattern": "needle", "output_mode": mode})),
            ToolOutput::ok(expected),
            "{mode}"
        );
    }
    // Only files the glob filter selects are counted.
    assert_eq!(grep(&project, json!({"pattern": "needle", "glob": "*.rs"})).content, "src/alias.rs\nsrc/main.rs\n");
    let nothing = grep(&project, json!({"pattern": "PRIVATE|SECRET_ENV", "output_mode": "content"}));
    assert_eq!(nothing, ToolOutput::ok(format!("no matches for \"PRIVATE|SECRET_ENV\"\n{note}")));
}

#[test]
fn grep_reads_a_sensitive_file_only_when_it_is_the_path_searched() {
    let (project, _outside) = guarded_tree();
    let output = grep(&project, json!({"pattern": "needle", "path": ".env", "output_mode": "content"}));
    assert_eq!(output, ToolOutput::ok(".env:1:needle=SECRET_ENV\n"));
}

#[test]
fn grep_refuses_a_search_root_that_resolves_outside_the_project() {
    let (project, _outside) = guarded_tree();
    for path in ["away", "src/fixture.txt", "src/loop-a"] {
        let output = grep(&project, json!({"pattern": "needle", "path": path}));
        let refused = output.is_error
            && (output.content.starts_with("denied by sandbox: ") || output.content.starts_with("path not found"));
        assert!(refused && !output.content.contains("PRIVATE"), "{path}: {}", output.content);
    }
    let inside = grep(&project, json!({"pattern": "needle", "path": "inside", "output_mode": "content"}));
    assert_eq!(inside, ToolOutput::ok("inside/plan.txt:1:needle SECRET_PLAN\n"));
}

#[test]
fn grep_skips_files_named_by_read_or_grep_deny_rules() {
    let (project, _outside) = guarded_tree();
    for rule in ["Read(secret/**)", "Grep(secret/*.txt)", "Read(/**/plan.txt)"] {
        let ctx = deny_ctx(&project, &[rule]);
        let output = run(&GrepTool, &ctx, json!({"pattern": "needle", "output_mode": "content"}));
        let expected = "src/alias.rs:1:needle in main\nsrc/main.rs:1:needle in main\n\
                        3 files skipped: outside the project or protected\n";
        assert_eq!(output, ToolOutput::ok(expected), "{rule}");
        // Also when the search root is the file, or a link to its directory.
        for path in ["secret/plan.txt", "inside"] {
            let output = run(&GrepTool, &ctx, json!({"pattern": "needle", "path": path}));
            let expected = "no matches for \"needle\"\n1 file skipped: outside the project or protected\n";
            assert_eq!(output, ToolOutput::ok(expected), "{rule} {path}");
        }
    }
    // A Glob rule hides names from glob, not contents from grep; other tools' rules do nothing.
    let ctx = deny_ctx(&project, &["Glob(secret/**)", "Write(secret/**)", "Bash(cat *)"]);
    let output = run(&GrepTool, &ctx, json!({"pattern": "SECRET_PLAN"}));
    assert_eq!(output, ToolOutput::ok("secret/plan.txt\n2 files skipped: outside the project or protected\n"));
}
