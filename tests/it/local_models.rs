//! A small local model end to end: it writes its tool call as Hermes-style text inside
//! `content` (as Qwen2.5 and friends do when the server has no tool parser), mewcode recovers
//! it, the real `read_file` runs in the temp project, and the model's answer completes the task.

use crate::support::{FakeModel, Reply, TestEnv};
use serde_json::json;

/// An OpenAI stream whose `content` arrives in `pieces`, ending with `finish_reason: stop` the way
/// local servers end a turn even when the text held a tool call.
fn content_reply(pieces: &[&str]) -> Reply {
    let mut body = String::new();
    for piece in pieces {
        let chunk = json!({"id": "chatcmpl-local", "object": "chat.completion.chunk", "model": "qwen2.5-coder:7b",
            "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": null}]});
        body.push_str(&format!("data: {chunk}\n\n"));
    }
    let finish = json!({"id": "chatcmpl-local", "object": "chat.completion.chunk", "model": "qwen2.5-coder:7b",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]});
    body.push_str(&format!("data: {finish}\n\ndata: [DONE]\n\n"));
    Reply::sse(&body)
}

#[test]
fn a_local_model_writing_hermes_tool_calls_as_text_reads_a_file_and_answers() {
    let model = FakeModel::start();
    model.push(content_reply(&[
        "<think>\nI should read the",
        " notes first.\n</thi",
        "nk>\n\nI'll read it.\n<tool",
        "_call>\n{\"name\": \"read_file\", \"arguments\": ",
        "{\"path\": \"notes.txt\"}}\n</tool_call>",
    ]));
    model.push(content_reply(&["The notes say: hello from a local model."]));
    let env = TestEnv::new("local-hermes");
    env.write_home(
        "config.yaml",
        &format!(
            "providers:\n  - {{name: local, protocol: openai, model: qwen2.5-coder:7b, base_url: \"{}/v1\"}}\n",
            model.url()
        ),
    );
    env.write("notes.txt", "hello from a local model\n");
    let run = env.run(&["-p", "what do the notes say?"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "The notes say: hello from a local model.\n");
    assert!(run.stderr.contains("● read_file notes.txt"), "{}", run.stderr);
    assert!(model.violations().is_empty(), "{:?}", model.violations());
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    let messages = requests[1].json.as_ref().unwrap()["messages"].as_array().unwrap().clone();
    let assistant = messages.iter().find(|message| message["role"] == "assistant").unwrap();
    // The call went into history as a real call; neither its markup nor the reasoning is content.
    assert_eq!(assistant["content"], "I'll read it.\n", "{assistant}");
    let call = &assistant["tool_calls"][0];
    assert_eq!(call["function"]["name"], "read_file");
    assert_eq!(call["function"]["arguments"], r#"{"path":"notes.txt"}"#);
    let id = call["id"].as_str().unwrap();
    assert!(id.starts_with("call_text_"), "{id}");
    let result = messages.iter().find(|message| message["role"] == "tool").unwrap();
    assert_eq!(result["tool_call_id"], id);
    assert_eq!(result["content"], "     1\thello from a local model\n");
}
