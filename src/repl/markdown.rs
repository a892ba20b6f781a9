//! The answer's markdown, rendered as it streams: each line's block marker (heading, bullet or
//! numbered item, block quote, rule, code fence) is read from its first characters and shown as a
//! margin or a style, its text goes through `inline.rs`, and fenced code is written verbatim.
//!
//! Invariant: append-only, and the output depends on the characters alone, never on how they
//! were split into deltas. A line's start is held only while it could still be a marker (`#`,
//! `-`, `1.`, `>`, a fence's backticks; a fence line until its end, for its language); a code
//! block's lines are never wrapped, reflowed or read as markdown; nothing is dropped but the
//! markers themselves. With colour off no escape byte is written. Text is neutralised by the
//! caller; this module does not know where it goes beyond `Wrap`.
//!
//! What is not rendered: tables, setext headings, indented code blocks, HTML, images, and spans
//! across lines (each line is read on its own; a soft line break stays a line break).

use super::inline::{Emit, Inline, Style};
use super::render::{DIM, char_width, display_width, paint};
use super::wrap::Wrap;
use crate::glyphs::Glyphs;
use std::io::{self, Write};

/// A line start held longer than this is text (bounds the work on a line of 100 000 `-`).
const MAX_HEAD: usize = 256;
/// A bullet item's marker as parsed (any of `-`, `*`, `+`); drawn as `Glyphs::bullet`.
const BULLET: &str = "-";
/// The longest rule drawn for `---`.
const RULE_COLUMNS: usize = 80;
/// Columns of a tab in a code block.
const TAB_COLUMNS: usize = 4;

/// The markdown state of one answer.
pub(super) struct Markdown {
    /// Characters of the current line not yet classified.
    head: String,
    line: Line,
    /// The fenced code block the lines are in.
    fence: Option<Fence>,
    inline: Inline,
    pen: Pen,
    /// Display column inside a code line (for tab stops).
    code_column: usize,
    /// The symbols of bullets, quote bars and rules.
    glyphs: &'static Glyphs,
}

enum Line {
    /// At the start of a line: characters go to `head` until it is known what the line is.
    Start,
    /// The line's text goes through the inline parser.
    Text,
    /// An opening fence line, held to its end (in `head`) for its language.
    FenceInfo(Fence),
    /// A line of a code block: characters are written as they come.
    Code,
}

#[derive(Clone)]
struct Fence {
    /// `` ` `` or `~`, and how many opened the block (a closing fence has at least as many).
    ch: u8,
    len: usize,
    /// Blanks before the fence: removed from its lines (a block in a list item).
    indent: usize,
    /// Block quotes it is in.
    quotes: usize,
    /// Where the info string starts in the fence line.
    info: usize,
}

/// The style in effect, and how styles become escapes.
struct Pen {
    color: bool,
    /// Style of the whole line (a heading's bold), under the inline styles.
    base: Style,
    /// The inline style asked for, set at the next character (so that styles opened and closed
    /// between two characters cost nothing).
    wanted: Style,
    /// The style the terminal is in.
    shown: Style,
}

/// The inline parser's output on its way to the wrapper.
struct Painter<'a, W: Write> {
    pen: &'a mut Pen,
    wrap: &'a mut Wrap,
    out: &'a mut W,
}

impl<W: Write> Emit for Painter<'_, W> {
    fn char(&mut self, c: char) -> io::Result<()> {
        self.apply();
        self.wrap.push(self.out, c)
    }

    fn style(&mut self, style: Style) {
        self.pen.wanted = style;
    }
}

impl<W: Write> Painter<'_, W> {
    /// Puts the terminal in the style asked for (with colour on).
    fn apply(&mut self) {
        let style = self.pen.wanted | self.pen.base;
        if self.pen.color && style != self.pen.shown {
            let escape = style.escape();
            self.wrap.style(&escape, if style == Style::NONE { "" } else { &escape });
            self.pen.shown = style;
        }
    }

    /// Ends whatever style is in effect (the base too).
    fn reset(&mut self) {
        self.pen.wanted = Style::NONE;
        if self.pen.shown != Style::NONE {
            self.wrap.style("\x1b[0m", "");
            self.pen.shown = Style::NONE;
        }
    }
}

/// What the start of a line says it is.
#[derive(Debug, PartialEq, Eq)]
enum Block {
    /// Not known yet: more characters are needed.
    Undecided,
    Blank,
    Rule,
    Heading {
        text: usize,
    },
    Fence {
        ch: u8,
        len: usize,
        info: usize,
    },
    /// A list item: its marker (`BULLET` for a bullet, shown as the glyph; `1.`) and where its
    /// text starts.
    Item {
        marker: String,
        text: usize,
    },
    Paragraph {
        text: usize,
    },
}

/// A line start read: the block quotes and indentation before its marker, and the marker.
#[derive(Debug, PartialEq, Eq)]
struct Head {
    quotes: usize,
    indent: usize,
    block: Block,
}

impl Markdown {
    pub(super) fn new(color: bool, glyphs: &'static Glyphs) -> Markdown {
        Markdown {
            glyphs,
            head: String::new(),
            line: Line::Start,
            fence: None,
            inline: Inline::default(),
            pen: Pen { color, base: Style::NONE, wanted: Style::NONE, shown: Style::NONE },
            code_column: 0,
        }
    }

    /// One character of the answer (neutralised).
    pub(super) fn push<W: Write>(&mut self, c: char, wrap: &mut Wrap, out: &mut W) -> io::Result<()> {
        match &mut self.line {
            Line::Start if c == '\n' => {
                self.decide(true, wrap, out)?;
                self.end_line(wrap, out)?;
                wrap.push(out, '\n')
            }
            Line::Start => {
                self.head.push(c);
                self.decide(false, wrap, out)
            }
            Line::Text if c == '\n' => {
                self.end_line(wrap, out)?;
                wrap.push(out, '\n')
            }
            Line::Text => self.inline.push(c, &mut Painter { pen: &mut self.pen, wrap, out }),
            Line::FenceInfo(_) if c == '\n' => {
                self.end_line(wrap, out)?;
                wrap.push(out, '\n')
            }
            Line::FenceInfo(fence) if c == '`' && fence.ch == b'`' => {
                // A backtick after the opening ones: inline code, not a fence (```a```).
                self.head.push(c);
                let (quotes, indent, text) = prefix(&self.head);
                self.start_text(quotes, indent, "", text, wrap, out)
            }
            Line::FenceInfo(_) => {
                self.head.push(c);
                Ok(())
            }
            Line::Code => self.code_char(c, wrap, out),
        }
    }

    /// The answer ended (or something else is about to be written): what is held is written,
    /// and the next answer starts outside any block. The cursor may be left mid-line.
    pub(super) fn finish<W: Write>(&mut self, wrap: &mut Wrap, out: &mut W) -> io::Result<()> {
        if matches!(self.line, Line::Start) && !self.head.is_empty() {
            self.decide(true, wrap, out)?;
        }
        self.end_line(wrap, out)?;
        self.fence = None;
        Ok(())
    }

    /// Classifies the held line start (`complete`: the line ended) and acts on it.
    fn decide<W: Write>(&mut self, complete: bool, wrap: &mut Wrap, out: &mut W) -> io::Result<()> {
        if let Some(fence) = &self.fence {
            return match read_code_line(&self.head, fence, complete || self.head.len() > MAX_HEAD) {
                CodeLine::Undecided => Ok(()),
                CodeLine::Close => {
                    let (quotes, indent) = (fence.quotes, fence.indent);
                    self.fence = None;
                    self.dim_line(quotes, indent, &self.glyphs.rule.repeat(2), wrap, out)
                }
                CodeLine::Content { text } => {
                    let (quotes, indent) = (fence.quotes, fence.indent);
                    let (first, hang) = self.margin(quotes, indent, "", wrap.width());
                    wrap.start_line(out, &first.0, first.1, (&hang.0, hang.1))?;
                    self.line = Line::Code;
                    self.code_column = 0;
                    let head = std::mem::take(&mut self.head);
                    head[text..].chars().try_for_each(|c| self.code_char(c, wrap, out))
                }
            };
        }
        let mut head = read_head(&self.head, complete);
        if head.block == Block::Undecided && self.head.len() > MAX_HEAD {
            let (quotes, indent, text) = prefix(&self.head);
            head = Head { quotes, indent, block: Block::Paragraph { text } };
        }
        let Head { quotes, indent, block } = head;
        match block {
            Block::Undecided => Ok(()),
            Block::Blank => {
                if quotes > 0 {
                    let (first, hang) = self.margin(quotes, 0, "", wrap.width());
                    wrap.start_line(out, first.0.trim_end(), first.1.saturating_sub(1), (&hang.0, hang.1))?;
                }
                self.head.clear();
                Ok(())
            }
            Block::Rule => {
                let (first, _) = self.margin(quotes, indent, "", wrap.width());
                let columns = wrap.width().saturating_sub(first.1 + 1).clamp(3, RULE_COLUMNS);
                self.dim_line(quotes, indent, &self.glyphs.rule.repeat(columns), wrap, out)
            }
            Block::Heading { text } => {
                self.pen.base = Style::BOLD;
                self.start_text(quotes, indent, "", text, wrap, out)
            }
            Block::Fence { ch, len, info } => {
                self.line = Line::FenceInfo(Fence { ch, len, indent, quotes, info });
                Ok(())
            }
            Block::Item { marker, text } => {
                let marker = if marker == BULLET { self.glyphs.bullet.to_string() } else { marker };
                self.start_text(quotes, indent, &marker, text, wrap, out)
            }
            Block::Paragraph { text } => self.start_text(quotes, indent, "", text, wrap, out),
        }
    }

    /// Starts a line of text after its margin; the held characters from `text` on are its first.
    fn start_text<W: Write>(
        &mut self,
        quotes: usize,
        indent: usize,
        marker: &str,
        text: usize,
        wrap: &mut Wrap,
        out: &mut W,
    ) -> io::Result<()> {
        let (first, hang) = self.margin(quotes, indent, marker, wrap.width());
        wrap.start_line(out, &first.0, first.1, (&hang.0, hang.1))?;
        self.line = Line::Text;
        let head = std::mem::take(&mut self.head);
        let mut painter = Painter { pen: &mut self.pen, wrap, out };
        head[text..].chars().try_for_each(|c| self.inline.push(c, &mut painter))
    }

    /// Ends the current line (not writing the newline): held text written, styles reset.
    fn end_line<W: Write>(&mut self, wrap: &mut Wrap, out: &mut W) -> io::Result<()> {
        match std::mem::replace(&mut self.line, Line::Start) {
            Line::Text => self.inline.end_line(&mut Painter { pen: &mut self.pen, wrap, out })?,
            Line::FenceInfo(fence) => {
                // The fence line is shown as a dim rule with its language (its info string).
                let info = self.head[fence.info..].trim();
                let lead = self.glyphs.rule.repeat(2);
                let label = if info.is_empty() { lead } else { format!("{lead} {info}") };
                let (quotes, indent) = (fence.quotes, fence.indent);
                self.fence = Some(fence);
                self.dim_line(quotes, indent, &label, wrap, out)?;
            }
            Line::Start | Line::Code => {}
        }
        Painter { pen: &mut self.pen, wrap, out }.reset();
        self.pen.base = Style::NONE;
        self.head.clear();
        Ok(())
    }

    /// A line of our own, dim, after the block's margin: a rule, a fence.
    fn dim_line<W: Write>(
        &mut self,
        quotes: usize,
        indent: usize,
        text: &str,
        wrap: &mut Wrap,
        out: &mut W,
    ) -> io::Result<()> {
        let (first, hang) = self.margin(quotes, indent, "", wrap.width());
        wrap.start_line(out, &first.0, first.1, (&hang.0, hang.1))?;
        let mut painter = Painter { pen: &mut self.pen, wrap, out };
        painter.style(Style::DIM);
        painter.apply();
        painter.wrap.verbatim(painter.out, text, display_width(text))?;
        painter.reset();
        self.head.clear();
        Ok(())
    }

    /// One character of a code block's line, as it is (a tab as blanks to its stop).
    fn code_char<W: Write>(&mut self, c: char, wrap: &mut Wrap, out: &mut W) -> io::Result<()> {
        if c == '\n' {
            self.end_line(wrap, out)?;
            return wrap.push(out, '\n');
        }
        if c == '\t' {
            let blanks = TAB_COLUMNS - self.code_column % TAB_COLUMNS;
            self.code_column += blanks;
            return wrap.verbatim(out, &" ".repeat(blanks), blanks);
        }
        let width = char_width(c);
        self.code_column += width;
        // The style is set at the first character: an empty line is written without escapes.
        let mut painter = Painter { pen: &mut self.pen, wrap, out };
        painter.style(Style::CODE);
        painter.apply();
        let mut buffer = [0; 4];
        wrap.verbatim(out, c.encode_utf8(&mut buffer), width)
    }

    /// The first line's margin and the continuation lines' (painted, and their columns): a bar
    /// per block quote, the indentation, the list marker. Never more than half the line: deep
    /// nesting loses indentation, then bars.
    fn margin(&self, quotes: usize, indent: usize, marker: &str, width: usize) -> ((String, usize), (String, usize)) {
        let marker_columns = if marker.is_empty() { 0 } else { display_width(marker) + 1 };
        let budget = (width / 2).saturating_sub(marker_columns);
        let quotes = quotes.min(budget / 2);
        let indent = indent.min(budget - quotes * 2);
        let bars = format!("{} ", paint(self.pen.color, DIM, self.glyphs.bar)).repeat(quotes);
        let lead = format!("{bars}{}", " ".repeat(indent));
        let columns = quotes * 2 + indent;
        let first = if marker.is_empty() { lead.clone() } else { format!("{lead}{marker} ") };
        let hang = format!("{lead}{}", " ".repeat(marker_columns));
        ((first, columns + marker_columns), (hang, columns + marker_columns))
    }
}

/// What a line inside a fenced code block is.
#[derive(Debug, PartialEq, Eq)]
enum CodeLine {
    Undecided,
    /// The closing fence.
    Close,
    /// Code, starting at this byte of the line.
    Content {
        text: usize,
    },
}

/// Reads a line start inside `fence`: the fence's quotes and up to its indentation are skipped;
/// it closes the block if it is at least as many fence characters and nothing else.
fn read_code_line(head: &str, fence: &Fence, complete: bool) -> CodeLine {
    let bytes = head.as_bytes();
    let (quotes, mut at) = quote_markers(head, fence.quotes);
    let quoted = at;
    if quotes < fence.quotes && at == bytes.len() && !complete {
        return CodeLine::Undecided;
    }
    let blanks = bytes[at..].iter().take_while(|&&byte| byte == b' ').count();
    at += blanks;
    let run = bytes[at..].iter().take_while(|&&byte| byte == fence.ch).count();
    let rest = &bytes[at + run..];
    let content = CodeLine::Content { text: quoted + blanks.min(fence.indent) };
    if rest.iter().all(|&byte| byte == b' ' || byte == b'\t') && (run >= fence.len || rest.is_empty()) {
        match (complete, run >= fence.len) {
            (false, _) => CodeLine::Undecided,
            (true, true) => CodeLine::Close,
            (true, false) => content,
        }
    } else {
        content
    }
}

/// Reads a line start outside code: `complete` when the line has ended (its start is all of it).
fn read_head(head: &str, complete: bool) -> Head {
    let (quotes, indent, text) = prefix(head);
    let block = read_block(&head[text..], text, complete);
    Head { quotes, indent, block }
}

/// The block marker of `rest` (what follows the quotes and indentation, at byte `at` of the line).
fn read_block(rest: &str, at: usize, complete: bool) -> Block {
    let bytes = rest.as_bytes();
    let Some(&first) = bytes.first() else {
        return if complete { Block::Blank } else { Block::Undecided };
    };
    let run = bytes.iter().take_while(|&&byte| byte == first).count();
    let blank_after = |index: usize| bytes.get(index).is_some_and(|&byte| byte == b' ' || byte == b'\t');
    let undecided_or = |block: Block| if complete { block } else { Block::Undecided };
    match first {
        b'#' if run <= 6 && run == bytes.len() => undecided_or(Block::Heading { text: at + run }),
        b'#' if run <= 6 && blank_after(run) => Block::Heading { text: at + run + 1 },
        b'`' | b'~' if run >= 3 => Block::Fence { ch: first, len: run, info: at + run },
        b'`' | b'~' if run == bytes.len() => undecided_or(Block::Paragraph { text: at }),
        b'-' | b'*' | b'_' if bytes.iter().all(|&byte| byte == first || byte == b' ' || byte == b'\t') => {
            let markers = bytes.iter().filter(|&&byte| byte == first).count();
            match (complete, markers >= 3) {
                (false, _) => Block::Undecided,
                (true, true) => Block::Rule,
                (true, false) if first != b'_' && (bytes.len() == 1 || blank_after(1)) => {
                    Block::Item { marker: BULLET.to_string(), text: at + bytes.len().min(2) }
                }
                (true, false) => Block::Paragraph { text: at },
            }
        }
        b'-' | b'*' | b'+' if blank_after(1) => Block::Item { marker: BULLET.to_string(), text: at + 2 },
        b'+' if bytes.len() == 1 => undecided_or(Block::Item { marker: BULLET.to_string(), text: at + 1 }),
        b'0'..=b'9' => {
            let digits = bytes.iter().take_while(|byte| byte.is_ascii_digit()).count();
            let delimiter = bytes.get(digits).copied();
            match delimiter {
                _ if digits > 9 => Block::Paragraph { text: at },
                None => undecided_or(Block::Paragraph { text: at }),
                Some(b'.' | b')') if digits + 1 == bytes.len() => undecided_or(Block::Paragraph { text: at }),
                Some(b'.' | b')') if blank_after(digits + 1) => {
                    Block::Item { marker: rest[..digits + 1].to_string(), text: at + digits + 2 }
                }
                Some(_) => Block::Paragraph { text: at },
            }
        }
        _ => Block::Paragraph { text: at },
    }
}

/// The block quotes and indentation a line starts with, and the byte where what follows starts.
fn prefix(head: &str) -> (usize, usize, usize) {
    let (quotes, mut at) = quote_markers(head, usize::MAX);
    let mut indent = 0;
    for &byte in &head.as_bytes()[at..] {
        match byte {
            b' ' => indent += 1,
            b'\t' => indent += 4 - indent % 4,
            _ => break,
        }
        at += 1;
    }
    (quotes, indent, at)
}

/// Up to `most` block quote markers (`>`, each after at most 3 blanks and with one optional
/// blank after it): how many, and the byte after them.
fn quote_markers(head: &str, most: usize) -> (usize, usize) {
    let bytes = head.as_bytes();
    let (mut quotes, mut at) = (0, 0);
    while quotes < most {
        let blanks = bytes[at..].iter().take(3).take_while(|&&byte| byte == b' ').count();
        if bytes.get(at + blanks) != Some(&b'>') {
            break;
        }
        at += blanks + 1;
        if bytes.get(at).is_some_and(|&byte| byte == b' ' || byte == b'\t') {
            at += 1;
        }
        quotes += 1;
    }
    (quotes, at)
}

#[cfg(test)]
#[path = "markdown_tests.rs"]
mod tests;
