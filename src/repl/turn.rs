//! One turn of the REPL: start the agent on the conversation, render its events as they come,
//! answer its approval requests, and turn Ctrl-C into cancellation.
//!
//! Invariant: the REPL only sends (the user message, approval answers, a cancel) and reads
//! events; the agent owns the loop and, until the run ends, the conversation (taken out of the
//! chat's `Option`, put back when the run ends). The main thread never blocks for more than
//! `TICK` without looking at the interrupt counter and the keys typed, so Ctrl-C and Esc are acted
//! on at once whatever the agent is doing. Keys typed meanwhile are not echoed but kept
//! (`typeahead.rs`): a line ended with Enter is queued as the next message, the rest is the next
//! input line's start.

use super::approve;
use super::chat::Chat;
use super::render::{Renderer, ToolEnd};
use super::terminal::{Interrupts, Screen};
use super::typeahead::{Reader, Typed};
use crate::agent::{CompactPhase, Event, FailureKind, Running, Stop};
use crate::cancel::CancelToken;
use crate::glyphs::Glyphs;
use crate::llm::ErrorKind;
use crossbeam_channel::{Receiver, RecvTimeoutError};
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

/// How often the loop wakes without events: the spinner's frame rate and the interrupt poll.
const TICK: Duration = Duration::from_millis(50);
/// How long a word the renderer holds back waits for the rest of it before it is shown.
const HELD_TEXT_WAIT: Duration = Duration::from_millis(5);

/// How a turn ended for the REPL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TurnEnd {
    /// The agent finished with this stop.
    Stopped(Stop),
    /// Ctrl-C again while the turn was already winding down: leave the REPL.
    Quit,
}

/// What a turn needs besides the chat.
pub(super) struct TurnContext<'a> {
    pub root: &'a Path,
    pub color: bool,
    /// Stdout is a terminal: show the spinner.
    pub animate: bool,
    /// The symbols of our own output.
    pub glyphs: &'static Glyphs,
    /// The terminal's size when the prompt was entered.
    pub screen: Screen,
    pub interrupts: &'a Interrupts,
    /// How a waiting approval calls the person.
    pub notify: crate::config::Notify,
    /// `--verbose`: a tool's output in full under its line.
    pub verbose: bool,
    /// The program: a request that failed for the window makes it forget the remembered one.
    pub host: &'a dyn super::setup::Host,
}

/// Runs one user turn to its end: the agent owns the conversation meanwhile. Without a
/// conversation (a run the user quit kept it) there is nothing to run: the REPL is ending.
pub(super) fn run_turn(chat: &mut Chat, prompt: crate::msg::Prompt, context: &TurnContext) -> TurnEnd {
    let Some(conversation) = chat.conversation.take() else { return TurnEnd::Quit };
    let cancel = CancelToken::new();
    let keys = Reader::open();
    let running = chat.agent.run(conversation, prompt, chat.mode, cancel.clone());
    settle(chat, running, keys, &cancel, context)
}

/// `/compact`: compacts the conversation now, rendered like a turn (Ctrl-C cancels it).
pub(super) fn run_compact(chat: &mut Chat, context: &TurnContext) -> TurnEnd {
    let Some(conversation) = chat.conversation.take() else { return TurnEnd::Quit };
    let cancel = CancelToken::new();
    let keys = Reader::open();
    let running = chat.agent.compact(conversation, chat.mode, cancel.clone());
    settle(chat, running, keys, &cancel, context)
}

/// Renders the run to its end and gives the conversation back to the chat; a user who quits
/// while it winds down leaves it with the run (everything is in the session log already).
/// What was typed meanwhile goes to the chat: queued, or back to the input line when the turn
/// was stopped (the person is then asked nothing on their behalf).
fn settle(chat: &mut Chat, running: Running, mut keys: Reader, cancel: &CancelToken, context: &TurnContext) -> TurnEnd {
    let end = drive(chat, running.events(), &mut keys, cancel, context);
    if end != TurnEnd::Quit {
        chat.conversation = Some(running.finish());
    }
    chat.keep_typed(keys.finish(), cancel.is_cancelled());
    end
}

/// Renders a run's events until it ends, answering approvals, turning Ctrl-C and Esc into
/// `cancel` and keeping what is typed.
fn drive(
    chat: &mut Chat,
    events: &Receiver<Event>,
    keys: &mut Reader,
    cancel: &CancelToken,
    context: &TurnContext,
) -> TurnEnd {
    let mut seen = context.interrupts.count();
    let mut renderer = Renderer::new(std::io::stdout(), context.color, context.animate, context.screen.width)
        .with_glyphs(context.glyphs);
    let mut stop = None;
    let end = loop {
        let now = Instant::now();
        // Write errors (a closed stdout) are ignored: the turn still runs to a valid end.
        // Text held back waits only a moment: a pause in the stream shows it.
        let wait = if renderer.holds_text() { HELD_TEXT_WAIT } else { TICK };
        let _ = match events.recv_timeout(wait) {
            Ok(Event::Iter(_)) => renderer.iteration(now),
            Ok(Event::Text(text)) => renderer.text(&text, now),
            Ok(Event::Thinking(text)) => renderer.thinking(&text, now),
            Ok(Event::Restart { restart, max, reason }) => renderer.restart(restart, max, &reason, now),
            Ok(Event::Retry(notice)) => renderer.retry(&notice.describe(), now),
            Ok(Event::ToolStart { id, name, preview, live, .. }) => {
                renderer.tool_start(&id, &name, &preview, now).and_then(|()| renderer.watch(live, now))
            }
            Ok(Event::ToolEnd { id, name, preview, output, is_error, elapsed, change, approved_by_user, .. }) => {
                let change = change.as_deref();
                let preview = if context.verbose && output.lines().nth(1).is_some() {
                    // Under the result's mark, each line indented as a wrapped one is.
                    crate::text::first_lines(&output, crate::text::VERBOSE_LINES).replace('\n', "\n    ")
                } else {
                    preview
                };
                let end =
                    ToolEnd { id: &id, name: &name, result: &preview, is_error, elapsed, change, approved_by_user };
                renderer.tool_end(&end, now)
            }
            Ok(Event::Usage { usage, estimated, compaction }) => {
                chat.usage.add(&usage);
                chat.usage_estimated |= estimated;
                if !compaction {
                    chat.context_used = usage.total();
                    chat.context_estimated = estimated;
                }
                Ok(())
            }
            Ok(Event::Notice(text)) => renderer.notice(&text, now),
            Ok(Event::Approval(request)) => {
                call_person(&mut renderer, keys, cancel, context, now);
                let answer = approve::ask(&request, context, &mut std::io::stdout());
                // The agent may have stopped waiting (cancelled); a lost answer is then moot.
                let _ = request.respond.send(answer);
                Ok(())
            }
            Ok(Event::HostQuestion(request)) => {
                // A command's connection waits for this answer.
                call_person(&mut renderer, keys, cancel, context, now);
                let width = context.screen.width;
                let answer = super::ask::ask_host(&request.question, context.color, width, context.interrupts);
                let _ = request.respond.send(answer);
                Ok(())
            }
            Ok(Event::Compact(phase)) => {
                if let CompactPhase::Finished { after_tokens, .. } = &phase {
                    chat.context_used = *after_tokens;
                    chat.context_estimated = true;
                }
                renderer.notice(&phase.describe(), now)
            }
            Ok(Event::Error(failure)) => {
                let forgotten = (failure.kind == FailureKind::Llm(ErrorKind::PromptTooLong))
                    .then(|| context.host.forget_window(&chat.provider))
                    .flatten();
                renderer.error(&failure.message, now).and_then(|()| match forgotten {
                    Some(notice) => renderer.notice(&notice, now),
                    None => Ok(()),
                })
            }
            Ok(Event::Done { stop: reason, .. }) => {
                stop = Some(reason);
                renderer.done(reason, now)
            }
            Err(RecvTimeoutError::Timeout) => renderer.show_held().and_then(|()| renderer.tick(now)),
            // The run is over; without Done it was cut short, which counts as cancelled.
            Err(RecvTimeoutError::Disconnected) => break TurnEnd::Stopped(stop.unwrap_or(Stop::Cancelled)),
        };
        let typed = keys.poll();
        let _ = show_typed(&mut renderer, &typed, cancel, Instant::now());
        let presses = context.interrupts.count();
        if presses != seen {
            seen = presses;
            if cancel.is_cancelled() {
                let _ = renderer.pause(Instant::now());
                break TurnEnd::Quit;
            }
            cancel.cancel();
            let notice = format!("cancelling{} (Ctrl-C again to quit)", context.glyphs.ellipsis);
            let _ = renderer.notice(&notice, Instant::now());
        }
    };
    let _ = std::io::stdout().flush();
    end
}

/// Before a question to the person: the keys typed so far shown as their text (not the
/// answer), the live view paused, and the person called (a bell, or a notification: they may be
/// in another window).
fn call_person(
    renderer: &mut Renderer<std::io::Stdout>,
    keys: &mut Reader,
    cancel: &CancelToken,
    context: &TurnContext,
    now: Instant,
) {
    let typed = keys.poll();
    let _ = show_typed(renderer, &typed, cancel, now);
    let _ = renderer.pause(now);
    let mut stdout = std::io::stdout();
    let _ = stdout.write_all(context.notify.sequence(context.animate).as_bytes()).and_then(|()| stdout.flush());
}

/// Acts on keys typed during the turn: Esc stops it (as a first Ctrl-C does; again, nothing
/// more), a line sent with Enter is shown as queued.
fn show_typed(
    renderer: &mut Renderer<std::io::Stdout>,
    typed: &[Typed],
    cancel: &CancelToken,
    now: Instant,
) -> std::io::Result<()> {
    for key in typed {
        match key {
            Typed::Interrupt if !cancel.is_cancelled() => {
                cancel.cancel();
                renderer.notice("interrupted (Esc); what was said so far is kept", now)?;
            }
            Typed::Interrupt => {}
            Typed::Queued(line) => renderer.notice(&format!("queued: {}", one_line(line)), now)?,
        }
    }
    Ok(())
}

/// A queued message as one line: its first line, and how many more it has.
fn one_line(text: &str) -> String {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or_default();
    match lines.count() {
        0 => first.to_string(),
        1 => format!("{first} (+1 more line)"),
        more => format!("{first} (+{more} more lines)"),
    }
}
