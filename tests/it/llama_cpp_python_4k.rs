//! A session recorded with a real llama-cpp-python server and a 4 096-token model, replayed byte
//! for byte (`fixtures/llama-cpp-python-4k/`): three 5 KB pastes, one `-p` run each, continued
//! with `-c`. On the real server it ended usable, with every request accepted; replayed, mewcode
//! must still compact where it did, send requests the same shape as the ones the server
//! accepted, and never put the conversation over the window.

use crate::support::{FakeModel, Reply, TestEnv};
use serde_json::Value;
use std::path::Path;

const WINDOW: u64 = 4_096;

fn recorded(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/llama-cpp-python-4k").join(name);
    std::fs::read(&path).unwrap_or_else(|err| panic!("fixture {}: {err}", path.display()))
}

fn recorded_text(name: &str) -> String {
    String::from_utf8(recorded(name)).unwrap()
}

fn replay(name: &str) -> Reply {
    Reply::Sse { body: recorded(name), chunk: None, pause: std::time::Duration::ZERO }
}

fn events(stdout: &str) -> Vec<Value> {
    stdout.lines().map(|line| serde_json::from_str(line).unwrap_or_else(|err| panic!("{line}: {err}"))).collect()
}

fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|event| event["type"] == kind).collect()
}

#[test]
fn three_pastes_into_a_4k_window_end_in_a_usable_conversation_under_the_window() {
    let model = FakeModel::start();
    for name in ["turn-1.sse", "summary-2.sse", "turn-2.sse", "summary-3.sse", "turn-3.sse"] {
        model.push(replay(name));
    }
    for name in ["count-1.json", "count-2.json", "count-3.json"] {
        model.route("POST", "/extras/tokenize/count", 200, &recorded_text(name));
    }
    // The provider entry the recording was made with (the default lean request: 4 096 < 16 384).
    let env = TestEnv::new("llama-cpp-python-4k");
    env.write_home(
        "config.yaml",
        &format!(
            "providers:\n  - name: llamacpp\n    protocol: openai\n    model: smollm2\n    base_url: \"{}/v1\"\n    \
             context_window: {WINDOW}\n    temperature: 0\n",
            model.url()
        ),
    );
    let mut runs = Vec::new();
    for part in 1..=3 {
        let prompt = format!("Here is part {part} of an incident log. Which service appears most often in it?");
        let paste = recorded_text(&format!("paste{part}.txt"));
        let mut args = vec!["-p", prompt.as_str(), "--output-format", "stream-json"];
        if part > 1 {
            args.insert(0, "-c");
        }
        let run = env.run_with_stdin(&args, &paste);
        assert_eq!(run.code, 0, "part {part}: {}\n{}", run.stdout, run.stderr);
        runs.push(events(&run.stdout));
    }
    assert!(model.violations().is_empty(), "{:?}", model.violations());
    let requests = model.requests();
    assert_eq!(requests.len(), 5, "three answers and two summaries, as on the real server");

    // The first paste goes as it is (nothing older to compact); the second and third each start
    // with an automatic compaction that finishes, and say what keeps the conversation big.
    assert!(of_type(&runs[0], "compact").is_empty());
    for run in &runs[1..] {
        let phases: Vec<&str> = of_type(run, "compact").iter().map(|event| event["phase"].as_str().unwrap()).collect();
        assert_eq!(phases, ["started", "finished"]);
        let finished = of_type(run, "compact")[1];
        assert!(finished["after_tokens"].as_u64().unwrap() < WINDOW, "{finished}");
        assert!(finished["after_tokens"].as_u64() < finished["before_tokens"].as_u64(), "{finished}");
        let notices: Vec<&str> = of_type(run, "notice").iter().filter_map(|event| event["text"].as_str()).collect();
        assert!(notices.iter().any(|text| text.contains("the latest message alone about")), "{notices:?}");
    }

    // The context figure after every answer (what the REPL's status shows: the tokenizer's count
    // of the request plus the answer) stays under the window, and the summary requests are
    // counted apart.
    for (part, run) in runs.iter().enumerate() {
        let usage = of_type(run, "usage");
        let main = usage.iter().rfind(|event| event["compaction"] != true).unwrap();
        assert_eq!(main["estimated"], true, "this server sends no usage");
        let figure = main["usage"]["input_tokens"].as_u64().unwrap() + main["usage"]["output_tokens"].as_u64().unwrap();
        assert!(figure < WINDOW, "part {}: {figure} of {WINDOW}", part + 1);
        assert_eq!(usage.iter().filter(|event| event["compaction"] == true).count(), usize::from(part > 0));
    }

    // Every request has the shape the real server accepted: the same keys, roles and tools, the
    // max_tokens near the recorded, and the same messages but the system prompt (it names the
    // temp project and the date).
    let names = [
        "turn-1-request.json",
        "summary-2-request.json",
        "turn-2-request.json",
        "summary-3-request.json",
        "turn-3-request.json",
    ];
    for (index, name) in names.iter().enumerate() {
        let sent = requests[index].json.clone().expect("json body");
        let accepted: Value = serde_json::from_slice(&recorded(name)).unwrap();
        let keys = |body: &Value| body.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        assert_eq!(keys(&sent), keys(&accepted), "{name}");
        // The output cap follows the estimate, which moves with the temp project's path in the
        // system prompt: within a few tokens of the recorded one.
        let (cap, recorded_cap) = (sent["max_tokens"].as_i64().unwrap(), accepted["max_tokens"].as_i64().unwrap());
        assert!((cap - recorded_cap).abs() <= 64, "{name}: max_tokens {cap}, recorded {recorded_cap}");
        let tools = |body: &Value| {
            body["tools"]
                .as_array()
                .map(|tools| tools.iter().map(|tool| tool["function"]["name"].clone()).collect::<Vec<_>>())
        };
        assert_eq!(tools(&sent), tools(&accepted), "{name}");
        let (sent, accepted) = (sent["messages"].as_array().unwrap(), accepted["messages"].as_array().unwrap());
        assert_eq!(sent.len(), accepted.len(), "{name}");
        assert_eq!(sent[1..], accepted[1..], "{name} differs from what the server accepted");
    }
    // The third paste is in the last request verbatim; the first two only as summaries.
    let last = requests[4].body.clone();
    assert!(last.contains(&serde_json::to_string(&recorded_text("paste3.txt")).unwrap()[1..40]));
}
