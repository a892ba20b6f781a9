//! Tests of the walker and the `.gitignore` matcher: pattern cases as data, trees on disk.

use super::*;
use crate::test_dir::TempDir;

/// Every file under `start` that is not ignored, sorted by `rel`.
fn walk_files(start: &Path, ignore_root: &Path, cancel: &CancelToken) -> Vec<WalkEntry> {
    let states = walk_parallel(start, ignore_root, cancel, Vec::new, |found: &mut Vec<WalkEntry>, entry| {
        found.push(entry.clone())
    });
    let mut files: Vec<WalkEntry> = states.into_iter().flatten().collect();
    files.sort_by(|left, right| left.rel.cmp(&right.rel));
    files
}

/// (pattern lines, path, is_dir, expected decision)
fn check(gitignore: &str, cases: &[(&str, bool, Option<bool>)]) {
    let matcher = Gitignore::parse(gitignore);
    for &(path, is_dir, expected) in cases {
        assert_eq!(matcher.decide(path, is_dir), expected, "gitignore {gitignore:?}, path {path} (dir {is_dir})");
    }
}

#[test]
fn gitignore_unanchored_patterns_match_names_at_any_depth() {
    check(
        "*.log\nbuild\n",
        &[
            ("a.log", false, Some(true)),
            ("deep/x/a.log", false, Some(true)),
            ("a.log.txt", false, None),
            ("build", true, Some(true)),
            ("src/build", false, Some(true)),
            ("builder", true, None),
        ],
    );
}

#[test]
fn gitignore_anchored_patterns_match_from_their_directory() {
    check(
        "/target\ndoc/gen\n",
        &[
            ("target", true, Some(true)),
            ("sub/target", true, None),
            ("doc/gen", true, Some(true)),
            ("x/doc/gen", true, None),
        ],
    );
}

#[test]
fn gitignore_directory_only_patterns_skip_files() {
    check("cache/\n", &[("cache", true, Some(true)), ("cache", false, None), ("a/cache", true, Some(true))]);
}

#[test]
fn gitignore_last_match_wins_with_negation() {
    check(
        "*.txt\n!keep.txt\n",
        &[("a.txt", false, Some(true)), ("keep.txt", false, Some(false)), ("d/keep.txt", false, Some(false))],
    );
}

#[test]
fn gitignore_wildcards_classes_and_double_stars() {
    check(
        "file?.c\n[abc]x\n[!0-9]y\n**/logs\nout/**\na/**/z\nfoo**bar\n",
        &[
            ("file1.c", false, Some(true)),
            ("file12.c", false, None),
            ("file/.c", false, None),
            ("bx", false, Some(true)),
            ("dx", false, None),
            ("qy", false, Some(true)),
            ("5y", false, None),
            ("logs", true, Some(true)),
            ("p/q/logs", true, Some(true)),
            ("out/x/y", false, Some(true)),
            ("out", true, None),
            ("a/z", false, Some(true)),
            ("a/b/c/z", false, Some(true)),
            ("fooXbar", false, Some(true)),
            ("foo/bar", false, None),
        ],
    );
}

#[test]
fn gitignore_comments_blanks_escapes_and_trailing_spaces() {
    check(
        "# comment\n\n\\#hash\n\\!bang\nspaced   \nregex.chars+(x)\n",
        &[
            ("# comment", false, None),
            ("#hash", false, Some(true)),
            ("!bang", false, Some(true)),
            ("spaced", false, Some(true)),
            ("regex.chars+(x)", false, Some(true)),
            ("regexXchars+(x)", false, None),
        ],
    );
}

#[test]
fn gitignore_unclosed_bracket_is_literal() {
    check("a[b\n", &[("a[b", false, Some(true)), ("ab", false, None)]);
}

fn rels(entries: &[WalkEntry]) -> Vec<&str> {
    entries.iter().map(|entry| entry.rel.as_str()).collect()
}

fn sample_tree() -> TempDir {
    let project = TempDir::new("walk");
    project.write(".gitignore", "*.log\ntarget/\n/only-root.txt\n");
    project.write("a.rs", "");
    project.write("debug.log", "");
    project.write("only-root.txt", "");
    project.write("target/out.rs", "");
    project.write(".git/config", "");
    project.write(".hidden/h.rs", "");
    project.write("src/only-root.txt", "");
    project.write("src/.gitignore", "gen/\n!important.log\n");
    project.write("src/important.log", "");
    project.write("src/other.log", "");
    project.write("src/gen/x.rs", "");
    project.write("src/lib/target", ""); // a file named target: `target/` is directory-only
    project
}

#[test]
fn walk_files_honours_root_nested_negated_and_directory_patterns() {
    let project = sample_tree();
    let files = walk_files(project.path(), project.path(), &CancelToken::new());
    assert_eq!(
        rels(&files),
        vec![
            ".gitignore",
            ".hidden/h.rs",
            "a.rs",
            "src/.gitignore",
            "src/important.log",
            "src/lib/target",
            "src/only-root.txt",
        ]
    );
    assert_eq!(files[2].path, project.join("a.rs"));
}

#[test]
fn walk_files_from_a_subdirectory_applies_the_parents_gitignore() {
    let project = sample_tree();
    let files = walk_files(&project.join("src"), project.path(), &CancelToken::new());
    assert_eq!(rels(&files), vec![".gitignore", "important.log", "lib/target", "only-root.txt"]);
}

#[test]
fn walk_files_of_a_single_file_visits_it_alone() {
    let project = sample_tree();
    let files = walk_files(&project.join("debug.log"), project.path(), &CancelToken::new());
    assert_eq!(rels(&files), vec!["debug.log"]);
    assert!(walk_files(&project.join("missing"), project.path(), &CancelToken::new()).is_empty());
}

#[test]
fn walk_does_not_follow_symlinked_directories_but_visits_linked_files() {
    let project = TempDir::new("walk-links");
    project.write("real/f.txt", "");
    std::os::unix::fs::symlink(project.join("real"), project.join("loop")).unwrap();
    std::os::unix::fs::symlink(project.join("real/f.txt"), project.join("link.txt")).unwrap();
    std::os::unix::fs::symlink("self", project.join("self")).unwrap();
    std::os::unix::fs::symlink("missing", project.join("dangling")).unwrap();
    let files = walk_files(project.path(), project.path(), &CancelToken::new());
    assert_eq!(rels(&files), vec!["link.txt", "real/f.txt"]);
    let links: Vec<bool> = files.iter().map(|entry| entry.is_symlink).collect();
    assert_eq!(links, vec![true, false], "only the link is marked for the gate to resolve");
    let start = walk_files(&project.join("link.txt"), project.path(), &CancelToken::new());
    assert_eq!(
        start.iter().map(|entry| (entry.rel.as_str(), entry.is_symlink)).collect::<Vec<_>>(),
        [("link.txt", true)]
    );
}

#[test]
fn walk_visits_every_file_of_a_wide_and_deep_tree_once() {
    let project = TempDir::new("walk-wide");
    let mut expected = Vec::new();
    for dir in 0..20 {
        for file in 0..(dir * 7) {
            let rel = format!("d{dir:02}/sub/f{file:03}.txt");
            project.write(&rel, "x");
            expected.push(rel);
        }
    }
    expected.sort();
    let files = walk_files(project.path(), project.path(), &CancelToken::new());
    assert_eq!(rels(&files), expected.iter().map(String::as_str).collect::<Vec<_>>());
}

#[test]
fn walk_stops_early_when_cancelled() {
    let project = TempDir::new("walk-cancel");
    for file in 0..100 {
        project.write(format!("d/f{file}"), "");
    }
    let cancel = CancelToken::new();
    cancel.cancel();
    assert!(walk_files(project.path(), project.path(), &cancel).is_empty());
}

#[test]
fn walk_reraises_a_visitor_panic_instead_of_hanging() {
    let project = TempDir::new("walk-panic");
    for file in 0..100 {
        project.write(format!("d{}/f{file}", file % 5), "");
    }
    let outcome = std::panic::catch_unwind(|| {
        walk_parallel(
            project.path(),
            project.path(),
            &CancelToken::new(),
            || (),
            |_, entry| {
                assert!(!entry.rel.ends_with("f42"), "boom");
            },
        )
    });
    assert!(outcome.is_err());
}

#[test]
fn walk_with_options_visits_every_link_unresolved_prunes_and_reads_metadata() {
    let project = TempDir::new("walk-options");
    project.write("real/f.txt", "12345");
    project.write("heavy/x.txt", "x");
    project.write("many/a", "a");
    for index in 0..40 {
        project.write(format!("many/f{index:02}"), "many");
    }
    std::os::unix::fs::symlink(project.join("real"), project.join("dir-link")).unwrap();
    std::os::unix::fs::symlink("missing", project.join("dangling")).unwrap();
    std::os::unix::fs::symlink("real/f.txt", project.join("file-link")).unwrap();
    let prune = |path: &Path, name: &str| name == "heavy" && path.parent() == Some(project.path());
    let options = WalkOptions {
        start: project.path(),
        ignore_root: project.path(),
        all_links: true,
        metadata: true,
        prune: Some(&prune),
    };
    let states = walk_with(&options, &CancelToken::new(), Vec::new, |found: &mut Vec<WalkEntry>, entry| {
        found.push(entry.clone())
    });
    let mut files: Vec<WalkEntry> = states.into_iter().flatten().collect();
    files.sort_by(|left, right| left.rel.cmp(&right.rel));
    let few: Vec<(&str, bool)> = files
        .iter()
        .filter(|entry| !entry.rel.starts_with("many/"))
        .map(|entry| (entry.rel.as_str(), entry.is_symlink))
        .collect();
    assert_eq!(few, [("dangling", true), ("dir-link", true), ("file-link", true), ("real/f.txt", false)]);
    assert_eq!(files.iter().filter(|entry| entry.rel.starts_with("many/")).count(), 41, "batched files too");
    for entry in &files {
        let metadata = entry.metadata.as_ref().unwrap_or_else(|| panic!("{} has no metadata", entry.rel));
        assert_eq!(
            metadata.file_type().is_symlink(),
            entry.is_symlink,
            "{}: the entry's own, not its target's",
            entry.rel
        );
    }
    let real = files.iter().find(|entry| entry.rel == "real/f.txt").unwrap();
    assert_eq!(real.metadata.as_ref().unwrap().len(), 5);
    let plain = walk_files(project.path(), project.path(), &CancelToken::new());
    assert!(plain.iter().all(|entry| entry.metadata.is_none()), "walk_parallel reads no metadata");
}
