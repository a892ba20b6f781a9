//! Context management end to end (SPEC §6 layer 1): a tool result over 50 000 bytes is saved
//! under the session directory, the next request carries only its preview, and the saved file
//! is readable by read_file without asking.

use crate::support::script::{anthropic, openai};
use crate::support::{FakeModel, Provider, Reply, TestEnv};
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

#[test]
fn a_big_result_is_never_saved_through_a_planted_link_and_the_model_gets_it_inline() {
    // `.mewcode/sessions` links out (a new session), then a resumed session's `tool-results`.
    for planted in ["sessions", "tool-results"] {
        let model = FakeModel::start();
        let env = TestEnv::with_model(&format!("context-offload-link-{planted}"), &model, Provider::of("anthropic"));
        let outside = env.dir.path().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        let mut args = vec!["-p".to_string(), "read big.txt".into(), "--output-format".into(), "stream-json".into()];
        let link = if planted == "sessions" {
            env.project.join(".mewcode/sessions")
        } else {
            model.push(anthropic("Ready.", &[]));
            let run = env.run(&["-p", "get ready", "--output-format", "json"]);
            assert_eq!(run.code, 0, "{}", run.stderr);
            let output: Value = serde_json::from_str(&run.stdout).unwrap();
            let id = output["session_id"].as_str().unwrap().to_string();
            args.extend(["--resume".to_string(), id.clone()]);
            env.project.join(".mewcode/sessions").join(id).join("tool-results")
        };
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        model.push(anthropic("Reading it.", &[("call_big", "read_file", r#"{"path":"big.txt"}"#)]));
        model.push(anthropic("It is a big file.", &[]));
        let text: String =
            (1..=1500).map(|n| format!("line {n:05} of a generated file that is far too big\n")).collect();
        env.write("big.txt", &text);
        let run = env.run(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0, "{planted}: nothing saved outside");
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(run.stdout.contains("It is a big file."), "{}", run.stdout);
        let said = format!("{}{}", run.stdout, run.stderr);
        let refusal = format!("{} is a symbolic link; mewcode does not write through it", link.display());
        assert!(said.contains("could not save a large tool result") && said.contains(&refusal), "{said}");
        // The model read the whole result in the conversation instead of a preview.
        let requests = model.requests();
        let last = requests.last().unwrap().json.as_ref().unwrap().to_string();
        assert!(last.contains("line 01500") && !last.contains("[content offloaded]"), "{planted}");
        assert_eq!(model.violations(), Vec::<String>::new());
    }
}

fn prompt_too_long_compacts_and_retries(protocol: &str) {
    let model = FakeModel::start();
    let reply = |text: &str, calls: &[(&str, &str, &str)]| {
        if protocol == "anthropic" { anthropic(text, calls) } else { openai(text, calls) }
    };
    for (index, file) in ["a.txt", "b.txt", "c.txt"].iter().enumerate() {
        let id = format!("call_{index}");
        let input = format!(r#"{{"path":"{file}"}}"#);
        model.push(reply("", &[(id.as_str(), "read_file", input.as_str())]));
    }
    let too_long = if protocol == "anthropic" {
        r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#
    } else {
        r#"{"error":{"message":"too many tokens","type":"invalid_request_error","code":"context_length_exceeded"}}"#
    };
    model.push(Reply::status(400, too_long));
    model.push(reply("<analysis>draft</analysis><summary>E2E-SUMMARY</summary>", &[]));
    model.push(reply("Read all three.", &[]));
    let env = TestEnv::new(&format!("context-emergency-{protocol}"));
    let base = if protocol == "anthropic" { model.url() } else { format!("{}/v1", model.url()) };
    env.write_home(
        "config.yaml",
        &format!("providers:\n  - {{name: fake, protocol: {protocol}, model: test-model, api_key: k, base_url: \"{base}\"}}\n"),
    );
    // About 40 000 bytes each: under the offload limit, so the tail holds them verbatim.
    for (file, letter) in [("a.txt", 'a'), ("b.txt", 'b'), ("c.txt", 'c')] {
        let line = format!("{}\n", letter.to_string().repeat(79));
        env.write(file, &line.repeat(500));
    }
    let run = env.run(&["-p", "read the three files", "--output-format", "stream-json"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(model.violations(), Vec::<String>::new(), "every request, the rebuilt history too, is valid");
    let events: Vec<Value> = run.stdout.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    let compact: Vec<(String, String)> = events
        .iter()
        .filter(|event| event["type"] == "compact")
        .map(|event| (event["phase"].as_str().unwrap().to_string(), event["trigger"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(compact, [("started".to_string(), "emergency".to_string()), ("finished".into(), "emergency".into())]);
    let requests = model.requests();
    assert_eq!(requests.len(), 6);
    let summary_request = requests[4].json.as_ref().unwrap();
    assert!(summary_request.to_string().contains("<summary> tags"));
    assert!(summary_request["tools"].as_array().is_none_or(|tools| tools.is_empty()));
    let retried = requests[5].json.as_ref().unwrap().to_string();
    assert!(retried.contains("E2E-SUMMARY") && !retried.contains("draft"));
    assert!(retried.contains(&"c".repeat(79)), "the recent tail stays verbatim");
    assert!(run.stdout.contains("Read all three."));
}

#[test]
fn anthropic_prompt_too_long_compacts_and_retries_with_a_valid_history() {
    prompt_too_long_compacts_and_retries("anthropic");
}

#[test]
fn openai_prompt_too_long_compacts_and_retries_with_a_valid_history() {
    prompt_too_long_compacts_and_retries("openai");
}

#[test]
fn slash_compact_in_the_repl_summarises_and_the_next_turn_carries_the_summary() {
    use crate::repl::{messages, start, text_reply, tool_reply};
    let model = FakeModel::start();
    for (index, file) in ["a.txt", "b.txt", "c.txt"].iter().enumerate() {
        model.push(tool_reply(&format!("call_{index}"), "read_file", serde_json::json!({ "path": file })));
    }
    model.push(text_reply("Read all three."));
    model.push(text_reply("<analysis>draft</analysis><summary>REPL-SUMMARY</summary>"));
    model.push(text_reply("Continuing from the summary."));
    let env = TestEnv::with_model("context-repl-compact", &model, Provider::anthropic());
    for (file, letter) in [("a.txt", 'a'), ("b.txt", 'b'), ("c.txt", 'c')] {
        let line = format!("{}\n", letter.to_string().repeat(79));
        env.write(file, &line.repeat(500));
    }
    let tmux = start(&env, &[]);
    tmux.type_text("read the three files");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Read all three.");
    tmux.type_text("/compact");
    tmux.keys(&["Enter"]);
    tmux.wait_for("compacting the conversation (manual)");
    tmux.wait_for("compacted the conversation: about");
    tmux.type_text("go on");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Continuing from the summary.");
    assert_eq!(model.violations(), Vec::<String>::new());
    let requests = model.requests();
    assert_eq!(requests.len(), 6);
    assert!(requests[4].body.contains("<summary> tags"));
    let next = messages(&model, 5);
    assert!(next[0].to_string().contains("REPL-SUMMARY"));
    // a.txt was summarised, so the attachment reads it again; b.txt and c.txt are in the tail
    // verbatim and are not read twice.
    let first = next[0].to_string();
    assert!(first.contains("### a.txt"), "the recovery attachment re-reads the summarised file");
    assert!(!first.contains("### b.txt") && !first.contains("### c.txt"), "no file twice");
    assert!(next.last().unwrap().to_string().contains("go on"));
}

#[test]
fn slash_compact_of_a_short_conversation_asks_nothing_and_keeps_it() {
    use crate::repl::{start, text_reply};
    let model = FakeModel::start();
    model.push(text_reply("Hello there."));
    model.push(text_reply("More of it."));
    model.push(text_reply("Still here."));
    let env = TestEnv::with_model("context-repl-compact-short", &model, Provider::anthropic());
    let tmux = start(&env, &[]);
    for (prompt, answer) in [("hi", "Hello there."), ("and then?", "More of it.")] {
        tmux.type_text(prompt);
        tmux.keys(&["Enter"]);
        tmux.wait_for(answer);
        tmux.wait_for_prompt();
    }
    tmux.type_text("/compact");
    tmux.keys(&["Enter"]);
    // A summary would be bigger than what it replaces: said, and not asked for.
    tmux.wait_for("compaction (manual) failed: nothing to gain");
    tmux.wait_for_prompt();
    tmux.type_text("go on");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Still here.");
    let requests = model.requests();
    assert_eq!(requests.len(), 3, "no summary request");
    // The conversation went on as it was: both exchanges are still there, whole.
    let body = &requests[2].body;
    assert!(body.contains("Hello there.") && body.contains("More of it.") && !body.contains("compacted"), "{body}");
}
