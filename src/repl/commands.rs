//! Slash commands (SPEC §9): parsed purely from the input line, with tab completion.
//!
//! Invariant: parsing and completion are pure functions of the text (and the provider names);
//! nothing here prints or changes state. A line that starts with `/` is always a command, never
//! sent to the model, so a typo like `/hepl` cannot leak into the conversation.

use crate::mode::Mode;

/// One parsed slash command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Command {
    Help,
    /// `/mode` shows the mode; `/mode NAME` sets it.
    Mode(Option<Mode>),
    /// `/model` lists providers; `/model PROVIDER[/MODEL]` switches.
    Model(Option<ModelChoice>),
    Compact,
    /// `/resume` lists this project's sessions; `/resume N` or `/resume ID` resumes one.
    Resume(Option<String>),
    Clear,
    Tools,
    /// `/mcp`: the servers and their state.
    Mcp,
    /// `/mcp reconnect NAME`: disconnect (if connected) and connect the server again.
    McpReconnect(String),
    Cost,
    Exit,
}

/// The target of `/model`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ModelChoice {
    pub provider: String,
    /// A model id replacing the provider's configured one.
    pub model: Option<String>,
}

/// Every command with its one-line help, in `/help` order.
pub(crate) const COMMANDS: &[(&str, &str)] = &[
    ("/help", "this list"),
    ("/mode [NAME]", "show or set the permission mode (default, acceptEdits, plan, bypass); Shift-Tab cycles it"),
    ("/model [PROVIDER[/MODEL]]", "list the configured providers, or switch provider and model"),
    ("/compact", "summarise the conversation to free context"),
    ("/resume [N|ID|all]", "pick one of this project's sessions, or continue one by number or id"),
    ("/clear", "start a new conversation"),
    ("/tools", "list the tools the model can use"),
    ("/mcp [reconnect NAME]", "show the MCP servers (starting, connected, failed) and their tools, or reconnect one"),
    ("/cost", "tokens used this session, and their cost when the model's price is known"),
    ("/exit", "leave mewcode (Ctrl-D does too)"),
];

/// The first sentence of a tool's description, on one line, without its final period (`/tools`).
/// A sentence ends at a period followed by whitespace or the end, or at a blank line; a period
/// is not an end when the word it closes has another period in it (`e.g.`, `i.e.`, `U.S.`) or
/// when the next word starts with a lower-case letter (`etc. and`, `vs. grep`). Periods inside
/// a word (`3.11`, `Node.js`, `README.md`) are never followed by whitespace, so never ends.
pub(crate) fn first_sentence(description: &str) -> String {
    let text = description.trim();
    let paragraph = text.split("\n\n").next().unwrap_or(text);
    let mut end = paragraph.len();
    for (index, c) in paragraph.char_indices() {
        if c != '.' {
            continue;
        }
        let rest = &paragraph[index + 1..];
        let followed_by_blank = rest.chars().next().is_none_or(char::is_whitespace);
        if !followed_by_blank {
            continue;
        }
        let word = paragraph[..index].rsplit(char::is_whitespace).next().unwrap_or("");
        let abbreviation = word.contains('.');
        let continues = rest.trim_start().chars().next().is_some_and(char::is_lowercase);
        if !abbreviation && !continues {
            end = index;
            break;
        }
    }
    let sentence = paragraph[..end].split_whitespace().collect::<Vec<_>>().join(" ");
    sentence.trim_end_matches('.').to_string()
}

/// Parses a line starting with `/`. `Err` carries the message to show.
pub(crate) fn parse_command(line: &str) -> Result<Command, String> {
    let mut words = line.split_whitespace();
    let name = words.next().unwrap_or("/");
    if name == "/mcp" {
        return match words.collect::<Vec<_>>().as_slice() {
            [] => Ok(Command::Mcp),
            ["reconnect", server] => Ok(Command::McpReconnect(server.to_string())),
            _ => Err("usage: /mcp, or /mcp reconnect NAME".to_string()),
        };
    }
    let argument = words.next();
    if let Some(extra) = words.next() {
        return Err(format!("{name}: unexpected argument {extra:?}; /help lists the commands"));
    }
    let no_argument = |command: Command| match argument {
        None => Ok(command),
        Some(argument) => Err(format!("{name} takes no argument (got {argument:?})")),
    };
    match name {
        "/help" | "/?" => no_argument(Command::Help),
        "/mode" => match argument {
            None => Ok(Command::Mode(None)),
            Some(text) => Mode::parse(text).map(|mode| Command::Mode(Some(mode))).ok_or_else(|| {
                format!("/mode: unknown mode {text:?}; the modes are default, acceptEdits, plan, bypass")
            }),
        },
        "/model" => Ok(Command::Model(argument.map(parse_model_choice))),
        "/compact" => no_argument(Command::Compact),
        "/resume" => Ok(Command::Resume(argument.map(str::to_string))),
        "/clear" | "/new" => no_argument(Command::Clear),
        "/tools" => no_argument(Command::Tools),
        "/cost" => no_argument(Command::Cost),
        "/exit" | "/quit" => no_argument(Command::Exit),
        other => Err(format!("unknown command {other}; /help lists the commands")),
    }
}

/// `PROVIDER` or `PROVIDER/MODEL` (a model id may itself contain `/`, as OpenRouter's do).
fn parse_model_choice(text: &str) -> ModelChoice {
    match text.split_once('/') {
        Some((provider, model)) if !model.is_empty() => {
            ModelChoice { provider: provider.to_string(), model: Some(model.to_string()) }
        }
        Some((provider, _)) => ModelChoice { provider: provider.to_string(), model: None },
        None => ModelChoice { provider: text.to_string(), model: None },
    }
}

/// Completions for the text before the cursor: command names after `/`, mode names after
/// `/mode `, provider names after `/model `. Returns the byte offset where the replaced word
/// starts and the candidates.
pub(crate) fn complete(before_cursor: &str, providers: &[String]) -> (usize, Vec<String>) {
    if !before_cursor.starts_with('/') {
        return (0, Vec::new());
    }
    let Some((command, argument)) = before_cursor.split_once(' ') else {
        let names = COMMANDS.iter().map(|(usage, _)| usage.split(' ').next().unwrap_or(usage));
        return (0, names.filter(|name| name.starts_with(before_cursor)).map(String::from).collect());
    };
    if argument.contains(' ') {
        return (0, Vec::new());
    }
    let start = command.len() + 1;
    let options: Vec<String> = match command {
        "/mode" => ["default", "acceptEdits", "plan", "bypass"].iter().map(|mode| mode.to_string()).collect(),
        "/model" => providers.to_vec(),
        "/mcp" => vec!["reconnect".to_string()],
        _ => Vec::new(),
    };
    (start, options.into_iter().filter(|option| option.starts_with(argument)).collect())
}

#[cfg(test)]
mod tests {
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
                Ok(Command::Model(Some(ModelChoice {
                    provider: "or".into(),
                    model: Some("meta-llama/llama-3".into()),
                }))),
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
}
