//! Where the project is and what mewcode leaves in it (issue 18): the root is the git top level,
//! instructions come from the root down to the working directory, and nothing mewcode writes by
//! itself shows up in `git status`.

use crate::support::script::anthropic;
use crate::support::{FakeModel, Provider, Reply, TestEnv};
use std::path::Path;
use std::process::Command;

/// Runs git in `dir` with a hermetic config (no user or system files).
fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "init.defaultBranch=main"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("run git");
    assert!(output.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn in_a_monorepo_subdirectory_the_root_is_the_git_top_level_and_instructions_come_root_first() {
    let model = FakeModel::start();
    model.push(Reply::fixture("anthropic-text.sse"));
    let env = TestEnv::with_model("monorepo", &model, Provider::anthropic());
    git(&env.project, &["init", "-q"]);
    env.write("AGENTS.md", "Root rule: use tabs.\n");
    env.write("pkg/a/AGENTS.md", "Package rule: no panics.\n");
    let pkg = env.project.join("pkg/a");
    let output = env.command(&["-p", "hello"]).current_dir(&pkg).stdin(std::process::Stdio::null()).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let requests = model.requests();
    let system = requests[0].json.as_ref().unwrap()["system"].to_string();
    let root_at = system.find("Root rule: use tabs.").expect("the root's AGENTS.md is in the prompt");
    let pkg_at = system.find("Package rule: no panics.").expect("pkg/a's AGENTS.md is in the prompt");
    assert!(root_at < pkg_at, "root first, nearest last: {system}");
    assert!(system.contains("started in the subdirectory pkg/a"), "{system}");
    assert!(!pkg.join(".mewcode").exists(), "a .mewcode/ was created in the subdirectory");
    assert!(env.project.join(".mewcode/sessions").is_dir(), "the session lives at the root");
    // doctor says where the root is and which files were loaded.
    let output = env.command(&["doctor"]).current_dir(&pkg).stdin(std::process::Stdio::null()).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains(&format!("project root  {}  (git top level)", env.project.display())), "{stdout}");
    let listed = format!(
        "instruction files\n  {}  (loaded)\n  {}  (loaded)\n",
        env.project.join("AGENTS.md").display(),
        pkg.join("AGENTS.md").display()
    );
    assert!(stdout.contains(&listed), "{stdout}");
}

#[test]
fn outside_git_the_working_directory_is_the_root() {
    let model = FakeModel::start();
    model.push(Reply::fixture("anthropic-text.sse"));
    let env = TestEnv::with_model("not-git", &model, Provider::anthropic());
    env.write("AGENTS.md", "Outer rule.\n");
    env.write("sub/AGENTS.md", "Inner rule.\n");
    let sub = env.project.join("sub");
    let output = env.command(&["-p", "hello"]).current_dir(&sub).stdin(std::process::Stdio::null()).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let system = model.requests()[0].json.as_ref().unwrap()["system"].to_string();
    assert!(system.contains("Inner rule.") && !system.contains("Outer rule."), "{system}");
    assert!(sub.join(".mewcode/sessions").is_dir());
}

#[test]
fn an_instruction_files_imports_reach_the_system_prompt_from_inside_the_project_only() {
    let model = FakeModel::start();
    model.push(Reply::fixture("anthropic-text.sse"));
    let env = TestEnv::with_model("imports", &model, Provider::anthropic());
    env.write("AGENTS.md", "Follow @docs/style.md and @../outside.md.\n");
    env.write("docs/style.md", "Imported style rule.\n");
    std::fs::write(env.project.parent().unwrap().join("outside.md"), "Outside secret.\n").unwrap();
    let run = env.run(&["-p", "hello"]);
    assert_eq!(run.code, 0, "{run:?}");
    let system = model.requests()[0].json.as_ref().unwrap()["system"].to_string();
    assert!(system.contains("Follow @docs/style.md and @../outside.md.\\nImported style rule."), "{system}");
    assert!(!system.contains("Outside secret."), "{system}");
}

/// A fresh repository with one committed file, so `git status` starts empty.
fn fresh_repo(env: &TestEnv) {
    git(&env.project, &["init", "-q"]);
    env.write("notes.txt", "hello\n");
    git(&env.project, &["add", "-A"]);
    git(&env.project, &["commit", "-q", "-m", "start"]);
    assert_eq!(git(&env.project, &["status", "--porcelain"]), "");
}

#[test]
fn a_print_run_with_tool_calls_and_an_offload_leaves_git_status_empty() {
    let model = FakeModel::start();
    // Two reads, one large enough to be offloaded to the session's directory.
    model.push(anthropic(
        "Looking.",
        &[("call_1", "read_file", r#"{"path":"notes.txt"}"#), ("call_2", "read_file", r#"{"path":"big.txt"}"#)],
    ));
    model.push(anthropic("Done.", &[]));
    let env = TestEnv::with_model("git-clean-print", &model, Provider::anthropic());
    let text: String = (1..=1500).map(|n| format!("line {n:05} of a generated file that is far too big\n")).collect();
    env.write("big.txt", &text);
    fresh_repo(&env);
    let run = env.run(&["-p", "read the notes", "--output-format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let id =
        serde_json::from_str::<serde_json::Value>(&run.stdout).unwrap()["session_id"].as_str().unwrap().to_string();
    let session = env.project.join(".mewcode/sessions").join(&id);
    assert!(session.join("conversation.jsonl").is_file());
    assert!(session.join("tool-results").is_dir(), "the large output was offloaded");
    assert_eq!(git(&env.project, &["status", "--porcelain", "--untracked-files=all"]), "");
    // --continue still finds the session (they stay where they were).
    model.push(anthropic("Again.", &[]));
    let run = env.run(&["-p", "again", "--continue"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(git(&env.project, &["status", "--porcelain", "--untracked-files=all"]), "");
    // The team's shared settings stay committable.
    env.write(".mewcode/settings.yaml", "permissions:\n  deny: [\"Read(.env)\"]\n");
    assert_eq!(git(&env.project, &["status", "--porcelain", "--untracked-files=all"]), "?? .mewcode/settings.yaml\n");
}

#[test]
fn a_repl_session_leaves_git_status_empty() {
    let model = FakeModel::start();
    model.push(Reply::fixture("anthropic-text.sse"));
    let env = TestEnv::with_model("git-clean-repl", &model, Provider::anthropic());
    fresh_repo(&env);
    let tmux = crate::repl::start(&env, &[]);
    tmux.type_text("say hi");
    tmux.keys(&["Enter"]);
    tmux.wait_for("more casual way to say hi in Portuguese.");
    tmux.wait_for_prompt();
    tmux.keys(&["C-d"]);
    tmux.wait_for("[exited 0]");
    assert!(env.project.join(".mewcode/sessions").is_dir(), "the REPL logged its session");
    assert_eq!(git(&env.project, &["status", "--porcelain", "--untracked-files=all"]), "");
}

#[test]
fn a_first_run_with_only_the_projects_config_asks_the_trust_question_before_the_setup_guide() {
    let model = FakeModel::start();
    model.push(Reply::fixture("anthropic-text.sse"));
    // No user config at all: the only provider is the repository's.
    let env = TestEnv::new("first-run-trust");
    let config = format!(
        "providers:\n  - {{name: team, protocol: anthropic, model: team-model, api_key: k, base_url: \"{}\"}}\n",
        model.url()
    );
    env.write(".mewcode.yaml", &config);
    let tmux = crate::support::tmux::Tmux::start(&env, &[], &[]);
    let screen = tmux.wait_for("trust this project? [y/N]");
    assert!(screen.contains(&format!("provider team ({})", model.url())), "{screen}");
    assert!(!screen.contains("needs a model"), "{screen}");
    tmux.keys(&["y"]);
    tmux.wait_for_prompt();
    tmux.type_text("say hi");
    tmux.keys(&["Enter"]);
    tmux.wait_for("more casual way to say hi in Portuguese.");
    assert_eq!(model.requests()[0].json.as_ref().unwrap()["model"], "team-model");
    // Said no: the project's provider stays unused, and the setup guide explains what to do.
    let env = TestEnv::new("first-run-distrust");
    env.write(".mewcode.yaml", &config);
    let tmux = crate::support::tmux::Tmux::start(&env, &[], &[]);
    tmux.wait_for("trust this project? [y/N]");
    tmux.keys(&["n"]);
    let screen = tmux.wait_for("[exited 2]");
    assert!(screen.contains("mewcode needs a model"), "{screen}");
    assert_eq!(model.requests().len(), 1, "nothing was sent after a no");
}

#[test]
fn a_print_run_that_finds_no_model_says_the_projects_config_was_not_trusted() {
    let env = TestEnv::new("first-run-print");
    env.write(
        ".mewcode.yaml",
        "providers:\n  - {name: team, protocol: openai, model: m, base_url: \"http://127.0.0.1:9/v1\"}\n",
    );
    let run = env.run(&["-p", "hi"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("project config not trusted, so it is ignored: provider team"), "{}", run.stderr);
    assert!(run.stderr.contains("mewcode needs a model"), "{}", run.stderr);
}
