//! The user's home directory and own files (issue 31). Started in `~`, the project's `.mewcode`
//! is the user's own `~/.mewcode`: the user's settings are read once as the user's (no "project"
//! layer that waits for trust), the sessions are kept there, and no `.gitignore` is written into
//! it.

use crate::support::script::openai;
use crate::support::{FakeModel, Provider, TestEnv};
use std::path::Path;

/// A model that runs `touch made` once, then ends the turn.
fn touch_turn(model: &FakeModel) {
    model.push(openai("", &[("a", "bash", r#"{"command":"touch made"}"#)]));
    model.push(openai("done", &[]));
}

#[test]
fn in_the_home_directory_the_users_settings_apply_once_and_no_gitignore_lands_in_mewcode_home() {
    let model = FakeModel::start();
    let env = TestEnv::new("home-dir");
    // HOME is the temp dir itself (`TestEnv::command`); MEWCODE_HOME is left to its default.
    let home = env.dir.path().to_path_buf();
    let user_dir = home.join(".mewcode");
    std::fs::create_dir_all(&user_dir).unwrap();
    std::fs::write(user_dir.join("config.yaml"), Provider::openai().model("m").config_yaml(&model.url())).unwrap();
    std::fs::write(user_dir.join("settings.yaml"), "permissions:\n  allow: [\"Bash(touch *)\"]\n").unwrap();
    touch_turn(&model);
    let run = |args: &[&str], mewcode_home: Option<&Path>| {
        let mut command = env.command(args);
        command.current_dir(&home).stdin(std::process::Stdio::null());
        match mewcode_home {
            Some(dir) => command.env("MEWCODE_HOME", dir),
            None => command.env_remove("MEWCODE_HOME"),
        };
        command.output().unwrap()
    };
    let output = run(&["-p", "go"], None);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("trust"), "the user's own settings wait for trust: {stderr}");
    assert!(home.join("made").exists(), "the user's allow rule did not apply: {stderr}");
    assert!(user_dir.join("sessions").is_dir(), "the session is not kept in ~/.mewcode/sessions");
    assert!(!user_dir.join(".gitignore").exists(), "a .gitignore was written into ~/.mewcode");

    // The same with MEWCODE_HOME spelt another way to the same directory: compared resolved.
    std::fs::create_dir_all(home.join("sub")).unwrap();
    let spelt = home.join("sub/../.mewcode");
    let output = run(&["doctor"], Some(&spelt));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("your home directory: its .mewcode is the user dir"), "{stdout}");
    let settings_lines = stdout.lines().filter(|line| line.contains(".mewcode/settings.yaml")).count();
    assert_eq!(settings_lines, 1, "the user's settings are listed twice: {stdout}");
    assert!(!user_dir.join(".gitignore").exists(), "doctor wrote a .gitignore into ~/.mewcode");

    // A project below the home directory keeps its own .mewcode, with its .gitignore.
    let project = home.join("work");
    std::fs::create_dir_all(&project).unwrap();
    model.push(openai("hello", &[]));
    let output = env.command(&["-p", "hi"]).current_dir(&project).env_remove("MEWCODE_HOME").output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(project.join(".mewcode/.gitignore").is_file(), "a project's .mewcode lost its .gitignore");
}

#[test]
fn in_the_home_directory_the_users_own_commands_are_loaded_as_hers_without_a_trust_warning() {
    let model = FakeModel::start();
    let env = TestEnv::new("home-dir-commands");
    let home = env.dir.path().to_path_buf();
    let user_dir = home.join(".mewcode");
    std::fs::create_dir_all(user_dir.join("commands")).unwrap();
    std::fs::write(user_dir.join("config.yaml"), Provider::openai().model("m").config_yaml(&model.url())).unwrap();
    std::fs::write(user_dir.join("commands/standup.md"), "---\ndescription: Write my standup\n---\nStandup.").unwrap();
    let home_text = home.display().to_string();
    let user_dir_text = user_dir.display().to_string();
    // The REPL starts in the home directory, with MEWCODE_HOME its default `~/.mewcode`.
    let tmux = crate::support::tmux::Tmux::start(&env, &["--cwd", &home_text], &[("MEWCODE_HOME", &user_dir_text)]);
    let banner = tmux.wait_for_prompt();
    assert!(!banner.contains("trust"), "the user's own commands wait for trust: {banner}");
    tmux.type_text("/help");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Write my standup");
    assert!(screen.contains("~/.mewcode/commands/standup.md"), "not listed as the user's own: {screen}");
}
