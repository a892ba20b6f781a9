//! Never lose the user's work (issue 29), end to end with the real binary and the scripted model:
//! a file the conversation has not read, or that changed since the agent read it, is not
//! overwritten; the agent's own writes keep a file fresh; and every applied change is shown — on
//! stream-json's `tool_end`, and on the REPL's screen under the tool's line.

use crate::repl::{text_reply, tool_reply};
use crate::support::script::anthropic;
use crate::support::tmux::Tmux;
use crate::support::{FakeModel, Provider, Reply, TestEnv};
use serde_json::{Value, json};

const NOTES: &str = "# notes\nbuy milk\ncall the plumber\n";

/// The stream-json lines of a run.
fn events(stdout: &str) -> Vec<Value> {
    stdout.lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

/// The `tool_end` event of call `id`.
fn tool_end(events: &[Value], id: &str) -> Value {
    events.iter().find(|event| event["type"] == "tool_end" && event["id"] == id).unwrap().clone()
}

#[test]
fn a_write_over_a_file_never_read_is_refused_and_the_file_is_intact() {
    let model = FakeModel::start();
    model.push(anthropic("", &[("w", "write_file", r#"{"path":"notes.txt","content":"one line\n"}"#)]));
    model.push(anthropic("I will read it first.", &[]));
    let env = TestEnv::with_model("rbw-unread", &model, Provider::anthropic());
    env.write("notes.txt", NOTES);
    let run = env.run(&["-p", "tidy my notes", "--mode", "acceptEdits", "--output-format", "stream-json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(env.project.join("notes.txt")).unwrap(), NOTES);
    let end = tool_end(&events(&run.stdout), "w");
    let refusal =
        "notes.txt exists and has not been read in this conversation: read it with read_file first, then write";
    assert_eq!((end["output"].as_str(), end["is_error"].as_bool()), (Some(refusal), Some(true)));
    assert!(end.get("diff").is_none(), "nothing was changed: {end}");
    assert_eq!(model.requests()[1].tool_results(), [refusal]);
    assert!(model.violations().is_empty(), "{:?}", model.violations());
}

/// The user adds a line while the model thinks: the fake server writes it when the request that
/// follows the read arrives, before it answers with the write.
#[test]
fn a_file_changed_between_the_read_and_the_write_is_refused_and_the_users_change_kept() {
    let model = FakeModel::start();
    let env = TestEnv::with_model("rbw-changed", &model, Provider::anthropic());
    env.write("notes.txt", NOTES);
    let notes = env.project.join("notes.txt");
    let with_the_users_line = format!("{NOTES}the user's new line\n");
    model.push(anthropic("", &[("r", "read_file", r#"{"path":"notes.txt"}"#)]));
    let typed = with_the_users_line.clone();
    model.push(Reply::respond(move |_| {
        std::fs::write(&notes, typed).unwrap();
        anthropic("", &[("w", "write_file", r##"{"path":"notes.txt","content":"# notes\nbuy milk\n"}"##)])
    }));
    model.push(anthropic("It changed; I will read it again.", &[]));
    let run = env.run(&["-p", "drop the plumber", "--mode", "bypass"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(env.project.join("notes.txt")).unwrap(), with_the_users_line);
    let results = model.requests()[2].tool_results();
    assert_eq!(
        results[1],
        "notes.txt changed on disk since you last read it (edited by the user or a command): read it again with \
         read_file, then make your change"
    );
    assert!(model.violations().is_empty(), "{:?}", model.violations());
}

#[test]
fn read_then_edit_then_edit_works_and_stream_json_carries_each_diff() {
    let model = FakeModel::start();
    model.push(anthropic("", &[("r", "read_file", r#"{"path":"notes.txt"}"#)]));
    let edit = |old: &str, new: &str| json!({"path": "notes.txt", "old_string": old, "new_string": new}).to_string();
    model.push(anthropic("", &[("e1", "edit_file", &edit("buy milk", "buy oat milk"))]));
    model.push(anthropic("", &[("e2", "edit_file", &edit("call the plumber", "fix the sink"))]));
    model.push(anthropic("Done.", &[]));
    let env = TestEnv::with_model("rbw-edits", &model, Provider::anthropic());
    env.write("notes.txt", NOTES);
    let run = env.run(&["-p", "update my notes", "--mode", "acceptEdits", "--output-format", "stream-json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(env.project.join("notes.txt")).unwrap(),
        "# notes\nbuy oat milk\nfix the sink\n"
    );
    let events = events(&run.stdout);
    let first = tool_end(&events, "e1");
    assert_eq!(first["is_error"], false, "{first}");
    assert_eq!(
        first["diff"],
        "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n # notes\n-buy milk\n+buy oat milk\n call the plumber\n"
    );
    assert_eq!(first["change"], json!({"path": "notes.txt", "created": false, "lines_added": 1, "lines_removed": 1}));
    let second = tool_end(&events, "e2");
    assert_eq!(second["is_error"], false, "{second}");
    assert!(second["diff"].as_str().unwrap().contains("-call the plumber\n+fix the sink\n"), "{second}");
    // Only writes carry a change.
    assert!(tool_end(&events, "r").get("diff").is_none());
}

/// A file the agent created is fresh without a read; stream-json says it was created.
#[test]
fn a_file_the_agent_wrote_can_be_edited_without_a_read() {
    let model = FakeModel::start();
    model.push(anthropic("", &[("w", "write_file", r#"{"path":"todo.txt","content":"one\n"}"#)]));
    model.push(anthropic("", &[("e", "edit_file", r#"{"path":"todo.txt","old_string":"one","new_string":"two"}"#)]));
    model.push(anthropic("Done.", &[]));
    let env = TestEnv::with_model("rbw-own", &model, Provider::anthropic());
    let run = env.run(&["-p", "make a list", "--mode", "acceptEdits", "--output-format", "stream-json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(env.project.join("todo.txt")).unwrap(), "two\n");
    let events = events(&run.stdout);
    let created = tool_end(&events, "w");
    assert_eq!(created["diff"], "--- /dev/null\n+++ b/todo.txt\n@@ -0,0 +1 @@\n+one\n");
    assert_eq!(created["change"]["created"], true);
    assert_eq!(tool_end(&events, "e")["is_error"], false);
}

/// acceptEdits: the edit runs without a question, and its diff is on screen under the tool line.
#[test]
fn an_edit_applied_without_a_question_shows_its_diff_in_the_repl() {
    let model = FakeModel::start();
    model.push(tool_reply("r", "read_file", json!({"path": "src/greet.rs"})));
    let input = json!({"path": "src/greet.rs", "old_string": "hello world", "new_string": "hello there"});
    model.push(tool_reply("e", "edit_file", input));
    model.push(text_reply("Greeting changed."));
    let env = TestEnv::with_model("rbw-repl", &model, Provider::anthropic());
    env.write("src/greet.rs", "fn greet() {\n    println!(\"hello world\");\n}\n");
    let tmux = Tmux::start(&env, &["--mode", "acceptEdits"], &[]);
    tmux.wait_for("mode acceptEdits");
    tmux.type_text("greet them differently");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Greeting changed.");
    assert!(!screen.contains("needs your approval"), "{screen}");
    let expected = [
        "● edit_file src/greet.rs",
        "  ⎿ edited src/greet.rs: 1 replacement (first at line 2)",
        "    @@ -1,3 +1,3 @@",
        "     fn greet() {",
        "    -    println!(\"hello world\");",
        "    +    println!(\"hello there\");",
        "     }",
    ];
    let lines: Vec<&str> = screen.lines().map(str::trim_end).collect();
    let at = lines.iter().position(|line| line.starts_with(expected[0])).unwrap_or_else(|| panic!("{screen}"));
    assert_eq!(lines[at + 1..at + expected.len()], expected[1..], "{screen}");
    // In colour, as the approval prompt colours it.
    let coloured = tmux.screen_with_escapes();
    assert!(coloured.contains("\x1b[31m-    println!(\"hello world\");"), "{coloured:?}");
    assert!(coloured.contains("\x1b[32m+    println!(\"hello there\");"), "{coloured:?}");
}
