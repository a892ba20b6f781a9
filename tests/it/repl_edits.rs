//! REPL approvals of real edits: the diff preview, and `y` / `n` / `a` / `t` answered with one
//! key, with "always" granting file edits for the session (said before and after the key), and
//! the line typed after `t` reaching the model as the refusal. The model reads the file first: a
//! file it has not read is refused before anyone is asked (`read_before_write.rs`).

use crate::repl::{messages, start, text_reply, tool_reply};
use crate::support::{FakeModel, Provider, TestEnv};
use serde_json::{Value, json};

const ORIGINAL: &str = "fn greet() {\n    println!(\"hello world\");\n}\n";
const EDITED: &str = "fn greet() {\n    println!(\"hello there\");\n}\n";

/// Runs one turn whose model asks to edit `src/greet.rs`, answers the approval with `key`, and
/// returns the tool result the model received next and the model server.
fn edit_answered_with(label: &str, key: &str) -> (Value, FakeModel, crate::support::TestEnv) {
    let model = FakeModel::start();
    let input = json!({"path": "src/greet.rs", "old_string": "hello world", "new_string": "hello there"});
    model.push(tool_reply("r1", "read_file", json!({"path": "src/greet.rs"})));
    model.push(tool_reply("t1", "edit_file", input));
    model.push(text_reply("All done."));
    let env = TestEnv::with_model(label, &model, Provider::anthropic());
    env.write("src/greet.rs", ORIGINAL);
    let tmux = start(&env, &[]);
    tmux.type_text("greet them differently");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("[y] yes once  [a] always  [n] no");
    assert!(screen.contains("⚠ edit_file needs your approval (Edit)"), "{screen}");
    assert!(screen.contains("  path: src/greet.rs"), "{screen}");
    for line in [
        "--- a/src/greet.rs",
        "+++ b/src/greet.rs",
        "@@ -1,3 +1,3 @@",
        "-    println!(\"hello world\");",
        "+    println!(\"hello there\");",
    ] {
        assert!(screen.contains(line), "missing {line:?} in:\n{screen}");
    }
    tmux.keys(&[key]);
    tmux.wait_for("All done.");
    (last_tool_result(&model, 2), model, env)
}

/// The first tool result of the last message of the `index`th request.
fn last_tool_result(model: &FakeModel, index: usize) -> Value {
    messages(model, index).last().unwrap()["content"][0].clone()
}

/// The text of a tool result block (a string or text blocks).
fn result_text(result: &Value) -> String {
    result["content"]
        .as_str()
        .map(String::from)
        .unwrap_or_else(|| result["content"][0]["text"].as_str().unwrap().to_string())
}

#[test]
fn y_applies_the_edit_once() {
    let (result, _model, env) = edit_answered_with("edit-yes", "y");
    assert_eq!(result["type"], "tool_result");
    assert_ne!(result["is_error"], true, "{result}");
    assert_eq!(std::fs::read_to_string(env.project.join("src/greet.rs")).unwrap(), EDITED);
}

#[test]
fn n_refuses_the_edit_and_the_model_is_told_denied_by_user() {
    let (result, _model, env) = edit_answered_with("edit-no", "n");
    assert_eq!(result["is_error"], true, "{result}");
    let content = result_text(&result);
    assert!(content.starts_with("denied by user: the user declined this edit_file call"), "{content}");
    assert_eq!(std::fs::read_to_string(env.project.join("src/greet.rs")).unwrap(), ORIGINAL);
}

/// `t` refuses, and the line typed next (edited with Backspace) is what the model reads.
#[test]
fn t_refuses_and_the_model_reads_what_to_do_instead() {
    let model = FakeModel::start();
    let input = json!({"path": "src/greet.rs", "old_string": "hello world", "new_string": "hello there"});
    model.push(tool_reply("r1", "read_file", json!({"path": "src/greet.rs"})));
    model.push(tool_reply("t1", "edit_file", input));
    model.push(text_reply("Understood."));
    let env = TestEnv::with_model("edit-tell", &model, Provider::anthropic());
    env.write("src/greet.rs", ORIGINAL);
    let tmux = start(&env, &[]);
    tmux.type_text("greet them differently");
    tmux.keys(&["Enter"]);
    tmux.wait_for("[t] no, tell the model what to do");
    tmux.keys(&["t"]);
    tmux.wait_for("tell the model what to do instead (Enter sends, empty is a plain no) ›");
    tmux.type_text("say hello mewcode, not thereX");
    tmux.keys(&["BSpace"]);
    tmux.wait_for("not there");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Understood.");
    let result = last_tool_result(&model, 2);
    assert_eq!(result["is_error"], true, "{result}");
    assert_eq!(result_text(&result), "denied by user: say hello mewcode, not there");
    assert_eq!(std::fs::read_to_string(env.project.join("src/greet.rs")).unwrap(), ORIGINAL);
}

/// `a` applies the edit and grants file edits for the rest of the session, as Claude Code's
/// "allow all edits during this session" does: the question says so, nothing is saved, a second
/// identical call runs without asking, and `/permissions` lists the grant, whose removal makes
/// edits ask again.
#[test]
fn a_applies_the_edit_and_grants_edits_for_the_session_only() {
    let model = FakeModel::start();
    let input = json!({"path": "src/greet.rs", "old_string": "hello world", "new_string": "hello there"});
    let back = json!({"path": "src/greet.rs", "old_string": "hello there", "new_string": "hello world"});
    model.push(tool_reply("r1", "read_file", json!({"path": "src/greet.rs"})));
    model.push(tool_reply("t1", "edit_file", input.clone()));
    model.push(text_reply("First done."));
    // The agent's own edit kept the file fresh, so these need no read.
    model.push(tool_reply("t2", "edit_file", back));
    model.push(text_reply("Second done."));
    model.push(tool_reply("t3", "edit_file", input));
    model.push(text_reply("Third asked."));
    let env = TestEnv::with_model("edit-always", &model, Provider::anthropic());
    env.write("src/greet.rs", ORIGINAL);
    let tmux = start(&env, &[]);
    tmux.type_text("greet them differently");
    tmux.keys(&["Enter"]);
    let question = tmux.wait_for("[y] yes once  [a] always  [n] no");
    let joined = question.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        joined.contains("a: always this session: file edits run without asking until you quit (nothing saved)"),
        "{question}"
    );
    tmux.keys(&["a"]);
    let screen = tmux.wait_for("First done.");
    let joined = screen.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(joined.contains("file edits run without asking for the rest of this session"), "{screen}");
    assert_eq!(std::fs::read_to_string(env.project.join("src/greet.rs")).unwrap(), EDITED);
    assert!(!env.project.join(".mewcode/settings.local.yaml").exists(), "nothing is saved");
    tmux.type_text("once more");
    tmux.keys(&["Enter"]);
    // No key is sent: had it asked again, this would time out waiting on the approval.
    tmux.wait_for("Second done.");
    let second_result = messages(&model, 4).last().unwrap()["content"][0].clone();
    let text = second_result.to_string();
    assert!(!text.contains("denied") && !text.contains("needs approval"), "{text}");
    assert_eq!(std::fs::read_to_string(env.project.join("src/greet.rs")).unwrap(), ORIGINAL);
    // The grant is listed for this session; removing it makes the next edit ask.
    tmux.wait_for_prompt();
    tmux.type_text("/permissions");
    tmux.keys(&["Enter"]);
    let listing = tmux.wait_for("files:");
    let line = listing.lines().find(|line| line.contains("file edits (Edit, Write)")).unwrap();
    assert!(line.ends_with("← this session (\"always\" to an edit)"), "{line:?}");
    let number = line.split_whitespace().next().unwrap();
    tmux.type_text(&format!("/permissions remove {number}"));
    tmux.keys(&["Enter"]);
    tmux.wait_for("removed the session's grant of file edits: edits ask again");
    tmux.type_text("and again");
    tmux.keys(&["Enter"]);
    tmux.wait_until("the edit asked again", |screen| {
        screen
            .lines()
            .rev()
            .find(|line| !line.trim().is_empty())
            .is_some_and(|line| line.ends_with("tell the model what to do ›"))
    });
    tmux.keys(&["n"]);
    tmux.wait_for("Third asked.");
}
