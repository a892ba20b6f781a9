//! The gate's pure parts and the engine gate over real settings files in a temp project.

use super::*;
use crate::agent::test_gate::ModeMatrix;
use crate::test_dir::TempDir;

fn call(command: &str) -> ToolCall {
    ToolCall { id: "1".into(), name: "bash".into(), input: serde_json::json!({"command": command}).to_string() }
}

#[test]
fn the_mode_matrix_lets_accept_edits_run_file_writers_only() {
    let tools = crate::tools::builtin_tools(Vec::new(), std::sync::Arc::new(crate::confine::Sandbox::off()));
    let tool = |rule: &str| tools.iter().find(|tool| tool.rule_name() == rule).unwrap().as_ref();
    let verdict = |mode: Mode, rule: &str| ModeMatrix.check(mode, &call("ls"), tool(rule));
    assert_eq!(verdict(Mode::AcceptEdits, "Write"), Verdict::Allow);
    assert_eq!(verdict(Mode::AcceptEdits, "Edit"), Verdict::Allow);
    assert!(matches!(verdict(Mode::AcceptEdits, "Bash"), Verdict::Ask { .. }));
    assert!(matches!(verdict(Mode::Default, "Write"), Verdict::Ask { .. }));
    assert_eq!(verdict(Mode::Default, "Read"), Verdict::Allow);
    assert_eq!(verdict(Mode::Bypass, "Bash"), Verdict::Allow);
}

#[test]
fn a_hook_asks_over_any_allow_and_allows_only_where_the_mode_asked() {
    let allow = || Some(HookPermission::Allow { reason: None });
    let ask = || Some(HookPermission::Ask { reason: "sure?".into() });
    let mode_ask = || Verdict::Ask { reason: "default mode asks".into() };
    let deny = || Verdict::Deny { by: RefusedBy::Rule(None), message: "denied by rule (user): Bash(curl *)".into() };
    let never = || -> bool { panic!("may_allow is only asked for an allow over an ask") };
    assert_eq!(with_hook(Verdict::Allow, None, never), Verdict::Allow);
    assert_eq!(with_hook(mode_ask(), None, never), mode_ask());
    assert_eq!(with_hook(Verdict::Allow, ask(), never), Verdict::Ask { reason: "a hook asks: sure?".into() });
    assert_eq!(
        with_hook(mode_ask(), ask(), never),
        Verdict::Ask { reason: "default mode asks; a hook asks: sure?".into() }
    );
    assert_eq!(with_hook(mode_ask(), allow(), || true), Verdict::Allow);
    assert_eq!(with_hook(mode_ask(), allow(), || false), mode_ask(), "self-protection or a sensitive file");
    assert_eq!(with_hook(Verdict::Allow, allow(), never), Verdict::Allow);
    assert_eq!(with_hook(deny(), allow(), never), deny());
    assert_eq!(with_hook(deny(), ask(), never), deny());
}

#[test]
fn a_hook_may_allow_only_what_the_mode_matrix_asked() {
    let dir = TempDir::new("gate-hook");
    let root = dir.path().to_path_buf();
    let gate = EngineGate::new(root.clone(), None, Owner::none(), Vec::new());
    let tools = crate::tools::builtin_tools(Vec::new(), std::sync::Arc::new(crate::confine::Sandbox::off()));
    let bash = tools.iter().find(|tool| tool.rule_name() == "Bash").unwrap().as_ref();
    let read = tools.iter().find(|tool| tool.rule_name() == "Read").unwrap().as_ref();
    // The default mode asks before a command: a hook's allow may lift that.
    assert!(gate.hook_may_allow(Mode::Default, &call("make"), bash));
    // A sensitive file asks at the sandbox layer, and the blacklist denies: a hook lifts neither.
    let secret = ToolCall { id: "2".into(), name: "read_file".into(), input: r#"{"path":".env"}"#.into() };
    assert!(!gate.hook_may_allow(Mode::Default, &secret, read));
    assert!(!gate.hook_may_allow(Mode::Default, &call("rm -rf /"), bash));
}

#[test]
fn always_persists_an_exact_rule_once_and_applies_it_at_once() {
    let dir = TempDir::new("gate");
    let root = dir.mkdir("proj");
    let owner = Owner::from_key([1; 32]);
    let gate = EngineGate::new(root.clone(), None, owner.clone(), Vec::new());
    let wipe = call("rm -rf build/*");
    let bash = crate::tools::builtin_tools(Vec::new(), std::sync::Arc::new(crate::confine::Sandbox::off()));
    let bash = bash.iter().find(|tool| tool.rule_name() == "Bash").unwrap().as_ref();
    assert!(matches!(gate.check(Mode::Default, &wipe, bash), Verdict::Ask { .. }));
    let layer = |command: &str| gate.explain(Mode::Bypass, &CallInfo::named("Bash", &call(command).input), false);
    // A glob below the root cannot reach the root's control files; one at the root reaches
    // those that exist.
    std::fs::write(root.join("AGENTS.md"), "planted\n").unwrap();
    assert_eq!(layer("rm -rf build/*").decision, Decision::Allow);
    assert_eq!(layer("rm -rf *").decision, Decision::Allow, "bypass mode allows even self-protected writes");
    let protected = gate.explain(Mode::AcceptEdits, &CallInfo::named("Bash", &call("rm -rf *").input), false);
    assert!(protected.reason.contains("control files"), "{protected:?}");
    let nested = gate.explain(Mode::AcceptEdits, &CallInfo::named("Bash", &call("rm -rf sub/.g*").input), false);
    assert!(nested.reason.contains("control files"), "{nested:?}");
    let local = root.join(store::LOCAL_SETTINGS);
    let saved = gate.remember(&wipe, bash).unwrap().unwrap();
    let rules = vec!["Bash(=rm -rf 'build/*')".to_string()];
    assert_eq!(saved, Remembered { rules, file: local.clone(), set_aside: None });
    assert_eq!(saved.describe(), format!("saved allow rule Bash(=rm -rf 'build/*') to {}", local.display()));
    gate.remember(&wipe, bash).unwrap();
    let text = std::fs::read_to_string(&local).unwrap();
    assert_eq!(text.matches("Bash(").count(), 1, "{text}");
    assert_eq!(gate.check(Mode::Default, &wipe, bash), Verdict::Allow);
    assert!(matches!(gate.check(Mode::Default, &call("rm -rf src"), bash), Verdict::Ask { .. }));
    assert!(matches!(gate.check(Mode::Default, &call("rm -rf build/* src"), bash), Verdict::Ask { .. }));
    // A second rule joins the first, in the file and in the session.
    assert_eq!(gate.remember(&call("make"), bash).unwrap().unwrap().set_aside, None);
    assert_eq!(gate.check(Mode::Default, &wipe, bash), Verdict::Allow);
    assert_eq!(gate.check(Mode::Default, &call("make"), bash), Verdict::Allow);
    // A fresh gate over the file's rules (as the next start-up loads them) agrees.
    let (texts, mark) = store::load_local_rule_texts(&local, &owner).unwrap();
    assert_eq!(mark, store::Mark::Ours);
    let reloaded = EngineGate::new(root.clone(), None, owner, vec![(Level::Local, texts)]);
    assert_eq!(reloaded.check(Mode::Default, &wipe, bash), Verdict::Allow);
}

#[test]
fn always_over_a_planted_local_file_keeps_it_aside_and_the_session_follows_the_new_file() {
    let dir = TempDir::new("gate-planted");
    dir.mkdir(".mewcode");
    let root = dir.path().to_path_buf();
    let local = root.join(store::LOCAL_SETTINGS);
    std::fs::write(&local, "permissions:\n  allow: [\"Bash(*)\"]\n  deny: [\"Bash(=pwd)\"]\n").unwrap();
    let owner = Owner::from_key([1; 32]);
    // As start-up loads it: unmarked, so its allow rules were dropped; its deny rules apply.
    let (mut texts, mark) = store::load_local_rule_texts(&local, &owner).unwrap();
    assert_eq!(mark, store::Mark::Missing);
    texts.allow.clear();
    let gate = EngineGate::new(root.clone(), None, owner.clone(), vec![(Level::Local, texts)]);
    let bash = crate::tools::builtin_tools(Vec::new(), std::sync::Arc::new(crate::confine::Sandbox::off()));
    let bash = bash.iter().find(|tool| tool.rule_name() == "Bash").unwrap().as_ref();
    assert!(matches!(gate.check(Mode::Default, &call("ls"), bash), Verdict::Ask { .. }), "Bash(*) is not applied");
    assert!(matches!(gate.check(Mode::Bypass, &call("pwd"), bash), Verdict::Deny { .. }));
    let saved = gate.remember(&call("ls"), bash).unwrap().unwrap();
    let rejected = root.join(".mewcode/settings.local.yaml.rejected");
    let expected = Remembered {
        rules: vec!["Bash(=ls)".to_string()],
        file: local.clone(),
        set_aside: Some((rejected.clone(), store::Mark::Missing.why())),
    };
    assert_eq!(saved, expected);
    let notice = saved.describe();
    assert!(notice.starts_with(&format!("saved allow rule Bash(=ls) to {}, a new file", local.display())), "{notice}");
    assert!(notice.contains(&rejected.display().to_string()) && notice.contains("no mewcode mark"), "{notice}");
    assert!(std::fs::read_to_string(&rejected).unwrap().contains("Bash(*)"));
    // The file holds the new rule only, and so does the session: the deny went with the file.
    let (texts, mark) = store::load_local_rule_texts(&local, &owner).unwrap();
    assert_eq!(
        (texts, mark),
        (RuleTexts { allow: vec!["Bash(=ls)".to_string()], deny: Vec::new() }, store::Mark::Ours)
    );
    assert_eq!(gate.check(Mode::Default, &call("ls"), bash), Verdict::Allow);
    assert!(matches!(gate.check(Mode::Default, &call("make"), bash), Verdict::Ask { .. }));
    assert_eq!(gate.check(Mode::Bypass, &call("pwd"), bash), Verdict::Allow);
    // Without a key, "always" saves nothing and says why; the call was allowed once.
    let keyless = EngineGate::new(root.clone(), None, Owner::none(), Vec::new());
    assert!(keyless.remember(&call("make"), bash).unwrap_err().contains("no key"));
}
