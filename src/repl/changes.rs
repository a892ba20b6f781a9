//! `/diff`: what this session changed in the project so far — by the file tools, by commands or
//! by hand — from the session's first checkpoint to the files now, git or not.
//!
//! Invariant: file content is untrusted: every diff line is shown by `applied::diff_row`
//! (revealed, wrapped, coloured as the approval diff), and a file that is not text is described
//! (its sizes), never printed. The diff text is made by `diff::unified_diff`; this file only
//! chooses what to show.

use super::applied::diff_row;
use super::chat::Chat;
use super::render::{BOLD, CYAN, DIM, RED};
use super::setup::Setup;
use super::{say, say_wrapped};
use crate::checkpoint::FileChange;
use crate::fsx::display_path;
use crate::glyphs::Glyphs;
use crate::text::neutralize;

/// Lines of context around each change.
const CONTEXT: usize = 3;

/// `/diff`.
pub(super) fn show(chat: &mut Chat, setup: &Setup) {
    let width = chat.screen.width;
    let Some(checkpoints) = chat.checkpoints() else {
        return say_wrapped(
            setup.color,
            DIM,
            "no change recorded yet: checkpoints start with the first prompt",
            chat.screen.width,
            2,
        );
    };
    let changes = match checkpoints.session_changes() {
        Ok(changes) => changes,
        Err(message) => return say_wrapped(setup.color, RED, &neutralize(&format!("/diff: {message}")), width, 2),
    };
    if changes.is_empty() {
        return say_wrapped(setup.color, DIM, "no file changed in this session", chat.screen.width, 2);
    }
    let rendered: Vec<(String, Body)> = changes
        .iter()
        .map(|change| {
            let shown = display_path(&setup.root, &change.path);
            let body = body_of(change, &shown, setup.glyphs);
            (shown, body)
        })
        .collect();
    say_wrapped(setup.color, BOLD, &summary(&rendered, setup.glyphs), width, 2);
    for (shown, body) in &rendered {
        match body {
            Body::Diff { text, .. } => {
                for line in text.lines() {
                    say(&diff_row(line, setup.color, width));
                }
            }
            Body::Note(note) => say_wrapped(setup.color, CYAN, &neutralize(&format!("{shown}: {note}")), width, 2),
        }
    }
}

/// What is shown of one file: its diff (with the lines it adds and removes), or a note.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Body {
    Diff { text: String, added: usize, removed: usize },
    Note(String),
}

/// The body of one change, its file shown as `label`: a unified diff when both sides are text,
/// else what happened.
fn body_of(change: &FileChange, label: &str, glyphs: &Glyphs) -> Body {
    let text_of = |bytes: &Option<Vec<u8>>| match bytes {
        None => Some(String::new()),
        Some(bytes) if bytes.contains(&0) => None,
        Some(bytes) => String::from_utf8(bytes.clone()).ok(),
    };
    match (text_of(&change.before), text_of(&change.after)) {
        (Some(before), Some(after)) => {
            let old_label = if change.before.is_some() { format!("a/{label}") } else { "/dev/null".to_string() };
            let new_label = if change.after.is_some() { format!("b/{label}") } else { "/dev/null".to_string() };
            let text = crate::diff::unified_diff(&before, &after, &old_label, &new_label, CONTEXT);
            let counted = |marker: char, header: &str| {
                text.lines().filter(|line| line.starts_with(marker) && !line.starts_with(header)).count()
            };
            Body::Diff { added: counted('+', "+++"), removed: counted('-', "---"), text }
        }
        _ => Body::Note(match (&change.before, &change.after) {
            (None, Some(after)) => format!("created (binary, {} bytes)", after.len()),
            (Some(before), None) => format!("deleted (binary, {} bytes)", before.len()),
            (Some(before), Some(after)) => {
                format!("binary file changed: {} {} {} bytes", before.len(), glyphs.arrow, after.len())
            }
            (None, None) => "unchanged".to_string(),
        }),
    }
}

/// `3 files changed in this session: +12 −4`.
fn summary(rendered: &[(String, Body)], glyphs: &Glyphs) -> String {
    let (added, removed) = rendered.iter().fold((0, 0), |(added, removed), (_, body)| match body {
        Body::Diff { added: more, removed: fewer, .. } => (added + more, removed + fewer),
        Body::Note(_) => (added, removed),
    });
    let files = if rendered.len() == 1 { "1 file".to_string() } else { format!("{} files", rendered.len()) };
    format!("{files} changed in this session: +{added} {}{removed}", glyphs.minus)
}

#[cfg(test)]
#[path = "changes_tests.rs"]
mod tests;
