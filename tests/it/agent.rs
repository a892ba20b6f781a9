//! The whole agent end to end: a scripted model asks for tools, the real tools run in a temp
//! project, and every next request carries the results, paired and in order.

use crate::support::script::{anthropic, openai};
use crate::support::{FakeModel, Provider, Reply, TestEnv};
use serde_json::Value;

type Turn = (&'static str, Vec<(&'static str, &'static str, &'static str)>);

fn script(protocol: &str, turns: &[Turn]) -> Vec<Reply> {
    turns
        .iter()
        .map(|(text, calls)| if protocol == "anthropic" { anthropic(text, calls) } else { openai(text, calls) })
        .collect()
}

/// The tool results of a request, in order, as (id, content, is_error), for either protocol.
fn tool_results(body: &Value) -> Vec<(String, String, bool)> {
    let mut results = Vec::new();
    for message in body["messages"].as_array().unwrap() {
        if message["role"] == "tool" {
            let id = message["tool_call_id"].as_str().unwrap().to_string();
            results.push((id, message["content"].as_str().unwrap_or_default().to_string(), false));
        }
        if let Some(blocks) = message["content"].as_array() {
            for block in blocks.iter().filter(|block| block["type"] == "tool_result") {
                let content = match &block["content"] {
                    Value::String(text) => text.clone(),
                    Value::Array(parts) => {
                        parts.iter().filter_map(|part| part["text"].as_str()).collect::<Vec<_>>().join("")
                    }
                    _ => String::new(),
                };
                let is_error = block["is_error"] == Value::Bool(true);
                results.push((block["tool_use_id"].as_str().unwrap().to_string(), content, is_error));
            }
        }
    }
    results
}

fn read_edit_run(protocol: &str) {
    let model = FakeModel::start();
    for reply in script(
        protocol,
        &[
            ("Let me look.", vec![("call_read", "read_file", r#"{"path":"greeting.txt"}"#)]),
            (
                "",
                vec![(
                    "call_edit",
                    "edit_file",
                    r#"{"path":"greeting.txt","old_string":"world","new_string":"mewcode"}"#,
                )],
            ),
            ("", vec![("call_bash", "bash", r#"{"command":"cat greeting.txt && echo ran > marker"}"#)]),
            ("Changed world to mewcode and checked it.", vec![]),
        ],
    ) {
        model.push(reply);
    }
    let env = TestEnv::with_model(&format!("e2e-{protocol}"), &model, Provider::of(protocol));
    env.write("greeting.txt", "hello world\n");
    let run = env.run(&["-p", "greet mewcode instead", "--mode", "bypass"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "Changed world to mewcode and checked it.\n");
    assert_eq!(std::fs::read_to_string(env.project.join("greeting.txt")).unwrap(), "hello mewcode\n");
    assert_eq!(std::fs::read_to_string(env.project.join("marker")).unwrap(), "ran\n");
    // Tool activity on stderr, one line per start and end.
    assert!(run.stderr.contains("● read_file greeting.txt"), "{}", run.stderr);
    assert!(run.stderr.contains("● bash cat greeting.txt"), "{}", run.stderr);
    let requests = model.requests();
    assert_eq!(requests.len(), 4);
    assert!(model.violations().is_empty(), "{:?}", model.violations());
    let last = tool_results(requests[3].json.as_ref().unwrap());
    let ids: Vec<&str> = last.iter().map(|(id, _, _)| id.as_str()).collect();
    assert_eq!(ids, ["call_read", "call_edit", "call_bash"]);
    assert_eq!(last[0].1, "     1\thello world\n");
    assert!(last[1].1.contains("1 replacement"), "{}", last[1].1);
    assert!(last[2].1.contains("hello mewcode") && last[2].1.contains("exit code: 0"), "{}", last[2].1);
    assert!(last.iter().all(|(_, _, is_error)| !is_error));
    // Each request carries exactly the results known at that time.
    assert_eq!(tool_results(requests[1].json.as_ref().unwrap()).len(), 1);
    assert_eq!(tool_results(requests[2].json.as_ref().unwrap()).len(), 2);
}

#[test]
fn anthropic_model_reads_edits_and_runs_a_command() {
    read_edit_run("anthropic");
}

#[test]
fn openai_model_reads_edits_and_runs_a_command() {
    read_edit_run("openai");
}

#[test]
fn parallel_reads_come_back_in_call_order_and_errors_are_results() {
    let model = FakeModel::start();
    model.push(anthropic(
        "",
        &[
            ("r1", "read_file", r#"{"path":"a.txt"}"#),
            ("r2", "read_file", r#"{"path":"missing.txt"}"#),
            ("r3", "grep", r#"{"pattern":"beta"}"#),
            ("r4", "read_file", "{not json"),
        ],
    ));
    model.push(anthropic("ok", &[]));
    let env = TestEnv::with_model("e2e-parallel", &model, Provider::of("anthropic"));
    env.write("a.txt", "alpha\n");
    env.write("b.txt", "beta\n");
    let run = env.run(&["-p", "look"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let results = tool_results(model.requests()[1].json.as_ref().unwrap());
    let ids: Vec<&str> = results.iter().map(|(id, _, _)| id.as_str()).collect();
    assert_eq!(ids, ["r1", "r2", "r3", "r4"]);
    assert_eq!((results[0].1.as_str(), results[0].2), ("     1\talpha\n", false));
    assert!(results[1].2 && results[1].1.contains("missing.txt"), "{:?}", results[1]);
    assert!(!results[2].2 && results[2].1.contains("b.txt"), "{:?}", results[2]);
    assert!(results[3].2 && results[3].1.to_lowercase().contains("json"), "{:?}", results[3]);
}

#[test]
fn without_approval_a_write_is_refused_with_needs_approval_and_nothing_changes() {
    let model = FakeModel::start();
    model.push(openai("", &[("w", "write_file", r#"{"path":"new.txt","content":"x"}"#)]));
    model.push(openai("I need approval.", &[]));
    let env = TestEnv::with_model("e2e-ask", &model, Provider::of("openai"));
    let run = env.run(&["-p", "write", "--output-format", "stream-json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!env.project.join("new.txt").exists());
    let results = tool_results(model.requests()[1].json.as_ref().unwrap());
    assert!(results[0].1.starts_with("needs approval: "), "{:?}", results[0]);
    let kinds: Vec<String> = run
        .stdout
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap()["type"].as_str().unwrap().to_string())
        .collect();
    assert!(kinds.contains(&"tool_start".to_string()) && kinds.contains(&"approval_denied".to_string()), "{kinds:?}");
    // acceptEdits allows the same write.
    model.push(openai("", &[("w", "write_file", r#"{"path":"new.txt","content":"x"}"#)]));
    model.push(openai("written", &[]));
    let run = env.run(&["-p", "write", "--mode", "acceptEdits"]);
    assert_eq!((run.code, run.stdout.as_str()), (0, "written\n"), "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(env.project.join("new.txt")).unwrap(), "x");
}

#[test]
fn stream_json_carries_full_input_and_output_and_json_lists_the_refusals_with_the_way_to_allow() {
    let model = FakeModel::start();
    let long = "line of the file\n".repeat(200);
    // Not a read-only command (those run unasked in the sandbox's view): it asks in default mode.
    let command = format!("mkdir {}", "x".repeat(150));
    model.push(openai(
        "",
        &[("r", "read_file", r#"{"path":"big.txt"}"#), ("b", "bash", &format!(r#"{{"command":"{command}"}}"#))],
    ));
    model.push(openai("done", &[]));
    let env = TestEnv::with_model("e2e-full-events", &model, Provider::of("openai"));
    env.write("big.txt", &long);
    let run = env.run(&["-p", "go", "--output-format", "stream-json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<Value> = run.stdout.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    let of = |kind: &str, id: &str| lines.iter().find(|line| line["type"] == kind && line["id"] == id).unwrap().clone();
    assert_eq!(of("tool_start", "r")["input"], serde_json::json!({"path": "big.txt"}), "the arguments as an object");
    assert_eq!(of("tool_start", "b")["input"]["command"], command.as_str());
    let read = of("tool_end", "r");
    assert_eq!(read["output"].as_str().unwrap().lines().count(), 200, "the whole output, not a preview");
    assert!(read["preview"].as_str().unwrap().len() < read["output"].as_str().unwrap().len());
    let refused = of("approval_denied", "b");
    let reason = refused["reason"].as_str().unwrap();
    assert!(reason.len() > 150 && reason.contains(&command), "the whole reason: {reason}");
    assert!(
        reason.contains("--mode bypass") && reason.contains("Bash(=mkdir "),
        "names the mode and the rule: {reason}"
    );

    model.push(openai("", &[("b", "bash", &format!(r#"{{"command":"{command}"}}"#))]));
    model.push(openai("done", &[]));
    let run = env.run(&["-p", "go", "--output-format", "json"]);
    let output: Value = serde_json::from_str(&run.stdout).unwrap();
    let denials = output["permission_denials"].as_array().unwrap();
    assert_eq!(denials.len(), 1, "{output}");
    assert_eq!(
        (denials[0]["tool"].as_str(), denials[0]["input"]["command"].as_str()),
        (Some("bash"), Some(command.as_str()))
    );
    assert!(denials[0]["reason"].as_str().unwrap().starts_with("needs approval: "));
    assert_eq!(denials[0]["by"], "approval", "who refused, typed: scripts need not parse the text");

    // A tool's own failure is not a refusal, whatever its text says.
    let lookalike = r#"{"command":"printf 'denied by the proxy\\n'; exit 1"}"#;
    model.push(openai("", &[("b", "bash", lookalike)]));
    model.push(openai("done", &[]));
    let run = env.run(&["-p", "go", "--output-format", "json", "--mode", "bypass"]);
    let output: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(output["permission_denials"], serde_json::json!([]), "{output}");
    let sent = model.requests().last().unwrap().body.clone();
    assert!(sent.contains("denied by the proxy"), "the command ran and failed on its own: {sent}");
}

#[test]
fn iteration_cap_in_print_mode_exits_3_with_json_stop_reason() {
    let model = FakeModel::start();
    for index in 0..2 {
        let _ = index;
        model.push(anthropic("", &[("r", "glob", r#"{"pattern":"*"}"#)]));
    }
    let env = TestEnv::with_model("e2e-cap", &model, Provider::of("anthropic"));
    let run = env.run(&["-p", "loop", "--max-iterations", "2", "--output-format", "json"]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    let output: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        (output["stop_reason"].as_str(), output["iterations"].as_u64(), output["is_error"].as_bool()),
        (Some("iteration_limit"), Some(2), Some(true))
    );
}

#[test]
fn a_cap_above_25_is_honoured_and_text_mode_leaves_stdout_empty_with_the_way_on() {
    let model = FakeModel::start();
    for _ in 0..40 {
        model.push(openai("", &[("r", "glob", r#"{"pattern":"*"}"#)]));
    }
    let env = TestEnv::with_model("e2e-cap-40", &model, Provider::of("openai"));
    let run = env.run(&["-p", "loop", "--max-iterations", "40"]);
    assert_eq!((run.code, run.stdout.as_str()), (3, ""), "no note on stdout: {}", run.stderr);
    assert_eq!(model.requests().len(), 40, "every iteration up to the cap ran");
    assert!(run.stderr.contains("iteration cap (40 iterations)"), "{}", run.stderr);
    assert!(run.stderr.contains("mewcode -c -p"), "says how to go on: {}", run.stderr);
}

#[test]
fn unknown_tool_stop_in_print_mode_exits_3() {
    let model = FakeModel::start();
    for _ in 0..3 {
        model.push(openai("", &[("u", "teleport", "{}")]));
    }
    let env = TestEnv::with_model("e2e-unknown", &model, Provider::of("openai"));
    let run = env.run(&["-p", "go", "--output-format", "json"]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    let output: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(output["stop_reason"], "unknown_tools");
    assert_eq!(model.requests().len(), 3);
}

#[test]
fn plan_mode_sends_only_read_only_tools() {
    let model = FakeModel::start();
    model.push(anthropic("Plan: 1. change x", &[]));
    let env = TestEnv::with_model("e2e-plan", &model, Provider::of("anthropic"));
    let run = env.run(&["-p", "plan it", "--mode", "plan"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let body = model.requests()[0].json.clone().unwrap();
    let mut names: Vec<&str> =
        body["tools"].as_array().unwrap().iter().map(|tool| tool["name"].as_str().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["glob", "grep", "read_file", "task"]);
    let last_user = body["messages"].as_array().unwrap().last().unwrap().to_string();
    assert!(last_user.contains("Plan mode is active"), "{last_user}");
}

#[test]
fn ctrl_c_during_a_slow_bash_command_kills_its_whole_process_group() {
    let model = FakeModel::start();
    // Command lines of their own, to find them from here (the command's pids are its namespace's).
    let command = r#"{"command":"sleep 30.7105 & bash -c 'sleep 30.7106; :'; wait"}"#;
    model.push(anthropic("", &[("slow", "bash", command)]));
    let env = TestEnv::with_model("e2e-cancel-bash", &model, Provider::of("anthropic"));
    let child = env
        .command(&["-p", "run it", "--mode", "bypass"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = crate::support::await_running(&["sleep", "30.7105"], true, 20)
        && crate::support::await_running(&["sleep", "30.7106"], true, 20);
    assert!(started, "the command never started");
    std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(crate::support::await_running(&["sleep", "30.7105"], false, 5), "the background sleep survived");
    assert!(crate::support::await_running(&["sleep", "30.7106"], false, 5), "the inner shell's sleep survived");
}
