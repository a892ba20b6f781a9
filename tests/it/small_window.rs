//! Local models with small windows (issue 12): `mewcode -p` against the fake server with a
//! 4 096- or 8 192-token `context_window`. A file bigger than the window is offloaded and the
//! conversation compacted; a 3-message conversation compacts automatically; a llama.cpp
//! "exceeds the available context size" right after the first tool call compacts and retries.
//! Every scripted answer reports a usage equal to its request's size (characters of the whole
//! JSON body over 3.5, a generous count), and every test checks that no request the server saw
//! was bigger than the window.

use crate::support::script::{anthropic_with_usage, openai_with_usage};
use crate::support::{FakeModel, Provider, RecordedRequest, Reply, TestEnv};
use serde_json::Value;

/// A request's size in tokens as a local server would roughly count it: its whole JSON body
/// (keys, quotes and escapes included) at 3.5 characters a token.
fn request_tokens(request: &RecordedRequest) -> u64 {
    (request.body.chars().count() as f64 / 3.5).ceil() as u64
}

/// A scripted model turn whose usage is the size of the request it answers.
fn turn(protocol: &'static str, text: &str, calls: &[(&str, &str, &str)]) -> Reply {
    let text = text.to_string();
    let calls: Vec<(String, String, String)> =
        calls.iter().map(|(id, name, input)| (id.to_string(), name.to_string(), input.to_string())).collect();
    Reply::respond(move |request| {
        let calls: Vec<(&str, &str, &str)> =
            calls.iter().map(|(id, name, input)| (id.as_str(), name.as_str(), input.as_str())).collect();
        let input_tokens = request_tokens(request);
        if protocol == "anthropic" {
            anthropic_with_usage(&text, &calls, input_tokens, 20)
        } else {
            openai_with_usage(&text, &calls, input_tokens, 20)
        }
    })
}

/// "summary" for a summary request (no tools, the summary instructions), "main" otherwise.
fn kind(request: &RecordedRequest) -> &'static str {
    let body = request.json.as_ref().unwrap();
    let no_tools = body["tools"].as_array().is_none_or(|tools| tools.is_empty());
    if no_tools && request.body.contains("<summary> tags") { "summary" } else { "main" }
}

/// `lines` numbered lines of 64 characters.
fn numbered(lines: usize) -> String {
    (1..=lines).map(|n| format!("line {n:05} {}\n", "abcdefghij".repeat(5))).collect()
}

/// Checks what every small-window run must hold and returns the request kinds in order: valid
/// requests, none bigger than the window, and every request's input plus its own max_tokens
/// fit the window too (a main request's cap never falls below window/16).
fn check_requests(model: &FakeModel, window: u64) -> Vec<&'static str> {
    assert_eq!(model.violations(), Vec::<String>::new());
    assert_eq!(model.remaining(), 0, "every scripted reply was used");
    let requests = model.requests();
    for (index, request) in requests.iter().enumerate() {
        let tokens = request_tokens(request);
        assert!(tokens <= window, "request {index} is about {tokens} tokens, over the {window}-token window");
        if kind(request) == "summary" {
            let body = request.json.as_ref().unwrap();
            let max_tokens = body["max_tokens"].as_u64().unwrap();
            assert_eq!(max_tokens, window / 8, "the summary's output cap is window/8");
            assert!(tokens + max_tokens <= window, "summary request {index}: {tokens} + {max_tokens} > {window}");
        } else {
            // The configured 8 192 is lowered so a server counting prompt + max_tokens accepts it.
            let max_tokens = request.json.as_ref().unwrap()["max_tokens"].as_u64().unwrap();
            assert!(
                tokens + max_tokens <= window || max_tokens == window / 16,
                "main request {index}: {tokens} + max_tokens {max_tokens} > {window}"
            );
        }
    }
    requests.iter().map(kind).collect()
}

/// The compaction phases of a stream-json run, as (phase, trigger).
fn compactions(stdout: &str) -> Vec<(String, String)> {
    stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|event| event["type"] == "compact")
        .map(|event| (event["phase"].as_str().unwrap().to_string(), event["trigger"].as_str().unwrap().to_string()))
        .collect()
}

fn auto_compaction() -> Vec<(String, String)> {
    vec![("started".into(), "auto".into()), ("finished".into(), "auto".into())]
}

/// The text of a request's messages, for `contains` checks.
fn messages_text(request: &RecordedRequest) -> String {
    request.json.as_ref().unwrap()["messages"].to_string()
}

/// (a) A file bigger than the whole window: the read is offloaded (below the 50 000-byte rule),
/// the model reads it in parts, the conversation is compacted, and the task completes.
fn file_bigger_than_the_window(protocol: &'static str, window: u64, part_lines: usize, parts: usize) {
    let model = FakeModel::start();
    model.push(turn(protocol, "Reading it.", &[("call_all", "read_file", r#"{"path":"big.txt"}"#)]));
    for part in 0..parts {
        let input = format!(r#"{{"path":"big.txt","offset":{},"limit":{part_lines}}}"#, 1 + part * part_lines);
        let id = format!("call_part{part}");
        model.push(turn(protocol, "", &[(id.as_str(), "read_file", input.as_str())]));
    }
    model.push(turn(
        protocol,
        "<analysis>a</analysis><summary>BIG-FILE-SUMMARY: lines numbered 1 to 600</summary>",
        &[],
    ));
    model.push(turn(protocol, "The file has 600 numbered lines.", &[]));
    let env = TestEnv::with_model(
        &format!("small-big-{window}"),
        &model,
        // Sized for the full request (`lean_request.rs` covers the lean one).
        Provider::of(protocol).named("local").field(&format!("context_window: {}", window)).then("lean_below: 0\n"),
    );
    let text = numbered(600);
    assert!(text.len() as u64 > window * 4 && text.len() < 50_000, "bigger than the window, under SPEC's limit");
    env.write("big.txt", &text);
    let run = env.run(&["-p", "how many lines does big.txt have?", "--output-format", "stream-json"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("large tool result(s) saved to"), "{}", run.stdout);
    assert_eq!(compactions(&run.stdout), auto_compaction());
    assert!(run.stdout.contains("The file has 600 numbered lines."));
    let mut expected = vec!["main"; 1 + parts];
    expected.extend(["summary", "main"]);
    assert_eq!(check_requests(&model, window), expected);
    let requests = model.requests();
    // The second request carries a small preview of the whole-file read, not the file.
    let second = messages_text(&requests[1]);
    assert!(second.contains("[content offloaded]") && second.contains("keep each part under"), "{second}");
    assert!(!second.contains("line 00100"), "the full result never reaches the model");
    let saved = env.project.join(".mewcode/sessions");
    let saved_files: Vec<_> =
        walk_files(&saved).into_iter().filter(|path| path.ends_with("tool-results/call_all")).collect();
    assert_eq!(saved_files.len(), 1);
    assert!(std::fs::read_to_string(&saved_files[0]).unwrap().contains("line 00600"));
    // The summary request summarises the parts read; the request after it starts with the summary
    // and the prompt, restated verbatim.
    let summary_request = &requests[1 + parts];
    assert!(summary_request.body.contains("line 00001"), "the parts read are summarised");
    let after = &requests[2 + parts];
    let after_messages = after.json.as_ref().unwrap()["messages"].as_array().unwrap().clone();
    let first_user = after_messages.iter().find(|message| message["role"] == "user").unwrap().to_string();
    assert!(first_user.contains("BIG-FILE-SUMMARY") && !first_user.contains("<analysis>"), "{first_user}");
    assert!(first_user.contains("how many lines does big.txt have?"), "{first_user}");
}

fn walk_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() { found.extend(walk_files(&path)) } else { found.push(path) }
    }
    found
}

#[test]
fn window_4096_a_file_bigger_than_the_window_is_offloaded_compacted_and_the_task_completes() {
    file_bigger_than_the_window("openai", 4_096, 40, 1);
}

#[test]
fn window_8192_a_file_bigger_than_the_window_is_offloaded_compacted_and_the_task_completes() {
    file_bigger_than_the_window("anthropic", 8_192, 80, 2);
}

/// (b) Automatic compaction of a 3-message conversation: [prompt, read call, result] crosses the
/// threshold; everything is summarised and the prompt restated verbatim.
fn three_messages_compact_automatically(protocol: &'static str, window: u64, prompt: &str, lines: usize) {
    let model = FakeModel::start();
    model.push(turn(protocol, "", &[("call_notes", "read_file", r#"{"path":"notes.txt"}"#)]));
    model.push(turn(protocol, "<summary>NOTES-SUMMARY</summary>", &[]));
    model.push(turn(protocol, "The notes are numbered lines.", &[]));
    let env = TestEnv::with_model(
        &format!("small-three-{window}"),
        &model,
        // Sized for the full request (`lean_request.rs` covers the lean one).
        Provider::of(protocol).named("local").field(&format!("context_window: {}", window)).then("lean_below: 0\n"),
    );
    env.write("notes.txt", &numbered(lines));
    let run = env.run(&["-p", prompt, "--output-format", "stream-json"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(!run.stdout.contains("large tool result(s) saved to"), "the result fits layer 1: {}", run.stdout);
    assert_eq!(compactions(&run.stdout), auto_compaction());
    assert!(run.stdout.contains("The notes are numbered lines."));
    // The summary request's tokens are counted in the run's usage, marked as a compaction's.
    let lines: Vec<Value> = run.stdout.lines().filter_map(|line| serde_json::from_str(line).ok()).collect();
    let usage_lines: Vec<&Value> = lines.iter().filter(|line| line["type"] == "usage").collect();
    assert_eq!(usage_lines.len(), 3, "{usage_lines:?}");
    assert_eq!(usage_lines[1]["compaction"], true, "{usage_lines:?}");
    let input = |line: &Value| line["usage"]["input_tokens"].as_u64().unwrap();
    let total: u64 = usage_lines.iter().map(|line| input(line)).sum();
    let result = lines.iter().find(|line| line["type"] == "result").unwrap();
    assert_eq!(result["usage"]["input_tokens"].as_u64(), Some(total), "{result}");
    assert_eq!(check_requests(&model, window), ["main", "summary", "main"]);
    let requests = model.requests();
    let summary_request = requests[1].body.clone();
    assert!(summary_request.contains("[tool call read_file call_notes]") && summary_request.contains("line 00001"));
    // The next request is one user message: the summary, the attachment, the prompt verbatim.
    let after = requests[2].json.as_ref().unwrap()["messages"].as_array().unwrap().clone();
    let users: Vec<&Value> = after.iter().filter(|message| message["role"] == "user").collect();
    assert_eq!(users.len(), 1, "{after:?}");
    let text = users[0].to_string();
    // The attachment re-reads notes.txt only when that leaves room under the threshold for a
    // summary of its full size; the files go first when it does not (the latest message never).
    assert!(text.contains("NOTES-SUMMARY") && text.contains("## Recently read files"), "{text}");
    let last_line = prompt.lines().last().unwrap();
    assert!(text.contains(last_line) && users[0]["content"].to_string().len() > prompt.len(), "the prompt is restated");
    assert!(!after.iter().any(|message| message.to_string().contains("call_notes")), "the tool round is summarised");
}

#[test]
fn window_4096_a_three_message_conversation_compacts_automatically() {
    three_messages_compact_automatically("openai", 4_096, "summarise notes.txt for me please", 44);
}

#[test]
fn window_8192_a_three_message_conversation_compacts_automatically() {
    // A pasted log in the prompt plus one read fill 8 192's threshold (5 803) in three messages.
    let prompt =
        format!("Here is the log:\n{}\nCompare it with notes.txt.", "log entry: all systems nominal\n".repeat(220));
    three_messages_compact_automatically("anthropic", 8_192, &prompt, 92);
}

/// (c) The emergency path: the server answers the request right after the first tool call with
/// llama.cpp's "exceeds the available context size"; mewcode compacts and retries once.
fn emergency_after_the_first_tool_call(window: u64) {
    let model = FakeModel::start();
    model.push(turn("openai", "", &[("call_a", "read_file", r#"{"path":"a.txt"}"#)]));
    model.push(Reply::status(
        400,
        &format!(
            r#"{{"error":{{"code":400,"message":"request ({} tokens) exceeds the available context size ({window} tokens), try increasing it","type":"exceed_context_size_error"}}}}"#,
            window + 500
        ),
    ));
    model.push(turn("openai", "<summary>EMERGENCY-SUMMARY</summary>", &[]));
    model.push(turn("openai", "a.txt holds numbered lines.", &[]));
    let env = TestEnv::with_model(
        &format!("small-emergency-{window}"),
        &model,
        Provider::of("openai").named("local").field(&format!("context_window: {}", window)),
    );
    env.write("a.txt", &numbered(20));
    let run = env.run(&["-p", "what is in a.txt?", "--output-format", "stream-json"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(
        compactions(&run.stdout),
        [("started".to_string(), "emergency".to_string()), ("finished".into(), "emergency".into())]
    );
    assert!(run.stdout.contains("a.txt holds numbered lines."));
    assert_eq!(check_requests(&model, window), ["main", "main", "summary", "main"]);
    let requests = model.requests();
    assert!(requests[2].body.contains("line 00020"), "the summary request carries the 3-message conversation");
    let retried = messages_text(&requests[3]);
    assert!(retried.contains("EMERGENCY-SUMMARY") && retried.contains("what is in a.txt?"), "{retried}");
    assert!(!retried.contains("call_a"), "the tool round is summarised");
}

#[test]
fn window_4096_prompt_too_long_after_the_first_tool_call_compacts_and_retries() {
    emergency_after_the_first_tool_call(4_096);
}

#[test]
fn window_8192_prompt_too_long_after_the_first_tool_call_compacts_and_retries() {
    emergency_after_the_first_tool_call(8_192);
}

#[test]
fn window_4096_a_prompt_bigger_than_the_window_fails_saying_why_and_what_to_do() {
    let model = FakeModel::start();
    model.push(Reply::status(
        400,
        r#"{"error":{"code":400,"message":"request (7100 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error"}}"#,
    ));
    let env = TestEnv::with_model(
        "small-too-big",
        &model,
        Provider::of("openai").named("local").field(&format!("context_window: {}", 4_096)),
    );
    let prompt = format!("check this log:\n{}", "log entry: all systems nominal\n".repeat(560));
    let run = env.run(&["-p", &prompt]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("compaction could not make it fit: the latest message alone is about 4965 tokens and the context window is 4096 tokens"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("raise context_window to the model's real context size (llama.cpp -c"),
        "{}",
        run.stderr
    );
    // No summary request: it could not have helped.
    assert_eq!(check_requests_kinds(&model), ["main"]);
}

/// The request kinds in order, without the window checks (for a run that overflows on purpose).
fn check_requests_kinds(model: &FakeModel) -> Vec<&'static str> {
    assert_eq!(model.violations(), Vec::<String>::new());
    model.requests().iter().map(kind).collect()
}
