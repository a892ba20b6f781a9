//! Keys typed while a turn runs: Esc interrupts the turn, text is kept — a line ended with
//! Enter is queued as the next message, the rest goes back to the input line afterwards.
//!
//! Invariant: nothing typed is dropped except keys that are not text (arrows, function keys and
//! other escape sequences, control keys without a meaning here), so a Shift-Tab pressed
//! mid-turn neither changes the mode afterwards nor reaches the model as `^[[Z`. The decoder
//! (`TypeAhead`) is pure; `Reader` only moves bytes from the terminal into it.

use super::terminal::{ModeGuard, TerminalInput};

/// What a batch of typed bytes meant for the running turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Typed {
    /// Esc on its own: stop the turn.
    Interrupt,
    /// Enter ended a line: this text is queued as the next message.
    Queued(String),
}

/// What was typed during a turn, once it ends.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Kept {
    /// Lines ended with Enter, in order: the next message(s).
    pub queued: Vec<String>,
    /// Text typed after the last Enter: the next input line's start.
    pub draft: Option<String>,
}

impl Kept {
    /// Everything as one text to edit: the queued lines then the draft, one per line (what the
    /// input line gets when the turn was interrupted and nothing is sent on its own).
    pub(super) fn into_draft(self) -> Option<String> {
        let mut lines = self.queued;
        lines.extend(self.draft);
        (!lines.is_empty()).then(|| lines.join("\n"))
    }
}

/// Where the decoder is inside an escape sequence.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Escape {
    #[default]
    Outside,
    /// After ESC, in the same read.
    Started,
    /// Inside `ESC [` … until a final byte.
    Csi,
    /// After `ESC O`: one more byte.
    Ss3,
    /// Inside `ESC ]` … until BEL or `ESC \`.
    Osc,
    /// ESC inside an OSC (the start of its `ESC \` end).
    OscEnding,
}

/// The start and end markers of a bracketed paste, as their CSI parameters and final byte.
const PASTE_START: &[u8] = b"200~";
const PASTE_END: &[u8] = b"201~";

/// The decoder of typed bytes.
#[derive(Debug, Default)]
struct TypeAhead {
    /// The line being typed, as bytes (UTF-8 may arrive split across reads).
    line: Vec<u8>,
    queued: Vec<String>,
    escape: Escape,
    /// The parameters of the CSI sequence being read (to recognise paste markers).
    csi: Vec<u8>,
    /// Inside a bracketed paste: Enter is a newline, not "send".
    pasting: bool,
}

impl TypeAhead {
    /// Decodes one read's bytes. An ESC that is the last byte of a read is the Esc key (a
    /// terminal sends a whole escape sequence in one write, so a sequence's ESC is followed by
    /// the rest in the same read).
    pub(super) fn feed(&mut self, bytes: &[u8]) -> Vec<Typed> {
        let mut typed = Vec::new();
        for (index, &byte) in bytes.iter().enumerate() {
            let last = index + 1 == bytes.len();
            if let Some(event) = self.byte(byte, last) {
                typed.push(event);
            }
        }
        typed
    }

    fn byte(&mut self, byte: u8, last: bool) -> Option<Typed> {
        match self.escape {
            Escape::Outside => return self.outside(byte, last),
            Escape::Started => {
                self.escape = match byte {
                    b'[' => {
                        self.csi.clear();
                        Escape::Csi
                    }
                    b'O' => Escape::Ss3,
                    b']' => Escape::Osc,
                    // ESC ESC: the first was a key of its own.
                    0x1b => return self.outside(byte, last).or(Some(Typed::Interrupt)),
                    // Alt with a key: not text.
                    _ => Escape::Outside,
                };
            }
            Escape::Csi => {
                if (0x40..=0x7e).contains(&byte) {
                    self.csi.push(byte);
                    if self.csi == PASTE_START {
                        self.pasting = true;
                    } else if self.csi == PASTE_END {
                        self.pasting = false;
                    }
                    self.escape = Escape::Outside;
                } else if self.csi.len() < 32 {
                    self.csi.push(byte);
                }
            }
            Escape::Ss3 => self.escape = Escape::Outside,
            Escape::Osc => match byte {
                0x07 => self.escape = Escape::Outside,
                0x1b => self.escape = Escape::OscEnding,
                _ => {}
            },
            Escape::OscEnding => self.escape = if byte == b'\\' { Escape::Outside } else { Escape::Osc },
        }
        None
    }

    fn outside(&mut self, byte: u8, last: bool) -> Option<Typed> {
        match byte {
            0x1b if last && !self.pasting => return Some(Typed::Interrupt),
            0x1b => self.escape = Escape::Started,
            b'\r' if !self.pasting => return self.enter(),
            b'\r' | b'\n' => self.line.push(b'\n'),
            // Backspace (DEL or ^H): the last character, whole.
            0x7f | 0x08 => self.erase_char(),
            // Ctrl-U: the whole line.
            0x15 => self.line.clear(),
            // Ctrl-W: the last word and the blanks after it.
            0x17 => self.erase_word(),
            b'\t' => self.line.push(b'\t'),
            0x00..=0x1f => {}
            _ => self.line.push(byte),
        }
        None
    }

    fn enter(&mut self) -> Option<Typed> {
        let line = String::from_utf8_lossy(&std::mem::take(&mut self.line)).into_owned();
        if line.trim().is_empty() {
            return None;
        }
        self.queued.push(line.clone());
        Some(Typed::Queued(line))
    }

    fn erase_char(&mut self) {
        // UTF-8 continuation bytes first, then the character's first byte.
        while self.line.last().is_some_and(|byte| byte & 0xc0 == 0x80) {
            self.line.pop();
        }
        self.line.pop();
    }

    fn erase_word(&mut self) {
        while self.line.last().is_some_and(u8::is_ascii_whitespace) {
            self.line.pop();
        }
        while self.line.last().is_some_and(|byte| !byte.is_ascii_whitespace()) {
            self.line.pop();
        }
    }

    /// What was typed, once the turn is over.
    pub(super) fn finish(self) -> Kept {
        let draft = String::from_utf8_lossy(&self.line).into_owned();
        Kept { queued: self.queued, draft: (!draft.trim().is_empty()).then_some(draft) }
    }
}

/// Reads what is typed during a turn: the terminal without echo, line buffering or CR→NL
/// translation (Enter and Ctrl-J differ), signals kept, reads that never wait.
pub(super) struct Reader {
    _guard: ModeGuard,
    input: Option<TerminalInput>,
    decoder: TypeAhead,
}

impl Reader {
    /// Switches the terminal to type-ahead mode (when stdin is one) until dropped.
    pub(super) fn open() -> Reader {
        let guard = ModeGuard::typeahead();
        let input = guard.is_active().then(TerminalInput::open).flatten();
        Reader { _guard: guard, input, decoder: TypeAhead::default() }
    }

    /// Decodes whatever was typed since the last look (nothing waits).
    pub(super) fn poll(&mut self) -> Vec<Typed> {
        let Some(input) = &mut self.input else { return Vec::new() };
        let mut typed = Vec::new();
        while let Some(bytes) = input.read_now() {
            typed.extend(self.decoder.feed(&bytes));
        }
        typed
    }

    /// Reads the last keys and gives back what was typed; the terminal mode is restored.
    pub(super) fn finish(mut self) -> Kept {
        let _ = self.poll();
        self.decoder.finish()
    }
}

#[cfg(test)]
#[path = "typeahead_tests.rs"]
mod tests;
