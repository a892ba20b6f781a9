//! Unit tests of the `checks:` key: entries and their errors, glob matching, the command for a
//! file, and how a level's checks replace the lower levels'.

use super::*;
use std::path::Path;

fn parse(yaml: &str) -> Result<Vec<CheckConfig>, String> {
    parse_with_warnings(yaml).map(|(checks, _)| checks)
}

fn parse_with_warnings(yaml: &str) -> Result<(Vec<CheckConfig>, Vec<String>), String> {
    let map: Mapping = serde_yaml::from_str(yaml).unwrap();
    let ctx = FileContext { display: "config.yaml", dir: Path::new("/"), lookup: None };
    let mut warnings = Vec::new();
    let checks = parse_checks(&map, &ctx, &mut warnings).map_err(|err| err.to_string())?;
    Ok((checks, warnings.iter().map(ToString::to_string).collect()))
}

fn check(pattern: &str, command: &str) -> CheckConfig {
    CheckConfig {
        pattern: Glob::parse(pattern).unwrap(),
        command: command.to_string(),
        timeout_s: DEFAULT_TIMEOUT_S,
        source: "config.yaml".to_string(),
    }
}

fn matches(pattern: &str, rel: &str) -> bool {
    Glob::parse(pattern).unwrap().matches(rel)
}

#[test]
fn entries_read_pattern_command_and_timeout() {
    assert_eq!(parse("other: 1\n"), Ok(Vec::new()));
    assert_eq!(parse("checks:\n"), Ok(Vec::new()));
    assert_eq!(parse("checks: []\n"), Ok(Vec::new()));
    let checks = parse(
        "checks:\n  - {pattern: \"**/*.py\", command: \"python3 -m py_compile {file}\"}\n  - {pattern: \"src/**/*.rs\", command: cargo check -q, timeout: 600}\n  - {pattern: a, command: b, timeout: \"1\"}\n",
    )
    .unwrap();
    assert_eq!(checks.len(), 3);
    assert_eq!(
        (checks[0].pattern.as_str(), checks[0].command.as_str(), checks[0].timeout_s, checks[0].source.as_str()),
        ("**/*.py", "python3 -m py_compile {file}", 30, "config.yaml")
    );
    assert_eq!((checks[1].pattern.as_str(), checks[1].timeout_s), ("src/**/*.rs", 600));
    assert_eq!(checks[2].timeout_s, 1);
}

#[test]
fn bad_entries_are_errors_naming_the_key_path() {
    let cases = [
        ("checks: {pattern: a}\n", "config.yaml: checks: expected a list of {pattern, command, timeout} entries"),
        ("checks: [x]\n", "config.yaml: checks[0]: expected a mapping {pattern, command, timeout}, got a string"),
        ("checks:\n  - {command: x}\n", "config.yaml: checks[0].pattern: missing; a glob"),
        ("checks:\n  - {pattern: ~, command: x}\n", "config.yaml: checks[0].pattern: missing"),
        ("checks:\n  - {pattern: 3, command: x}\n", "config.yaml: checks[0].pattern: expected a glob string, got 3"),
        (
            "checks:\n  - {pattern: a, command: x}\n  - {pattern: \"[a\", command: x}\n",
            "config.yaml: checks[1].pattern: a [ is not closed",
        ),
        ("checks:\n  - {pattern: a}\n", "config.yaml: checks[0].command: missing; a shell command"),
        ("checks:\n  - {pattern: a, command: \"  \"}\n", "config.yaml: checks[0].command: missing"),
        ("checks:\n  - {pattern: a, command: [x]}\n", "config.yaml: checks[0].command: expected a string, got a list"),
        (
            "checks:\n  - {pattern: a, command: x, timeout: 0}\n",
            "config.yaml: checks[0].timeout: expected seconds from 1 to 600, got 0",
        ),
        (
            "checks:\n  - {pattern: a, command: x, timeout: 601}\n",
            "config.yaml: checks[0].timeout: expected seconds from 1 to 600, got 601",
        ),
        (
            "checks:\n  - {pattern: a, command: x, timeout: soon}\n",
            "config.yaml: checks[0].timeout: expected a whole number",
        ),
    ];
    for (yaml, expected) in cases {
        let err = parse(yaml).unwrap_err();
        assert!(err.starts_with(expected), "{yaml}: {err}");
    }
}

#[test]
fn an_unknown_key_of_an_entry_is_a_warning() {
    let (checks, warnings) = parse_with_warnings("checks:\n  - {pattern: a, command: x, timout: 5}\n").unwrap();
    assert_eq!(checks[0].timeout_s, DEFAULT_TIMEOUT_S);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("checks[0].timout: unknown key"), "{warnings:?}");
}

#[test]
fn bad_globs_say_what_is_wrong() {
    let cases = [
        ("", "empty pattern"),
        ("   ", "empty pattern"),
        (" *.py", "has spaces around it"),
        ("src/", "names a directory, not files; to match every file under it write DIR/**"),
        ("/", "names a directory, not files; to match every file under it write **"),
        ("a//b", "empty, . or .. segment"),
        ("../lib/*.py", "empty, . or .. segment"),
        ("./src/*.py", "empty, . or .. segment"),
        ("src/./a", "empty, . or .. segment"),
        ("*.py\\", "ends with a lone backslash"),
        ("[abc", "a [ is not closed"),
        ("a[]", "a [ is not closed"),
        ("*.{py,pyi", "a { is not closed"),
        ("*.py}", "a } has no { before it"),
        ("{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}", "more than 256 alternatives"),
        ("[z-a].py", "not a valid glob"),
        ("{src/,}", "names a directory"),
    ];
    for (pattern, expected) in cases {
        match Glob::parse(pattern) {
            Ok(glob) => panic!("{pattern:?} was accepted: {glob:?}"),
            Err(message) => assert!(message.contains(expected), "{pattern:?}: {message}"),
        }
    }
    // Eight groups of two stay within the limit.
    assert!(Glob::parse("{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}").is_ok());
}

#[test]
fn a_glob_matches_project_relative_paths() {
    let cases = [
        ("**/*.py", "a.py", true),
        ("**/*.py", "pkg/sub/a.py", true),
        ("**/*.py", "a.pyc", false),
        ("**/*.py", "a.py/b.txt", false),
        ("src/**/*.rs", "src/main.rs", true),
        ("src/**/*.rs", "src/a/b/c.rs", true),
        ("src/**/*.rs", "tests/a.rs", false),
        ("src/**/*.rs", "xsrc/a.rs", false),
        ("src/*.rs", "src/a/b.rs", false),
        ("src/*.rs", "src/b.rs", true),
        ("src/**", "src/a/b.rs", true),
        ("**", "any/where/x", true),
        // No slash: the file name in any directory; a leading slash: the root only.
        ("*.py", "deep/down/x.py", true),
        ("*.py", "x.py", true),
        ("Makefile", "sub/Makefile", true),
        ("Makefile", "sub/Makefile.in", false),
        ("/setup.py", "setup.py", true),
        ("/setup.py", "pkg/setup.py", false),
        ("/src/*.c", "src/a.c", true),
        // Classes, single characters, escapes, braces.
        ("*.[ch]", "lib/a.h", true),
        ("*.[ch]", "lib/a.o", false),
        ("*.[!ch]", "lib/a.o", true),
        ("file?.txt", "file1.txt", true),
        ("file?.txt", "file10.txt", false),
        ("a\\*b", "a*b", true),
        ("a\\*b", "axb", false),
        ("**/*.{ts,tsx}", "web/app.tsx", true),
        ("**/*.{ts,tsx}", "web/app.ts", true),
        ("**/*.{ts,tsx}", "web/app.js", false),
        ("{src,tests}/**/*.rs", "tests/it/main.rs", true),
        ("{src,tests}/**/*.rs", "benches/a.rs", false),
        ("{*.py,web/*.{js,mjs}}", "deep/a.py", true),
        ("{*.py,web/*.{js,mjs}}", "web/a.mjs", true),
        ("{*.py,web/*.{js,mjs}}", "deep/web/a.mjs", false),
        ("a\\{b,c\\}", "a{b,c}", true),
        ("{a\\,b,c}.txt", "a,b.txt", true),
        ("{a\\,b,c}.txt", "c.txt", true),
        ("{a\\,b,c}.txt", "b.txt", false),
        ("x{,.bak}", "x.bak", true),
        ("x{,.bak}", "x", true),
        // A nested group closes before the outer group's next comma.
        ("{a{b,c},d}.txt", "d.txt", true),
        ("{a{b,c},d}.txt", "ac.txt", true),
        ("{a{b,c},d}.txt", "ab,d.txt", false),
        // An escaped bracket is no class; a class may hold a bracket.
        ("a\\[b", "a[b", true),
        ("\\[b", "[b", true),
        ("[[]a", "[a", true),
        ("[a[]x", "[x", true),
        // Regex characters are taken literally.
        ("a+b.(c)", "a+b.(c)", true),
        ("a+b.(c)", "aab.(c)", false),
        ("*.py", "a.py\nb", false),
    ];
    for (pattern, rel, expected) in cases {
        assert_eq!(matches(pattern, rel), expected, "{pattern:?} against {rel:?}");
    }
}

#[test]
fn globs_are_equal_by_their_text() {
    assert_eq!(Glob::parse("*.py").unwrap(), Glob::parse("*.py").unwrap());
    assert_ne!(Glob::parse("*.py").unwrap(), Glob::parse("**/*.py").unwrap());
}

#[test]
fn the_command_gets_the_path_as_one_shell_word() {
    let py = check("**/*.py", "python3 -m py_compile {file} && echo {file}");
    assert_eq!(py.command_for("pkg/a_b-1.py"), "python3 -m py_compile pkg/a_b-1.py && echo pkg/a_b-1.py");
    assert_eq!(py.command_for("my file.py"), "python3 -m py_compile 'my file.py' && echo 'my file.py'");
    assert_eq!(py.command_for("it's.py"), "python3 -m py_compile 'it'\\''s.py' && echo 'it'\\''s.py'");
    assert_eq!(py.command_for("$(rm -rf ~).py"), "python3 -m py_compile '$(rm -rf ~).py' && echo '$(rm -rf ~).py'");
    assert_eq!(py.command_for("-n.py"), "python3 -m py_compile ./-n.py && echo ./-n.py");
    assert_eq!(py.command_for("a;b`c`.py"), "python3 -m py_compile 'a;b`c`.py' && echo 'a;b`c`.py'");
    assert_eq!(py.command_for("x\u{e9}.py"), "python3 -m py_compile 'x\u{e9}.py' && echo 'x\u{e9}.py'");
    assert_eq!(check("*", "cargo check -q").command_for("src/a.rs"), "cargo check -q");
    assert_eq!(shell_word(""), "''");
    assert_eq!(shell_word("a/b.c_d-e+f,g:h@i%j=k"), "a/b.c_d-e+f,g:h@i%j=k");
    assert_eq!(shell_word("a*b"), "'a*b'");
}

#[test]
fn a_levels_checks_replace_the_lower_ones_of_the_same_pattern() {
    let mut merged = vec![check("**/*.py", "user-py {file}"), check("*.sh", "shellcheck {file}")];
    merge_checks(
        &mut merged,
        vec![check("**/*.py", "ruff {file}"), check("**/*.py", "mypy {file}"), check("*.rs", "x")],
    );
    let commands: Vec<&str> = merged.iter().map(|check| check.command.as_str()).collect();
    assert_eq!(commands, ["shellcheck {file}", "ruff {file}", "mypy {file}", "x"]);
    merge_checks(&mut merged, Vec::new());
    assert_eq!(merged.len(), 4);
}
