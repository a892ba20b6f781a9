//! Failures a script can read (issue 14): a failed `-p` run carries a typed `error` object in
//! json (`kind`, `message`, `fix` when known, `retryable`), the same fields in stream-json's
//! `error` event, and its one-line message on stderr in every format unless `-q`; one test per
//! kind against the fake model server (or no server at all).

use crate::support::project::{Run, closed_port};
use crate::support::{FakeModel, Reply, TestEnv};
use serde_json::{Value, json};

fn env_at(label: &str, protocol: &str, base_url: &str) -> TestEnv {
    let env = TestEnv::new(label);
    env.write_home(
        "config.yaml",
        &format!(
            "providers:\n  - {{name: fake, protocol: {protocol}, model: m, api_key: k, base_url: \"{base_url}\"}}\n"
        ),
    );
    env
}

fn openai_env(label: &str, model: &FakeModel) -> TestEnv {
    env_at(label, "openai", &format!("{}/v1", model.url()))
}

/// The `error` object of a json run, checked against the exit code and stderr line.
fn json_error(env: &TestEnv, code: i32) -> (Value, Run) {
    let run = env.run(&["-p", "hi", "--output-format", "json"]);
    assert_eq!(run.code, code, "{}", run.stderr);
    let output: Value = serde_json::from_str(&run.stdout).unwrap_or_else(|_| panic!("stdout: {}", run.stdout));
    assert_eq!(output["is_error"], true);
    let error = output["error"].clone();
    let message = error["message"].as_str().unwrap_or_else(|| panic!("no error message: {output}"));
    assert!(run.stderr.contains(&format!("mewcode: error: {message}")), "{}", run.stderr);
    (error, run)
}

fn assert_kind(error: &Value, kind: &str, retryable: bool) {
    assert_eq!((error["kind"].as_str(), error["retryable"].as_bool()), (Some(kind), Some(retryable)), "{error}");
}

#[test]
fn auth_failure_is_kind_auth_with_the_key_to_fix_and_stream_json_says_the_same() {
    let model = FakeModel::start();
    let unauthorized =
        || Reply::status(401, r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}"#);
    model.push(unauthorized());
    model.push(unauthorized());
    model.push(unauthorized());
    let env = openai_env("err-kind-auth", &model);
    let (error, _) = json_error(&env, 1);
    assert_kind(&error, "auth", false);
    assert!(error["fix"].as_str().is_some_and(|fix| fix.contains("api_key")), "{error}");
    assert!(error["message"].as_str().unwrap().contains("Incorrect API key provided"), "{error}");
    // stream-json: an `error` event with the same fields, then `done` with the same object.
    let run = env.run(&["-p", "hi", "--output-format", "stream-json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let lines: Vec<Value> = run.stdout.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    let event = lines.iter().find(|line| line["type"] == "error").unwrap_or_else(|| panic!("{}", run.stdout));
    let mut expected = error.clone();
    expected["type"] = json!("error");
    assert_eq!(event, &expected);
    assert_eq!(lines.last().unwrap()["error"], error);
    assert_eq!(run.stderr.matches("mewcode: error: ").count(), 1, "{}", run.stderr);
    // Text mode says it once on stderr; -q says nothing, in every format.
    let text = env.run(&["-p", "hi"]);
    assert_eq!((text.code, text.stdout.as_str()), (1, ""), "{}", text.stderr);
    assert_eq!(text.stderr.matches("mewcode: error: authentication failed").count(), 1, "{}", text.stderr);
    for format in ["text", "json"] {
        model.push(unauthorized());
        let quiet = env.run(&["-p", "hi", "-q", "--output-format", format]);
        assert_eq!(quiet.code, 1, "{format}");
        assert!(!quiet.stderr.contains("mewcode: error:"), "{format}: {}", quiet.stderr);
    }
}

#[test]
fn rate_limit_after_every_retry_is_kind_rate_limit_and_retryable() {
    let model = FakeModel::start();
    for _ in 0..4 {
        model.push(
            Reply::status(429, r#"{"error":{"message":"slow down","type":"rate_limit_error"}}"#)
                .with_header("retry-after", "0"),
        );
    }
    let env = openai_env("err-kind-429", &model);
    let (error, _) = json_error(&env, 1);
    assert_kind(&error, "rate_limit", true);
    assert!(error["fix"].as_str().is_some_and(|fix| fix.contains("wait")), "{error}");
    assert_eq!(model.requests().len(), 4, "the error comes after the retries");
}

#[test]
fn prompt_too_long_is_kind_prompt_too_long_and_not_retryable() {
    let model = FakeModel::start();
    let too_long = r#"{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}"#;
    for _ in 0..3 {
        model.push(Reply::status(400, too_long));
    }
    let env = openai_env("err-kind-ptl", &model);
    let (error, _) = json_error(&env, 1);
    assert_kind(&error, "prompt_too_long", false);
}

#[test]
fn a_refused_loopback_connection_is_kind_network_and_not_retried() {
    let env = env_at("err-kind-network", "openai", &format!("http://127.0.0.1:{}/v1", closed_port()));
    let (error, _) = json_error(&env, 1);
    assert_kind(&error, "network", false);
    assert!(error["message"].as_str().unwrap().contains("refused"), "{error}");
    assert!(error["fix"].as_str().is_some_and(|fix| fix.contains("base_url")), "{error}");
}

#[test]
fn a_malformed_stream_is_kind_protocol() {
    let model = FakeModel::start();
    for _ in 0..4 {
        model.push(Reply::sse("data: {\"choices\": [{\"delta\": {\"content\": \"Hel\"\n\ndata: this is not json\n\n"));
    }
    let env = openai_env("err-kind-protocol", &model);
    let (error, _) = json_error(&env, 1);
    assert_kind(&error, "protocol", true);
    assert_eq!(error.get("fix"), None, "no fix is known for a malformed stream: {error}");
}

#[test]
fn an_interrupted_run_is_kind_cancelled_in_json_and_stream_json() {
    for format in ["json", "stream-json"] {
        let model = FakeModel::start();
        let (release, stalled) = crossbeam_channel::bounded::<()>(0);
        model.push(Reply::Stall { body: b": waiting\n\n".to_vec(), release: stalled });
        let env = openai_env("err-kind-cancelled", &model);
        let child = env
            .command(&["-p", "hi", "--output-format", format])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        model.wait_for_requests(1, "mewcode never sent its request");
        let status = std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
        assert!(status.success());
        let run = Run::from(child.wait_with_output().unwrap());
        assert_eq!(run.code, 130, "{}", run.stderr);
        let lines: Vec<Value> = run.stdout.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
        let last = lines.last().unwrap_or_else(|| panic!("{format}: no output"));
        assert_eq!(last["stop_reason"], "cancelled", "{format}: {last}");
        assert_kind(&last["error"], "cancelled", false);
        if format == "stream-json" {
            let event = lines.iter().find(|line| line["type"] == "error").unwrap();
            assert_eq!(event["kind"], "cancelled", "{event}");
        }
        assert!(run.stderr.contains("mewcode: error: cancelled"), "{format}: {}", run.stderr);
        drop(release);
    }
}
