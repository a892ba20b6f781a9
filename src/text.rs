//! Making untrusted text (model output, tool output, file contents) safe to show in a terminal.
//!
//! Invariant: after `neutralize`, a string contains no C0 control character except `\n` and
//! `\t`, no DEL and no C1 control, so it cannot move the cursor, clear the screen, change colours,
//! set the window title or retype a prompt line (`\r`). Each removed character is shown visibly
//! and in ASCII, whatever the locale: C0 controls and DEL in caret notation as `cat -v` shows
//! them (`ESC` as `^[`), others as `\u{..}`; so nothing is silently hidden either.
//!
//! `reveal` goes further for text a person must judge exactly (an approval prompt): it also
//! spells out every character that shows as nothing or as a plain space while being something
//! else (zero-width and other default-ignorable characters, bidi marks, line separators,
//! lookalike spaces such as U+00A0 or U+3000, tag characters), so what is read is what runs.
//! Neither function lays text out: blank lines, tabs and trailing blanks are the caller's.
//!
//! `truncate_chars` keeps a budget of characters (never splitting one) and says that it cut with
//! the caller's marker; it neither neutralizes nor counts display width.

/// Returns `text` with every terminal control character replaced by a visible stand-in.
pub(crate) fn neutralize(text: &str) -> String {
    if !text.chars().any(is_dangerous) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if !is_dangerous(c) {
            out.push(c);
        } else if c == '\u{1b}' {
            out.push_str("^[");
        } else if (c as u32) < 0x20 {
            out.push('^');
            out.push(char::from(b'@' + c as u8));
        } else if c == '\u{7f}' {
            out.push_str("^?");
        } else {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        }
    }
    out
}

/// `neutralize`d text with every invisible or space-lookalike character spelled out as
/// `\u{..}`: what is shown can only read differently from what it is by its visible characters.
/// Idempotent: its output contains nothing it would change.
pub(crate) fn reveal(text: &str) -> String {
    let neutral = neutralize(text);
    if !neutral.chars().any(is_hidden) {
        return neutral;
    }
    let mut out = String::with_capacity(neutral.len() + 8);
    for c in neutral.chars() {
        if is_hidden(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// The first `max_chars` characters of `text`, followed by `marker` when anything was cut (the
/// marker is not counted in the budget); `text` itself when it fits. An empty marker cuts silently.
pub(crate) fn truncate_chars(text: &str, max_chars: usize, marker: &str) -> String {
    match text.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}{marker}", &text[..cut]),
        None => text.to_string(),
    }
}

/// The first `shown` of `names` joined with commas, then how many more there were
/// (`a, b and 3 more`).
pub(crate) fn first_names(names: &[String], shown: usize) -> String {
    let listed = names.iter().take(shown).cloned().collect::<Vec<_>>().join(", ");
    match names.len().saturating_sub(shown) {
        0 => listed,
        more => format!("{listed} and {more} more"),
    }
}

/// Lines of a tool's output `--verbose` shows (the whole of it is in the session log).
pub(crate) const VERBOSE_LINES: usize = 200;

/// The first `count` lines of `text` (trailing blank lines dropped), then how many more there
/// were.
pub(crate) fn first_lines(text: &str, count: usize) -> String {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    let mut shown = lines[..lines.len().min(count)].join("\n");
    if lines.len() > count {
        shown.push_str(&format!("\n({} more lines)", lines.len() - count));
    }
    shown
}

/// Characters that look like nothing, or like an ASCII space, on a terminal: Unicode's
/// default-ignorable code points (zero-width characters, joiners, bidi marks and isolates,
/// variation selectors, Hangul fillers, tag characters), the line and paragraph separators, the
/// non-ASCII spaces, the Braille blank and the interlinear annotation marks.
fn is_hidden(c: char) -> bool {
    matches!(c as u32,
        0x00a0 | 0x00ad | 0x034f | 0x061c | 0x115f | 0x1160 | 0x1680 | 0x17b4 | 0x17b5
        | 0x180b..=0x180f | 0x2000..=0x200f | 0x2028..=0x202f | 0x205f..=0x206f | 0x2800 | 0x3000
        | 0x3164 | 0xfe00..=0xfe0f | 0xfeff | 0xffa0 | 0xfff0..=0xfffb | 0x1bca0..=0x1bca3
        | 0x1d173..=0x1d17a | 0xe0000..=0xe0fff)
}

/// C0 controls except newline and tab, DEL, C1 controls, and the Unicode bidi overrides that can
/// make displayed text read differently from what it is.
fn is_dangerous(c: char) -> bool {
    let code = c as u32;
    (code < 0x20 && c != '\n' && c != '\t')
        || code == 0x7f
        || (0x80..0xa0).contains(&code)
        || matches!(code, 0x202a..=0x202e | 0x2066..=0x2069)
}

#[cfg(test)]
#[path = "text_tests.rs"]
mod tests;
