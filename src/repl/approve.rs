//! The approval prompt of SPEC §5 layer 5: what the call wants to do (for `write_file` and
//! `edit_file` a unified diff of the change, computed in memory from the file on disk), why the
//! engine asks, what `a` will do for this call (save exact rules, allow file edits for the
//! session, or only this once), and `[y] yes once  [a] always  [n] no  [t] no, tell the model
//! what to do` answered with a single key. After `t` the person types one line (`LineInput`), which the model
//! reads as the refusal: `denied by user: <line>`.
//!
//! Invariant: the default is no — any key but `y`/`a`/`t`, Ctrl-C, or a closed terminal denies;
//! after `t`, an empty line, Ctrl-C or a closed terminal is a plain no.
//! Everything shown comes from the model or the disk and is neutralised, with invisible and
//! bidi characters spelled out, and is never truncated (a hidden tail could hide a payload);
//! string arguments are shown exactly (`arguments`: blank-line runs counted, tabs and trailing
//! blanks visible), and a prompt taller than the screen says that its start is above it.
//! Previews read files but never write them; the edit itself is the tool's job.

use super::applied::diff_row;
use super::arguments::render_arguments;
use super::render::{BOLD, DIM, GREEN, RED, YELLOW, display_width, paint, wrap};
use super::terminal::{Interrupts, Screen};
use super::terminal::{Key, read_key, read_keys};
use super::turn::TurnContext;
use crate::agent::gate::Always;
use crate::agent::{Approval, ApprovalRequest};
use crate::diff::unified_diff;
use crate::glyphs::Glyphs;
use crate::permission::store::LOCAL_SETTINGS;
use crate::text::reveal;
use serde_json::Value;
use std::io::Write;
use std::path::Path;

/// The key legend the prompt ends with (then ` › `, and the answer is echoed after it).
const KEYS: &str = "[y] yes once  [a] always  [n] no  [t] no, tell the model what to do";

/// What follows the legend on its line: the prompt's mark between blanks.
fn arrow(glyphs: &Glyphs) -> String {
    format!(" {} ", glyphs.prompt)
}

/// The legend word-wrapped to `width`, leaving room for the arrow on its last line.
fn legend(width: usize, glyphs: &Glyphs) -> String {
    wrap(KEYS, width.saturating_sub(display_width(&arrow(glyphs))), 0)
}

/// Files larger than this are not read for a preview.
const MAX_PREVIEW_BYTES: u64 = 4 * 1024 * 1024;
/// Context lines around each change.
const DIFF_CONTEXT: usize = 3;
/// The longest line `t` takes (bytes); what is typed beyond it is dropped.
const MAX_REDIRECT_BYTES: usize = 2000;
/// Shown after `t`, before the line is typed (then the prompt's mark).
const TELL_PROMPT: &str = "tell the model what to do instead (Enter sends, empty is a plain no)";

/// Shows the request on `out` (word-wrapped to the screen's width), waits for one key and
/// returns the answer (echoed).
pub(super) fn ask(request: &ApprovalRequest, context: &TurnContext, out: &mut impl Write) -> Approval {
    let TurnContext { root, color, glyphs, screen, interrupts, .. } = *context;
    let width = screen.width;
    let preview = load_edit_preview(root, &request.call.name, &request.call.input);
    let text = render_request(request, preview.as_deref(), color, glyphs, screen);
    if write!(out, "{text}").and_then(|()| out.flush()).is_err() {
        return Approval::Deny;
    }
    let (answer, echo, code) = match parse_answer(read_key(interrupts)) {
        Choice::Once => (Approval::Once, "yes, once", GREEN),
        Choice::Always => (Approval::Always, always_echo(&request.always), GREEN),
        Choice::Deny => (Approval::Deny, "no", RED),
        Choice::Tell => {
            let prompt = wrap(&format!("{TELL_PROMPT} {} ", glyphs.prompt), width, 0);
            let _ = write!(out, "{}\n{}", paint(color, RED, "no"), paint(color, BOLD, &prompt));
            let _ = out.flush();
            let (answer, echo) = match read_redirect(interrupts, out) {
                Some(text) => (Approval::Redirect(text), "(sent to the model)"),
                None => (Approval::Deny, "(nothing typed: a plain no)"),
            };
            let _ = writeln!(out, "{}", paint(color, DIM, echo)).and_then(|()| out.flush());
            return answer;
        }
    };
    // The answer goes after the legend when it fits there, else on a line of its own.
    let legend = legend(width, glyphs);
    let last_line = legend.rsplit('\n').next().unwrap_or_default();
    let room = width.saturating_sub(display_width(last_line) + display_width(&arrow(glyphs)) + 1);
    let before = if display_width(echo) <= room { "" } else { "\n" };
    let _ = writeln!(out, "{before}{}", paint(color, code, echo)).and_then(|()| out.flush());
    answer
}

/// What is echoed after `a`: what it did.
fn always_echo(always: &Always) -> &'static str {
    match always {
        Always::Save { .. } => "yes, always",
        Always::EditsThisSession => "yes, edits for this session",
        Always::Once { .. } => "yes, this time",
    }
}

/// What a key at the approval prompt chooses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Choice {
    Once,
    Always,
    Deny,
    /// No, and the person types what the model should do instead.
    Tell,
}

/// `y` → once, `a` → always, `t` → no and tell, anything else (including Enter, Esc, Ctrl-C) → no.
fn parse_answer(key: Key) -> Choice {
    match key {
        Key::Byte(b'y' | b'Y') => Choice::Once,
        Key::Byte(b'a' | b'A') => Choice::Always,
        Key::Byte(b't' | b'T') => Choice::Tell,
        Key::Byte(_) | Key::Interrupted | Key::Closed => Choice::Deny,
    }
}

/// Reads the line typed after `t`, echoing it on `out`; `None` when it is empty or reading ended
/// without Enter (Ctrl-C, closed terminal).
fn read_redirect(interrupts: &Interrupts, out: &mut impl Write) -> Option<String> {
    let mut line = LineInput::default();
    let mut entered = false;
    read_keys(interrupts, |byte| match line.feed(byte) {
        LineStep::Echo(echo) => {
            let _ = out.write_all(&echo).and_then(|()| out.flush());
            true
        }
        LineStep::Done => {
            entered = true;
            let _ = writeln!(out);
            false
        }
    });
    let text = line.text();
    (entered && !text.is_empty()).then_some(text)
}

/// One line typed at the `t` prompt, byte by byte (pure: the terminal part only reads and
/// echoes). Printable text is kept (UTF-8 passes through; a tab becomes a space), Backspace
/// erases the last character, escape sequences (arrow keys) and other control bytes are
/// dropped, and Enter ends the line. At most `MAX_REDIRECT_BYTES` are kept.
#[derive(Debug, Default)]
struct LineInput {
    bytes: Vec<u8>,
    escape: Escape,
}

/// Where `LineInput` is inside an escape sequence.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Escape {
    #[default]
    Outside,
    /// After ESC.
    Start,
    /// After ESC `[`: parameters until a final byte (0x40..=0x7e).
    Csi,
    /// After ESC `O`: one more byte.
    Ss3,
}

/// What one byte did to a `LineInput`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum LineStep {
    /// Bytes to write back to the terminal (empty when the byte was dropped).
    Echo(Vec<u8>),
    /// Enter: the line is complete.
    Done,
}

impl LineInput {
    pub(crate) fn feed(&mut self, byte: u8) -> LineStep {
        let echo = |bytes: &[u8]| LineStep::Echo(bytes.to_vec());
        match (self.escape, byte) {
            (Escape::Start, b'[') => self.escape = Escape::Csi,
            (Escape::Start, b'O') => self.escape = Escape::Ss3,
            (Escape::Start | Escape::Ss3, _) => self.escape = Escape::Outside,
            (Escape::Csi, 0x40..=0x7e) => self.escape = Escape::Outside,
            (Escape::Csi, _) => {}
            (Escape::Outside, b'\r' | b'\n') => return LineStep::Done,
            (Escape::Outside, 0x1b) => self.escape = Escape::Start,
            (Escape::Outside, 0x7f | 0x08) => {
                // Drop the last character: its UTF-8 continuation bytes and its first byte.
                while self.bytes.last().is_some_and(|last| last & 0xc0 == 0x80) {
                    self.bytes.pop();
                }
                if self.bytes.pop().is_some() {
                    return echo(b"\x08 \x08");
                }
            }
            (Escape::Outside, b'\t') => return self.push(b' '),
            (Escape::Outside, 0x00..=0x1f) => {}
            (Escape::Outside, _) => return self.push(byte),
        }
        echo(b"")
    }

    fn push(&mut self, byte: u8) -> LineStep {
        if self.bytes.len() >= MAX_REDIRECT_BYTES {
            return LineStep::Echo(Vec::new());
        }
        self.bytes.push(byte);
        LineStep::Echo(vec![byte])
    }

    /// The line so far, trimmed (invalid UTF-8 replaced).
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).trim().to_string()
    }
}

/// The whole prompt, ending with the key legend (no newline: the answer is echoed after it).
/// Every line is word-wrapped to the screen's width (nothing is cut); a wrapped diff line repeats
/// its `+`/`-`/` ` marker on each row, so every row on screen says which side it belongs to. A
/// prompt taller than the screen says so above the legend: its first rows (the tool, the start of
/// the command) are above the screen then, and must not pass unread.
fn render_request(
    request: &ApprovalRequest,
    preview: Option<&str>,
    color: bool,
    glyphs: &Glyphs,
    screen: Screen,
) -> String {
    let width = screen.width;
    let mut rows: Vec<String> = Vec::new();
    let title = format!("{} {} needs your approval ({})", glyphs.warning, request.call.name, request.rule_name);
    rows.push(paint(color, YELLOW, &paint(color, BOLD, &wrap(&reveal(&title), width, 2))));
    rows.push(paint(color, DIM, &wrap(&reveal(&format!("  reason: {}", request.reason)), width, 4)));
    let hidden: &[&str] = if preview.is_some() { &["old_string", "new_string", "content"] } else { &[] };
    // Already revealed, line by line (see `arguments`).
    for line in render_arguments(&request.call.input, hidden, glyphs).lines() {
        rows.push(wrap(line, width, 6));
    }
    if let Some(diff) = preview {
        rows.extend(diff.lines().map(|line| diff_row(line, color, width)));
    }
    rows.push(paint(color, DIM, &wrap(&reveal(&render_always(&request.always)), width, 4)));
    let legend = legend(width, glyphs);
    let height = rows.iter().map(|row| row.split('\n').count()).sum::<usize>() + legend.split('\n').count();
    if height > screen.height {
        let note =
            format!("  {} {height} rows: this request starts above the screen; scroll up to read all of it", glyphs.up);
        rows.push(paint(color, YELLOW, &wrap(&note, width, 4)));
    }
    let mut text = rows.join("\n");
    text.push('\n');
    text.push_str(&paint(color, BOLD, &legend));
    text.push_str(&arrow(glyphs));
    text
}

/// The line that says what `a` will do for this call: save exact rules (and where), allow file
/// edits for the session, or run it this once (and why nothing more).
fn render_always(always: &Always) -> String {
    match always {
        Always::Save { rules } => format!("  a: always (saved to {LOCAL_SETTINGS} as {})", rules.join(" and ")),
        Always::EditsThisSession => {
            "  a: always this session: file edits run without asking until you quit (nothing saved)".to_string()
        }
        Always::Once { why } => format!("  a: this time only ({why})"),
    }
}

/// What is on disk at the path a write or edit targets.
#[derive(Clone, Debug, PartialEq, Eq)]
enum FileState {
    Missing,
    Text(String),
    /// Unreadable, not UTF-8, a directory or too large: why.
    Unreadable(String),
}

/// The diff preview of a `write_file` / `edit_file` call against the file on disk (relative
/// paths resolve against `root`); `None` for other tools or unparsable input.
fn load_edit_preview(root: &Path, tool_name: &str, input_json: &str) -> Option<String> {
    let path = edit_target(tool_name, input_json)?;
    let full = if Path::new(&path).is_absolute() { Path::new(&path).to_path_buf() } else { root.join(&path) };
    let state = match std::fs::metadata(&full) {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => FileState::Missing,
        Err(err) => FileState::Unreadable(err.to_string()),
        Ok(meta) if meta.is_dir() => FileState::Unreadable("it is a directory".to_string()),
        Ok(meta) if meta.len() > MAX_PREVIEW_BYTES => FileState::Unreadable("the file is too large to preview".into()),
        Ok(_) => match std::fs::read(&full).map(String::from_utf8) {
            Ok(Ok(text)) => FileState::Text(text),
            Ok(Err(_)) => FileState::Unreadable("the file is not UTF-8 text".to_string()),
            Err(err) => FileState::Unreadable(err.to_string()),
        },
    };
    render_edit_preview(tool_name, input_json, &state)
}

/// The path a write or edit call targets.
fn edit_target(tool_name: &str, input_json: &str) -> Option<String> {
    if !matches!(tool_name, "write_file" | "edit_file") {
        return None;
    }
    let input: Value = serde_json::from_str(input_json).ok()?;
    input.get("path").and_then(Value::as_str).map(String::from)
}

/// The unified diff a `write_file` / `edit_file` call would make to a file in `current` state,
/// or a one-line note saying why there is none (the edit would fail, nothing changes...).
/// Mirrors the tools' rules: an empty `old_string` creates or fills an empty file; it must match
/// exactly once unless `replace_all`; a CRLF file is matched with `\r\n` line endings.
fn render_edit_preview(tool_name: &str, input_json: &str, current: &FileState) -> Option<String> {
    let path = edit_target(tool_name, input_json)?;
    let input: Value = serde_json::from_str(input_json).ok()?;
    let field = |name: &str| input.get(name).and_then(Value::as_str).map(String::from);
    let (old_label, new_label) = (format!("a/{path}"), format!("b/{path}"));
    let (before, after) = match (tool_name, current) {
        (_, FileState::Unreadable(why)) => return Some(format!("(no preview: {why})")),
        ("write_file", state) => {
            let before = match state {
                FileState::Text(text) => text.clone(),
                FileState::Missing | FileState::Unreadable(_) => String::new(),
            };
            (before, field("content")?)
        }
        (_, state) => {
            let (old, new) = (field("old_string")?, field("new_string")?);
            let replace_all = matches!(input.get("replace_all"), Some(Value::Bool(true)))
                || input.get("replace_all").and_then(Value::as_str) == Some("true");
            match (state, old.is_empty()) {
                (FileState::Missing, true) => (String::new(), new),
                (FileState::Missing, false) => return Some(format!("(the edit will fail: {path} does not exist)")),
                (FileState::Text(text), true) if text.is_empty() => (String::new(), new),
                (FileState::Text(_), true) => {
                    return Some(format!("(the edit will fail: old_string is empty but {path} has content)"));
                }
                (FileState::Text(text), false) => match apply_edit(text, &old, &new, replace_all) {
                    Ok(after) => (text.clone(), after),
                    Err(why) => return Some(format!("(the edit will fail: {why})")),
                },
                (FileState::Unreadable(_), _) => return None,
            }
        }
    };
    let old_label = if matches!(current, FileState::Missing) { "/dev/null".to_string() } else { old_label };
    let diff = unified_diff(&before, &after, &old_label, &new_label, DIFF_CONTEXT);
    Some(if diff.is_empty() { "(no change: the file already has this content)".to_string() } else { diff })
}

/// `text` with `old` replaced by `new` once (or everywhere), trying CRLF-converted strings when
/// the file uses CRLF and the strings as given do not match.
fn apply_edit(text: &str, old: &str, new: &str, replace_all: bool) -> Result<String, String> {
    let crlf = (old.replace("\r\n", "\n").replace('\n', "\r\n"), new.replace("\r\n", "\n").replace('\n', "\r\n"));
    let (old, new) = if !text.contains(old) && text.contains("\r\n") && text.contains(&crlf.0) {
        (crlf.0.as_str(), crlf.1.as_str())
    } else {
        (old, new)
    };
    match text.matches(old).count() {
        0 => Err("old_string is not in the file".to_string()),
        1 => Ok(text.replacen(old, new, 1)),
        _ if replace_all => Ok(text.replace(old, new)),
        count => Err(format!("old_string matches {count} times and replace_all is not set")),
    }
}

#[cfg(test)]
#[path = "approve_tests.rs"]
mod tests;
