//! The word-wrapping line writer under the turn renderer and `render::wrap`: characters go in one
//! at a time, each word is held until it is known whether it fits on the current line, and a
//! line that overflows is broken before the word, the continuation line starting with a margin
//! (blanks under a list item's text, a block quote's bar).
//!
//! A pending word can be shown before it is complete when the stream pauses (`show_pending`, on
//! a terminal that takes cursor movement): if it then grows past the line's end, the part shown
//! is erased (backspaces over blanks: no escape sequence) and the whole word goes to the next
//! line, so a slow stream shows its words at once and still wraps at word boundaries.
//!
//! Invariant: append-only and display-width exact. Nothing written is taken back (except a shown
//! pending word, on its own line, as above); a word's
//! columns are counted with `char_width`, while the style escapes held inside it (`style`)
//! count for nothing. Where a styled span is broken over two lines, the style is reset before the
//! line break and set again after the margin, so a margin never takes the span's colour. It does
//! not neutralise (its callers give it neutralised text) and does not know about markdown.

use super::render::char_width;
use std::io::{self, Write};

/// Cursor and pending-word state of the lines being written to a terminal `width` columns wide.
pub(super) struct Wrap {
    width: usize,
    /// Display column of the cursor on the current line.
    column: usize,
    /// The word being received (its visible characters and any style escapes among them).
    word: String,
    /// Columns of the visible characters of `word`.
    word_width: usize,
    /// Blanks before that word, held back too: at a wrap they are dropped, not left dangling.
    blanks: usize,
    /// What a wrapped (continuation) line starts with, and its columns.
    hang: String,
    hang_width: usize,
    /// A word was written on the current line (only then can a wrap make room).
    word_on_line: bool,
    /// The style escape in effect after what was written ("" for none) ...
    written_style: String,
    /// ... and after the pending word.
    word_style: String,
    /// Of the pending word, the bytes already on screen (`show_pending`), their columns, and the
    /// blanks written before them.
    shown: usize,
    shown_width: usize,
    shown_blanks: usize,
}

impl Wrap {
    /// A writer for a terminal `width` columns wide (at least 1).
    pub(super) fn new(width: usize) -> Wrap {
        Wrap {
            width: width.max(1),
            column: 0,
            word: String::new(),
            word_width: 0,
            blanks: 0,
            hang: String::new(),
            hang_width: 0,
            word_on_line: false,
            written_style: String::new(),
            word_style: String::new(),
            shown: 0,
            shown_width: 0,
            shown_blanks: 0,
        }
    }

    pub(super) fn width(&self) -> usize {
        self.width
    }

    /// The cursor's column: the pending word not counted, except the part of it on screen.
    pub(super) fn column(&self) -> usize {
        if self.shown > 0 { self.column + self.shown_blanks + self.shown_width } else { self.column }
    }

    /// Continuation lines from now on start with `hang` (already painted), `hang_width` columns
    /// wide (the caller leaves room for text beside it).
    pub(super) fn set_hang(&mut self, hang: &str, hang_width: usize) {
        self.hang = hang.to_string();
        self.hang_width = hang_width;
    }

    /// Starts a line with `first` (already painted, `first_width` columns), continuation lines
    /// with `hang`. The first word goes after the margin even when it is too long for the rest
    /// of the line: it is split there rather than leaving the margin alone on its line.
    pub(super) fn start_line<W: Write>(
        &mut self,
        out: &mut W,
        first: &str,
        first_width: usize,
        hang: (&str, usize),
    ) -> io::Result<()> {
        self.end_line(out)?;
        out.write_all(first.as_bytes())?;
        self.column = first_width;
        self.set_hang(hang.0, hang.1);
        Ok(())
    }

    /// A style escape (an SGR sequence, or "" to mean none is in effect after `escape`), held
    /// with the pending word: it takes no column.
    pub(super) fn style(&mut self, escape: &str, in_effect: &str) {
        self.word.push_str(escape);
        self.word_style = in_effect.to_string();
    }

    /// Text written as it is, never wrapped (a code block's line): the pending word goes first.
    pub(super) fn verbatim<W: Write>(&mut self, out: &mut W, text: &str, width: usize) -> io::Result<()> {
        self.flush_word(out)?;
        self.write_blanks(out, self.blanks)?;
        out.write_all(text.as_bytes())?;
        self.column += width;
        Ok(())
    }

    /// One character: a newline ends the line, blanks separate words, anything else joins the
    /// pending word.
    pub(super) fn push<W: Write>(&mut self, out: &mut W, c: char) -> io::Result<()> {
        match c {
            '\n' => {
                self.flush_word(out)?;
                self.blanks = 0;
                out.write_all(b"\n")?;
                self.column = 0;
                self.word_on_line = false;
            }
            ' ' | '\t' => {
                self.flush_word(out)?;
                self.blanks += if c == '\t' { 8 - (self.column + self.blanks) % 8 } else { 1 };
            }
            _ => {
                let width = char_width(c);
                // A word longer than a whole (continuation) line is the one thing split.
                if self.word_width + width > self.width.saturating_sub(self.hang_width).max(1) {
                    self.flush_word(out)?;
                }
                self.word.push(c);
                self.word_width += width;
            }
        }
        Ok(())
    }

    /// Writes the pending word and, if the cursor is not at the start of a line, a newline.
    pub(super) fn end_line<W: Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.flush_word(out)?;
        self.blanks = 0;
        if self.column > 0 {
            out.write_all(b"\n")?;
            self.column = 0;
            self.word_on_line = false;
        }
        Ok(())
    }

    /// Writes the pending blanks and word, first moving to a new line if they do not fit (the
    /// blanks are then dropped: a wrapped line does not start with the space that separated it).
    /// A word of escapes alone is written at once and keeps the blanks pending.
    pub(super) fn flush_word<W: Write>(&mut self, out: &mut W) -> io::Result<()> {
        if self.word.is_empty() {
            return Ok(());
        }
        if self.shown > 0 {
            return self.finish_shown(out);
        }
        if self.word_width > 0 {
            if self.word_on_line && self.column + self.blanks + self.word_width > self.width {
                self.break_line(out)?;
            }
            let blanks = self.blanks.min(self.width.saturating_sub(self.word_width + self.column));
            self.write_blanks(out, blanks)?;
            self.column += self.word_width;
            self.word_on_line = true;
        }
        out.write_all(self.word.as_bytes())?;
        self.word.clear();
        self.word_width = 0;
        self.written_style.clone_from(&self.word_style);
        Ok(())
    }

    /// True when a word is pending (held until it is known whether it fits).
    pub(super) fn has_pending(&self) -> bool {
        self.word_width > self.shown_width
    }

    /// Shows the pending word as far as it came, when it fits on this line (the stream paused):
    /// the rest of it follows it there, or the whole word moves to the next line if it outgrows
    /// this one (`finish_shown`).
    pub(super) fn show_pending<W: Write>(&mut self, out: &mut W) -> io::Result<()> {
        if !self.has_pending() {
            return Ok(());
        }
        let blanks = if self.shown == 0 { self.blanks } else { self.shown_blanks };
        if self.column + blanks + self.word_width >= self.width {
            return Ok(());
        }
        if self.shown == 0 {
            for _ in 0..blanks {
                out.write_all(b" ")?;
            }
            self.shown_blanks = blanks;
        }
        out.write_all(&self.word.as_bytes()[self.shown..])?;
        self.shown = self.word.len();
        self.shown_width = self.word_width;
        Ok(())
    }

    /// Ends a word part of which is on screen: the rest follows it when it fits, else what was
    /// shown is erased and the word is written as any other (on the next line).
    fn finish_shown<W: Write>(&mut self, out: &mut W) -> io::Result<()> {
        let (shown, shown_width, shown_blanks) = (self.shown, self.shown_width, self.shown_blanks);
        (self.shown, self.shown_width, self.shown_blanks) = (0, 0, 0);
        if self.column + shown_blanks + self.word_width <= self.width {
            out.write_all(&self.word.as_bytes()[shown..])?;
            self.column += shown_blanks + self.word_width;
            self.blanks = 0;
            self.word_on_line = true;
            self.word.clear();
            self.word_width = 0;
            self.written_style.clone_from(&self.word_style);
            return Ok(());
        }
        // Back over it, blank it, back again: control bytes every terminal knows, no escape.
        let back = "\x08".repeat(shown_blanks + shown_width);
        write!(out, "{back}{}{back}", " ".repeat(shown_blanks + shown_width))?;
        if self.word[..shown].contains('\x1b') {
            // The part erased may have changed the style: back to the style of what stays.
            write!(out, "\x1b[0m{}", self.written_style)?;
        }
        self.blanks = shown_blanks;
        self.flush_word(out)
    }

    /// A wrap: the style in effect is reset around the line break and the margin.
    fn break_line<W: Write>(&mut self, out: &mut W) -> io::Result<()> {
        let styled = !self.written_style.is_empty();
        if styled {
            out.write_all(b"\x1b[0m")?;
        }
        out.write_all(b"\n")?;
        out.write_all(self.hang.as_bytes())?;
        if styled {
            out.write_all(self.written_style.as_bytes())?;
        }
        self.column = self.hang_width;
        self.blanks = 0;
        Ok(())
    }

    fn write_blanks<W: Write>(&mut self, out: &mut W, blanks: usize) -> io::Result<()> {
        for _ in 0..blanks {
            out.write_all(b" ")?;
        }
        self.column += blanks;
        self.blanks = 0;
        Ok(())
    }
}

#[cfg(test)]
#[path = "wrap_tests.rs"]
mod tests;
