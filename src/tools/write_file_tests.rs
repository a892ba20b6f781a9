//! Unit tests of `write_file.rs`: whole files written, and the failures the model is told.

use super::*;
use crate::test_dir::TempDir;
use crate::tools::test_support::{ProjectContext, check_rejects_bad_arguments, run};
use serde_json::json;
use std::os::unix::fs::PermissionsExt;

#[test]
fn write_file_creates_nested_directories_and_reports_created() {
    let project = TempDir::new("write-new");
    let output = run(&WriteFileTool, &project.ctx(), json!({"path": "a/b/c/new.txt", "content": "one\ntwo\n"}));
    assert_eq!(output, ToolOutput::ok("created a/b/c/new.txt (8 bytes, 2 lines)"));
    assert_eq!(project.read("a/b/c/new.txt"), "one\ntwo\n");
}

#[test]
fn write_file_overwrites_and_keeps_permissions() {
    let project = TempDir::new("write-over");
    let path = project.write("run.sh", "old");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    let output = run(&WriteFileTool, &project.ctx(), json!({"path": "run.sh", "content": "#!/bin/sh\necho hi"}));
    assert_eq!(output, ToolOutput::ok("overwrote run.sh (17 bytes, 2 lines)"));
    assert_eq!(project.read("run.sh"), "#!/bin/sh\necho hi");
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o755);
}

#[test]
fn write_file_refuses_a_directory() {
    let project = TempDir::new("write-dir");
    project.write("d/x", "");
    let output = run(&WriteFileTool, &project.ctx(), json!({"path": "d", "content": "x"}));
    assert!(output.is_error);
    assert!(output.content.contains("is a directory"));
}

#[test]
fn write_file_reports_an_unwritable_location() {
    let project = TempDir::new("write-blocked");
    project.write("file", "x");
    let output = run(&WriteFileTool, &project.ctx(), json!({"path": "file/child.txt", "content": "x"}));
    assert!(output.is_error, "{}", output.content);
}

#[test]
fn write_file_empty_content_creates_an_empty_file() {
    let project = TempDir::new("write-empty");
    let output = run(&WriteFileTool, &project.ctx(), json!({"path": "e.txt", "content": ""}));
    assert_eq!(output, ToolOutput::ok("created e.txt (0 bytes, 0 lines)"));
}

#[test]
fn write_file_rejects_bad_arguments() {
    check_rejects_bad_arguments(&WriteFileTool, "path");
    let project = TempDir::new("write-nocontent");
    let output = run(&WriteFileTool, &project.ctx(), json!({"path": "x.txt"}));
    assert!(output.content.contains("missing field `content`"), "{}", output.content);
}

#[test]
fn count_lines_counts_a_final_unterminated_line() {
    let cases = [("", 0), ("a", 1), ("a\n", 1), ("a\nb", 2), ("\n\n", 2)];
    for (text, expected) in cases {
        assert_eq!(count_lines(text), expected, "{text:?}");
    }
}
