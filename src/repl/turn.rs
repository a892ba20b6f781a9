//! One turn of the REPL: start the agent on the conversation, render its events as they come,
//! answer its approval requests, and turn Ctrl-C into cancellation.
//!
//! Invariant: the REPL only sends (the user message, approval answers, a cancel) and reads
//! events; the agent owns the loop and, until the run ends, the conversation (taken out of the
//! chat's `Option`, put back when the run ends). The main thread never blocks for more than
//! `TICK` without looking at the interrupt counter, so Ctrl-C is acted on at once whatever the agent is doing.
//! Echo is off while the turn runs and typeahead is discarded at its end.

use super::approve;
use super::chat::Chat;
use super::render::{Renderer, ToolEnd};
use super::terminal::{Interrupts, ModeGuard, Screen, discard_typeahead};
use crate::agent::{CompactPhase, Event, Running, Stop};
use crate::cancel::CancelToken;
use crate::glyphs::Glyphs;
use crossbeam_channel::{Receiver, RecvTimeoutError};
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

/// How often the loop wakes without events: the spinner's frame rate and the interrupt poll.
const TICK: Duration = Duration::from_millis(50);

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
}

/// Runs one user turn to its end: the agent owns the conversation meanwhile. Without a
/// conversation (a run the user quit kept it) there is nothing to run: the REPL is ending.
pub(super) fn run_turn(chat: &mut Chat, prompt: &str, context: &TurnContext) -> TurnEnd {
    let Some(conversation) = chat.conversation.take() else { return TurnEnd::Quit };
    let cancel = CancelToken::new();
    let _echo = ModeGuard::without_echo();
    let running = chat.agent.run(conversation, prompt.to_string(), chat.mode, cancel.clone());
    settle(chat, running, &cancel, context)
}

/// `/compact`: compacts the conversation now, rendered like a turn (Ctrl-C cancels it).
pub(super) fn run_compact(chat: &mut Chat, context: &TurnContext) -> TurnEnd {
    let Some(conversation) = chat.conversation.take() else { return TurnEnd::Quit };
    let cancel = CancelToken::new();
    let _echo = ModeGuard::without_echo();
    let running = chat.agent.compact(conversation, chat.mode, cancel.clone());
    settle(chat, running, &cancel, context)
}

/// Renders the run to its end and gives the conversation back to the chat; a user who quits
/// while it winds down leaves it with the run (everything is in the session log already).
fn settle(chat: &mut Chat, running: Running, cancel: &CancelToken, context: &TurnContext) -> TurnEnd {
    let end = drive(chat, running.events(), cancel, context);
    if end != TurnEnd::Quit {
        chat.conversation = Some(running.finish());
    }
    end
}

/// Renders a run's events until it ends, answering approvals and turning Ctrl-C into `cancel`.
fn drive(chat: &mut Chat, events: &Receiver<Event>, cancel: &CancelToken, context: &TurnContext) -> TurnEnd {
    let mut seen = context.interrupts.count();
    let mut renderer = Renderer::new(std::io::stdout(), context.color, context.animate, context.screen.width)
        .with_glyphs(context.glyphs);
    let mut stop = None;
    let end = loop {
        let now = Instant::now();
        // Write errors (a closed stdout) are ignored: the turn still runs to a valid end.
        let _ = match events.recv_timeout(TICK) {
            Ok(Event::Iter(_)) => renderer.iteration(now),
            Ok(Event::Text(text)) => renderer.text(&text, now),
            Ok(Event::Thinking(text)) => renderer.thinking(&text, now),
            Ok(Event::Restart { restart, max, reason }) => renderer.restart(restart, max, &reason, now),
            Ok(Event::Retry(notice)) => renderer.retry(&notice.describe(), now),
            Ok(Event::ToolStart { id, name, preview, .. }) => renderer.tool_start(&id, &name, &preview, now),
            Ok(Event::ToolEnd { id, name, preview, is_error, elapsed, change, approved_by_user, .. }) => {
                let change = change.as_deref();
                let end =
                    ToolEnd { id: &id, name: &name, result: &preview, is_error, elapsed, change, approved_by_user };
                renderer.tool_end(&end, now)
            }
            Ok(Event::Usage { usage, estimated }) => {
                chat.usage.add(&usage);
                chat.usage_estimated |= estimated;
                chat.context_used = usage.total();
                chat.context_estimated = estimated;
                Ok(())
            }
            Ok(Event::Notice(text)) => renderer.notice(&text, now),
            Ok(Event::Approval(request)) => {
                let _ = renderer.pause(now);
                let answer = approve::ask(&request, context, &mut std::io::stdout());
                // The agent may have stopped waiting (cancelled); a lost answer is then moot.
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
            Ok(Event::Error(failure)) => renderer.error(&failure.message, now),
            Ok(Event::Done { stop: reason, .. }) => {
                stop = Some(reason);
                renderer.done(reason, now)
            }
            Err(RecvTimeoutError::Timeout) => renderer.tick(now),
            // The run is over; without Done it was cut short, which counts as cancelled.
            Err(RecvTimeoutError::Disconnected) => break TurnEnd::Stopped(stop.unwrap_or(Stop::Cancelled)),
        };
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
    discard_typeahead();
    end
}
