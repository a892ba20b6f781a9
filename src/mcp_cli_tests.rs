//! Unit tests of `mcp_cli.rs`: the text and JSON renderings of server statuses.

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
            hints_trusted: false,
            hints_note: "not trusted (the project's .mcp.json): every call asks".into(),
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
                    tools_list_changed: false,
                },
                tools: vec![ToolStatus {
                    full_name: "mcp__good__echo".into(),
                    name: "echo".into(),
                    read_only: true,
                    description: "Echo.\nMore.".into(),
                }],
            },
            hints_trusted: true,
            hints_note: "trusted (your own config): read-only tools run without asking".into(),
        },
    ];
    assert_eq!(
        render_list_text(&statuses),
        "bad (stdio: nope --x): failed: cannot start\n  stderr: boom^[[2J\n\
         good (http: http://127.0.0.1:1/mcp): connected, protocol 2025-11-25, server fx 1.0, 1 tool\n  mcp__good__echo  read-only  Echo.\n  hints: trusted (your own config): read-only tools run without asking\n"
    );
    let listed = render_list_json(&statuses);
    assert_eq!(listed["servers"][0]["status"], "failed");
    assert_eq!(
        (&listed["servers"][0]["hints_trusted"], &listed["servers"][1]["hints_trusted"]),
        (&json!(false), &json!(true))
    );
    assert_eq!(
        listed["servers"][1]["tools"][0],
        json!({"name": "mcp__good__echo", "tool": "echo", "read_only": true, "description": "Echo.\nMore."})
    );
}
