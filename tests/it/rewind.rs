//! Checkpoints end to end: the real binary, the scripted fake model and real tools in a temp
//! project; `/rewind`, `/undo` and `/diff` in the REPL (tmux) and `mewcode rewind` for scripts.
//! What is checked is the project's files (written by `write_file`, changed by `sed -i`,
//! deleted and created by bash), what the model is sent after a rewind, and that nothing of the
//! user's git state moved.

use crate::repl::{messages, text_reply, tool_reply};
use crate::support::tmux::Tmux;
use crate::support::{FakeModel, Provider, Reply, TestEnv, script};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;

const NOTES: &str = "my notes\nline two\nline three\n";

/// Several tool calls in one answer.
fn tools_reply(calls: &[(&str, &str, Value)]) -> Reply {
    let texts: Vec<(String, String, String)> =
        calls.iter().map(|(id, name, input)| (id.to_string(), name.to_string(), input.to_string())).collect();
    let borrowed: Vec<(&str, &str, &str)> =
        texts.iter().map(|(id, name, input)| (id.as_str(), name.as_str(), input.as_str())).collect();
    script::anthropic_with_usage("", &borrowed, 1000, 20)
}

fn bash(id: &str, command: &str) -> Reply {
    tool_reply(id, "bash", json!({"command": command}))
}

/// 5 MB of bytes that are not text (NULs and every other byte value).
fn binary_blob() -> Vec<u8> {
    (0..5 * 1024 * 1024u32).map(|index| (index.wrapping_mul(2_654_435_761) >> 13) as u8).collect()
}

/// A project with notes, a config line, a file bash will delete, an ignored `node_modules`
/// and a 5 MB binary file.
fn project(label: &str, model: &FakeModel) -> TestEnv {
    let env = TestEnv::with_model(label, model, Provider::anthropic());
    env.write("notes.txt", NOTES);
    env.write("config.txt", "a=1\n");
    env.write("doomed.txt", "keep me\n");
    env.write(".gitignore", "node_modules/\n");
    env.write("node_modules/pkg/index.js", "ignored\n");
    std::fs::write(env.project.join("blob.bin"), binary_blob()).unwrap();
    env
}

fn read(env: &TestEnv, rel: &str) -> Option<String> {
    std::fs::read_to_string(env.project.join(rel)).ok()
}

fn git_available() -> bool {
    Command::new("git").arg("--version").output().is_ok_and(|output| output.status.success())
}

fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args(["-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .expect("git runs");
    assert!(output.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The user's git state: HEAD, branches, what is staged, and the stash.
fn git_state(dir: &Path) -> String {
    ["rev-parse HEAD", "symbolic-ref HEAD", "branch --list", "ls-files --stage", "stash list"]
        .iter()
        .map(|args| git(dir, &args.split(' ').collect::<Vec<_>>()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A repository with a commit, a second branch, a staged file and a stash entry.
fn make_repository(env: &TestEnv) {
    let dir = &env.project;
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "start"]);
    git(dir, &["branch", "feature"]);
    std::fs::write(dir.join("config.txt"), "a=stashed\n").unwrap();
    git(dir, &["stash", "-q"]);
    env.write("staged.txt", "staged\n");
    git(dir, &["add", "staged.txt"]);
}

/// Types `text` and Enter at the prompt (once the turn before has ended: typed earlier, a line
/// would be queued behind the turn, which is not what these tests are about).
fn type_line(tmux: &Tmux, text: &str) {
    tmux.wait_for_prompt();
    tmux.type_text(text);
    tmux.keys(&["Enter"]);
}

/// Two turns change the project by every means; `/rewind` (picker) two turns back with both
/// code and conversation restores each file, removes what bash created, leaves node_modules and
/// git alone, and the next request carries only the new prompt.
#[test]
fn rewind_two_turns_back_restores_files_by_every_tool_and_the_conversation() {
    let model = FakeModel::start();
    model.push(tool_reply("r1", "read_file", json!({"path": "notes.txt"})));
    model.push(tool_reply("w1", "write_file", json!({"path": "notes.txt", "content": "rewritten\n"})));
    model.push(bash(
        "b1",
        "sed -i 's/a=1/a=2/' config.txt && rm doomed.txt && echo new > created.txt && mkdir -p newdir \
         && echo x > newdir/f.txt && echo junk > node_modules/pkg/new.js && printf tail >> blob.bin",
    ));
    model.push(text_reply("Turn one done."));
    model.push(bash("b2", "echo more >> notes.txt"));
    model.push(text_reply("Turn two done."));
    model.push(text_reply("Fresh start."));
    let env = project("rewind-two", &model);
    let with_git = git_available();
    if with_git {
        make_repository(&env);
    }
    let git_before = with_git.then(|| git_state(&env.project));
    let tmux = Tmux::start(&env, &["--mode", "bypass"], &[]);
    tmux.wait_for_prompt();
    type_line(&tmux, "first task");
    tmux.wait_for("Turn one done.");
    assert_eq!(read(&env, "config.txt").as_deref(), Some("a=2\n"));
    assert_eq!(read(&env, "created.txt").as_deref(), Some("new\n"));
    type_line(&tmux, "second task");
    tmux.wait_for("Turn two done.");
    assert_eq!(read(&env, "notes.txt").as_deref(), Some("rewritten\nmore\n"));

    type_line(&tmux, "/rewind");
    let screen = tmux.wait_for("rewind to before:");
    assert!(screen.contains("second task"), "{screen}");
    assert!(screen.contains("first task"), "{screen}");
    tmux.keys(&["Down", "Enter"]);
    let screen = tmux.wait_for("restore [b]oth code and conversation");
    assert!(screen.contains("rewind to before turn 1 (first task)"), "{screen}");
    assert!(screen.contains("remove, created since"), "{screen}");
    tmux.keys(&["b"]);
    tmux.wait_for("(conversation rewound to before turn 1");
    tmux.wait_for("› first task");

    assert_eq!(read(&env, "notes.txt").as_deref(), Some(NOTES));
    assert_eq!(read(&env, "config.txt").as_deref(), Some("a=1\n"));
    assert_eq!(read(&env, "doomed.txt").as_deref(), Some("keep me\n"));
    assert_eq!(read(&env, "created.txt"), None);
    assert!(!env.project.join("newdir").exists(), "a directory bash created is gone with its file");
    assert_eq!(std::fs::read(env.project.join("blob.bin")).unwrap(), binary_blob(), "the 5 MB binary is back");
    assert_eq!(read(&env, "node_modules/pkg/new.js").as_deref(), Some("junk\n"), "ignored files are never deleted");
    assert_eq!(read(&env, "node_modules/pkg/index.js").as_deref(), Some("ignored\n"));
    let store = env.project.join(".mewcode/checkpoints");
    let stored = walk_names(&store);
    assert!(!stored.iter().any(|name| name.contains("node_modules")), "{stored:?}");
    if let Some(before) = git_before {
        assert_eq!(git_state(&env.project), before, "checkpoints and rewinds never touch git");
    }

    // The rewound prompt waits in the input line; Ctrl-U clears it for another.
    tmux.keys(&["C-u"]);
    type_line(&tmux, "third task");
    tmux.wait_for("Fresh start.");
    let sent = messages(&model, 6);
    assert_eq!(sent.len(), 1, "only the new prompt after a rewind to before turn 1: {sent:?}");
    assert!(sent[0].to_string().contains("third task"), "{sent:?}");
}

/// Every file name under `dir` (recursively), for checking what the store holds.
fn walk_names(dir: &Path) -> Vec<String> {
    let mut names = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return names };
    for entry in entries.flatten() {
        let path = entry.path();
        names.push(path.display().to_string());
        if path.is_dir() {
            names.extend(walk_names(&path));
        }
    }
    names
}

/// `/undo` puts back the last turn's changes; `/undo` again undoes that.
#[test]
fn undo_puts_back_the_last_turn_and_undo_again_redoes_it() {
    let model = FakeModel::start();
    model.push(tools_reply(&[
        ("r1", "read_file", json!({"path": "notes.txt"})),
        ("c1", "write_file", json!({"path": "fresh.txt", "content": "fresh\n"})),
    ]));
    model.push(tool_reply(
        "e1",
        "edit_file",
        json!({"path": "notes.txt", "old_string": "line two", "new_string": "LINE 2"}),
    ));
    model.push(text_reply("Edited."));
    let env = project("rewind-undo", &model);
    let tmux = Tmux::start(&env, &["--mode", "acceptEdits"], &[]);
    tmux.wait_for_prompt();
    type_line(&tmux, "edit the notes");
    tmux.wait_for("Edited.");
    assert_eq!(read(&env, "notes.txt").as_deref(), Some("my notes\nLINE 2\nline three\n"));
    type_line(&tmux, "/undo");
    tmux.wait_for("(/undo puts the files back");
    assert_eq!(read(&env, "notes.txt").as_deref(), Some(NOTES));
    assert_eq!(read(&env, "fresh.txt"), None);
    type_line(&tmux, "/undo");
    let screen = tmux.wait_until("a second undo", |screen| screen.matches("(/undo puts the files back").count() == 2);
    assert!(screen.contains("undo the rewind to before turn 1"), "{screen}");
    assert_eq!(read(&env, "notes.txt").as_deref(), Some("my notes\nLINE 2\nline three\n"));
    assert_eq!(read(&env, "fresh.txt").as_deref(), Some("fresh\n"));
}

/// `/diff` shows what the session changed, by a tool and by a command, in a git repository and
/// outside one alike.
#[test]
fn diff_shows_the_session_changes_with_and_without_git() {
    for with_git in [false, true] {
        if with_git && !git_available() {
            continue;
        }
        let model = FakeModel::start();
        model.push(tool_reply("w1", "write_file", json!({"path": "added.txt", "content": "brand new\n"})));
        model.push(bash("b1", "sed -i 's/line two/line 2/' notes.txt"));
        model.push(text_reply("Changed."));
        let env = project(if with_git { "rewind-diff-git" } else { "rewind-diff" }, &model);
        if with_git {
            make_repository(&env);
        }
        let tmux = Tmux::start(&env, &["--mode", "bypass"], &[]);
        tmux.wait_for_prompt();
        type_line(&tmux, "change things");
        tmux.wait_for("Changed.");
        type_line(&tmux, "/diff");
        let screen = tmux.wait_for("changed in this session");
        for line in ["2 files changed in this session: +2 −1", "+++ b/added.txt", "+brand new", "-line two", "+line 2"]
        {
            assert!(screen.contains(line), "git={with_git}: missing {line:?} in:\n{screen}");
        }
    }
}

/// A file changed by hand after the turn is not overwritten without a question, and `k` keeps it.
#[test]
fn rewind_asks_about_files_changed_by_hand_and_keeps_them() {
    let model = FakeModel::start();
    model.push(tool_reply("w1", "write_file", json!({"path": "a.txt", "content": "agent\n"})));
    model.push(tool_reply("w2", "write_file", json!({"path": "b.txt", "content": "agent\n"})));
    model.push(text_reply("Written."));
    let env = project("rewind-hand", &model);
    let tmux = Tmux::start(&env, &["--mode", "acceptEdits"], &[]);
    tmux.wait_for_prompt();
    type_line(&tmux, "write two files");
    tmux.wait_for("Written.");
    tmux.wait_for_prompt();
    env.write("a.txt", "by hand\n");
    type_line(&tmux, "/rewind 1");
    tmux.wait_for("restore [b]oth code and conversation");
    tmux.keys(&["c"]);
    let screen = tmux.wait_for("[o]verwrite them too, or [k]eep them?");
    assert!(screen.contains("changed outside mewcode since then (1): a.txt"), "{screen}");
    tmux.keys(&["k"]);
    tmux.wait_for("(/undo puts the files back");
    assert_eq!(read(&env, "a.txt").as_deref(), Some("by hand\n"));
    assert_eq!(read(&env, "b.txt"), None);
}

/// `mewcode rewind` for scripts: the list as JSON, a code-only restore, `undo`, and a
/// conversation rewind that `--continue` goes on from.
#[test]
fn the_cli_lists_restores_undoes_and_rewinds_the_conversation() {
    let model = FakeModel::start();
    model.push(tool_reply("r1", "read_file", json!({"path": "notes.txt"})));
    model.push(tool_reply("w1", "write_file", json!({"path": "notes.txt", "content": "rewritten\n"})));
    model.push(text_reply("One."));
    model.push(bash("b1", "rm doomed.txt"));
    model.push(text_reply("Two."));
    model.push(text_reply("Three."));
    let env = project("rewind-cli", &model);
    for prompt in ["first", "second"] {
        let run = env.run(&["-p", prompt, "--mode", "bypass"]);
        assert_eq!(run.code, 0, "{run:?}");
    }
    let session = env.run(&["sessions", "--json"]);
    let sessions: Value = serde_json::from_str(&session.stdout).unwrap();
    // Each -p run is its own session; the second one is the latest.
    assert_eq!(sessions.as_array().unwrap().len(), 2, "{sessions}");
    let first_id = sessions[1]["id"].as_str().unwrap().to_string();

    let list = env.run(&["rewind", "--resume", &first_id, "--json"]);
    assert_eq!(list.code, 0, "{list:?}");
    let listed: Value = serde_json::from_str(&list.stdout).unwrap();
    assert_eq!(listed["points"][0]["turn"], 1, "{listed}");
    assert_eq!(listed["points"][0]["changed"], json!(["notes.txt"]), "{listed}");

    let latest = env.run(&["rewind", "1", "--code"]);
    assert_eq!(latest.code, 0, "{latest:?}");
    assert_eq!(read(&env, "doomed.txt").as_deref(), Some("keep me\n"), "the latest session is the default");

    let code = env.run(&["rewind", "--resume", &first_id, "1", "--code"]);
    assert_eq!(code.code, 0, "{code:?}");
    assert!(code.stdout.contains("put back 1 file: notes.txt"), "{code:?}");
    assert_eq!(read(&env, "notes.txt").as_deref(), Some(NOTES));
    let undo = env.run(&["rewind", "--resume", &first_id, "undo"]);
    assert_eq!(undo.code, 0, "{undo:?}");
    assert_eq!(read(&env, "notes.txt").as_deref(), Some("rewritten\n"));

    env.write("notes.txt", "by hand\n");
    let refused = env.run(&["rewind", "--resume", &first_id, "1"]);
    assert_eq!(refused.code, 2, "{refused:?}");
    assert!(refused.stderr.contains("--keep-changed"), "{refused:?}");
    assert_eq!(read(&env, "notes.txt").as_deref(), Some("by hand\n"));
    let both = env.run(&["rewind", "--resume", &first_id, "1", "--overwrite-changed"]);
    assert_eq!(both.code, 0, "{both:?}");
    assert_eq!(read(&env, "notes.txt").as_deref(), Some(NOTES));
    assert!(both.stdout.contains("conversation rewound: 0 messages kept"), "{both:?}");

    let again = env.run(&["-p", "anew", "--resume", &first_id, "--mode", "bypass"]);
    assert_eq!(again.code, 0, "{again:?}");
    let sent = messages(&model, model.requests().len() - 1);
    assert_eq!(sent.len(), 1, "the rewound session continues from before turn 1: {sent:?}");
}

/// Bad requests are usage errors that change nothing.
#[test]
fn the_cli_refuses_what_it_cannot_do() {
    let env = TestEnv::new("rewind-usage");
    for (args, needle) in [
        (vec!["rewind", "zero"], "expected a turn number or undo"),
        (vec!["rewind", "--code"], "needs a TURN"),
        (vec!["rewind", "1", "--keep-changed", "--overwrite-changed"], "exclude each other"),
        (vec!["sessions", "--code"], "applies to mewcode rewind only"),
    ] {
        let run = env.run(&args);
        assert_eq!(run.code, 2, "{args:?}: {run:?}");
        assert!(run.stderr.contains(needle), "{args:?}: {run:?}");
    }
    let none = env.run(&["rewind"]);
    assert_eq!(none.code, 2, "{none:?}");
}
