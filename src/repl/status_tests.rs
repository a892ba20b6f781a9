//! Tests of what `/status` says.

use super::*;

fn figures(mcp: &str, session: Option<&str>) -> Figures<'static> {
    Figures {
        version: "0.1.0",
        provider: "local",
        model: "qwen2.5-coder",
        context_used: 3_100,
        context_window: 32_000,
        estimated: true,
        discovery: None,
        vision: "no (default)".into(),
        root: "/home/me/project".into(),
        added: Vec::new(),
        mode: "acceptEdits".into(),
        sandbox: "sandbox on (namespace view + Landlock ABI 7)",
        mcp: mcp.into(),
        network: Vec::new(),
        tokens_in: 12_345,
        tokens_out: 678,
        session: session.map(String::from),
        separator: " · ",
    }
}

#[test]
fn every_figure_has_its_labelled_line() {
    let lines = status_lines(&figures("github: connected, 12 tools\nfiles: failed (exit 1)\n", Some("20261205-1")));
    assert_eq!(
        lines,
        vec![
            "version   mewcode 0.1.0",
            "model     local · qwen2.5-coder",
            "context   ~3.1k of 32.0k tokens (~9%)",
            "vision    no (default)",
            "project   /home/me/project",
            "mode      acceptEdits",
            "sandbox   sandbox on (namespace view + Landlock ABI 7)",
            "mcp       github: connected, 12 tools; files: failed (exit 1)",
            "tokens    12.3k in · 678 out this session",
            "session   20261205-1",
        ]
    );
}

#[test]
fn nothing_configured_and_nothing_saved_say_so() {
    let mut shown = figures("  \n", None);
    shown.estimated = false;
    shown.context_window = 0;
    let lines = status_lines(&shown);
    assert_eq!(lines[2], "context   3.1k of 0 tokens (310000%)");
    assert_eq!(lines[7], "mcp       none configured");
    assert_eq!(lines[9], "session   not saved yet (starts with the first prompt)");
}

#[test]
fn what_discovery_remembers_follows_the_context_line() {
    let mut shown = figures("", None);
    shown.discovery = Some("4096 tokens from GET /props, asked 3 h ago (/h/discovery.json)".into());
    let lines = status_lines(&shown);
    assert_eq!(lines[2], "context   ~3.1k of 32.0k tokens (~9%)");
    assert_eq!(lines[3], "discovery 4096 tokens from GET /props, asked 3 h ago (/h/discovery.json)");
    assert_eq!(lines[4], "vision    no (default)");
    assert_eq!(lines[5], "project   /home/me/project");
}

#[test]
fn added_directories_follow_the_project_line_only_when_there_are_some() {
    let mut shown = figures("", None);
    shown.added = vec!["/home/me/lib (read-write, --add-dir)".into(), "/opt/sdk (read-only, config.yaml)".into()];
    let lines = status_lines(&shown);
    assert_eq!(lines[4], "project   /home/me/project");
    assert_eq!(lines[5], "added     /home/me/lib (read-write, --add-dir); /opt/sdk (read-only, config.yaml)");
    assert_eq!(lines[6], "mode      acceptEdits");
}
