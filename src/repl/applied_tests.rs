//! Tests of `applied.rs`: an applied change's rows, folded, summarised and inert.

use super::*;
use crate::glyphs::{ASCII, UNICODE};

fn change(diff: &str, counts: (usize, usize), summary: Option<&str>) -> FileChange {
    FileChange {
        path: "src/a.rs".into(),
        created: false,
        lines_added: counts.0,
        lines_removed: counts.1,
        diff: diff.into(),
        summary: summary.map(String::from),
    }
}

const DIFF: &str = "--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1,3 +1,3 @@\n fn greet() {\n-    hello\n+    there\n }\n";

#[test]
fn a_change_made_without_a_question_shows_its_diff_under_the_tool() {
    let shown = render_applied(&change(DIFF, (1, 1), None), false, false, &UNICODE, 80);
    assert_eq!(shown, "    @@ -1,3 +1,3 @@\n     fn greet() {\n    -    hello\n    +    there\n     }\n");
}

#[test]
fn the_diff_is_coloured_as_the_approval_prompt_colours_it() {
    let shown = render_applied(&change(DIFF, (1, 1), None), false, true, &UNICODE, 80);
    let expected = "    \x1b[36m@@ -1,3 +1,3 @@\x1b[0m\n     fn greet() {\n    \x1b[31m-    hello\x1b[0m\n    \
                    \x1b[32m+    there\x1b[0m\n     }\n";
    assert_eq!(shown, expected);
    // The rows are the approval prompt's: headers bold, the rest as above.
    assert_eq!(diff_row("--- a/f", true, 80), "\x1b[1m--- a/f\x1b[0m");
    assert_eq!(diff_row("+++ b/f", true, 80), "\x1b[1m+++ b/f\x1b[0m");
    assert_eq!(diff_row("\\ No newline at end of file", true, 80), "\\ No newline at end of file");
    assert_eq!(diff_row("", true, 80), "");
}

#[test]
fn file_content_never_reaches_the_terminal_raw() {
    let hostile = "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-\x1b[2Jclear\r\n+title\x1b]0;x\x07\u{202e}\n";
    let shown = render_applied(&change(hostile, (1, 1), None), false, false, &UNICODE, 80);
    assert!(!shown.contains('\x1b') && !shown.contains('\x07') && !shown.contains('\u{202e}'), "{shown:?}");
    assert_eq!(shown, "    @@ -1 +1 @@\n    -^[[2Jclear\n    +title^[]0;x^G\\u{202e}\n");
    let summary = render_applied(&change("", (0, 0), Some("binary \x1b[2J")), false, false, &UNICODE, 80);
    assert_eq!(summary, "    binary ^[[2J\n");
}

#[test]
fn a_long_diff_is_folded_with_a_count_of_the_rest() {
    let body: String = (0..57 + SHOWN_DIFF_LINES).map(|n| format!("+line {n}\n")).collect();
    let diff = format!("--- /dev/null\n+++ b/src/a.rs\n@@ -0,0 +1,97 @@\n{body}");
    let shown = render_applied(&change(&diff, (97, 0), None), false, false, &UNICODE, 80);
    let lines: Vec<&str> = shown.lines().collect();
    assert_eq!(lines.len(), SHOWN_DIFF_LINES + 1);
    assert_eq!(lines[0], "    @@ -0,0 +1,97 @@");
    assert_eq!(lines[SHOWN_DIFF_LINES - 1], format!("    +line {}", SHOWN_DIFF_LINES - 2));
    assert_eq!(lines[SHOWN_DIFF_LINES], "    … 58 more lines");
    // Exactly the limit: nothing folded.
    let exact: String = (0..SHOWN_DIFF_LINES).map(|n| format!("+{n}\n")).collect();
    let shown = render_applied(&change(&format!("--- a\n+++ b\n{exact}"), (40, 0), None), false, false, &UNICODE, 80);
    assert_eq!(shown.lines().count(), SHOWN_DIFF_LINES);
    assert!(!shown.contains('…'));
}

#[test]
fn a_long_line_wraps_inside_the_indent_with_its_marker_on_every_row() {
    let diff = "--- a\n+++ b\n@@ -1 +1 @@\n+let greeting = concatenate(first_word, second_word);\n";
    let shown = render_applied(&change(diff, (1, 0), None), false, false, &UNICODE, 40);
    assert_eq!(shown, "    @@ -1 +1 @@\n    +let greeting =\n    +concatenate(first_word,\n    +second_word);\n");
    assert!(shown.lines().all(|line| line.chars().count() <= 40), "{shown}");
}

#[test]
fn an_approved_change_shows_only_its_counts() {
    assert_eq!(render_applied(&change(DIFF, (1, 1), None), true, false, &UNICODE, 80), "    +1 −1\n");
    assert_eq!(render_applied(&change(DIFF, (1, 1), None), true, false, &ASCII, 80), "    +1 -1\n");
    assert_eq!(
        render_applied(&change(DIFF, (12, 3), None), true, true, &UNICODE, 80),
        "    \x1b[32m+12\x1b[0m \x1b[31m−3\x1b[0m\n"
    );
}

#[test]
fn summaries_and_no_change_are_one_dim_line() {
    let binary = change("", (0, 0), Some("binary file: 3 B -> 4 B"));
    assert_eq!(render_applied(&binary, false, false, &UNICODE, 80), "    binary file: 3 B -> 4 B\n");
    assert_eq!(render_applied(&binary, true, true, &UNICODE, 80), "    \x1b[2mbinary file: 3 B -> 4 B\x1b[0m\n");
    let same = change("", (0, 0), None);
    assert_eq!(
        render_applied(&same, false, false, &UNICODE, 80),
        "    (no change: the file already had this content)\n"
    );
}
