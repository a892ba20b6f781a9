//! The interactive front end (SPEC §9): a banner, then a loop of status line + prompt, slash
//! commands, and turns rendered as they stream.
//!
//! Invariant: one `Conversation` per session (until `/clear`); the agent is only driven through
//! `Agent::run` and its events (`turn.rs`). The REPL never installs signal handlers itself:
//! `app/` installs Ctrl-C handling after `LineEditor::open` and hands in the `Interrupts`
//! counter it bumps, and it reaches the wiring only through `Host`. Decisions (what a Ctrl-C at
//! the prompt means, what a command does) are pure functions; this file is the loop that wires
//! them to the terminal.
//!
//! - `mod.rs` — the loop: read a line, run a command or a prompt, until the user leaves
//! - `setup.rs` — what the REPL starts with (`Setup`) and asks of the program (`Host`)
//! - `chat.rs` — the state between prompts: conversation, provider, agent, mode, accounting
//! - `commands.rs` — the slash commands: parsing, help, completion and what each does
//! - `custom.rs` — the person's own commands: shadowing, `$ARGUMENTS`/`$1`, sent as a prompt
//! - `custom_files.rs` — those commands' Markdown files: folders, names, front matter, limits
//! - `init.rs` — `/init`: a turn asking the model to write or improve AGENTS.md
//! - `context_view.rs` — `/context`: what fills the context window, part by part
//! - `turn.rs` — one turn: the agent's events rendered, approvals answered, Ctrl-C cancels
//! - `typeahead.rs` — keys typed during a turn: Esc stops it, text is queued or kept
//! - `mentions.rs` — `@path`: completion, and the file's content sent with the prompt
//! - `images.rs` — images attached to a prompt: `@shot.png`, or a pasted path to an image
//! - `leave.rs` — Ctrl-G (the line in the person's editor) and Ctrl-O (the last tool output whole)
//! - `sessions.rs` — session logs, `/resume` and the start-up choice
//! - `replay.rs` — a resumed session's conversation shown again, newest part last
//! - `banner.rs` — the banner said at start-up
//! - `background.rs` — MCP servers and late warnings, said before the next prompt
//! - `cost.rs` — `/cost`: tokens and what they cost
//! - `shell.rs` — `!command`: the person's own shell command, confined, output to the model
//! - `status.rs` — `/status`: model, window, project, mode, sandbox, MCP, tokens, session
//! - `permissions.rs` — `/permissions`: the rules in force and their files; adding, removing
//! - `rewind.rs` — `/rewind` and `/undo`: code, conversation or both put back from checkpoints
//! - `changes.rs` — `/diff`: what the session changed in the project's files so far
//! - `ask.rs` — one-key questions: the trust gate, `continue?` and the choices of `/rewind`
//! - `approve.rs` — the approval question of a tool call, with its preview
//! - `applied.rs` — the diff of a change shown under its tool's line, and diff rows' colours
//! - `arguments.rs` — a call's arguments as the approval question shows them
//! - `editor.rs` — the line editor (rustyline): history, completion, status line
//! - `escapes.rs` — escape sequences no key binding took, removed from a typed line
//! - `repaint.rs` — the status line redrawn above the waiting prompt when MCP servers change
//! - `picker.rs` — the picker of `/resume` and `/rewind`
//! - `render.rs` — the turn renderer and colours
//! - `status_line.rs` — the status line above the prompt, fitted to the width
//! - `wrap.rs` — word wrapping as text streams: margins, escapes that take no column
//! - `markdown.rs` — the answer's markdown as it streams: headings, lists, quotes, code blocks
//! - `inline.rs` — markdown inside a line: emphasis, code spans, links, escapes
//! - `terminal.rs` — terminal modes, one-key reads, the Ctrl-C counter, the screen's size

mod applied;
pub(crate) mod approve;
mod arguments;
mod ask;
mod background;
mod banner;
mod changes;
mod chat;
mod commands;
mod context_view;
mod cost;
mod custom;
mod custom_files;
mod editor;
mod escapes;
mod images;
mod init;
mod inline;
mod leave;
mod markdown;
mod mentions;
pub(crate) mod permissions;
pub(crate) mod picker;
pub(crate) mod render;
mod repaint;
mod replay;
mod rewind;
pub(crate) mod sessions;
mod setup;
mod shell;
mod status;
mod status_line;
mod terminal;
mod turn;
mod typeahead;
mod wrap;

pub(crate) use ask::ask_trust;
pub(crate) use custom_files::{
    CommandDir, CustomCommand, describe_command_dirs, load_custom_commands, project_command_dirs,
};
pub(crate) use editor::LineEditor;
pub(crate) use repaint::StatusWake;
pub(crate) use setup::{Background, Host, Sessions, Setup, Start};
pub(crate) use terminal::Interrupts;

use crate::agent::Stop;
use crate::msg::Prompt;
use crate::text::neutralize;
use background::say_background_news;
use banner::print_banner;
use chat::Chat;
use editor::{Input, Leave};
use render::{DIM, RED, paint, wrap};
use std::time::{Duration, Instant};
use terminal::Screen;
use turn::{TurnContext, TurnEnd, run_turn};

/// How the REPL ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ReplEnd {
    /// `/exit`, Ctrl-D or a double Ctrl-C at the prompt.
    Exited,
    /// Ctrl-C twice during a turn.
    Interrupted,
    /// The terminal failed.
    Failed(String),
}

/// What a Ctrl-C at the prompt means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PromptInterrupt {
    /// The line had text: it is dropped, nothing else.
    ClearLine,
    /// First press on an empty line: say how to leave.
    Warn,
    /// Second press within `EXIT_WINDOW`.
    Exit,
}

/// How close two Ctrl-C presses at an empty prompt must be to exit.
const EXIT_WINDOW: Duration = Duration::from_secs(2);

/// Decides what a Ctrl-C at the prompt does, given the previous empty-line press.
fn plan_prompt_interrupt(had_text: bool, previous: Option<Instant>, now: Instant) -> PromptInterrupt {
    match (had_text, previous) {
        (true, _) => PromptInterrupt::ClearLine,
        (false, Some(previous)) if now.duration_since(previous) <= EXIT_WINDOW => PromptInterrupt::Exit,
        (false, Some(_) | None) => PromptInterrupt::Warn,
    }
}

/// What the user is asked after the iteration cap or the unknown-tool stop.
const CONTINUE_PROMPT: &str = "Continue from where you stopped.";

/// Runs the REPL until the user leaves.
pub(crate) fn run(mut editor: LineEditor, mut setup: Setup, interrupts: Interrupts) -> ReplEnd {
    let providers = setup.known_providers();
    editor.set_providers(providers.iter().map(|provider| provider.name.clone()).collect());
    let shadowed = custom::drop_shadowed(&mut setup.custom_commands, commands::is_builtin);
    setup.warnings.extend(shadowed);
    editor.set_custom_commands(
        setup
            .custom_commands
            .iter()
            .map(|command| (command.name.clone(), custom::completion_display(command)))
            .collect(),
    );
    editor.set_mode(setup.mode);
    editor.set_bypass_in_cycle(setup.bypass_in_cycle);
    editor.set_mcp_probe(setup.mcp_probe.clone());
    editor.set_root(setup.root.clone());
    editor.set_live_status(setup.animate);
    let mut chat = Chat::start(&setup, editor.screen());
    print_banner(&setup, &chat);
    sessions::start(&mut chat, &setup, &interrupts);
    if let Some(task) = setup.first_prompt.as_deref().filter(|task| !task.trim().is_empty()) {
        // Shown as if typed at the prompt, and in the history for Up to bring back.
        let typed = format!("{} {}", setup.glyphs.prompt, crate::text::neutralize(task));
        say_wrapped(setup.color, "", &typed, chat.screen.width, 2);
        editor.remember(task);
        let context = turn_context(&setup, chat.screen, &interrupts);
        // `mewcode "/init"` runs the command, as typed at the prompt would.
        let end = if task.trim_start().starts_with('/') {
            let end = commands::run(task.trim(), &mut chat, &setup, &providers, &context);
            editor.set_mode(chat.mode);
            end
        } else {
            run_prompt(&mut chat, &setup, &context, task.trim_end())
        };
        if let Some(end) = end {
            return end;
        }
    }
    let mut last_interrupt: Option<Instant> = None;
    let mut seen_presses = interrupts.count();
    loop {
        say_background_news(&setup, &chat);
        // A Ctrl-C pressed between two prompts (while the editor was not reading keys) arrived
        // as a signal; it counts as one pressed at an empty prompt.
        // Messages typed during the last turn and sent with Enter go first, as if typed now.
        let input = if let Some(queued) = chat.take_queued() {
            say(&format!("{} {}", setup.glyphs.prompt, crate::text::neutralize(&queued)));
            Input::Line(queued)
        } else if interrupts.count() == seen_presses {
            editor.read(chat.status_figures(), chat.draft.take().as_deref())
        } else {
            Input::Interrupted { had_text: false }
        };
        seen_presses = interrupts.count();
        let line = match input {
            Input::Line(line) => line,
            Input::Interrupted { had_text } => {
                let now = Instant::now();
                match plan_prompt_interrupt(had_text, last_interrupt, now) {
                    PromptInterrupt::ClearLine => {}
                    PromptInterrupt::Warn => {
                        say_wrapped(setup.color, DIM, "(Ctrl-C again or Ctrl-D to exit)", chat.screen.width, 0);
                        last_interrupt = Some(now);
                    }
                    PromptInterrupt::Exit => return ReplEnd::Exited,
                }
                continue;
            }
            Input::Left(leave, line) => {
                let line = match leave {
                    Leave::ExternalEditor => leave::edit_externally(&setup, &line),
                    Leave::ExpandOutput => {
                        leave::show_last_output(&chat, &setup);
                        line
                    }
                };
                chat.draft = Some(line).filter(|line| !line.is_empty());
                // A Ctrl-C meant for the editor is not one at the prompt.
                seen_presses = interrupts.count();
                continue;
            }
            Input::Eof => return ReplEnd::Exited,
            Input::Failed(message) => return ReplEnd::Failed(message),
        };
        last_interrupt = None;
        // Shift-Tab at the prompt changed the editor's mode; it is the chat's from now on.
        chat.mode = editor.mode();
        chat.screen = editor.screen();
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        editor.remember(&line);
        let context = turn_context(&setup, chat.screen, &interrupts);
        let end = if std::mem::take(&mut chat.picking) && trimmed.parse::<usize>().is_ok() {
            sessions::pick(&mut chat, &setup, trimmed);
            None
        } else if let Some(command) = trimmed.strip_prefix('!') {
            shell::run(&mut chat, &setup, command, &interrupts);
            None
        } else if trimmed.starts_with('/') {
            let end = commands::run(trimmed, &mut chat, &setup, &providers, &context);
            editor.set_mode(chat.mode);
            end
        } else {
            run_prompt(&mut chat, &setup, &context, line.trim_end())
        };
        if let Some(end) = end {
            return end;
        }
        // Presses during a turn, a question or the `/resume` picker were theirs to handle.
        seen_presses = interrupts.count();
    }
}

/// A prompt: its turn, then the turns the user asks for to continue after a cap; `Some` when
/// the REPL ends.
fn run_prompt(chat: &mut Chat, setup: &Setup, context: &TurnContext, line: &str) -> Option<ReplEnd> {
    let (text, attached, images) = match images::pasted(chat, setup, line) {
        // A prompt that is only a pasted image path: the image, named in the text.
        Some(Ok(image)) => {
            let placeholder = image.placeholder();
            say(&paint(setup.color, DIM, &format!("  {} {}", setup.glyphs.result, neutralize(&placeholder))));
            (placeholder, String::new(), vec![image])
        }
        Some(Err(reason)) => return image_refused(setup, &reason),
        None => {
            let attachments = mentions::attachments(chat, setup, line);
            if attachments.image_refused {
                return image_refused(setup, "");
            }
            (line.to_string(), attachments.text, attachments.images)
        }
    };
    let mut prompt = Prompt { text: sessions::prepare_prompt(chat, setup, &text) + &attached, images };
    loop {
        let end = run_turn(chat, std::mem::take(&mut prompt), context);
        // A blank line between the answer and the next status line.
        say("");
        match end {
            TurnEnd::Quit => return Some(ReplEnd::Interrupted),
            TurnEnd::Stopped(Stop::IterationLimit | Stop::UnknownTools)
                if ask::ask_continue(setup.color, chat.screen.width, context.interrupts) =>
            {
                prompt = Prompt::from(CONTINUE_PROMPT);
            }
            TurnEnd::Stopped(
                Stop::Completed | Stop::Cancelled | Stop::Failed | Stop::IterationLimit | Stop::UnknownTools,
            ) => return None,
        }
    }
}

/// A prompt whose image could not be attached is not sent: it stays in the history.
fn image_refused(setup: &Setup, reason: &str) -> Option<ReplEnd> {
    if !reason.is_empty() {
        say(&paint(setup.color, RED, &format!("  {} not attached: {}", setup.glyphs.result, neutralize(reason))));
    }
    say(&paint(setup.color, DIM, "  the prompt was not sent (Up brings it back)"));
    None
}

/// What a turn (or a `/compact`) renders with.
fn turn_context<'a>(setup: &'a Setup, screen: Screen, interrupts: &'a Interrupts) -> TurnContext<'a> {
    TurnContext {
        root: &setup.root,
        color: setup.color,
        animate: setup.animate,
        glyphs: setup.glyphs,
        screen,
        interrupts,
        notify: setup.notify,
        verbose: setup.verbose,
        host: setup.host,
    }
}

/// One line of our own (already neutralised) on stdout, word-wrapped to `width` with continuation
/// lines indented by `hang`, in colour `code` ("" for none) when `color` is on.
pub(crate) fn say_wrapped(color: bool, code: &str, text: &str, width: usize, hang: usize) {
    let text = wrap(text, width, hang);
    say(&if code.is_empty() { text } else { paint(color, code, &text) });
}

/// One line on stdout; a closed stdout is not worth failing over.
pub(crate) fn say(text: &str) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{text}").and_then(|()| stdout.flush());
}

#[cfg(test)]
mod tests;
