//! The person's own commands at the prompt: a built-in name always wins over a file's, the
//! arguments fill the prompt's placeholders (`$ARGUMENTS`, `$1`…`$9`), and the prompt goes to
//! the model as a typed one would.
//!
//! Invariant: the expanded prompt takes the typed prompt's one path (`run_prompt`: session log,
//! note, UserPromptSubmit hooks, approvals), never a side door; the screen shows the line as
//! typed and one dim line naming the file, not the whole expansion. Expansion and argument
//! splitting are pure; a line that cannot be split is said and nothing is sent.

use super::custom_files::CustomCommand;
use super::render::{DIM, RED, paint};
use super::setup::Setup;
use super::turn::TurnContext;
use super::{ReplEnd, chat::Chat, run_prompt, say};
use crate::text::neutralize;
use crate::warning::Warning;

/// Drops the commands whose name a built-in command has, with one warning each.
pub(super) fn drop_shadowed(commands: &mut Vec<CustomCommand>, is_builtin: impl Fn(&str) -> bool) -> Vec<Warning> {
    let mut warnings = Vec::new();
    commands.retain(|command| {
        if !is_builtin(&command.name) {
            return true;
        }
        let message = format!("not used: {} is a built-in command, which always wins", command.name);
        warnings.push(Warning::new(command.file.clone(), message));
        false
    });
    warnings
}

/// Runs `command` with the text typed after its name: its expanded prompt becomes a turn.
pub(super) fn run(
    command: &CustomCommand,
    arguments: &str,
    chat: &mut Chat,
    setup: &Setup,
    context: &TurnContext,
) -> Option<ReplEnd> {
    let prompt = match expand(&command.body, arguments) {
        Ok(prompt) => prompt,
        Err(problem) => {
            say(&paint(setup.color, RED, &neutralize(&format!("{}: {problem}", command.name))));
            return None;
        }
    };
    let lines = prompt.lines().count();
    let plural = if lines == 1 { "" } else { "s" };
    let note = format!("(sent the prompt of {}: {lines} line{plural})", command.file);
    say(&paint(setup.color, DIM, &neutralize(&note)));
    run_prompt(chat, setup, context, &prompt)
}

/// The prompt of a command: `$ARGUMENTS` is everything typed after the name, `$1`…`$9` its
/// words split as a shell would (quotes group, a backslash escapes), a missing one empty. A body
/// without any placeholder gets the arguments appended, so nothing typed is dropped.
pub(super) fn expand(body: &str, arguments: &str) -> Result<String, String> {
    let arguments = arguments.trim();
    let positional = if uses_positional(body) { split_arguments(arguments)? } else { Vec::new() };
    let mut out = String::with_capacity(body.len() + arguments.len());
    let mut rest = body;
    let mut replaced = false;
    while let Some(index) = rest.find('$') {
        out.push_str(&rest[..index]);
        let after = &rest[index + 1..];
        if let Some(tail) = after.strip_prefix("ARGUMENTS") {
            out.push_str(arguments);
            rest = tail;
            replaced = true;
        } else if let Some(digit) = after.chars().next().and_then(|c| c.to_digit(10)).filter(|digit| *digit > 0) {
            out.push_str(positional.get(digit as usize - 1).map_or("", String::as_str));
            rest = &after[1..];
            replaced = true;
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    if !replaced && !arguments.is_empty() {
        out.push_str(&format!("\n\nArguments: {arguments}"));
    }
    Ok(out)
}

/// True when the body has a `$1`…`$9`.
fn uses_positional(body: &str) -> bool {
    body.split('$').skip(1).any(|after| after.starts_with(|c: char| ('1'..='9').contains(&c)))
}

/// Words as a shell splits them: whitespace separates; `'…'` is literal; in `"…"` a backslash
/// escapes `"`, `\`, `$` and `` ` ``; elsewhere a backslash escapes the next character.
fn split_arguments(text: &str) -> Result<Vec<String>, String> {
    let unclosed = |quote: char| {
        format!("unclosed {quote} in the arguments ($1...$9 split them as a shell does: close it, or write \\{quote})")
    };
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(unclosed('\'')),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err(unclosed('"')),
                        },
                        Some(c) => word.push(c),
                        None => return Err(unclosed('"')),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.push(chars.next().unwrap_or('\\'));
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

/// `/help`'s row of a command: its usage (`/fix-issue [NUMBER]`) and what it says about itself,
/// then which file it is and which it shadows.
pub(super) fn help_row(command: &CustomCommand) -> (String, String) {
    let usage = match command.argument_hint.as_str() {
        "" => command.name.clone(),
        hint => format!("{} {hint}", command.name),
    };
    let description = if command.description.is_empty() { "(no description)" } else { &command.description };
    let over = match command.shadows.as_slice() {
        [] => String::new(),
        shadows => format!("; over {}", shadows.join(", ")),
    };
    (neutralize(&usage), neutralize(&format!("{description}  ({}{over})", command.file)))
}

/// What Tab shows for a command: its name, argument hint and description on one line.
pub(super) fn completion_display(command: &CustomCommand) -> String {
    let mut display = command.name.clone();
    for part in [&command.argument_hint, &command.description] {
        if !part.is_empty() {
            display.push_str("  ");
            display.push_str(part);
        }
    }
    neutralize(&display)
}

#[cfg(test)]
#[path = "custom_tests.rs"]
mod tests;
