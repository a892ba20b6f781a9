//! Extra directories (issue 33) end to end, with the real binary and the scripted model:
//! `--add-dir ../lib` lets a read reach it and without it the read is refused; `:ro` refuses
//! writes there while a writable one takes them; the system prompt names them; a project's
//! `add_dirs:` adds nothing; commands see them the same way (a writable one writable but its
//! control paths not, a read-only one read-only), as the test's user and an unprivileged uid.

use crate::support::confined::{Case, users, who};
use crate::support::script::anthropic;
use crate::support::tmux::Tmux;
use crate::support::{FakeModel, Provider, TestEnv};
use serde_json::{Value, json};

/// The tool result of call `id` in request `index`.
fn tool_result(model: &FakeModel, index: usize, id: &str) -> String {
    let body = model.requests()[index].json.clone().unwrap();
    let blocks = body["messages"].as_array().unwrap().iter().filter_map(|message| message["content"].as_array());
    let block = blocks.flatten().find(|block| block["type"] == "tool_result" && block["tool_use_id"] == id).unwrap();
    block["content"].as_str().unwrap_or_default().to_string()
}

/// One tool call, then "done".
fn script(model: &FakeModel, name: &str, input: Value) {
    model.push(anthropic("", &[("c", name, &input.to_string())]));
    model.push(anthropic("done", &[]));
}

fn env_with_lib(label: &str, model: &FakeModel) -> TestEnv {
    let env = TestEnv::with_model(label, model, Provider::anthropic().model("m"));
    std::fs::create_dir_all(env.dir.path().join("lib")).unwrap();
    std::fs::write(env.dir.path().join("lib/util.py"), "def helper():\n    return 42\n").unwrap();
    env
}

#[test]
fn an_added_directory_can_be_read_and_without_it_the_read_is_refused() {
    let model = FakeModel::start();
    let env = env_with_lib("add-dir-read", &model);
    let lib = std::fs::canonicalize(env.dir.path().join("lib")).unwrap();
    script(&model, "read_file", json!({"path": "../lib/util.py"}));
    let run = env.run(&["-p", "read it", "--add-dir", "../lib:ro"]);
    assert_eq!((run.code, run.stdout.as_str()), (0, "done\n"), "{}", run.stderr);
    let result = tool_result(&model, 1, "c");
    assert!(result.contains("return 42"), "{result}");
    let system = model.requests()[0].json.clone().unwrap()["system"].to_string();
    let named =
        format!("Also reachable by the file tools and commands, by absolute path: {} (read-only)", lib.display());
    assert!(system.contains(&named), "{system}");
    // Without the flag: refused, and the system prompt names nothing.
    script(&model, "read_file", json!({"path": "../lib/util.py"}));
    let run = env.run(&["-p", "read it"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let result = tool_result(&model, 3, "c");
    assert!(result.starts_with("denied by sandbox: ../lib/util.py: path resolves outside the project"), "{result}");
    assert!(!model.requests()[2].json.clone().unwrap()["system"].to_string().contains("Also reachable"));
    // A grep in the added directory walks it.
    script(&model, "grep", json!({"pattern": "helper", "path": lib.display().to_string()}));
    let run = env.run(&["-p", "find it", "--add-dir", lib.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(tool_result(&model, 5, "c").contains("util.py"), "{}", tool_result(&model, 5, "c"));
}

#[test]
fn mewcode_check_judges_a_call_with_the_added_directories() {
    let env = TestEnv::new("add-dir-check");
    std::fs::create_dir_all(env.dir.path().join("lib")).unwrap();
    let input = json!({"path": "../lib/a.rs"}).to_string();
    let decide = |args: &[&str]| {
        let run = env.run(&[&["check", "Write", &input, "--mode", "acceptEdits"], args].concat());
        (run.code, run.stdout, run.stderr)
    };
    let (code, out, _) = decide(&["--add-dir", "../lib"]);
    assert!(code == 0 && out.contains(r#""decision":"allow""#), "{out}");
    let (code, out, _) = decide(&["--add-dir", "../lib:ro"]);
    assert!(code == 0 && out.contains(r#""decision":"deny""#) && out.contains("was added read-only"), "{out}");
    let (code, out, _) = decide(&[]);
    assert!(code == 0 && out.contains("outside the project"), "{out}");
    let (code, _, err) = decide(&["--add-dir", "../nowhere"]);
    assert!(code != 0 && err.contains("--add-dir: ../nowhere: No such file"), "{err}");
}

#[test]
fn status_in_the_repl_lists_the_added_directories() {
    let model = FakeModel::start();
    let env = env_with_lib("add-dir-status", &model);
    let lib = std::fs::canonicalize(env.dir.path().join("lib")).unwrap();
    let tmux = Tmux::start(&env, &["--add-dir", "../lib:ro"], &[]);
    tmux.wait_for_prompt();
    tmux.type_text("/status");
    tmux.keys(&["Enter"]);
    tmux.wait_for(&format!("added     {} (read-only, --add-dir)", lib.display()));
}

#[test]
fn writes_reach_a_writable_added_directory_and_are_refused_in_a_read_only_one() {
    let model = FakeModel::start();
    let env = env_with_lib("add-dir-write", &model);
    let new_file = env.dir.path().join("lib/new.py");
    script(&model, "write_file", json!({"path": "../lib/new.py", "content": "x = 1\n"}));
    let run = env.run(&["-p", "write", "--add-dir", "../lib:ro", "--mode", "bypass"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let result = tool_result(&model, 1, "c");
    assert!(
        result.starts_with("denied by sandbox: ../lib/new.py: ") && result.contains("was added read-only"),
        "{result}"
    );
    assert!(!new_file.exists());
    script(&model, "write_file", json!({"path": "../lib/new.py", "content": "x = 1\n"}));
    let run = env.run(&["-p", "write", "--add-dir", "../lib", "--mode", "acceptEdits"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let written = tool_result(&model, 3, "c");
    assert_eq!(std::fs::read_to_string(&new_file).ok().as_deref(), Some("x = 1\n"), "{written}");
    // The turn's checkpoint covered the added directory: rewinding its code removes the file.
    // Without the directory, the rewind says what it cannot reach and leaves it alone.
    let blind = env.run(&["rewind", "1", "--code"]);
    let lib = std::fs::canonicalize(env.dir.path().join("lib")).unwrap();
    let unreached = format!("cannot put back, outside what this run covers (1): {}", lib.display());
    assert!(blind.stdout.contains(&unreached), "{}{}", blind.stdout, blind.stderr);
    assert!(new_file.exists());
    let rewind = env.run(&["rewind", "1", "--code", "--add-dir", "../lib"]);
    assert_eq!(rewind.code, 0, "{}{}", rewind.stdout, rewind.stderr);
    assert!(!new_file.exists(), "the rewind left the added directory's new file: {}", rewind.stdout);
    // Self-protection holds there too: a hook file asks, so -p refuses it.
    std::fs::create_dir_all(env.dir.path().join("lib/.git/hooks")).unwrap();
    script(&model, "write_file", json!({"path": "../lib/.git/hooks/pre-commit", "content": "evil\n"}));
    let run = env.run(&["-p", "write", "--add-dir", "../lib", "--mode", "acceptEdits"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let result = tool_result(&model, 5, "c");
    assert!(result.starts_with("needs approval: writes to control files always ask"), "{result}");
    assert!(!env.dir.path().join("lib/.git/hooks/pre-commit").exists());
}

#[test]
fn bad_directories_stop_the_start_and_a_projects_add_dirs_add_nothing() {
    let model = FakeModel::start();
    let env = env_with_lib("add-dir-bad", &model);
    let run = env.run(&["-p", "hi", "--add-dir", "../missing"]);
    assert_ne!(run.code, 0);
    assert!(run.stderr.contains("--add-dir: ../missing: No such file or directory"), "{}", run.stderr);
    let run = env.run(&["-p", "hi", "--add-dir", "../mewcode-home"]);
    assert!(run.stderr.contains("holds mewcode's own home"), "{}", run.stderr);
    assert!(model.requests().is_empty(), "nothing was sent");
    env.write(".mewcode.yaml", "add_dirs: [../lib]\n");
    script(&model, "read_file", json!({"path": "../lib/util.py"}));
    let run = env.run(&["-p", "read it", "--trust"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("add_dirs is ignored in a project's config"), "{}", run.stderr);
    assert!(tool_result(&model, 1, "c").starts_with("denied by sandbox:"), "{}", tool_result(&model, 1, "c"));
    // The user's own config adds it; doctor lists it.
    let config = env.home.join("config.yaml");
    let yaml = std::fs::read_to_string(&config).unwrap() + "add_dirs: ['../lib:ro']\n";
    std::fs::write(&config, yaml).unwrap();
    let doctor = env.run(&["doctor"]);
    let lib = std::fs::canonicalize(env.dir.path().join("lib")).unwrap();
    let line = format!("  added:         {} (read-only, {})", lib.display(), config.display());
    assert!(doctor.stdout.contains(&line), "{}", doctor.stdout);
}

/// Commands see added directories as the file tools do: a writable one takes writes but not
/// into its control paths, a read-only one takes none, and one not added takes none.
#[test]
fn commands_see_added_directories_the_same_way() {
    for uid in users() {
        let Some(mut case) = Case::new("add-dir-confined", uid, "") else { continue };
        let (lib, docs) = (case.world.path().join("lib"), case.world.path().join("docs"));
        std::fs::create_dir_all(lib.join(".git/hooks")).unwrap();
        std::fs::create_dir_all(&docs).unwrap();
        let docs_ro = format!("{}:ro", docs.display());
        let args = ["-p", "go", "--mode", "bypass", "--add-dir", lib.to_str().unwrap(), "--add-dir", &docs_ro];
        let command = format!(
            "touch {lib}/made && echo made; touch {lib}/.git/hooks/pre-commit 2>&1; touch {docs}/made 2>&1; true",
            lib = lib.display(),
            docs = docs.display()
        );
        let (result, _) = case.run_with(&command, 20, &args);
        let user = who(uid);
        assert!(lib.join("made").exists(), "{user}: the writable added directory took no write: {result}");
        assert!(!lib.join(".git/hooks/pre-commit").exists(), "{user}: a control path was written: {result}");
        assert!(!docs.join("made").exists(), "{user}: the read-only added directory was written: {result}");
        assert!(result.contains("Read-only file system"), "{user}: {result}");
        // Not added: read-only like the rest of the machine.
        let (result, _) =
            case.run_with(&format!("touch {}/again 2>&1; true", lib.display()), 20, &["-p", "go", "--mode", "bypass"]);
        assert!(!lib.join("again").exists(), "{user}: a directory not added was written: {result}");
    }
}
