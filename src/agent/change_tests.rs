//! Tests of `change.rs`: the diff and its counts, the summaries that stand in for it, the cap.

use super::*;

fn change(path: &str, created: bool, counts: (usize, usize), diff: &str, summary: Option<&str>) -> FileChange {
    FileChange {
        path: path.to_string(),
        created,
        lines_added: counts.0,
        lines_removed: counts.1,
        diff: diff.to_string(),
        summary: summary.map(String::from),
    }
}

#[test]
fn an_edit_of_a_text_file_is_its_unified_diff_with_counts() {
    let before = b"one\ntwo\nthree\n";
    let after = b"one\n2\nthree\nfour\n";
    let described = describe_change("src/a.txt", Side::Bytes(before), Side::Bytes(after));
    let diff = "--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1,3 +1,4 @@\n one\n-two\n+2\n three\n+four\n";
    assert_eq!(described, Some(change("src/a.txt", false, (2, 1), diff, None)));
}

#[test]
fn a_created_file_diffs_against_dev_null() {
    let described = describe_change("new.txt", Side::Absent, Side::Bytes(b"a\nb\n"));
    let diff = "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n";
    assert_eq!(described, Some(change("new.txt", true, (2, 0), diff, None)));
    // An empty file written: created, nothing to diff.
    assert_eq!(describe_change("e", Side::Absent, Side::Bytes(b"")), Some(change("e", true, (0, 0), "", None)));
}

#[test]
fn the_same_content_written_again_is_no_change_and_no_file_after_is_nothing_to_show() {
    assert_eq!(
        describe_change("a", Side::Bytes(b"x\n"), Side::Bytes(b"x\n")),
        Some(change("a", false, (0, 0), "", None))
    );
    assert_eq!(describe_change("a", Side::Bytes(b"x\n"), Side::Absent), None);
    assert_eq!(describe_change("a", Side::Absent, Side::Absent), None);
}

#[test]
fn binary_and_large_files_get_a_summary_instead_of_a_diff() {
    let summary = |before, after| describe_change("f", before, after).and_then(|change| change.summary);
    let binary = Side::Bytes(b"\x00\x01\x02");
    let not_utf8 = Side::Bytes(b"caf\xe9\n");
    assert_eq!(summary(binary, Side::Bytes(b"text")), Some("binary file: 3 B -> 4 B".into()));
    assert_eq!(summary(Side::Bytes(b"text"), not_utf8), Some("binary file: 4 B -> 5 B".into()));
    assert_eq!(summary(Side::Absent, binary), Some("binary file: created, 3 B".into()));
    let large = Side::Large { len: 5 * 1024 * 1024 + 200 * 1024 };
    assert_eq!(summary(large, Side::Bytes(b"ok\n")), Some("too large to diff: 5.2 MiB -> 3 B".into()));
    assert_eq!(summary(Side::Bytes(b"ok\n"), large), Some("too large to diff: 3 B -> 5.2 MiB".into()));
    assert_eq!(summary(Side::Absent, large), Some("too large to diff: created, 5.2 MiB".into()));
    assert_eq!(summary(large, binary), Some("binary file: 5.2 MiB -> 3 B".into()));
    let whole = describe_change("f", binary, binary).unwrap();
    assert_eq!(whole, change("f", false, (0, 0), "", Some("binary file: 3 B -> 3 B")));
}

#[test]
fn sizes_read_in_binary_units() {
    let cases = [
        (0, "0 B"),
        (1023, "1023 B"),
        (1024, "1.0 KiB"),
        (1536, "1.5 KiB"),
        (1024 * 1024 - 1, "1024.0 KiB"),
        (1024 * 1024, "1.0 MiB"),
        (3 * 1024 * 1024 * 1024, "3.0 GiB"),
        (2048 * 1024 * 1024 * 1024, "2048.0 GiB"),
    ];
    for (len, expected) in cases {
        assert_eq!(human_bytes(len), expected, "{len}");
    }
}

/// Only the two header lines are skipped: a content line that looks like a header still counts.
#[test]
fn counts_are_the_plus_and_minus_lines_of_the_body() {
    assert_eq!(count_changes(""), (0, 0));
    assert_eq!(count_changes("--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n-x\n+++ y\n+--- z\n \\ No newline\n"), (2, 1));
    let described = describe_change("f", Side::Bytes(b"x\n"), Side::Bytes(b"++ y\n-- z\n")).unwrap();
    assert_eq!((described.lines_added, described.lines_removed), (2, 1));
}

#[test]
fn a_huge_diff_is_cut_at_a_line_and_says_how_many_more_lines() {
    // Lines of 100 bytes with a two-byte character, so the cut could fall inside one.
    let line = format!("{}é\n", "x".repeat(97));
    let after: String = (0..4000).map(|n| format!("{n:05}{line}")).collect();
    let described = describe_change("big.txt", Side::Absent, Side::Bytes(after.as_bytes())).unwrap();
    assert_eq!((described.lines_added, described.lines_removed), (4000, 0), "the counts are the whole diff's");
    let kept_lines = described.diff.lines().count();
    assert!(described.diff.len() <= MAX_DIFF_BYTES + 100, "{}", described.diff.len());
    let note = described.diff.lines().last().unwrap();
    // 3 header lines and 4000 added lines in all; all but the kept ones (note aside) are counted.
    assert_eq!(note, format!("... diff cut at 256 KiB: {} more lines", 4003 - (kept_lines - 1)));
    let before_note = &described.diff[..described.diff.len() - note.len() - 1];
    assert!(before_note.ends_with("é\n"), "cut at a line end");
    assert!(before_note.len() <= MAX_DIFF_BYTES && before_note.len() > MAX_DIFF_BYTES - 110);
    // Exactly at the cap nothing is cut.
    assert_eq!(cap("x".repeat(MAX_DIFF_BYTES)), "x".repeat(MAX_DIFF_BYTES));
}
