//! `mewcode -p` end to end against the scripted fake model: both protocols, three output formats,
//! exit codes, and the exact requests sent.

use crate::support::{FakeModel, Provider, Reply, TestEnv};

#[test]
fn anthropic_text_answer_in_text_mode() {
    let model = FakeModel::start();
    model.push(Reply::fixture_chunked("anthropic-text.sse", 5, std::time::Duration::ZERO));
    let env = TestEnv::with_model("p-anthropic", &model, Provider::of("anthropic").key("k-123"));
    let run = env.run(&["-p", "say hi in Portuguese"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "Olá! (That's \"hi\" in Portuguese)\n\nYou could also say \"Oi!\" which is a more casual way to say hi in Portuguese.\n"
    );
    let request = &model.requests()[0];
    assert_eq!(request.path, "/v1/messages");
    assert_eq!(request.header("x-api-key"), Some("k-123"));
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
    let body = request.json.as_ref().unwrap();
    assert_eq!(body["model"], "test-model");
    assert_eq!(
        body["messages"],
        serde_json::json!([{"role": "user", "content": [{"type": "text", "text": "say hi in Portuguese", "cache_control": {"type": "ephemeral"}}]}])
    );
    assert_eq!(body["system"][0]["cache_control"], serde_json::json!({"type": "ephemeral"}));
    assert!(body["system"][0]["text"].as_str().unwrap().starts_with("You are mewcode"));
    assert!(body["system"][1]["text"].as_str().unwrap().starts_with("# Environment"));
}

#[test]
fn openai_text_answer_in_json_mode() {
    let model = FakeModel::start();
    model.push(Reply::fixture("openai-text.sse"));
    let env = TestEnv::with_model("p-openai-json", &model, Provider::of("openai").key("k-123"));
    let run = env.run(&["-p", "hi", "--output-format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut output: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let session_id = output["session_id"].take();
    assert!(crate::support::is_session_id(session_id.as_str().unwrap()), "{session_id}");
    // The durations are measured: numbers, the model's share no more than the whole.
    let (duration, api) = (output["duration_ms"].take(), output["duration_api_ms"].take());
    assert!(api.as_u64().unwrap() <= duration.as_u64().unwrap(), "{api} > {duration}");
    assert_eq!(
        output,
        serde_json::json!({
            "type": "result", "subtype": "success", "num_turns": 1, "duration_ms": null, "duration_api_ms": null,
            "total_cost_usd": null,
            "result": "Olá!", "session_id": null, "stop_reason": "completed", "iterations": 1,
            "usage": {"input_tokens": 20, "output_tokens": 2, "cache_write": 0, "cache_read": 0}, "is_error": false,
            "permission_denials": []
        })
    );
    let request = &model.requests()[0];
    assert_eq!(request.path, "/v1/chat/completions");
    assert_eq!(request.header("authorization"), Some("Bearer k-123"));
    let body = request.json.as_ref().unwrap();
    assert_eq!(body["messages"][0]["role"], "system");
    assert_eq!(body["messages"][1], serde_json::json!({"role": "user", "content": "hi"}));
    assert_eq!(body["stream_options"], serde_json::json!({"include_usage": true}));
}

#[test]
fn stream_json_emits_one_object_per_event_and_done_then_result_last() {
    let model = FakeModel::start();
    model.push(Reply::fixture("anthropic-text.sse"));
    let env = TestEnv::with_model("p-stream", &model, Provider::of("anthropic").key("k-123"));
    let run = env.run_with_stdin(&["-p", "-", "--output-format", "stream-json"], "hi from stdin");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<serde_json::Value> = run.stdout.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    let kinds: Vec<&str> = lines.iter().map(|line| line["type"].as_str().unwrap()).collect();
    assert_eq!(kinds[..2], ["system", "text"]);
    assert_eq!(kinds[kinds.len() - 2..], ["done", "result"]);
    assert!(kinds.contains(&"usage"));
    let text: String = lines.iter().filter(|l| l["type"] == "text").map(|l| l["text"].as_str().unwrap()).collect();
    assert!(text.starts_with("Olá!"));
    assert_eq!(lines.last().unwrap()["stop_reason"], "completed");
    assert_eq!(model.requests()[0].json.as_ref().unwrap()["messages"][0]["content"][0]["text"], "hi from stdin");
}

#[test]
fn piped_stdin_without_p_is_a_prompt() {
    let model = FakeModel::start();
    model.push(Reply::fixture("openai-text.sse"));
    let env = TestEnv::with_model("p-piped", &model, Provider::of("openai").key("k-123"));
    let run = env.run_with_stdin(&[], "piped question");
    assert_eq!((run.code, run.stdout.as_str()), (0, "Olá!\n"), "{}", run.stderr);
}

#[test]
fn auth_failure_names_the_key_and_exits_1_without_retrying() {
    let model = FakeModel::start();
    model.push(Reply::status(
        401,
        r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
    ));
    let env = TestEnv::new("p-401");
    env.write_home(
        "config.yaml",
        &format!("providers:\n  - {{name: c, protocol: anthropic, model: m, base_url: \"{}\"}}\n", model.url()),
    );
    let mut command = env.command(&["-p", "hi"]);
    command.env("ANTHROPIC_API_KEY", "sk-wrong");
    let run = crate::support::project::Run::from(command.output().unwrap());
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("invalid x-api-key"), "{}", run.stderr);
    assert!(run.stderr.contains("ANTHROPIC_API_KEY"), "{}", run.stderr);
    assert_eq!(model.requests().len(), 1, "a 401 is never retried");
}

#[test]
fn retry_after_429_and_503_is_a_stream_json_retry_event() {
    let model = FakeModel::start();
    model.push(
        Reply::status(429, r#"{"error":{"message":"slow down","type":"rate_limit_error"}}"#)
            .with_header("retry-after", "0"),
    );
    model.push(Reply::status(503, r#"{"error":{"message":"busy"}}"#).with_header("retry-after-ms", "10"));
    model.push(Reply::fixture("openai-text.sse"));
    let env = TestEnv::with_model("p-retry-json", &model, Provider::of("openai").key("k-123"));
    let run = env.run(&["-p", "hi", "--output-format", "stream-json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<serde_json::Value> = run.stdout.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    let retries: Vec<&serde_json::Value> = lines.iter().filter(|line| line["type"] == "retry").collect();
    assert_eq!(
        retries,
        [
            &serde_json::json!({"type": "retry", "status": 429, "attempt": 2, "max": 4, "delay_ms": 0, "reason": "rate limited: slow down"}),
            &serde_json::json!({"type": "retry", "status": 503, "attempt": 3, "max": 4, "delay_ms": 10, "reason": "server error 503: busy"}),
        ],
        "{}",
        run.stdout
    );
    assert_eq!(lines.last().unwrap()["result"], "Olá!");
    assert_eq!(model.requests().len(), 3);
}

#[test]
fn retry_is_told_on_stderr_in_text_mode() {
    let model = FakeModel::start();
    model.push(Reply::status(429, r#"{"error":"slow down"}"#).with_header("retry-after", "0"));
    model.push(Reply::status(503, "busy").with_header("retry-after-ms", "10"));
    model.push(Reply::fixture("openai-text.sse"));
    let env = TestEnv::with_model("p-retry-text", &model, Provider::of("openai").key("k-123"));
    let run = env.run(&["-p", "hi"]);
    assert_eq!((run.code, run.stdout.as_str()), (0, "Olá!\n"), "{}", run.stderr);
    assert!(run.stderr.contains("mewcode: rate limited (429), retrying in 0 ms (attempt 2 of 4)"), "{}", run.stderr);
    assert!(run.stderr.contains("mewcode: server error (503), retrying in 10 ms (attempt 3 of 4)"), "{}", run.stderr);
}

#[test]
fn in_band_error_after_partial_text_is_retried_from_scratch() {
    let model = FakeModel::start();
    model.push(Reply::fixture("vllm-error-after-200.sse"));
    model.push(Reply::fixture("openai-text.sse"));
    let env = TestEnv::with_model("p-restart", &model, Provider::of("openai").key("k-123"));
    let run = env.run(&["-p", "hi", "--output-format", "stream-json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<serde_json::Value> = run.stdout.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    assert!(lines.iter().any(|line| line["type"] == "restart"), "{}", run.stdout);
    assert_eq!(lines.last().unwrap()["result"], "Olá!");
    assert_eq!(model.requests().len(), 2);
}

#[test]
fn ctrl_c_during_a_stalled_stream_exits_130_promptly() {
    let model = FakeModel::start();
    let (release, stalled) = crossbeam_channel::bounded::<()>(0);
    let partial = crate::support::script::anthropic_open("", 1).into_bytes();
    model.push(Reply::Stall { body: partial, release: stalled });
    let env = TestEnv::with_model("p-ctrlc", &model, Provider::of("anthropic").key("k-123"));
    let child = env
        .command(&["-p", "hi"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    model.wait_for_requests(1, "mewcode never sent its request");
    let interrupted = std::time::Instant::now();
    let status = std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(interrupted.elapsed() < std::time::Duration::from_secs(3), "took {:?}", interrupted.elapsed());
    assert_eq!(model.requests().len(), 1, "a cancelled stream is not retried");
    drop(release);
}

#[test]
fn a_redirect_is_not_followed_so_the_key_never_reaches_another_host() {
    let model = FakeModel::start();
    let elsewhere = FakeModel::start();
    let target = format!("{}/v1/messages", elsewhere.url());
    model.push(Reply::status(307, "").with_header("Location", &target));
    let env = TestEnv::with_model("p-redirect", &model, Provider::of("anthropic").key("k-123"));
    let run = env.run(&["-p", "hi"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("redirect (HTTP 307)"), "{}", run.stderr);
    assert!(elsewhere.requests().is_empty(), "the request (and its key) went to the redirect target");
    assert_eq!(model.requests().len(), 1, "a redirect is not retried");
}

/// An OpenAI-style stream of `text` with no usage at all (as many llama.cpp set-ups send).
fn stream_without_usage(text: &str) -> String {
    format!(
        "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"role\":\"assistant\",\"content\":{text:?}}},\"finish_reason\":null}}]}}\n\n\
         data: {{\"choices\":[{{\"index\":0,\"delta\":{{}},\"finish_reason\":\"stop\"}}]}}\n\ndata: [DONE]\n\n"
    )
}

#[test]
fn a_local_server_without_usage_gets_usage_estimated_and_its_window_asked() {
    let model = FakeModel::start();
    model.route("GET", "/props", 200, r#"{"default_generation_settings":{"n_ctx":4096}}"#);
    model.push(Reply::sse(&stream_without_usage("Hello")));
    let env = TestEnv::with_model("p-estimated", &model, Provider::of("openai").key("k-123"));
    let run = env.run(&["-p", "hi", "--output-format", "stream-json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<serde_json::Value> = run.stdout.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    let usage = lines.iter().find(|line| line["type"] == "usage").expect("a usage line");
    assert_eq!(usage["estimated"], true, "{usage}");
    // "Hello" is 5 characters: 2 tokens at 3.5 characters per token; the prompt carries the
    // system prompt and the tool definitions (lean ones: the window is 4 096), so it is far from 0.
    assert_eq!(usage["usage"]["output_tokens"], 2, "{usage}");
    assert!(usage["usage"]["input_tokens"].as_u64().unwrap() > 500, "{usage}");
    assert_eq!(lines.last().unwrap()["usage_estimated"], true, "{}", run.stdout);
    // The window came from /props: no "reported none" warning.
    assert!(!run.stderr.contains("reported none"), "{}", run.stderr);
    assert!(model.side_requests().iter().any(|request| request.path == "/props"));
}

#[test]
fn a_server_that_reports_no_window_leaves_the_default_with_a_warning() {
    let model = FakeModel::start();
    model.push(Reply::sse(&stream_without_usage("Hello")));
    let env = TestEnv::with_model("p-nowindow", &model, Provider::of("openai").key("k-123"));
    let run = env.run(&["-p", "hi"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("reported none") && run.stderr.contains("128000"), "{}", run.stderr);
}

/// A stream of "Sure." whose usage reports 1 900 prompt tokens.
const SURE_1900: &str = concat!(
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Sure.\"},\"finish_reason\":null}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
    "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1900,\"completion_tokens\":2,\"total_tokens\":1902}}\n\n",
    "data: [DONE]\n\n"
);

#[test]
fn a_low_report_from_a_server_whose_window_holds_the_prompt_is_not_a_truncation() {
    // The server says its window is 32768: a prompt of about 9 000 tokens fits, so a report of
    // 1 900 (a server counting only uncached tokens) must not stop the turn.
    let model = FakeModel::start();
    model.route("GET", "/props", 200, r#"{"default_generation_settings":{"n_ctx":32768}}"#);
    model.push(Reply::sse(SURE_1900));
    let env = TestEnv::with_model("p-fits", &model, Provider::of("openai").key("k-123"));
    let prompt = "Please review this text. ".repeat(1_000);
    let run = env.run(&["-p", &prompt]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "Sure.\n");
}

#[test]
fn a_server_that_silently_cut_the_prompt_stops_the_turn_with_the_fix() {
    let model = FakeModel::start();
    // Ollama at num_ctx 2048 read 1 900 tokens of a prompt of well over 6 000.
    model.push(Reply::sse(SURE_1900));
    let env = TestEnv::with_model("p-truncated", &model, Provider::of("openai").key("k-123"));
    let prompt = "Please review this text. ".repeat(1_000);
    let run = env.run(&["-p", &prompt]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("the server read only 1900 prompt tokens of about"), "{}", run.stderr);
    assert!(run.stderr.contains("OLLAMA_CONTEXT_LENGTH"), "{}", run.stderr);
}

#[test]
fn a_git_repository_without_commits_is_reported_as_such_not_as_no_repository() {
    let model = FakeModel::start();
    model.push(Reply::fixture("anthropic-text.sse"));
    model.push(Reply::fixture("anthropic-text.sse"));
    let env = TestEnv::with_model("p-git-unborn", &model, Provider::of("anthropic").key("k-123"));
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git").args(args).current_dir(&env.project).output().unwrap();
        assert!(status.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&status.stderr));
    };
    git(&["init", "-q", "-b", "trunk"]);
    env.write("notes.txt", "x");
    let run = env.run(&["-p", "hi"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let environment = |index: usize| {
        model.requests()[index].json.as_ref().unwrap()["system"][1]["text"].as_str().unwrap().to_string()
    };
    assert!(environment(0).contains("- Git: branch trunk, no commits yet, 0 changed and"), "{}", environment(0));
    git(&["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "first"]);
    let run = env.run(&["-p", "hi"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(environment(1).contains("- Git: branch trunk, 0 changed and"), "{}", environment(1));
}

#[test]
fn configured_headers_and_sampling_settings_reach_the_server() {
    let model = FakeModel::start();
    model.push(Reply::fixture("openai-text.sse"));
    let env = TestEnv::new("p-request-settings");
    env.write_home(
        "config.yaml",
        &format!(
            "providers:\n  - name: azure\n    protocol: openai\n    model: test-model\n    base_url: \"{}/v1\"\n    temperature: 0.2\n    headers: {{api-key: az-secret, HTTP-Referer: https://example.org}}\n    extra_body: {{top_k: 20}}\n",
            model.url()
        ),
    );
    let run = env.run(&["-p", "hi"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let request = &model.requests()[0];
    assert_eq!(request.header("api-key"), Some("az-secret"));
    assert_eq!(request.header("http-referer"), Some("https://example.org"));
    let body = request.json.as_ref().unwrap();
    assert_eq!((body["temperature"].clone(), body["top_k"].clone()), (serde_json::json!(0.2), serde_json::json!(20)));
}
