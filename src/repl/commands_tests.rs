//! Tests of the slash commands: parsing, completion and the /tools summary.

use super::*;

#[test]
fn parses_every_command() {
    let cases: &[(&str, Result<Command, String>)] = &[
        ("/help", Ok(Command::Help)),
        ("/mode", Ok(Command::Mode(None))),
        ("/mode plan", Ok(Command::Mode(Some(Mode::Plan)))),
        ("/mode  acceptEdits ", Ok(Command::Mode(Some(Mode::AcceptEdits)))),
        ("/model", Ok(Command::Model(None))),
        ("/model local", Ok(Command::Model(Some(ModelChoice { provider: "local".into(), model: None })))),
        (
            "/model or/meta-llama/llama-3",
            Ok(Command::Model(Some(ModelChoice { provider: "or".into(), model: Some("meta-llama/llama-3".into()) }))),
        ),
        ("/compact", Ok(Command::Compact)),
        ("/resume", Ok(Command::Resume(None))),
        ("/resume 2", Ok(Command::Resume(Some("2".into())))),
        ("/clear", Ok(Command::Clear)),
        ("/tools", Ok(Command::Tools)),
        ("/mcp", Ok(Command::Mcp)),
        ("/mcp reconnect slow", Ok(Command::McpReconnect("slow".into()))),
        ("/cost", Ok(Command::Cost)),
        ("/new", Ok(Command::Clear)),
        ("/init", Ok(Command::Init)),
        ("/context", Ok(Command::Context)),
        ("/jobs", Ok(Command::Jobs)),
        ("/skills", Ok(Command::Skills)),
        ("/exit", Ok(Command::Exit)),
        ("/quit", Ok(Command::Exit)),
    ];
    for (line, expected) in cases {
        assert_eq!(&parse_command(line), expected, "{line}");
    }
}

#[test]
fn rejects_unknown_commands_modes_and_stray_arguments() {
    assert_eq!(parse_command("/hepl"), Err("unknown command /hepl; /help lists the commands".into()));
    assert!(parse_command("/mode turbo").unwrap_err().contains("unknown mode \"turbo\""));
    assert!(parse_command("/exit now").unwrap_err().contains("takes no argument"));
    assert!(parse_command("/model a b").unwrap_err().contains("unexpected argument"));
    assert_eq!(parse_command("/mcp slow"), Err("usage: /mcp, or /mcp reconnect NAME".into()));
    assert_eq!(parse_command("/mcp reconnect"), Err("usage: /mcp, or /mcp reconnect NAME".into()));
}

#[test]
fn first_sentence_ends_at_a_real_sentence_end() {
    let cases = [
        ("Reads a file. Returns numbered lines.", "Reads a file"),
        ("Runs a command (e.g. `ls -la`) in bash. Output is capped.", "Runs a command (e.g. `ls -la`) in bash"),
        ("Finds text, i.e. a regex. Fast.", "Finds text, i.e. a regex"),
        ("Needs Python 3.11 or later. Else fails.", "Needs Python 3.11 or later"),
        ("Edits README.md and Node.js files. Next.", "Edits README.md and Node.js files"),
        ("Lists files, dirs etc. and links. Next.", "Lists files, dirs etc. and links"),
        ("Wraps\nacross  lines. Second.", "Wraps across lines"),
        ("First paragraph without a period\n\nSecond paragraph.", "First paragraph without a period"),
        ("Ends with its period.", "Ends with its period"),
        ("No period at all", "No period at all"),
        ("", ""),
    ];
    for (description, expected) in cases {
        assert_eq!(first_sentence(description), expected, "{description:?}");
    }
}

#[test]
fn completes_names_modes_and_providers() {
    let providers = vec!["claude".to_string(), "local".to_string()];
    let none: &[String] = &[];
    assert_eq!(complete("/m", &providers, none), (0, vec!["/mode".into(), "/model".into(), "/mcp".into()]));
    assert_eq!(complete("/he", &providers, none), (0, vec!["/help".into()]));
    assert_eq!(complete("/mode a", &providers, none), (6, vec!["acceptEdits".into()]));
    assert_eq!(complete("/model ", &providers, none), (7, providers.clone()));
    assert_eq!(complete("hello /m", &providers, none), (0, vec![]));
    assert_eq!(complete("/mode a b", &providers, none), (0, vec![]));
}

#[test]
fn completes_aliases_and_the_persons_own_commands_after_the_built_ins() {
    let custom = vec!["/fix-issue".to_string(), "/frontend:review".to_string(), "/news".to_string()];
    assert_eq!(complete("/f", &[], &custom), (0, vec!["/fix-issue".into(), "/frontend:review".into()]));
    assert_eq!(complete("/ne", &[], &custom), (0, vec!["/new".into(), "/news".into()]));
    assert_eq!(complete("/q", &[], &custom), (0, vec!["/quit".into()]));
}

#[test]
fn every_name_help_lists_is_a_command_and_only_those_are_built_in() {
    for (names, _, _) in COMMANDS {
        for name in *names {
            // `/permissions` is read by its own file before the others are parsed.
            let handled = super::super::permissions::arguments(name).is_some()
                || !parse_command(name).is_err_and(|err| err.starts_with("unknown command"));
            assert!(handled, "{name}");
            assert!(is_builtin(name), "{name}");
        }
    }
    assert!(!is_builtin("/fix-issue"));
    assert!(!is_builtin("/mode plan"));
}

#[test]
fn help_shows_aliases_beside_their_command() {
    let rows = COMMANDS.iter().map(|(names, arguments, help)| (usage(names, arguments), help.to_string()));
    let help = render_help(rows, 120).join("\n");
    for line in ["  /clear, /new ", "  /exit, /quit ", "  /init ", "  /context ", "  /mode [NAME] "] {
        assert!(help.contains(line), "missing {line:?} in:\n{help}");
    }
}

#[test]
fn skills_lists_name_description_and_where_from() {
    let skill = |name: &str, origin: SkillOrigin, shadows: Vec<String>| Skill {
        name: name.to_string(),
        description: format!("{name} things"),
        body: "BODY".to_string(),
        dir: std::path::PathBuf::from("/s").join(name),
        file: format!(".claude/skills/{name}/SKILL.md"),
        origin,
        shadows,
    };
    let skills =
        [skill("deploy", SkillOrigin::Project, vec![]), skill("pdf", SkillOrigin::User, vec!["x/pdf/SKILL.md".into()])];
    let lines = render_skills(&skills);
    assert_eq!(
        lines,
        [
            ("  deploy           deploy things".to_string(), false),
            ("    .claude/skills/deploy/SKILL.md (the project's)".to_string(), true),
            ("  pdf              pdf things".to_string(), false),
            ("    .claude/skills/pdf/SKILL.md (yours); shadows x/pdf/SKILL.md".to_string(), true),
        ]
    );
    let none = render_skills(&[]);
    assert_eq!(none.len(), 1);
    assert!(none[0].1 && none[0].0.starts_with("no skills: folders with a SKILL.md in .mewcode/skills/"));
}
