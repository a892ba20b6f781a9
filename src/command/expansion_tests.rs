//! Unit tests of brace and glob expansion against the files that exist.

use super::*;
use crate::shell;
use crate::test_dir::TempDir;

/// `.env`, `README.md`, `sub/server.key`, `sub/deeper/id_rsa` and `sub/notes.txt`.
fn project() -> TempDir {
    let dir = TempDir::new("expansion");
    for file in [".env", "README.md", "sub/server.key", "sub/deeper/id_rsa", "sub/notes.txt"] {
        dir.write(file, "x");
    }
    dir
}

fn words_of(command: &str, root: &Path) -> Vec<String> {
    let parsed = shell::parse_command(command).unwrap();
    let command = &parsed.subcommands[0];
    command.words.iter().zip(&command.word_info).skip(1).flat_map(|(w, i)| expand(w, i, root).words).collect()
}

#[test]
fn globs_match_existing_files_dot_files_and_case_included() {
    let dir = project();
    let root = dir.path();
    assert_eq!(words_of("cat .e*", root), [".e*", ".env"]);
    assert_eq!(words_of("cat .[e]nv", root), [".[e]nv", ".env"]);
    assert!(words_of("cat *", root).contains(&".env".to_string()));
    assert!(words_of("cat ./*", root).contains(&"./.env".to_string()));
    assert_eq!(words_of("cat sub/*.KEY", root), ["sub/*.KEY", "sub/server.key"]);
    assert_eq!(words_of("cat */*/id_*", root), ["*/*/id_*", "sub/deeper/id_rsa"]);
    assert_eq!(words_of("cat sub/deeper/../*.key", root), ["sub/deeper/../*.key", "sub/deeper/../server.key"]);
    assert_eq!(words_of("cat nothing*", root), ["nothing*"]);
}

#[test]
fn braces_expand_and_quoted_glob_characters_stay_literal() {
    let dir = project();
    let root = dir.path();
    assert_eq!(words_of("cat {.env,x}", root), [".env", "x"]);
    assert_eq!(words_of("cat {.e,y}*", root), [".e*", ".env", "y*"]);
    assert_eq!(words_of("cat '.e*'", root), [".e*"]);
    assert_eq!(words_of("cat .e'*'", root), [".e*"]);
    assert_eq!(words_of("cat README.md", root), ["README.md"]);
    assert_eq!(words_of("cat {.e'*',x}", root), [".e*", "x"]);
    assert_eq!(words_of("cat {.e\\*,x}", root), [".e*", "x"]);
}

#[test]
fn absolute_globs_are_spelled_absolute_and_outside_directories_are_not_listed() {
    let dir = project();
    let root = dir.path();
    let inside = format!("cat {}/.e*", root.display());
    assert_eq!(words_of(&inside, root)[1], format!("{}/.env", std::fs::canonicalize(root).unwrap().display()));
    assert_eq!(words_of("cat /etc/pass*", root), ["/etc/pass*"]);
}

#[test]
fn too_many_matches_truncate() {
    let dir = project();
    let root = dir.path();
    let parsed = shell::parse_command("cat f*").unwrap();
    let command = &parsed.subcommands[0];
    for index in 1..MAX_MATCHES {
        std::fs::write(root.join(format!("f{index}")), "").unwrap();
    }
    std::fs::write(root.join("f0"), "").unwrap();
    let exactly = expand(&command.words[1], &command.word_info[1], root);
    assert!(!exactly.truncated);
    assert_eq!(exactly.words.len(), MAX_MATCHES + 1, "the pattern and every match");
    std::fs::write(root.join(format!("f{MAX_MATCHES}")), "").unwrap();
    assert!(expand(&command.words[1], &command.word_info[1], root).truncated);
}
