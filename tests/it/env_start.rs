//! Starting from the environment users already set for other tools: no config file, only
//! `*_API_KEY` / `*_BASE_URL` (and a model variable, or a server listing one model).

use crate::support::{FakeModel, Reply, TestEnv};

fn env_with(label: &str, vars: &[(&str, &str)]) -> TestEnv {
    let mut env = TestEnv::new(label);
    env.vars = vars.iter().map(|(name, value)| (name.to_string(), value.to_string())).collect();
    env
}

#[test]
fn env_only_openai_start_reaches_the_server_with_bearer_and_model() {
    let model = FakeModel::start();
    model.push(Reply::fixture("openai-text.sse"));
    let base = format!("{}/v1", model.url());
    let env = env_with(
        "env-openai",
        &[("OPENAI_API_KEY", "sk-env"), ("OPENAI_BASE_URL", &base), ("MEWCODE_MODEL", "env-model")],
    );
    let run = env.run(&["-p", "hi"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "Olá!\n");
    let request = &model.requests()[0];
    assert_eq!(request.path, "/v1/chat/completions");
    assert_eq!(request.header("authorization"), Some("Bearer sk-env"));
    assert_eq!(request.json.as_ref().unwrap()["model"], "env-model");
}

#[test]
fn env_only_anthropic_start_reaches_the_server_with_key_and_model() {
    let model = FakeModel::start();
    model.push(Reply::fixture("anthropic-text.sse"));
    let url = model.url();
    let env = env_with(
        "env-anthropic",
        &[("ANTHROPIC_API_KEY", "sk-ant-env"), ("ANTHROPIC_BASE_URL", &url), ("ANTHROPIC_MODEL", "claude-env")],
    );
    let run = env.run(&["-p", "hi"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let request = &model.requests()[0];
    assert_eq!(request.path, "/v1/messages");
    assert_eq!(request.header("x-api-key"), Some("sk-ant-env"));
    assert_eq!(request.json.as_ref().unwrap()["model"], "claude-env");
}

#[test]
fn env_only_model_flag_beats_model_variables() {
    let model = FakeModel::start();
    model.push(Reply::fixture("openai-text.sse"));
    let base = format!("{}/v1", model.url());
    let env =
        env_with("env-flag", &[("OPENAI_BASE_URL", &base), ("MEWCODE_MODEL", "env-model"), ("OPENAI_MODEL", "other")]);
    let run = env.run(&["-p", "hi", "--model", "flag-model"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(model.requests()[0].json.as_ref().unwrap()["model"], "flag-model");
}

#[test]
fn env_only_model_comes_from_a_single_model_server_list() {
    let model = FakeModel::start();
    model.route("GET", "/v1/models", 200, r#"{"object":"list","data":[{"id":"qwen-local","object":"model"}]}"#);
    model.push(Reply::fixture("openai-text.sse"));
    let base = format!("{}/v1", model.url());
    let env = env_with("env-one-model", &[("OPENAI_BASE_URL", &base)]);
    let run = env.run(&["-p", "hi"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let request = &model.requests()[0];
    assert_eq!(request.header("authorization"), None);
    assert_eq!(request.json.as_ref().unwrap()["model"], "qwen-local");
}

#[test]
fn env_only_server_listing_several_models_is_an_error_naming_them() {
    let model = FakeModel::start();
    model.route("GET", "/v1/models", 200, r#"{"data":[{"id":"alpha"},{"id":"beta"}]}"#);
    let base = format!("{}/v1", model.url());
    let env = env_with("env-two-models", &[("OPENAI_BASE_URL", &base)]);
    let run = env.run(&["-p", "hi"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("alpha, beta"), "{}", run.stderr);
    assert!(run.stderr.contains("MEWCODE_MODEL"), "{}", run.stderr);
    assert!(model.requests().is_empty());
}

#[test]
fn empty_base_url_after_expansion_is_an_error_naming_file_and_key() {
    let env = TestEnv::new("env-empty-base");
    env.write_home(
        "config.yaml",
        "providers:\n  - {name: corp, protocol: openai, model: m, base_url: \"${CORP_URL}\"}\n",
    );
    let run = env.run(&["-p", "hi"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("config.yaml"), "{}", run.stderr);
    assert!(run.stderr.contains("providers[0].base_url"), "{}", run.stderr);
}

#[test]
fn base_url_variable_overrides_a_provider_without_base_url() {
    let model = FakeModel::start();
    model.push(Reply::fixture("anthropic-text.sse"));
    let url = model.url();
    let mut env = TestEnv::new("env-override");
    env.write_home(
        "config.yaml",
        "providers:\n  - {name: claude, protocol: anthropic, model: claude-conf, api_key: k-conf}\n",
    );
    env.vars = vec![("ANTHROPIC_BASE_URL".to_string(), url)];
    let run = env.run(&["-p", "hi"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let request = &model.requests()[0];
    assert_eq!(request.header("x-api-key"), Some("k-conf"));
    assert_eq!(request.json.as_ref().unwrap()["model"], "claude-conf");
}

#[test]
fn mewcode_model_replaces_a_configured_model_but_openai_model_does_not() {
    let model = FakeModel::start();
    model.push(Reply::fixture("openai-text.sse"));
    model.push(Reply::fixture("openai-text.sse"));
    let base = format!("{}/v1", model.url());
    let mut env = TestEnv::new("env-model-over-file");
    env.write_home(
        "config.yaml",
        &format!("providers:\n  - {{name: gpt, protocol: openai, model: file-model, base_url: \"{base}\"}}\n"),
    );
    env.vars = vec![("OPENAI_MODEL".to_string(), "shared-model".to_string())];
    let run = env.run(&["-p", "hi"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    env.vars.push(("MEWCODE_MODEL".to_string(), "env-model".to_string()));
    let run = env.run(&["-p", "hi"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let models: Vec<String> =
        model.requests().iter().map(|request| request.json.as_ref().unwrap()["model"].to_string()).collect();
    assert_eq!(models, ["\"file-model\"", "\"env-model\""]);
}

#[test]
fn doctor_shows_the_provider_the_environment_builds() {
    let model = FakeModel::start();
    model.route("GET", "/v1/models", 200, r#"{"data":[{"id":"env-model"}]}"#);
    let base = format!("{}/v1", model.url());
    let env = env_with("env-doctor", &[("OPENAI_BASE_URL", &base), ("MEWCODE_MODEL", "env-model")]);
    let run = env.run(&["doctor"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("from the OPENAI_BASE_URL environment variable (model env-model)"), "{}", run.stdout);
}

#[test]
fn with_both_protocols_set_the_one_with_a_base_url_wins_and_provider_chooses() {
    let openai = FakeModel::start();
    openai.push(Reply::fixture("openai-text.sse"));
    let anthropic = FakeModel::start();
    anthropic.push(Reply::fixture("anthropic-text.sse"));
    let base = format!("{}/v1", openai.url());
    let anthropic_url = anthropic.url();
    let mut env =
        env_with("env-both", &[("ANTHROPIC_API_KEY", "sk-ant"), ("OPENAI_BASE_URL", &base), ("MEWCODE_MODEL", "m")]);
    let run = env.run(&["-p", "hi"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("using openai from the OPENAI_BASE_URL environment variable"), "{}", run.stderr);
    assert_eq!(openai.requests().len(), 1);
    env.vars.push(("ANTHROPIC_BASE_URL".to_string(), anthropic_url));
    let run = env.run(&["-p", "hi", "--provider", "anthropic"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(anthropic.requests()[0].header("x-api-key"), Some("sk-ant"));
}
