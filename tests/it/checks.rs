//! Checks after edits (issue 33) end to end, with the real binary and the scripted model: a
//! configured `python3 -m py_compile {file}` puts an edit's SyntaxError in the tool result of the
//! next request and a clean edit adds nothing; a check that hangs is reported as timed out (and
//! stream-json's `tool_end` carries the report); an untrusted project's checks do not run and
//! are listed where trust is asked; a check is confined like a command; doctor lists them.

use crate::support::confined::{Case, users, who};
use crate::support::script::anthropic;
use crate::support::tmux::Tmux;
use crate::support::{FakeModel, Provider, TestEnv};
use serde_json::{Value, json};

const PY_COMPILE: &str = "checks:\n  - {pattern: \"**/*.py\", command: \"python3 -m py_compile {file}\"}\n";

/// The tool result of call `id` in request `index`: (text, is_error).
fn tool_result(model: &FakeModel, index: usize, id: &str) -> (String, bool) {
    let body = model.requests()[index].json.clone().unwrap();
    let blocks = body["messages"].as_array().unwrap().iter().filter_map(|message| message["content"].as_array());
    let block = blocks.flatten().find(|block| block["type"] == "tool_result" && block["tool_use_id"] == id).unwrap();
    (block["content"].as_str().unwrap_or_default().to_string(), block["is_error"] == Value::Bool(true))
}

fn write_call(id: &str, path: &str, content: &str) -> (String, String, String) {
    (id.to_string(), "write_file".to_string(), json!({"path": path, "content": content}).to_string())
}

fn push_calls(model: &FakeModel, calls: &[(String, String, String)]) {
    for (id, name, input) in calls {
        model.push(anthropic("", &[(id, name, input)]));
    }
    model.push(anthropic("done", &[]));
}

#[test]
fn a_syntax_error_from_an_edit_comes_back_through_a_check_and_a_clean_edit_adds_nothing() {
    let model = FakeModel::start();
    let edit = |id: &str, old: &str, new: &str| {
        let input = json!({"path": "pkg/app.py", "old_string": old, "new_string": new}).to_string();
        (id.to_string(), "edit_file".to_string(), input)
    };
    push_calls(
        &model,
        &[
            write_call("w1", "pkg/app.py", "def total(xs):\n    return sum(xs)\n"),
            edit("e1", "return sum(xs)", "return sum(xs) + 0"),
            edit("e2", "return sum(xs) + 0", "return (sum(xs) + 0"),
            write_call("w2", "notes.txt", "not python\n"),
        ],
    );
    let env = TestEnv::with_model("checks-py", &model, Provider::anthropic().model("m").then(PY_COMPILE));
    let run = env.run(&["-p", "edit app.py", "--mode", "acceptEdits"]);
    assert_eq!((run.code, run.stdout.as_str()), (0, "done\n"), "{}", run.stderr);
    // The clean write and the clean edit: the tools' own results, nothing added.
    assert_eq!(tool_result(&model, 1, "w1"), ("created pkg/app.py (34 bytes, 2 lines)".to_string(), false));
    let clean = "edited pkg/app.py: 1 replacement (first at line 2)";
    assert_eq!(tool_result(&model, 2, "e1"), (clean.to_string(), false));
    // The broken edit: still a successful write, and the SyntaxError right under it.
    let (broken, is_error) = tool_result(&model, 3, "e2");
    assert!(!is_error, "the write succeeded: {broken}");
    let report = "\n\nCHECK FAILED: `python3 -m py_compile pkg/app.py` exited with code 1. The write itself \
                  succeeded; fix what the check reports. Its output:\n";
    assert!(broken.starts_with(&format!("{clean}{report}")), "{broken}");
    assert!(broken.contains("SyntaxError"), "{broken}");
    assert!(broken.contains("pkg/app.py"), "{broken}");
    // A file the pattern does not match runs no check.
    let (text, _) = tool_result(&model, 4, "w2");
    assert!(!text.contains("CHECK"), "{text}");
    assert_eq!(
        std::fs::read_to_string(env.project.join("pkg/app.py")).unwrap(),
        "def total(xs):\n    return (sum(xs) + 0\n"
    );
}

#[test]
fn a_check_that_hangs_is_reported_as_timed_out_and_stream_json_carries_the_report() {
    let model = FakeModel::start();
    push_calls(&model, &[write_call("w", "main.rs", "fn main() {}\n")]);
    let checks = "checks:\n  - {pattern: \"*.rs\", command: \"echo checking {file}; sleep 30\", timeout: 1}\n";
    let env = TestEnv::with_model("checks-timeout", &model, Provider::anthropic().model("m").then(checks));
    let started = std::time::Instant::now();
    let run = env.run(&["-p", "write it", "--mode", "acceptEdits", "--output-format", "stream-json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(started.elapsed() < std::time::Duration::from_secs(20), "the check was not stopped at its timeout");
    let (text, is_error) = tool_result(&model, 1, "w");
    assert!(!is_error, "{text}");
    assert!(
        text.contains(
            "CHECK FAILED: `echo checking main.rs; sleep 30` timed out after 1 s and was killed. The write itself \
             succeeded. Its output:\nchecking main.rs"
        ),
        "{text}"
    );
    let events: Vec<Value> = run.stdout.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    let end = events.iter().find(|event| event["type"] == "tool_end" && event["id"] == "w").unwrap();
    assert_eq!((end["output"].as_str(), end["is_error"].as_bool()), (Some(text.as_str()), Some(false)));
}

#[test]
fn an_untrusted_projects_checks_do_not_run_and_are_listed_until_it_is_trusted() {
    let model = FakeModel::start();
    let env = TestEnv::with_model("checks-trust", &model, Provider::anthropic().model("m"));
    env.write(".mewcode.yaml", "checks:\n  - {pattern: \"*.txt\", command: \"touch check-ran; exit 1\"}\n");
    push_calls(&model, &[write_call("w", "a.txt", "one\n")]);
    let run = env.run(&["-p", "write", "--mode", "acceptEdits"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains(
            "project config not trusted, so it is ignored: check `touch check-ran; exit 1` after writing *.txt"
        ),
        "{}",
        run.stderr
    );
    assert!(!env.project.join("check-ran").exists(), "an untrusted project's check ran");
    assert!(!tool_result(&model, 1, "w").0.contains("CHECK"));
    // The REPL's trust question lists it too.
    let tmux = Tmux::start(&env, &[], &[]);
    let screen = tmux.wait_for("trust this project? [y/N]");
    assert!(screen.contains("check `touch check-ran; exit 1` after writing *.txt"), "{screen}");
    drop(tmux);
    // Trusted, it runs.
    push_calls(&model, &[write_call("w", "b.txt", "two\n")]);
    let run = env.run(&["-p", "write", "--mode", "acceptEdits", "--trust"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(env.project.join("check-ran").exists(), "the trusted project's check did not run");
    let (text, _) = tool_result(&model, 3, "w");
    assert!(text.contains("CHECK FAILED: `touch check-ran; exit 1` exited with code 1"), "{text}");
}

#[test]
fn doctor_lists_the_checks_and_where_each_came_from() {
    let env = TestEnv::new("checks-doctor");
    env.write_home("config.yaml", &format!("{}{PY_COMPILE}", Provider::anthropic().config_yaml("http://127.0.0.1:9")));
    let run = env.run(&["doctor"]);
    let config = env.home.join("config.yaml").display().to_string();
    let line = format!("  **/*.py          python3 -m py_compile {{file}}  (timeout 30 s; from {config})");
    assert!(run.stdout.contains(&line), "{}", run.stdout);
    // A bad glob stops the start, naming the file and the key.
    env.write_home("config.yaml", "checks:\n  - {pattern: \"src/\", command: x}\n");
    let run = env.run(&["-p", "hi"]);
    assert_ne!(run.code, 0);
    assert!(run.stderr.contains(&format!("{config}: checks[0].pattern: \"src/\" names a directory")), "{}", run.stderr);
}

/// A check runs in the sandbox of the project's commands, whoever configured it: it cannot write
/// outside the project, and its failure says why.
#[test]
fn a_check_is_confined_like_a_command() {
    for uid in users() {
        let Some(case) = Case::new("checks-confined", uid, "") else { continue };
        let outside = case.world.path().join("outside.txt");
        let config = case.env.home.join("config.yaml");
        let mut yaml = std::fs::read_to_string(&config).unwrap();
        yaml.push_str(&format!(
            "checks:\n  - {{pattern: \"*.txt\", command: \"echo escaped > {} && echo inside > inside.txt\"}}\n",
            outside.display()
        ));
        std::fs::write(&config, yaml).unwrap();
        push_calls(&case.model, &[write_call("w", "a.txt", "one\n")]);
        let output = case.mewcode(&["-p", "write", "--mode", "acceptEdits"]).output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{}: {}", who(uid), String::from_utf8_lossy(&output.stderr));
        assert!(!outside.exists(), "{}: a check wrote outside the project", who(uid));
        let (text, _) = tool_result(&case.model, 1, "w");
        assert!(text.contains("CHECK FAILED: `echo escaped >"), "{}: {text}", who(uid));
        assert_eq!(std::fs::read_to_string(case.env.project.join("a.txt")).unwrap(), "one\n");
    }
}
