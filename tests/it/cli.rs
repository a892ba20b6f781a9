//! The CLI contract and configuration, through the real binary.

use crate::support::{FakeModel, Reply, TestEnv};

#[test]
fn version_prints_name_and_version() {
    let env = TestEnv::new("version");
    let run = env.run(&["--version"]);
    assert_eq!((run.code, run.stdout.as_str(), run.stderr.as_str()), (0, "mewcode 0.1.0\n", ""));
    assert_eq!(env.run(&["-V"]).stdout, "mewcode 0.1.0\n");
}

#[test]
fn help_lists_every_flag_and_subcommand() {
    let run = TestEnv::new("help").run(&["--help"]);
    assert_eq!(run.code, 0);
    for needle in [
        "-p PROMPT",
        "--output-format",
        "--config",
        "--provider",
        "--model",
        "--mode",
        "--cwd",
        "--continue",
        "--resume",
        "--max-iterations",
        "--trust",
        "--quiet",
        "mcp list",
        "mcp call",
        "sessions",
        "check TOOL JSON",
        "doctor",
        "MEWCODE_HOME",
        "NO_COLOR",
        "130 interrupted",
    ] {
        assert!(run.stdout.contains(needle), "help lacks {needle:?}");
    }
}

#[test]
fn bad_flags_and_values_exit_2_with_one_line_naming_the_flag() {
    let env = TestEnv::new("badflag");
    let cases = [
        (vec!["--frobnicate"], "mewcode: unknown flag --frobnicate (see mewcode --help)\n"),
        (
            vec!["--mode", "yolo"],
            "mewcode: --mode: expected default|acceptEdits|plan|bypass, got \"yolo\" (see mewcode --help)\n",
        ),
        (
            vec!["-p", "x", "--max-iterations", "0"],
            "mewcode: --max-iterations: must be a positive number, got 0 (see mewcode --help)\n",
        ),
        (
            vec!["-p", "x", "--output-format", "yaml"],
            "mewcode: --output-format: expected text|json|stream-json, got \"yaml\" (see mewcode --help)\n",
        ),
        (
            vec!["--cwd", "/definitely/not/here"],
            "mewcode: --cwd: /definitely/not/here: No such file or directory (os error 2) (see mewcode --help)\n",
        ),
    ];
    for (args, expected) in cases {
        let run = env.run(&args);
        assert_eq!((run.code, run.stderr.as_str(), run.stdout.as_str()), (2, expected, ""), "{args:?}");
    }
}

#[test]
fn config_errors_name_file_and_key_path_and_exit_2() {
    let env = TestEnv::new("configerr");
    env.write(
        ".mewcode.yaml",
        "providers:\n  - {name: a, protocol: openai, model: m}\n  - {name: b, protocol: antropic, model: m}\n",
    );
    let run = env.run(&["-p", "hi", "--trust"]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "mewcode: .mewcode.yaml: providers[1].protocol: expected anthropic|openai, got \"antropic\"\n"
    );

    let user = env.write_home("config.yaml", "providers:\n  - name: x\n    protocol: openai\n");
    let run = env.run(&["doctor"]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        format!(
            "mewcode: {}: providers[0].model: missing model (there is no default model; name one, e.g. model: claude-sonnet-4-5)\n",
            user.display()
        )
    );

    env.write_home("config.yaml", "providers: [\n");
    let run = env.run(&["doctor"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.starts_with(&format!("mewcode: {}: invalid YAML", user.display())), "{}", run.stderr);

    std::fs::remove_file(&user).unwrap();
    let run = env.run(&["doctor", "--config", "missing.yaml"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.starts_with("mewcode: missing.yaml: "), "{}", run.stderr);
}

#[test]
fn undefined_variable_is_a_warning_not_a_failure() {
    let mut env = TestEnv::new("undefvar");
    let model = FakeModel::start();
    model.route("GET", "/v1/models", 200, r#"{"data":[{"id":"m1"}]}"#);
    env.vars.push(("MODEL_NAME".into(), "m1".into()));
    env.write_home(
        "config.yaml",
        &format!("providers:\n  - name: local\n    protocol: openai\n    model: ${{MODEL_NAME}}\n    base_url: {}/v1\n    api_key: ${{NOT_SET_ANYWHERE}}\n", model.url()),
    );
    let run = env.run(&["doctor"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("undefined environment variables expanded to empty strings: NOT_SET_ANYWHERE"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("* local  openai m1"), "{}", run.stdout);
    assert!(run.stdout.contains("endpoint: reachable (1 models: m1; the model is listed)"), "{}", run.stdout);
    assert!(model.side_requests().iter().any(|request| request.path == "/v1/models"));
}

#[test]
fn override_order_is_config_flag_then_project_then_user() {
    let env = TestEnv::new("order");
    let closed = crate::support::project::closed_port();
    let provider = |model: &str| {
        format!(
            "providers:\n  - {{name: main, protocol: openai, model: {model}, base_url: \"http://127.0.0.1:{closed}/v1\"}}\n"
        )
    };
    env.write_home("config.yaml", &provider("from-user"));
    env.write(".mewcode.yaml", &provider("from-project"));
    let extra = env.write("extra.yaml", &provider("from-flag"));
    let shown = |args: &[&str]| {
        let run = env.run(args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let line = run.stdout.lines().find(|line| line.starts_with("* main")).unwrap_or_default().to_string();
        (line, run.stdout)
    };
    let (line, _) = shown(&["doctor", "--trust", "--config", extra.to_str().unwrap()]);
    assert!(line.contains("from-flag"), "{line}");
    let (line, _) = shown(&["doctor", "--trust"]);
    assert!(line.contains("from-project"), "{line}");
    let (line, report) = shown(&["doctor"]);
    assert!(line.contains("from-user"), "{line}");
    assert!(report.contains("NOT trusted: ignored"), "{report}");
    assert!(report.contains("project config not trusted, so it is ignored: provider main"), "{report}");
    assert!(report.contains("UNREACHABLE"), "{report}");
}

#[test]
fn doctor_masks_keys() {
    let mut env = TestEnv::new("mask");
    env.vars.push(("ANTHROPIC_API_KEY".into(), "sk-ant-api03-SECRETSECRETSECRET-tail".into()));
    let closed = crate::support::project::closed_port();
    env.write_home(
        "config.yaml",
        &format!(
            "providers:\n  - {{name: c, protocol: anthropic, model: claude, base_url: \"http://127.0.0.1:{closed}\"}}\n"
        ),
    );
    let run = env.run(&["doctor"]);
    assert_eq!(run.code, 0);
    assert!(run.stdout.contains("key: sk-…tail (from the ANTHROPIC_API_KEY environment variable)"), "{}", run.stdout);
    assert!(!run.stdout.contains("SECRET"));
}

#[test]
fn no_provider_prints_the_setup_guide_and_exits_2() {
    let env = TestEnv::new("noprovider");
    let run = env.run(&["-p", "hello"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("mewcode needs a model."), "{}", run.stderr);
    assert!(run.stderr.contains(&format!("Create {}", env.home.join("config.yaml").display())), "{}", run.stderr);
    assert!(run.stderr.contains("protocol: anthropic") && run.stderr.contains("ANTHROPIC_API_KEY"));
    assert!(run.stderr.ends_with("mewcode: no model provider configured and no local server answered\n"));
}

#[test]
fn no_provider_uses_a_local_server_that_answers_the_probe() {
    let env = TestEnv::new("probe");
    let local = FakeModel::start();
    local.route("GET", "/v1/models", 200, r#"{"object":"list","data":[{"id":"qwen2.5-coder:7b"}]}"#);
    local.route(
        "POST",
        "/api/show",
        200,
        r#"{"parameters":"num_ctx 8192","model_info":{"qwen2.context_length":32768}}"#,
    );
    local.push(Reply::sse(concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"type\":\"function\",\"function\":{\"name\":\"ping\",\"arguments\":\"{\\\"text\\\":\\\"hi\\\"}\"}}]}}]}\n\n",
        "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":90,\"completion_tokens\":9}}\n\n",
        "data: [DONE]\n\n"
    )));
    let mut command = env.command(&["doctor"]);
    command.env("MEWCODE_PROBE_PORTS", format!("{},{}", crate::support::project::closed_port(), local.port()));
    let run = crate::support::project::Run::from(command.output().unwrap());
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains(&format!(
            "a run would use the local vllm server at http://127.0.0.1:{}/v1 (models: qwen2.5-coder:7b)",
            local.port()
        )),
        "{}",
        run.stdout
    );
    // The server a run would use is examined like a configured one.
    assert!(run.stdout.contains("      window: 8192 from POST /api/show\n"), "{}", run.stdout);
    assert!(
        run.stdout.contains(
            "      test request: tool calls structured, arguments in one piece · no reasoning seen · usage sent\n"
        ),
        "{}",
        run.stdout
    );
}

#[test]
fn doctor_connects_to_mcp_servers_and_reports_failures() {
    let env = TestEnv::new("doctor-mcp");
    let raw = crate::support::mcp_servers::fixture("raw_server.py");
    env.write_home(
        "config.yaml",
        &format!(
            "mcp_servers:\n  raw: {{type: stdio, command: python3, args: [\"{}\", ok]}}\n  broken: {{type: stdio, command: /nonexistent/mcp-server}}\n",
            raw.display()
        ),
    );
    let run = env.run(&["doctor"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("raw (stdio: python3"), "{}", run.stdout);
    assert!(run.stdout.contains("connected, protocol 2025-11-25"), "{}", run.stdout);
    assert!(run.stdout.contains("mcp__raw__echo  read-only"), "{}", run.stdout);
    assert!(run.stdout.contains("broken (stdio: /nonexistent/mcp-server): failed"), "{}", run.stdout);
}

#[test]
fn session_flags_without_a_session_say_so_and_exit_2() {
    let env = TestEnv::new("nosession");
    let port = crate::support::project::closed_port();
    env.write_home(
        "config.yaml",
        &format!("providers:\n  - {{name: x, protocol: openai, model: m, base_url: \"http://127.0.0.1:{port}/v1\"}}\n"),
    );
    let cases: [(&[&str], &str); 3] = [
        (&["-p", "hi", "--continue"], "no session to continue in this project"),
        (&["-p", "hi", "--resume", "20261202-131500-a1b2"], "no session 20261202-131500-a1b2 in this project"),
        (&["-p", "hi", "--resume"], "needs the REPL"),
    ];
    for (args, expected) in cases {
        let run = env.run(args);
        assert_eq!(run.code, 2, "{args:?}");
        assert!(run.stderr.contains(expected), "{args:?}: {}", run.stderr);
    }
    let run = env.run(&["sessions"]);
    assert_eq!((run.code, run.stdout.as_str()), (0, "no sessions in this project yet\n"));
    let run = env.run(&["sessions", "--json"]);
    assert_eq!((run.code, run.stdout.as_str()), (0, "[]\n"));
}

#[test]
fn doctor_probes_a_local_server_and_recommends_settings() {
    let env = TestEnv::new("doctor-probe");
    let model = FakeModel::start();
    // llama.cpp: the models list has no window, /props has it; tool calls come back as text and
    // there is no usage.
    model.route("GET", "/v1/models", 200, r#"{"object":"list","data":[{"id":"qwen.gguf"}]}"#);
    model.route("GET", "/props", 200, r#"{"default_generation_settings":{"n_ctx":4096}}"#);
    model.push(Reply::sse(concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"<think>ok</think><tool_call>\"}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"{\\\"name\\\": \\\"ping\\\", \\\"arguments\\\": {\\\"text\\\": \\\"hi\\\"}}</tool_call>\"}}]}\n\n",
        "data: [DONE]\n\n"
    )));
    env.write_home(
        "config.yaml",
        &format!(
            "providers:\n  - {{name: local, protocol: openai, model: qwen.gguf, base_url: \"{}/v1\"}}\n",
            model.url()
        ),
    );
    let run = env.run(&["doctor"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report = run.stdout;
    for line in [
        "      endpoint: reachable (1 models: qwen.gguf; the model is listed)\n",
        "      window: 4096 from GET /props\n",
        "      test request: tool calls as TEXT in the content (<tool_call>) · reasoning in <think> in content · NO usage (mewcode estimates it, shown with ~)\n",
        "      recommended settings for provider local:\n",
        "        context_window: 4096   # what GET /props reports (asked at each start when unset)\n",
        "        text_tool_calls: auto   # the server writes tool calls as text\n",
    ] {
        assert!(report.contains(line), "missing {line:?} in:\n{report}");
    }
    // One test request, with the trivial tool; the window questions never took a model reply.
    let requests = model.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].json.as_ref().unwrap()["tools"][0]["function"]["name"], "ping");
    assert!(model.side_requests().iter().any(|request| request.path == "/props"));
}

#[test]
fn doctor_says_which_tls_roots_each_https_provider_uses() {
    let mut env = TestEnv::new("doctor-tls");
    let port = crate::support::project::closed_port();
    env.write_home(
        "config.yaml",
        &format!(
            "providers:\n  - {{name: public, protocol: openai, model: m, api_key: k, base_url: \"https://127.0.0.1:{port}/v1\"}}\n  - {{name: private, protocol: openai, model: m, api_key: k, base_url: \"https://127.0.0.1:{port}/v1\", ca_file: ca.pem}}\n  - {{name: local, protocol: openai, model: m, base_url: \"http://127.0.0.1:{port}/v1\"}}\n"
        ),
    );
    let run = env.run(&["doctor"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.matches("tls roots: the bundled Mozilla roots\n").count(), 1, "{}", run.stdout);
    let ca = env.home.join("ca.pem");
    let private = format!("tls roots: {} (ca_file) + the bundled Mozilla roots\n", ca.display());
    assert!(run.stdout.contains(&private), "{}", run.stdout);
    env.vars.push(("SSL_CERT_FILE".into(), "/etc/corp.pem".into()));
    let run = env.run(&["doctor"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("tls roots: /etc/corp.pem (SSL_CERT_FILE) + the bundled Mozilla roots\n"),
        "{}",
        run.stdout
    );
    assert_eq!(run.stdout.matches("tls roots:").count(), 2, "plain http has no TLS: {}", run.stdout);
}
