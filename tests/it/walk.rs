//! grep and glob end to end (issue 11): the walk below an allowed search root checks every file
//! it opens or lists, as `read_file` would be checked. A cloned repository plants a link to a key
//! in HOME, a `.env` it does not ignore, and the user denies `Read(secret/**)`; in every mode the
//! scripted model asks for grep and glob, and the next request must carry neither their contents
//! nor their names — only a count of what was skipped.

use crate::support::script::anthropic;
use crate::support::{FakeModel, TestEnv};
use serde_json::Value;

const SKIPPED: &str = "files skipped: outside the project or protected";
/// Text that may only reach the model through a file the walk must leave out.
const FORBIDDEN: &[&str] =
    &["PRIVATE_KEY_MATERIAL", "ENV_SECRET_VALUE", "PLAN_SECRET", "fixture.txt", ".env", "plan.txt"];

/// A project with the three kinds of files to leave out, and mewcode set up to talk to `model`.
fn planted_env(label: &str, model: &FakeModel) -> TestEnv {
    let env = TestEnv::new(label);
    env.write_home(
        "config.yaml",
        &format!(
            "providers:\n  - {{name: fake, protocol: anthropic, model: m, api_key: k, base_url: \"{}\"}}\n",
            model.url()
        ),
    );
    env.write_home("settings.yaml", "permissions:\n  deny: [\"Read(secret/**)\"]\n");
    // HOME is the temp dir above the project (support/project.rs).
    let key = env.dir.path().join(".ssh/id_ed25519");
    std::fs::create_dir_all(key.parent().unwrap()).unwrap();
    std::fs::write(&key, "needle PRIVATE_KEY_MATERIAL\n").unwrap();
    // The session log lives in the project; ignored, as a real project would, so it is not searched.
    let ignore = env.write(".gitignore", ".mewcode/\n");
    // Older than the rest, so glob (newest first) lists it last.
    let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000);
    std::fs::File::options().write(true).open(ignore).unwrap().set_modified(old).unwrap();
    env.write("src/main.rs", "needle in main\n");
    env.write(".env", "needle=ENV_SECRET_VALUE\n");
    env.write("secret/plan.txt", "needle PLAN_SECRET\n");
    std::os::unix::fs::symlink(&key, env.project.join("src/fixture.txt")).unwrap();
    std::os::unix::fs::symlink(key.parent().unwrap(), env.project.join("keys")).unwrap();
    std::os::unix::fs::symlink("src", env.project.join("code")).unwrap();
    env
}

/// The tool results of the request after the tool turn, in call order, as (content, is_error).
fn results(model: &FakeModel) -> Vec<(String, bool)> {
    let requests = model.requests();
    let body: Value = requests[1].json.clone().unwrap();
    let mut results = Vec::new();
    for message in body["messages"].as_array().unwrap() {
        for block in message["content"].as_array().into_iter().flatten().filter(|block| block["type"] == "tool_result")
        {
            let content = match &block["content"] {
                Value::String(text) => text.clone(),
                Value::Array(parts) => parts.iter().filter_map(|part| part["text"].as_str()).collect(),
                _ => String::new(),
            };
            results.push((content, block["is_error"] == Value::Bool(true)));
        }
    }
    results
}

#[test]
fn grep_and_glob_never_show_links_out_sensitive_or_denied_files_in_any_mode() {
    for mode in ["default", "acceptEdits", "plan", "bypass"] {
        let model = FakeModel::start();
        model.push(anthropic(
            "",
            &[
                ("content", "grep", r#"{"pattern":"needle","output_mode":"content"}"#),
                ("files", "grep", r#"{"pattern":"needle"}"#),
                ("count", "grep", r#"{"pattern":"needle","output_mode":"count"}"#),
                ("list", "glob", r#"{"pattern":"**/*"}"#),
                ("denied-dir", "grep", r#"{"pattern":"needle","path":"secret"}"#),
                ("linked-in", "grep", r#"{"pattern":"needle","path":"code","output_mode":"content"}"#),
                ("linked-out", "grep", r#"{"pattern":"needle","path":"keys"}"#),
                ("linked-out-glob", "glob", r#"{"pattern":"*","path":"keys"}"#),
            ],
        ));
        model.push(anthropic("done", &[]));
        let env = planted_env(&format!("walk-{mode}"), &model);
        let run = env.run(&["-p", "search", "--mode", mode]);
        assert_eq!(run.code, 0, "{mode}: {}", run.stderr);
        assert_eq!(model.violations(), Vec::<String>::new());
        let results = results(&model);
        let note = format!("3 {SKIPPED}\n");
        let one_skipped = format!("1 {}\n", SKIPPED.replace("files", "file"));
        let expected = [
            (format!("src/main.rs:1:needle in main\n{note}"), false),
            (format!("src/main.rs\n{note}"), false),
            (format!("src/main.rs:1\n1 matching lines in 1 files\n{note}"), false),
            (format!("src/main.rs\n.gitignore\n{note}"), false),
            (format!("no matches for \"needle\"\n{one_skipped}"), false),
            // A link to a directory inside the project may be searched; the key link in it may not.
            (format!("code/main.rs:1:needle in main\n{one_skipped}"), false),
        ];
        assert_eq!(results[..6], expected, "{mode}");
        for (content, is_error) in &results[6..] {
            assert!(*is_error && content.starts_with("denied by sandbox: "), "{mode}: {content}");
        }
        for (content, _) in &results {
            for forbidden in FORBIDDEN {
                assert!(!content.contains(forbidden), "{mode}: {forbidden} reached the model: {content}");
            }
        }
    }
}

#[test]
fn grep_shows_a_sensitive_file_only_when_it_is_the_path_searched_and_the_engine_let_it() {
    for (mode, shown) in [("default", false), ("acceptEdits", false), ("plan", false), ("bypass", true)] {
        let model = FakeModel::start();
        model.push(anthropic("", &[("env", "grep", r#"{"pattern":"needle","path":".env","output_mode":"content"}"#)]));
        model.push(anthropic("done", &[]));
        let env = planted_env(&format!("walk-env-{mode}"), &model);
        let run = env.run(&["-p", "search", "--mode", mode]);
        assert_eq!(run.code, 0, "{mode}: {}", run.stderr);
        let (content, is_error) = results(&model).remove(0);
        if shown {
            assert_eq!((content.as_str(), is_error), (".env:1:needle=ENV_SECRET_VALUE\n", false), "{mode}");
        } else {
            // -p cannot ask: the engine's Ask for a sensitive file is a refusal.
            assert!(is_error && content.starts_with("needs approval: "), "{mode}: {content}");
        }
    }
}
