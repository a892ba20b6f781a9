//! Hooks end to end (Claude Code's contract): a PreToolUse hook that blocks, a PostToolUse hook
//! whose stdout reaches the model, and a hook that hangs (timeout, the loop goes on).

use crate::support::script::anthropic;
use crate::support::{FakeModel, TestEnv};

fn env_with_hooks(label: &str, model: &FakeModel, hooks_yaml: &str) -> TestEnv {
    let env = TestEnv::new(label);
    env.write_home(
        "config.yaml",
        &format!(
            "providers:\n  - {{name: fake, protocol: anthropic, model: m, api_key: k, base_url: \"{}\"}}\nhooks:\n{hooks_yaml}",
            model.url()
        ),
    );
    env
}

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
    let env = env_with_hooks("hook-pre", &model, hooks);
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
    let env = env_with_hooks("hook-post", &model, hooks);
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
    let env = env_with_hooks("hook-hang", &model, hooks);
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
    let env = env_with_hooks("hook-prompt", &model, hooks);
    let run = env.run(&["-p", "my password is hunter2"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("no secrets in prompts"), "{}", run.stderr);
    assert!(model.requests().is_empty(), "the prompt never reaches the model");
}
