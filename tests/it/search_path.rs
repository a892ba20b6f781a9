//! PATH entries that are empty or relative never reach a program mewcode starts: with `bin` in
//! PATH, an allowed `git status`, a hook's `git` and the start-up look at the repository all run
//! the real git, never the project's own `bin/git`, and the start-up notice says what was left out.

use crate::support::script::anthropic;
use crate::support::{FakeModel, Provider, TestEnv};
use std::os::unix::fs::PermissionsExt;
use std::process::Command;

#[test]
fn a_relative_path_entry_never_runs_the_projects_own_git() {
    let model = FakeModel::start();
    model.push(anthropic("", &[("g1", "bash", r#"{"command":"git status"}"#)]));
    model.push(anthropic("clean", &[]));
    // A hook runs `git` too, through the host environment hooks get.
    let hooks = "hooks:\n  PostToolUse:\n    - matcher: Bash\n      hooks:\n        - {type: command, command: 'cat >/dev/null; git rev-parse --is-inside-work-tree > hook-saw.txt'}\n";
    let mut env = TestEnv::with_model("path-relative", &model, Provider::anthropic().model("m").then(hooks));
    env.write_home("settings.yaml", "permissions:\n  allow: [\"Bash(git status)\"]\n");
    let init = Command::new("git").args(["init", "-q"]).current_dir(&env.project).status().unwrap();
    assert!(init.success());
    let marker = env.project.join("hijacked");
    let fake_git = env.write("bin/git", &format!("#!/bin/sh\necho \"$@\" >> '{}'\necho fake git\n", marker.display()));
    std::fs::set_permissions(&fake_git, std::fs::Permissions::from_mode(0o755)).unwrap();
    env.vars.push(("PATH".into(), format!("bin:{}", std::env::var("PATH").unwrap_or_default())));

    let run = env.run(&["-p", "what changed?"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!marker.exists(), "the project's bin/git ran: {:?}", std::fs::read_to_string(&marker));
    let notice = "mewcode: warning: PATH: left out \"bin\" for commands, hooks and MCP servers";
    assert_eq!(run.stderr.matches(notice).count(), 1, "{}", run.stderr);
    let result = model.requests()[1].tool_results().join("\n");
    assert!(result.contains("On branch") && !result.contains("fake git"), "{result}");
    assert_eq!(std::fs::read_to_string(env.project.join("hook-saw.txt")).unwrap(), "true\n");
    // The start-up look at the repository (the system prompt's git line) used the real git too.
    let system = model.requests()[0].json.as_ref().unwrap()["system"].to_string();
    assert!(system.contains("Git: branch"), "{system}");
}
