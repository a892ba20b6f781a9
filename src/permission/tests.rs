//! Engine tests: the layer order, the mode matrix, self-protection and sensitive files.

use super::*;
use crate::test_dir::TempDir;
use crate::test_rng::XorShift;
use rules::{RuleTexts, parse_rule};

/// A project with `src/`, `.git/` and two links (`etc_link` to /etc, `innocent` to .git).
struct Fixture {
    root: PathBuf,
    _dir: TempDir,
}

fn fixture() -> Fixture {
    let dir = TempDir::new("engine");
    dir.mkdir("src");
    dir.mkdir(".git");
    let root = dir.path().to_path_buf();
    std::os::unix::fs::symlink("/etc", root.join("etc_link")).unwrap();
    std::os::unix::fs::symlink(".git", root.join("innocent")).unwrap();
    Fixture { root, _dir: dir }
}

fn engine(root: &Path, allow: &[&str], deny: &[&str]) -> Engine {
    let texts = RuleTexts {
        allow: allow.iter().map(|s| s.to_string()).collect(),
        ask: Vec::new(),
        deny: deny.iter().map(|s| s.to_string()).collect(),
    };
    let (set, problems) = RuleSet::from_texts(vec![
        (Level::Local, RuleTexts::default()),
        (Level::Project, texts),
        (Level::User, RuleTexts::default()),
    ]);
    assert!(problems.iter().all(|problem| !problem.is_fatal()));
    Engine::new(root.to_path_buf(), Some(PathBuf::from("/home/nobody")), set)
}

fn input(key: &str, value: &str) -> String {
    serde_json::json!({ key: value }).to_string()
}

/// (mode, tool, input, read_only) → (decision, layer).
type Case<'a> = (Mode, &'a str, String, bool, Decision, Layer);

fn run(engine: &Engine, cases: &[Case<'_>]) {
    let mut failures = Vec::new();
    for (mode, tool, raw, read_only, decision, layer) in cases {
        let check = engine.check(*mode, &CallInfo::named(tool, raw), *read_only);
        if (check.decision, check.layer) != (*decision, *layer) {
            failures.push(format!("{mode} {tool} {raw}: expected {decision:?}/{layer:?}, got {check:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn mode_matrix_only_allows_or_asks() {
    let fx = fixture();
    let engine = engine(&fx.root, &[], &[]);
    use Decision::*;
    use Layer::Mode as M;
    let read = || input("path", "src/a.rs");
    let bash = || input("command", "make");
    let mcp = || "{}".to_string();
    let cases: Vec<Case<'_>> = vec![
        (Mode::Default, "Read", read(), true, Allow, M),
        (Mode::Default, "Write", read(), false, Ask, M),
        (Mode::Default, "Bash", bash(), false, Ask, M),
        (Mode::AcceptEdits, "Read", read(), true, Allow, M),
        (Mode::AcceptEdits, "Write", read(), false, Allow, M),
        (Mode::AcceptEdits, "Edit", read(), false, Allow, M),
        (Mode::AcceptEdits, "Bash", bash(), false, Ask, M),
        (Mode::Plan, "Read", read(), true, Allow, M),
        (Mode::Bypass, "Read", read(), true, Allow, M),
        (Mode::Bypass, "Write", read(), false, Allow, M),
        (Mode::Bypass, "Bash", bash(), false, Allow, M),
        (Mode::Default, "mcp__x__y", mcp(), false, Ask, M),
        (Mode::AcceptEdits, "mcp__x__y", mcp(), false, Ask, M),
        (Mode::Default, "mcp__x__y", mcp(), true, Allow, M),
        (Mode::Default, "Glob", input("pattern", "**/*.rs"), true, Allow, M),
        (Mode::Default, "Grep", input("path", "src"), true, Allow, M),
        (Mode::Default, "Task", mcp(), true, Allow, M),
    ];
    run(&engine, &cases);
}

#[test]
fn plan_mode_refuses_every_tool_that_is_not_read_only_before_any_other_layer() {
    let fx = fixture();
    // An allow rule, a deny rule and the blacklist would each decide otherwise: plan mode's
    // refusal comes first, as in the agent loop (which never consults the gate for these).
    let engine = engine(&fx.root, &["Bash(make *)", "Write(src/**)", "mcp__x__*"], &["Bash(curl *)"]);
    use Decision::*;
    use Layer::Mode as M;
    let bash = |command: &str| input("command", command);
    let cases: Vec<Case<'_>> = vec![
        (Mode::Plan, "Bash", bash("make test"), false, Deny, M),
        (Mode::Plan, "Bash", bash("curl x"), false, Deny, M),
        (Mode::Plan, "Bash", bash("rm -rf /"), false, Deny, M),
        (Mode::Plan, "Write", input("path", "src/a.rs"), false, Deny, M),
        (Mode::Plan, "Edit", input("path", "../outside"), false, Deny, M),
        (Mode::Plan, "mcp__x__y", "{}".to_string(), false, Deny, M),
        // Read-only tools still pass the layers: a sandbox escape is still the sandbox's.
        (Mode::Plan, "Read", input("path", "src/a.rs"), true, Allow, M),
        (Mode::Plan, "Read", input("path", "../outside"), true, Deny, Layer::Sandbox),
        (Mode::Plan, "mcp__x__y", "{}".to_string(), true, Allow, Layer::Rule),
        // Other modes are untouched by it.
        (Mode::Default, "Bash", bash("make test"), false, Allow, Layer::Rule),
        (Mode::Bypass, "Bash", bash("curl x"), false, Deny, Layer::Rule),
    ];
    run(&engine, &cases);
    let refusal = plan_mode_check(Mode::Plan, "bash", false).unwrap();
    assert_eq!(
        refused_by(&refusal).map(|by| by.text(&refusal.reason)).unwrap(),
        "needs approval: bash is not available in plan mode (read-only tools only); present the plan instead"
    );
    assert_eq!(plan_mode_check(Mode::Plan, "read_file", true), None);
    for mode in [Mode::Default, Mode::AcceptEdits, Mode::Bypass] {
        assert_eq!(plan_mode_check(mode, "bash", false), None, "{mode}");
    }
}

#[test]
fn a_hook_may_allow_only_what_the_mode_would_ask() {
    let fx = fixture();
    let engine = engine(&fx.root, &[], &["Bash(curl *)"]);
    let check = |mode: Mode, tool: &str, raw: String, read_only: bool| {
        hook_may_allow(&engine.check(mode, &CallInfo::named(tool, &raw), read_only))
    };
    assert!(check(Mode::Default, "Bash", input("command", "make"), false));
    assert!(check(Mode::Default, "Write", input("path", "src/a.rs"), false));
    assert!(!check(Mode::Default, "Bash", input("command", "curl x"), false), "a deny rule");
    assert!(!check(Mode::Default, "Bash", input("command", "rm -rf /"), false), "the blacklist");
    assert!(!check(Mode::AcceptEdits, "Write", input("path", "AGENTS.md"), false), "self-protection");
    assert!(!check(Mode::Default, "Read", input("path", ".env"), true), "a sensitive file");
    assert!(!check(Mode::Default, "Read", input("path", "src/a.rs"), true), "already allowed");
    assert!(!check(Mode::Plan, "Bash", input("command", "make"), false), "plan mode's refusal");
}

#[test]
fn layers_short_circuit_in_order() {
    let fx = fixture();
    let engine = engine(
        &fx.root,
        &["Bash(*)", "Write(**)", "Read(**)", "mcp__x__*"],
        &["Bash(git push *)", "Read(secret/**)", "mcp__x__drop"],
    );
    use Decision::*;
    use Layer::{Blacklist, Rule, Sandbox};
    let cases: Vec<Case<'_>> = vec![
        // Blacklist beats allow rules and bypass.
        (Mode::Bypass, "Bash", input("command", "rm -rf /"), false, Deny, Blacklist),
        (Mode::Default, "Bash", input("command", "echo ok; sudo rm -rf ~"), false, Deny, Blacklist),
        // Sandbox beats allow rules and bypass.
        (Mode::Bypass, "Write", input("path", "/etc/passwd"), false, Deny, Sandbox),
        (Mode::Bypass, "Read", input("path", "etc_link/passwd"), true, Deny, Sandbox),
        (Mode::Default, "Read", input("path", "../x"), true, Deny, Sandbox),
        (Mode::Default, "Read", input("path", "~/x"), true, Deny, Sandbox),
        (Mode::Default, "Read", "not json".into(), true, Deny, Sandbox),
        (Mode::Default, "Read", "{}".into(), true, Deny, Sandbox),
        (Mode::Default, "Read", "{\"path\": 3}".into(), true, Deny, Sandbox),
        (Mode::Default, "Bash", "{\"cmd\": \"ls\"}".into(), false, Deny, Sandbox),
        (Mode::Default, "Glob", input("pattern", "../../etc/*"), true, Deny, Sandbox),
        (Mode::Default, "Glob", input("pattern", "**/../../x"), true, Deny, Sandbox),
        (Mode::Default, "Glob", input("pattern", "/etc/**"), true, Deny, Sandbox),
        (Mode::Default, "Grep", input("path", "/etc"), true, Deny, Sandbox),
        // Deny rules beat allow rules and bypass.
        (Mode::Bypass, "Bash", input("command", "git push origin main"), false, Deny, Rule),
        (Mode::Bypass, "Bash", input("command", "ls && git push --force x"), false, Deny, Rule),
        (Mode::Bypass, "Read", input("path", "secret/k.txt"), true, Deny, Rule),
        (Mode::Bypass, "mcp__x__drop", "{}".into(), false, Deny, Rule),
        // Allow rules beat the mode.
        (Mode::Default, "Bash", input("command", "cargo build"), false, Allow, Rule),
        (Mode::Default, "Write", input("path", "src/new.rs"), false, Allow, Rule),
        (Mode::Default, "mcp__x__list", "{}".into(), false, Allow, Rule),
        // Substitutions fall through to the mode even under Bash(*).
        (Mode::Default, "Bash", input("command", "echo $(id)"), false, Ask, Layer::Mode),
        (Mode::Bypass, "Bash", input("command", "echo $(id)"), false, Allow, Layer::Mode),
    ];
    run(&engine, &cases);
}

#[test]
fn control_files_always_ask_outside_bypass() {
    let fx = fixture();
    let engine = engine(&fx.root, &["Bash(*)", "Write(**)", "Edit(**)", "Bash(=git config core.hooksPath x)"], &[]);
    use Decision::*;
    use Layer::{Rule, Sandbox};
    let cases: Vec<Case<'_>> = vec![
        (Mode::AcceptEdits, "Write", input("path", ".git/hooks/pre-commit"), false, Ask, Sandbox),
        (Mode::Default, "Edit", input("path", ".git/config"), false, Ask, Sandbox),
        (Mode::AcceptEdits, "Write", input("path", ".mewcode/settings.local.yaml"), false, Ask, Sandbox),
        (Mode::AcceptEdits, "Write", input("path", ".mewcode.yaml"), false, Ask, Sandbox),
        (Mode::AcceptEdits, "Write", input("path", "AGENTS.md"), false, Ask, Sandbox),
        (Mode::AcceptEdits, "Write", input("path", "docs/agents.MD"), false, Ask, Sandbox),
        // A project's skills are instructions the agent follows once the project is trusted.
        (Mode::AcceptEdits, "Write", input("path", ".agents/skills/x/SKILL.md"), false, Ask, Sandbox),
        (Mode::AcceptEdits, "Edit", input("path", ".claude/skills/x/SKILL.md"), false, Ask, Sandbox),
        (Mode::AcceptEdits, "Write", input("path", ".GIT/config"), false, Ask, Sandbox),
        (Mode::AcceptEdits, "Write", input("path", "innocent/config"), false, Ask, Sandbox),
        (Mode::Bypass, "Write", input("path", ".git/config"), false, Allow, Rule),
        (Mode::Default, "Read", input("path", ".git/config"), true, Allow, Layer::Mode),
        (Mode::Default, "Bash", input("command", "echo x > .git/hooks/post-checkout"), false, Ask, Sandbox),
        (Mode::Default, "Bash", input("command", "cp evil .mewcode/settings.yaml"), false, Ask, Sandbox),
        (Mode::Default, "Bash", input("command", "cd .git && echo x > config"), false, Ask, Sandbox),
        (Mode::Default, "Bash", input("command", "sed -i s/a/b/ AGENTS.md"), false, Ask, Sandbox),
        (Mode::Default, "Bash", input("command", "mkdir -p .agents/skills/x"), false, Ask, Sandbox),
        (Mode::Default, "Bash", input("command", "git config core.hooksPath x"), false, Ask, Sandbox),
        (Mode::Default, "Bash", input("command", "touch .g*/hooks/x"), false, Ask, Sandbox),
        (Mode::Default, "Bash", input("command", "git --git-dir=.git status"), false, Ask, Sandbox),
        (Mode::Default, "Bash", input("command", "cat .git/config"), false, Allow, Rule),
        (Mode::Default, "Bash", input("command", "echo x > innocent/config"), false, Ask, Sandbox),
        (Mode::Default, "Bash", input("command", "cp evil innocent/hooks/pre-commit"), false, Ask, Sandbox),
        (Mode::Default, "Bash", input("command", "git status"), false, Allow, Rule),
        (Mode::Default, "Bash", input("command", "touch *.rs"), false, Allow, Rule),
        (Mode::Bypass, "Bash", input("command", "echo x > .git/hooks/x"), false, Allow, Rule),
        (Mode::Default, "Bash", input("command", "cp x *"), false, Ask, Sandbox),
    ];
    run(&engine, &cases);
    // A glob names the files that exist (dot files included: `shopt -s dotglob` is possible):
    // without `.git` and `innocent -> .git` no top-level control file is left, so `*` is
    // harmless; a dot-led glob may still create `.git`.
    std::fs::remove_file(fx.root.join("innocent")).unwrap();
    std::fs::remove_dir_all(fx.root.join(".git")).unwrap();
    std::fs::remove_file(fx.root.join("etc_link")).unwrap();
    let cases: Vec<Case<'_>> = vec![
        (Mode::Default, "Bash", input("command", "cp x *"), false, Allow, Rule),
        (Mode::Default, "Bash", input("command", "mv {a,b} src"), false, Allow, Rule),
        (Mode::Default, "Bash", input("command", "cp x .*"), false, Ask, Sandbox),
        (Mode::Default, "Bash", input("command", "cp x {.git,y}"), false, Ask, Sandbox),
        (Mode::Default, "Bash", input("command", "echo .g*"), false, Allow, Rule),
    ];
    run(&engine, &cases);
    std::fs::write(fx.root.join("AGENTS.md"), "x").unwrap();
    let cases: Vec<Case<'_>> = vec![
        (Mode::Default, "Bash", input("command", "cp x *"), false, Ask, Sandbox),
        (Mode::Default, "Bash", input("command", "cp x A*"), false, Ask, Sandbox),
        (Mode::Default, "Bash", input("command", "echo *"), false, Allow, Rule),
    ];
    run(&engine, &cases);
}

#[test]
fn sensitive_files_ask_unless_a_rule_allows_them() {
    let fx = fixture();
    let plain = engine(&fx.root, &[], &[]);
    let allowing = engine(&fx.root, &["Read(.env)"], &[]);
    use Decision::*;
    use Layer::{Rule, Sandbox};
    let cases: Vec<Case<'_>> = vec![
        (Mode::Default, "Read", input("path", ".env"), true, Ask, Sandbox),
        (Mode::AcceptEdits, "Read", input("path", ".env.production"), true, Ask, Sandbox),
        (Mode::Plan, "Read", input("path", "certs/server.pem"), true, Ask, Sandbox),
        (Mode::Default, "Read", input("path", "tls.KEY"), true, Ask, Sandbox),
        (Mode::Default, "Read", input("path", "keys/id_rsa.pub"), true, Ask, Sandbox),
        (Mode::Default, "Read", input("path", "id_ed25519"), true, Ask, Sandbox),
        (Mode::Default, "Read", input("path", ".netrc"), true, Ask, Sandbox),
        (Mode::Default, "Grep", input("path", ".env"), true, Ask, Sandbox),
        (Mode::Bypass, "Read", input("path", ".env"), true, Allow, Layer::Mode),
        (Mode::Default, "Read", input("path", "environment.rs"), true, Allow, Layer::Mode),
    ];
    run(&plain, &cases);
    run(&allowing, &[(Mode::Default, "Read", input("path", ".env"), true, Allow, Rule)]);
}

#[test]
fn refusals_carry_the_stable_prefixes() {
    let check = |decision, layer, level| Check { decision, layer, level, reason: "why".into() };
    let cases = [
        (check(Decision::Deny, Layer::Blacklist, None), "denied by blacklist: why"),
        (check(Decision::Deny, Layer::Sandbox, None), "denied by sandbox: why"),
        (check(Decision::Deny, Layer::Rule, Some(Level::Local)), "denied by rule (local): why"),
        (check(Decision::Deny, Layer::Rule, Some(Level::Project)), "denied by rule (project): why"),
        (check(Decision::Deny, Layer::Rule, Some(Level::User)), "denied by rule (user): why"),
        (check(Decision::Deny, Layer::Hook, None), "denied by hook: why"),
        (check(Decision::Ask, Layer::Mode, None), "needs approval: why"),
        (check(Decision::Ask, Layer::Sandbox, None), "needs approval: why"),
    ];
    for (check, expected) in cases {
        assert_eq!(refused_by(&check).map(|by| by.text(&check.reason)).as_deref(), Some(expected));
    }
    assert_eq!(RefusedBy::User.text("no"), "denied by user: no");
    assert_eq!(refused_by(&check(Decision::Allow, Layer::Mode, None)), None, "an allowed call was refused by nobody");
    let json = check(Decision::Deny, Layer::Rule, Some(Level::User)).to_json();
    assert_eq!(json, serde_json::json!({"decision": "deny", "layer": "rule", "level": "user", "reason": "why"}));
    assert_eq!(check(Decision::Ask, Layer::Mode, None).to_json()["level"], serde_json::Value::Null);
}

#[test]
fn always_allow_persists_one_exact_rule_per_subcommand() {
    let fx = fixture();
    let engine = engine(&fx.root, &[], &[]);
    let rules_for = |tool: &str, raw: String| engine.always_allow_rules(&CallInfo::named(tool, &raw));
    assert_eq!(
        rules_for("Bash", input("command", "git status && cargo test -- x*")),
        vec!["Bash(=git status)", "Bash(=cargo test -- 'x*')"]
    );
    assert!(rules_for("Bash", input("command", "echo $(id)")).is_empty());
    assert_eq!(rules_for("Write", input("path", "./src/../src/a.rs")), vec!["Write(=src/a.rs)"]);
    assert_eq!(rules_for("mcp__x__y", "{}".into()), vec!["mcp__x__y"]);
    // The persisted rules allow exactly what was approved.
    let texts = RuleTexts {
        allow: rules_for("Bash", input("command", "git status && cargo test -- x*")),
        ..RuleTexts::default()
    };
    let (set, _) = RuleSet::from_texts(vec![(Level::Local, texts)]);
    let approved = Engine::new(fx.root.clone(), None, set);
    let decide = |command: &str| {
        approved.check(Mode::Default, &CallInfo::named("Bash", &input("command", command)), false).decision
    };
    assert_eq!(decide("git status && cargo test -- 'x*'"), Decision::Allow);
    assert_eq!(decide("git status; cargo test -- x*"), Decision::Allow);
    assert_eq!(decide("git status; cargo test -- y*"), Decision::Ask);
    assert_eq!(decide("git status; rm x"), Decision::Ask);
}

/// SECURITY-NOTES §5.3 monotonicity: with Deny < Ask < Allow, adding a sub-command never
/// raises the decision: D(a; b) ≤ min(D(a), D(b)). Random commands, fixed printed seed.
#[test]
fn adding_a_subcommand_never_raises_the_decision() {
    let fx = fixture();
    let engine = engine(&fx.root, &["Bash(echo *)", "Bash(git *)", "Bash(ls*)"], &["Bash(git push *)", "Bash(rm *)"]);
    let seed = 0xdead_beef_cafe_f00du64;
    println!("monotonicity seed: {seed:#x}");
    let mut rng = XorShift(seed);
    let mut next = move || rng.next();
    let tokens = [
        "echo",
        "git",
        "ls",
        "rm",
        "push",
        "status",
        "-rf",
        "/",
        "x",
        "~",
        "$(id)",
        "`id`",
        "'a b'",
        "\"$HOME\"",
        "> out",
        "> /tmp/x",
        "2>&1",
        "| sh",
        "| wc",
        "&&",
        "||",
        "sudo",
        "touch",
        ".git/config",
        "-c",
        "core.pager=x",
        "$X",
        "{a,b}",
        "bash -c 'rm x'",
        "&",
        "(",
        ")",
        "|",
        ";",
    ];
    // Each command starts with a program: a command with nothing to run (`2>&1`) asks on its
    // own but is a no-op inside a compound, which is not a weakening.
    let programs = ["echo", "git", "ls", "rm", "sudo", "touch", "bash -c 'rm x'", "X=1"];
    let rank = |decision: Decision| match decision {
        Decision::Deny => 0,
        Decision::Ask => 1,
        Decision::Allow => 2,
    };
    let decide = |command: &str| {
        let json = input("command", command);
        rank(engine.check(Mode::Default, &CallInfo::named("Bash", &json), false).decision)
    };
    let mut random_command = || {
        let length = next() % 5;
        let program = programs[(next() % programs.len() as u64) as usize];
        let rest = (0..length).map(|_| tokens[(next() % tokens.len() as u64) as usize]).collect::<Vec<_>>();
        format!("{program} {}", rest.join(" "))
    };
    for case in 0..2_000 {
        let (a, b) = (random_command(), random_command());
        let joined = format!("{a}; {b}");
        let (da, db, dj) = (decide(&a), decide(&b), decide(&joined));
        assert!(dj <= da.min(db), "seed {seed:#x} case {case}: D({joined:?})={dj} > min(D({a:?})={da}, D({b:?})={db})");
    }
}

#[test]
fn hostile_sizes_finish_through_the_whole_engine() {
    let fx = fixture();
    let engine = engine(&fx.root, &["Bash(echo *)", "Bash(ls *)"], &["Bash(rm *)", "Read(**/.env)"]);
    let shapes = [
        ("echo a; ".repeat(5_000), true),
        ("echo 'unbalanced ".repeat(3_000) + "'", false),
        ("$(".repeat(3_000), false),
        ("ls > x; ".repeat(2_000), true),
        ("bash -c ".repeat(1_000) + "x", false),
        ("echo a | ".repeat(3_000) + "sh", false),
    ];
    for (shape, allowed) in &shapes {
        let check = engine.check(Mode::Default, &CallInfo::named("Bash", &input("command", shape)), false);
        assert_eq!(check.decision == Decision::Allow, *allowed, "{}", &shape[..40]);
    }
    let deep_path = "a/".repeat(2_000) + "b";
    let _ = engine.check(Mode::Default, &CallInfo::named("Read", &input("path", &deep_path)), true);
}

/// Random text through every tool keeps properties a stub engine would not: plan mode refuses
/// every call that is not read-only, a deny rule wins in every mode whatever follows the command
/// it names, and the text as one quoted argument of `echo` is data that nothing denies.
#[test]
fn random_text_through_every_tool_keeps_the_layer_order() {
    let fx = fixture();
    let engine = engine(&fx.root, &["Bash(*)", "Read(**)"], &["Bash(rm *)"]);
    let alphabet = [
        "é", "日本", "ü", "-", "--", "=", "/", "..", "~", " ", "nice", "sudo", "env", "timeout", "xargs", "git", "-c",
        "sed", "awk", "find", "-exec", ";", "|", "'", "\"", "$", "{", "}", "(", ")", "\\", "\n", "*", "rm", "-rf",
        "é=1", "$(",
    ];
    let seed = 0x0bad_5eed_1234_5678u64;
    println!("engine fuzz seed: {seed:#x}");
    let mut rng = XorShift(seed);
    let mut next = move || rng.next();
    let decide = |mode: Mode, tool: &str, input: &str, read_only: bool| {
        let check = engine.check(mode, &CallInfo::named(tool, input), read_only);
        (check.decision, check.layer)
    };
    for case in 0..3_000 {
        let text: String = (0..next() % 12).map(|_| alphabet[(next() % alphabet.len() as u64) as usize]).collect();
        let context = format!("seed {seed:#x} case {case}: {text:?}");
        for (tool, key) in [("Bash", "command"), ("Read", "path"), ("Glob", "pattern"), ("Grep", "path")] {
            let _ = decide(Mode::Default, tool, &input(key, &text), tool != "Bash");
        }
        for (tool, key) in [("Bash", "command"), ("Write", "path"), ("Edit", "path"), ("mcp__x__y", "q")] {
            let refused = decide(Mode::Plan, tool, &input(key, &text), false);
            assert_eq!(refused, (Decision::Deny, Layer::Mode), "{context}: {tool} ran in plan mode");
        }
        let removal = input("command", &format!("rm {text}"));
        for mode in [Mode::Default, Mode::AcceptEdits, Mode::Bypass] {
            let (decision, _) = decide(mode, "Bash", &removal, false);
            assert_eq!(decision, Decision::Deny, "{context}: rm escaped the deny rule in {mode}");
        }
        let quoted = format!("'{}'", text.replace('\'', "'\\''"));
        let echo = input("command", &format!("echo {quoted}"));
        let (decision, layer) = decide(Mode::Default, "Bash", &echo, false);
        assert_ne!(decision, Decision::Deny, "{context}: quoted text denied as a command ({layer:?})");
        let _ = parse_rule(&text);
    }
}

/// Issue 10: a broad rule cannot turn a package manager or git into a code runner, and a
/// terminal device is never a harmless redirection target.
#[test]
fn broad_rules_do_not_allow_code_running_options_or_the_terminal() {
    let fx = fixture();
    let engine = engine(&fx.root, &["Bash(npm test*)", "Bash(git *)", "Bash(echo *)", "Bash(cd *)"], &[]);
    let check =
        |command: &str| engine.check(Mode::Default, &CallInfo::named("Bash", &input("command", command)), false);
    let allowed = |rule: &str| Check {
        decision: Decision::Allow,
        layer: Layer::Rule,
        level: Some(Level::Project),
        reason: rule.to_string(),
    };
    let asks = |risk: &str| Check {
        decision: Decision::Ask,
        layer: Layer::Mode,
        level: None,
        reason: format!("default mode asks before running commands or external tools ({risk})"),
    };
    let git_at_root = format!("git -C {} status", fx.root.display());
    let cd_root = format!("cd {} && git status", fx.root.display());
    let cases: Vec<(&str, Check)> = vec![
        ("npm test", allowed("Bash(npm test*)")),
        ("npm test -- --watch", allowed("Bash(npm test*)")),
        (
            "npm test --node-options=--require=./x.js",
            asks("--node-options loads code into every node process (--require)"),
        ),
        ("NODE_OPTIONS=--require=./x.js npm test", asks("sets NODE_OPTIONS=--require=./x.js")),
        ("npm_config_node_options=--require=./x.js npm test", asks("sets npm_config_node_options=--require=./x.js")),
        ("export NODE_OPTIONS=--require=./x.js; npm test", asks("export sets NODE_OPTIONS")),
        ("npm test --script-shell=./evil.sh", asks("--script-shell picks the program that runs package scripts")),
        ("git status", allowed("Bash(git *)")),
        ("git -C . status", allowed("Bash(git *)")),
        (&git_at_root, allowed("Bash(git *)")),
        ("git -C src status", asks("git -C another directory runs with that repository's configuration")),
        ("git init --template=./t", asks("git --template installs hooks that run later")),
        ("git --git-dir=x status", asks("git with another repository's configuration can run its programs")),
        ("GIT_DIR=x git status", asks("sets GIT_DIR=x")),
        ("cd src && git status", asks("git after cd to another directory runs with its repository configuration")),
        ("cd . && git status", allowed("Bash(cd *)")),
        ("git status && cd src", allowed("Bash(git *)")),
        ("cd src; echo hi", allowed("Bash(cd *)")),
        ("cd src && echo hi > out.txt", asks("redirection to out.txt may leave the project")),
        ("cd ./ && git status", allowed("Bash(cd *)")),
        ("cd -P . && git status", allowed("Bash(cd *)")),
        ("cd - && git status", asks("git after cd to another directory runs with its repository configuration")),
        ("echo etc_link/passwd ''", asks("names a path outside the project (etc_link/passwd)")),
        (&cd_root, allowed("Bash(cd *)")),
        ("echo hi 2>/dev/null", allowed("Bash(echo *)")),
        ("echo hi > /dev/tty", asks("redirection to the terminal (/dev/tty) is never auto-allowed")),
        ("echo hi > /dev/pts/3", asks("redirection to the terminal (/dev/pts/3) is never auto-allowed")),
        ("echo hi >/dev/console", asks("redirection to the terminal (/dev/console) is never auto-allowed")),
        ("echo hi 2> /dev/tty7", asks("redirection to the terminal (/dev/tty7) is never auto-allowed")),
        ("echo hi | tee /dev/tty", asks("names the terminal (/dev/tty)")),
    ];
    for (command, expected) in cases {
        assert_eq!(check(command), expected, "{command:?}");
    }
}

#[test]
fn a_tool_is_judged_by_the_kind_it_declares_not_by_its_name() {
    // A new file-writing tool ("Patch") gets write_file's checks from its kind alone: the path
    // sandbox in every mode, self-protection, acceptEdits. Undeclared, the same name is an exec.
    let fx = fixture();
    let engine = engine(&fx.root, &[], &[]);
    let patch = |raw: &str, mode: Mode, kind: ToolKind| {
        let check = engine.check(mode, &CallInfo { rule_name: "Patch", input: &input("path", raw), kind }, false);
        (check.decision, check.layer)
    };
    let writes = ToolKind::WritesPath;
    assert_eq!(patch("/etc/passwd", Mode::Bypass, writes), (Decision::Deny, Layer::Sandbox));
    assert_eq!(patch("../outside.txt", Mode::AcceptEdits, writes), (Decision::Deny, Layer::Sandbox));
    assert_eq!(patch("src/a.rs", Mode::AcceptEdits, writes), (Decision::Allow, Layer::Mode));
    assert_eq!(patch("src/a.rs", Mode::Default, writes), (Decision::Ask, Layer::Mode));
    assert_eq!(patch(".git/hooks/pre-commit", Mode::AcceptEdits, writes), (Decision::Ask, Layer::Sandbox));
    assert_eq!(patch("src/a.rs", Mode::AcceptEdits, ToolKind::Opaque), (Decision::Ask, Layer::Mode), "an exec");
    // A reading tool is a read, sandboxed and sensitive-file aware, whatever its name.
    let peek = ToolKind::ReadsPath { root_by_default: false, pattern: false };
    assert_eq!(patch("src/a.rs", Mode::Default, peek), (Decision::Allow, Layer::Mode));
    assert_eq!(patch("/etc/passwd", Mode::Bypass, peek), (Decision::Deny, Layer::Sandbox));
    assert_eq!(patch(".env", Mode::Default, peek).0, Decision::Ask, "a sensitive file");
    // A command-running tool is read by the shell reader and the blacklist. (Rules name tools by
    // the table in `kind.rs`, so a new built-in joins it to be named in rules with a target.)
    let run = |command: &str| {
        let call = CallInfo { rule_name: "Run", input: &input("command", command), kind: ToolKind::RunsCommand };
        engine.check(Mode::Bypass, &call, false)
    };
    assert_eq!(run("rm -rf /").layer, Layer::Blacklist);
}

#[test]
fn in_the_view_read_only_commands_run_unasked_in_default_and_accept_edits_only() {
    let fx = fixture();
    std::fs::write(fx.root.join(".env"), "TOKEN=x\n").unwrap();
    let viewed = engine(&fx.root, &["Bash(echo *)"], &["Bash(cat secret*)"]).with_read_only_commands(true);
    use Decision::*;
    let bash = |command: &str| input("command", command);
    let cases: Vec<Case<'_>> = vec![
        (Mode::Default, "Bash", bash("ls -la src"), false, Allow, Layer::Mode),
        (Mode::AcceptEdits, "Bash", bash("git status && git diff"), false, Allow, Layer::Mode),
        // Plan mode still refuses Bash; bypass allows as before.
        (Mode::Plan, "Bash", bash("ls"), false, Deny, Layer::Mode),
        (Mode::Bypass, "Bash", bash("ls"), false, Allow, Layer::Mode),
        // Writes, programs, sensitive files and the outside still ask.
        (Mode::Default, "Bash", bash("ls > out"), false, Ask, Layer::Mode),
        (Mode::Default, "Bash", bash("make"), false, Ask, Layer::Mode),
        (Mode::Default, "Bash", bash("cat .env"), false, Ask, Layer::Mode),
        (Mode::Default, "Bash", bash("cat /etc/hostname"), false, Ask, Layer::Mode),
        (Mode::Default, "Bash", bash("cat etc_link/hostname"), false, Ask, Layer::Mode),
        // Earlier layers keep their say: the blacklist, deny rules, self-protection, allow rules.
        (Mode::Default, "Bash", bash("rm -rf /"), false, Deny, Layer::Blacklist),
        (Mode::Default, "Bash", bash("cat secret.txt"), false, Deny, Layer::Rule),
        (Mode::Default, "Bash", bash("find .git -name x"), false, Ask, Layer::Sandbox),
        (Mode::Default, "Bash", bash("echo hi"), false, Allow, Layer::Rule),
        // Control flow, which no broad rule allows, is read-only when every command in it is.
        (Mode::Default, "Bash", bash("if test -d src; then echo hi; fi"), false, Allow, Layer::Mode),
    ];
    run(&viewed, &cases);
    let check = viewed.check(Mode::Default, &CallInfo::named("Bash", &bash("pwd")), false);
    assert_eq!(check.reason, READ_ONLY_REASON);
    // Without the view nothing changes.
    let plain = engine(&fx.root, &[], &[]);
    run(&plain, &[(Mode::Default, "Bash", bash("ls -la src"), false, Ask, Layer::Mode)]);
}

#[test]
fn the_view_survives_a_change_of_rules() {
    let fx = fixture();
    let viewed = engine(&fx.root, &[], &[]).with_read_only_commands(true);
    let (rules, _) = RuleSet::from_texts(vec![(Level::Local, RuleTexts::default())]);
    let renewed = viewed.with_rules(rules);
    let check = renewed.check(Mode::Default, &CallInfo::named("Bash", &input("command", "pwd")), false);
    assert_eq!((check.decision, check.layer), (Decision::Allow, Layer::Mode));
}

/// A project and, beside it, `lib/` (added writable, holding `.git/hooks`, `gen/` added
/// read-only inside it) and `docs/` (added read-only), and `away/` (not added).
struct Added {
    dir: TempDir,
    engine: Engine,
}

fn added() -> Added {
    let dir = TempDir::new("engine-added");
    for sub in ["proj/src", "lib/.git/hooks", "lib/gen", "docs", "away"] {
        dir.mkdir(sub);
    }
    dir.write("lib/a.rs", "a");
    dir.write("docs/guide.md", "g");
    dir.write("away/x", "x");
    std::os::unix::fs::symlink("../docs/guide.md", dir.join("proj/src/guide.md")).unwrap();
    let path = |rel: &str| std::fs::canonicalize(dir.join(rel)).unwrap();
    let add = |rel: &str, writable: bool| AddDir { path: path(rel), writable, source: "--add-dir".into() };
    let engine =
        engine(&path("proj"), &[], &[]).with_added_dirs(&[add("lib", true), add("lib/gen", false), add("docs", false)]);
    Added { dir, engine }
}

#[test]
fn added_directories_are_read_like_the_project_and_written_only_when_writable() {
    use Decision::*;
    let fx = added();
    use Layer::{Mode as M, Sandbox as S};
    let path = |rel: &str| input("path", &fx.dir.join(rel).display().to_string());
    run(
        &fx.engine,
        &[
            (Mode::Default, "Read", path("lib/a.rs"), true, Allow, M),
            (Mode::Default, "Read", input("path", "../docs/guide.md"), true, Allow, M),
            (Mode::Default, "Read", input("path", "src/guide.md"), true, Allow, M),
            (Mode::AcceptEdits, "Write", path("lib/a.rs"), false, Allow, M),
            (Mode::Default, "Edit", input("path", "../lib/new.rs"), false, Ask, M),
            (Mode::AcceptEdits, "Write", path("docs/guide.md"), false, Deny, S),
            (Mode::Bypass, "Write", input("path", "../docs/new.md"), false, Deny, S),
            // A read-only directory inside a writable one decides its own files.
            (Mode::Bypass, "Write", path("lib/gen/out.rs"), false, Deny, S),
            // Self-protection holds relative to the added directory.
            (Mode::AcceptEdits, "Write", path("lib/.git/hooks/pre-commit"), false, Ask, S),
            (Mode::AcceptEdits, "Write", path("lib/AGENTS.md"), false, Ask, S),
            (Mode::Default, "Read", path("away/x"), true, Deny, S),
            (Mode::Default, "Glob", serde_json::json!({"pattern": "../docs/*.md"}).to_string(), true, Deny, S),
            (
                Mode::Default,
                "Glob",
                serde_json::json!({"pattern": "*.md", "path": "../docs"}).to_string(),
                true,
                Allow,
                M,
            ),
        ],
    );
    let refusal = |raw: &str, tool: &str| {
        fx.engine.check(Mode::Bypass, &CallInfo::named(tool, &input("path", raw)), false).reason
    };
    let docs = std::fs::canonicalize(fx.dir.join("docs")).unwrap();
    assert_eq!(
        refusal("../docs/guide.md", "Write"),
        format!("../docs/guide.md: {} was added read-only (--add-dir): nothing there may be written", docs.display())
    );
    let away = std::fs::canonicalize(fx.dir.join("away/x")).unwrap();
    assert_eq!(
        refusal("../away/x", "Read"),
        format!("../away/x: path resolves outside the project and the added directories: {}", away.display())
    );
}

#[test]
fn always_allow_in_an_added_directory_names_the_absolute_path_and_walks_reach_it() {
    let fx = added();
    let file = std::fs::canonicalize(fx.dir.join("lib/a.rs")).unwrap();
    let call = input("path", "../lib/a.rs");
    assert_eq!(fx.engine.always_allow_rules(&CallInfo::named("Edit", &call)), [format!("Edit(={})", file.display())]);
    let filter = fx.engine.read_filter();
    let docs = fx.dir.join("docs");
    let gate = filter.gate("Grep", &docs).unwrap();
    assert_eq!(gate.admits(&docs.join("guide.md"), false), Ok(()));
    // From the project, a link into an added directory is followed; one elsewhere is not.
    let src = fx.dir.join("proj/src");
    std::os::unix::fs::symlink("../../away/x", src.join("away.txt")).unwrap();
    let gate = filter.gate("Grep", &src).unwrap();
    assert_eq!(gate.admits(&src.join("guide.md"), true), Ok(()));
    assert_eq!(gate.admits(&src.join("away.txt"), true), Err(read_filter::SkipReason::Outside));
    assert!(filter.gate("Grep", &fx.dir.join("away")).is_err());
}

#[test]
fn a_write_lands_beneath_the_writable_added_directory_it_leads_to() {
    let fx = added();
    let filter = fx.engine.read_filter();
    let canonical = |rel: &str| std::fs::canonicalize(fx.dir.join(rel)).unwrap();
    assert_eq!(filter.writable_root_of(&fx.dir.join("lib/new.rs")), Some(canonical("lib").as_path()));
    assert_eq!(filter.writable_root_of(&fx.dir.join("proj/../lib/x/y.rs")), Some(canonical("lib").as_path()));
    // Read-only (also nested in a writable one), the project, elsewhere: none.
    for rel in ["lib/gen/out.rs", "docs/new.md", "proj/src/a.rs", "away/x"] {
        assert_eq!(filter.writable_root_of(&fx.dir.join(rel)), None, "{rel}");
    }
}

#[test]
fn without_added_directories_a_path_outside_is_refused_naming_the_project_alone() {
    let fx = fixture();
    let engine = engine(&fx.root, &[], &[]);
    let check = engine.check(Mode::Default, &CallInfo::named("Read", &input("path", "/etc/hostname")), true);
    assert_eq!(check.reason, "/etc/hostname: path resolves outside the project: /etc/hostname");
}

#[test]
fn the_same_engine_over_other_rules_decides_by_them() {
    let fx = fixture();
    let asks = engine(&fx.root, &[], &[]);
    let call = input("command", "make");
    assert_eq!(asks.check(Mode::Default, &CallInfo::named("Bash", &call), false).decision, Decision::Ask);
    let (allowing, _) = RuleSet::from_texts(vec![(
        Level::User,
        RuleTexts { allow: vec!["Bash(make)".into()], ask: Vec::new(), deny: Vec::new() },
    )]);
    let allows = asks.with_rules(allowing);
    assert_eq!(allows.check(Mode::Default, &CallInfo::named("Bash", &call), false).decision, Decision::Allow);
}
