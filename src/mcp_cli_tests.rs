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

fn words(line: &str) -> Vec<String> {
    line.split_whitespace().map(String::from).collect()
}

fn add(line: &str) -> Result<AddRequest, String> {
    parse_add(&words(line))
}

fn stdio(command: &str, args: &[&str], env: &[(&str, &str)]) -> McpTransport {
    McpTransport::Stdio {
        command: command.into(),
        args: args.iter().map(|arg| arg.to_string()).collect(),
        env: env.iter().map(|(name, value)| (name.to_string(), value.to_string())).collect(),
    }
}

fn http(url: &str, headers: &[(&str, &str)]) -> McpTransport {
    McpTransport::Http {
        url: url.into(),
        headers: headers.iter().map(|(name, value)| (name.to_string(), value.to_string())).collect(),
        ca_file: None,
    }
}

#[test]
fn mcp_add_reads_the_one_liners_of_mcp_readmes() {
    let request = |name: &str, scope, transport, force| AddRequest { name: name.into(), scope, transport, force };
    let cases = [
        (
            "context7 -- npx -y @upstash/context7-mcp",
            request("context7", None, stdio("npx", &["-y", "@upstash/context7-mcp"], &[]), false),
        ),
        (
            "git uvx mcp-server-git --repository .",
            request("git", None, stdio("uvx", &["mcp-server-git", "--repository", "."], &[]), false),
        ),
        (
            "-e GITHUB_TOKEN=x -s project gh --force -- docker run -i --rm ghcr.io/github/github-mcp-server",
            request(
                "gh",
                Some(Scope::Project),
                stdio("docker", &["run", "-i", "--rm", "ghcr.io/github/github-mcp-server"], &[("GITHUB_TOKEN", "x")]),
                true,
            ),
        ),
        (
            "--scope=user docs --url https://example.com/mcp",
            request("docs", Some(Scope::User), http("https://example.com/mcp", &[]), false),
        ),
        (
            "--transport http sentry https://mcp.sentry.dev/mcp",
            request("sentry", None, http("https://mcp.sentry.dev/mcp", &[]), false),
        ),
        ("linear https://mcp.linear.app/mcp", request("linear", None, http("https://mcp.linear.app/mcp", &[]), false)),
    ];
    for (line, expected) in cases {
        assert_eq!(add(line), Ok(expected), "{line}");
    }
    let with_header = parse_add(&[
        "api".to_string(),
        "--url".to_string(),
        "http://127.0.0.1:8080/mcp".to_string(),
        "--header".to_string(),
        "Authorization: Bearer ${API_TOKEN}".to_string(),
        "-H".to_string(),
        "X-Team:core".to_string(),
    ]);
    assert_eq!(
        with_header.map(|request| request.transport),
        Ok(http("http://127.0.0.1:8080/mcp", &[("Authorization", "Bearer ${API_TOKEN}"), ("X-Team", "core")]))
    );
}

#[test]
fn mcp_add_refuses_what_cannot_make_a_server() {
    let cases = [
        ("", "expected NAME (mcp add NAME -- COMMAND [ARGS...])"),
        ("fs", "expected the server's command (-- COMMAND [ARGS...]) or its address (--url URL)"),
        ("fs --", "expected the server's command after --"),
        ("my.fs -- x", "invalid server name \"my.fs\": use letters, digits, '_' and '-'"),
        ("fs --url http://x/mcp -- npx", "give either --url URL or a command, not both"),
        ("fs --url ftp://x", "--url: expected an http:// or https:// URL, got \"ftp://x\""),
        (
            "fs -e A=1 --url http://x/mcp",
            "--env is for a server mewcode starts (a command); an HTTP server takes --header",
        ),
        ("fs -H A:1 -- npx", "--header is for an HTTP server (--url); a command takes --env"),
        ("fs -e 1A=x -- npx", "--env: \"1A\" is not a variable name"),
        ("fs -e A -- npx", "--env: expected NAME=VALUE, got \"A\""),
        ("fs -H nocolon --url http://x", "--header: expected 'Name: value', got \"nocolon\""),
        (
            "fs --transport sse http://x/sse",
            "--transport sse (the old HTTP+SSE transport) is not supported; use the server's Streamable HTTP endpoint (often /mcp) with --transport http",
        ),
        ("fs --transport http -- npx", "--transport http needs the server's URL"),
        ("fs --transport stdio http://x/mcp", "--transport stdio needs a command, not a URL"),
        ("fs --scope local -- npx", "--scope local: mewcode has user and project scopes (user is yours only)"),
        ("fs --scope", "--scope: missing value"),
        ("fs -C /tmp -- npx", "-C: put it before mcp (mewcode -C ... mcp add ...)"),
    ];
    for (line, expected) in cases {
        assert_eq!(add(line), Err(expected.to_string()), "{line}");
    }
    assert_eq!(parse_remove(&words("fs -s user")), Ok(("fs".to_string(), Some(Scope::User))));
    assert_eq!(parse_remove(&words("fs other")), Err("unexpected argument \"other\"".to_string()));
    assert_eq!(parse_remove(&words("fs --force")), Err("unknown flag --force (expected --scope)".to_string()));
}
