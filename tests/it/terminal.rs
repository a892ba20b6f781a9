//! The REPL on whatever terminal it gets (SPEC §1.1, §9): `TERM=dumb` writes no escape byte at
//! all (the raw output is logged with `pipe-pane`), `NO_COLOR` shows no colour or attribute, and
//! a 40-column terminal gets every line of ours word-wrapped, never a word split.

use crate::repl::{text_reply, tool_reply};
use crate::support::tmux::{Pane, Tmux};
use crate::support::{FakeModel, Provider, TestEnv};
use serde_json::json;
use std::collections::HashSet;

/// A project with its own config (the trust question), a user config with an unknown key (a long
/// warning in the banner), and a model that asks to write a file (an approval with a diff) and
/// then answers.
fn env_with_a_turn(label: &str, model: &FakeModel) -> TestEnv {
    model.push(tool_reply(
        "call_1",
        "write_file",
        json!({"path": "notes.txt", "content": "first line\nsecond line\n"}),
    ));
    model.push(text_reply("All done, the notes are written and everything is fine."));
    let env = TestEnv::with_model(label, model, Provider::anthropic());
    let config = std::fs::read_to_string(env.home.join("config.yaml")).unwrap();
    env.write_home("config.yaml", &config.replace("api_key: k,", "api_key: k, colour_scheme: solarized,"));
    env.write(
        ".mewcode.yaml",
        "providers:\n  - {name: theirs, protocol: openai, model: m, base_url: \"http://models.example\"}\n",
    );
    env
}

/// Says no to the trust question, types each command and waits for the prompt after it; then a
/// prompt whose write is approved.
fn drive(tmux: &Tmux) {
    tmux.wait_for("[y/N]");
    tmux.keys(&["n"]);
    tmux.wait_for_prompt();
    // Each command's own output is waited for: the screen before it also ends with a prompt.
    for (command, output) in [("/help", "leave mewcode"), ("/tools", "read-only tools"), ("/cost", "this session:")] {
        tmux.type_text(command);
        tmux.keys(&["Enter"]);
        tmux.wait_for(output);
        tmux.wait_for_prompt();
    }
    tmux.type_text("please write the notes file");
    tmux.keys(&["Enter"]);
    tmux.wait_for("[a] always");
    tmux.keys(&["y"]);
    tmux.wait_for("everything is fine.");
    tmux.wait_for_prompt();
}

#[test]
fn term_dumb_writes_no_escape_byte_at_all() {
    let model = FakeModel::start();
    let env = env_with_a_turn("term-dumb", &model);
    let log = env.dir.path().join("pane.log");
    let pane = Pane { log: Some(log.clone()), ..Pane::default() };
    let tmux = Tmux::start_with(&env, &[], &[("TERM", "dumb")], pane);
    drive(&tmux);
    tmux.type_text("/exit");
    tmux.keys(&["Enter"]);
    tmux.wait_for("[exited 0]");
    let raw = std::fs::read(&log).unwrap();
    let text = String::from_utf8_lossy(&raw);
    assert!(text.contains("needs your approval") && text.contains("everything is fine."), "{text}");
    assert!(text.contains("unknown key"), "the banner warning is there: {text}");
    let at = raw.iter().position(|&byte| byte == 0x1b);
    assert!(at.is_none(), "an escape byte at {at:?}: {:?}", String::from_utf8_lossy(&raw[at.unwrap_or(0)..]));
    assert_eq!(std::fs::read_to_string(env.project.join("notes.txt")).unwrap(), "first line\nsecond line\n");
}

#[test]
fn no_color_shows_no_colour_or_attribute() {
    let model = FakeModel::start();
    let env = env_with_a_turn("no-color", &model);
    let tmux = Tmux::start(&env, &[], &[("NO_COLOR", "1")]);
    drive(&tmux);
    let screen = tmux.screen_with_escapes();
    assert!(screen.contains("everything is fine."), "{screen}");
    assert!(!screen.contains('\x1b'), "{screen:?}");
    // The same screen without NO_COLOR has colours: the check above can fail.
    let model = FakeModel::start();
    let env = env_with_a_turn("with-color", &model);
    let tmux = Tmux::start(&env, &[], &[]);
    drive(&tmux);
    assert!(tmux.screen_with_escapes().contains('\x1b'));
}

/// Every word on the screen and in its scrollback.
fn words(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_string).collect()
}

#[test]
fn forty_columns_never_split_a_word() {
    let model = FakeModel::start();
    let env = env_with_a_turn("forty", &model);
    // The same session on a wide terminal gives every word whole.
    let wide = Tmux::start_with(&env, &[], &[], Pane { columns: 200, ..Pane::default() });
    drive(&wide);
    let whole: HashSet<String> = words(&wide.history()).into_iter().collect();
    drop(wide);
    std::fs::remove_file(env.project.join("notes.txt")).unwrap();
    model.push(tool_reply(
        "call_1",
        "write_file",
        json!({"path": "notes.txt", "content": "first line\nsecond line\n"}),
    ));
    model.push(text_reply("All done, the notes are written and everything is fine."));
    let narrow = Tmux::start_with(&env, &[], &[], Pane { columns: 40, ..Pane::default() });
    drive(&narrow);
    let history = narrow.history();
    assert!(history.contains("colour_scheme:") && history.contains("[y] yes once"), "{history}");
    assert!(history.contains("no (its config is ignored)"), "{history}");
    // A word longer than a line (a temp path) may only be split because it cannot fit; figures
    // without letters (a tool's elapsed time) differ between the runs.
    let long: Vec<&String> = whole.iter().filter(|word| word.chars().count() > 30).collect();
    let split: Vec<String> = words(&history)
        .into_iter()
        .filter(|word| word.chars().any(char::is_alphabetic))
        .filter(|word| !whole.contains(word) && !long.iter().any(|long| long.contains(word.as_str())))
        .collect();
    assert!(split.is_empty(), "split words {split:?} in:\n{history}");
    assert!(history.lines().all(|line| line.chars().count() <= 40), "{history}");
}

/// The raw bytes of a session whose one turn waits for an approval (answered yes), with
/// `notify_line` added to the user's config.
fn raw_bytes_of_an_approval(label: &str, notify_line: &str) -> Vec<u8> {
    let model = FakeModel::start();
    model.push(tool_reply("call_1", "bash", json!({"command": "touch rang.txt"})));
    model.push(text_reply("Done ringing."));
    let env = TestEnv::with_model(label, &model, Provider::anthropic());
    let config = std::fs::read_to_string(env.home.join("config.yaml")).unwrap();
    env.write_home("config.yaml", &format!("{config}{notify_line}"));
    let log = env.dir.path().join("pane.log");
    let tmux = Tmux::start_with(&env, &[], &[], Pane { log: Some(log.clone()), ..Pane::default() });
    tmux.wait_for_prompt();
    tmux.type_text("ring");
    tmux.keys(&["Enter"]);
    tmux.wait_for("[a] always");
    tmux.keys(&["y"]);
    tmux.wait_for("Done ringing.");
    tmux.wait_for_prompt();
    std::fs::read(&log).unwrap()
}

#[test]
fn a_waiting_approval_rings_the_bell_or_notifies_as_configured() {
    let before_question = |raw: &[u8]| {
        let text = String::from_utf8_lossy(raw).into_owned();
        let question = text.find("[a] always").expect("the approval question");
        text[..question].to_string()
    };
    let bell = raw_bytes_of_an_approval("notify-bell", "");
    assert_eq!(before_question(&bell).matches('\x07').count(), 1, "one bell by default");
    let osc = raw_bytes_of_an_approval("notify-osc9", "notify: osc9\n");
    assert!(before_question(&osc).contains("\x1b]9;mewcode: an approval is waiting\x07"));
    let off = raw_bytes_of_an_approval("notify-off", "notify: off\n");
    assert!(!String::from_utf8_lossy(&off).contains('\x07'), "notify: off rings nothing");
}
