//! Context management end to end (SPEC §6 layer 1): a tool result over 50 000 bytes is saved
//! under the session directory, the next request carries only its preview, and the saved file
//! is readable by read_file without asking.

use crate::support::script::{anthropic, openai};
use crate::support::{FakeModel, TestEnv};
use serde_json::Value;

/// Every string in a JSON value that contains `needle`.
fn strings_containing(value: &Value, needle: &str, found: &mut Vec<String>) {
    match value {
        Value::String(text) if text.contains(needle) => found.push(text.clone()),
        Value::Array(items) => items.iter().for_each(|item| strings_containing(item, needle, found)),
        Value::Object(map) => map.values().for_each(|item| strings_containing(item, needle, found)),
        _ => {}
    }
}

fn big_result_is_offloaded(protocol: &str) {
    let model = FakeModel::start();
    let calls = [("call_big", "read_file", r#"{"path":"big.txt"}"#)];
    let (first, last) = if protocol == "anthropic" {
        (anthropic("Reading it.", &calls), anthropic("It is a big file.", &[]))
    } else {
        (openai("Reading it.", &calls), openai("It is a big file.", &[]))
    };
    model.push(first);
    model.push(last);
    let env = TestEnv::new(&format!("context-offload-{protocol}"));
    let base = if protocol == "anthropic" { model.url() } else { format!("{}/v1", model.url()) };
    env.write_home(
        "config.yaml",
        &format!("providers:\n  - {{name: fake, protocol: {protocol}, model: test-model, api_key: k, base_url: \"{base}\"}}\n"),
    );
    let text: String = (1..=1500).map(|n| format!("line {n:05} of a generated file that is far too big\n")).collect();
    env.write("big.txt", &text);
    let run = env.run(&["-p", "read big.txt", "--output-format", "stream-json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("large tool result(s) saved to"), "{}", run.stdout);
    assert_eq!(model.violations(), Vec::<String>::new());
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    let second = requests[1].json.as_ref().unwrap();
    let mut previews = Vec::new();
    strings_containing(second, "[content offloaded]", &mut previews);
    assert_eq!(previews.len(), 1, "{second}");
    let preview = &previews[0];
    assert!(preview.len() < 4000, "the request carries the preview, not the result: {} bytes", preview.len());
    assert!(preview.contains("line 00001") && !preview.contains("line 00021"), "{preview}");
    assert!(preview.contains("read it with read_file"));
    assert!(!second.to_string().contains("line 01000"), "the full result must not reach the model");
    let saved = preview.lines().find_map(|line| line.strip_prefix("[saved to] ")).unwrap();
    let saved = std::path::Path::new(saved);
    assert!(saved.starts_with(env.project.join(".mewcode").join("sessions")), "{}", saved.display());
    assert!(saved.ends_with("tool-results/call_big"));
    let on_disk = std::fs::read_to_string(saved).unwrap();
    assert!(on_disk.len() > 50_000 && on_disk.contains("line 01000"));
    // read_file may read it back in default mode: reads under .mewcode/ are not asked about.
    let check = env.run(&["check", "Read", &serde_json::json!({ "path": saved }).to_string()]);
    let decision: Value = serde_json::from_str(&check.stdout).unwrap();
    assert_eq!(decision["decision"], "allow", "{decision}");
}

#[test]
fn anthropic_big_tool_result_is_offloaded_and_the_next_request_carries_the_preview() {
    big_result_is_offloaded("anthropic");
}

#[test]
fn openai_big_tool_result_is_offloaded_and_the_next_request_carries_the_preview() {
    big_result_is_offloaded("openai");
}
