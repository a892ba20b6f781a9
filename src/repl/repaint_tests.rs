//! Unit tests of `repaint.rs`: when the status line may be painted, the bytes, the thread.

use super::*;

/// A live view of a read on an 80-column terminal whose prompt and `line` were drawn at `at`.
fn drawn(line: &str, at: Instant) -> PromptView {
    let mut view = PromptView::default();
    view.set_live(true);
    view.begin(Some(80));
    view.drew_prompt(true, at);
    view.drew_input(line, at);
    view
}

#[test]
fn an_idle_prompt_is_painted_once_rustyline_has_had_time_to_draw_it() {
    let at = Instant::now();
    let view = drawn("", at);
    assert_eq!(view.plan(at + Duration::from_millis(10), Some(80)), Plan::Wait(Duration::from_millis(20)));
    assert_eq!(view.plan(at + SETTLE, Some(80)), Plan::Paint);
    assert_eq!(view.plan(at + Duration::from_secs(5), Some(80)), Plan::Paint);
    assert_eq!(drawn("fix the parser", at).plan(at + SETTLE, Some(80)), Plan::Paint);
}

#[test]
fn nothing_is_painted_where_the_status_line_may_not_be() {
    let later = |view: &PromptView| view.plan(Instant::now() + Duration::from_secs(1), Some(80));
    let at = Instant::now();
    // Not reading, or nothing drawn yet.
    assert_eq!(later(&PromptView::default()), Plan::Skip);
    let mut view = PromptView::default();
    view.set_live(true);
    view.begin(Some(80));
    assert_eq!(later(&view), Plan::Skip);
    // The input was submitted.
    let mut view = drawn("", at);
    view.end();
    assert_eq!(later(&view), Plan::Skip);
    // A second line, a tab, a line that wraps, a wide one that may.
    for line in ["one\\\ntwo", "a\tb", &"x".repeat(78), &"日".repeat(39)] {
        assert_eq!(later(&drawn(line, at)), Plan::Skip, "{line:?}");
    }
    assert_eq!(later(&drawn(&"x".repeat(77), at)), Plan::Paint);
    // The reverse search's prompt, a completion question.
    let mut view = drawn("", at);
    view.drew_prompt(false, at);
    assert_eq!(later(&view), Plan::Skip);
    let mut view = drawn("/m", at);
    view.asked_elsewhere(at);
    assert_eq!(later(&view), Plan::Skip);
    view.drew_prompt(true, at);
    assert_eq!(later(&view), Plan::Paint);
    // The window was resized since the prompt was drawn.
    assert_eq!(drawn("", at).plan(at + SETTLE, Some(100)), Plan::Skip);
    // No cursor movement on this terminal.
    let mut view = drawn("", at);
    view.set_live(false);
    assert_eq!(later(&view), Plan::Skip);
}

#[test]
fn the_repaint_goes_up_one_row_and_puts_the_cursor_back() {
    assert_eq!(repaint_bytes("fake · mcp 1/2"), "\x1b7\x1b[1A\r\x1b[2Kfake · mcp 1/2\x1b8");
}

#[test]
fn wakes_while_one_is_pending_merge_and_the_painter_stops_when_dropped() {
    let (painted_tx, painted_rx) = crossbeam_channel::unbounded();
    let painter = Painter::spawn(move |_| {
        let _ = painted_tx.send(());
        None
    });
    let wake = painter.waker();
    wake.wake();
    painted_rx.recv_timeout(Duration::from_secs(5)).unwrap();
    drop(painter);
    // The thread is gone: its sender with it, and later wakes go nowhere.
    wake.wake();
    assert!(painted_rx.recv_timeout(Duration::from_secs(5)).is_err());
}
