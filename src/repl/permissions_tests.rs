//! Tests of `/permissions`: parsing, completion and the listing.

use super::*;

#[test]
fn parses_list_add_and_remove() {
    let add = |list, level, rule: &str| Ok(Request::Add { list, level, rule: rule.to_string() });
    let cases: &[(&str, Result<Request, String>)] = &[
        ("", Ok(Request::List)),
        ("list", Ok(Request::List)),
        ("add deny Bash(git push *)", add(RuleList::Deny, Level::Local, "Bash(git push *)")),
        ("add allow Bash(npm test *) --project", add(RuleList::Allow, Level::Project, "Bash(npm test *)")),
        ("add ask --user Bash(npm publish *)", add(RuleList::Ask, Level::User, "Bash(npm publish *)")),
        ("add  allow   Read  --session", add(RuleList::Allow, Level::Session, "Read")),
        ("add deny Bash(ls --local)", add(RuleList::Deny, Level::Local, "Bash(ls --local)")),
        ("remove 3", Ok(Request::Remove(Which::Number(3)))),
        ("remove Bash(git push *)", Ok(Request::Remove(Which::Rule("Bash(git push *)".into())))),
        ("rm 1", Ok(Request::Remove(Which::Number(1)))),
    ];
    for (arguments, expected) in cases {
        assert_eq!(&parse_request(arguments), expected, "{arguments:?}");
    }
}

#[test]
fn a_line_that_does_not_parse_says_how_to_use_the_command() {
    for arguments in ["remove", "list all", "show", "add"] {
        assert_eq!(parse_request(arguments), Err(USAGE.to_string()), "{arguments:?}");
    }
    assert_eq!(
        parse_request("add permit Bash"),
        Err("\"permit\" is not an effect: add allow, ask or deny rules".into())
    );
    assert_eq!(
        parse_request("add deny Bash(rm *) --global"),
        Err("unknown scope --global: use --local, --project, --user or --session".into())
    );
    assert!(parse_request("add deny --user Bash(rm *) --local").unwrap_err().starts_with("give one scope"));
    assert!(parse_request("add deny --user").unwrap_err().starts_with("add deny: which rule?"));
}

#[test]
fn only_permissions_lines_are_taken() {
    assert_eq!(arguments("/permissions"), Some(""));
    assert_eq!(arguments("  /permissions   add deny Bash  "), Some("add deny Bash"));
    assert_eq!(arguments("/permissionsx"), None);
    assert_eq!(arguments("/perm"), None);
    assert_eq!(arguments("/status"), None);
}

#[test]
fn completes_the_sub_commands_the_effects_and_the_scopes() {
    let options = complete;
    assert_eq!(options("/permissions "), Some((13, vec!["add".into(), "remove".into(), "list".into()])));
    assert_eq!(options("/permissions re"), Some((13, vec!["remove".into()])));
    assert_eq!(options("/permissions add a"), Some((17, vec!["allow".into(), "ask".into()])));
    assert_eq!(options("/permissions add deny Bash(x) --p"), Some((30, vec!["--project".into()])));
    assert_eq!(options("/permissions add deny Bash(x"), Some((22, Vec::new())));
    assert_eq!(options("/permissions"), None, "the name itself completes as a command");
    assert_eq!(options("/mode "), None);
    // The command name completes from /help's list.
    assert_eq!(super::super::commands::complete("/permi", &[], &[]), (0, vec!["/permissions".to_string()]));
    assert_eq!(super::super::commands::complete("/permissions d", &[], &[]).1, Vec::<String>::new());
}

#[test]
fn the_listing_groups_by_effect_and_names_each_rules_file() {
    use crate::permission::book::RuleFiles;
    use crate::permission::rules::RuleTexts;
    use crate::permission::store::Mark;
    use std::path::PathBuf;
    let files = RuleFiles {
        root: PathBuf::from("/p"),
        user_home: Some(PathBuf::from("/h")),
        project_trusted: false,
        local_mark: Mark::Ours,
    };
    let texts = |allow: &[&str], deny: &[&str]| RuleTexts {
        allow: allow.iter().map(|rule| rule.to_string()).collect(),
        ask: Vec::new(),
        deny: deny.iter().map(|rule| rule.to_string()).collect(),
    };
    let mut book = RuleBook::new(
        files,
        vec![
            (Level::Invocation, texts(&["Bash(git *)"], &[])),
            (Level::Local, texts(&["Bash(=touch made)"], &[])),
            (Level::User, texts(&[], &["Bash(rm *)"])),
        ],
    );
    book.grant_edits();
    let lines: Vec<String> =
        render_listing(&book, Mode::Default, &crate::glyphs::UNICODE).into_iter().map(|(line, ..)| line).collect();
    let expected_start = [
        "mode: default · file edits granted for this session (Shift-Tab or /mode changes it)",
        "deny:",
        "    1  Bash(rm *)  ← user, /h/settings.yaml",
    ];
    assert_eq!(lines[..3], expected_start);
    assert!(
        lines[3].starts_with("    2  catastrophic commands") && lines[3].ends_with("← built-in, cannot be removed")
    );
    let at = |prefix: &str| lines.iter().position(|line| line.starts_with(prefix)).unwrap();
    assert_eq!(
        lines[at("allow:") + 1],
        "    6  file edits (Edit, Write) without asking, as in acceptEdits mode  ← this session (\"always\" to an edit)"
    );
    assert_eq!(lines[at("allow:") + 2], "    7  Bash(git *)  ← this run (--allowedTools, --disallowedTools, --config)");
    assert_eq!(lines[at("allow:") + 3], "    8  Bash(=touch made)  ← local, .mewcode/settings.local.yaml");
    assert_eq!(
        lines[at("files:") + 1],
        "  local    /p/.mewcode/settings.local.yaml (\"always\" answers are saved here)"
    );
    assert_eq!(
        lines[at("files:") + 2],
        "  project  /p/.mewcode/settings.yaml; its allow rules are ignored until you trust this project"
    );
    assert_eq!(lines[at("files:") + 3], "  user     /h/settings.yaml");
    assert!(lines.last().unwrap().starts_with("usage: /permissions"));
}
