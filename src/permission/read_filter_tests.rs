//! ReadFilter tests: each file a walk meets, in a real temp tree with links in and out of the project.

use super::*;
use crate::permission::Engine;
use crate::permission::rules::RuleTexts;
use crate::test_dir::TempDir;
use std::os::unix::fs::symlink;

/// A temp dir holding `project/` (the root) and `outside/` (a home with secrets), removed on drop.
struct Tree {
    _dir: TempDir,
    root: PathBuf,
    outside: PathBuf,
}

fn tree() -> Tree {
    let dir = TempDir::new("read-filter");
    let (root, outside) = (dir.join("project"), dir.join("outside"));
    for (path, text) in [
        (root.join("src/main.rs"), "fn main() {}"),
        (root.join("src/.env"), "TOKEN=1"),
        (root.join("secret/plan.txt"), "plan"),
        (root.join("notes/a.txt"), "a"),
        (outside.join(".ssh/id_ed25519"), "PRIVATE"),
        (outside.join("notes.txt"), "outside"),
    ] {
        dir.write(path, text);
    }
    symlink(outside.join(".ssh/id_ed25519"), root.join("src/fixture.txt")).unwrap();
    symlink("../../outside/notes.txt", root.join("src/relative.txt")).unwrap();
    symlink("main.rs", root.join("src/alias.rs")).unwrap();
    symlink(".env", root.join("src/config.txt")).unwrap();
    symlink("../secret/plan.txt", root.join("src/plan-link.txt")).unwrap();
    symlink("loop-b", root.join("src/loop-a")).unwrap();
    symlink("loop-a", root.join("src/loop-b")).unwrap();
    symlink(root.join("secret"), root.join("hidden")).unwrap();
    symlink(&outside, root.join("away")).unwrap();
    Tree { _dir: dir, root, outside }
}

fn engine_denying(tree: &Tree, deny: &[&str]) -> Engine {
    let texts = RuleTexts {
        allow: vec!["Read(**)".into()],
        ask: Vec::new(),
        deny: deny.iter().map(|rule| rule.to_string()).collect(),
    };
    let (rules, problems) = RuleSet::from_texts(vec![(Level::Local, RuleTexts::default()), (Level::User, texts)]);
    assert_eq!(problems, Vec::new());
    Engine::new(tree.root.clone(), Some(tree.outside.clone()), rules)
}

/// Asserts the decision for each `(path relative to the start, is_symlink, expected)`.
fn check(gate: &FileGate, start: &Path, cases: &[(&str, bool, Result<(), SkipReason>)]) {
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(rel, is_symlink, expected)| {
            let path = if rel.is_empty() { start.to_path_buf() } else { start.join(rel) };
            let got = gate.admits(&path, *is_symlink);
            (got != *expected).then(|| format!("{rel} (symlink {is_symlink}): expected {expected:?}, got {got:?}"))
        })
        .collect();
    assert!(failures.is_empty(), "{failures:#?}");
}

fn denied(rule: &str) -> Result<(), SkipReason> {
    Err(SkipReason::Denied { level: Level::User, rule: rule.to_string() })
}

#[test]
fn builtin_filter_skips_links_out_of_the_project_sensitive_files_and_loops() {
    let tree = tree();
    let filter = ReadFilter::builtin(tree.root.clone());
    let gate = filter.gate("Grep", &tree.root).unwrap();
    check(
        &gate,
        &tree.root,
        &[
            ("src/main.rs", false, Ok(())),
            ("secret/plan.txt", false, Ok(())),
            ("src/alias.rs", true, Ok(())),
            ("src/plan-link.txt", true, Ok(())),
            ("src/fixture.txt", true, Err(SkipReason::Outside)),
            ("src/relative.txt", true, Err(SkipReason::Outside)),
            ("src/loop-a", true, Err(SkipReason::Outside)),
            ("src/.env", false, Err(SkipReason::Sensitive)),
            ("src/config.txt", true, Err(SkipReason::Sensitive)),
            ("src/missing-link", true, Ok(())),
        ],
    );
}

#[test]
fn sensitive_names_are_skipped_in_any_case_and_only_those() {
    let tree = tree();
    let filter = ReadFilter::builtin(tree.root.clone());
    let gate = filter.gate("Glob", &tree.root).unwrap();
    let sensitive = [
        ".env",
        ".ENV.local",
        "server.pem",
        "tls.Key",
        "id_rsa",
        "id_rsa.pub",
        "ID_ED25519",
        ".netrc",
        "tls.\u{212A}ey",
    ];
    let plain = ["env", "environment.rs", ".envrc", "pem.txt", "keys.rs", "my_id_rsa", ".netrc.bak", "key", "é.txt"];
    let cases: Vec<(&str, bool, Result<(), SkipReason>)> = sensitive
        .iter()
        .map(|name| (*name, false, Err(SkipReason::Sensitive)))
        .chain(plain.iter().map(|name| (*name, false, Ok(()))))
        .collect();
    check(&gate, &tree.root, &cases);
}

#[test]
fn a_search_root_the_caller_named_may_be_sensitive_but_not_outside_or_denied() {
    let tree = tree();
    let engine = engine_denying(&tree, &["Read(secret/**)"]);
    let filter = engine.read_filter();
    for (start, expected) in [
        ("src/.env", Ok(())),
        ("src/config.txt", Ok(())),
        ("secret/plan.txt", denied("Read(secret/**)")),
        ("src/plan-link.txt", denied("Read(secret/**)")),
    ] {
        let start = tree.root.join(start);
        let gate = filter.gate("Grep", &start).unwrap();
        check(&gate, &start, &[("", true, expected.clone()), ("", false, expected)]);
    }
    // A sensitive file met below the named root is still skipped.
    let src = tree.root.join("src");
    check(&filter.gate("Grep", &src).unwrap(), &src, &[(".env", false, Err(SkipReason::Sensitive))]);
    for start in ["src/fixture.txt", "away", "src/loop-a", "../outside"] {
        let denial = filter.gate("Grep", Path::new(start)).unwrap_err();
        assert!(matches!(denial, SandboxDenial::Outside(_) | SandboxDenial::Loop), "{start}: {denial:?}");
    }
}

#[test]
fn deny_rules_of_read_and_grep_hide_files_from_both_walks_and_glob_rules_from_glob() {
    let tree = tree();
    let engine = engine_denying(&tree, &["Read(secret/**)", "Grep(notes/*.txt)", "Glob(src/main.rs)", "Write(src/**)"]);
    let filter = engine.read_filter();
    let grep = filter.gate("Grep", &tree.root).unwrap();
    let glob = filter.gate("Glob", &tree.root).unwrap();
    let shared = [
        ("secret/plan.txt", false, denied("Read(secret/**)")),
        ("src/plan-link.txt", true, denied("Read(secret/**)")),
        ("notes/a.txt", false, denied("Grep(notes/*.txt)")),
    ];
    let for_grep = [("src/main.rs", false, Ok(())), ("src/alias.rs", true, Ok(()))];
    check(&grep, &tree.root, &[&shared[..], &for_grep].concat());
    // `src/alias.rs -> main.rs` is named by the rule through where it leads.
    let for_glob =
        [("src/main.rs", false, denied("Glob(src/main.rs)")), ("src/alias.rs", true, denied("Glob(src/main.rs)"))];
    check(&glob, &tree.root, &[&shared[..], &for_glob].concat());
    // Through a link, both spellings count: the link's own path and where it leads.
    let by_link = engine_denying(&tree, &["Read(src/alias.rs)"]);
    check(
        &by_link.read_filter().gate("Grep", &tree.root).unwrap(),
        &tree.root,
        &[("src/alias.rs", true, denied("Read(src/alias.rs)")), ("src/main.rs", false, Ok(()))],
    );
}

#[test]
fn a_search_root_through_a_symlinked_directory_matches_rules_in_both_spellings() {
    let tree = tree();
    let start = tree.root.join("hidden");
    for rule in ["Read(secret/**)", "Read(hidden/plan.txt)", "Grep(/**/plan.txt)"] {
        let engine = engine_denying(&tree, &[rule]);
        let filter = engine.read_filter();
        check(&filter.gate("Grep", &start).unwrap(), &start, &[("plan.txt", false, denied(rule))]);
    }
    let engine = engine_denying(&tree, &["Read(notes/**)"]);
    let filter = engine.read_filter();
    check(&filter.gate("Grep", &start).unwrap(), &start, &[("plan.txt", false, Ok(()))]);
}

#[test]
fn home_anchored_and_bare_deny_rules_apply_and_other_tools_rules_do_not() {
    let tree = tree();
    // The home here is `outside/`, so nothing in the project is under `~/`. (`~` starts a regex
    // in rule syntax, so a home-anchored pattern is written exactly: `=~/…`.)
    let engine = engine_denying(&tree, &["Read(=~/main.rs)", "Bash(cat *)", "Edit"]);
    let filter = engine.read_filter();
    check(&filter.gate("Grep", &tree.root).unwrap(), &tree.root, &[("src/main.rs", false, Ok(()))]);
    let engine = Engine::new(tree.root.clone(), Some(tree.root.join("src")), engine.rules.clone());
    let filter = engine.read_filter();
    check(
        &filter.gate("Glob", &tree.root).unwrap(),
        &tree.root,
        &[("src/main.rs", false, denied("Read(=~/main.rs)")), ("notes/a.txt", false, Ok(()))],
    );
    let everything = engine_denying(&tree, &["Grep"]);
    check(
        &everything.read_filter().gate("Grep", &tree.root).unwrap(),
        &tree.root,
        &[("notes/a.txt", false, denied("Grep"))],
    );
}

#[test]
fn an_unresolvable_root_refuses_the_walk() {
    let tree = tree();
    let filter = ReadFilter::builtin(tree.root.join("gone"));
    assert!(matches!(filter.gate("Grep", Path::new(".")), Err(SandboxDenial::BadRoot(_))));
}

#[test]
fn plain_entries_are_trusted_to_be_where_the_walk_found_them_and_never_resolved() {
    // The walk never descends a symlinked directory, so a plain entry is inside when its start
    // is; resolving it would cost system calls per file for nothing. A caller that lies about
    // a link gets what it asked for.
    let tree = tree();
    let filter = ReadFilter::builtin(tree.root.clone());
    let gate = filter.gate("Grep", &tree.root).unwrap();
    check(
        &gate,
        &tree.root,
        &[("src/fixture.txt", false, Ok(())), ("src/fixture.txt", true, Err(SkipReason::Outside))],
    );
}

#[test]
fn session_logs_are_never_searched_however_the_walk_reaches_them() {
    let tree = tree();
    let log = tree.root.join(".mewcode/sessions/20261203-1/log.jsonl");
    std::fs::create_dir_all(log.parent().unwrap()).unwrap();
    std::fs::write(&log, "{\"content\":\"TOKEN=1\"}").unwrap();
    symlink(".mewcode/sessions/20261203-1/log.jsonl", tree.root.join("old-chat.txt")).unwrap();
    let filter = ReadFilter::builtin(tree.root.clone());
    let gate = filter.gate("Grep", &tree.root).unwrap();
    assert_eq!(gate.admits(&log, false), Err(SkipReason::Sensitive));
    assert_eq!(gate.admits(&tree.root.join("old-chat.txt"), true), Err(SkipReason::Sensitive));
    let below = filter.gate("Grep", Path::new(".mewcode")).unwrap();
    assert_eq!(
        below.admits(&tree.root.join(".mewcode/sessions/20261203-1/log.jsonl"), false),
        Err(SkipReason::Sensitive)
    );
    assert_eq!(gate.admits(&tree.root.join(".mewcode/settings.yaml"), false), Ok(()));
    assert_eq!(gate.admits(&tree.root.join("src/main.rs"), false), Ok(()));
}
