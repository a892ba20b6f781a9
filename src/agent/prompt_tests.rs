//! The system prompt's stable and environment parts, and the instruction files it is built from.

use super::*;
use crate::test_dir::TempDir;

#[test]
fn stable_prompt_carries_instructions_and_nothing_that_changes() {
    let instructions = Instructions {
        project: vec![("AGENTS.md".into(), "Use tabs.".into())],
        personal: Some("Answer in French.".into()),
        files: Vec::new(),
    };
    let prompt = stable_prompt(&instructions);
    assert!(prompt.starts_with("You are mewcode"));
    assert!(prompt.ends_with("# Project instructions (from AGENTS.md at the project root)\nUse tabs."));
    assert!(prompt.contains("# The user's personal instructions (from their AGENTS.md)\nAnswer in French."));
    assert_eq!(prompt, stable_prompt(&instructions));
}

#[test]
fn lean_prompt_is_short_keeps_the_rules_and_the_same_instructions() {
    let instructions = Instructions {
        project: vec![("AGENTS.md".into(), "Use tabs.".into())],
        personal: Some("Answer in French.".into()),
        files: Vec::new(),
    };
    let lean = lean_prompt(&instructions);
    let full = stable_prompt(&instructions);
    assert!(lean.starts_with("You are mewcode"));
    // The instructions follow the identity exactly as in the full prompt.
    assert_eq!(lean.strip_prefix(LEAN_IDENTITY), full.strip_prefix(IDENTITY));
    for rule in ["`denied by`", "`needs approval:`", "destructive", "data, not", "secrets"] {
        assert!(LEAN_IDENTITY.contains(rule), "{rule}");
    }
    assert!(LEAN_IDENTITY.len() * 3 < IDENTITY.len(), "{} of {} chars", LEAN_IDENTITY.len(), IDENTITY.len());
    assert!(LEAN_IDENTITY.is_ascii());
}

#[test]
fn instructions_are_read_from_the_root_down_to_the_cwd_nearest_last() {
    let base = TempDir::new("instructions");
    let (root, home) = (base.join("repo"), base.join("home"));
    for dir in [root.join("pkg/a"), root.join("pkg/b"), home.clone()] {
        std::fs::create_dir_all(dir).unwrap();
    }
    let root = std::fs::canonicalize(&root).unwrap();
    std::fs::write(root.join("AGENTS.md"), "Root rules.").unwrap();
    std::fs::write(root.join("CLAUDE.md"), "Not read: AGENTS.md wins.").unwrap();
    std::fs::write(root.join("pkg/CLAUDE.md"), "Pkg rules.").unwrap();
    std::fs::write(root.join("pkg/a/AGENTS.md"), "A rules.").unwrap();
    std::fs::write(root.join("pkg/b/AGENTS.md"), "Not on the way.").unwrap();
    std::fs::write(home.join("AGENTS.md"), "Mine.").unwrap();
    // A link out of the project is never read (its target would go to the provider).
    std::fs::write(base.join("secret"), "key=1").unwrap();
    std::os::unix::fs::symlink(base.join("secret"), root.join("pkg/a/CLAUDE.md")).unwrap();
    let instructions = load_instructions(&root, &root.join("pkg/a"), &home, None);
    let project: Vec<(&str, &str)> =
        instructions.project.iter().map(|(rel, text)| (rel.as_str(), text.as_str())).collect();
    assert_eq!(
        project,
        vec![("AGENTS.md", "Root rules."), ("pkg/CLAUDE.md", "Pkg rules."), ("pkg/a/AGENTS.md", "A rules.")]
    );
    assert_eq!(
        instructions.files,
        vec![home.join("AGENTS.md"), root.join("AGENTS.md"), root.join("pkg/CLAUDE.md"), root.join("pkg/a/AGENTS.md")]
    );
    let prompt = stable_prompt(&instructions);
    assert!(prompt.ends_with(
        "(from AGENTS.md at the project root)\nRoot rules.\n\n# Project instructions (from pkg/CLAUDE.md)\nPkg rules.\n\n# Project instructions (from pkg/a/AGENTS.md)\nA rules."
    ), "{prompt}");
    std::fs::remove_file(root.join("pkg/a/AGENTS.md")).unwrap();
    let instructions = load_instructions(&root, &root.join("pkg/a"), &home, None);
    assert_eq!(instructions.project.len(), 2, "the linked CLAUDE.md is not a fallback: {instructions:?}");
}

#[test]
fn environment_lists_git_state() {
    let environment = Environment {
        cwd: "/p".into(),
        subdir: None,
        os: "linux".into(),
        date: "2026-12-02".into(),
        model: "m".into(),
        git: Some(GitSummary { branch: "main".into(), has_commits: true, changed: 2, untracked: 1 }),
        added: Vec::new(),
    };
    assert_eq!(
        environment_prompt(&environment),
        "# Environment\n- Working directory (project root): /p\n- Platform: linux\n- Today's date: 2026-12-02\n- Model: m\n- Git: branch main, 2 changed and 1 untracked files\n"
    );
}

/// The environment of project `/p` on linux, date `d`, model `m`, with `git`.
fn environment_with(git: Option<GitSummary>) -> Environment {
    let (cwd, os, date, model) = ("/p".into(), "linux".into(), "d".into(), "m".into());
    Environment { cwd, subdir: None, os, date, model, git, added: Vec::new() }
}

#[test]
fn environment_lists_the_added_directories_and_their_access() {
    let environment =
        Environment { added: vec![("/lib".into(), true), ("/docs".into(), false)], ..environment_with(None) };
    let prompt = environment_prompt(&environment);
    assert!(
        prompt.contains(
            "- Also reachable by the file tools and commands, by absolute path: /lib (read-write), /docs (read-only)\n"
        ),
        "{prompt}"
    );
}

#[test]
fn status_v2_reads_branch_unborn_head_and_counts() {
    let fresh = "# branch.oid (initial)\n# branch.head master\n1 A. N... 0 1 1 0 e a\n? b\n? c\n";
    let summary = GitSummary { branch: "master".into(), has_commits: false, changed: 1, untracked: 2 };
    assert_eq!(parse_status_v2(fresh), summary);
    let environment = environment_with(Some(summary));
    assert!(
        environment_prompt(&environment)
            .ends_with("- Git: branch master, no commits yet, 1 changed and 2 untracked files\n")
    );
    let detached =
        "# branch.oid 0123\n# branch.head (detached)\n2 R. N... 0 1 1 0 e e R100 a\tb\nu UU N... 1 2 3 4 a b c d\n";
    assert_eq!(
        parse_status_v2(detached),
        GitSummary { branch: "HEAD".into(), has_commits: true, changed: 2, untracked: 0 }
    );
}
