//! Tests of the line diff: exact unified output, and every script rebuilds the new text.

use super::*;

fn check(old: &str, new: &str, expected: &str) {
    let diff = unified_diff(old, new, "a/f", "b/f", 3);
    assert_eq!(diff, expected, "\n--- got:\n{diff}");
    // The script must rebuild `new` from `old`.
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    let rebuilt: String = diff_lines(&old_lines, &new_lines)
        .iter()
        .filter(|step| step.op != Op::Delete)
        .map(|step| match step.op {
            Op::Equal => old_lines[step.old],
            Op::Insert | Op::Delete => new_lines[step.new],
        })
        .collect();
    assert_eq!(rebuilt, new);
}

#[test]
fn equal_texts_have_no_diff() {
    check("a\nb\n", "a\nb\n", "");
    check("", "", "");
}

#[test]
fn insertion_in_the_middle_with_context() {
    check(
        "1\n2\n3\n4\n5\n6\n7\n8\n",
        "1\n2\n3\n4\nnew\n5\n6\n7\n8\n",
        "--- a/f\n+++ b/f\n@@ -2,6 +2,7 @@\n 2\n 3\n 4\n+new\n 5\n 6\n 7\n",
    );
}

#[test]
fn deletion_at_the_start_and_the_end() {
    check("x\na\nb\n", "a\nb\n", "--- a/f\n+++ b/f\n@@ -1,3 +1,2 @@\n-x\n a\n b\n");
    check("a\nb\nx\n", "a\nb\n", "--- a/f\n+++ b/f\n@@ -1,3 +1,2 @@\n a\n b\n-x\n");
}

#[test]
fn replacement_shows_delete_then_insert() {
    check("a\nold\nb\n", "a\nnew\nb\n", "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-old\n+new\n b\n");
}

#[test]
fn a_moved_line_is_a_delete_and_an_insert() {
    check("move\na\nb\nc\n", "a\nb\nc\nmove\n", "--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n-move\n a\n b\n c\n+move\n");
}

#[test]
fn empty_files_on_either_side() {
    check("", "a\nb\n", "--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+a\n+b\n");
    check("a\n", "", "--- a/f\n+++ b/f\n@@ -1 +0,0 @@\n-a\n");
}

#[test]
fn missing_final_newline_is_marked() {
    check("a\nb", "a\nb\n", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n");
    check("a\n", "a\nb", "--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n a\n+b\n\\ No newline at end of file\n");
}

#[test]
fn distant_changes_make_separate_hunks_and_close_ones_merge() {
    let old: String = (1..=20).map(|n| format!("{n}\n")).collect();
    let far = old.replacen("2\n", "two\n", 1).replacen("19\n", "nineteen\n", 1);
    let diff = unified_diff(&old, &far, "a", "b", 3);
    assert_eq!(diff.matches("@@ -").count(), 2, "{diff}");
    assert!(diff.contains("@@ -1,5 +1,5 @@") && diff.contains("@@ -16,5 +16,5 @@"), "{diff}");
    let near = old.replacen("5\n", "five\n", 1).replacen("11\n", "eleven\n", 1);
    let diff = unified_diff(&old, &near, "a", "b", 3);
    assert_eq!(diff.matches("@@ -").count(), 1, "{diff}");
    assert!(diff.contains("@@ -2,13 +2,13 @@"), "{diff}");
}

#[test]
fn the_script_is_shortest_on_interleaved_changes() {
    let old = ["a", "b", "c", "a", "b", "b", "a"];
    let new = ["c", "b", "a", "b", "a", "c"];
    let changes = diff_lines(&old, &new).iter().filter(|step| step.op != Op::Equal).count();
    assert_eq!(changes, 5, "Myers' paper example has edit distance 5");
}

#[test]
fn huge_rewrites_fall_back_to_a_correct_replace_all() {
    let old: String = (0..3000).map(|n| format!("old {n}\n")).collect();
    let new: String = (0..3000).map(|n| format!("new {n}\n")).collect();
    let diff = unified_diff(&old, &new, "a", "b", 3);
    assert!(diff.starts_with("--- a\n+++ b\n@@ -1,3000 +1,3000 @@\n-old 0\n"), "{}", &diff[..80]);
    assert_eq!(diff.lines().filter(|line| line.starts_with('+') && !line.starts_with("+++")).count(), 3000);
}
