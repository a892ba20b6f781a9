//! `/rewind` and `/undo`: putting the code, the conversation or both back as they were before
//! a turn, from the session's checkpoints (`checkpoint/`).
//!
//! Invariant: nothing is restored before the person saw what will change and said so with a
//! key, and a file changed outside mewcode since the point restored to is never overwritten
//! without its own question. Every restore is itself recorded (as a rewind the timeline lists),
//! so `/undo` right after one puts everything back. The model is told with the next prompt when
//! the files and the conversation no longer match. Planning what a key means, what a point
//! looks like and what the person is told are pure functions; `rewind` and `undo` only print
//! and ask.

use super::ask::ask_choice;
use super::chat::Chat;
use super::picker::{self, Item, Picked, Picker};
use super::render::{DIM, GREEN, RED, YELLOW};
use super::say_wrapped;
use super::setup::Setup;
use super::terminal::Interrupts;
use crate::checkpoint::describe::{name_list, one_line, plan_lines, render_point, report_lines, undo_target};
use crate::checkpoint::{Checkpoints, Plan, Point};
use crate::fsx::display_path;
use crate::text::neutralize;
use std::path::{Path, PathBuf};

/// What a `/rewind` restores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Restore {
    Both,
    Code,
    Conversation,
}

/// What can be restored at a point: the code (its plan changes something) and the conversation
/// (its prompt is still in the history, at this index).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Offer {
    code: bool,
    conversation: Option<usize>,
}

/// `/rewind [N]`: the timeline (picker or list), then what to restore, then the hand-changed
/// files' question, then the restore.
pub(super) fn rewind(chat: &mut Chat, setup: &Setup, choice: Option<&str>, interrupts: &Interrupts) {
    let Some(checkpoints) = opened(chat, setup) else { return };
    let points = checkpoints.points();
    if points.is_empty() {
        say_wrapped(setup.color, DIM, "nothing to rewind yet: no turn of this session has ended", chat.screen.width, 2);
        return;
    }
    let index = match choice {
        Some(text) => match pick_turn(&points, text) {
            Ok(index) => index,
            Err(message) => return say_wrapped(setup.color, RED, &message, chat.screen.width, 2),
        },
        None if setup.animate => {
            let items = points
                .iter()
                .map(|point| Item::plain(neutralize(&render_point(point, &setup.root, setup.glyphs.undo))))
                .collect();
            let picker = Picker::new("rewind to before", "picks", items, setup.glyphs);
            match picker::run(picker, chat.screen, setup.color, interrupts) {
                Picked::Item(index) => index,
                Picked::Cancelled => return say_wrapped(setup.color, DIM, "(rewind cancelled)", chat.screen.width, 2),
                Picked::Unavailable => return list(&points, setup, chat.screen.width),
            }
        }
        None => return list(&points, setup, chat.screen.width),
    };
    let point = &points[index];
    let plan = match checkpoints.plan(point.turn, point.rewind) {
        Ok(plan) => plan,
        Err(message) => {
            return say_wrapped(setup.color, RED, &neutralize(&format!("/rewind: {message}")), chat.screen.width, 2);
        }
    };
    let conversation = match (&chat.conversation, point.history_len) {
        (Some(conversation), Some(recorded)) if !point.rewind => conversation.turn_start(recorded, &point.prompt),
        _ => None,
    };
    let offer = Offer { code: changes_anything(&plan), conversation };
    say_wrapped(setup.color, "", &neutralize(&describe_target(point)), chat.screen.width, 2);
    show_plan(&plan, setup, chat.screen.width);
    if point.history_len.is_some() && !point.rewind && conversation.is_none() {
        let note = "the conversation before this turn was summarised by a compaction: only the code can go back";
        say_wrapped(setup.color, DIM, note, chat.screen.width, 2);
    }
    let Some(restore) = ask_restore(offer, setup, chat.screen.width, interrupts) else { return };
    if matches!(restore, Restore::Both | Restore::Code) && !restore_code(&checkpoints, &plan, setup, chat, interrupts) {
        return;
    }
    if let (Restore::Both | Restore::Conversation, Some(start)) = (restore, offer.conversation) {
        rewind_conversation(chat, setup, start, point);
    }
    if let Some(note) = model_note(restore, point, &plan) {
        chat.add_note(&note);
    }
}

/// `/undo`: the last turn's changes (or the last rewind) put back, after the same questions.
pub(super) fn undo(chat: &mut Chat, setup: &Setup, interrupts: &Interrupts) {
    let Some(checkpoints) = opened(chat, setup) else { return };
    let points = checkpoints.points();
    let Some(point) = undo_target(&points) else {
        return say_wrapped(
            setup.color,
            DIM,
            "nothing to undo: no turn of this session changed a file",
            chat.screen.width,
            2,
        );
    };
    let plan = match checkpoints.plan(point.turn, point.rewind) {
        Ok(plan) => plan,
        Err(message) => {
            return say_wrapped(setup.color, RED, &neutralize(&format!("/undo: {message}")), chat.screen.width, 2);
        }
    };
    if !changes_anything(&plan) {
        return say_wrapped(
            setup.color,
            DIM,
            "nothing to undo: the files are already as they were",
            chat.screen.width,
            2,
        );
    }
    say_wrapped(setup.color, "", &neutralize(&describe_undo(point)), chat.screen.width, 2);
    show_plan(&plan, setup, chat.screen.width);
    if restore_code(&checkpoints, &plan, setup, chat, interrupts) {
        chat.add_note(&code_note(point, &plan));
    }
}

/// The session's checkpoints, or why there are none (said to the person).
fn opened(chat: &mut Chat, setup: &Setup) -> Option<std::sync::Arc<Checkpoints>> {
    let checkpoints = chat.checkpoints();
    if checkpoints.is_none() {
        let why = "nothing recorded yet: checkpoints start with the first prompt of a saved session";
        say_wrapped(setup.color, DIM, why, chat.screen.width, 2);
    }
    checkpoints
}

/// The numbered timeline for a terminal without the picker, newest first.
fn list(points: &[Point], setup: &Setup, width: usize) {
    for point in points {
        say_wrapped(setup.color, "", &neutralize(&render_point(point, &setup.root, setup.glyphs.undo)), width, 6);
    }
    say_wrapped(setup.color, DIM, "/rewind N goes back to before turn N", width, 0);
}

/// The point `/rewind TEXT` means: a turn number (the turn, not a rewind of it).
fn pick_turn(points: &[Point], text: &str) -> Result<usize, String> {
    let number: u32 = text.trim().trim_start_matches('#').parse().map_err(|_| {
        format!("/rewind: {text:?} is not a turn number; /rewind alone lists the turns of this session")
    })?;
    points.iter().position(|point| point.turn == number && !point.rewind).ok_or_else(|| {
        let last = points.iter().filter(|point| !point.rewind).map(|point| point.turn).max().unwrap_or(0);
        format!("/rewind: no turn {number} in this session (its turns are 1 to {last})")
    })
}

/// The heading of a rewind's questions.
fn describe_target(point: &Point) -> String {
    if point.rewind {
        format!("undo the rewind to before turn {}:", point.turn)
    } else {
        format!("rewind to before turn {} ({}):", point.turn, one_line(&point.prompt))
    }
}

fn describe_undo(point: &Point) -> String {
    if point.rewind {
        format!("undo the rewind to before turn {}:", point.turn)
    } else {
        format!("undo the changes of turn {} ({}):", point.turn, one_line(&point.prompt))
    }
}

/// True when restoring `plan` would change a file (or could not, which must be said).
fn changes_anything(plan: &Plan) -> bool {
    !(plan.restore.is_empty() && plan.remove.is_empty() && plan.not_covered.is_empty())
}

/// What the plan will do, file by file (the first few of each list).
fn show_plan(plan: &Plan, setup: &Setup, width: usize) {
    for line in plan_lines(plan, &setup.root) {
        let code = if line.starts_with("  cannot") { YELLOW } else { "" };
        say_wrapped(setup.color, code, &neutralize(&line), width, 4);
    }
}

/// The question of what to restore, as the offer allows; None when nothing is restored.
fn ask_restore(offer: Offer, setup: &Setup, width: usize, interrupts: &Interrupts) -> Option<Restore> {
    let (question, answers) = question_for(offer)?;
    let key = ask_choice(question, answers, setup.color, width, interrupts)?;
    restore_for(offer, key)
}

/// The question and its keys for an offer; None (and nothing to ask) when it offers nothing.
fn question_for(offer: Offer) -> Option<(&'static str, &'static [(u8, &'static str)])> {
    match (offer.code, offer.conversation.is_some()) {
        (true, true) => Some((
            "restore [b]oth code and conversation, [c]ode only, con[v]ersation only? (any other key cancels)",
            &[(b'b', "code and conversation"), (b'c', "code only"), (b'v', "conversation only")],
        )),
        (true, false) => Some(("restore the code? [y/N]", &[(b'y', "yes, the code")])),
        (false, true) => Some(("no file differs; rewind the conversation? [y/N]", &[(b'y', "yes, the conversation")])),
        (false, false) => None,
    }
}

/// What a key answering `question_for(offer)` restores.
fn restore_for(offer: Offer, key: u8) -> Option<Restore> {
    match (offer.code, offer.conversation.is_some(), key) {
        (true, true, b'b') => Some(Restore::Both),
        (true, true, b'c') | (true, false, b'y') => Some(Restore::Code),
        (true, true, b'v') | (false, true, b'y') => Some(Restore::Conversation),
        _ => None,
    }
}

/// Restores the code of `plan`, asking first about files changed outside mewcode since; false
/// when the person cancelled or nothing could be restored.
fn restore_code(checkpoints: &Checkpoints, plan: &Plan, setup: &Setup, chat: &Chat, interrupts: &Interrupts) -> bool {
    let width = chat.screen.width;
    let mut keep: Vec<PathBuf> = Vec::new();
    if !plan.hand_changed.is_empty() {
        let shown: Vec<String> = plan.hand_changed.iter().map(|path| display_path(&setup.root, path)).collect();
        let names = name_list(&shown, Path::new(""));
        let warning = format!("{} changed outside mewcode since then ({}): {names}", setup.glyphs.warning, shown.len());
        say_wrapped(setup.color, YELLOW, &neutralize(&warning), width, 2);
        let answers: &[(u8, &str)] = &[(b'o', "overwrite them too"), (b'k', "keep them as they are")];
        let question = "[o]verwrite them too, or [k]eep them? (any other key cancels)";
        match ask_choice(question, answers, setup.color, width, interrupts) {
            Some(b'o') => {}
            Some(_) => keep.clone_from(&plan.hand_changed),
            None => return false,
        }
    }
    match checkpoints.apply(plan, &keep) {
        Ok(report) => {
            for line in report_lines(&report, &setup.root) {
                let code = if line.starts_with("failed") { RED } else { GREEN };
                say_wrapped(setup.color, code, &neutralize(&line), width, 2);
            }
            say_wrapped(setup.color, DIM, "(/undo puts the files back as they were before this)", chat.screen.width, 2);
            true
        }
        Err(message) => {
            say_wrapped(setup.color, RED, &neutralize(&format!("restore failed: {message}")), width, 2);
            false
        }
    }
}

/// Cuts the conversation back to before the turn's prompt.
fn rewind_conversation(chat: &mut Chat, setup: &Setup, start: usize, point: &Point) {
    let Some(conversation) = chat.conversation.as_mut() else { return };
    let prompt = conversation.history().get(start).map(|message| without_note(&message.content).to_string());
    if let Some(notice) = conversation.rewind_to(start) {
        say_wrapped(
            setup.color,
            YELLOW,
            &neutralize(&format!("{} {notice}", setup.glyphs.warning)),
            chat.screen.width,
            2,
        );
    }
    chat.context_used = crate::context::estimate_messages(conversation.history());
    chat.context_estimated = true;
    let message = format!(
        "(conversation rewound to before turn {}: {} messages kept; its prompt is in the input line)",
        point.turn, start
    );
    say_wrapped(setup.color, DIM, &message, chat.screen.width, 2);
    chat.draft = prompt;
}

/// A prompt as the person typed it: without the note mewcode added for the model
/// (`session::with_note`).
fn without_note(content: &str) -> &str {
    match content.rfind("\n\n[mewcode: ") {
        Some(at) if content.ends_with(']') => &content[..at],
        _ => content,
    }
}

/// What the model must be told with the next prompt, when files and conversation part ways.
fn model_note(restore: Restore, point: &Point, plan: &Plan) -> Option<String> {
    match restore {
        Restore::Both => None,
        Restore::Code => Some(code_note(point, plan)),
        Restore::Conversation => Some(
            "the user rewound this conversation to an earlier point; the files on disk were not changed back, \
             so read a file again before changing it."
                .to_string(),
        ),
    }
}

/// The note after the code alone went back.
fn code_note(point: &Point, plan: &Plan) -> String {
    let count = plan.restore.len() + plan.remove.len();
    let when = if point.rewind {
        "as they were before the user's last rewind".to_string()
    } else {
        format!(
            "to their state before the user's message \"{}\"",
            crate::text::truncate_chars(&one_line(&point.prompt), 80, "...")
        )
    };
    format!(
        "the user put the project's files back {when} ({count} files changed back); read a file again before changing it."
    )
}

#[cfg(test)]
#[path = "rewind_tests.rs"]
mod tests;
