//! Tests of the status line: its figures, its width in every mode, and what goes first when
//! the terminal is narrow.

use super::*;

#[test]
fn status_line_keeps_its_width_across_modes_and_drops_figures_when_narrow() {
    let mut status = Status {
        provider: "fake",
        model: "test-model",
        mode: Mode::Default,
        context_used: 30_000,
        context_window: 200_000,
        session: Usage { input_tokens: 1200, output_tokens: 34, cache_write: 0, cache_read: 8000 },
        context_estimated: false,
        session_estimated: false,
        mcp: None,
    };
    let line = render_status(&status, &crate::glyphs::UNICODE, 120);
    assert_eq!(line, "fake · test-model · ctx 15% of 200.0k · 9.2k tokens · 8.0k cached · mode default    ");
    status.mode = Mode::AcceptEdits;
    assert_eq!(display_width(&render_status(&status, &crate::glyphs::UNICODE, 120)), display_width(&line));
    assert_eq!(
        render_status(&status, &crate::glyphs::UNICODE, 60),
        "fake · test-model · ctx 15% of 200.0k · mode acceptEdits"
    );
    status.mode = Mode::Bypass;
    assert_eq!(
        render_status(&status, &crate::glyphs::UNICODE, 120),
        "fake · test-model · ctx 15% of 200.0k · 9.2k tokens · 8.0k cached · mode BYPASS     "
    );
    status.mcp = Some(McpFigures { connected: 1, configured: 2, ..McpFigures::default() });
    assert_eq!(
        render_status(&status, &crate::glyphs::UNICODE, 120),
        "fake · test-model · ctx 15% of 200.0k · 9.2k tokens · 8.0k cached · mcp 1/2 · mode BYPASS     "
    );
}

#[test]
fn a_stopped_mcp_server_and_its_last_words_outlast_the_token_figures() {
    let mut status = Status {
        provider: "fake",
        model: "test-model",
        mode: Mode::Default,
        context_used: 30_000,
        context_window: 200_000,
        session: Usage { input_tokens: 1_000, output_tokens: 200, cache_read: 8_000, ..Usage::default() },
        context_estimated: false,
        session_estimated: false,
        mcp: Some(McpFigures {
            connected: 1,
            configured: 3,
            stopped: Some(("fs".into(), "fatal: disk full\u{1b}[2J".into())),
            more_stopped: 1,
        }),
    };
    let full = "fake · test-model · ctx 15% of 200.0k · 9.2k tokens · 8.0k cached · mcp 1/3 · fs stopped: fatal: disk full^[[2J (+1 more) · mode default    ";
    assert_eq!(render_status(&status, &crate::glyphs::UNICODE, 200), full);
    assert_eq!(
        render_status(&status, &crate::glyphs::UNICODE, 120),
        "fake · test-model · ctx 15% of 200.0k · mcp 1/3 · fs stopped: fatal: disk full^[[2J (+1 more) · mode default    "
    );
    assert_eq!(
        render_status(&status, &crate::glyphs::UNICODE, 100),
        "fake · test-model · ctx 15% of 200.0k · mcp 1/3 · fs stopped: fatal: … (+1 more) · mode default    "
    );
    assert_eq!(
        render_status(&status, &crate::glyphs::UNICODE, 90),
        "fake · test-model · ctx 15% of 200.0k · mcp 1/3 · fs stopped (+1 more) · mode default    "
    );
    assert_eq!(
        render_status(&status, &crate::glyphs::UNICODE, 70),
        "fake · test-model · ctx 15% of 200.0k · mode default    "
    );
    status.mcp =
        Some(McpFigures { connected: 0, configured: 1, stopped: Some(("fs".into(), "".into())), more_stopped: 0 });
    assert_eq!(
        render_status(&status, &crate::glyphs::UNICODE, 120),
        "fake · test-model · ctx 15% of 200.0k · 9.2k tokens · 8.0k cached · mcp 0/1 · fs stopped · mode default    "
    );
    for width in 20..200 {
        let line = render_status(&status, &crate::glyphs::UNICODE, width);
        assert!(display_width(&line) < width || !line.contains(" · mcp"), "{width}: {line}");
    }
}

#[test]
fn status_line_marks_estimated_figures_and_shows_a_small_window() {
    let status = Status {
        provider: "local",
        model: "qwen",
        mode: Mode::Default,
        context_used: 1_300,
        context_window: 4_096,
        session: Usage { input_tokens: 1_200, output_tokens: 100, cache_write: 0, cache_read: 0 },
        context_estimated: true,
        session_estimated: true,
        mcp: None,
    };
    assert_eq!(
        render_status(&status, &crate::glyphs::UNICODE, 120),
        "local · qwen · ctx ~32% of 4.1k · ~1.3k tokens · 0 cached · mode default    "
    );
}

#[test]
fn an_ascii_status_line_is_ascii() {
    let status = Status {
        provider: "local",
        model: "qwen",
        mode: Mode::Default,
        context_used: 1_300,
        context_window: 4_096,
        session: Usage::default(),
        context_estimated: false,
        session_estimated: false,
        mcp: None,
    };
    assert_eq!(
        render_status(&status, &crate::glyphs::ASCII, 120),
        "local | qwen | ctx 32% of 4.1k | 0 tokens | 0 cached | mode default    "
    );
}
