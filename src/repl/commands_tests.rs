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
    assert_eq!(complete("/m", &providers), (0, vec!["/mode".into(), "/model".into(), "/mcp".into()]));
    assert_eq!(complete("/he", &providers), (0, vec!["/help".into()]));
    assert_eq!(complete("/mode a", &providers), (6, vec!["acceptEdits".into()]));
    assert_eq!(complete("/model ", &providers), (7, providers.clone()));
    assert_eq!(complete("hello /m", &providers), (0, vec![]));
    assert_eq!(complete("/mode a b", &providers), (0, vec![]));
}
