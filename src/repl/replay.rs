//! A resumed session shown as it was: its prompts, answers and tool calls (in their collapsed
//! form), oldest first so the newest part is last on screen, bounded to the last
//! `REPLAY_MESSAGES` messages.
//!
//! Invariant: pure: it returns the text to print, every piece of it neutralised, wrapped to the
//! width, answers rendered as the turn rendered them (markdown); what mewcode itself added to a prompt (notes, `@` attachments) is not shown as typed.

use super::render::{DIM, GREEN, RED, Renderer, paint, wrap};
use crate::glyphs::Glyphs;
use crate::msg::{Message, Role, ToolResult};
use crate::text::neutralize;

/// Messages replayed at most (the newest).
const REPLAY_MESSAGES: usize = 60;
/// Lines of a long prompt shown.
const PROMPT_LINES: usize = 3;

/// The transcript of `history`, ready to print.
pub(super) fn replay(history: &[Message], color: bool, glyphs: &'static Glyphs, width: usize) -> String {
    let skipped = history.len().saturating_sub(REPLAY_MESSAGES);
    let mut out = String::new();
    if skipped > 0 {
        out.push_str(&paint(color, DIM, &format!("({} {skipped} earlier messages not shown)", glyphs.ellipsis)));
        out.push('\n');
    }
    let shown = &history[skipped..];
    for (index, message) in shown.iter().enumerate() {
        match message.role {
            Role::User => {
                let typed = typed_part(&message.content);
                if !typed.trim().is_empty() {
                    out.push('\n');
                    let prompt = neutralize(&fold_lines(typed)).replace('\n', "\n  ");
                    out.push_str(&wrap(&format!("{} {prompt}", glyphs.prompt), width, 2));
                    out.push('\n');
                }
                // Its images as the screen showed them when they were attached, never their bytes.
                for image in &message.images {
                    let line = format!("  {} {}", glyphs.result, neutralize(&image.placeholder()));
                    out.push_str(&paint(color, DIM, &line));
                    out.push('\n');
                }
            }
            Role::Assistant => {
                let text = message.content.trim();
                if !text.is_empty() {
                    out.push_str(&answer(text, color, glyphs, width));
                }
                let results =
                    shown.get(index + 1).filter(|next| next.role == Role::Tool).map(|next| &next.tool_results);
                for call in &message.tool_calls {
                    let result =
                        results.and_then(|results| results.iter().find(|result| result.tool_call_id == call.id));
                    let arguments = crate::agent::call_preview(call);
                    out.push_str(&tool_lines(&call.name, &arguments, result, (color, glyphs), width));
                }
            }
            // Shown under their calls.
            Role::Tool => {}
        }
    }
    out
}

/// An answer as the turn rendered it (markdown and all), ending with a newline.
fn answer(text: &str, color: bool, glyphs: &'static Glyphs, width: usize) -> String {
    let mut renderer = Renderer::new(Vec::new(), color, false, width).with_glyphs(glyphs);
    let now = std::time::Instant::now();
    // Writing to memory cannot fail.
    let _ = renderer.text(text, now).and_then(|()| renderer.pause(now));
    String::from_utf8_lossy(&renderer.into_inner()).into_owned()
}

/// A call as the transcript showed it: `● name arguments` and its result's first line.
fn tool_lines(
    name: &str,
    arguments: &str,
    result: Option<&ToolResult>,
    style: (bool, &Glyphs),
    width: usize,
) -> String {
    let (color, glyphs) = style;
    let failed = result.is_some_and(|result| result.is_error);
    let bullet = paint(color, if failed { RED } else { GREEN }, glyphs.tool);
    let mut lines = format!("{bullet} {}\n", neutralize(format!("{name} {arguments}").trim_end()));
    let preview = match result {
        Some(result) => crate::agent::result_preview(&result.content),
        None => "(no result)".to_string(),
    };
    if !preview.is_empty() {
        let text = wrap(&format!("  {} {}", glyphs.result, neutralize(&preview)), width, 4);
        lines.push_str(&paint(color, if failed { RED } else { DIM }, &text));
        lines.push('\n');
    }
    lines
}

/// What the person typed: the prompt without the notes and attachments mewcode added after it.
fn typed_part(content: &str) -> &str {
    let ends = ["\n\n[mewcode: ", "\n\n<mentioned-file ", "\n\n<mentioned-directory "];
    let end = ends.iter().filter_map(|marker| content.find(marker)).min().unwrap_or(content.len());
    &content[..end]
}

/// The first `PROMPT_LINES` lines, and how many more there were.
fn fold_lines(text: &str) -> String {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    if lines.len() <= PROMPT_LINES {
        return lines.join("\n");
    }
    format!("{}\n(+{} more lines)", lines[..PROMPT_LINES].join("\n"), lines.len() - PROMPT_LINES)
}

#[cfg(test)]
#[path = "replay_tests.rs"]
mod tests;
