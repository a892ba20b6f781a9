//! MCP servers as people configure them (issue 18): a project's `.mcp.json` behind the trust
//! gate, and a server's `readOnlyHint` sparing the approval only for the user's own servers.

use crate::support::mcp_servers::fixture;
use crate::support::script::anthropic;
use crate::support::{FakeModel, Provider, TestEnv};
use serde_json::Value;

/// The raw fixture server (its `echo` tool says `readOnlyHint: true`) as a JSON object, writing
/// its pid to `pid_file`.
fn raw_server_json(pid_file: &std::path::Path) -> String {
    serde_json::json!({
        "command": "python3",
        "args": [fixture("raw_server.py").display().to_string(), "ok"],
        "env": {"MCP_PID_FILE": pid_file.display().to_string()}
    })
    .to_string()
}

#[test]
fn a_projects_mcp_json_is_not_started_until_the_project_is_trusted() {
    let env = TestEnv::new("mcp-json");
    let pid_file = env.dir.path().join("server.pid");
    env.write(
        ".mcp.json",
        &format!("{{\n  \"mcpServers\": {{\n    \"proj\": {}\n  }}\n}}\n", raw_server_json(&pid_file)),
    );
    let run = env.run(&["mcp", "list"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.starts_with("no MCP servers configured"), "{}", run.stdout);
    assert!(
        run.stderr.contains(
            ".mcp.json: project config not trusted, so it is ignored: MCP server proj from .mcp.json (python3 "
        ),
        "{}",
        run.stderr
    );
    assert!(!pid_file.exists(), "an untrusted project's server ran");
    let run = env.run(&["mcp", "list", "--trust"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("  mcp__proj__echo  read-only  Echo.\n"), "{}", run.stdout);
    assert!(run.stdout.contains("  hints: not trusted (the project's .mcp.json): every call asks\n"), "{}", run.stdout);
    assert!(pid_file.exists(), "the trusted project's server was started");
}

/// Runs `-p` in default mode with the model calling `mcp__raw__echo` once; returns the tool
/// result the model got back: (text, is_error).
fn call_hinted_tool(env: &TestEnv, model: &FakeModel, extra_args: &[&str]) -> (String, bool) {
    model.push(anthropic("", &[("toolu_mcp1", "mcp__raw__echo", r#"{"text":"ping-42"}"#)]));
    model.push(anthropic("Done.", &[]));
    let mut args = vec!["-p", "echo ping-42"];
    args.extend_from_slice(extra_args);
    let run = env.run(&args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let requests = model.requests();
    let second: &Value = requests.last().unwrap().json.as_ref().unwrap();
    let result = &second["messages"][2]["content"][0];
    assert_eq!(result["tool_use_id"], "toolu_mcp1", "{second}");
    (result["content"].to_string(), result["is_error"] == true)
}

#[test]
fn a_read_only_hint_spares_the_approval_only_for_the_users_own_servers() {
    let pid = |env: &TestEnv| env.dir.path().join("raw.pid");
    // The user's own server: its hint is believed, the call runs in default mode.
    let model = FakeModel::start();
    let env = TestEnv::with_model("hint-user", &model, Provider::anthropic().model("m").then(""));
    let server = raw_server_json(&pid(&env));
    env.write_home(
        "config.yaml",
        &format!("{}mcp_servers:\n  raw: {server}\n", std::fs::read_to_string(env.home.join("config.yaml")).unwrap()),
    );
    let (text, is_error) = call_hinted_tool(&env, &model, &[]);
    assert!(!is_error && text.contains("ping-42"), "{text}");
    // The user's own server with `trust_hints: false`: asks, so -p refuses it.
    let model = FakeModel::start();
    let server_off = server.strip_suffix('}').unwrap().to_string() + ", \"trust_hints\": false}";
    let env = TestEnv::with_model(
        "hint-off",
        &model,
        Provider::anthropic().model("m").then(&format!("mcp_servers:\n  raw: {server_off}\n")),
    );
    let (text, is_error) = call_hinted_tool(&env, &model, &[]);
    assert!(is_error && text.contains("needs approval"), "{text}");
    // A repository's server (.mewcode.yaml, trusted to start): asks, whatever it claims.
    let model = FakeModel::start();
    let env = TestEnv::with_model("hint-project", &model, Provider::anthropic().model("m").then(""));
    let server_claims = server.strip_suffix('}').unwrap().to_string() + ", \"trust_hints\": true}";
    env.write(".mewcode.yaml", &format!("mcp_servers:\n  raw: {server_claims}\n"));
    let (text, is_error) = call_hinted_tool(&env, &model, &["--trust"]);
    assert!(is_error && text.contains("needs approval"), "{text}");
    // A repository's .mcp.json server: asks too.
    let model = FakeModel::start();
    let env = TestEnv::with_model("hint-mcp-json", &model, Provider::anthropic().model("m").then(""));
    env.write(".mcp.json", &format!("{{\"mcpServers\": {{\"raw\": {server}}}}}"));
    let (text, is_error) = call_hinted_tool(&env, &model, &["--trust"]);
    assert!(is_error && text.contains("needs approval"), "{text}");
    // Approved by the mode, it runs (the hint still only changes who decides).
    let model = FakeModel::start();
    let env = TestEnv::with_model("hint-mcp-json-bypass", &model, Provider::anthropic().model("m").then(""));
    env.write(".mcp.json", &format!("{{\"mcpServers\": {{\"raw\": {server}}}}}"));
    let (text, is_error) = call_hinted_tool(&env, &model, &["--trust", "--mode", "bypass"]);
    assert!(!is_error && text.contains("ping-42"), "{text}");
}

#[test]
fn the_repl_trust_question_lists_the_mcp_json_servers_and_yes_starts_them() {
    let model = FakeModel::start();
    let env = TestEnv::with_model("mcp-json-repl", &model, Provider::anthropic().model("m").then(""));
    let pid_file = env.dir.path().join("server.pid");
    env.write(".mcp.json", &format!("{{\"mcpServers\": {{\"proj\": {}}}}}", raw_server_json(&pid_file)));
    let tmux = crate::support::tmux::Tmux::start(&env, &[], &[]);
    let screen = tmux.wait_for("trust this project? [y/N]");
    assert!(screen.contains("MCP server proj from .mcp.json (python3 "), "{screen}");
    assert!(!pid_file.exists(), "started before the answer");
    tmux.keys(&["y"]);
    tmux.wait_for_prompt();
    // The server starts in the background once trusted; the REPL says when it connected.
    crate::repl::enter_until(&tmux, "mcp server proj connected: 1 tool");
    tmux.type_text("/mcp");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("hints: not trusted (the project's .mcp.json): every call asks");
    assert!(screen.contains("mcp__proj__echo"), "{screen}");
    assert!(mewcode::integration::is_trusted(&env.home, &env.project));
}
