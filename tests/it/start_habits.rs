//! Starting mewcode as users of other agents do: `mewcode "task"` opens the REPL with the task
//! as its first message, `--append-system-prompt` reaches the system prompt, and a flag from
//! another agent is answered with mewcode's name for it.

use crate::repl::{messages, text_reply};
use crate::support::tmux::Tmux;
use crate::support::{FakeModel, Provider, TestEnv};

#[test]
fn a_task_on_the_command_line_is_the_repls_first_message() {
    let model = FakeModel::start();
    model.push(text_reply("On it."));
    let env = TestEnv::with_model("start-task", &model, Provider::anthropic());
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
    let env = TestEnv::with_model("start-append", &model, Provider::anthropic());
    let run = env.run(&["-p", "hi", "--append-system-prompt", "Answer in one word."]);
    assert_eq!(run.code, 0, "{run:?}");
    let request = &model.requests()[0];
    let system = request.json.as_ref().unwrap()["system"].to_string();
    assert!(system.contains("Answer in one word."), "{system}");
}

#[test]
fn another_agents_flag_is_answered_with_mewcodes_name_for_it() {
    let env = TestEnv::new("start-flags");
    let run = env.run(&["--max-turns", "3"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(run.stderr, "mewcode: unknown flag --max-turns; mewcode's is --max-iterations N (see mewcode --help)\n");
    let typo = env.run(&["doctr"]);
    assert_eq!(typo.code, 2, "{typo:?}");
    assert!(typo.stderr.contains("did you mean doctor?"), "{typo:?}");
}
