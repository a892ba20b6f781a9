//! A conversation recorded from a real llama-cpp-python server, replayed byte for byte: mewcode
//! must keep sending what that server accepted after a tool call, and must not retry the
//! validation 500 it answers to a request it cannot parse (`fixtures/llama-cpp-python/`).

use crate::support::{FakeModel, Reply, TestEnv};
use serde_json::Value;
use std::path::Path;

fn recorded(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/llama-cpp-python").join(name);
    std::fs::read(&path).unwrap_or_else(|err| panic!("fixture {}: {err}", path.display()))
}

fn recorded_json(name: &str) -> Value {
    serde_json::from_slice(&recorded(name)).unwrap_or_else(|err| panic!("{name}: {err}"))
}

fn replay(name: &str) -> Reply {
    Reply::Sse { body: recorded(name), chunk: None, pause: std::time::Duration::ZERO }
}

/// The provider entry the recording was made with, pointed at `model`; the recording was made
/// with the full request (before lean requests), so this replay asks for the full form.
fn recording_env(model: &FakeModel, label: &str) -> TestEnv {
    let env = TestEnv::new(label);
    env.write_home(
        "config.yaml",
        &format!(
            "providers:\n  - name: llamacpp\n    protocol: openai\n    model: smollm2\n    base_url: \"{}/v1\"\n    \
             context_window: 8192\n    temperature: 0\n    extra_body:\n      \
             tool_choice: {{type: function, function: {{name: read_file}}}}\nlean_below: 0\n",
            model.url()
        ),
    );
    env.write("notes.txt", "The secret word is PAPAYA.\n");
    env
}

const PROMPT: &str = "Read the file notes.txt and tell me the secret word.";

fn events(stdout: &str) -> Vec<Value> {
    stdout.lines().map(|line| serde_json::from_str(line).unwrap_or_else(|err| panic!("{line}: {err}"))).collect()
}

#[test]
fn a_tool_using_conversation_goes_on_past_the_first_call_as_it_did_on_the_real_server() {
    let model = FakeModel::start();
    for turn in ["turn-1.sse", "turn-2.sse", "turn-3.sse"] {
        model.push(replay(turn));
    }
    let env = recording_env(&model, "llama-cpp-python");
    let run = env.run(&["-p", PROMPT, "--output-format", "stream-json", "--max-iterations", "3"]);
    assert!(model.violations().is_empty(), "{:?}", model.violations());
    let requests = model.requests();
    assert_eq!(requests.len(), 3, "{}", run.stderr);

    // After the first call, every message but the system prompt (which names the temp project)
    // is exactly what the real server accepted with a 200; the top-level keys are the same too.
    for (index, name) in [(1, "turn-2-request.json"), (2, "turn-3-request.json")] {
        let sent = requests[index].json.clone().expect("json body");
        let accepted = recorded_json(name);
        let keys = |body: &Value| body.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        assert_eq!(keys(&sent), keys(&accepted), "request {index}");
        for key in ["model", "stream", "stream_options", "tool_choice", "temperature"] {
            assert_eq!(sent[key], accepted[key], "request {index}: {key}");
        }
        let names = |body: &Value| {
            body["tools"].as_array().unwrap().iter().map(|tool| tool["function"]["name"].clone()).collect::<Vec<_>>()
        };
        // `job` (background jobs) came after the recording; its definition has the form the
        // server accepted for the others.
        let mut sent_names = names(&sent);
        sent_names.retain(|name| name != "job");
        assert_eq!(sent_names, names(&accepted), "request {index}: tools");
        let sent_messages = sent["messages"].as_array().unwrap();
        let accepted_messages = accepted["messages"].as_array().unwrap();
        assert_eq!(sent_messages.len(), accepted_messages.len(), "request {index}");
        assert_eq!(sent_messages[0]["role"], "system");
        assert_eq!(sent_messages[1..], accepted_messages[1..], "request {index} differs from what the server accepted");
        let assistant = &sent_messages[2];
        assert_eq!(assistant["content"], "", "never null: the server answers null with seven validation errors");
    }

    // The three calls ran for real, in order, and the run stopped at the cap it was given.
    let events = events(&run.stdout);
    let ends: Vec<_> = events.iter().filter(|event| event["type"] == "tool_end").collect();
    assert_eq!(ends.len(), 3, "{}", run.stdout);
    assert_eq!(ends[0]["output"], "     1\tThe secret word is PAPAYA.\n");
    assert_eq!(ends[0]["is_error"], false);
    assert!(ends[1]["output"].as_str().unwrap().contains("outside the project"), "{}", ends[1]);
    let missing = ends[2]["output"].as_str().unwrap();
    assert!(missing.starts_with("file not found: ") && missing.ends_with("tmp/rec-notes.txt&#34;"), "{missing}");
    let done = &events[events.len() - 2];
    assert_eq!(done["type"], "done");
    assert_eq!(events.last().unwrap()["subtype"], "error_max_turns");
    assert_eq!(done["stop_reason"], "iteration_limit");
    assert_eq!(done["iterations"], 3);
    // The server sends no usage: the figures are estimates, marked as such on every turn.
    let usage: Vec<_> = events.iter().filter(|event| event["type"] == "usage").collect();
    assert_eq!(usage.len(), 3);
    assert!(usage.iter().all(|event| event["estimated"] == true && event["usage"]["input_tokens"].as_u64() > Some(0)));
}

#[test]
fn the_servers_validation_500_is_reported_once_not_retried() {
    let model = FakeModel::start();
    let body = String::from_utf8(recorded("null-content-500.json")).unwrap();
    model.push(Reply::status(500, &body));
    model.push(Reply::status(500, &body));
    let env = recording_env(&model, "llama-cpp-python-500");
    let run = env.run(&["-p", PROMPT]);
    assert_eq!(model.requests().len(), 1, "a request the server cannot parse fails the same way every time");
    assert_ne!(run.code, 0);
    assert!(run.stderr.contains("7 validation errors"), "{}", run.stderr);
    assert!(!run.stderr.contains("retry"), "{}", run.stderr);
}
