//! The input line's keys, as a person uses them: Ctrl-G edits the line in `$EDITOR` and puts
//! the saved text back, Ctrl-O shows the last tool output whole, and a long paste is shown as a
//! placeholder but sent whole.

use crate::repl::{messages, text_reply, tool_reply, user_text};
use crate::support::tmux::Tmux;
use crate::support::{FakeModel, Provider, TestEnv};
use serde_json::json;
use std::io::Write;

fn last_user_text(model: &FakeModel, request: usize) -> String {
    user_text(messages(model, request).last().expect("a message"))
}

#[test]
fn ctrl_g_edits_the_line_in_the_editor_and_enter_sends_what_was_saved() {
    let model = FakeModel::start();
    model.push(text_reply("Edited prompt read."));
    let env = TestEnv::with_model("line-editor", &model, Provider::anthropic());
    // An "editor" that rewrites the file as a person would, and adds a second line.
    env.write("edit.sh", "#!/bin/sh\nsed -i 's/rough/polished/' \"$1\" && printf 'second line\\n' >> \"$1\"\n");
    let editor = format!("sh {}", env.project.join("edit.sh").display());
    let tmux = Tmux::start(&env, &[], &[("EDITOR", &editor)]);
    tmux.wait_for_prompt();
    tmux.type_text("a rough draft");
    tmux.keys(&["C-g"]);
    tmux.wait_for("a polished draft");
    assert!(model.requests().is_empty(), "Ctrl-G must not send");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Edited prompt read.");
    assert_eq!(last_user_text(&model, 0), "a polished draft\nsecond line");
}

#[test]
fn a_failing_editor_leaves_the_line_as_it_was() {
    let model = FakeModel::start();
    let env = TestEnv::with_model("line-editor-fails", &model, Provider::anthropic());
    let tmux = Tmux::start(&env, &[], &[("VISUAL", "false")]);
    tmux.wait_for_prompt();
    tmux.type_text("keep me");
    tmux.keys(&["C-g"]);
    let screen = tmux.wait_for("the input is unchanged");
    assert!(screen.lines().any(|line| line.starts_with("› keep me")), "{screen}");
}

#[test]
fn ctrl_o_shows_the_last_tool_output_whole() {
    let model = FakeModel::start();
    let script = (1..=30).map(|n| format!("echo row-{n}")).collect::<Vec<_>>().join("; ");
    model.push(tool_reply("call_1", "bash", json!({ "command": script })));
    model.push(text_reply("Listed."));
    let env = TestEnv::with_model("line-expand", &model, Provider::anthropic());
    let tmux = Tmux::start(&env, &["--mode", "bypass"], &[]);
    tmux.wait_for_prompt();
    tmux.type_text("count to thirty");
    tmux.keys(&["Enter"]);
    let folded = tmux.wait_for("Listed.");
    assert!(!folded.contains("row-17"), "the output is folded at first:\n{folded}");
    tmux.wait_for_prompt();
    tmux.keys(&["C-o"]);
    let screen = tmux.wait_for("row-30");
    assert!(screen.contains("row-17"), "{screen}");
    assert!(screen.contains("── bash(echo row-1;"), "{screen}");
}

#[test]
fn a_long_paste_is_a_placeholder_on_screen_and_whole_in_the_message() {
    let model = FakeModel::start();
    model.push(text_reply("Read your paste."));
    let env = TestEnv::with_model("line-paste", &model, Provider::anthropic());
    let tmux = Tmux::start(&env, &[], &[]);
    tmux.wait_for_prompt();
    let pasted: String = (1..=40).map(|n| format!("pasted line {n}\n")).collect();
    tmux.type_text("look at this: ");
    tmux.paste(&pasted);
    let screen = tmux.wait_for("[Pasted text #1 +40 lines]");
    assert!(!screen.contains("pasted line 7"), "{screen}");
    tmux.type_text(" thanks");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Read your paste.");
    let sent = last_user_text(&model, 0);
    assert!(sent.starts_with("look at this: pasted line 1\npasted line 2\n"), "{sent:?}");
    assert!(sent.ends_with("pasted line 40\n thanks"), "{sent:?}");
}

#[test]
fn a_short_paste_is_inserted_as_it_is() {
    let model = FakeModel::start();
    let env = TestEnv::with_model("line-paste-short", &model, Provider::anthropic());
    let tmux = Tmux::start(&env, &[], &[]);
    tmux.wait_for_prompt();
    tmux.paste("two\nlines");
    let screen = tmux.wait_for("lines");
    assert!(!screen.contains("[Pasted"), "{screen}");
    assert!(model.requests().is_empty(), "a newline in a paste does not send");
}

#[test]
fn a_running_commands_output_appears_as_it_comes() {
    let model = FakeModel::start();
    let env = TestEnv::with_model("line-live", &model, Provider::anthropic());
    let fifo = env.project.join("go");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let command = "for n in 1 2 3 4 5 6; do echo live-$n; done; read line < go; echo after-$line";
    model.push(tool_reply("call_1", "bash", json!({ "command": command })));
    model.push(text_reply("Command finished."));
    let tmux = Tmux::start(&env, &["--mode", "bypass"], &[]);
    tmux.wait_for_prompt();
    tmux.type_text("run the slow command");
    tmux.keys(&["Enter"]);
    // The command waits on the fifo: what it printed so far is on screen, the last lines only.
    let screen = tmux.wait_for("live-6");
    assert!(screen.contains("live-3") && !screen.contains("live-2"), "{screen}");
    assert!(screen.contains("running bash for n in"), "{screen}");
    std::fs::OpenOptions::new().write(true).open(&fifo).unwrap().write_all(b"done\n").unwrap();
    let screen = tmux.wait_for("Command finished.");
    assert!(!screen.contains("live-6"), "the live lines are wiped when the command ends:\n{screen}");
    assert!(screen.contains("live-1 (+7 lines)"), "the folded result line:\n{screen}");
}

#[test]
fn verbose_shows_each_tools_output_in_full_in_the_repl_and_on_stderr_with_p() {
    let model = FakeModel::start();
    let command = "for n in 1 2 3 4 5; do echo row-$n; done";
    model.push(tool_reply("call_1", "bash", json!({ "command": command })));
    model.push(text_reply("Five rows."));
    model.push(tool_reply("call_2", "bash", json!({ "command": command })));
    model.push(text_reply("Five rows again."));
    let env = TestEnv::with_model("line-verbose", &model, Provider::anthropic());
    let tmux = Tmux::start(&env, &["--mode", "bypass", "--verbose"], &[]);
    tmux.wait_for_prompt();
    tmux.type_text("count");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Five rows.");
    assert!(screen.contains("  ⎿ row-1\n    row-2\n    row-3\n    row-4\n    row-5\n    exit code: 0"), "{screen}");
    let run = env.run(&["-p", "count again", "--mode", "bypass", "--verbose"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains("    row-4\n    row-5\n    exit code: 0"), "{}", run.stderr);
    let both = env.run(&["-p", "x", "--verbose", "--quiet"]);
    assert_eq!(both.code, 2, "{both:?}");
    assert!(both.stderr.contains("--verbose and --quiet contradict each other"), "{}", both.stderr);
}
