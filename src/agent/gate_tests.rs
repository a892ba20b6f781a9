//! The gate's pure parts and the engine gate over real settings files in a temp project.

use super::*;
use crate::agent::test_gate::ModeMatrix;
use crate::test_dir::TempDir;

fn call(command: &str) -> ToolCall {
    ToolCall { id: "1".into(), name: "bash".into(), input: serde_json::json!({"command": command}).to_string() }
}

#[test]
fn the_mode_matrix_lets_accept_edits_run_file_writers_only() {
    let tools = crate::tools::builtin_tools(
        Vec::new(),
        std::sync::Arc::new(crate::confine::Sandbox::off()),
        std::sync::Arc::default(),
    );
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
    let tools = crate::tools::builtin_tools(
        Vec::new(),
        std::sync::Arc::new(crate::confine::Sandbox::off()),
        std::sync::Arc::default(),
    );
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
    let bash = crate::tools::builtin_tools(
        Vec::new(),
        std::sync::Arc::new(crate::confine::Sandbox::off()),
        std::sync::Arc::default(),
    );
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
    let rules = vec!["Bash(=rm -rf 'build/*')".to_string()];
    let always = gate.always(Mode::Default, &wipe, bash);
    assert_eq!(always, Always::Save { rules: rules.clone() });
    let saved = gate.remember(&always).unwrap().unwrap();
    assert_eq!(saved, Remembered::Saved { rules, file: local.clone(), set_aside: None });
    assert_eq!(saved.describe(), format!("saved allow rule Bash(=rm -rf 'build/*') to {}", local.display()));
    gate.remember(&always).unwrap();
    let text = std::fs::read_to_string(&local).unwrap();
    assert_eq!(text.matches("Bash(").count(), 1, "{text}");
    assert_eq!(gate.check(Mode::Default, &wipe, bash), Verdict::Allow);
    assert!(matches!(gate.check(Mode::Default, &call("rm -rf src"), bash), Verdict::Ask { .. }));
    assert!(matches!(gate.check(Mode::Default, &call("rm -rf build/* src"), bash), Verdict::Ask { .. }));
    // A second rule joins the first, in the file and in the session.
    let make = gate.always(Mode::Default, &call("make"), bash);
    assert!(matches!(gate.remember(&make).unwrap(), Some(Remembered::Saved { set_aside: None, .. })));
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
    let bash = crate::tools::builtin_tools(
        Vec::new(),
        std::sync::Arc::new(crate::confine::Sandbox::off()),
        std::sync::Arc::default(),
    );
    let bash = bash.iter().find(|tool| tool.rule_name() == "Bash").unwrap().as_ref();
    assert!(matches!(gate.check(Mode::Default, &call("ls"), bash), Verdict::Ask { .. }), "Bash(*) is not applied");
    assert!(matches!(gate.check(Mode::Bypass, &call("pwd"), bash), Verdict::Deny { .. }));
    let saved = gate.remember(&gate.always(Mode::Default, &call("ls"), bash)).unwrap().unwrap();
    let rejected = root.join(".mewcode/settings.local.yaml.rejected");
    let expected = Remembered::Saved {
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
        (RuleTexts { allow: vec!["Bash(=ls)".to_string()], ..RuleTexts::default() }, store::Mark::Ours)
    );
    assert_eq!(gate.check(Mode::Default, &call("ls"), bash), Verdict::Allow);
    assert!(matches!(gate.check(Mode::Default, &call("make"), bash), Verdict::Ask { .. }));
    assert_eq!(gate.check(Mode::Bypass, &call("pwd"), bash), Verdict::Allow);
    // Without a key, "always" saves nothing and says why; the call was allowed once.
    let keyless = EngineGate::new(root.clone(), None, Owner::none(), Vec::new());
    let make = Always::Save { rules: vec!["Bash(=make)".to_string()] };
    assert!(keyless.remember(&make).unwrap_err().contains("no key"));
}

/// The built-in tool with rule name `rule`.
fn builtin(rule: &str) -> std::sync::Arc<dyn Tool> {
    let tools = crate::tools::builtin_tools(
        Vec::new(),
        std::sync::Arc::new(crate::confine::Sandbox::off()),
        std::sync::Arc::default(),
    );
    tools.into_iter().find(|tool| tool.rule_name() == rule).unwrap()
}

fn edit_call(path: &str) -> ToolCall {
    let input = serde_json::json!({"path": path, "old_string": "a", "new_string": "b"}).to_string();
    ToolCall { id: "e".into(), name: "edit_file".into(), input }
}

/// A gate over a temp project whose three settings files are known, the user's under `home`.
fn gate_with_files(root: &std::path::Path, home: &std::path::Path, texts: Vec<(Level, RuleTexts)>) -> EngineGate {
    let files = RuleFiles {
        root: root.to_path_buf(),
        user_home: Some(home.to_path_buf()),
        project_trusted: true,
        local_mark: store::Mark::Ours,
    };
    EngineGate::new(root.to_path_buf(), None, Owner::from_key([1; 32]), texts).with_rule_files(files)
}

#[test]
fn always_to_an_edit_grants_edits_for_the_session_and_saves_nothing() {
    let dir = TempDir::new("gate-edits");
    let root = dir.mkdir("proj");
    let gate = gate_with_files(&root, &dir.mkdir("home"), Vec::new());
    let edit = builtin("Edit");
    let asks = |call: &ToolCall| matches!(gate.check(Mode::Default, call, edit.as_ref()), Verdict::Ask { .. });
    assert!(asks(&edit_call("src/a.rs")));
    let always = gate.always(Mode::Default, &edit_call("src/a.rs"), edit.as_ref());
    assert_eq!(always, Always::EditsThisSession);
    let granted = gate.remember(&always).unwrap().unwrap();
    assert_eq!(granted, Remembered::EditsGranted);
    assert!(granted.describe().starts_with("file edits run without asking for the rest of this session"));
    assert!(!root.join(store::LOCAL_SETTINGS).exists(), "nothing is saved");
    // Every file edit now runs, as in acceptEdits; control and sensitive files still ask.
    assert!(!asks(&edit_call("src/a.rs")) && !asks(&edit_call("docs/other.md")));
    assert!(asks(&edit_call(".env")) && asks(&edit_call("AGENTS.md")));
    assert_eq!(
        gate.always(Mode::Default, &edit_call("AGENTS.md"), edit.as_ref()),
        Always::Once {
            why: "this ask holds even for granted edits; an allow rule (/permissions add) can lift a sensitive file's"
                .into()
        }
    );
    // Commands still ask, and the grant is listed and can be taken back.
    assert!(matches!(gate.check(Mode::Default, &call("make"), builtin("Bash").as_ref()), Verdict::Ask { .. }));
    let book = gate.rule_book().unwrap();
    let grant = book.listing().into_iter().find(|entry| entry.source == Source::EditsGrant).unwrap();
    assert_eq!(
        gate.remove_rule(&Which::Number(grant.number)).unwrap(),
        "removed the session's grant of file edits: edits ask again"
    );
    assert!(asks(&edit_call("src/a.rs")));
}

#[test]
fn always_runs_once_what_no_rule_can_allow() {
    let dir = TempDir::new("gate-once");
    let root = dir.mkdir("proj");
    std::fs::write(root.join("AGENTS.md"), "x\n").unwrap();
    let gate = gate_with_files(&root, &dir.mkdir("home"), Vec::new());
    let bash = builtin("Bash");
    let once = |command: &str| gate.always(Mode::Default, &call(command), bash.as_ref());
    assert_eq!(once("echo $(whoami)"), Always::Once { why: "no exact rule can allow this call".into() });
    // A write to a control file asks under any allow rule: saving one would change nothing.
    assert_eq!(once("rm -rf *"), Always::Once { why: "an allow rule would not lift this ask".into() });
    assert_eq!(gate.remember(&once("rm -rf *")).unwrap(), None);
    assert!(!root.join(store::LOCAL_SETTINGS).exists());
}

#[test]
fn rules_added_and_removed_apply_to_the_next_call_and_the_files_keep_their_other_rules() {
    let dir = TempDir::new("gate-book");
    let root = dir.mkdir("proj");
    let home = dir.mkdir("home");
    std::fs::write(
        home.join("settings.yaml"),
        "# mine\npermissions:\n  allow: [\"Bash(=make)\"]\n  deny: [\"Read(.env)\"]\nother: 1\n",
    )
    .unwrap();
    let user = store::load_rule_texts(&home.join("settings.yaml")).unwrap();
    let gate = gate_with_files(&root, &home, vec![(Level::User, user)]);
    let bash = builtin("Bash");
    let verdict = |command: &str, mode: Mode| gate.check(mode, &call(command), bash.as_ref());
    assert_eq!(verdict("make", Mode::Default), Verdict::Allow);
    // "always" saves to the local file: it is listed with it, and removing it asks again.
    gate.remember(&gate.always(Mode::Default, &call("touch made"), bash.as_ref())).unwrap();
    assert_eq!(verdict("touch made", Mode::Default), Verdict::Allow);
    let said = gate.remove_rule(&Which::Rule("Bash(=touch made)".into())).unwrap();
    let local = root.join(store::LOCAL_SETTINGS);
    assert_eq!(said, format!("removed allow rule Bash(=touch made) from {}; it no longer applies", local.display()));
    assert!(matches!(verdict("touch made", Mode::Default), Verdict::Ask { .. }));
    let (texts, mark) = store::load_local_rule_texts(&local, &Owner::from_key([1; 32])).unwrap();
    assert_eq!((texts, mark), (RuleTexts::default(), store::Mark::Ours));
    // A deny added to the user's file refuses at once; the file keeps its other rules and keys,
    // and its comment is kept in a copy.
    let said = gate.add_rule(RuleList::Deny, Level::User, "Bash(curl *)").unwrap();
    let user_file = home.join("settings.yaml");
    assert!(
        said.starts_with(&format!(
            "added deny rule Bash(curl *) to {} (user); it applies from the next tool call",
            user_file.display()
        )),
        "{said}"
    );
    assert!(said.contains("its comments are not kept") && said.contains("settings.yaml.bak"), "{said}");
    assert!(matches!(verdict("curl x", Mode::Bypass), Verdict::Deny { by: RefusedBy::Rule(Some(Level::User)), .. }));
    let texts = store::load_rule_texts(&user_file).unwrap();
    assert_eq!(
        (texts.allow, texts.deny),
        (vec!["Bash(=make)".to_string()], vec!["Read(.env)".to_string(), "Bash(curl *)".to_string()])
    );
    assert!(std::fs::read_to_string(&user_file).unwrap().contains("other: 1"));
    assert!(std::fs::read_to_string(home.join("settings.yaml.bak")).unwrap().starts_with("# mine"));
    // Removing the user's allow rule asks again; its deny rules stay.
    gate.remove_rule(&Which::Rule("Bash(=make)".into())).unwrap();
    assert!(matches!(verdict("make", Mode::Default), Verdict::Ask { .. }));
    assert_eq!(store::load_rule_texts(&user_file).unwrap().deny.len(), 2);
    // An ask rule of the session asks even in bypass mode, over an allow rule, and no hook lifts it.
    gate.add_rule(RuleList::Allow, Level::Session, "Bash(git *)").unwrap();
    assert_eq!(verdict("git push", Mode::Bypass), Verdict::Allow);
    let said = gate.add_rule(RuleList::Ask, Level::Session, "Bash(git push *)").unwrap();
    assert_eq!(
        said,
        "added ask rule Bash(git push *) for this session (not saved); it applies from the next tool call"
    );
    assert_eq!(
        verdict("git push", Mode::Bypass),
        Verdict::Ask { reason: "the ask rule Bash(git push *) (session) asks first".into() }
    );
    assert!(!gate.hook_may_allow(Mode::Default, &call("git push"), bash.as_ref()));
    assert_eq!(verdict("git status", Mode::Default), Verdict::Allow);
    // A bad rule and a built-in policy are refused, and nothing changes.
    assert!(gate.add_rule(RuleList::Deny, Level::Local, "Bash(rm *").unwrap_err().contains("is not a rule"));
    let built_in =
        gate.rule_book().unwrap().listing().into_iter().find(|entry| entry.source == Source::BuiltIn).unwrap();
    assert!(gate.remove_rule(&Which::Number(built_in.number)).unwrap_err().contains("cannot be removed"));
    // An allow rule added to an untrusted project's file is saved but not applied.
    let untrusted =
        RuleFiles { root: root.clone(), user_home: None, project_trusted: false, local_mark: store::Mark::Ours };
    let gate = EngineGate::new(root.clone(), None, Owner::from_key([1; 32]), Vec::new()).with_rule_files(untrusted);
    let said = gate.add_rule(RuleList::Allow, Level::Project, "Bash(=make)").unwrap();
    assert!(
        said.ends_with("; it does not apply: this file's allow rules are ignored until you trust this project"),
        "{said}"
    );
    assert!(matches!(gate.check(Mode::Default, &call("make"), bash.as_ref()), Verdict::Ask { .. }));
    assert_eq!(store::load_rule_texts(&root.join(store::PROJECT_SETTINGS)).unwrap().allow, ["Bash(=make)"]);
    assert!(gate.add_rule(RuleList::Deny, Level::User, "Bash(rm *)").unwrap_err().contains("not known"));
}
