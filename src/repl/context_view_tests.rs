//! Tests of `/context`'s table.

use super::*;

#[test]
fn the_table_has_a_row_per_part_the_total_and_the_free_space() {
    let view = View {
        provider: "fake".to_string(),
        model: "test-model".to_string(),
        window: 200_000,
        parts: vec![
            ("system prompt".to_string(), 1_234),
            ("memory: AGENTS.md".to_string(), 300),
            ("tools: 7 built-in".to_string(), 2_000),
            ("messages: user (0)".to_string(), 0),
        ],
        measured: Some(3_600),
        compact_at: Some(160_000),
    };
    let expected = [
        "context window of fake · test-model: 200.0k tokens",
        "  part                             tokens  window",
        "  system prompt                      1.2k    0.6%",
        "  memory: AGENTS.md                   300    0.1%",
        "  tools: 7 built-in                  2.0k    1.0%",
        "  messages: user (0)                    0    0.0%",
        "  ───────────────────────────────────────────────",
        "  total (estimated)                  3.5k    1.8%",
        "  free                             196.5k   98.2%",
        "(estimated at 3.5 characters a token; the server counted 3.6k in the last request; automatic compaction \
         starts at 160.0k)",
    ];
    assert_eq!(render_context(&view, &crate::glyphs::UNICODE), expected);
}

#[test]
fn a_context_over_the_window_has_nothing_free() {
    let view = View {
        provider: "p".to_string(),
        model: "m".to_string(),
        window: 1_000,
        parts: vec![("messages: user (1)".to_string(), 1_500)],
        measured: None,
        compact_at: None,
    };
    let lines = render_context(&view, &crate::glyphs::UNICODE);
    assert_eq!(lines[lines.len() - 2], "  free                                  0    0.0%");
    assert_eq!(lines[lines.len() - 1], "(estimated at 3.5 characters a token)");
}

#[test]
fn a_long_label_widens_the_column_for_every_row() {
    let view = View {
        provider: "p".to_string(),
        model: "m".to_string(),
        window: 10_000,
        parts: vec![("system prompt".to_string(), 500), ("memory: ~/.mewcode/AGENTS.md (+2 imports)".to_string(), 412)],
        measured: None,
        compact_at: None,
    };
    let lines = render_context(&view, &crate::glyphs::UNICODE);
    assert_eq!(lines[1], "  part                                        tokens  window");
    assert_eq!(lines[2], "  system prompt                                  500    5.0%");
    assert_eq!(lines[3], "  memory: ~/.mewcode/AGENTS.md (+2 imports)      412    4.1%");
    assert_eq!(lines[4], format!("  {}", "─".repeat(41 + 17)));
}
