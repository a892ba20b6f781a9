//! Markdown inside one line of an answer, as it streams: emphasis (`**bold**`, `*italic*`,
//! `_italic_`, `~~strike~~`, by CommonMark's flanking rules), code spans (`` `x` ``), links
//! (`[text](url)` shown as `text (url)`) and backslash escapes, turned into characters and
//! style changes for an `Emit`.
//!
//! Invariant: nothing is lost and nothing is guessed. Text is emitted as soon as no open marker
//! can still change how it looks; after an opening marker (`**`, `` ` ``, `[`) it is held until
//! the marker is closed or the line ends, and a marker never closed is emitted as the literal
//! text it was, with everything after it. A marker's own characters are held only until the next
//! character tells what they are. The result depends on the characters alone, never on how they
//! were split into pieces. Spans do not cross lines; block structure is `markdown.rs`'s.

use std::io;

/// A set of text styles, combined by `|`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Style(u8);

impl Style {
    pub(super) const NONE: Style = Style(0);
    pub(super) const BOLD: Style = Style(1);
    const ITALIC: Style = Style(2);
    const STRIKE: Style = Style(4);
    /// Code: a span, or a line of a fenced block.
    pub(super) const CODE: Style = Style(8);
    const LINK: Style = Style(16);
    /// A link's destination, a rule, a fence line.
    pub(super) const DIM: Style = Style(32);
    /// The SGR parameter of each style, in bit order.
    const CODES: [&str; 6] = ["1", "3", "9", "36", "4", "2"];

    /// The escape that sets exactly this style (resetting any other first).
    pub(super) fn escape(self) -> String {
        let mut escape = String::from("\x1b[0");
        for (bit, code) in Style::CODES.iter().enumerate() {
            if self.0 & (1 << bit) != 0 {
                escape.push(';');
                escape.push_str(code);
            }
        }
        escape.push('m');
        escape
    }
}

impl std::ops::BitOr for Style {
    type Output = Style;
    fn bitor(self, other: Style) -> Style {
        Style(self.0 | other.0)
    }
}

/// Where the parsed line goes: characters (blanks included) and the style of those that follow.
pub(super) trait Emit {
    fn char(&mut self, c: char) -> io::Result<()>;
    fn style(&mut self, style: Style);
}

/// How many markers may be open at once; more are taken literally (bounds the matching work).
const MAX_OPEN: usize = 64;

/// The inline parser of the current line.
#[derive(Default)]
pub(super) struct Inline {
    /// The character before the next one (a blank at the start of a line): what a delimiter run
    /// is flanked by on its left.
    prev: Option<char>,
    /// A non-blank character was seen on this line (leading blanks are dropped).
    started: bool,
    state: State,
    /// What is held since the first marker still open (emitted at once when none is).
    pieces: Vec<Piece>,
    /// Every marker of `pieces` that opened something or still may.
    openers: Vec<Opener>,
    /// The markers that may still open something, innermost last (indices into `openers`).
    stack: Vec<usize>,
    /// How many spans of each style are open while `pieces` are emitted.
    open_styles: [u16; 6],
}

#[derive(Default)]
enum State {
    #[default]
    Plain,
    /// A run of `*`, `_` or `~`, waiting for the character after it.
    Run { ch: char, count: usize },
    /// A backslash, waiting for the character it escapes.
    Escape,
    /// A run of backticks, waiting for its end.
    Ticks(usize),
    /// Inside a code span opened by `ticks` backticks; `closing` backticks seen since the last
    /// other character.
    Code { ticks: usize, content: String, closing: usize },
    /// A `]` closed the bracket `opener`: a link if `(` follows.
    Bracket { opener: usize },
    /// A link's destination after `](`, with the depth of parentheses inside it.
    Url { opener: usize, url: String, depth: usize },
}

enum Piece {
    Char(char),
    /// A marker's characters: those left unmatched literal, then the styles it opened.
    Open(usize),
    /// The end of a style opened earlier.
    Close(Style),
    Code(String),
    /// The end of a link's text; its destination is shown after it unless it is the same text.
    LinkEnd {
        url: String,
        show: bool,
    },
}

struct Opener {
    /// `*`, `_`, `~` or `[`.
    ch: char,
    /// Characters not (yet) matched.
    count: usize,
    /// The run's length, for the "rule of 3".
    original: usize,
    can_close: bool,
    styles: Vec<Style>,
    /// Its `Piece::Open` in `pieces`.
    piece: usize,
}

impl Inline {
    /// One character of the line (not a newline).
    pub(super) fn push(&mut self, c: char, emit: &mut impl Emit) -> io::Result<()> {
        self.feed(c);
        if self.stack.is_empty() { self.emit_pieces(emit) } else { Ok(()) }
    }

    /// The line ended: markers still waiting are decided (those never closed are literal) and
    /// everything held is emitted. The next line starts afresh.
    pub(super) fn end_line(&mut self, emit: &mut impl Emit) -> io::Result<()> {
        loop {
            match std::mem::take(&mut self.state) {
                State::Plain => break,
                State::Run { ch, count } => self.delimiter_run(ch, count, ' '),
                State::Escape => self.literal('\\'),
                State::Ticks(ticks) => (0..ticks).for_each(|_| self.literal('`')),
                State::Code { ticks, content, closing } if closing == ticks => self.code_span(&content),
                State::Code { ticks, content, closing } => {
                    // Never closed: the backticks are text, and what followed them is read again.
                    (0..ticks).for_each(|_| self.literal('`'));
                    content.chars().chain(std::iter::repeat_n('`', closing)).for_each(|c| self.feed(c));
                }
                State::Bracket { opener } => self.not_a_link(opener),
                State::Url { opener, url, .. } => {
                    self.not_a_link(opener);
                    std::iter::once('(').chain(url.chars()).for_each(|c| self.feed(c));
                }
            }
        }
        self.stack.clear();
        self.emit_pieces(emit)?;
        self.prev = None;
        self.started = false;
        Ok(())
    }

    fn feed(&mut self, c: char) {
        if !self.started {
            if c == ' ' || c == '\t' {
                return;
            }
            self.started = true;
        }
        match std::mem::take(&mut self.state) {
            State::Plain => self.plain(c),
            State::Run { ch, count } if c == ch => self.state = State::Run { ch, count: count + 1 },
            State::Run { ch, count } => {
                self.delimiter_run(ch, count, c);
                self.plain(c);
            }
            State::Escape if c.is_ascii_punctuation() => self.literal(c),
            State::Escape => {
                self.literal('\\');
                self.plain(c);
            }
            State::Ticks(ticks) if c == '`' => self.state = State::Ticks(ticks + 1),
            State::Ticks(ticks) => self.state = State::Code { ticks, content: c.to_string(), closing: 0 },
            State::Code { ticks, content, closing } if c == '`' => {
                self.state = State::Code { ticks, content, closing: closing + 1 };
            }
            State::Code { ticks, content, closing } if closing == ticks => {
                self.code_span(&content);
                self.plain(c);
            }
            State::Code { ticks, mut content, closing } => {
                content.extend(std::iter::repeat_n('`', closing));
                content.push(c);
                self.state = State::Code { ticks, content, closing: 0 };
            }
            State::Bracket { opener } if c == '(' => self.state = State::Url { opener, url: String::new(), depth: 0 },
            State::Bracket { opener } => {
                self.not_a_link(opener);
                self.plain(c);
            }
            State::Url { opener, url, depth: 0 } if c == ')' => self.link(opener, url),
            State::Url { opener, url, .. } if c == ' ' || c == '\t' => {
                self.not_a_link(opener);
                std::iter::once('(').chain(url.chars()).chain(std::iter::once(c)).for_each(|c| self.feed(c));
            }
            State::Url { opener, mut url, depth } => {
                let depth = match c {
                    '(' => depth + 1,
                    ')' => depth - 1,
                    _ => depth,
                };
                url.push(c);
                self.state = State::Url { opener, url, depth };
            }
        }
    }

    /// A character outside any pending marker.
    fn plain(&mut self, c: char) {
        match c {
            '*' | '_' | '~' => self.state = State::Run { ch: c, count: 1 },
            '\\' => self.state = State::Escape,
            '`' => self.state = State::Ticks(1),
            '[' if self.stack.len() < MAX_OPEN => {
                self.open(Opener { ch: '[', count: 1, original: 1, can_close: false, styles: Vec::new(), piece: 0 });
                self.prev = Some('[');
            }
            ']' => match self.stack.iter().rev().find(|&&id| self.openers[id].ch == '[') {
                Some(&opener) => self.state = State::Bracket { opener },
                None => self.literal(']'),
            },
            _ => self.literal(c),
        }
    }

    fn literal(&mut self, c: char) {
        self.pieces.push(Piece::Char(c));
        self.prev = Some(c);
    }

    fn open(&mut self, mut opener: Opener) {
        opener.piece = self.pieces.len();
        self.pieces.push(Piece::Open(self.openers.len()));
        self.stack.push(self.openers.len());
        self.openers.push(opener);
    }

    /// A run of `count` delimiters `ch` followed by `next` (a blank at the end of the line).
    fn delimiter_run(&mut self, ch: char, count: usize, next: char) {
        let prev = self.prev.unwrap_or(' ');
        let left = !next.is_whitespace() && (!is_punctuation(next) || prev.is_whitespace() || is_punctuation(prev));
        let right = !prev.is_whitespace() && (!is_punctuation(prev) || next.is_whitespace() || is_punctuation(next));
        let (can_open, can_close) = match ch {
            // Inside a word, `_` is a letter (snake_case), `*` is not.
            '_' => (left && (!right || is_punctuation(prev)), right && (!left || is_punctuation(next))),
            // Only `~~` strikes: a single `~` means "about".
            '~' if count != 2 => (false, false),
            _ => (left, right),
        };
        let mut remaining = count;
        if can_close {
            remaining = self.close(ch, count, can_open);
        }
        if remaining > 0 && can_open && self.stack.len() < MAX_OPEN {
            self.open(Opener { ch, count: remaining, original: count, can_close, styles: Vec::new(), piece: 0 });
        } else {
            (0..remaining).for_each(|_| self.pieces.push(Piece::Char(ch)));
        }
        self.prev = Some(ch);
    }

    /// Matches a closing run against the open markers, innermost first; returns how many of its
    /// characters are left. A `[` not closed yet between them is text from then on (`**a [b**`
    /// is bold): a link it might still have made would be one of an emphasis broken in two.
    fn close(&mut self, ch: char, count: usize, can_open: bool) -> usize {
        let mut remaining = count;
        while remaining > 0 {
            let found = self
                .stack
                .iter()
                .rev()
                .position(|&id| {
                    let opener = &self.openers[id];
                    // CommonMark's rule of 3, so that `*a**b**c*` nests as it reads.
                    let sum = opener.original + count;
                    let rule_of_3 = ch != '~'
                        && (opener.can_close || can_open)
                        && sum.is_multiple_of(3)
                        && !(opener.original.is_multiple_of(3) && count.is_multiple_of(3));
                    opener.ch == ch && !rule_of_3
                })
                .map(|from_top| self.stack.len() - 1 - from_top);
            let Some(at) = found else { break };
            let id = self.stack[at];
            let opener = &mut self.openers[id];
            let used = if opener.count >= 2 && remaining >= 2 { 2 } else { 1 };
            let style = match (ch, used) {
                ('~', _) => Style::STRIKE,
                (_, 2) => Style::BOLD,
                _ => Style::ITALIC,
            };
            opener.count -= used;
            opener.styles.push(style);
            remaining -= used;
            self.pieces.push(Piece::Close(style));
            // Markers opened inside the span and still open (brackets too) stay literal.
            self.stack.truncate(if opener.count == 0 { at } else { at + 1 });
        }
        remaining
    }

    /// A code span's content: one blank each side dropped when both are there (`` ` a ` ``).
    fn code_span(&mut self, content: &str) {
        let trimmed = content.strip_prefix(' ').and_then(|inner| inner.strip_suffix(' '));
        let content = match trimmed {
            Some(inner) if !content.trim().is_empty() => inner,
            _ => content,
        };
        self.pieces.push(Piece::Code(content.to_string()));
        self.prev = Some('`');
    }

    /// `[text](url)` is complete: the bracket opens a link; markers opened inside it and still
    /// open stay literal.
    fn link(&mut self, opener: usize, url: String) {
        let mut text = String::new();
        for piece in &self.pieces[self.openers[opener].piece + 1..] {
            match piece {
                Piece::Char(c) => text.push(*c),
                Piece::Code(code) => text.push_str(code),
                Piece::Open(_) | Piece::Close(_) | Piece::LinkEnd { .. } => {}
            }
        }
        let show = !url.is_empty() && text != url && text.strip_prefix("mailto:") != Some(url.as_str());
        self.openers[opener].count = 0;
        self.openers[opener].styles.push(Style::LINK);
        self.pieces.push(Piece::LinkEnd { url, show });
        if let Some(at) = self.stack.iter().position(|&id| id == opener) {
            self.stack.truncate(at);
        }
        self.prev = Some(')');
    }

    /// The `]` of `opener` is not followed by `(url)`: both brackets are text.
    fn not_a_link(&mut self, opener: usize) {
        self.stack.retain(|&id| id != opener);
        self.literal(']');
    }

    /// Emits the held pieces; called when no marker is open any more.
    fn emit_pieces(&mut self, emit: &mut impl Emit) -> io::Result<()> {
        // The vector is taken out and put back, keeping its allocation.
        let mut pieces = std::mem::take(&mut self.pieces);
        for piece in pieces.drain(..) {
            match piece {
                Piece::Char(c) => emit.char(c)?,
                Piece::Open(id) => {
                    let opener = &self.openers[id];
                    for _ in 0..opener.count {
                        emit.char(opener.ch)?;
                    }
                    if !opener.styles.is_empty() {
                        for style in &opener.styles {
                            self.open_styles[style.0.trailing_zeros() as usize] += 1;
                        }
                        emit.style(self.current());
                    }
                }
                Piece::Close(style) => {
                    self.close_style(style);
                    emit.style(self.current());
                }
                Piece::Code(code) => {
                    emit.style(self.current() | Style::CODE);
                    code.chars().try_for_each(|c| emit.char(c))?;
                    emit.style(self.current());
                }
                Piece::LinkEnd { url, show } => {
                    self.close_style(Style::LINK);
                    emit.style(self.current());
                    if show {
                        emit.char(' ')?;
                        emit.style(self.current() | Style::DIM);
                        std::iter::once('(')
                            .chain(url.chars())
                            .chain(std::iter::once(')'))
                            .try_for_each(|c| emit.char(c))?;
                        emit.style(self.current());
                    }
                }
            }
        }
        self.pieces = pieces;
        if self.stack.is_empty() {
            self.openers.clear();
        }
        Ok(())
    }

    fn close_style(&mut self, style: Style) {
        let count = &mut self.open_styles[style.0.trailing_zeros() as usize];
        *count = count.saturating_sub(1);
    }

    /// The styles of the spans open at this point of the emitted text.
    fn current(&self) -> Style {
        let bits = self.open_styles.iter().enumerate().filter(|(_, count)| **count > 0).map(|(bit, _)| 1 << bit);
        Style(bits.sum())
    }
}

/// ASCII and Unicode punctuation and symbols (CommonMark's flanking rules): neither a letter, a
/// digit nor a blank.
fn is_punctuation(c: char) -> bool {
    !c.is_alphanumeric() && !c.is_whitespace()
}
