//! The status line above the prompt: the provider, the model, how full the window is, the
//! tokens used, the MCP servers (while some start, and one that stopped, with its last words)
//! and the mode, fitted to the terminal's width.
//!
//! Invariant: pure, and never wider than `width - 1` columns; the mode comes last and keeps its
//! width, so Shift-Tab repaints in place. A server's name and last words are its own text:
//! neutralised here.

use super::render::{char_width, display_width, human_count};
use crate::glyphs::Glyphs;
use crate::mode::Mode;
use crate::msg::Usage;
use crate::text::neutralize;

/// What the status line shows.
pub(crate) struct Status<'a> {
    pub provider: &'a str,
    pub model: &'a str,
    pub mode: Mode,
    /// Tokens of the last response (prompt plus output): how full the context is.
    pub context_used: u64,
    pub context_window: u64,
    /// Everything used this session.
    pub session: Usage,
    /// `context_used` is an estimate from characters (the server sent no usage): shown `~`.
    pub context_estimated: bool,
    /// Some of `session` was estimated: shown `~`.
    pub session_estimated: bool,
    /// The MCP servers, while some are starting or after one stopped by itself.
    pub mcp: Option<McpFigures>,
}

/// The MCP part of the status line: `mcp 1/2`, then the first server that stopped by itself
/// with its last words (`fs stopped: out of memory`) and how many more stopped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct McpFigures {
    pub connected: usize,
    pub configured: usize,
    /// A server's name and its last stderr line (else why it stopped): the server's own text,
    /// neutralised here.
    pub stopped: Option<(String, String)>,
    pub more_stopped: usize,
}

/// The fewest characters of a stopped server's last words worth showing; with less room, only
/// `NAME stopped` is.
const MIN_LAST_WORDS: usize = 8;

/// The figures of the status line that do not change while the prompt is shown.
#[derive(Clone, Debug, Default)]
pub(crate) struct StatusFigures {
    pub provider: String,
    pub model: String,
    pub context_used: u64,
    pub context_window: u64,
    pub session: Usage,
    /// `context_used` / `session` are (partly) estimated from characters.
    pub context_estimated: bool,
    pub session_estimated: bool,
}

/// The plain status line: `provider · model · ctx N% of W · T tokens · C cached · mode M` (the
/// separator is `glyphs.separator`), at
/// most `width - 1` columns. Estimated figures carry a `~`; `mcp C/T` follows while MCP servers
/// start or when one stopped, and then the first stopped server with its last words. The mode
/// comes last (bypass as `BYPASS`), padded to the longest mode name, so that the line keeps its
/// width when Shift-Tab changes the mode. Too long, it loses first the token figures, then the
/// stopped server's last words (cut, then dropped), then the MCP part, then the context figure
/// and the model.
pub(crate) fn render_status(status: &Status, glyphs: &Glyphs, width: usize) -> String {
    let separator = glyphs.separator;
    let percent = if status.context_window == 0 {
        0
    } else {
        (status.context_used * 100).div_ceil(status.context_window).min(999)
    };
    let mode = format!("mode {:<11}", status.mode.shown());
    let mut parts = vec![
        neutralize(status.provider),
        neutralize(status.model),
        format!(
            "ctx {}{percent}% of {}",
            if status.context_estimated { "~" } else { "" },
            human_count(status.context_window)
        ),
        format!("{}{} tokens", if status.session_estimated { "~" } else { "" }, human_count(status.session.total())),
        format!("{} cached", human_count(status.session.cache_read)),
    ];
    let mut mcp = status.mcp.as_ref().map(|mcp| format!("mcp {}/{}", mcp.connected, mcp.configured));
    let stopped = status.mcp.as_ref().and_then(|mcp| {
        let (name, words) = mcp.stopped.as_ref()?;
        let more = if mcp.more_stopped > 0 { format!(" (+{} more)", mcp.more_stopped) } else { String::new() };
        Some((format!("{} stopped", neutralize(name)), neutralize(words.trim()).replace('\t', " "), more))
    });
    // None: the last words whole; Some(room): cut to `room` columns (dropped below the minimum).
    let mut words_room: Option<usize> = None;
    loop {
        let mut line = parts.join(separator);
        if let Some(mcp) = &mcp {
            line.push_str(&format!("{separator}{mcp}"));
            if let Some((head, words, more)) = &stopped {
                let shown = match words_room {
                    None => words.clone(),
                    Some(room) if room >= MIN_LAST_WORDS => cut_to_width(words, room, glyphs.ellipsis),
                    Some(_) => String::new(),
                };
                let shown = if shown.is_empty() { shown } else { format!(": {shown}") };
                line.push_str(&format!("{separator}{head}{shown}{more}"));
            }
        }
        let line = format!("{line}{separator}{mode}");
        let excess = (display_width(&line) + 1).saturating_sub(width);
        if excess == 0 {
            return line;
        }
        let words_width = stopped.as_ref().map_or(0, |(_, words, _)| display_width(words));
        match words_room {
            _ if parts.len() > 3 => {
                parts.pop();
            }
            None if mcp.is_some() && words_width > 0 => words_room = Some(words_width.saturating_sub(excess)),
            Some(room) if mcp.is_some() && room >= MIN_LAST_WORDS => {
                words_room = Some(room.saturating_sub(excess).min(room - 1));
            }
            _ if mcp.is_some() => mcp = None,
            _ if parts.len() > 1 => {
                parts.pop();
            }
            _ => return line,
        }
    }
}

/// `text` cut to at most `room` columns, an ellipsis marking the cut.
pub(super) fn cut_to_width(text: &str, room: usize, ellipsis: &str) -> String {
    if display_width(text) <= room {
        return text.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let width = char_width(c);
        if used + width + display_width(ellipsis) > room {
            break;
        }
        out.push(c);
        used += width;
    }
    out.push_str(ellipsis);
    out
}

#[cfg(test)]
#[path = "status_line_tests.rs"]
mod tests;
