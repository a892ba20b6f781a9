//! `/context`: what fills the context window — the system prompt, the instruction files in it
//! (each with the `@path` imports sent with it), the tool definitions (built-in and MCP), the
//! conversation's messages by kind — with each part's tokens, the window and what is left free.
//!
//! Invariant: every figure comes from the crate's one estimator (`context::tokens_for_chars`,
//! 3.5 characters a token) over what the next request would carry, so it works before the
//! first turn and never needs the server; the server's own last figure is shown beside it, not
//! mixed in. The table is made by a pure function (`render_context`).

use super::chat::Chat;
use super::render::{DIM, human_count};
use super::setup::Setup;
use super::{say, say_wrapped};
use crate::context::{auto_threshold, definition_chars, message_chars, tokens_for_chars};
use crate::glyphs::Glyphs;
use crate::mode::Mode;
use crate::msg::{Message, Role};
use crate::text::neutralize;

/// What `/context` shows.
struct View {
    provider: String,
    model: String,
    window: u64,
    /// Each part of the next request and its estimated tokens, in request order.
    parts: Vec<(String, u64)>,
    /// The last response's usage as the server counted it (none yet, or estimated).
    measured: Option<u64>,
    /// Where automatic compaction starts, when it does.
    compact_at: Option<u64>,
}

/// `/context`.
pub(super) fn show(chat: &Chat, setup: &Setup) {
    let view = gather(chat, setup);
    let lines = render_context(&view, setup.glyphs);
    let width = chat.screen.width;
    let (table, note) = lines.split_at(lines.len().saturating_sub(1));
    for line in table {
        say(&neutralize(line));
    }
    for line in note {
        say_wrapped(setup.color, DIM, &neutralize(line), width, 2);
    }
}

/// The parts of the next request, estimated.
fn gather(chat: &Chat, setup: &Setup) -> View {
    let agent = &chat.agent;
    let memory_chars: u64 = setup.instruction_files.iter().map(|(_, chars)| *chars as u64).sum();
    // What the next request carries: the lean or the full form, as `Agent` picks it.
    let system = agent.system();
    let system_chars = (system.stable.chars().count() + system.environment.chars().count()) as u64;
    let label = if agent.is_lean() { "system prompt (lean)" } else { "system prompt" };
    let mut parts = vec![(label.to_string(), tokens_for_chars(system_chars.saturating_sub(memory_chars)))];
    for (file, chars) in &setup.instruction_files {
        parts.push((format!("memory: {file}"), tokens_for_chars(*chars as u64)));
    }
    let plan = chat.mode == Mode::Plan;
    let tools = agent.tools_for(chat.mode);
    let (mcp, builtin): (Vec<_>, Vec<_>) = tools.iter().partition(|tool| tool.name.starts_with("mcp__"));
    let read_only = if plan { " read-only" } else { "" };
    for (kind, tools) in [("built-in", &builtin), ("MCP", &mcp)] {
        if kind == "MCP" && tools.is_empty() {
            continue;
        }
        let chars = tools.iter().map(|tool| definition_chars(tool)).sum();
        parts.push((format!("tools: {} {kind}{read_only}", tools.len()), tokens_for_chars(chars)));
    }
    let messages: &[Message] = chat.conversation.as_ref().map_or(&[], |conversation| conversation.history());
    for (role, label) in [(Role::User, "messages: user"), (Role::Assistant, "messages: assistant")] {
        let of_role: Vec<_> = messages.iter().filter(|message| message.role == role).collect();
        let chars = of_role.iter().map(|message| message_chars(message)).sum();
        parts.push((format!("{label} ({})", of_role.len()), tokens_for_chars(chars)));
    }
    let results: Vec<_> = messages.iter().filter(|message| message.role == Role::Tool).collect();
    let count: usize = results.iter().map(|message| message.tool_results.len()).sum();
    let chars = results.iter().map(|message| message_chars(message)).sum();
    parts.push((format!("tool results ({count})"), tokens_for_chars(chars)));
    View {
        provider: chat.provider.name.clone(),
        model: chat.provider.model.clone(),
        window: chat.provider.context_window,
        parts,
        measured: (chat.context_used > 0 && !chat.context_estimated).then_some(chat.context_used),
        compact_at: auto_threshold(agent.context.window, agent.context.compact_at),
    }
}

/// The table: a title, a row per part (tokens, % of the window), the total and the free
/// space, then one line of notes (how figures are made, the server's last count, compaction).
fn render_context(view: &View, glyphs: &Glyphs) -> Vec<String> {
    // The labels' column: 30 wide, wider for a longer label (a deep instruction file's path).
    let label_width = view.parts.iter().map(|(label, _)| label.chars().count()).max().unwrap_or(0).max(30);
    let window = view.window.max(1);
    let percent = |tokens: u64| format!("{:.1}%", tokens as f64 * 100.0 / window as f64);
    let row =
        |label: &str, tokens: u64| format!("  {label:<label_width$} {:>8} {:>7}", human_count(tokens), percent(tokens));
    let mut lines = vec![
        format!(
            "context window of {}{}{}: {} tokens",
            view.provider,
            glyphs.separator,
            view.model,
            human_count(view.window)
        ),
        format!("  {:<label_width$} {:>8} {:>7}", "part", "tokens", "window"),
    ];
    lines.extend(view.parts.iter().map(|(label, tokens)| row(label, *tokens)));
    let used: u64 = view.parts.iter().map(|(_, tokens)| tokens).sum();
    lines.push(format!("  {}", glyphs.rule.repeat(label_width + 17)));
    lines.push(row("total (estimated)", used));
    lines.push(row("free", view.window.saturating_sub(used)));
    let mut note = "estimated at 3.5 characters a token".to_string();
    if let Some(measured) = view.measured {
        note.push_str(&format!("; the server counted {} in the last request", human_count(measured)));
    }
    if let Some(threshold) = view.compact_at {
        note.push_str(&format!("; automatic compaction starts at {}", human_count(threshold)));
    }
    lines.push(format!("({note})"));
    lines
}

#[cfg(test)]
#[path = "context_view_tests.rs"]
mod tests;
