//! `-p` in Claude Code's vocabulary (json's `result` object, stream-json's `system`/`init` first
//! and `result` last), the cap and refusals said once and whole, and text mode that streams to a
//! terminal but prints the answer at the end to a pipe.

use crate::support::script::{anthropic, anthropic_open, anthropic_with_usage};
use crate::support::tmux::Tmux;
use crate::support::{FakeModel, Provider, Reply, TestEnv};
use serde_json::Value;
use std::io::BufRead;

fn lines(stdout: &str) -> Vec<Value> {
    stdout.lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

#[test]
fn json_result_counts_the_turns_of_a_tool_loop_and_prices_them() {
    let model = FakeModel::start();
    model.push(anthropic_with_usage("", &[("g", "glob", r#"{"pattern":"*.rs"}"#)], 1000, 20));
    model.push(anthropic_with_usage("No Rust files here.", &[], 1200, 30));
    let provider = Provider::anthropic().field("price: {input: 3.0, output: 15.0}");
    let env = TestEnv::with_model("pv-json", &model, provider);
    let run = env.run(&["-p", "any rust?", "--output-format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let output: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        (&output["type"], &output["subtype"], &output["is_error"], &output["num_turns"], &output["result"]),
        (
            &Value::from("result"),
            &Value::from("success"),
            &Value::from(false),
            &Value::from(2),
            &Value::from("No Rust files here.")
        )
    );
    // 2,200 input tokens at $3/M and 50 output tokens at $15/M.
    let cost = output["total_cost_usd"].as_f64().unwrap();
    assert!((cost - 0.00735).abs() < 1e-9, "{cost}");
    assert!(crate::support::is_session_id(output["session_id"].as_str().unwrap()), "{output}");
    let (duration, api) = (output["duration_ms"].as_u64().unwrap(), output["duration_api_ms"].as_u64().unwrap());
    assert!(api <= duration, "{output}");
    // mewcode's own fields stay beside Claude Code's.
    assert_eq!((output["iterations"].as_u64(), output["stop_reason"].as_str()), (Some(2), Some("completed")));
    assert_eq!(output["usage"]["input_tokens"], 2200);
}

#[test]
fn the_cap_is_error_max_turns_in_json_and_said_once_in_text() {
    let model = FakeModel::start();
    for _ in 0..4 {
        model.push(anthropic("", &[("g", "glob", r#"{"pattern":"*"}"#)]));
    }
    let env = TestEnv::with_model("pv-cap", &model, Provider::anthropic());
    let run = env.run(&["-p", "loop", "--max-iterations", "2", "--output-format", "json"]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    let output: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        (output["subtype"].as_str(), output["is_error"].as_bool(), output["num_turns"].as_u64()),
        (Some("error_max_turns"), Some(true), Some(2))
    );
    let run = env.run(&["-p", "loop", "--max-iterations", "2"]);
    assert_eq!((run.code, run.stdout.as_str()), (3, ""), "{}", run.stderr);
    assert_eq!(run.stderr.matches("2 iterations").count(), 1, "the cap said once:\n{}", run.stderr);
    assert!(run.stderr.contains("mewcode -c -p"), "with the way on:\n{}", run.stderr);
}

#[test]
fn stream_json_opens_with_system_init_and_ends_with_the_result() {
    let model = FakeModel::start();
    model.push(anthropic("", &[("g", "glob", r#"{"pattern":"*"}"#)]));
    model.push(anthropic("Nothing.", &[]));
    let env = TestEnv::with_model("pv-stream", &model, Provider::anthropic());
    let run = env.run(&["-p", "look", "--output-format", "stream-json", "--mode", "bypass"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let events = lines(&run.stdout);
    let (init, result) = (&events[0], events.last().unwrap());
    assert_eq!((init["type"].as_str(), init["subtype"].as_str()), (Some("system"), Some("init")));
    assert!(crate::support::is_session_id(init["session_id"].as_str().unwrap()), "{init}");
    assert_eq!(init["session_id"], result["session_id"]);
    assert_eq!(init["model"], "test-model");
    assert_eq!(init["permissionMode"], "bypassPermissions");
    assert_eq!(init["mcp_servers"], serde_json::json!([]));
    let cwd = std::fs::canonicalize(init["cwd"].as_str().unwrap()).unwrap();
    assert_eq!(cwd, std::fs::canonicalize(&env.project).unwrap());
    let tools: Vec<&str> = init["tools"].as_array().unwrap().iter().map(|tool| tool.as_str().unwrap()).collect();
    assert!(["read_file", "bash", "glob", "edit_file"].iter().all(|tool| tools.contains(tool)), "{tools:?}");
    assert_eq!(
        (result["type"].as_str(), result["subtype"].as_str(), result["num_turns"].as_u64(), result["result"].as_str()),
        (Some("result"), Some("success"), Some(2), Some("Nothing."))
    );
    assert_eq!(events[events.len() - 2]["type"], "done", "mewcode's own last event is kept");
}

#[test]
fn a_killed_stream_json_run_has_said_its_session_id_first() {
    let model = FakeModel::start();
    let (release, stalled) = crossbeam_channel::bounded::<()>(0);
    model.push(Reply::Stall { body: anthropic_open("Still thinking", 10).into_bytes(), release: stalled });
    let env = TestEnv::with_model("pv-killed", &model, Provider::anthropic());
    let mut child = env
        .command(&["-p", "hi", "--output-format", "stream-json"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    let init: Value = serde_json::from_str(&first).unwrap();
    assert_eq!(init["subtype"], "init", "{first}");
    let id = init["session_id"].as_str().unwrap().to_string();
    child.kill().unwrap();
    child.wait().unwrap();
    drop(release);
    // The session it names holds the prompt: `--resume ID` can pick the run up.
    let log = env.project.join(".mewcode/sessions").join(&id).join("conversation.jsonl");
    let text = std::fs::read_to_string(&log).unwrap_or_else(|err| panic!("{}: {err}", log.display()));
    assert!(text.contains("\"hi\""), "{text}");
}

#[test]
fn a_refusal_is_said_whole_with_what_would_allow_it() {
    let model = FakeModel::start();
    model.push(anthropic("", &[("b", "bash", r#"{"command":"touch made-by-the-model"}"#)]));
    model.push(anthropic("I could not.", &[]));
    let env = TestEnv::with_model("pv-refusal", &model, Provider::anthropic());
    let run = env.run(&["-p", "make a file"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let reason = model.requests()[1].tool_results()[0].clone();
    assert!(reason.contains("--mode bypass"), "{reason}");
    assert!(run.stderr.contains(reason.trim_end()), "the refusal is cut:\n{}\nwhole: {reason}", run.stderr);
}

#[test]
fn text_on_a_terminal_streams_and_what_stops_it_follows_on_its_own_line() {
    let model = FakeModel::start();
    let (release, stalled) = crossbeam_channel::bounded::<()>(0);
    model
        .push(Reply::Stall { body: anthropic_open("The first half of the answer", 10).into_bytes(), release: stalled });
    let env = TestEnv::with_model("pv-tty", &model, Provider::anthropic());
    let tmux = Tmux::start(&env, &["-p", "tell me"], &[]);
    // On screen while the stream is still held open: nothing waits for the end.
    tmux.wait_for("The first half of the answer");
    tmux.keys(&["C-c"]);
    let screen = tmux.wait_for("[exited 130]");
    let rows: Vec<&str> = screen.lines().map(str::trim_end).filter(|row| !row.is_empty()).collect();
    // The terminal echoes the Ctrl-C as `^C` after the text; the stop line starts a line of its own.
    assert!(rows[0].starts_with("The first half of the answer"), "{screen}");
    assert_eq!(rows[1..], ["mewcode: cancelled before an answer", "[exited 130]"], "{screen}");
    drop(release);
}

#[test]
fn text_to_a_pipe_prints_only_the_answer_at_the_end() {
    let model = FakeModel::start();
    let (release, stalled) = crossbeam_channel::bounded::<()>(0);
    model.push(Reply::Stall { body: anthropic_open("A void beginning", 10).into_bytes(), release: stalled });
    model.push(anthropic("The whole answer.", &[]));
    // The stalled stream is given up after a second and asked again.
    let env = TestEnv::with_model("pv-pipe", &model, Provider::anthropic().field("idle_timeout_s: 1"));
    let run = env.run(&["-p", "tell me"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("the partial answer is void"), "{}", run.stderr);
    assert_eq!(run.stdout, "The whole answer.\n", "only the answer, once it is whole: {}", run.stderr);
    drop(release);
}

#[test]
fn stream_json_init_names_each_mcp_server_with_its_status_and_its_tools() {
    let model = FakeModel::start();
    model.push(anthropic("Hello.", &[]));
    let env = TestEnv::new("pv-mcp");
    let raw = crate::support::mcp_servers::fixture("raw_server.py");
    env.write_home(
        "config.yaml",
        &format!(
            "providers:\n  - {{name: fake, protocol: anthropic, model: m, api_key: k, base_url: \"{}\"}}\n\
             mcp_servers:\n  up: {{type: stdio, command: python3, args: [\"{}\", ok, \"0\"]}}\n  \
             down: {{type: stdio, command: /nonexistent/mcp-server}}\n",
            model.url(),
            raw.display(),
        ),
    );
    let run = env.run(&["-p", "hi", "--output-format", "stream-json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let init = &lines(&run.stdout)[0];
    let mut servers = init["mcp_servers"].as_array().unwrap().clone();
    servers.sort_by_key(|server| server["name"].as_str().unwrap().to_string());
    assert_eq!(
        servers,
        [
            serde_json::json!({"name": "down", "status": "failed"}),
            serde_json::json!({"name": "up", "status": "connected"})
        ]
    );
    assert!(init["tools"].as_array().unwrap().contains(&Value::from("mcp__up__echo")), "{init}");
}

#[test]
fn text_on_a_terminal_is_shown_once_with_tool_lines_between_the_steps() {
    let model = FakeModel::start();
    model.push(anthropic("Let me look.", &[("g", "glob", r#"{"pattern":"*.md"}"#)]));
    model.push(anthropic("Found nothing.", &[]));
    let env = TestEnv::with_model("pv-tty-steps", &model, Provider::anthropic());
    let tmux = Tmux::start(&env, &["-p", "any docs?"], &[]);
    let screen = tmux.wait_for("[exited 0]");
    let rows: Vec<&str> = screen.lines().map(str::trim_end).filter(|row| !row.is_empty()).collect();
    assert_eq!(rows.len(), 5, "{screen}");
    assert_eq!(rows[0], "Let me look.", "{screen}");
    assert!(rows[1].ends_with("glob *.md") && rows[2].contains("no files match"), "{screen}");
    assert_eq!(rows[3..], ["Found nothing.", "[exited 0]"], "the answer once, not again at the end:\n{screen}");
}
