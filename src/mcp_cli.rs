//! The front end of `mewcode mcp list` and `mewcode mcp call`: renders server statuses and tool
//! results for a person (text) or a script (`--json`).
//!
//! Invariant: everything a server sent (names, descriptions, stderr, results) is neutralised
//! before it reaches a terminal, since servers are outside our control; JSON output carries it
//! escaped by serde. Rendering is pure (`render_*`); the `print_*` wrappers only write.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use crate::mcp::{ServerState, ServerStatus};
use crate::text::neutralize;
use serde_json::{Value, json};

/// Prints the listing on stdout.
pub fn print_list(statuses: &[ServerStatus], as_json: bool) {
    if as_json {
        println!("{}", render_list_json(statuses));
    } else {
        print!("{}", render_list_text(statuses));
    }
}

/// Prints a tool's result text on stdout (neutralised when stdout is a terminal).
pub fn print_result(text: &str, stdout_is_terminal: bool) {
    let text = if stdout_is_terminal { neutralize(text) } else { text.to_string() };
    if text.ends_with('\n') || text.is_empty() {
        print!("{text}");
    } else {
        println!("{text}");
    }
}

/// Prints a notice on stderr.
pub fn print_notice(message: &str) {
    eprintln!("mewcode: {}", neutralize(message));
}

/// One block per server: a header line, then its tools (or its error and first stderr lines).
pub fn render_list_text(statuses: &[ServerStatus]) -> String {
    if statuses.is_empty() {
        return "no MCP servers configured (add mcp_servers to $MEWCODE_HOME/config.yaml or .mewcode.yaml)\n"
            .to_string();
    }
    let mut out = String::new();
    for status in statuses {
        let head = format!("{} ({}: {})", status.name, status.transport, status.target);
        match &status.state {
            ServerState::Connected { session, tools } => {
                let server = format!("{} {}", session.server_name, session.server_version);
                out.push_str(&format!(
                    "{head}: connected, protocol {}, server {}, {} tool{}\n",
                    session.protocol_version,
                    server.trim(),
                    tools.len(),
                    if tools.len() == 1 { "" } else { "s" }
                ));
                for tool in tools {
                    let flag = if tool.read_only { "  read-only" } else { "" };
                    let summary = first_line(&tool.description, 80);
                    let summary = if summary.is_empty() { String::new() } else { format!("  {summary}") };
                    out.push_str(&format!("  {}{flag}{summary}\n", tool.full_name));
                }
            }
            ServerState::Failed { error, stderr } => {
                out.push_str(&format!("{head}: failed: {error}\n"));
                for line in stderr.iter().take(5) {
                    out.push_str(&format!("  stderr: {line}\n"));
                }
            }
        }
    }
    neutralize(&out)
}

/// `{"servers": [...]}` with one object per server.
pub fn render_list_json(statuses: &[ServerStatus]) -> Value {
    let servers: Vec<Value> = statuses
        .iter()
        .map(|status| {
            let mut server = json!({"name": status.name, "transport": status.transport, "target": status.target});
            match &status.state {
                ServerState::Connected { session, tools } => {
                    server["status"] = json!("connected");
                    server["protocol_version"] = json!(session.protocol_version);
                    server["server_info"] = json!({"name": session.server_name, "version": session.server_version});
                    server["tools"] = tools
                        .iter()
                        .map(|tool| {
                            json!({"name": tool.full_name, "tool": tool.name, "read_only": tool.read_only, "description": tool.description})
                        })
                        .collect();
                }
                ServerState::Failed { error, stderr } => {
                    server["status"] = json!("failed");
                    server["error"] = json!(error);
                    server["stderr"] = json!(stderr);
                }
            }
            server
        })
        .collect();
    json!({"servers": servers})
}

fn first_line(text: &str, max_chars: usize) -> String {
    let line = text.lines().map(str::trim).find(|line| !line.is_empty()).unwrap_or("");
    match line.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::ToolStatus;
    use crate::mcp::client::SessionInfo;

    #[test]
    fn listing_shows_tools_flags_and_failures() {
        let statuses = vec![
            ServerStatus {
                name: "bad".into(),
                transport: "stdio",
                target: "nope --x".into(),
                state: ServerState::Failed { error: "cannot start".into(), stderr: vec!["boom\u{1b}[2J".into()] },
            },
            ServerStatus {
                name: "good".into(),
                transport: "http",
                target: "http://127.0.0.1:1/mcp".into(),
                state: ServerState::Connected {
                    session: SessionInfo {
                        protocol_version: "2025-11-25".into(),
                        server_name: "fx".into(),
                        server_version: "1.0".into(),
                    },
                    tools: vec![ToolStatus {
                        full_name: "mcp__good__echo".into(),
                        name: "echo".into(),
                        read_only: true,
                        description: "Echo.\nMore.".into(),
                    }],
                },
            },
        ];
        assert_eq!(
            render_list_text(&statuses),
            "bad (stdio: nope --x): failed: cannot start\n  stderr: boom␛[2J\n\
             good (http: http://127.0.0.1:1/mcp): connected, protocol 2025-11-25, server fx 1.0, 1 tool\n  mcp__good__echo  read-only  Echo.\n"
        );
        let listed = render_list_json(&statuses);
        assert_eq!(listed["servers"][0]["status"], "failed");
        assert_eq!(
            listed["servers"][1]["tools"][0],
            json!({"name": "mcp__good__echo", "tool": "echo", "read_only": true, "description": "Echo.\nMore."})
        );
    }
}
