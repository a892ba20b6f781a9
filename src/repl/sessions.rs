//! The REPL's sessions: a log per conversation, created at its first prompt; `/clear` ends it,
//! `/resume` (and `--resume` without an id) opens the picker (`picker.rs`) on a terminal that
//! allows cursor movement, else lists this project's sessions numbered, newest first, as many as
//! fit one screen (`/resume all` lists every one); a bare number on the next line, `/resume N`
//! or `/resume ID` continues one.
//!
//! Invariant: the log a conversation appends to is its own session's: a resume builds a new
//! `Conversation` from the reopened log, `/clear` starts one with a fresh id whose log is
//! created at its first prompt; a log that cannot be written is one notice, and the
//! conversation goes on unsaved. The agent is never rebuilt for a session change.

use super::chat::Chat as Session;
use super::picker::{self, Picked};
use super::render::{DIM, RED, YELLOW, paint};
use super::setup::{Setup, Start};
use super::terminal::{Interrupts, Screen};
use super::{say, say_wrapped};
use crate::agent::Conversation;
use crate::session::{self, SessionInfo};
use crate::text::neutralize;

/// Runs the start-up choice.
pub(crate) fn start(session: &mut Session, setup: &Setup, interrupts: &Interrupts) {
    match &setup.sessions.start {
        Start::New => {}
        Start::Resume(id) => resume(session, setup, id),
        Start::Picker => choose(session, setup, interrupts),
    }
}

/// `/resume` without argument: the picker where the terminal allows it, else the list (and then
/// a bare number on the next line picks).
pub(crate) fn choose(session: &mut Session, setup: &Setup, interrupts: &Interrupts) {
    let sessions = session::list_sessions(&setup.sessions.dir, &setup.sessions.owner);
    if sessions.is_empty() {
        say("no sessions in this project yet");
        return;
    }
    if !setup.animate {
        session.picking = list(session, setup, false);
        return;
    }
    let current = current_id(session);
    let items = sessions
        .iter()
        .map(|info| {
            let mark = if current.as_deref() == Some(info.id.as_str()) { "*" } else { " " };
            neutralize(&format!("{mark}{}", session::render_line(info)))
        })
        .collect();
    let Screen { width, height } = session.screen;
    match picker::run(items, width, height, setup.color, interrupts) {
        Picked::Item(index) => resume(session, setup, &sessions[index].id),
        Picked::Cancelled => say(&paint(setup.color, DIM, "(resume cancelled)")),
        Picked::Unavailable => session.picking = list(session, setup, false),
    }
}

/// Before a prompt goes to the agent: creates the conversation's session log if there is none
/// yet (titled by this prompt), and adds a pending note for the model. Returns the text of the
/// user message.
pub(crate) fn prepare_prompt(session: &mut Session, setup: &Setup, prompt: &str) -> String {
    let sessions = &setup.sessions;
    if let Some(conversation) = session.conversation.as_mut().filter(|conversation| !conversation.is_logged())
        && let Err(err) = conversation.create_log(&sessions.dir, prompt, &session.provider.model, &sessions.owner)
    {
        let message = neutralize(&format!("⚠ {err}; this conversation is not saved"));
        say_wrapped(setup.color, YELLOW, &message, session.screen.width, 2)
    }
    session::with_note(prompt, session.note.take().as_deref())
}

/// The id of the session on screen, when it is logged (the lists mark it).
fn current_id(session: &Session) -> Option<String> {
    session
        .conversation
        .as_ref()
        .filter(|conversation| conversation.is_logged())
        .map(|conversation| conversation.session_id().to_string())
}

/// The numbered list, newest first: as many as fit `screen` (every one with `all`), then how
/// to reach the rest. True when there is one to pick: then a bare number on the next line picks.
pub(crate) fn list(session: &Session, setup: &Setup, all: bool) -> bool {
    let screen = session.screen;
    let sessions = session::list_sessions(&setup.sessions.dir, &setup.sessions.owner);
    if sessions.is_empty() {
        say("no sessions in this project yet");
        return false;
    }
    let current = current_id(session);
    let shown = if all { sessions.len() } else { plan_list_rows(sessions.len(), screen.height) };
    for (index, info) in sessions.iter().enumerate().take(shown) {
        let mark = if current.as_deref() == Some(info.id.as_str()) { "*" } else { " " };
        let line = neutralize(&format!("{mark}{:>3}  {}", index + 1, session::render_line(info)));
        say_wrapped(setup.color, "", &line, screen.width, 6);
    }
    if shown < sessions.len() {
        let older = sessions.len() - shown;
        say(&paint(setup.color, DIM, &format!("… {older} older: /resume all lists every one")));
    }
    say_wrapped(setup.color, DIM, "type its number to resume one (or /resume N, /resume ID later)", screen.width, 0);
    true
}

/// How many sessions of `count` the list shows on a screen `height` rows high: all when they
/// fit, else the newest that leave room for the two lines below them and the prompt.
fn plan_list_rows(count: usize, height: usize) -> usize {
    let room = height.saturating_sub(4).max(3);
    if count <= room + 1 { count } else { room }
}

/// `/resume N|ID`.
pub(crate) fn pick(session: &mut Session, setup: &Setup, choice: &str) {
    let sessions = session::list_sessions(&setup.sessions.dir, &setup.sessions.owner);
    match plan_pick(&sessions, choice) {
        Ok(id) => resume(session, setup, &id),
        Err(message) => say_wrapped(setup.color, RED, &neutralize(&message), session.screen.width, 2),
    }
}

/// Which session `/resume CHOICE` means: a number in the list (from 1) or an id in it.
fn plan_pick(sessions: &[SessionInfo], choice: &str) -> Result<String, String> {
    if let Ok(number) = choice.parse::<usize>() {
        return match number.checked_sub(1).and_then(|index| sessions.get(index)) {
            Some(info) => Ok(info.id.clone()),
            None => Err(format!("/resume: no session number {number} (there are {})", sessions.len())),
        };
    }
    match sessions.iter().find(|info| info.id == choice) {
        Some(info) => Ok(info.id.clone()),
        None => Err(format!("/resume: no session {choice} in this project; /resume lists them")),
    }
}

/// Loads session `id` and makes it the conversation on screen, logging to its reopened log.
fn resume(session: &mut Session, setup: &Setup, id: &str) {
    let sessions = &setup.sessions;
    let (model, window) = (&session.provider.model, session.provider.context_window);
    // SPEC §8: a resumed history that nearly fills the window is compacted before the next
    // turn's first request, with its prompt in (`Conversation::reopen` marks it).
    let reopened = match Conversation::reopen(&sessions.dir, id, model, window, &sessions.owner) {
        Ok(reopened) => reopened,
        Err(err) => {
            say_wrapped(setup.color, RED, &neutralize(&format!("/resume: {err}")), session.screen.width, 2);
            return;
        }
    };
    let width = session.screen.width;
    for note in &reopened.notes {
        say_wrapped(setup.color, YELLOW, &format!("⚠ {note}"), width, 2);
    }
    let conversation = reopened.conversation;
    if let Some(err) = reopened.unsaved {
        let message = neutralize(&format!("⚠ {err}; this conversation is not saved"));
        say_wrapped(setup.color, YELLOW, &message, width, 2);
    }
    session.start_accounting();
    let count = conversation.history().len();
    session.context_used = crate::context::estimate_messages(conversation.history());
    session.context_estimated = true;
    say(&paint(setup.color, DIM, &format!("(resumed session {id}: {count} messages)")));
    if let Some(answer) = conversation.last_answer() {
        let preview: String = answer.chars().take(300).collect();
        say_wrapped(setup.color, DIM, &neutralize(&format!("last answer: {preview}")), width, 2);
    }
    if let Some(note) = &reopened.stale_note {
        say_wrapped(setup.color, YELLOW, &format!("⚠ {note}"), width, 2);
    }
    session.note = reopened.stale_note;
    session.conversation = Some(conversation);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_fits_one_screen_and_shows_the_newest() {
        assert_eq!(plan_list_rows(37, 20), 16);
        assert_eq!(plan_list_rows(17, 20), 17);
        assert_eq!(plan_list_rows(18, 20), 16);
        assert_eq!(plan_list_rows(3, 20), 3);
        assert_eq!(plan_list_rows(37, 5), 3);
    }

    #[test]
    fn picks_by_number_or_id() {
        let info = |id: &str| SessionInfo {
            id: id.into(),
            modified_ms: 0,
            title: String::new(),
            model: String::new(),
            owned: true,
        };
        let sessions = vec![info("20261202-131500-aaaa"), info("20261201-131500-bbbb")];
        assert_eq!(plan_pick(&sessions, "2"), Ok("20261201-131500-bbbb".into()));
        assert_eq!(plan_pick(&sessions, "20261202-131500-aaaa"), Ok("20261202-131500-aaaa".into()));
        assert!(plan_pick(&sessions, "0").unwrap_err().contains("no session number 0"));
        assert!(plan_pick(&sessions, "3").is_err());
        assert!(plan_pick(&sessions, "20991231-000000-cccc").is_err());
    }
}
