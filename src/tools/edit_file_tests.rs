//! Unit tests of `edit_file.rs`: exact replacement, ambiguity, hints and refusals.

use super::*;
use crate::test_dir::TempDir;
use crate::tools::test_support::{ProjectContext, check_rejects_bad_arguments, run};
use serde_json::json;

fn edit_json(project: &TempDir, input: serde_json::Value) -> ToolOutput {
    run(&EditFileTool, &project.ctx(), input)
}

#[test]
fn edit_file_replaces_a_unique_match() {
    let project = TempDir::new("edit-one");
    project.write("a.rs", "fn main() {\n    println!(\"hi\");\n}\n");
    let output = edit_json(&project, json!({"path": "a.rs", "old_string": "\"hi\"", "new_string": "\"bye\""}));
    assert_eq!(output, ToolOutput::ok("edited a.rs: 1 replacement (first at line 2)"));
    assert_eq!(project.read("a.rs"), "fn main() {\n    println!(\"bye\");\n}\n");
}

#[test]
fn edit_file_rejects_ambiguous_old_string_and_names_the_lines() {
    let project = TempDir::new("edit-many");
    project.write("a.txt", "x = 1\ny = 2\nx = 1\n");
    let output = edit_json(&project, json!({"path": "a.txt", "old_string": "x = 1", "new_string": "x = 3"}));
    assert!(output.is_error);
    assert!(output.content.contains("matches 2 times"), "{}", output.content);
    assert!(output.content.contains("lines 1, 3"), "{}", output.content);
    assert!(output.content.contains("replace_all"));
    assert_eq!(project.read("a.txt"), "x = 1\ny = 2\nx = 1\n");
}

#[test]
fn edit_file_replace_all_replaces_every_match() {
    let project = TempDir::new("edit-all");
    project.write("a.txt", "x = 1\ny = 2\nx = 1\n");
    let output = edit_json(
        &project,
        json!({"path": "a.txt", "old_string": "x = 1", "new_string": "x = 3", "replace_all": true}),
    );
    assert_eq!(output, ToolOutput::ok("edited a.txt: 2 replacements (first at line 1)"));
    assert_eq!(project.read("a.txt"), "x = 3\ny = 2\nx = 3\n");
}

#[test]
fn edit_file_zero_matches_hints_at_whitespace() {
    let project = TempDir::new("edit-ws");
    project.write("a.py", "def f():\n\treturn 1\n");
    let output =
        edit_json(&project, json!({"path": "a.py", "old_string": "def f():\n    return 1", "new_string": "x"}));
    assert!(output.is_error);
    assert!(output.content.contains("not found"), "{}", output.content);
    assert!(output.content.contains("line 1 when whitespace is ignored"), "{}", output.content);
}

#[test]
fn edit_file_zero_matches_hints_at_the_first_line() {
    let project = TempDir::new("edit-first");
    project.write("a.txt", "one\ntwo\nthree\n");
    let output = edit_json(&project, json!({"path": "a.txt", "old_string": "two\nfour", "new_string": "x"}));
    assert!(output.content.contains("first line appears at line 2"), "{}", output.content);
    let output = edit_json(&project, json!({"path": "a.txt", "old_string": "zzz", "new_string": "x"}));
    assert!(output.content.contains("read it again"), "{}", output.content);
}

#[test]
fn edit_file_rejects_identical_strings_and_empty_old_string_on_content() {
    let project = TempDir::new("edit-same");
    project.write("a.txt", "abc");
    let output = edit_json(&project, json!({"path": "a.txt", "old_string": "b", "new_string": "b"}));
    assert!(output.is_error && output.content.contains("identical"), "{}", output.content);
    let output = edit_json(&project, json!({"path": "a.txt", "old_string": "", "new_string": "b"}));
    assert!(output.is_error && output.content.contains("already has content"), "{}", output.content);
    assert_eq!(project.read("a.txt"), "abc");
}

#[test]
fn edit_file_empty_old_string_creates_a_missing_file_or_fills_an_empty_one() {
    let project = TempDir::new("edit-create");
    let output = edit_json(&project, json!({"path": "new/dir/f.txt", "old_string": "", "new_string": "hello\n"}));
    assert_eq!(output, ToolOutput::ok("created new/dir/f.txt (1 lines)"));
    assert_eq!(project.read("new/dir/f.txt"), "hello\n");
    project.write("empty.txt", "");
    let output = edit_json(&project, json!({"path": "empty.txt", "old_string": "", "new_string": "x"}));
    assert!(!output.is_error, "{}", output.content);
    assert_eq!(project.read("empty.txt"), "x");
}

#[test]
fn edit_file_missing_file_directory_and_binary_are_errors() {
    let project = TempDir::new("edit-missing");
    project.write("d/x", "");
    project.write("bin", b"\xff\xfe\x00abc");
    for (path, expected) in [("nope.txt", "file not found"), ("d", "directory"), ("bin", "not valid UTF-8")] {
        let output = edit_json(&project, json!({"path": path, "old_string": "a", "new_string": "b"}));
        assert!(output.is_error && output.content.contains(expected), "{path}: {}", output.content);
    }
}

#[test]
fn edit_file_keeps_crlf_line_endings() {
    let project = TempDir::new("edit-crlf");
    project.write("w.txt", "one\r\ntwo\r\nthree\r\n");
    let output =
        edit_json(&project, json!({"path": "w.txt", "old_string": "one\ntwo", "new_string": "uno\ndos\ndos bis"}));
    assert!(!output.is_error, "{}", output.content);
    assert_eq!(project.read("w.txt"), "uno\r\ndos\r\ndos bis\r\nthree\r\n");
}

#[test]
fn edit_file_rejects_bad_arguments() {
    check_rejects_bad_arguments(&EditFileTool, "path");
    let project = TempDir::new("edit-args");
    let output = edit_json(&project, json!({"path": "a", "old_string": "x"}));
    assert!(output.content.contains("missing field `new_string`"), "{}", output.content);
}
