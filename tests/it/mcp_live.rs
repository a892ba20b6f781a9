//! MCP servers as the person sees them change: a server that dies while the REPL waits at the
//! prompt is shown stopped, with its last stderr line, without a key pressed, and the line being
//! typed stays as it was; `/mcp` says so; the model's calls to its tools get a clear error at
//! once; a reconnect shows in the status line as it happens. And `mewcode mcp add`, `remove` and
//! `list`: the entries they write are what the next start loads.

use crate::repl::{enter_until, start, text_reply, tool_reply};
use crate::support::mcp_servers::{HttpServer, fixture, python_sdk_available, require};
use crate::support::{FakeModel, TestEnv};
use mewcode::integration::{
    CancelToken, Manager, McpServerConfig, McpTransport, Registry, ServerState, SpawnEnv, StartOptions, ToolContext,
    Warning,
};
use serde_json::{Value, json};
use std::io::Write;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The status line on the screen (the last line with the mode on it).
fn status_line(screen: &str) -> String {
    screen.lines().rev().find(|line| line.contains(" · mode ")).unwrap_or_default().to_string()
}

/// The text of the tool result the `index`th request carried to the model.
fn tool_result(model: &FakeModel, index: usize) -> String {
    let messages = crate::repl::messages(model, index);
    let blocks = messages.last().unwrap()["content"].as_array().unwrap().clone();
    let result = blocks.iter().find(|block| block["type"] == "tool_result").unwrap();
    match &result["content"] {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts.iter().filter_map(|part| part["text"].as_str()).collect(),
        other => other.to_string(),
    }
}

#[test]
fn a_server_that_dies_while_the_prompt_waits_is_shown_stopped_at_once() {
    let model = FakeModel::start();
    model.push(tool_reply("call-1", "mcp__crashy__echo", json!({"text": "still there?"})));
    model.push(text_reply("The crashy server is down."));
    let env = TestEnv::new("mcp-live-crash");
    let fifo = env.dir.path().join("crash-now");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    env.write_home(
        "config.yaml",
        &format!(
            "providers:\n  - {{name: fake, protocol: anthropic, model: test-model, api_key: k, base_url: \"{}\"}}\nmcp_servers:\n  crashy: {{type: stdio, command: python3, args: [\"{}\", exit-on, \"{}\"]}}\n",
            model.url(),
            fixture("raw_server.py").display(),
            fifo.display()
        ),
    );
    let tmux = start(&env, &[]);
    enter_until(&tmux, "mcp server crashy connected: 1 tool");
    tmux.wait_for_prompt();
    // Half a command typed, then the server dies: nobody presses a key.
    tmux.type_text("/mcp");
    tmux.wait_until("the typed text", |screen| screen.lines().any(|line| line.trim_end() == "› /mcp"));
    std::fs::OpenOptions::new().write(true).open(&fifo).unwrap().write_all(b"x").unwrap();
    let screen = tmux.wait_until("the status line saying the server stopped", |screen| {
        status_line(screen).contains("mcp 0/1 · crashy stopped: fatal: disk full · mode default")
    });
    let last_lines: Vec<&str> = screen.lines().filter(|line| !line.trim().is_empty()).rev().take(2).collect();
    assert_eq!(last_lines[0].trim_end(), "› /mcp", "the line being typed is intact:\n{screen}");
    assert!(last_lines[1].contains("crashy stopped"), "the status line is right above it:\n{screen}");
    assert_eq!(screen.matches("crashy stopped").count(), 1, "repainted in place, not printed again:\n{screen}");

    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("stderr: fatal: disk full");
    // Messages are word-wrapped with a hanging indent: compared with their blanks collapsed.
    let flat = screen.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("crashy (stdio: python3 ")
            && flat.contains(
                "crash-now): stopped: the server is not running (it exited with exit status: 3); /mcp reconnect \
                 crashy starts it again"
            ),
        "{screen}"
    );
    assert!(screen.contains("stderr: raw_server: loading the index\n  stderr: fatal: disk full"), "{screen}");
    // The news is said before the next prompt too.
    let screen = tmux.wait_for("⚠ mcp server crashy: stopped: the server is not running");
    let flat = screen.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("(last stderr: fatal: disk full); its tools are unavailable until it is reconnected"),
        "{screen}"
    );

    // The model still knows the tool; its call gets why at once.
    tmux.type_text("use the echo tool");
    tmux.keys(&["Enter"]);
    tmux.wait_for("The crashy server is down.");
    let result = tool_result(&model, 1);
    assert!(
        result.starts_with(
            "mcp server crashy: the server is not running (it exited with exit status: 3); its last stderr line: \
             fatal: disk full; its tools cannot be used until the user reconnects it"
        ),
        "{result}"
    );

    // A reconnect shows in the status line as soon as the server is up again, keys or not.
    tmux.wait_for_prompt();
    tmux.type_text("/mcp reconnect crashy");
    tmux.keys(&["Enter"]);
    tmux.wait_for("reconnecting mcp server crashy…");
    tmux.wait_until("the status line without mcp", |screen| {
        let line = status_line(screen);
        screen.contains("reconnecting mcp server crashy…") && !line.contains("mcp ") && line.contains("cached · mode")
    });
}

#[test]
fn mcp_add_writes_entries_the_next_start_loads_and_refuses_a_duplicate() {
    let env = TestEnv::new("mcp-add");
    let raw = fixture("raw_server.py").display().to_string();
    let user_config = env.write_home("config.yaml", "# my own settings\nbypass_in_mode_cycle: false\n");
    let port = crate::support::project::closed_port();
    let url = format!("http://127.0.0.1:{port}/mcp");

    let added = env.run(&["mcp", "add", "echoes", "-e", "ECHO_MODE=plain", "--", "python3", &raw, "ok"]);
    assert_eq!(added.code, 0, "{added:?}");
    assert_eq!(
        added.stdout,
        format!(
            "added MCP server echoes in {} (user scope):\n  echoes:\n    type: stdio\n    command: python3\n    args:\n    - {raw}\n    - ok\n    env:\n      ECHO_MODE: plain\ncheck it with: mewcode mcp list\n",
            user_config.display()
        )
    );
    let added = env.run(&["mcp", "add", "docs", "--url", &url, "--header", "Authorization: Bearer ${DOCS_TOKEN}"]);
    assert_eq!(added.code, 0, "{added:?}");
    let text = std::fs::read_to_string(&user_config).unwrap();
    assert!(text.starts_with("# my own settings\nbypass_in_mode_cycle: false\nmcp_servers:\n  echoes:\n"), "{text}");
    assert!(
        text.ends_with(&format!(
            "  docs:\n    type: http\n    url: {url}\n    headers:\n      Authorization: Bearer ${{DOCS_TOKEN}}\n"
        )),
        "{text}"
    );

    // A duplicate is refused and changes nothing; --force replaces it.
    let duplicate = env.run(&["mcp", "add", "docs", "--", "python3", &raw, "ok"]);
    assert_eq!(duplicate.code, 1, "{duplicate:?}");
    assert_eq!(
        duplicate.stderr,
        format!(
            "mewcode: mcp add: {}: an MCP server named \"docs\" is already configured here (--force replaces it)\n",
            user_config.display()
        )
    );
    assert_eq!(std::fs::read_to_string(&user_config).unwrap(), text);
    let invalid = env.run(&["mcp", "add", "my docs", "--url", &url]);
    assert_eq!((invalid.code, invalid.stdout.as_str()), (2, ""), "{invalid:?}");
    assert!(invalid.stderr.contains("invalid server name \"my docs\""), "{invalid:?}");

    // The next start loads both: the stdio one connects, the http one is tried at its URL.
    let listed = env.run(&["mcp", "list"]);
    assert_eq!(listed.code, 1, "the docs server is not running: {listed:?}");
    assert!(
        listed.stdout.contains(&format!("docs (http: {url}): failed: connection to 127.0.0.1 refused")),
        "{listed:?}"
    );
    assert!(listed.stdout.contains(&format!("echoes (stdio: python3 {raw} ok): connected")), "{listed:?}");
    assert!(listed.stdout.contains("mcp__echoes__echo"), "{listed:?}");
    assert!(
        listed.stderr.contains("undefined environment variables expanded to empty strings: DOCS_TOKEN"),
        "{listed:?}"
    );

    // The project's scope: its own file, applied once trusted.
    let project = env.run(&["mcp", "add", "--scope", "project", "team", "--", "python3", &raw, "ok"]);
    assert_eq!(project.code, 0, "{project:?}");
    assert!(project.stdout.contains("the project's config applies once you trust the project"), "{project:?}");
    assert!(std::fs::read_to_string(env.project.join(".mewcode.yaml")).unwrap().starts_with("mcp_servers:\n  team:\n"));
    let listed = env.run(&["mcp", "list", "--trust", "--json"]);
    let servers: Value = serde_json::from_str(&listed.stdout).unwrap();
    let names: Vec<&str> =
        servers["servers"].as_array().unwrap().iter().map(|server| server["name"].as_str().unwrap()).collect();
    assert_eq!(names, vec!["docs", "echoes", "team"]);

    // Removing: from the one file that has it; the rest of the file stays.
    let removed = env.run(&["mcp", "remove", "docs"]);
    assert_eq!(removed.code, 0, "{removed:?}");
    assert_eq!(removed.stdout, format!("removed MCP server docs from {} (user scope)\n", user_config.display()));
    let text = std::fs::read_to_string(&user_config).unwrap();
    assert!(
        text.starts_with("# my own settings\nbypass_in_mode_cycle: false\nmcp_servers:\n  echoes:\n")
            && !text.contains("docs"),
        "{text}"
    );
    let again = env.run(&["mcp", "remove", "docs"]);
    assert_eq!(again.code, 1, "{again:?}");
    assert!(again.stderr.contains("no MCP server named \"docs\" in"), "{again:?}");
    let listed = env.run(&["mcp", "list"]);
    assert_eq!(listed.code, 0, "{listed:?}");
    assert!(!listed.stdout.contains("docs"), "{listed:?}");
}

/// An HTTP server of the Python SDK, reached at `url`.
fn http_server(name: &str, url: &str) -> McpServerConfig {
    McpServerConfig {
        name: name.to_string(),
        transport: McpTransport::Http { url: url.to_string(), headers: Vec::new(), ca_file: None },
        timeout_s: Some(10),
        source: "test".to_string(),
        trust_hints: true,
    }
}

/// Over HTTP there is no process to watch: a server that keeps a stream open (it declared
/// `tools.listChanged`) is seen gone when that stream cannot be opened again, with no call; one
/// that does not, at the first call that cannot reach it. Both are shown stopped, said once as a
/// warning (what `-p` prints), and their tools answer at once.
#[test]
fn an_http_server_that_goes_away_is_shown_stopped() {
    if !require(python_sdk_available(), "the Python MCP SDK") {
        return;
    }
    let features = fixture("features_server.py");
    let features = features.to_str().unwrap();
    let listening = HttpServer::start("python3", &[features, "http", "{port}", "--list-changed"], &[]);
    let plain = HttpServer::start("python3", &[features, "http", "{port}"], &[]);
    let warnings: Arc<Mutex<Vec<Warning>>> = Arc::default();
    let sink = Arc::clone(&warnings);
    let options = StartOptions {
        spawn: SpawnEnv { host_env: Vec::new(), cwd: std::env::temp_dir(), log_dir: None },
        net: Default::default(),
        warn: Arc::new(move |warning| sink.lock().unwrap().push(warning)),
        pins: None,
    };
    let configs = [http_server("loud", &listening.url()), http_server("plain", &plain.url())];
    let (mut manager, start_warnings) = Manager::start(&configs, &options);
    assert_eq!(start_warnings, vec![]);
    let mut registry = Registry::new();
    manager.register_tools(&mut registry);
    let ctx = ToolContext::new(std::env::temp_dir(), CancelToken::new());
    let state = |name: &str| manager.statuses().into_iter().find(|status| status.name == name).unwrap().state;
    assert!(matches!(state("loud"), ServerState::Connected { .. }));
    drop(listening);
    drop(plain);

    let deadline = Instant::now() + Duration::from_secs(10);
    while !matches!(state("loud"), ServerState::Stopped { .. }) {
        assert!(Instant::now() < deadline, "the listening server was never seen gone: {:?}", state("loud"));
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(matches!(state("plain"), ServerState::Connected { .. }), "nothing told us yet");
    let call = registry.get("mcp__plain__echo").unwrap().execute(r#"{"text":"x"}"#, &ctx);
    assert!(call.is_error && call.content.contains("refused; is the server running?"), "{call:?}");
    assert!(call.content.contains("its tools cannot be used until the user reconnects it"), "{call:?}");
    assert!(matches!(state("plain"), ServerState::Stopped { error, .. } if error.contains("refused")));
    // How the stream broke depends on the moment the process died: refused, reset, disconnected.
    let gone = |text: &str| text.contains("127.0.0.1");
    let again = registry.get("mcp__loud__echo").unwrap().execute(r#"{"text":"x"}"#, &ctx);
    assert!(again.is_error && again.content.starts_with("mcp server loud: ") && gone(&again.content), "{again:?}");
    assert!(
        again
            .content
            .ends_with("its tools cannot be used until the user reconnects it (/mcp reconnect loud in the REPL)")
    );
    let said: Vec<String> = warnings.lock().unwrap().iter().map(ToString::to_string).collect();
    assert_eq!(said.len(), 2, "{said:?}");
    assert!(said[0].starts_with("mcp server loud: stopped: ") && gone(&said[0]), "{said:?}");
    assert!(said[1].starts_with("mcp server plain: stopped: connection to 127.0.0.1 refused"), "{said:?}");
    manager.shutdown();
}
