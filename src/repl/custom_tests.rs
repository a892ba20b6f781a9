//! Tests of the person's own commands at the prompt: arguments, shadowing, help and Tab lines.

use super::*;

fn command(name: &str) -> CustomCommand {
    CustomCommand {
        name: name.to_string(),
        description: String::new(),
        argument_hint: String::new(),
        body: "x".to_string(),
        file: format!(".mewcode/commands{}.md", name),
        shadows: Vec::new(),
    }
}

#[test]
fn arguments_fill_the_placeholders() {
    let cases: &[(&str, &str, &str)] = &[
        ("Fix issue $ARGUMENTS now", "  123 urgent ", "Fix issue 123 urgent now"),
        ("Fix $1 with priority $2", "123 high", "Fix 123 with priority high"),
        ("Fix $1 ($2)", "", "Fix  ()"),
        ("Quote: $1 / $2", "'a b' \"c \\\"d\\\"\"", "Quote: a b / c \"d\""),
        ("Word: $1", "it\\'s ok", "Word: it's"),
        ("All: $ARGUMENTS; first: $1", "x y", "All: x y; first: x"),
        ("Cost is $5 and $0 and $HOME and $", "", "Cost is  and $0 and $HOME and $"),
        ("$1$2$3$4$5$6$7$8$9", "a b c d e f g h i j", "abcdefghi"),
        ("Review the code.", "", "Review the code."),
        // Nothing typed is dropped when the body has no placeholder.
        ("Review the code.", "src/main.rs", "Review the code.\n\nArguments: src/main.rs"),
        ("Multi\n$ARGUMENTS", "line one\nline two", "Multi\nline one\nline two"),
    ];
    for (body, arguments, expected) in cases {
        assert_eq!(expand(body, arguments), Ok(expected.to_string()), "{body:?} with {arguments:?}");
    }
}

#[test]
fn an_unclosed_quote_is_an_error_only_when_words_are_needed() {
    assert_eq!(
        expand("Fix $1", "don't"),
        Err("unclosed ' in the arguments ($1...$9 split them as a shell does: close it, or write \\')".to_string())
    );
    assert!(expand("Fix $1", "\"open").unwrap_err().starts_with("unclosed \""));
    assert_eq!(expand("Say $ARGUMENTS", "don't"), Ok("Say don't".to_string()));
}

#[test]
fn splits_arguments_as_a_shell_does() {
    let cases: &[(&str, &[&str])] = &[
        ("", &[]),
        ("  a   b  ", &["a", "b"]),
        ("'a b' c", &["a b", "c"]),
        ("x'y z'w", &["xy zw"]),
        ("\"a\\$b\\n\"", &["a$b\\n"]),
        ("a\\ b", &["a b"]),
        ("''", &[""]),
        ("tab\tsep\nnew", &["tab", "sep", "new"]),
    ];
    for (text, expected) in cases {
        let expected: Vec<String> = expected.iter().map(|word| word.to_string()).collect();
        assert_eq!(split_arguments(text), Ok(expected), "{text:?}");
    }
}

#[test]
fn a_built_in_name_wins_with_one_warning() {
    let mut commands = vec![command("/help"), command("/fix"), command("/new")];
    let warnings = drop_shadowed(&mut commands, |name| ["/help", "/new"].contains(&name));
    assert_eq!(commands.iter().map(|command| command.name.as_str()).collect::<Vec<_>>(), vec!["/fix"]);
    assert_eq!(
        warnings.iter().map(ToString::to_string).collect::<Vec<_>>(),
        vec![
            ".mewcode/commands/help.md: not used: /help is a built-in command, which always wins",
            ".mewcode/commands/new.md: not used: /new is a built-in command, which always wins",
        ]
    );
}

#[test]
fn help_and_tab_show_the_hint_the_description_and_the_file() {
    let mut fix = command("/fix-issue");
    assert_eq!(
        help_row(&fix),
        ("/fix-issue".to_string(), "(no description)  (.mewcode/commands/fix-issue.md)".to_string())
    );
    assert_eq!(completion_display(&fix), "/fix-issue");
    fix.description = "Fix an issue".to_string();
    fix.argument_hint = "[number]".to_string();
    fix.shadows = vec!["~/.codex/prompts/fix-issue.md".to_string()];
    assert_eq!(
        help_row(&fix),
        (
            "/fix-issue [number]".to_string(),
            "Fix an issue  (.mewcode/commands/fix-issue.md; over ~/.codex/prompts/fix-issue.md)".to_string()
        )
    );
    assert_eq!(completion_display(&fix), "/fix-issue  [number]  Fix an issue");
    fix.description = "evil\u{1b}[2J".to_string();
    assert!(!completion_display(&fix).contains('\u{1b}'));
}
