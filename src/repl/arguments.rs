//! A call's arguments as the approval prompt shows them: one `  key: value` per argument, a
//! multi-line string on indented lines below its key, and every string shown so that what the
//! person reads is what runs.
//!
//! Invariant: nothing of a string is hidden or dropped without a visible trace. Control,
//! invisible and lookalike characters are spelled out (`text::reveal`), a tab is `\t`, trailing
//! blanks and long runs of spaces are `␠` (`<sp>` in ASCII), and a run of blank lines — the way
//! to push a command's first line off the screen behind a harmless last one — is one
//! `⋯ N blank lines ⋯` row. A long value (many lines, or a very long line) is introduced with its
//! size, so the person knows how much there is before reading it. Pure: lines are not wrapped
//! here.

use crate::glyphs::Glyphs;
use crate::text::reveal;
use serde_json::Value;

/// A string of more lines than this is introduced with its size.
const MAX_QUIET_LINES: usize = 12;
/// A string with a line longer than this (in characters) is introduced with its size.
const MAX_QUIET_LINE_CHARS: usize = 500;
/// A run of at least this many spaces inside a line is shown as one `␠×N`.
const LONG_SPACE_RUN: usize = 16;

/// The call's arguments, one `  key: value` per line, each string shown by `render_string`;
/// keys in `hidden` are left out (the diff shows them better). Input that is not a JSON object
/// is shown as one string.
pub(super) fn render_arguments(input_json: &str, hidden: &[&str], glyphs: &Glyphs) -> String {
    let Ok(Value::Object(fields)) = serde_json::from_str::<Value>(input_json) else {
        return render_string("input", input_json, glyphs);
    };
    let mut text = String::new();
    for (key, value) in fields.iter().filter(|(key, _)| !hidden.contains(&key.as_str())) {
        match value {
            Value::String(string) => text.push_str(&render_string(key, string, glyphs)),
            other => text.push_str(&format!("  {}: {}\n", reveal(key), reveal(&other.to_string()))),
        }
    }
    text
}

/// One string argument: `  key: value` when it is one line, else `  key:` (with its size when it
/// is long) and its lines indented by four, blank runs folded. Ends with a newline.
fn render_string(key: &str, value: &str, glyphs: &Glyphs) -> String {
    // Split on `\n` alone: a `\r` before it is content (bash reads it), shown as `^M`. A final
    // newline ends the last line; it is not a blank line of its own.
    let mut lines: Vec<&str> = value.split('\n').collect();
    if lines.len() > 1 && lines.last() == Some(&"") {
        lines.pop();
    }
    let key = reveal(key);
    if let [line] = lines.as_slice()
        && line.chars().count() <= MAX_QUIET_LINE_CHARS
    {
        return format!("  {key}: {}\n", render_line(line, glyphs));
    }
    let mut text = match render_size(&lines) {
        Some(size) => format!("  {key} ({size}):\n"),
        None => format!("  {key}:\n"),
    };
    let mut index = 0;
    while index < lines.len() {
        let blanks = lines[index..].iter().take_while(|line| is_blank(line)).count();
        if blanks > 0 {
            let run = &lines[index..index + blanks];
            let plural = if blanks == 1 { "" } else { "s" };
            let note = if run.iter().any(|line| !line.is_empty()) { ", with spaces or tabs" } else { "" };
            let mark = glyphs.blank_run;
            text.push_str(&format!("    {mark} {blanks} blank line{plural}{note} {mark}\n"));
            index += blanks;
        } else {
            text.push_str(&format!("    {}\n", render_line(lines[index], glyphs)));
            index += 1;
        }
    }
    text
}

/// Empty, or only spaces and tabs.
fn is_blank(line: &str) -> bool {
    line.chars().all(|c| c == ' ' || c == '\t')
}

/// `64 lines, 60 of them blank, the longest 3000 characters` when the string is long, else None.
fn render_size(lines: &[&str]) -> Option<String> {
    let longest = lines.iter().map(|line| line.chars().count()).max().unwrap_or(0);
    if lines.len() <= MAX_QUIET_LINES && longest <= MAX_QUIET_LINE_CHARS {
        return None;
    }
    let plural = if lines.len() == 1 { "" } else { "s" };
    let mut size = format!("{} line{plural}", lines.len());
    let blank = lines.iter().filter(|line| is_blank(line)).count();
    if blank > 0 {
        size.push_str(&format!(", {blank} of them blank"));
    }
    if longest > MAX_QUIET_LINE_CHARS {
        let which = if lines.len() == 1 { "" } else { "the longest " };
        size.push_str(&format!(", {which}{longest} characters"));
    }
    Some(size)
}

/// One line made exact: revealed, a tab as `\t`, a run of `LONG_SPACE_RUN` spaces or more as
/// `␠×N`, and trailing spaces as `␠` (they would otherwise be indistinguishable from nothing).
fn render_line(line: &str, glyphs: &Glyphs) -> String {
    let revealed = reveal(line).replace('\t', "\\t");
    let body = revealed.trim_end_matches(' ');
    let trailing = revealed.len() - body.len();
    let mut out = String::with_capacity(revealed.len());
    let mut spaces = 0;
    for c in body.chars() {
        if c == ' ' {
            spaces += 1;
            continue;
        }
        out.push_str(&render_spaces(spaces, false, glyphs));
        spaces = 0;
        out.push(c);
    }
    out.push_str(&render_spaces(spaces, false, glyphs));
    out.push_str(&render_spaces(trailing, true, glyphs));
    out
}

/// `count` spaces as they are, or as `␠` marks when they trail the line or are a long run.
fn render_spaces(count: usize, trailing: bool, glyphs: &Glyphs) -> String {
    if count >= LONG_SPACE_RUN {
        format!("{}{}{count}", glyphs.space, glyphs.times)
    } else if trailing {
        glyphs.space.repeat(count)
    } else {
        " ".repeat(count)
    }
}

#[cfg(test)]
#[path = "arguments_tests.rs"]
mod tests;
