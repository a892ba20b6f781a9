//! The picker of `/resume` and `/rewind`: a list that typing filters, the arrow keys move through, Enter picks
//! from and Esc leaves, drawn in place below the prompt.
//!
//! Invariant: the state machine (`Picker::press`), the key decoding (`parse_keys`) and the
//! drawing (`Picker::render`) are pure; `run` only moves bytes. The drawing never has more rows
//! than the screen minus one and no row reaches the last column, so moving the cursor up by the
//! rows drawn always lands on the first of them (nothing scrolled, nothing auto-wrapped). The
//! picker is only started where cursor movement is allowed (a terminal, `TERM` not dumb); the
//! numbered list is the fallback. A row's aside (a session's time) is kept whole at its right
//! end; its text is what gets cut.

use super::render::{BOLD, DIM, char_width, display_width, paint};
use super::terminal::{Interrupts, Screen};
use super::terminal::{KeyReader, Keys};
use crate::glyphs::Glyphs;
use std::io::Write;

/// One key the picker understands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PickerKey {
    Char(char),
    Backspace,
    /// Ctrl-U: clear the filter.
    ClearFilter,
    Up,
    Down,
    Enter,
    Esc,
    /// Anything else (another escape sequence, a control key): ignored.
    Other,
}

/// What a key press led to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    Continue,
    /// The item at this index of the original list.
    Picked(usize),
    Cancelled,
}

/// How `run` ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Picked {
    Item(usize),
    Cancelled,
    /// Stdin is not a terminal: nothing was drawn, show the list instead.
    Unavailable,
}

/// One item of a picker: its text (plain, neutralised, one line) and an aside shown at the
/// right end of its row (empty for none), which is never cut.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Item {
    pub text: String,
    pub aside: String,
}

impl Item {
    /// An item without an aside.
    pub(crate) fn plain(text: String) -> Item {
        Item { text, aside: String::new() }
    }
}

/// Columns an item's text keeps at least before its aside is dropped on a narrow screen.
const MIN_TEXT_COLUMNS: usize = 12;

/// The picker's state: the items, the filter typed so far and the selected row among the
/// matches.
#[derive(Clone, Debug)]
pub(crate) struct Picker {
    /// What is picked, and the keys (one line, dim).
    title: String,
    items: Vec<Item>,
    filter: String,
    selected: usize,
    glyphs: &'static Glyphs,
}

impl Picker {
    /// A picker headed by what Enter does (`resume`, `picks`) after the usual keys: `title`
    /// says what is picked (`resume a session`).
    pub(crate) fn new(title: &str, enter: &str, items: Vec<Item>, glyphs: &'static Glyphs) -> Picker {
        let keys = ["type to filter", &format!("{} move", glyphs.up_down), &format!("Enter {enter}"), "Esc cancels"];
        let title = format!("{title}: {}", keys.join(glyphs.separator));
        Picker { title, items, filter: String::new(), selected: 0, glyphs }
    }

    /// Indexes of the items whose text or aside contains the filter as typed (ignoring case
    /// and blanks at its ends), in list order. A phrase, not separate words: `task 1` must not
    /// match every line whose date has a 1 in it.
    pub(crate) fn matches(&self) -> Vec<usize> {
        let filter = self.filter.trim().to_lowercase();
        let found =
            |item: &Item| item.text.to_lowercase().contains(&filter) || item.aside.to_lowercase().contains(&filter);
        (0..self.items.len()).filter(|&index| found(&self.items[index])).collect()
    }

    /// Applies one key.
    pub(crate) fn press(&mut self, key: &PickerKey) -> Step {
        let count = self.matches().len();
        match key {
            PickerKey::Char(c) => {
                self.filter.push(*c);
                self.selected = 0;
            }
            PickerKey::Backspace => {
                self.filter.pop();
                self.selected = 0;
            }
            PickerKey::ClearFilter => {
                self.filter.clear();
                self.selected = 0;
            }
            PickerKey::Up => self.selected = self.selected.saturating_sub(1),
            PickerKey::Down => self.selected = (self.selected + 1).min(count.saturating_sub(1)),
            PickerKey::Enter => {
                if let Some(&index) = self.matches().get(self.selected) {
                    return Step::Picked(index);
                }
            }
            PickerKey::Esc => return Step::Cancelled,
            PickerKey::Other => {}
        }
        Step::Continue
    }

    /// The rows to draw on a `width` × `height` screen: a title, the filter line, then as many
    /// matches as fit with the selected one marked `›` and kept in view, and a line saying how
    /// many more there are above or below. At most `height - 1` rows, each under `width` columns.
    pub(crate) fn render(&self, width: usize, height: usize, color: bool) -> Vec<String> {
        let matches = self.matches();
        let room = height.saturating_sub(4).max(1);
        let first = (self.selected + 1).saturating_sub(room);
        let fit = |text: &str| cut(text, width.saturating_sub(1), self.glyphs.ellipsis);
        let mut rows = vec![paint(color, DIM, &fit(&self.title)), fit(&format!("filter: {}", self.filter))];
        if matches.is_empty() {
            rows.push(paint(color, DIM, &fit(&format!("  nothing matches {:?}", self.filter))));
        }
        for (row, &index) in matches.iter().enumerate().skip(first).take(room) {
            let mark = if row == self.selected { self.glyphs.prompt } else { " " };
            let line = render_item(&self.items[index], mark, width, self.glyphs);
            rows.push(if row == self.selected { paint(color, BOLD, &line) } else { line });
        }
        let (above, below) = (first, matches.len().saturating_sub(first + room));
        if above + below > 0 {
            let text =
                format!("  ({above} above, {below} below; {} of {} shown)", matches.len().min(room), matches.len());
            rows.push(paint(color, DIM, &fit(&text)));
        }
        rows
    }
}

/// One item's row, under `width` columns: `mark`, its text cut to the room left and padded,
/// then its aside at the right end. A screen too narrow to keep `MIN_TEXT_COLUMNS` of the text
/// beside the aside shows both one after the other, cut at the end like any line.
fn render_item(item: &Item, mark: &str, width: usize, glyphs: &Glyphs) -> String {
    let limit = width.saturating_sub(1);
    let head = format!("{mark} ");
    let aside = display_width(&item.aside);
    let fixed = display_width(&head) + 2 + aside;
    if item.aside.is_empty() || limit < fixed + MIN_TEXT_COLUMNS {
        let line = if item.aside.is_empty() {
            format!("{head}{}", item.text)
        } else {
            format!("{head}{}  {}", item.text, item.aside)
        };
        return cut(&line, limit, glyphs.ellipsis);
    }
    let room = limit - fixed;
    let text = cut(&item.text, room, glyphs.ellipsis);
    let padding = " ".repeat(room.saturating_sub(display_width(&text)));
    format!("{head}{text}{padding}  {}", item.aside)
}

/// `text` cut to fit in `columns` columns, ending with `ellipsis` where it was cut.
fn cut(text: &str, columns: usize, ellipsis: &str) -> String {
    if display_width(text) <= columns {
        return text.to_string();
    }
    let room = columns.saturating_sub(display_width(ellipsis));
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let next = char_width(c);
        if used + next > room {
            break;
        }
        out.push(c);
        used += next;
    }
    if display_width(ellipsis) <= columns {
        out.push_str(ellipsis);
    }
    out
}

/// Decodes what one read of the terminal returned: arrows (`ESC [ A`, `ESC O A`, Ctrl-P/N),
/// a lone `ESC`, Enter, Backspace, Ctrl-U and text. Unknown escape sequences are one `Other`.
fn parse_keys(bytes: &[u8]) -> Vec<PickerKey> {
    let mut keys = Vec::new();
    let mut rest = bytes;
    while let Some((&first, tail)) = rest.split_first() {
        rest = tail;
        let key = match first {
            0x1b => match rest {
                [] => PickerKey::Esc,
                [b'[' | b'O', b'A', ..] => {
                    rest = &rest[2..];
                    PickerKey::Up
                }
                [b'[' | b'O', b'B', ..] => {
                    rest = &rest[2..];
                    PickerKey::Down
                }
                [b'[', ..] => {
                    // A CSI sequence: parameters, then one final byte in 0x40..=0x7e.
                    let end =
                        rest[1..].iter().position(|byte| (0x40..=0x7e).contains(byte)).map_or(rest.len(), |at| at + 2);
                    rest = &rest[end..];
                    PickerKey::Other
                }
                [0x1b, ..] => PickerKey::Esc,
                [_, ..] => {
                    // Alt-key: the key is dropped with its prefix.
                    rest = &rest[1..];
                    PickerKey::Other
                }
            },
            b'\r' | b'\n' => PickerKey::Enter,
            0x7f | 0x08 => PickerKey::Backspace,
            0x15 => PickerKey::ClearFilter,
            0x10 => PickerKey::Up,
            0x0e => PickerKey::Down,
            byte if byte < 0x20 => PickerKey::Other,
            byte => {
                // One UTF-8 character: its length from the first byte.
                let length = match byte {
                    0xf0..=0xf7 => 4,
                    0xe0..=0xef => 3,
                    0xc0..=0xdf => 2,
                    _ => 1,
                };
                let take = (length - 1).min(rest.len());
                let mut encoded = vec![byte];
                encoded.extend_from_slice(&rest[..take]);
                rest = &rest[take..];
                match std::str::from_utf8(&encoded).ok().and_then(|text| text.chars().next()) {
                    Some(c) => PickerKey::Char(c),
                    None => PickerKey::Other,
                }
            }
        };
        keys.push(key);
    }
    keys
}

/// Runs `picker` on a terminal of `screen`'s size until a pick, Esc or Ctrl-C, then erases it.
pub(crate) fn run(mut picker: Picker, screen: Screen, color: bool, interrupts: &Interrupts) -> Picked {
    let Screen { width, height } = screen;
    let Some(mut reader) = KeyReader::open(interrupts) else { return Picked::Unavailable };
    let mut stdout = std::io::stdout().lock();
    let mut drawn = draw(&mut stdout, &picker.render(width, height, color), 0);
    let outcome = 'keys: loop {
        let bytes = match reader.wait() {
            Keys::Bytes(bytes) => bytes,
            Keys::Interrupted | Keys::Closed => break Picked::Cancelled,
        };
        for key in parse_keys(&bytes) {
            match picker.press(&key) {
                Step::Continue => {}
                Step::Picked(index) => break 'keys Picked::Item(index),
                Step::Cancelled => break 'keys Picked::Cancelled,
            }
        }
        drawn = draw(&mut stdout, &picker.render(width, height, color), drawn);
    };
    draw(&mut stdout, &[], drawn);
    outcome
}

/// Replaces the `drawn` rows on screen (the cursor is on the last of them) by `rows`; returns
/// how many rows are now drawn. Write errors are ignored: the picker still answers.
fn draw(out: &mut impl Write, rows: &[String], drawn: usize) -> usize {
    let mut bytes = String::from("\r");
    if drawn > 1 {
        bytes.push_str(&format!("\x1b[{}A", drawn - 1));
    }
    bytes.push_str("\x1b[J");
    bytes.push_str(&rows.join("\r\n"));
    let _ = out.write_all(bytes.as_bytes()).and_then(|()| out.flush());
    rows.len()
}

#[cfg(test)]
#[path = "picker_tests.rs"]
mod tests;
