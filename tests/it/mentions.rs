//! `@path` as a person uses it: Tab completes the path, the file's content reaches the model
//! with the prompt (and counts as read, so the model may edit it at once), a directory is
//! listed, a denied file is refused on screen and never sent.

use crate::repl::{messages, text_reply, tool_reply};
use crate::support::tmux::Tmux;
use crate::support::{FakeModel, Provider, TestEnv};
use serde_json::json;

#[test]
fn tab_completes_a_mention_and_the_file_reaches_the_model_as_read() {
    let model = FakeModel::start();
    let edit = json!({ "path": "src/main.rs", "old_string": "old()", "new_string": "new()" });
    model.push(tool_reply("e1", "edit_file", edit));
    model.push(text_reply("Renamed."));
    let env = TestEnv::with_model("mention-file", &model, Provider::anthropic());
    env.write("src/main.rs", "fn main() {\n    old();\n}\n");
    env.write("src/lib.rs", "// the library\n");
    let tmux = Tmux::start(&env, &["--mode", "acceptEdits"], &[]);
    tmux.wait_for_prompt();
    tmux.type_text("rename the call in @src/ma");
    tmux.keys(&["Tab"]);
    tmux.wait_for("rename the call in @src/main.rs");
    tmux.type_text(" and look at @src/");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Renamed.");
    let screen = tmux.screen();
    assert!(screen.contains("@src/main.rs: attached (3 lines)"), "{screen}");
    assert!(screen.contains("@src/: directory listed"), "{screen}");
    let first = messages(&model, 0).last().unwrap().to_string();
    assert!(first.contains(r#"<mentioned-file path=\"src/main.rs\">"#), "{first}");
    assert!(first.contains("old();"), "{first}");
    assert!(first.contains("lib.rs\\nmain.rs"), "the directory listing: {first}");
    // The mention counted as a read: the edit went through without reading the file again.
    assert_eq!(std::fs::read_to_string(env.project.join("src/main.rs")).unwrap(), "fn main() {\n    new();\n}\n");
}

#[test]
fn a_mention_a_rule_denies_is_refused_and_not_sent() {
    let model = FakeModel::start();
    model.push(text_reply("Fine."));
    let env = TestEnv::with_model("mention-denied", &model, Provider::anthropic());
    env.write("secret.txt", "the launch codes\n");
    env.write(".mewcode/settings.yaml", "permissions:\n  deny:\n    - Read(secret.txt)\n");
    let tmux = Tmux::start(&env, &[], &[]);
    tmux.wait_for_prompt();
    tmux.type_text("summarise @secret.txt");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Fine.");
    assert!(tmux.screen().contains("@secret.txt: not attached"), "{}", tmux.screen());
    let sent = messages(&model, 0).last().unwrap().to_string();
    assert!(!sent.contains("launch codes"), "{sent}");
}
