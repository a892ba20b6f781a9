//! The REPL on minimal consoles (SPEC §9): under a locale that is not UTF-8 every byte of ours
//! is ASCII (the raw output is logged with `pipe-pane`), keys that send escape sequences never
//! become a prompt under `TERM=dumb`, and the `/resume` picker leads with each session's first
//! prompt and how long ago it was written, one row each at 80 columns.

use crate::repl::{messages, text_reply, tool_reply};
use crate::support::tmux::{Pane, Tmux};
use crate::support::{FakeModel, Provider, Reply, TestEnv};
use serde_json::{Value, json};
use std::time::{Duration, SystemTime};

/// Waits until the last non-empty line is an empty prompt drawn with `mark`.
fn wait_for_prompt_mark(tmux: &Tmux, mark: &str) -> String {
    tmux.wait_until(&format!("an empty `{mark}` prompt"), |screen| {
        screen.lines().rev().find(|line| !line.trim().is_empty()).is_some_and(|line| line.trim_end() == mark)
    })
}

#[test]
fn lang_c_gets_pure_ascii_spinner_tool_lines_approval_and_picker() {
    let model = FakeModel::start();
    // The first answer waits until the spinner was seen, so it is drawn for certain.
    let (release_tx, release_rx) = crossbeam_channel::bounded::<()>(1);
    model.push(Reply::respond(move |_| {
        let _ = release_rx.recv_timeout(Duration::from_secs(20));
        tool_reply("call_1", "write_file", json!({"path": "notes.txt", "content": "first line\nsecond line\n"}))
    }));
    model.push(tool_reply("call_2", "bash", json!({"command": "rm missing-file.txt"})));
    model.push(text_reply("All done, the notes are written and the rest is fine."));
    let env = TestEnv::with_model("lang-c", &model, Provider::anthropic());
    // An unknown key: a warning in the banner.
    let config = std::fs::read_to_string(env.home.join("config.yaml")).unwrap();
    env.write_home("config.yaml", &config.replace("api_key: k,", "api_key: k, colour_scheme: solarized,"));
    let log = env.dir.path().join("pane.log");
    let pane = Pane { log: Some(log.clone()), ..Pane::default() };
    let tmux = Tmux::start_with(&env, &[], &[("LANG", "C")], pane);
    wait_for_prompt_mark(&tmux, ">");
    for (command, output) in [("/help", "leave mewcode"), ("/cost", "this session:"), ("/status", "tokens")] {
        tmux.type_text(command);
        tmux.keys(&["Enter"]);
        tmux.wait_for(output);
        wait_for_prompt_mark(&tmux, ">");
    }
    tmux.type_text("please write the notes file");
    tmux.keys(&["Enter"]);
    tmux.wait_for("waiting for the model");
    release_tx.send(()).unwrap();
    tmux.wait_for("[t] no, tell the model what to do >");
    tmux.keys(&["y"]);
    tmux.wait_until("the second approval", |screen| screen.contains("! bash needs your approval"));
    tmux.keys(&["y"]);
    tmux.wait_for("the rest is fine.");
    wait_for_prompt_mark(&tmux, ">");
    let history = tmux.history();
    tmux.type_text("/resume");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Up/Down move");
    tmux.keys(&["Escape"]);
    tmux.wait_for("(resume cancelled)");
    wait_for_prompt_mark(&tmux, ">");
    tmux.type_text("/exit");
    tmux.keys(&["Enter"]);
    tmux.wait_for("[exited 0]");
    // What the session showed, in its ASCII symbols.
    for shown in [
        "mewcode 0.1.0 | fake | test-model | mode default",
        "fake | test-model | ctx ",
        "unknown key",
        "! write_file needs your approval (",
        "[t] no, tell the model what to do > yes, once",
        "* write_file notes.txt  (",
        "* bash rm missing-file.txt  (",
        "  |_ ",
        "> please write the notes file",
    ] {
        assert!(history.contains(shown), "{shown:?} is not on the screen:\n{history}");
    }
    assert!(history.lines().any(|line| line.starts_with("! ") && line.contains("unknown key")), "{history}");
    let raw = std::fs::read(&log).unwrap();
    let text = String::from_utf8_lossy(&raw);
    assert!(text.contains("resume a session: type to filter | Up/Down move | Enter resumes"), "{text}");
    assert!(["| waiting", "/ waiting", "- waiting", "\\ waiting"].iter().any(|frame| text.contains(frame)), "{text}");
    let at = raw.iter().position(|&byte| byte >= 0x80);
    assert!(at.is_none(), "a byte >= 0x80 at {at:?}: {:?}", String::from_utf8_lossy(&raw[at.unwrap_or(0)..]));
    assert_eq!(std::fs::read_to_string(env.project.join("notes.txt")).unwrap(), "first line\nsecond line\n");
}

/// The text of every user message of every request the model received.
fn user_texts(model: &FakeModel) -> Vec<String> {
    (0..model.requests().len())
        .flat_map(|index| messages(model, index))
        .filter(|message| message["role"] == "user")
        .map(|message| match &message["content"] {
            Value::String(text) => text.clone(),
            Value::Array(blocks) => blocks.iter().filter_map(|block| block["text"].as_str()).collect(),
            other => other.to_string(),
        })
        .collect()
}

#[test]
fn term_dumb_keys_that_send_escape_sequences_never_reach_the_model() {
    let model = FakeModel::start();
    model.push(text_reply("Hello there."));
    let env = TestEnv::with_model("dumb-keys", &model, Provider::anthropic());
    let tmux = Tmux::start(&env, &[], &[("TERM", "dumb")]);
    tmux.wait_for_prompt();
    // Shift-Tab, then Enter: an empty line, nothing is sent.
    tmux.type_text("\x1b[Z");
    tmux.keys(&["Enter"]);
    let status_lines = |screen: &str| screen.lines().filter(|line| line.starts_with("fake · test-model · ctx")).count();
    tmux.wait_until("a second prompt", |screen| status_lines(screen) == 2);
    tmux.wait_for_prompt();
    // Function keys and arrows inside a prompt: only the words are sent.
    tmux.type_text("\x1bOPsay\x1b[1;5C hello\x1b[Z\x1b[15~");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Hello there.");
    tmux.wait_for_prompt();
    assert_eq!(model.requests().len(), 1, "only the prompt with words was sent");
    let texts = user_texts(&model);
    assert_eq!(texts, vec!["say hello".to_string()]);
    let bodies: Vec<String> =
        model.requests().iter().map(|request| request.json.as_ref().unwrap().to_string()).collect();
    assert!(bodies.iter().all(|body| !body.contains("\\u001b") && !body.contains("[Z")), "{bodies:?}");
}

#[test]
fn the_picker_row_at_80_columns_is_the_first_prompt_and_how_long_ago() {
    let model = FakeModel::start();
    model.push(text_reply("The listing is refactored."));
    let env = TestEnv::with_model("picker-row", &model, Provider::anthropic());
    let prompt = "refactor the session listing so the picker leads with the first prompt and a relative time";
    let run = env.run(&["-p", prompt]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // The session was last written two and a half hours ago.
    let sessions = env.project.join(".mewcode/sessions");
    let session = std::fs::read_dir(&sessions).unwrap().next().unwrap().unwrap().path();
    let log = std::fs::File::options().append(true).open(session.join("conversation.jsonl")).unwrap();
    log.set_modified(SystemTime::now() - Duration::from_secs(150 * 60)).unwrap();
    let pane = Pane { columns: 80, rows: 20, ..Pane::default() };
    let tmux = Tmux::start_with(&env, &["--resume"], &[], pane);
    let screen = tmux.wait_for("filter:");
    let row = screen.lines().find(|line| line.starts_with("› ")).unwrap_or_else(|| panic!("no row:\n{screen}"));
    // The title is the first prompt, cut to 50 characters when the session was saved; at 80
    // columns it is shown whole, with the time at the end of the same row.
    let title: String = prompt.chars().take(50).collect();
    assert!(row.starts_with(&format!("›   {title} ")), "{row:?}");
    assert!(row.ends_with("  2h ago"), "{row:?}");
    assert!(row.chars().count() < 80, "{row:?}");
    let title_row = screen.lines().position(|line| line.starts_with("› ")).unwrap();
    let next = screen.lines().nth(title_row + 1).unwrap_or("");
    assert!(next.trim().is_empty(), "the row did not wrap:\n{screen}");
}

/// Product files whose non-ASCII text is not chrome: the glyph table itself, the summary
/// prompt's headings for a Chinese-speaking user (the model reads them), and the quote marks
/// the denial reader recognises in command output.
const NON_ASCII_ALLOWED: &[&str] = &["glyphs.rs", "context/summary.rs", "confine/denials.rs"];

#[test]
fn no_product_string_outside_the_glyph_table_holds_a_non_ascii_symbol() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                files.push(path);
            }
        }
    }
    let mut found = Vec::new();
    for path in files {
        let rel = path.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
        let name = rel.rsplit('/').next().unwrap_or(&rel);
        let is_test =
            name == "tests.rs" || name.ends_with("_tests.rs") || rel.split('/').any(|part| part.starts_with("test_"));
        if is_test || NON_ASCII_ALLOWED.contains(&rel.as_str()) {
            continue;
        }
        for (number, line) in std::fs::read_to_string(&path).unwrap().lines().enumerate() {
            let code = if line.trim_start().starts_with("//") { "" } else { line.split(" //").next().unwrap_or(line) };
            if !code.is_ascii() {
                found.push(format!("src/{rel}:{}: {}", number + 1, line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "symbols the front ends print belong in src/glyphs.rs:\n{}", found.join("\n"));
}
