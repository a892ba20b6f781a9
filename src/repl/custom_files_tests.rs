//! Tests of loading the person's own commands: names, front matter, precedence, bad files.

use super::*;
use crate::test_dir::TempDir;

/// A user folder (no root to stay inside) at `dir/rel`.
fn user_dir(dir: &TempDir, rel: &str, label: &str) -> CommandDir {
    CommandDir { path: dir.join(rel), label: label.to_string(), inside: None }
}

/// The one warning's text, for whole-value comparisons.
fn messages(warnings: &[Warning]) -> Vec<String> {
    warnings.iter().map(ToString::to_string).collect()
}

/// What a file parses to: (description, argument hint, body), or the problem.
type Parsed<'a> = Result<(&'a str, &'a str, &'a str), &'a str>;

#[test]
fn parses_front_matter_and_body() {
    let cases: &[(&str, Parsed)] = &[
        ("Fix issue $1.\n", Ok(("", "", "Fix issue $1."))),
        (
            "---\ndescription: Fix an issue\nargument-hint: [number]\n---\nFix $1\n",
            Ok(("Fix an issue", "[number]", "Fix $1")),
        ),
        // Claude Code's own example is not strict YAML; it is read as written.
        (
            "---\nargument-hint: [pr-number] [priority]\ndescription: Review\n---\nGo",
            Ok(("Review", "[pr-number] [priority]", "Go")),
        ),
        ("---\r\ndescription: \"Say \\\"hi\\\"\"\r\n---\r\nHello\r\n", Ok(("Say \"hi\"", "", "Hello"))),
        ("---\ndescription: 'it''s fine'\n---\nx", Ok(("it's fine", "", "x"))),
        ("---\ndescription: >\n  Two\n  lines\nallowed-tools:\n  - Bash(git:*)\n---\nx", Ok(("Two lines", "", "x"))),
        ("---\n# a comment\n\nmodel: other\n---\nx", Ok(("", "", "x"))),
        ("\u{feff}---\ndescription: bom\n---\nx", Ok(("bom", "", "x"))),
        ("---\ndescription: never closed\nFix it", Err("its front matter (--- at the top) has no closing ---")),
        ("---\ndescription ok\n---\nx", Err("front matter line 2 is not `key: value`: \"description ok\"")),
        ("---\ndescription: empty\n---\n\n  \n", Err("it has no prompt (the file is empty after its front matter)")),
        ("", Err("it has no prompt (the file is empty after its front matter)")),
    ];
    for (text, expected) in cases {
        let parsed = parse_command_file(text)
            .map(|(front, body)| (front.description.clone(), front.argument_hint.clone(), body.to_string()));
        let expected = expected
            .map(|(description, hint, body)| (description.to_string(), hint.to_string(), body.to_string()))
            .map_err(str::to_string);
        assert_eq!(parsed, expected, "{text:?}");
    }
}

#[test]
fn names_come_from_paths_with_subfolders_as_namespaces() {
    assert_eq!(command_name(Path::new("fix-issue.md")), Ok("/fix-issue".to_string()));
    assert_eq!(command_name(Path::new("frontend/review.md")), Ok("/frontend:review".to_string()));
    assert_eq!(command_name(Path::new("a/b/c_1.2.md")), Ok("/a:b:c_1.2".to_string()));
    assert!(command_name(Path::new("has space.md")).unwrap_err().contains("cannot be typed"));
    assert!(command_name(Path::new("x:y.md")).unwrap_err().contains("cannot be typed"));
}

#[test]
fn the_first_folder_wins_and_help_knows_what_it_shadows() {
    let dir = TempDir::new("custom-precedence");
    dir.write("project/.mewcode/commands/review.md", "---\ndescription: project review\n---\nReview the project.");
    dir.write("project/.claude/commands/review.md", "Claude's review.");
    dir.write("project/.claude/commands/frontend/lint.md", "Lint the frontend.");
    dir.write("home/commands/review.md", "User review.");
    dir.write("home/commands/notes.md", "Take notes.");
    dir.write("home/commands/.hidden.md", "Never.");
    dir.write("home/commands/readme.txt", "Not a command.");
    let mut dirs = project_command_dirs(&dir.join("project"));
    dirs.push(user_dir(&dir, "home/commands", "~/home/commands"));
    dirs.push(user_dir(&dir, "missing", "~/.codex/prompts"));
    let (commands, warnings) = load_custom_commands(&dirs);
    assert_eq!(warnings, vec![]);
    let summary: Vec<(&str, &str, &str, Vec<String>)> = commands
        .iter()
        .map(|command| (command.name.as_str(), command.body.as_str(), command.file.as_str(), command.shadows.clone()))
        .collect();
    assert_eq!(
        summary,
        vec![
            ("/frontend:lint", "Lint the frontend.", ".claude/commands/frontend/lint.md", vec![]),
            ("/notes", "Take notes.", "~/home/commands/notes.md", vec![]),
            (
                "/review",
                "Review the project.",
                ".mewcode/commands/review.md",
                vec![".claude/commands/review.md".to_string(), "~/home/commands/review.md".to_string()]
            ),
        ]
    );
    assert_eq!(commands[2].description, "project review");
}

#[test]
fn a_bad_file_is_one_warning_and_the_others_load() {
    let dir = TempDir::new("custom-bad");
    dir.write("cmds/good.md", "Fine.");
    dir.write("cmds/huge.md", "x".repeat(MAX_COMMAND_BYTES as usize + 1));
    dir.write("cmds/latin1.md", b"caf\xe9".as_slice());
    dir.write("cmds/open.md", "---\ndescription: oops\nbody");
    dir.write("cmds/empty.md", "");
    dir.write("cmds/two words.md", "x");
    std::os::unix::fs::symlink(dir.join("nowhere"), dir.join("cmds/gone.md")).unwrap();
    let (commands, warnings) = load_custom_commands(&[user_dir(&dir, "cmds", "~/cmds")]);
    assert_eq!(commands.iter().map(|command| command.name.as_str()).collect::<Vec<_>>(), vec!["/good"]);
    assert_eq!(
        messages(&warnings),
        vec![
            "~/cmds/empty.md: not loaded: it has no prompt (the file is empty after its front matter)",
            "~/cmds/gone.md: not loaded: cannot read it: No such file or directory (os error 2)",
            "~/cmds/huge.md: not loaded: it is larger than 64 KB",
            "~/cmds/latin1.md: not loaded: it is not UTF-8 text",
            "~/cmds/open.md: not loaded: its front matter (--- at the top) has no closing ---",
            "~/cmds/two words.md: not loaded: \"two words.md\" cannot be typed as a command name (use letters, \
             digits, - _ and .)",
        ]
    );
}

#[test]
fn a_projects_command_that_leads_outside_the_project_is_not_read() {
    let dir = TempDir::new("custom-link");
    dir.write("secret.txt", "the key");
    dir.write("project/.mewcode/commands/own.md", "Mine.");
    std::os::unix::fs::symlink(dir.join("secret.txt"), dir.join("project/.mewcode/commands/leak.md")).unwrap();
    let (commands, warnings) = load_custom_commands(&project_command_dirs(&dir.join("project")));
    assert_eq!(commands.iter().map(|command| command.name.as_str()).collect::<Vec<_>>(), vec!["/own"]);
    assert_eq!(
        messages(&warnings),
        vec![
            ".mewcode/commands/leak.md: not loaded: it leads outside the project (a link); a project's commands \
             must be its own files"
        ]
    );
    // A user's own folder may link anywhere (their dotfiles).
    let (commands, _) = load_custom_commands(&[user_dir(&dir, "project/.mewcode/commands", "~/c")]);
    assert_eq!(commands.iter().map(|command| command.body.as_str()).collect::<Vec<_>>(), vec!["the key", "Mine."]);
}

#[test]
fn one_folder_reached_twice_is_read_once() {
    let dir = TempDir::new("custom-twice");
    dir.write("cmds/a.md", "A.");
    let (commands, _) =
        load_custom_commands(&[user_dir(&dir, "cmds", "first"), user_dir(&dir, "cmds/../cmds", "second")]);
    assert_eq!(commands.len(), 1);
    assert_eq!(commands[0].shadows, Vec::<String>::new());
}

#[test]
fn the_trust_question_names_a_projects_commands() {
    let dir = TempDir::new("custom-describe");
    for index in 0..10 {
        dir.write(format!("project/.claude/commands/c{index}.md"), "x");
    }
    dir.write("project/.mewcode/commands/only.md", "x");
    assert_eq!(
        describe_command_dirs(&project_command_dirs(&dir.join("project"))),
        vec![
            "1 slash command from .mewcode/commands: /only".to_string(),
            "10 slash commands from .claude/commands: /c0, /c1, /c2, /c3, /c4, /c5, /c6, /c7 and 2 more".to_string(),
        ]
    );
    assert_eq!(describe_command_dirs(&project_command_dirs(&dir.join("elsewhere"))), Vec::<String>::new());
}
