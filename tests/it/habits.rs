//! The habits users bring from other agents: `mewcode "task"` opens the REPL with the task as
//! its first message, `--append-system-prompt` reaches the system prompt, a flag from another
//! agent is answered with mewcode's name for it, Ctrl-J adds a line to the prompt, and
//! `/status` says where the session stands.

use crate::repl::{messages, text_reply};
use crate::support::tmux::Tmux;
use crate::support::{FakeModel, Provider, TestEnv};

#[test]
fn a_task_on_the_command_line_is_the_repls_first_message() {
    let model = FakeModel::start();
    model.push(text_reply("On it."));
    let env = TestEnv::with_model("habit-task", &model, Provider::anthropic());
    let tmux = Tmux::start(&env, &["fix the failing test"], &[]);
    let screen = tmux.wait_for("On it.");
    assert!(screen.contains("› fix the failing test"), "{screen}");
    tmux.wait_for_prompt();
    let sent = messages(&model, 0);
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert!(sent[0].to_string().contains("fix the failing test"), "{sent:?}");
}

#[test]
fn appended_system_prompt_text_reaches_the_model() {
    let model = FakeModel::start();
    model.push(text_reply("Terse."));
    let env = TestEnv::with_model("habit-append", &model, Provider::anthropic());
    let run = env.run(&["-p", "hi", "--append-system-prompt", "Answer in one word."]);
    assert_eq!(run.code, 0, "{run:?}");
    let request = &model.requests()[0];
    let system = request.json.as_ref().unwrap()["system"].to_string();
    assert!(system.contains("Answer in one word."), "{system}");
}

#[test]
fn another_agents_flag_is_answered_with_mewcodes_name_for_it() {
    let env = TestEnv::new("habit-flags");
    let run = env.run(&["--max-turns", "3"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(run.stderr, "mewcode: unknown flag --max-turns; mewcode's is --max-iterations N (see mewcode --help)\n");
    let typo = env.run(&["doctr"]);
    assert_eq!(typo.code, 2, "{typo:?}");
    assert!(typo.stderr.contains("did you mean doctor?"), "{typo:?}");
}

#[test]
fn ctrl_j_adds_a_line_and_enter_sends_both() {
    let model = FakeModel::start();
    model.push(text_reply("Two lines read."));
    let env = TestEnv::with_model("habit-ctrl-j", &model, Provider::anthropic());
    let tmux = Tmux::start(&env, &[], &[]);
    tmux.wait_for_prompt();
    tmux.type_text("first line");
    tmux.keys(&["C-j"]);
    tmux.type_text("second line");
    let screen = tmux.wait_for("second line");
    assert!(!screen.contains("Two lines read."), "Ctrl-J must not send: {screen}");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Two lines read.");
    let sent = messages(&model, 0);
    assert!(sent[0].to_string().contains("first line\\nsecond line"), "{sent:?}");
}

#[test]
fn status_says_where_the_session_stands() {
    let model = FakeModel::start();
    let env = TestEnv::with_model("habit-status", &model, Provider::anthropic());
    let tmux = Tmux::start(&env, &["--mode", "plan"], &[]);
    tmux.wait_for_prompt();
    tmux.type_text("/status");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("session   not saved yet");
    let lines = [
        "model     fake · test-model",
        "vision    yes (default)",
        "mode      plan",
        "mcp       no MCP servers configured",
        "sandbox   ",
    ];
    for line in lines {
        assert!(screen.contains(line), "missing {line:?} in:\n{screen}");
    }
    let joined = screen.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(joined.contains(&format!("project {}", env.project.display())), "{screen}");
}

#[test]
fn bang_runs_the_persons_own_command_and_the_model_sees_its_output() {
    let model = FakeModel::start();
    model.push(text_reply("I see it."));
    let env = TestEnv::with_model("habit-bang", &model, Provider::anthropic());
    env.write("marker.txt", "found me\n");
    let tmux = Tmux::start(&env, &[], &[]);
    tmux.wait_for_prompt();
    tmux.type_text("!cat marker.txt && echo done-$((40+2))");
    tmux.keys(&["Enter"]);
    tmux.wait_for("done-42");
    assert!(model.requests().is_empty(), "a ! command is not a prompt");
    tmux.type_text("what did it say?");
    tmux.keys(&["Enter"]);
    tmux.wait_for("I see it.");
    let sent = messages(&model, 0).last().unwrap().to_string();
    assert!(
        sent.contains("the user ran this shell command themselves: `cat marker.txt && echo done-$((40+2))`"),
        "{sent}"
    );
    assert!(sent.contains("found me"), "{sent}");
}
