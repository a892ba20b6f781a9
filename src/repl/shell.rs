//! `!command`: a shell command the person runs themselves from the prompt, as in Claude Code's
//! bash mode — confined like every command (the same bash tool and sandbox), never asked about
//! (the person typed it), its output shown and handed to the model with the next prompt.
//!
//! Invariant: the command runs through the agent's own `bash` tool, so the same sandbox and
//! limits apply as to the model's commands; the output reaches the terminal only neutralised;
//! Ctrl-C stops the command (the cancel token the tool watches). What the model is told is
//! bounded (`NOTE_CHARS`, the tail kept).

use super::chat::Chat;
use super::render::{DIM, RED};
use super::say_wrapped;
use super::setup::Setup;
use super::terminal::Interrupts;
use crate::cancel::CancelToken;
use crate::text::neutralize;
use crate::tools::{BASH, ToolContext, ToolOutput, execute_caught};
use std::time::Duration;

/// Characters of the output the model is given; the end is kept (where errors are).
const NOTE_CHARS: usize = 8_000;
/// How often the wait looks at Ctrl-C.
const POLL: Duration = Duration::from_millis(25);

/// Runs `command` (the text after `!`).
pub(super) fn run(chat: &mut Chat, setup: &Setup, command: &str, interrupts: &Interrupts) {
    let command = command.trim();
    if command.is_empty() {
        return say_wrapped(setup.color, DIM, "(! runs a shell command: !ls, !git status)", chat.screen.width, 2);
    }
    let Some(tool) = chat.agent.registry.get(BASH.name) else {
        return say_wrapped(setup.color, RED, "no bash tool in this session", chat.screen.width, 2);
    };
    let cancel = CancelToken::new();
    // The person typed it: no approval, and git is not hardened against the repository's own
    // config (as for a command the person approved at the prompt).
    let context = ToolContext { approved_by_user: true, ..ToolContext::new(setup.root.clone(), cancel.clone()) };
    let input = serde_json::json!({ "command": command }).to_string();
    let seen = interrupts.count();
    let output = std::thread::scope(|scope| {
        let worker = scope.spawn(|| execute_caught(tool.as_ref(), &input, &context));
        while !worker.is_finished() {
            if interrupts.count() != seen {
                cancel.cancel();
            }
            std::thread::sleep(POLL);
        }
        worker.join().unwrap_or_else(|_| ToolOutput::error("the command failed internally (a bug in mewcode)"))
    });
    let shown = neutralize(output.content.trim_end());
    let code = if output.is_error { RED } else { "" };
    if !shown.is_empty() {
        say_wrapped(setup.color, code, &shown, chat.screen.width, 0);
    }
    chat.add_note(&model_note(command, &output));
}

/// What the model is told about a command the person ran: the command, whether it failed, and
/// the end of its output.
fn model_note(command: &str, output: &ToolOutput) -> String {
    let text = output.content.trim_end();
    let skipped = text.chars().count().saturating_sub(NOTE_CHARS);
    let tail: String = text.chars().skip(skipped).collect();
    let cut = if skipped > 0 { format!("(first {skipped} characters left out) ") } else { String::new() };
    let failed = if output.is_error { " (it failed)" } else { "" };
    format!("the user ran this shell command themselves{failed}: `{command}`; its output: {cut}{tail}")
}

#[cfg(test)]
#[path = "shell_tests.rs"]
mod tests;
