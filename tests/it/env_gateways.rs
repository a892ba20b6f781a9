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
