//! Errors that point at the fix, end to end: a 404 names the URL and the base_url mistake, a
//! refused connection names the provider, host and port, `--resume` of an unknown id says so once,
//! and `check` with a non-JSON input is a usage error.

use crate::support::project::closed_port;
use crate::support::{FakeModel, Reply, TestEnv};

#[test]
fn a_404_from_an_openai_base_url_without_v1_names_the_url_and_the_fix() {
    let model = FakeModel::start();
    model.push(Reply::status(404, "404 page not found"));
    let env = TestEnv::new("err-404");
    let config = format!(
        "providers:\n  - {{name: local, protocol: openai, model: m, api_key: k, base_url: \"{}\"}}\n",
        model.url()
    );
    env.write_home("config.yaml", &config);
    let run = env.run(&["-p", "hi"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let url = format!("{}/chat/completions", model.url());
    assert!(run.stderr.contains(&format!("(POST {url} answered 404)")), "{}", run.stderr);
    assert!(run.stderr.contains("base_url usually ends in /v1"), "{}", run.stderr);
    assert_eq!(model.requests().len(), 1, "a 404 is never retried");
}

#[test]
fn a_404_from_an_anthropic_base_url_ending_in_v1_says_to_drop_it() {
    let model = FakeModel::start();
    model.push(Reply::status(404, r#"{"type":"error","error":{"type":"not_found_error","message":"Not Found"}}"#));
    let env = TestEnv::new("err-404-anthropic");
    let config = format!(
        "providers:\n  - {{name: claude, protocol: anthropic, model: m, api_key: k, base_url: \"{}/v1\"}}\n",
        model.url()
    );
    env.write_home("config.yaml", &config);
    let run = env.run(&["-p", "hi"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains(&format!("POST {}/v1/v1/messages answered 404", model.url())), "{}", run.stderr);
    assert!(run.stderr.contains("must not end in /v1"), "{}", run.stderr);
}

#[test]
fn a_refused_connection_names_the_provider_host_and_port() {
    let port = closed_port();
    let env = TestEnv::new("err-refused");
    let config = format!(
        "providers:\n  - {{name: local, protocol: openai, model: m, base_url: \"http://127.0.0.1:{port}/v1\"}}\n"
    );
    env.write_home("config.yaml", &config);
    let run = env.run(&["-p", "hi"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let expected = format!("connection to provider \"local\" at 127.0.0.1:{port} refused");
    assert!(run.stderr.contains(&expected), "{}", run.stderr);
}
