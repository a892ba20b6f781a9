//! The REPL's sessions: a log per conversation, created at its first prompt; `/clear` ends it,
//! `/resume` (and `--resume` without an id) opens the picker (`picker.rs`) on a terminal that
//! allows cursor movement — each session as its first prompt and how long ago it was last
//! written (`render_ago`) — else lists this project's sessions numbered, newest first, as many
//! as fit one screen (`/resume all` lists every one); a bare number on the next line,
//! `/resume N` or `/resume ID` continues one.
//!
//! Invariant: the log a conversation appends to is its own session's: a resume builds a new
//! `Conversation` from the reopened log, `/clear` starts one with a fresh id whose log is
//! created at its first prompt; a log that cannot be written is one notice, and the
//! conversation goes on unsaved. The agent is never rebuilt for a session change.

use super::chat::Chat;
use super::picker::{self, Item, Picked};
use super::render::{DIM, RED, YELLOW};
use super::setup::{Setup, Start};
use super::terminal::Interrupts;
use super::{say, say_wrapped};
use crate::agent::Conversation;
use crate::session::{self, SessionInfo};
use crate::text::neutralize;

/// Runs the start-up choice.
pub(crate) fn start(chat: &mut Chat, setup: &Setup, interrupts: &Interrupts) {
    match &setup.sessions.start {
        Start::New => {}
        Start::Resume(id) => resume(chat, setup, id),
        Start::Picker => choose(chat, setup, interrupts),
    }
}

/// `/resume` without argument: the picker where the terminal allows it, else the list (and then
/// a bare number on the next line picks).
pub(crate) fn choose(chat: &mut Chat, setup: &Setup, interrupts: &Interrupts) {
    let sessions = session::list_sessions(&setup.sessions.dir, &setup.sessions.owner);
    if sessions.is_empty() {
        say("no sessions in this project yet");
        return;
    }
    if !setup.animate {
        chat.picking = list(chat, setup, false);
        return;
    }
    let current = current_id(chat);
    let now_s = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |now| now.as_secs());
    let items = sessions.iter().map(|info| picker_item(info, current.as_deref(), now_s)).collect();
    let picker = picker::Picker::new("resume a session", "resumes", items, setup.glyphs);
    match picker::run(picker, chat.screen, setup.color, interrupts) {
        Picked::Item(index) => resume(chat, setup, &sessions[index].id),
        Picked::Cancelled => say_wrapped(setup.color, DIM, "(resume cancelled)", chat.screen.width, 2),
        Picked::Unavailable => chat.picking = list(chat, setup, false),
    }
}

/// A session as the picker shows it: `*` when it is the one on screen, a flag when this
/// installation did not create it, its title (its first prompt; its id when it has none), and
/// when it was last written, relative to `now_s`.
fn picker_item(info: &SessionInfo, current: Option<&str>, now_s: u64) -> Item {
    let mark = if current == Some(info.id.as_str()) { "*" } else { " " };
    let flag = if info.owned { "" } else { "[not created here] " };
    let title = if info.title.trim().is_empty() { &info.id } else { &info.title };
    Item { text: neutralize(&format!("{mark} {flag}{title}")), aside: render_ago(info.modified_ms / 1000, now_s) }
}

/// How long ago `then_s` was at `now_s` (Unix seconds), in the fewest words: `just now`, `3m ago`,
/// `2h ago`, `yesterday` (24 to 48 hours), `5d ago` (up to a week), then the local date
/// `2026-01-04`. A time after `now_s` (a skewed clock) is `just now`.
fn render_ago(then_s: u64, now_s: u64) -> String {
    const MINUTE: u64 = 60;
    const HOUR: u64 = 60 * MINUTE;
    const DAY: u64 = 24 * HOUR;
    match now_s.saturating_sub(then_s) {
        age if age < MINUTE => "just now".to_string(),
        age if age < HOUR => format!("{}m ago", age / MINUTE),
        age if age < DAY => format!("{}h ago", age / HOUR),
        age if age < 2 * DAY => "yesterday".to_string(),
        age if age < 7 * DAY => format!("{}d ago", age / DAY),
        _ => crate::clock::local_date(then_s),
    }
}

/// Before a prompt goes to the agent: creates the conversation's session log if there is none
/// yet (titled by this prompt), and adds a pending note for the model. Returns the text of the
/// user message.
pub(crate) fn prepare_prompt(chat: &mut Chat, setup: &Setup, prompt: &str) -> String {
    let sessions = &setup.sessions;
    if let Some(conversation) = chat.conversation.as_mut().filter(|conversation| !conversation.is_logged())
        && let Err(err) = conversation.create_log(&sessions.dir, prompt, &chat.provider.model, &sessions.owner)
    {
        let message = neutralize(&format!("{} {err}; this conversation is not saved", setup.glyphs.warning));
        say_wrapped(setup.color, YELLOW, &message, chat.screen.width, 2)
    }
    session::with_note(prompt, chat.note.take().as_deref())
}

/// The id of the session on screen, when it is logged (the lists mark it).
fn current_id(chat: &Chat) -> Option<String> {
    chat.conversation
        .as_ref()
        .filter(|conversation| conversation.is_logged())
        .map(|conversation| conversation.session_id().to_string())
}

/// The numbered list, newest first: as many as fit `screen` (every one with `all`), then how
/// to reach the rest. True when there is one to pick: then a bare number on the next line picks.
pub(crate) fn list(chat: &Chat, setup: &Setup, all: bool) -> bool {
    let screen = chat.screen;
    let sessions = session::list_sessions(&setup.sessions.dir, &setup.sessions.owner);
    if sessions.is_empty() {
        say("no sessions in this project yet");
        return false;
    }
    let current = current_id(chat);
    let shown = if all { sessions.len() } else { plan_list_rows(sessions.len(), screen.height) };
    for (index, info) in sessions.iter().enumerate().take(shown) {
        let mark = if current.as_deref() == Some(info.id.as_str()) { "*" } else { " " };
        let line = neutralize(&format!("{mark}{:>3}  {}", index + 1, session::render_line(info)));
        say_wrapped(setup.color, "", &line, screen.width, 6);
    }
    if shown < sessions.len() {
        let older = sessions.len() - shown;
        let text = format!("{} {older} older: /resume all lists every one", setup.glyphs.ellipsis);
        say_wrapped(setup.color, DIM, &text, screen.width, 2);
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
pub(crate) fn pick(chat: &mut Chat, setup: &Setup, choice: &str) {
    let sessions = session::list_sessions(&setup.sessions.dir, &setup.sessions.owner);
    match plan_pick(&sessions, choice) {
        Ok(id) => resume(chat, setup, &id),
        Err(message) => say_wrapped(setup.color, RED, &neutralize(&message), chat.screen.width, 2),
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
fn resume(chat: &mut Chat, setup: &Setup, id: &str) {
    let sessions = &setup.sessions;
    let (model, window) = (&chat.provider.model, chat.provider.context_window);
    // SPEC §8: a resumed history that nearly fills the window is compacted before the next
    // turn's first request, with its prompt in (`Conversation::reopen` marks it).
    let reopened = match Conversation::reopen(&sessions.dir, id, model, window, &sessions.owner) {
        Ok(reopened) => reopened,
        Err(err) => {
            say_wrapped(setup.color, RED, &neutralize(&format!("/resume: {err}")), chat.screen.width, 2);
            return;
        }
    };
    let width = chat.screen.width;
    let warning = setup.glyphs.warning;
    for note in &reopened.notes {
        say_wrapped(setup.color, YELLOW, &neutralize(&format!("{warning} {note}")), width, 2);
    }
    let conversation = reopened.conversation;
    if let Some(err) = reopened.unsaved {
        let message = neutralize(&format!("{warning} {err}; this conversation is not saved"));
        say_wrapped(setup.color, YELLOW, &message, width, 2);
    }
    chat.start_accounting();
    let count = conversation.history().len();
    chat.context_used = crate::context::estimate_messages(conversation.history());
    chat.context_estimated = true;
    // Where the person was: the conversation replayed, newest part last.
    let transcript = super::replay::replay(conversation.history(), setup.color, setup.glyphs, width);
    if !transcript.is_empty() {
        say(transcript.strip_suffix('\n').unwrap_or(&transcript));
    }
    say_wrapped(setup.color, DIM, &format!("(resumed session {id}: {count} messages)"), width, 2);
    if let Some(note) = &reopened.stale_note {
        say_wrapped(setup.color, YELLOW, &neutralize(&format!("{warning} {note}")), width, 2);
    }
    chat.note = reopened.stale_note;
    chat.conversation = Some(conversation);
}

#[cfg(test)]
#[path = "sessions_tests.rs"]
mod tests;
