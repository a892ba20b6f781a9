//! Unit tests of `glob.rs`: order, ignores, brace alternatives, limits and guarded files.

use super::*;
use crate::test_dir::TempDir;
use crate::tools::test_support::{ProjectContext, check_rejects_bad_arguments, run};
use serde_json::json;
use std::time::Duration;

fn set_mtime(project: &TempDir, rel: &str, seconds_ago: u64) {
    let file = std::fs::File::options().write(true).open(project.join(rel)).unwrap();
    file.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000 - seconds_ago)).unwrap();
}

fn glob(project: &TempDir, input: serde_json::Value) -> ToolOutput {
    run(&GlobTool, &project.ctx(), input)
}

#[test]
fn glob_lists_matches_newest_first() {
    let project = TempDir::new("glob-order");
    for (rel, age) in [("old.rs", 300), ("src/new.rs", 10), ("src/deep/mid.rs", 100), ("notes.md", 1)] {
        project.write(rel, "");
        set_mtime(&project, rel, age);
    }
    let output = glob(&project, json!({"pattern": "**/*.rs"}));
    assert_eq!(output, ToolOutput::ok("src/new.rs\nsrc/deep/mid.rs\nold.rs\n"));
    let output = glob(&project, json!({"pattern": "*.rs"}));
    assert_eq!(output, ToolOutput::ok("old.rs\n"));
}

#[test]
fn glob_respects_gitignore_and_skips_git() {
    let project = TempDir::new("glob-ignore");
    project.write(".gitignore", "target/\n*.tmp\n!keep.tmp\n");
    project.write("sub/.gitignore", "/local.rs\n");
    for rel in [
        ".gitignore",
        "sub/.gitignore",
        "a.rs",
        "target/b.rs",
        "x.tmp",
        "keep.tmp",
        ".git/c.rs",
        "sub/local.rs",
        "sub/ok.rs",
    ] {
        if !rel.ends_with(".gitignore") {
            project.write(rel, "");
        }
        set_mtime(&project, rel, 5);
    }
    let output = glob(&project, json!({"pattern": "**/*"}));
    assert_eq!(output, ToolOutput::ok(".gitignore\na.rs\nkeep.tmp\nsub/.gitignore\nsub/ok.rs\n"));
}

#[test]
fn glob_searches_under_path_and_shows_root_relative_paths() {
    let project = TempDir::new("glob-path");
    project.write("src/a.rs", "");
    project.write("b.rs", "");
    let output = glob(&project, json!({"pattern": "*.rs", "path": "src"}));
    assert_eq!(output, ToolOutput::ok("src/a.rs\n"));
    let absolute = format!("{}/src/*.rs", project.path().display());
    assert_eq!(glob(&project, json!({"pattern": absolute})), ToolOutput::ok("src/a.rs\n"));
}

#[test]
fn glob_caps_results_with_a_more_line() {
    let project = TempDir::new("glob-cap");
    for file in 0..(MAX_RESULTS + 5) {
        project.write(format!("f{file:03}.txt"), "");
    }
    let output = glob(&project, json!({"pattern": "*.txt"}));
    assert_eq!(output.content.lines().count(), MAX_RESULTS + 1);
    assert!(output.content.contains("... 5 more files"), "{}", output.content);
}

#[test]
fn glob_reports_no_match_bad_pattern_and_bad_path() {
    let project = TempDir::new("glob-errors");
    project.write("a.txt", "");
    assert_eq!(glob(&project, json!({"pattern": "*.zig"})), ToolOutput::ok("no files match \"*.zig\""));
    assert!(glob(&project, json!({"pattern": "[z-a"})).is_error);
    assert!(glob(&project, json!({"pattern": "*", "path": "a.txt"})).is_error);
    assert!(glob(&project, json!({"pattern": "*", "path": "missing"})).is_error);
    assert!(glob(&project, json!({"pattern": "/elsewhere/*.rs"})).is_error);
}

#[test]
fn expand_braces_expands_alternatives_in_order() {
    let cases: [(&str, &[&str]); 5] = [
        ("*.rs", &["*.rs"]),
        ("*.{ts,tsx}", &["*.ts", "*.tsx"]),
        ("{src,lib}/**/*.{c,h}", &["src/**/*.c", "src/**/*.h", "lib/**/*.c", "lib/**/*.h"]),
        ("a{b,{c,d}}e", &["abe", "ace", "ade"]),
        ("odd{brace", &["odd{brace"]),
    ];
    for (pattern, expected) in cases {
        assert_eq!(expand_braces(pattern), expected.to_vec(), "{pattern}");
    }
}

#[test]
fn glob_accepts_brace_alternatives() {
    let project = TempDir::new("glob-braces");
    for rel in ["a.ts", "b.tsx", "c.js"] {
        project.write(rel, "");
        set_mtime(&project, rel, 5);
    }
    assert_eq!(glob(&project, json!({"pattern": "*.{ts,tsx}"})), ToolOutput::ok("a.ts\nb.tsx\n"));
}

#[test]
fn glob_rejects_bad_arguments() {
    check_rejects_bad_arguments(&GlobTool, "pattern");
}

/// A project with a link to a key outside it, a link inside it, a loop, a `.env` and a
/// directory a rule may deny; every file has the same age, so the listing is by path.
fn guarded_tree() -> (TempDir, TempDir) {
    let outside = TempDir::new("glob-outside");
    outside.write("id_ed25519", "PRIVATE");
    let project = TempDir::new("glob-guarded");
    for rel in ["src/main.rs", ".env", "secret/plan.txt"] {
        project.write(rel, "");
        set_mtime(&project, rel, 5);
    }
    let link = |target: &std::path::Path, rel: &str| std::os::unix::fs::symlink(target, project.join(rel)).unwrap();
    link(&outside.join("id_ed25519"), "src/id.txt");
    link(std::path::Path::new("main.rs"), "src/alias.rs");
    link(std::path::Path::new("loop"), "src/loop");
    link(outside.path(), "away");
    (project, outside)
}

fn ctx_denying(project: &TempDir, deny: &str) -> ToolContext {
    use crate::permission::Engine;
    use crate::permission::rules::{Level, RuleSet, RuleTexts};
    let (rules, _) =
        RuleSet::from_texts(vec![(Level::Project, RuleTexts { deny: vec![deny.into()], ..RuleTexts::default() })]);
    let engine = Engine::new(project.path().to_path_buf(), None, rules);
    ToolContext { read_filter: Some(engine.read_filter()), ..project.ctx() }
}

#[test]
fn glob_omits_links_out_of_the_project_and_sensitive_files_and_counts_them() {
    let (project, _outside) = guarded_tree();
    let output = glob(&project, json!({"pattern": "**/*"}));
    let expected = "secret/plan.txt\nsrc/alias.rs\nsrc/main.rs\n2 files skipped: outside the project or protected\n";
    assert_eq!(output, ToolOutput::ok(expected));
    // Only matching files are counted.
    assert_eq!(glob(&project, json!({"pattern": "**/*.rs"})), ToolOutput::ok("src/alias.rs\nsrc/main.rs\n"));
    let output = glob(&project, json!({"pattern": "**/.env"}));
    assert_eq!(
        output,
        ToolOutput::ok("no files match \"**/.env\"\n1 file skipped: outside the project or protected\n")
    );
    let output = glob(&project, json!({"pattern": "*", "path": "away"}));
    assert!(output.is_error && output.content.starts_with("denied by sandbox: away: "), "{}", output.content);
}

#[test]
fn glob_omits_files_named_by_read_grep_or_glob_deny_rules() {
    let (project, _outside) = guarded_tree();
    for rule in ["Read(secret/**)", "Grep(secret/plan.txt)", "Glob(**/plan.*)"] {
        let output = run(&GlobTool, &ctx_denying(&project, rule), json!({"pattern": "**/*.txt"}));
        assert_eq!(
            output,
            ToolOutput::ok("no files match \"**/*.txt\"\n2 files skipped: outside the project or protected\n"),
            "{rule}"
        );
    }
    let output = run(&GlobTool, &ctx_denying(&project, "Edit(secret/**)"), json!({"pattern": "**/*.txt"}));
    assert_eq!(output, ToolOutput::ok("secret/plan.txt\n1 file skipped: outside the project or protected\n"));
}
