//! Tests of the grep tool: trees on disk, whole outputs compared.

use super::*;
use crate::tools::test_support::{TempProject, check_rejects_bad_arguments, run};
use serde_json::json;

fn grep(project: &TempProject, input: serde_json::Value) -> ToolOutput {
    run(&GrepTool, &project.ctx(), input)
}

fn sample_tree() -> TempProject {
    let project = TempProject::new("grep");
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
    let project = TempProject::new("grep-context");
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
    let project = TempProject::new("grep-limit");
    for file in 0..30 {
        project.write(&format!("f{file:02}.txt"), "match\n");
    }
    let output = grep(&project, json!({"pattern": "match", "head_limit": 3}));
    assert_eq!(
        output.content,
        "f00.txt\nf01.txt\nf02.txt\n... 27 more files not shown (limit 3 lines / 30000 bytes); narrow the pattern, path or glob, or raise head_limit\n"
    );
}

#[test]
fn grep_output_is_capped_in_bytes() {
    let project = TempProject::new("grep-bytes");
    let line = format!("{}\n", "m".repeat(400));
    project.write("big.txt", line.repeat(1000));
    let output = grep(&project, json!({"pattern": "m", "output_mode": "content", "head_limit": 100000}));
    assert!(output.content.len() < MAX_OUTPUT_BYTES + 300, "{}", output.content.len());
    assert!(output.content.contains("more matching lines not shown"), "{}", output.content);
}

#[test]
fn grep_content_mode_limit_spans_files_in_path_order() {
    let project = TempProject::new("grep-content-limit");
    for file in 0..5 {
        project.write(&format!("f{file}.txt"), "hit\nmiss\nhit\n");
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
    let project = TempProject::new("grep-long");
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
    let project = TempProject::new("grep-empty");
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
