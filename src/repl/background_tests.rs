//! Tests of the background news: one dim line per server that connected, a warning line each.

use super::*;
use crate::glyphs::{ASCII, UNICODE};

#[test]
fn background_news_is_one_dim_line_per_connect_and_a_warning_line_each() {
    let connected = Background::Mcp(crate::mcp::Update {
        server: "slow".into(),
        tools: Some(1),
        warnings: vec![Warning::new("mcp server slow", "new tools since last time: echo")],
    });
    assert_eq!(
        render_background(&connected, false, &UNICODE, 80),
        "mcp server slow connected: 1 tool\n⚠ mcp server slow: new tools since last time: echo"
    );
    assert_eq!(
        render_background(&connected, true, &UNICODE, 80),
        "\x1b[2mmcp server slow connected: 1 tool\x1b[0m\n\x1b[33m⚠ mcp server slow: new tools since last time: echo\x1b[0m"
    );
    let failed = Background::Mcp(crate::mcp::Update {
        server: "bad\x1b[2J".into(),
        tools: None,
        warnings: vec![Warning::new("mcp server bad", "timed out\x1b[2J; its tools are unavailable")],
    });
    assert_eq!(
        render_background(&failed, false, &UNICODE, 80),
        "⚠ mcp server bad: timed out^[[2J; its tools are unavailable"
    );
    let late = Background::Warning(Warning::new("mcp server docs", "the tool returned an image"));
    assert_eq!(render_background(&late, false, &UNICODE, 80), "⚠ mcp server docs: the tool returned an image");
}

#[test]
fn background_warnings_wrap_at_words_and_use_the_locales_mark() {
    let late =
        Background::Warning(Warning::new("mcp server docs", "the tool returned an image, which is not shown here"));
    assert_eq!(
        render_background(&late, false, &ASCII, 40),
        "! mcp server docs: the tool returned an\n  image, which is not shown here"
    );
}

#[test]
fn background_news_stays_small_on_its_channel() {
    // A fatter variant is a decision: box its payload or raise this bound.
    assert!(std::mem::size_of::<Background>() <= 64);
}
