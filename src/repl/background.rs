//! News from the background: MCP servers that connected or failed (at start-up or after
//! `/mcp reconnect`) and warnings raised after the fact, said before the next prompt.
//!
//! Invariant: news is said only between turns, at the prompt: never lost, never in the middle
//! of a streamed answer. Every name and message in it comes from outside and is neutralised,
//! and every line is word-wrapped to the screen.

use super::chat::Chat;
use super::render::{DIM, YELLOW, paint, wrap};
use super::say;
use super::setup::{Background, Setup};
use crate::glyphs::Glyphs;
use crate::text::neutralize;
use crate::warning::Warning;

/// What happened in the background since the last prompt (MCP servers that connected or
/// failed, late warnings) is said now, before the prompt.
pub(super) fn say_background_news(setup: &Setup, chat: &Chat) {
    let mut news = false;
    for event in setup.background.iter().flat_map(|background| background.try_iter()) {
        say(&render_background(&event, setup.color, setup.glyphs, chat.screen.width));
        news = true;
    }
    // Between turns: a server that just connected shows in `/tools` at once (a turn refreshes
    // the registry anyway when it starts).
    if news {
        chat.agent.registry.refresh();
    }
}

/// How a background event is shown, wrapped to `width`: one dim line for a server that
/// connected, a yellow `⚠` line per warning (a failed server's warning says why).
fn render_background(event: &Background, color: bool, glyphs: &Glyphs, width: usize) -> String {
    let warning = |warning: &Warning| {
        let text = format!("{} {}", glyphs.warning, neutralize(&warning.to_string()));
        paint(color, YELLOW, &wrap(&text, width, 2))
    };
    match event {
        Background::Mcp(update) => {
            let mut lines = Vec::new();
            if let Some(count) = update.tools {
                let plural = if count == 1 { "" } else { "s" };
                let text = format!("mcp server {} connected: {count} tool{plural}", neutralize(&update.server));
                lines.push(paint(color, DIM, &wrap(&text, width, 2)));
            }
            lines.extend(update.warnings.iter().map(warning));
            lines.join("\n")
        }
        Background::Warning(found) => warning(found),
    }
}

#[cfg(test)]
#[path = "background_tests.rs"]
mod tests;
