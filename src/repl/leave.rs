//! Keys that leave the input line for a moment and come back to it: Ctrl-G edits the line in
//! the person's own editor (`$VISUAL`, then `$EDITOR`, then `vi`), Ctrl-O shows the last tool
//! output whole.
//!
//! Invariant: the line is never lost: an editor that fails, exits non-zero or cannot be started
//! leaves the line as it was, with a one-line reason. The editor is the person's own program,
//! run as they would run it (not confined, the terminal theirs until it exits); the file it edits
//! is created afresh (`create_new`, mode 0600) and removed afterwards. Tool output reaches the
//! screen only neutralised.

use super::chat::Chat;
use super::render::{DIM, RED, paint};
use super::setup::Setup;
use super::{say, say_wrapped};
use crate::msg::{Message, Role};
use crate::text::neutralize;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// Lines of one tool output shown by Ctrl-O (the whole of it is in the session log).
const EXPAND_MAX_LINES: usize = 2_000;

/// Ctrl-G: `line` edited in the person's editor; the line as it was when that fails.
pub(super) fn edit_externally(setup: &Setup, line: &str) -> String {
    match run_editor(setup.editor.as_deref().unwrap_or("vi"), line) {
        Ok(edited) => edited,
        Err(reason) => {
            say(&paint(setup.color, RED, &neutralize(&format!("{reason}; the input is unchanged"))));
            line.to_string()
        }
    }
}

/// Writes `text` (and a final newline) to a fresh file, runs `editor` on it and reads it back
/// (one final newline dropped).
fn run_editor(editor: &str, text: &str) -> Result<String, String> {
    let path = scratch_path();
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path)
        .map_err(|err| format!("cannot create {}: {err}", path.display()))?;
    // A text file ends with a newline (editors add one on save; it is dropped again on return).
    let content = if text.is_empty() { String::new() } else { format!("{text}\n") };
    let written = file.write_all(content.as_bytes()).and_then(|()| file.sync_all());
    drop(file);
    let result = written
        .map_err(|err| format!("cannot write {}: {err}", path.display()))
        .and_then(|()| wait_for_editor(editor, &path))
        .and_then(|()| std::fs::read(&path).map_err(|err| format!("cannot read {} back: {err}", path.display())));
    let _ = std::fs::remove_file(&path);
    let edited = String::from_utf8(result?).map_err(|_| "the edited text is not UTF-8".to_string())?;
    Ok(edited.strip_suffix('\n').map(|text| text.strip_suffix('\r').unwrap_or(text)).unwrap_or(&edited).to_string())
}

/// Runs the editor command (a shell word list, as `$EDITOR` is: `code --wait` works) on `path`.
fn wait_for_editor(editor: &str, path: &Path) -> Result<(), String> {
    let status = std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("mewcode-editor")
        .arg(path)
        .status()
        .map_err(|err| format!("cannot start the editor `{editor}`: {err}"))?;
    if status.success() { Ok(()) } else { Err(format!("the editor `{editor}` exited with {status}")) }
}

/// A new name in the temporary directory for the file the editor edits.
fn scratch_path() -> PathBuf {
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |time| time.subsec_nanos());
    std::env::temp_dir().join(format!("mewcode-prompt-{}-{nanos}.md", std::process::id()))
}

/// Ctrl-O: the last round of tool results, whole (up to `EXPAND_MAX_LINES` lines each), each
/// under the line of its call.
pub(super) fn show_last_output(chat: &Chat, setup: &Setup) {
    let Some(history) = chat.conversation.as_ref().map(|conversation| conversation.history()) else { return };
    let Some(shown) = last_outputs(history) else {
        return say(&paint(setup.color, DIM, "(no tool output yet in this conversation)"));
    };
    let rule = setup.glyphs.rule.repeat(2);
    for (title, content, is_error) in shown {
        say(&paint(setup.color, DIM, &format!("{rule} {} {rule}", neutralize(&title))));
        let lines: Vec<&str> = content.lines().collect();
        let text = neutralize(&lines[..lines.len().min(EXPAND_MAX_LINES)].join("\n"));
        say_wrapped(setup.color, if is_error { RED } else { "" }, &text, chat.screen.width, 0);
        if lines.len() > EXPAND_MAX_LINES {
            let more = lines.len() - EXPAND_MAX_LINES;
            say(&paint(setup.color, DIM, &format!("({more} more lines; the whole output is in the session log)")));
        }
    }
}

/// The results of the last tool round, each with a title naming its call: (title, content,
/// is_error).
fn last_outputs(history: &[Message]) -> Option<Vec<(String, String, bool)>> {
    let at = history.iter().rposition(|message| message.role == Role::Tool)?;
    let shown = history[at]
        .tool_results
        .iter()
        .map(|result| {
            let title = match crate::msg::call_answered(history, at, result) {
                Some(call) => format!("{}({})", call.name, crate::agent::call_preview(call)),
                None => result.tool_call_id.clone(),
            };
            (title, result.content.clone(), result.is_error)
        })
        .collect();
    Some(shown)
}

#[cfg(test)]
#[path = "leave_tests.rs"]
mod tests;
