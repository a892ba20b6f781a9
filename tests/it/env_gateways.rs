//! Gateways and local servers reached from the environment other tools use: Claude Code's
//! `ANTHROPIC_AUTH_TOKEN`, aider's `OPENAI_API_BASE`, the probe's ports and the setup guide;
//! discovery asked once per endpoint and remembered; a refused loopback port failing at once.

use crate::support::project::closed_port;
use crate::support::{FakeModel, Reply, TestEnv};

fn env_with(label: &str, vars: &[(&str, &str)]) -> TestEnv {
    let mut env = TestEnv::new(label);
    env.vars = vars.iter().map(|(name, value)| (name.to_string(), value.to_string())).collect();
    env
}

#[test]
fn anthropic_auth_token_is_sent_as_a_bearer_header() {
    let model = FakeModel::start();
    model.push(Reply::fixture("anthropic-text.sse"));
    let url = model.url();
    let env = env_with(
        "auth-token",
        &[("ANTHROPIC_AUTH_TOKEN", "gw-token"), ("ANTHROPIC_BASE_URL", &url), ("ANTHROPIC_MODEL", "claude-gw")],
    );
    let run = env.run(&["-p", "hi"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stderr.contains("no API key"), "{}", run.stderr);
    let request = &model.requests()[0];
    assert_eq!(request.path, "/v1/messages");
    assert_eq!(request.header("authorization"), Some("Bearer gw-token"));
    assert_eq!(request.header("x-api-key"), None);
}

#[test]
fn an_api_key_wins_over_the_auth_token() {
    let model = FakeModel::start();
    model.push(Reply::fixture("anthropic-text.sse"));
    let url = model.url();
    let env = env_with(
        "auth-token-key",
        &[
            ("ANTHROPIC_API_KEY", "sk-ant"),
            ("ANTHROPIC_AUTH_TOKEN", "gw-token"),
            ("ANTHROPIC_BASE_URL", &url),
            ("ANTHROPIC_MODEL", "claude-gw"),
        ],
    );
    let run = env.run(&["-p", "hi"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let request = &model.requests()[0];
    assert_eq!(request.header("x-api-key"), Some("sk-ant"));
    assert_eq!(request.header("authorization"), None);
}

#[test]
fn openai_api_base_routes_the_key_and_prompt_to_that_server() {
    let model = FakeModel::start();
    model.push(Reply::fixture("openai-text.sse"));
    let base = format!("{}/v1/", model.url());
    let env = env_with(
        "api-base",
        &[("OPENAI_API_KEY", "sk-aider"), ("OPENAI_API_BASE", &base), ("OPENAI_MODEL", "gpt-local")],
    );
    let run = env.run(&["-p", "hi", "--output-format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let request = &model.requests()[0];
    assert_eq!(request.path, "/v1/chat/completions");
    assert_eq!(request.header("authorization"), Some("Bearer sk-aider"));
    assert_eq!(request.json.as_ref().unwrap()["model"], "gpt-local");
}

#[test]
fn the_setup_guide_names_every_server_the_probe_tried() {
    let ports: Vec<u16> = (0..4).map(|_| closed_port()).collect();
    let list = ports.iter().map(u16::to_string).collect::<Vec<_>>().join(",");
    let env = env_with("guide-ports", &[("MEWCODE_PROBE_PORTS", &list)]);
    let run = env.run(&["-p", "hello"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    for (port, kind) in ports.iter().zip(["ollama", "vllm", "llama.cpp", "lmstudio"]) {
        assert!(run.stderr.contains(&format!("{kind} (127.0.0.1:{port})")), "{kind}: {}", run.stderr);
    }
}

#[test]
fn help_lists_the_environment_the_readme_says_is_enough() {
    let run = TestEnv::new("help-env").run(&["--help"]);
    assert_eq!(run.code, 0);
    for var in [
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "ANTHROPIC_BASE_URL",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "OPENAI_API_BASE",
        "MEWCODE_MODEL",
        "ANTHROPIC_MODEL",
        "OPENAI_MODEL",
        "MEWCODE_HOME",
    ] {
        assert!(run.stdout.contains(var), "--help lacks {var}");
    }
}

#[test]
fn discovery_is_asked_on_the_first_run_only_and_its_assumption_said_once() {
    let model = FakeModel::start();
    model.push(Reply::fixture("openai-text.sse"));
    model.push(Reply::fixture("openai-text.sse"));
    let base = format!("{}/v1", model.url());
    let env = env_with("discovery-once", &[("OPENAI_BASE_URL", &base), ("MEWCODE_MODEL", "m")]);
    let first = env.run(&["-p", "hi"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let asked = model.side_requests().len();
    assert_eq!(asked, 5, "the first run asks every discovery endpoint");
    assert!(first.stderr.contains("reported none"), "{}", first.stderr);
    assert!(env.home.join("discovery.json").is_file());
    let second = env.run(&["-p", "hi"]);
    assert_eq!(second.code, 0, "{}", second.stderr);
    assert_eq!(model.side_requests().len(), asked, "the second run asks nothing but the model");
    assert_eq!(model.requests().len(), 2, "one model request per run");
    assert!(!second.stderr.contains("context window"), "said once per endpoint: {}", second.stderr);
    assert_eq!(second.stdout, first.stdout);
}

#[test]
fn a_known_window_is_applied_from_the_cache_without_asking() {
    let model = FakeModel::start();
    model.route("GET", "/props", 200, r#"{"n_ctx":4096}"#);
    model.push(Reply::fixture("openai-text.sse"));
    model.push(Reply::fixture("openai-text.sse"));
    let base = format!("{}/v1", model.url());
    let env = env_with("discovery-window", &[("OPENAI_BASE_URL", &base), ("MEWCODE_MODEL", "m")]);
    assert_eq!(env.run(&["-p", "hi"]).code, 0);
    let asked = model.side_requests().len();
    let second = env.run(&["-p", "hi", "--output-format", "json"]);
    assert_eq!(second.code, 0, "{}", second.stderr);
    assert_eq!(model.side_requests().len(), asked);
    let cache = std::fs::read_to_string(env.home.join("discovery.json")).unwrap();
    assert!(cache.contains("4096") && cache.contains("GET /props"), "{cache}");
}

#[test]
fn a_refused_loopback_port_fails_at_once_naming_the_url() {
    let url = format!("http://127.0.0.1:{}/v1", closed_port());
    let env = env_with("refused-fast", &[("OPENAI_BASE_URL", &url), ("MEWCODE_MODEL", "m")]);
    let started = std::time::Instant::now();
    let run = env.run(&["-p", "hi"]);
    let took = started.elapsed();
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains(&format!("connection to provider \"openai\" at {url} refused")), "{}", run.stderr);
    assert!(!run.stderr.contains("retrying"), "not retried: {}", run.stderr);
    // The old policy waited 1 + 2 + 4 s between four attempts; no retry means well under one.
    assert!(took < std::time::Duration::from_secs(3), "took {took:?}");
    assert!(!run.stderr.contains("reported none"), "a server that is down reported nothing: {}", run.stderr);
}

#[test]
fn a_request_that_fails_for_the_window_makes_the_next_run_ask_again() {
    let model = FakeModel::start();
    model.route("GET", "/props", 200, r#"{"n_ctx":4096}"#);
    model.push(Reply::fixture("openai-text.sse"));
    let too_long = r#"{"error":{"message":"This model's maximum context length is 2048 tokens. However, your messages resulted in 3000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}"#;
    model.push(Reply::status(400, too_long));
    model.push(Reply::fixture("openai-text.sse"));
    let base = format!("{}/v1", model.url());
    let env = env_with("discovery-refresh", &[("OPENAI_BASE_URL", &base), ("MEWCODE_MODEL", "m")]);
    assert_eq!(env.run(&["-p", "hi"]).code, 0);
    let asked = model.side_requests().len();
    assert_eq!(asked, 5);
    let failed = env.run(&["-p", "hi"]);
    assert_eq!(failed.code, 1, "{}", failed.stderr);
    assert_eq!(model.side_requests().len(), asked, "the window came from the cache");
    let cache = std::fs::read_to_string(env.home.join("discovery.json")).unwrap();
    assert!(!cache.contains("4096"), "the window that failed is forgotten: {cache}");
    assert_eq!(model.remaining(), 1, "the failure was not retried");
    let again = env.run(&["-p", "hi"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(model.side_requests().len(), asked * 2, "the next run asks the server again");
}

#[test]
fn the_repl_banner_shows_the_endpoints_host() {
    let model = FakeModel::start();
    let env = TestEnv::with_model("banner-host", &model, crate::support::Provider::anthropic());
    let tmux = crate::repl::start(&env, &[]);
    let banner = tmux.wait_for(&format!("mode default · 127.0.0.1:{}", model.port()));
    assert!(banner.contains("mewcode 0.1.0 · fake · test-model"), "{banner}");
}

#[test]
fn doctor_checks_a_gateway_with_its_bearer_token() {
    let model = FakeModel::start();
    model.route("GET", "/v1/models", 200, r#"{"data":[{"id":"claude-gw"}]}"#);
    let url = model.url();
    let env = env_with(
        "auth-token-doctor",
        &[("ANTHROPIC_AUTH_TOKEN", "gw-secret-token"), ("ANTHROPIC_BASE_URL", &url), ("ANTHROPIC_MODEL", "claude-gw")],
    );
    let run = env.run(&["doctor"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(!run.stdout.contains("gw-secret-token"), "the token is masked: {}", run.stdout);
    let checks = model.side_requests();
    assert!(!checks.is_empty(), "doctor asked the gateway");
    assert!(
        checks.iter().all(|request| request.header("authorization") == Some("Bearer gw-secret-token")),
        "{checks:?}"
    );
}
