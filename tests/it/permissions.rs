//! Permissions end to end: allow rules over compound commands, "always" persistence, the trust
//! gate over a project's own config, and `mewcode check`.

use crate::support::script::openai;
use crate::support::{FakeModel, Provider, TestEnv};
use serde_json::Value;

#[test]
fn an_allow_rule_allows_a_command_only_when_every_sub_command_is_allowed() {
    let model = FakeModel::start();
    model.push(openai(
        "",
        &[("a", "bash", r#"{"command":"echo hi"}"#), ("b", "bash", r#"{"command":"echo hi; touch pwned"}"#)],
    ));
    model.push(openai("done", &[]));
    let env = TestEnv::with_model("perm-compound", &model, Provider::openai().model("m"));
    env.write_home("settings.yaml", "permissions:\n  allow: [\"Bash(echo *)\"]\n");
    let run = env.run(&["-p", "go"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let results = model.requests()[1].tool_results();
    assert!(results[0].starts_with("hi\n") && results[0].contains("exit code: 0"), "{results:?}");
    assert!(results[1].starts_with("needs approval: "), "{results:?}");
    assert!(!env.project.join("pwned").exists());
}

#[test]
fn deny_rules_win_over_allow_rules_at_any_level_and_carry_their_prefix() {
    let model = FakeModel::start();
    model.push(openai(
        "",
        &[("a", "bash", r#"{"command":"git push origin main"}"#), ("b", "read_file", r#"{"path":".env"}"#)],
    ));
    model.push(openai("done", &[]));
    let env = TestEnv::with_model("perm-deny", &model, Provider::openai().model("m"));
    env.write_home("settings.yaml", "permissions:\n  deny: [\"Bash(git push *)\"]\n");
    env.write(".mewcode/settings.local.yaml", "permissions:\n  allow: [\"Bash(git *)\"]\n  deny: [\"Read(.env)\"]\n");
    env.write(".env", "SECRET=1\n");
    let run = env.run(&["-p", "push", "--mode", "bypass"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let results = model.requests()[1].tool_results();
    assert!(results[0].starts_with("denied by rule (user): "), "{results:?}");
    assert!(results[1].starts_with("denied by rule (local): "), "{results:?}");
}

#[test]
fn blacklist_and_sandbox_hold_even_in_bypass_mode() {
    let model = FakeModel::start();
    model.push(openai(
        "",
        &[
            ("a", "bash", r#"{"command":"rm -fr ~"}"#),
            ("b", "read_file", r#"{"path":"../outside.txt"}"#),
            ("c", "write_file", r#"{"path":"/tmp/mewcode-escape.txt","content":"x"}"#),
        ],
    ));
    model.push(openai("done", &[]));
    let env = TestEnv::with_model("perm-bypass", &model, Provider::openai().model("m"));
    let run = env.run(&["-p", "go", "--mode", "bypass"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let results = model.requests()[1].tool_results();
    assert!(results[0].starts_with("denied by blacklist: "), "{results:?}");
    assert!(results[1].starts_with("denied by sandbox: "), "{results:?}");
    assert!(results[2].starts_with("denied by sandbox: "), "{results:?}");
    assert!(!std::path::Path::new("/tmp/mewcode-escape.txt").exists());
}

#[test]
fn untrusted_project_allow_rules_hooks_and_mcp_servers_do_nothing_until_trusted_and_a_change_asks_again() {
    let model = FakeModel::start();
    let env = TestEnv::with_model("perm-trust", &model, Provider::openai().model("m"));
    // Inside the project: hooks run in the sandbox, which lets them write only there.
    let marker = env.project.join("hook-ran");
    let server_pid = env.dir.path().join("server.pid");
    let raw = crate::support::mcp_servers::fixture("raw_server.py");
    env.write(
        ".mewcode.yaml",
        &format!(
            "hooks:\n  PreToolUse:\n    - hooks:\n        - {{type: command, command: 'touch {}'}}\nmcp_servers:\n  proj: {{type: stdio, command: python3, args: [\"{}\", ok], env: {{MCP_PID_FILE: \"{}\"}}}}\n",
            marker.display(),
            raw.display(),
            server_pid.display()
        ),
    );
    env.write(".mewcode/settings.yaml", "permissions:\n  allow: [\"Bash(*)\"]\n");
    let turn = || {
        model.push(openai("", &[("a", "bash", r#"{"command":"touch made"}"#)]));
        model.push(openai("done", &[]));
    };
    // Untrusted: the hook never runs and Bash(*) does not allow.
    turn();
    let run = env.run(&["-p", "go"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("not trusted"), "{}", run.stderr);
    assert!(!marker.exists(), "an untrusted project's hook ran");
    assert!(!server_pid.exists(), "an untrusted project's MCP server was started");
    assert!(!env.project.join("made").exists());
    assert!(model.requests()[1].tool_results()[0].starts_with("needs approval: "));
    // Trusted with --trust: both take effect.
    turn();
    let run = env.run(&["-p", "go", "--trust"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(marker.exists(), "the trusted hook did not run");
    assert!(server_pid.exists(), "the trusted MCP server did not start");
    assert!(env.project.join("made").exists());
    let tools: Vec<String> = model.requests()[2].json.as_ref().unwrap()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(tools.contains(&"mcp__proj__echo".to_string()), "{tools:?}");
    std::fs::remove_file(&server_pid).unwrap();
    // Remembered trust (as the REPL records it) applies without --trust...
    std::fs::remove_file(&marker).unwrap();
    std::fs::remove_file(env.project.join("made")).unwrap();
    mewcode::integration::save_trust(&env.home, &env.project).unwrap();
    turn();
    let run = env.run(&["-p", "go"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(marker.exists() && env.project.join("made").exists() && server_pid.exists());
    std::fs::remove_file(&server_pid).unwrap();
    // ...until the project's config changes.
    std::fs::remove_file(&marker).unwrap();
    std::fs::remove_file(env.project.join("made")).unwrap();
    env.write(".mewcode/settings.yaml", "permissions:\n  allow: [\"Bash(*)\", \"Read(**)\"]\n");
    turn();
    let run = env.run(&["-p", "go"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!marker.exists() && !env.project.join("made").exists());
    assert!(!server_pid.exists(), "a changed config must be trusted again before its server runs");
}

#[test]
fn check_prints_the_decision_object_and_runs_nothing() {
    let env = TestEnv::new("perm-check");
    env.write_marked_local_settings("permissions:\n  allow: [\"Bash(git *)\"]\n");
    let check = |args: &[&str]| -> Value {
        let run = env.run(args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        serde_json::from_str(&run.stdout).unwrap()
    };
    assert_eq!(
        check(&["check", "Bash", r#"{"command":"git status"}"#]),
        serde_json::json!({"decision": "allow", "layer": "rule", "level": "local", "reason": check(&["check", "Bash", r#"{"command":"git status"}"#])["reason"]})
    );
    assert_eq!(check(&["check", "Bash", r#"{"command":"git status && touch x"}"#])["decision"], "ask");
    assert_eq!(check(&["check", "Bash", r#"{"command":"rm -rf $HOME"}"#])["layer"], "blacklist");
    assert_eq!(check(&["check", "Write", r#"{"path":"a.txt"}"#, "--mode", "acceptEdits"])["decision"], "allow");
    assert_eq!(
        check(&["check", "Write", r#"{"path":".mewcode/settings.yaml"}"#, "--mode", "acceptEdits"])["decision"],
        "ask"
    );
    assert_eq!(check(&["check", "mcp__github__create_issue", "{}"])["decision"], "ask");
    assert!(!env.project.join("x").exists());
    let bad = env.run(&["check", "Nope", "{}"]);
    assert_eq!(bad.code, 2);
}

#[test]
fn a_malformed_deny_rule_stops_start_up_and_a_malformed_allow_rule_warns() {
    let model = FakeModel::start();
    let env = TestEnv::with_model("perm-malformed", &model, Provider::openai().model("m"));
    env.write_home("settings.yaml", "permissions:\n  deny: [\"Bash(~[unclosed)\"]\n");
    let run = env.run(&["-p", "go"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("settings.yaml") && run.stderr.contains("Bash(~[unclosed)"), "{}", run.stderr);
    env.write_home("settings.yaml", "permissions:\n  allow: [\"Bash(~[unclosed)\"]\n");
    model.push(openai("hi", &[]));
    let run = env.run(&["-p", "go"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("Bash(~[unclosed)") && run.stderr.contains("rule skipped"), "{}", run.stderr);
}

#[test]
fn regex_rules_match_anywhere_and_check_says_what_the_loop_does_in_plan_mode() {
    let model = FakeModel::start();
    let env = TestEnv::with_model("perm-seed", &model, Provider::openai().model("m"));
    env.write_home(
        "settings.yaml",
        "permissions:\n  allow: [\"Bash(~git)\", \"Bash(~^ls$)\", \"Bash(!rm *)\"]\n  deny: [\"Bash(~curl)\"]\n",
    );
    let check = |args: &[&str]| -> (Value, String) {
        let run = env.run(args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        (serde_json::from_str(&run.stdout).unwrap(), run.stderr)
    };
    // A seed-style deny regex blocks the command wherever the word appears, in any sub-command.
    let (curl, stderr) = check(&["check", "Bash", r#"{"command":"curl http://x"}"#]);
    assert_eq!(
        curl,
        serde_json::json!({"decision": "deny", "layer": "rule", "level": "user", "reason": "Bash(~curl)"})
    );
    assert_eq!(check(&["check", "Bash", r#"{"command":"ls && curl x"}"#]).0["decision"], "deny");
    // Allow rules that grant more than they seem are pointed out, and said to apply (they do).
    assert!(stderr.contains("Bash(~git)") && stderr.contains("not anchored"), "{stderr}");
    assert!(!stderr.contains("Bash(~^ls$)"), "{stderr}");
    let negated = stderr.lines().find(|line| line.contains("Bash(!rm *)")).unwrap_or_default();
    assert!(negated.contains("the rule applies") && !negated.contains("skipped"), "{stderr}");
    assert_eq!(check(&["check", "Bash", r#"{"command":"pwd"}"#]).0["reason"], "Bash(!rm *)");
    // Plan mode: what the loop does with a bash call is a refusal, and check says so.
    let (plan, _) = check(&["check", "Bash", r#"{"command":"ls"}"#, "--mode", "plan"]);
    assert_eq!((plan["decision"].as_str(), plan["layer"].as_str()), (Some("deny"), Some("mode")), "{plan}");
    model.push(openai("", &[("a", "bash", r#"{"command":"ls"}"#)]));
    model.push(openai("the plan", &[]));
    let run = env.run(&["-p", "plan it", "--mode", "plan"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let refusal = model.requests()[1].tool_results()[0].clone();
    let reason = plan["reason"].as_str().unwrap().replacen("Bash", "bash", 1);
    assert_eq!(refusal, format!("needs approval: {reason}"));
}

/// The local settings file is mewcode's only while it carries this installation's mark. A
/// `Bash(*)` planted there (by a command the model ran, or a clone) applies nowhere, trusted
/// project or not, and is said to be ignored; the next "always" answer keeps the planted file
/// aside instead of adopting its rules; and the file mewcode wrote itself applies at the next
/// start.
#[test]
fn a_planted_local_settings_file_is_ignored_even_when_trusted_and_always_does_not_adopt_it() {
    use crate::repl::{start, text_reply, tool_reply};
    use crate::support::script::anthropic;
    let model = FakeModel::start();
    let env = TestEnv::with_model("perm-planted-local", &model, Provider::anthropic());
    let planted = "permissions:\n  allow: [\"Bash(*)\"]\n";
    let local = env.write(".mewcode/settings.local.yaml", planted);
    let rejected = env.project.join(".mewcode/settings.local.yaml.rejected");
    mewcode::integration::save_trust(&env.home, &env.project).unwrap();
    assert!(mewcode::integration::is_trusted(&env.home, &env.project));
    let said_ignored = |stderr: &str| {
        let line = stderr.lines().find(|line| line.contains("Bash(*)")).unwrap_or_default();
        assert!(
            line.starts_with(&format!("mewcode: warning: {}: 1 allow rule(s) ignored", local.display())),
            "{stderr}"
        );
        assert!(line.contains("no mewcode mark") && line.contains("delete it"), "{stderr}");
    };
    // -p, trusted twice over (remembered and --trust): the command still needs approval.
    model.push(anthropic("", &[("a", "bash", r#"{"command":"touch made"}"#)]));
    model.push(anthropic("done", &[]));
    let run = env.run(&["-p", "go", "--trust"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    said_ignored(&run.stderr);
    assert!(model.requests()[1].tool_results()[0].starts_with("needs approval: "), "{:?}", model.requests()[1]);
    assert!(!env.project.join("made").exists());
    // check says the same, and doctor says why the file is ignored.
    let check = env.run(&["check", "Bash", r#"{"command":"touch made"}"#]);
    assert_eq!(check.code, 0, "{}", check.stderr);
    assert_eq!(serde_json::from_str::<Value>(&check.stdout).unwrap()["decision"], "ask");
    said_ignored(&check.stderr);
    let doctor = env.run(&["doctor"]);
    let line = doctor.stdout.lines().find(|line| line.contains("settings.local.yaml")).unwrap_or_default();
    assert!(line.contains("IGNORED") && line.contains("no mewcode mark"), "{}", doctor.stdout);
    // The REPL: "always" for one command saves that rule alone, in a new marked file, and says
    // where the planted one went.
    model.push(tool_reply("t1", "bash", serde_json::json!({"command": "touch made"})));
    model.push(text_reply("Made it."));
    let tmux = start(&env, &[]);
    tmux.type_text("make it");
    tmux.keys(&["Enter"]);
    tmux.wait_for("[y] yes once  [a] always  [n] no");
    tmux.keys(&["a"]);
    let screen = tmux.wait_for("Made it.");
    drop(tmux);
    let joined = screen.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(joined.contains("saved allow rule Bash(=touch made) to"), "{screen}");
    assert!(joined.contains("was not mewcode's"), "{screen}");
    assert!(env.project.join("made").exists());
    assert_eq!(std::fs::read_to_string(&rejected).unwrap(), planted, "the planted file is kept for review");
    let written = std::fs::read_to_string(&local).unwrap();
    assert!(written.starts_with("# mewcode-mark: ") && written.contains("Bash(=touch made)"), "{written}");
    assert!(!written.contains("Bash(*)"), "the planted rule was adopted: {written}");
    // The next start: mewcode's own file applies without a word; the planted rule is gone.
    std::fs::remove_file(env.project.join("made")).unwrap();
    model.push(anthropic(
        "",
        &[("a", "bash", r#"{"command":"touch made"}"#), ("b", "bash", r#"{"command":"touch other"}"#)],
    ));
    model.push(anthropic("done", &[]));
    let run = env.run(&["-p", "go"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // No word about the file (the refusal line may name it as where an allow rule would go).
    assert!(!run.stderr.contains("deny rules apply"), "{}", run.stderr);
    let results = model.requests().last().unwrap().tool_results();
    assert!(!results[0].starts_with("needs approval: ") && env.project.join("made").exists(), "{results:?}");
    assert!(results[1].starts_with("needs approval: ") && !env.project.join("other").exists(), "{results:?}");
}
