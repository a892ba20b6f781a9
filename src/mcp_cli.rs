//! The front end of `mewcode mcp list`, `mcp call` and `mcp accept`: renders server statuses and tool
//! results for a person (text) or a script (`--json`).
//!
//! Invariant: everything a server sent (names, descriptions, stderr, results) is neutralised
//! before it reaches a terminal, since servers are outside our control; JSON output carries it
//! escaped by serde. Rendering is pure (`render_*`); the `print_*` wrappers only write. The
//! servers it starts are shut down before `list` / `call` return.
#![expect(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a front end: it writes listings and results to stdout, notices to stderr"
)]

use crate::cancel::CancelToken;
use crate::config::McpServerConfig;
use crate::mcp::{self, Manager, ServerState, ServerStatus, StartOptions};
use crate::text::{neutralize, truncate_chars};
use serde_json::{Value, json};

/// `mewcode mcp list`: connects `servers`, prints their status, shuts them down. Failed servers
/// are shown in the listing; other warnings (skipped tools) go to stderr. True when every
/// server connected.
pub(crate) fn list(servers: &[McpServerConfig], options: &StartOptions, as_json: bool) -> bool {
    let (mut manager, warnings) = Manager::start(servers, options);
    let statuses = manager.statuses();
    let failed: Vec<String> = statuses
        .iter()
        .filter(|status| matches!(status.state, ServerState::Failed { .. }))
        .map(|status| format!("mcp server {}", status.name))
        .collect();
    for warning in warnings.iter().filter(|warning| !failed.contains(&warning.source)) {
        print_notice(&format!("warning: {warning}"));
    }
    print_list(&statuses, as_json);
    manager.shutdown();
    failed.is_empty()
}

/// How `mewcode mcp call` ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum CallOutcome {
    /// The tool ran; its result is printed.
    Done,
    /// The tool ran and reported an error (`isError`); its result is printed.
    ToolError,
    /// Ctrl-C while waiting.
    Interrupted,
    /// The server could not be reached or the call failed below the tool.
    Failed(String),
}

/// `mewcode mcp call`: connects `server`, calls `tool` (its own name) with `arguments`, prints
/// the rendered result, shuts the server down.
pub(crate) fn call(
    server: &McpServerConfig,
    tool: &str,
    arguments: Value,
    options: &StartOptions,
    cancel: &CancelToken,
    stdout_is_terminal: bool,
) -> CallOutcome {
    let (mut manager, _) = Manager::start(std::slice::from_ref(server), options);
    let Some(client) = manager.client(&server.name) else {
        let (error, stderr) = match manager.statuses().into_iter().next().map(|status| status.state) {
            Some(ServerState::Failed { error, stderr } | ServerState::Stopped { error, stderr }) => (error, stderr),
            Some(ServerState::Connected { .. } | ServerState::Starting) | None => {
                ("not connected".to_string(), Vec::new())
            }
        };
        for line in stderr {
            print_notice(&format!("{} stderr: {line}", server.name));
        }
        return CallOutcome::Failed(format!("mcp server {}: {error}", server.name));
    };
    // A call by hand is still a call: a server flagged by pinning runs nothing until accepted.
    if let Some(reason) = manager.blocked(&server.name) {
        drop(client);
        manager.shutdown();
        return CallOutcome::Failed(format!("mcp server {}: {reason}", server.name));
    }
    let outcome = client.call_tool(tool, arguments, cancel);
    drop(client);
    manager.shutdown();
    match outcome {
        Ok(result) => {
            let rendered = mcp::tool::render_result(&result);
            if rendered.placeholders > 0 {
                print_notice("the result has content a model cannot see (shown as placeholders)");
            }
            print_result(&rendered.text, stdout_is_terminal);
            if rendered.is_error { CallOutcome::ToolError } else { CallOutcome::Done }
        }
        Err(mcp::McpError::Cancelled) => CallOutcome::Interrupted,
        Err(err) => CallOutcome::Failed(mcp::tool::call_error(&server.name, &err)),
    }
}

/// `mewcode mcp accept`: records `server`'s current tool definitions as accepted and says how
/// many. True on success; a failure is printed.
pub(crate) fn accept(server: &McpServerConfig, options: &StartOptions) -> bool {
    match mcp::accept(server, options) {
        Ok(count) => {
            let plural = if count == 1 { "" } else { "s" };
            println!(
                "accepted the current definitions of {count} tool{plural} of mcp server {}",
                neutralize(&server.name)
            );
            true
        }
        Err(err) => {
            print_notice(&format!("mcp server {}: {err}", server.name));
            false
        }
    }
}

/// Prints the listing on stdout.
fn print_list(statuses: &[ServerStatus], as_json: bool) {
    if as_json {
        println!("{}", render_list_json(statuses));
    } else {
        print!("{}", render_list_text(statuses));
    }
}

/// Prints a tool's result text on stdout (neutralised when stdout is a terminal).
fn print_result(text: &str, stdout_is_terminal: bool) {
    let text = if stdout_is_terminal { neutralize(text) } else { text.to_string() };
    if text.ends_with('\n') || text.is_empty() {
        print!("{text}");
    } else {
        println!("{text}");
    }
}

/// Prints a notice on stderr.
fn print_notice(message: &str) {
    eprintln!("mewcode: {}", neutralize(message));
}

/// One block per server: a header line, then its tools (or its error and first stderr lines, or,
/// for a server that stopped, why and its last stderr lines).
pub(crate) fn render_list_text(statuses: &[ServerStatus]) -> String {
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
                if tools.iter().any(|tool| tool.read_only) {
                    out.push_str(&format!("  hints: {}\n", status.hints_note));
                }
            }
            ServerState::Starting => out.push_str(&format!("{head}: starting (its tools join when it is ready)\n")),
            ServerState::Failed { error, stderr } => {
                out.push_str(&format!("{head}: failed: {error}\n"));
                for line in stderr.iter().take(5) {
                    out.push_str(&format!("  stderr: {line}\n"));
                }
            }
            ServerState::Stopped { error, stderr } => {
                out.push_str(&format!("{head}: stopped: {error}; /mcp reconnect {} starts it again\n", status.name));
                for line in stderr.iter().skip(stderr.len().saturating_sub(5)) {
                    out.push_str(&format!("  stderr: {line}\n"));
                }
            }
        }
    }
    neutralize(&out)
}

/// `{"servers": [...]}` with one object per server.
fn render_list_json(statuses: &[ServerStatus]) -> Value {
    let servers: Vec<Value> = statuses
        .iter()
        .map(|status| {
            let mut server = json!({"name": status.name, "transport": status.transport, "target": status.target, "hints_trusted": status.hints_trusted});
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
                ServerState::Starting => server["status"] = json!("starting"),
                ServerState::Failed { error, stderr } => {
                    server["status"] = json!("failed");
                    server["error"] = json!(error);
                    server["stderr"] = json!(stderr);
                }
                ServerState::Stopped { error, stderr } => {
                    server["status"] = json!("stopped");
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
    truncate_chars(line, max_chars, "…")
}

#[cfg(test)]
#[path = "mcp_cli_tests.rs"]
mod tests;
