//! Hooks end to end (Claude Code's contract): a PreToolUse hook that blocks, a PostToolUse hook
//! whose stdout reaches the model, a hook that hangs (timeout, the loop goes on), the same
//! hooks around the calls of the `task` sub-agent, and the JSON control: the README's
//! `fixtures/hooks/guard.sh` deciding deny / ask / allow (never over a deny rule),
//! `additionalContext`, `systemMessage` and `continue: false`.

use crate::support::script::anthropic;
use crate::support::{FakeModel, Provider, TestEnv};

fn last_request_text(model: &FakeModel) -> String {
    model.requests().last().unwrap().json.as_ref().unwrap()["messages"].to_string()
}

#[test]
fn pre_tool_use_hook_blocks_rm_and_its_reason_reaches_the_model() {
    let model = FakeModel::start();
    model.push(anthropic("", &[("b1", "bash", r#"{"command":"rm -f victim.txt"}"#)]));
    model.push(anthropic("", &[("b2", "bash", r#"{"command":"echo safe > ok.txt"}"#)]));
    model.push(anthropic("done", &[]));
    let hooks = "  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: 'grep -q \"\\\"command\\\":\\\"rm \" && { echo \"rm is not allowed here\" >&2; exit 2; }; exit 0'\n";
    let env =
        TestEnv::with_model("hook-pre", &model, Provider::anthropic().model("m").then(&format!("hooks:\n{}", hooks)));
    env.write("victim.txt", "keep me");
    let run = env.run(&["-p", "clean up", "--mode", "bypass"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(env.project.join("victim.txt").exists(), "the blocked rm must not run");
    assert!(env.project.join("ok.txt").exists(), "an unblocked command runs");
    let second = model.requests()[1].json.as_ref().unwrap()["messages"].to_string();
    assert!(second.contains("denied by hook: rm is not allowed here"), "{second}");
}

#[test]
fn post_tool_use_hook_stdout_reaches_the_next_request() {
    let model = FakeModel::start();
    model.push(anthropic("", &[("r1", "read_file", r#"{"path":"a.txt"}"#)]));
    model.push(anthropic("ok", &[]));
    let hooks = "  PostToolUse:\n    - matcher: Read\n      hooks:\n        - {type: command, command: 'cat >/dev/null; echo \"HOOK-CONTEXT: a.txt is generated, do not edit\"'}\n";
    let env =
        TestEnv::with_model("hook-post", &model, Provider::anthropic().model("m").then(&format!("hooks:\n{}", hooks)));
    env.write("a.txt", "generated\n");
    let run = env.run(&["-p", "read a"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(last_request_text(&model).contains("HOOK-CONTEXT: a.txt is generated, do not edit"));
    assert!(!model.requests()[0].json.as_ref().unwrap()["messages"].to_string().contains("HOOK-CONTEXT"));
}

#[test]
fn a_hanging_hook_times_out_and_the_loop_goes_on() {
    let model = FakeModel::start();
    model.push(anthropic("", &[("g1", "glob", r#"{"pattern":"*"}"#)]));
    model.push(anthropic("finished", &[]));
    let hooks = "  PreToolUse:\n    - hooks:\n        - {type: command, command: 'sleep 30', timeout: 1}\n";
    let env =
        TestEnv::with_model("hook-hang", &model, Provider::anthropic().model("m").then(&format!("hooks:\n{}", hooks)));
    let started = std::time::Instant::now();
    let run = env.run(&["-p", "look"]);
    assert_eq!((run.code, run.stdout.as_str()), (0, "finished\n"), "{}", run.stderr);
    assert!(run.stderr.contains("timed out after 1 s"), "{}", run.stderr);
    assert!(started.elapsed() < std::time::Duration::from_secs(15));
    let second = model.requests()[1].json.as_ref().unwrap()["messages"].to_string();
    assert!(!second.contains("denied by hook"), "a hook that fails does not block: {second}");
}

#[test]
fn user_prompt_submit_hook_can_block_the_prompt() {
    let model = FakeModel::start();
    let hooks = "  UserPromptSubmit:\n    - hooks:\n        - {type: command, command: 'echo \"no secrets in prompts\" >&2; exit 2'}\n";
    let env = TestEnv::with_model(
        "hook-prompt",
        &model,
        Provider::anthropic().model("m").then(&format!("hooks:\n{}", hooks)),
    );
    let run = env.run(&["-p", "my password is hunter2"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("no secrets in prompts"), "{}", run.stderr);
    assert!(model.requests().is_empty(), "the prompt never reaches the model");
}

/// The tool result for `id` in a request body (Anthropic): (content, is_error).
fn tool_result(body: &serde_json::Value, id: &str) -> Option<(String, bool)> {
    let messages = body["messages"].as_array()?;
    let blocks = messages.iter().filter_map(|message| message["content"].as_array()).flatten();
    let block = blocks.into_iter().find(|block| block["type"] == "tool_result" && block["tool_use_id"] == id)?;
    Some((block["content"].as_str()?.to_string(), block["is_error"] == serde_json::Value::Bool(true)))
}

#[test]
fn the_task_sub_agent_runs_the_users_pre_and_post_tool_use_hooks() {
    let model = FakeModel::start();
    // The main agent tries the secret itself, then delegates.
    model.push(anthropic("", &[("m1", "read_file", r#"{"path":"secret.txt"}"#)]));
    model.push(anthropic("", &[("t1", "task", r#"{"prompt":"Read secret.txt and public.txt."}"#)]));
    // The sub-agent (same model): the blocked read and an allowed one, then its report.
    model.push(anthropic(
        "",
        &[("s1", "read_file", r#"{"path":"secret.txt"}"#), ("s2", "read_file", r#"{"path":"public.txt"}"#)],
    ));
    model.push(anthropic("secret.txt is blocked; public.txt says hello", &[]));
    model.push(anthropic("done", &[]));
    let hooks = "  PreToolUse:\n    - matcher: Read\n      hooks:\n        - {type: command, command: 'sh hooks/block.sh'}\n  PostToolUse:\n    - hooks:\n        - {type: command, command: 'sh hooks/post.sh'}\n";
    let env =
        TestEnv::with_model("hook-task", &model, Provider::anthropic().model("m").then(&format!("hooks:\n{}", hooks)));
    env.write(
        "hooks/block.sh",
        "input=$(cat)\ncase \"$input\" in *secret.txt*) echo 'secret.txt is off limits' >&2; exit 2;; esac\nexit 0\n",
    );
    // Appends the name of every tool that ran, main agent's or sub-agent's.
    env.write(
        "hooks/post.sh",
        "input=$(cat)\nprintf '%s\\n' \"$input\" | sed -n 's/.*\"tool_name\":\"\\([^\"]*\\)\".*/\\1/p' >> post-tools.log\n",
    );
    env.write("secret.txt", "TOP-SECRET-CONTENT\n");
    env.write("public.txt", "hello from public\n");
    let run = env.run(&["-p", "what is in secret.txt?"]);
    assert_eq!((run.code, run.stdout.as_str()), (0, "done\n"), "{}", run.stderr);
    let requests = model.requests();
    assert_eq!(requests.len(), 5);
    let bodies: Vec<&serde_json::Value> = requests.iter().map(|request| request.json.as_ref().unwrap()).collect();
    let refusal = ("denied by hook: secret.txt is off limits".to_string(), true);
    assert_eq!(tool_result(bodies[1], "m1"), Some(refusal.clone()), "the main agent's read is blocked");
    // Requests 2 and 3 are the sub-agent's own conversation.
    assert!(bodies[2]["system"].to_string().contains("research sub-agent"), "{}", bodies[2]["system"]);
    assert_eq!(tool_result(bodies[3], "s1"), Some(refusal), "the sub-agent's read is blocked");
    let (public, is_error) = tool_result(bodies[3], "s2").unwrap();
    assert!(public.contains("hello from public") && !is_error, "{public}");
    assert_eq!(tool_result(bodies[4], "t1"), Some(("secret.txt is blocked; public.txt says hello".to_string(), false)));
    for (index, request) in requests.iter().enumerate() {
        assert!(!request.body.contains("TOP-SECRET-CONTENT"), "request {index} leaks the file: {}", request.body);
    }
    // PostToolUse ran for the sub-agent's read (the blocked ones never ran), then for `task`.
    let post = std::fs::read_to_string(env.project.join("post-tools.log")).unwrap();
    assert_eq!(post, "Read\nTask\n");
    assert_eq!(model.violations(), Vec::<String>::new());
}

/// The README's example hook (Claude Code's JSON control), copied into the project.
fn install_guard(env: &TestEnv) {
    let script = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/hooks/guard.sh")).unwrap();
    env.write("hooks/guard.sh", &script);
}

#[test]
fn json_permission_decisions_deny_ask_and_allow_but_never_lift_a_deny_rule() {
    let model = FakeModel::start();
    model.push(anthropic(
        "",
        &[
            ("a", "bash", r#"{"command":"ls"}"#),
            ("b", "bash", r#"{"command":"rm -f victim.txt"}"#),
            ("c", "bash", r#"{"command":"git push origin main"}"#),
            ("d", "bash", r#"{"command":"ls secret"}"#),
        ],
    ));
    model.push(anthropic("done", &[]));
    let hooks =
        "  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - {type: command, command: 'sh hooks/guard.sh'}\n";
    let env = TestEnv::with_model(
        "hook-json-permission",
        &model,
        Provider::anthropic().model("m").then(&format!("hooks:\n{}", hooks)),
    );
    install_guard(&env);
    env.write_home("settings.yaml", "permissions:\n  deny: [\"Bash(~secret)\"]\n");
    env.write("victim.txt", "keep me");
    // Default mode: without the hook, `ls` would need approval (nobody answers in -p).
    let run = env.run(&["-p", "go"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let body = model.requests()[1].json.clone().unwrap();
    let (listing, is_error) = tool_result(&body, "a").unwrap();
    assert!(!is_error && listing.contains("victim.txt"), "{listing}");
    assert_eq!(tool_result(&body, "b"), Some(("denied by hook: use trash instead of rm".to_string(), true)));
    assert!(env.project.join("victim.txt").exists());
    let (push, _) = tool_result(&body, "c").unwrap();
    assert!(push.starts_with("needs approval: ") && push.contains("a hook asks: pushing needs a person"), "{push}");
    let (secret, _) = tool_result(&body, "d").unwrap();
    assert!(secret.starts_with("denied by rule (user): "), "a hook's allow never beats a deny rule: {secret}");
}

#[test]
fn a_hook_asking_in_bypass_mode_still_asks() {
    let model = FakeModel::start();
    model.push(anthropic("", &[("c", "bash", r#"{"command":"git push origin main"}"#)]));
    model.push(anthropic("done", &[]));
    let hooks =
        "  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - {type: command, command: 'sh hooks/guard.sh'}\n";
    let env = TestEnv::with_model(
        "hook-json-ask",
        &model,
        Provider::anthropic().model("m").then(&format!("hooks:\n{}", hooks)),
    );
    install_guard(&env);
    let run = env.run(&["-p", "go", "--mode", "bypass"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let body = model.requests()[1].json.clone().unwrap();
    let (push, is_error) = tool_result(&body, "c").unwrap();
    assert!(is_error && push.starts_with("needs approval: a hook asks: pushing needs a person"), "{push}");
}

#[test]
fn json_context_system_messages_and_continue_false() {
    let model = FakeModel::start();
    model
        .push(anthropic("", &[("r1", "read_file", r#"{"path":"a.txt"}"#), ("r2", "read_file", r#"{"path":"b.txt"}"#)]));
    model.push(anthropic("never asked", &[]));
    let hooks = "  UserPromptSubmit:\n    - hooks:\n        - {type: command, command: 'sh hooks/context.sh'}\n  PostToolUse:\n    - matcher: Read\n      hooks:\n        - {type: command, command: 'sh hooks/stop.sh'}\n";
    let env = TestEnv::with_model(
        "hook-json-stop",
        &model,
        Provider::anthropic().model("m").then(&format!("hooks:\n{}", hooks)),
    );
    let context = r#"{"systemMessage":"prompt checked","hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"CTX-FROM-JSON"}}"#;
    env.write("hooks/context.sh", &format!("cat >/dev/null\necho '{context}'\n"));
    let stop = r#"{"continue":false,"stopReason":"enough for today","systemMessage":"post hook says stop"}"#;
    env.write("hooks/stop.sh", &format!("cat >/dev/null\necho '{stop}'\n"));
    env.write("a.txt", "a\n");
    env.write("b.txt", "b\n");
    let run = env.run(&["-p", "read them"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let requests = model.requests();
    assert_eq!(requests.len(), 1, "continue: false ends the run before the next request");
    assert!(requests[0].body.contains("CTX-FROM-JSON"), "{}", requests[0].body);
    assert!(!requests[0].body.contains("systemMessage"), "the hook's JSON itself is not context");
    assert!(run.stderr.contains("prompt checked") && run.stderr.contains("post hook says stop"), "{}", run.stderr);
    assert!(run.stderr.contains("enough for today"), "{}", run.stderr);
}

#[test]
fn a_prompt_blocked_by_a_hook_is_error_kind_hook_in_json() {
    let model = FakeModel::start();
    let hooks = "  UserPromptSubmit:\n    - hooks:\n        - {type: command, command: 'echo \"no secrets in prompts\" >&2; exit 2'}\n";
    let env = TestEnv::with_model(
        "hook-prompt-json",
        &model,
        Provider::anthropic().model("m").then(&format!("hooks:\n{}", hooks)),
    );
    let run = env.run(&["-p", "my password is hunter2", "--output-format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let output: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(output["error"]["kind"], "hook", "{output}");
    assert_eq!(output["error"]["retryable"], false, "{output}");
    assert!(output["error"]["message"].as_str().unwrap().contains("no secrets in prompts"), "{output}");
    assert!(model.requests().is_empty());
}

#[test]
fn a_blocked_prompt_in_a_continued_session_has_no_answer_not_the_last_one() {
    // The result is what the model wrote in this run (`Done` carries it), never an answer the
    // history holds from an earlier run.
    let model = FakeModel::start();
    model.push(anthropic("the old answer", &[]));
    let block = "if grep -q hunter2; then echo \"no secrets in prompts\" >&2; exit 2; fi";
    let hooks = format!("  UserPromptSubmit:\n    - hooks:\n        - {{type: command, command: '{block}'}}\n");
    let env = TestEnv::with_model(
        "hook-prompt-continued",
        &model,
        Provider::anthropic().model("m").then(&format!("hooks:\n{hooks}")),
    );
    let first = env.run(&["-p", "hello", "--output-format", "json"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let first: serde_json::Value = serde_json::from_str(&first.stdout).unwrap();
    assert_eq!(first["result"], "the old answer");
    let run = env.run(&["-c", "-p", "my password is hunter2", "--output-format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let output: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(output["result"], "", "{output}");
    assert_eq!(output["session_id"], first["session_id"], "{output}");
    assert_eq!(output["error"]["kind"], "hook", "{output}");
    assert_eq!(model.requests().len(), 1, "the blocked prompt never reaches the model");
}
