//! Tests of the event renderer: exact bytes for a plain (no colour, no
//! animation) renderer, and the spinner's wipe-before-write rule.

use super::*;
use crate::glyphs::ASCII;

fn plain(width: usize) -> Renderer<Vec<u8>> {
    Renderer::new(Vec::new(), false, false, width)
}

fn output(renderer: Renderer<Vec<u8>>) -> String {
    String::from_utf8(renderer.into_inner()).unwrap()
}

#[test]
fn text_streams_as_it_arrives_and_wraps_at_word_boundaries() {
    let now = Instant::now();
    let mut renderer = plain(20);
    renderer.iteration(now).unwrap();
    for delta in ["The quick brown", " fox jumps over the", " lazy dog.\nNext", " line"] {
        renderer.text(delta, now).unwrap();
    }
    renderer.done(Stop::Completed, now).unwrap();
    assert_eq!(output(renderer), "The quick brown fox\njumps over the lazy\ndog.\nNext line\n");
}

#[test]
fn a_word_longer_than_the_line_is_broken_hard() {
    let now = Instant::now();
    let mut renderer = plain(20);
    renderer.text("ab ", now).unwrap();
    renderer.text(&"x".repeat(45), now).unwrap();
    renderer.done(Stop::Completed, now).unwrap();
    let expected = format!("ab\n{}\n{}\n{}\n", "x".repeat(20), "x".repeat(20), "x".repeat(5));
    assert_eq!(output(renderer), expected);
}

#[test]
fn escape_sequences_in_text_and_tool_output_are_inert() {
    let now = Instant::now();
    let mut renderer = plain(80);
    renderer.text("\x1b[2Jhi\r[y] yes once", now).unwrap();
    renderer.tool_start("1", "task", "\x1b]0;title\x07", now).unwrap();
    let end = ToolEnd {
        id: "1",
        name: "task",
        result: "\x1b[2J",
        is_error: false,
        elapsed: Duration::from_millis(3),
        change: None,
        approved_by_user: false,
    };
    renderer.tool_end(&end, now).unwrap();
    let text = output(renderer);
    assert!(!text.contains('\x1b') && !text.contains('\r') && !text.contains('\x07'), "{text:?}");
    assert_eq!(text, "^[[2Jhi^M[y] yes once\n● task ^[]0;title^G  (3 ms)\n  ⎿ ^[[2J\n");
}

#[test]
fn tool_lines_pair_starts_with_ends_and_show_elapsed_time() {
    let now = Instant::now();
    let mut renderer = plain(80);
    renderer.text("Let me look.", now).unwrap();
    renderer.tool_start("a", "read_file", "src/main.rs", now).unwrap();
    renderer.tool_start("b", "grep", "fn main", now).unwrap();
    let first = ToolEnd {
        id: "a",
        name: "read_file",
        result: "fn main() {}",
        is_error: false,
        elapsed: Duration::from_millis(12),
        change: None,
        approved_by_user: false,
    };
    let second = ToolEnd {
        id: "b",
        name: "grep",
        result: "no match",
        is_error: true,
        elapsed: Duration::from_millis(1500),
        change: None,
        approved_by_user: false,
    };
    renderer.tool_end(&first, now).unwrap();
    renderer.tool_end(&second, now).unwrap();
    assert_eq!(
        output(renderer),
        "Let me look.\n● read_file src/main.rs  (12 ms)\n  ⎿ fn main() {}\n● grep fn main  (1.5 s)\n  ⎿ no match\n"
    );
}

/// A write that ran unasked shows its diff under its result; one a person approved, its counts.
#[test]
fn a_change_is_shown_under_its_tool_line() {
    let now = Instant::now();
    let mut renderer = plain(80);
    let change = crate::agent::FileChange {
        path: "a.txt".into(),
        created: false,
        lines_added: 1,
        lines_removed: 1,
        diff: "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+new\n".into(),
        summary: None,
    };
    for approved_by_user in [false, true] {
        renderer.tool_start("e", "edit_file", "a.txt", now).unwrap();
        let end = ToolEnd {
            id: "e",
            name: "edit_file",
            result: "edited a.txt: 1 replacement (first at line 1)",
            is_error: false,
            elapsed: Duration::from_millis(2),
            change: Some(&change),
            approved_by_user,
        };
        renderer.tool_end(&end, now).unwrap();
    }
    let line = "● edit_file a.txt  (2 ms)\n  ⎿ edited a.txt: 1 replacement (first at line 1)\n";
    assert_eq!(output(renderer), format!("{line}    @@ -1 +1 @@\n    -old\n    +new\n{line}    +1 −1\n"));
}

#[test]
fn thinking_is_summarised_in_one_line() {
    let start = Instant::now();
    let mut renderer = plain(60);
    renderer.thinking("First I consider\nthe", start).unwrap();
    renderer.thinking(" options.", start).unwrap();
    renderer.text("Answer.", start + Duration::from_millis(2500)).unwrap();
    renderer.done(Stop::Completed, start).unwrap();
    assert_eq!(output(renderer), "✻ thought for 2.5s (29 chars): First I consider…\nAnswer.\n");
}

#[test]
fn retry_says_what_happened_and_when_before_the_answer() {
    let now = Instant::now();
    let mut renderer = plain(80);
    renderer.iteration(now).unwrap();
    renderer.retry("rate limited (429), retrying in 5 s (attempt 2 of 4)", now).unwrap();
    renderer.text("Answer.", now).unwrap();
    renderer.done(Stop::Completed, now).unwrap();
    assert_eq!(output(renderer), "⟲ rate limited (429), retrying in 5 s (attempt 2 of 4)\nAnswer.\n");
}

#[test]
fn restart_marks_the_partial_answer_void_and_notices_and_errors_get_their_own_lines() {
    let now = Instant::now();
    let mut renderer = plain(80);
    renderer.iteration(now).unwrap();
    renderer.text("Half an ans", now).unwrap();
    renderer.restart(1, 2, "connection reset", now).unwrap();
    renderer.text("Whole answer.", now).unwrap();
    renderer.notice("stopped: reached the limit", now).unwrap();
    renderer.error("boom", now).unwrap();
    renderer.done(Stop::Cancelled, now).unwrap();
    assert_eq!(
        output(renderer),
        "Half an ans\n⟲ connection lost (connection reset), retrying (1/2); the partial answer above\n  is void\n\
         Whole answer.\n· stopped: reached the limit\n✗ error: boom\n(cancelled)\n"
    );
}

#[test]
fn the_spinner_draws_only_its_own_line_and_is_wiped_before_text() {
    let start = Instant::now();
    let mut renderer = Renderer::new(Vec::new(), false, true, 80);
    renderer.iteration(start).unwrap();
    renderer.tick(start).unwrap();
    renderer.tick(start + Duration::from_millis(10)).unwrap(); // within the period: no redraw
    renderer.tick(start + Duration::from_millis(1200)).unwrap();
    renderer.text("Hi", start).unwrap();
    renderer.done(Stop::Completed, start).unwrap();
    let text = output(renderer);
    let first = "⠙ waiting for the model 0.0s";
    let second = "⠹ waiting for the model 1.2s";
    let wipe = " ".repeat(display_width(second));
    assert_eq!(text, format!("\r{first}\r\r{second}\r\r{wipe}\rHi\n"));
    assert!(!text.contains('\x1b'), "no escapes without colour");
}

#[test]
fn an_ascii_renderer_writes_only_ascii_of_its_own() {
    let start = Instant::now();
    let mut renderer = Renderer::new(Vec::new(), false, true, 40).with_glyphs(&ASCII);
    renderer.iteration(start).unwrap();
    for frame in 0..5 {
        renderer.tick(start + Duration::from_millis(100 * frame)).unwrap();
    }
    renderer.thinking("Let me weigh a very long chain of considerations first", start).unwrap();
    renderer.retry("rate limited (429), retrying in 5 s", start).unwrap();
    renderer.tool_start("a", "read_file", "src/main.rs", start).unwrap();
    let end = ToolEnd {
        id: "a",
        name: "read_file",
        result: "fn main() {}",
        is_error: false,
        elapsed: Duration::from_millis(3),
        change: None,
        approved_by_user: false,
    };
    renderer.tool_end(&end, start).unwrap();
    renderer.notice("compacting the conversation", start).unwrap();
    renderer.error("boom", start).unwrap();
    let text = output(renderer);
    assert!(text.is_ascii(), "{text}");
    // The spinner turns through `|/-\`.
    for frame in ["\r/ waiting", "\r- waiting", "\r\\ waiting", "\r| waiting"] {
        assert!(text.contains(frame), "{frame:?} in {text:?}");
    }
    assert!(text.contains("* thought for 0.0s (54 chars): Let m...\n"), "{text:?}");
    assert!(text.contains("\n~ rate limited (429), retrying in 5 s\n"), "{text:?}");
    assert!(text.contains("\n* read_file src/main.rs  (3 ms)\n  |_ fn main() {}\n"), "{text:?}");
    assert!(text.contains("\n- compacting the conversation\nx error: boom\n"), "{text:?}");
}

#[test]
fn colour_only_when_asked() {
    let now = Instant::now();
    let mut coloured = Renderer::new(Vec::new(), true, false, 80);
    coloured.error("x", now).unwrap();
    assert_eq!(output(coloured), "\x1b[31m✗ error: x\x1b[0m\n");
}

#[test]
fn widths_and_counts() {
    assert_eq!(display_width("abc"), 3);
    assert_eq!(display_width("日本"), 4);
    assert_eq!(display_width("e\u{301}"), 1);
    assert_eq!(human_count(950), "950");
    assert_eq!(human_count(12_345), "12.3k");
    assert_eq!(human_count(4_500_000), "4.5M");
    assert_eq!(format_elapsed(Duration::from_millis(12)), "12 ms");
    assert_eq!(format_elapsed(Duration::from_millis(2345)), "2.3 s");
}

#[test]
fn a_whole_turn_renders_as_the_golden_file_in_colour() {
    // Every kind of line a turn prints, with the colours, at 60 columns.
    let now = Instant::now();
    let mut renderer = Renderer::new(Vec::new(), true, false, 60);
    renderer.iteration(now).unwrap();
    renderer.thinking("Weighing where main lives.", now).unwrap();
    renderer.text("Let me look at the entry point and the tests that cover it first.", now).unwrap();
    renderer.restart(1, 2, "connection reset", now).unwrap();
    renderer.text("Let me look.", now).unwrap();
    renderer.tool_start("a", "read_file", "src/main.rs", now).unwrap();
    renderer.tool_start("b", "grep", "fn main", now).unwrap();
    let read = ToolEnd {
        id: "a",
        name: "read_file",
        result: "fn main() {}",
        is_error: false,
        elapsed: Duration::from_millis(4),
        change: None,
        approved_by_user: false,
    };
    renderer.tool_end(&read, now).unwrap();
    let grep = ToolEnd {
        id: "b",
        name: "grep",
        result: "bad regex",
        is_error: true,
        elapsed: Duration::from_millis(1500),
        change: None,
        approved_by_user: false,
    };
    renderer.tool_end(&grep, now).unwrap();
    renderer.retry("rate limited (429), retrying in 2 s (attempt 2 of 4)", now).unwrap();
    renderer.text("main is in src/main.rs.", now).unwrap();
    renderer.notice("stopped: reached the limit of 25 iterations", now).unwrap();
    renderer.error("network error: connection refused", now).unwrap();
    renderer.done(Stop::IterationLimit, now).unwrap();
    crate::test_golden::assert_golden("repl-turn.txt", &output(renderer));
}

#[test]
fn wrap_breaks_between_words_with_a_hanging_indent() {
    let check = |text: &str, width: usize, hang: usize, expected: &str| {
        assert_eq!(wrap(text, width, hang), expected, "{text:?} at {width}");
    };
    check("short line", 40, 0, "short line");
    check(
        "This project has its own mewcode config which would enable these servers",
        40,
        0,
        "This project has its own mewcode config\nwhich would enable these servers",
    );
    check(
        "  /resume [N|ID]   list this project's sessions, or continue one",
        40,
        4,
        "  /resume [N|ID]   list this project's\n    sessions, or continue one",
    );
    // Explicit newlines stay; leading blanks of a line are kept, trailing ones dropped.
    check("one  \n    indented code", 40, 0, "one\n    indented code");
    // Only a word longer than a line is split.
    check(&format!("ab {}", "x".repeat(25)), 20, 2, &format!("ab\n  {}\n  {}", "x".repeat(18), "x".repeat(7)));
}

#[test]
fn tool_results_and_notices_wrap_under_their_own_text() {
    let now = Instant::now();
    let mut renderer = plain(30);
    renderer.notice("the session log could not be written to disk", now).unwrap();
    assert_eq!(output(renderer), "· the session log could not be\n  written to disk\n");
}

#[test]
fn a_running_commands_last_lines_show_under_the_spinner_and_go_with_it() {
    let start = Instant::now();
    let mut renderer = Renderer::new(Vec::new(), false, true, 40);
    renderer.tool_start("c1", "bash", "make test", start).unwrap();
    let live = crate::tools::LiveTail::new();
    renderer.watch(live.clone(), start).unwrap();
    let progress = live.progress();
    for n in 1..=6 {
        progress.line(&format!("line {n} \x1b[31mred\x1b[0m"));
        // A new line is drawn at the next tick, whatever the spinner's period.
        renderer.tick(start).unwrap();
    }
    let end = ToolEnd {
        id: "c1",
        name: "bash",
        result: "ok",
        is_error: false,
        elapsed: Duration::from_millis(5),
        change: None,
        approved_by_user: false,
    };
    renderer.tool_end(&end, start + SPINNER_PERIOD * 7).unwrap();
    let text = output(renderer);
    // The last frame: the spinner, the last four lines (neutralised), back up four rows.
    let last = text.rfind("\r\x1b[J").unwrap();
    let frames = &text[..last];
    let frame = &frames[frames.rfind("\r\x1b[J").unwrap()..];
    assert!(frame.contains("running bash make test"), "{frame:?}");
    assert!(frame.contains("\r\n    line 6 ^[[31mred^[[0m"), "{frame:?}");
    assert!(!frame.contains("line 2"), "only the last four: {frame:?}");
    assert!(frame.ends_with("\x1b[4A\r"), "{frame:?}");
    // Wiped with everything below it before the tool's line.
    assert!(text[last..].starts_with("\r\x1b[J● bash make test"), "{:?}", &text[last..]);
}

#[test]
fn without_cursor_movement_no_live_lines_are_drawn() {
    let now = Instant::now();
    let mut renderer = plain(40);
    renderer.tool_start("c1", "bash", "ls", now).unwrap();
    let live = crate::tools::LiveTail::new();
    renderer.watch(live.clone(), now).unwrap();
    live.progress().line("a line");
    renderer.tick(now + SPINNER_PERIOD).unwrap();
    assert!(!output(renderer).contains("a line"));
}
