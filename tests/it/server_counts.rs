//! The server's own token counts where the estimate used to guess: a server that streams no
//! usage is asked its tokenizer (llama-cpp-python's `/extras/tokenize/count`, llama.cpp's
//! `/tokenize`) once per response, and one without a tokenizer only once per run.

use crate::support::project::Provider;
use crate::support::script::openai_with_usage;
use crate::support::{FakeModel, TestEnv};
use serde_json::Value;

/// The usage lines of a run that carry figures (a server that sends zeros has its own line too).
fn usage_lines(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|line| line["type"] == "usage" && line["usage"]["input_tokens"] != 0)
        .collect()
}

/// A run against `model` as a local server with a 4 096-token window.
fn local_env(label: &str, model: &FakeModel) -> TestEnv {
    TestEnv::with_model(label, model, Provider::openai().named("local").field("context_window: 4096"))
}

#[test]
fn a_server_without_usage_is_counted_by_its_own_tokenizer() {
    let model = FakeModel::start();
    model.route("POST", "/extras/tokenize/count", 200, r#"{"count":321}"#);
    model.push(openai_with_usage("Counted.", &[], 0, 0));
    let env = local_env("tokenizer-count", &model);
    let run = env.run(&["-p", "count the word PAPAYA", "--output-format", "stream-json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let usage = usage_lines(&run.stdout);
    assert_eq!(usage.len(), 1, "{usage:?}");
    assert_eq!(usage[0]["usage"]["input_tokens"], 321, "{usage:?}");
    assert_eq!(usage[0]["estimated"], true, "the tokenizer's count of the text, not the server's report");
    let asked: Vec<_> = model.side_requests().into_iter().filter(|request| request.path.contains("tokenize")).collect();
    assert_eq!(asked.len(), 1);
    assert!(asked[0].body.contains("count the word PAPAYA"), "{}", asked[0].body);
    // With the provider's key, as every request to it.
    assert_eq!(asked[0].header("authorization"), Some("Bearer k"));
}

#[test]
fn a_server_without_a_tokenizer_is_asked_once_and_the_characters_decide() {
    let model = FakeModel::start();
    model.push(openai_with_usage("", &[("call_1", "glob", r#"{"pattern":"*.txt"}"#)], 0, 0));
    model.push(openai_with_usage("Done.", &[], 0, 0));
    let env = local_env("tokenizer-none", &model);
    let run = env.run(&["-p", "list the text files", "--output-format", "stream-json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(usage_lines(&run.stdout).len(), 2);
    let asked: Vec<String> = model
        .side_requests()
        .into_iter()
        .filter(|request| request.path.contains("tokenize"))
        .map(|request| request.path)
        .collect();
    // llama-cpp-python's endpoint, then llama.cpp's, both 404 on the first response; nothing on
    // the second.
    assert_eq!(asked, ["/extras/tokenize/count", "/tokenize"]);
}

#[test]
fn a_server_that_reports_usage_is_never_asked_to_count() {
    let model = FakeModel::start();
    model.route("POST", "/extras/tokenize/count", 200, r#"{"count":321}"#);
    model.push(openai_with_usage("Reported.", &[], 150, 5));
    let env = local_env("tokenizer-usage", &model);
    let run = env.run(&["-p", "hi", "--output-format", "stream-json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(usage_lines(&run.stdout)[0]["usage"]["input_tokens"], 150);
    assert!(model.side_requests().iter().all(|request| !request.path.contains("tokenize")));
}
