//! `/status`: where the session stands, on one screen — version, provider and model, how full
//! the window is (and what discovery remembers of it), whether the model takes images, the
//! project root and the added directories, the mode, the sandbox, the MCP servers, the tokens
//! used and the session's id.
//!
//! Invariant: it reads and prints only; what it shows from outside mewcode (paths, server
//! names and their errors) is neutralised. The lines are made by a pure function of the figures
//! (`status_lines`), so what `/status` says is tested without a terminal.

use super::chat::Chat;
use super::render::human_count;
use super::say_wrapped;
use super::setup::Setup;
use crate::text::neutralize;

/// The figures `/status` shows.
struct Figures<'a> {
    version: &'a str,
    provider: &'a str,
    model: &'a str,
    context_used: u64,
    context_window: u64,
    /// The context figure is an estimate.
    estimated: bool,
    /// What discovery remembers for the provider (window, source, age), when it asks at all.
    discovery: Option<String>,
    /// Whether the model takes images, and who said so (`yes (default)`).
    vision: String,
    root: String,
    /// The directories added besides the project (`--add-dir`), described.
    added: Vec<String>,
    mode: String,
    sandbox: &'a str,
    /// The MCP servers' report (`/mcp`), empty when none is configured.
    mcp: String,
    /// The network policy's lines (`Sandbox::network_lines`).
    network: Vec<String>,
    tokens_in: u64,
    tokens_out: u64,
    /// The session's id when it is saved.
    session: Option<String>,
    /// Between two figures of one line (`glyphs.separator`).
    separator: &'a str,
}

/// `/status`.
pub(super) fn show(chat: &Chat, setup: &Setup) {
    let root = setup.root.display().to_string();
    let session = chat
        .conversation
        .as_ref()
        .filter(|conversation| conversation.is_logged())
        .map(|conversation| conversation.session_id().to_string());
    let figures = Figures {
        version: setup.version,
        provider: &chat.provider.name,
        model: &chat.provider.model,
        context_used: chat.context_used,
        context_window: chat.provider.context_window,
        estimated: chat.context_estimated,
        discovery: setup.host.remembered_window(&chat.provider),
        vision: chat.provider.vision().describe(),
        root,
        added: setup.host.added_dirs(),
        mode: chat.mode.to_string(),
        sandbox: &setup.sandbox.0,
        mcp: setup.host.mcp_status(),
        network: setup.host.network_status(),
        tokens_in: chat.usage.input_tokens,
        tokens_out: chat.usage.output_tokens,
        session,
        separator: setup.glyphs.separator,
    };
    for line in status_lines(&figures) {
        say_wrapped(setup.color, "", &neutralize(&line), chat.screen.width, 10);
    }
}

/// The lines of `/status`, label and value, labels aligned.
fn status_lines(figures: &Figures<'_>) -> Vec<String> {
    let window = figures.context_window.max(1);
    let percent = figures.context_used.saturating_mul(100) / window;
    let tilde = if figures.estimated { "~" } else { "" };
    let mcp_lines: Vec<&str> = figures.mcp.lines().filter(|line| !line.trim().is_empty()).collect();
    let mcp = match mcp_lines.as_slice() {
        [] => "none configured".to_string(),
        lines => lines.join("; "),
    };
    let mut rows = vec![
        ("version", format!("mewcode {}", figures.version)),
        ("model", format!("{}{}{}", figures.provider, figures.separator, figures.model)),
        (
            "context",
            format!(
                "{tilde}{} of {} tokens ({tilde}{percent}%)",
                human_count(figures.context_used),
                human_count(figures.context_window)
            ),
        ),
        ("vision", figures.vision.clone()),
        ("project", figures.root.clone()),
        ("added", figures.added.join("; ")),
        ("mode", figures.mode.clone()),
        ("sandbox", figures.sandbox.to_string()),
        ("network", figures.network.join("; ")),
        ("mcp", mcp),
        (
            "tokens",
            format!(
                "{} in{}{} out this session",
                human_count(figures.tokens_in),
                figures.separator,
                human_count(figures.tokens_out)
            ),
        ),
        ("session", figures.session.clone().unwrap_or_else(|| "not saved yet (starts with the first prompt)".into())),
    ];
    rows.retain(|(label, value)| !matches!(*label, "network" | "added") || !value.is_empty());
    if let Some(discovery) = &figures.discovery {
        rows.insert(3, ("discovery", discovery.clone()));
    }
    rows.into_iter().map(|(label, value)| format!("{label:<10}{value}")).collect()
}

#[cfg(test)]
#[path = "status_tests.rs"]
mod tests;
