//! Permissions and hooks of one run, as a script gives them: `--allowedTools` /
//! `--disallowedTools` (Claude Code's spelling and the kebab-case one), a `permissions:` block in
//! a `--config` file, the refusal of `-p` naming what would allow a call, and hooks of the user's
//! own config running as the user while a project's stay in the sandbox.

use crate::support::script::openai;
use crate::support::{FakeModel, Provider, TestEnv};

/// A model that runs `touch made` once, then ends the turn.
fn touch_turn(model: &FakeModel) {
    model.push(openai("", &[("a", "bash", r#"{"command":"touch made"}"#)]));
    model.push(openai("done", &[]));
}

#[test]
fn allowed_tools_let_one_run_touch_without_asking_and_the_refusal_without_it_names_the_flag_and_file() {
    let model = FakeModel::start();
    let env = TestEnv::with_model("run-perm-allowed", &model, Provider::openai().model("m"));
    touch_turn(&model);
    let refused = env.run(&["-p", "go"]);
    assert_eq!(refused.code, 0, "{}", refused.stderr);
    assert!(!env.project.join("made").exists(), "ran without approval");
    let result = &model.requests()[1].tool_results()[0];
    assert!(result.starts_with("needs approval: "), "{result}");
    assert!(result.contains("--allowedTools '"), "the flag is not named: {result}");
    let local = env.project.join(".mewcode/settings.local.yaml");
    let user = env.home.join("settings.yaml");
    assert!(result.contains(&local.display().to_string()), "the local settings file is not named: {result}");
    assert!(result.contains(&user.display().to_string()), "the user's settings file is not named: {result}");

    touch_turn(&model);
    let allowed = env.run(&["-p", "go", "--allowedTools", "Bash(touch *)"]);
    assert_eq!(allowed.code, 0, "{}", allowed.stderr);
    assert!(env.project.join("made").exists(), "--allowedTools did not allow the touch: {}", allowed.stderr);
    let result = &model.requests()[3].tool_results()[0];
    assert!(result.contains("exit code: 0"), "{result}");
    // For this run only: nothing was written to a settings file.
    assert!(!local.exists() && !user.exists());
    // `mewcode check` explains the same decision, naming the level.
    let check = env.run(&["check", "Bash", r#"{"command":"touch made"}"#, "--allowedTools", "Bash(touch *)"]);
    assert_eq!(check.code, 0, "{}", check.stderr);
    let decision: serde_json::Value = serde_json::from_str(&check.stdout).unwrap();
    assert_eq!((decision["decision"].as_str(), decision["level"].as_str()), (Some("allow"), Some("invocation")));
}

#[test]
fn disallowed_tools_refuse_a_read_even_in_bypass_mode_in_either_spelling() {
    let model = FakeModel::start();
    let env = TestEnv::with_model("run-perm-disallowed", &model, Provider::openai().model("m"));
    env.write("a.txt", "secret plan\n");
    for flag in ["--disallowedTools", "--disallowed-tools"] {
        model.push(openai("", &[("r", "read_file", r#"{"path":"a.txt"}"#)]));
        model.push(openai("done", &[]));
        let run = env.run(&["-p", "read a.txt", "--mode", "bypass", flag, "Read,Grep"]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let result = model.requests().last().unwrap().tool_results()[0].clone();
        assert!(result.starts_with("denied by rule (invocation)"), "{flag}: {result}");
        assert!(!result.contains("secret plan"), "{flag}: {result}");
    }
}

#[test]
fn a_permissions_block_in_a_config_file_allows_a_call_for_that_run() {
    let model = FakeModel::start();
    let env = TestEnv::with_model("run-perm-config", &model, Provider::openai().model("m"));
    let extra = env.dir.path().join("ci.yaml");
    std::fs::write(&extra, "permissions:\n  allow: [\"Bash(touch *)\"]\n").unwrap();
    touch_turn(&model);
    let run = env.run(&["-p", "go", "--config", extra.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stderr.contains("unknown key"), "{}", run.stderr);
    assert!(env.project.join("made").exists(), "the --config file's allow rule did not apply: {}", run.stderr);
    // In the user's own config.yaml the block is not where rules live: said, not silently used.
    let config = std::fs::read_to_string(env.home.join("config.yaml")).unwrap();
    env.write_home("config.yaml", &format!("{config}permissions:\n  allow: [\"Bash(touch *)\"]\n"));
    std::fs::remove_file(env.project.join("made")).unwrap();
    touch_turn(&model);
    let run = env.run(&["-p", "go"]);
    assert!(run.stderr.contains("permissions: ignored here"), "{}", run.stderr);
    assert!(!env.project.join("made").exists(), "config.yaml's permissions applied");
}

#[test]
fn a_bad_rule_is_a_usage_error_naming_the_flag() {
    let env = TestEnv::new("run-perm-bad");
    for (flag, rule) in
        [("--allowedTools", "Bash(git *"), ("--allowed-tools", "Read(x),Task(y)"), ("--disallowedTools", " ")]
    {
        let run = env.run(&["-p", "go", flag, rule]);
        assert_eq!(run.code, 2, "{flag} {rule:?}: {}", run.stderr);
        assert!(run.stderr.contains(flag), "{}", run.stderr);
    }
    let run = env.run(&["-p", "go", "--allowedTools", "Bash(git *"]);
    assert!(run.stderr.contains("\"Bash(git *\" is not a rule: unbalanced parentheses"), "{}", run.stderr);
    let run = env.run(&["sessions", "--allowedTools", "Edit"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
}

/// A PostToolUse hook appending to `~/<log>` (HOME is the test's temp dir, outside the project)
/// and touching a marker in the project, so a run shows whether the hook ran at all.
fn logging_hook(log: &str) -> String {
    format!(
        "hooks:\n  PostToolUse:\n    - hooks:\n        - {{type: command, command: 'touch hook-ran; echo ran >> ~/{log}'}}\n"
    )
}

#[test]
fn the_users_hook_writes_under_home_while_a_trusted_projects_hook_cannot() {
    let model = FakeModel::start();
    let env = TestEnv::with_model(
        "run-perm-hooks",
        &model,
        Provider::openai().model("m").then(&logging_hook("user-hook.log")),
    );
    env.write("a.txt", "a\n");
    model.push(openai("", &[("r", "read_file", r#"{"path":"a.txt"}"#)]));
    model.push(openai("done", &[]));
    let run = env.run(&["-p", "read a.txt"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let log = env.dir.path().join("user-hook.log");
    assert_eq!(std::fs::read_to_string(&log).unwrap_or_default(), "ran\n", "{}", run.stderr);

    if let Err(reason) = mewcode::integration::landlock_abi_version() {
        crate::support::skip::skip(&format!("no sandbox to confine a project's hook: {reason}"), false);
        return;
    }
    // The same hook from the project's own config, trusted: it runs, confined to the project.
    let config = std::fs::read_to_string(env.home.join("config.yaml")).unwrap();
    let without_hook = config.replace(&logging_hook("user-hook.log"), "");
    assert_ne!(config, without_hook);
    env.write_home("config.yaml", &without_hook);
    env.write(".mewcode.yaml", &logging_hook("project-hook.log"));
    std::fs::remove_file(env.project.join("hook-ran")).unwrap();
    model.push(openai("", &[("r", "read_file", r#"{"path":"a.txt"}"#)]));
    model.push(openai("done", &[]));
    let run = env.run(&["-p", "read a.txt", "--trust"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(env.project.join("hook-ran").exists(), "the project's hook did not run: {}", run.stderr);
    assert!(!env.dir.path().join("project-hook.log").exists(), "a project's hook wrote outside the project");
}
