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
fn a_refused_connection_names_the_provider_and_its_url() {
    let port = closed_port();
    let env = TestEnv::new("err-refused");
    let config = format!(
        "providers:\n  - {{name: local, protocol: openai, model: m, base_url: \"http://127.0.0.1:{port}/v1\"}}\n"
    );
    env.write_home("config.yaml", &config);
    let run = env.run(&["-p", "hi"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let expected = format!("connection to provider \"local\" at http://127.0.0.1:{port}/v1 refused");
    assert!(run.stderr.contains(&expected), "{}", run.stderr);
}

#[test]
fn resume_of_an_unknown_id_says_no_session_once_in_both_forms() {
    let env = TestEnv::new("err-resume");
    let port = closed_port();
    env.write_home(
        "config.yaml",
        &format!("providers:\n  - {{name: x, protocol: openai, model: m, base_url: \"http://127.0.0.1:{port}/v1\"}}\n"),
    );
    for args in
        [&["--resume", "nosuch", "-p", "hi"][..], &["--resume=nosuch", "-p", "hi"], &["-p", "hi", "--resume", "nosuch"]]
    {
        let run = env.run(args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert_eq!(
            run.stderr, "mewcode: no session nosuch in this project (see `mewcode sessions`)\n",
            "{args:?}: said once, before any warning"
        );
    }
}

#[test]
fn check_with_non_json_input_is_a_usage_error_not_a_deny() {
    let env = TestEnv::new("err-check-json");
    for input in ["ls", "[1]", "\"ls\""] {
        let run = env.run(&["check", "Bash", input]);
        assert_eq!(run.code, 2, "{input}: {}", run.stderr);
        assert!(run.stdout.is_empty(), "{input}: {}", run.stdout);
        assert!(
            run.stderr.contains(r#"check: JSON must be the tool's input as a JSON object, e.g. '{"command":"ls"}'"#),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn check_accepts_the_models_tool_names_as_well_as_the_rule_names() {
    let env = TestEnv::new("err-check-names");
    env.write("a.txt", "x");
    for (model_name, rule_name, input) in
        [("bash", "Bash", r#"{"command":"rm -rf $HOME"}"#), ("read_file", "Read", r#"{"path":"a.txt"}"#)]
    {
        let by_model = env.run(&["check", model_name, input]);
        let by_rule = env.run(&["check", rule_name, input]);
        assert_eq!(by_model.code, 0, "{model_name}: {}", by_model.stderr);
        assert_eq!(by_model.stdout, by_rule.stdout, "{model_name} and {rule_name} are one tool");
    }
    let run = env.run(&["check", "frob", "{}"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("Bash/bash"), "{}", run.stderr);
}
