//! The one-key questions outside a turn's approvals (`approve.rs` has those): the trust gate
//! before the REPL starts, `continue?` after a turn stopped at a cap, and a command's question
//! about a host the network policy does not allow (asked while the command waits).
//!
//! Invariant: one key answers, the default is no (any key but `y`, Ctrl-C, a closed stdin),
//! and the answer is echoed in words so the transcript says what was decided. Everything a
//! question lists from the repository is neutralised.
#![expect(clippy::print_stdout, reason = "a question stays on its line, where the answer is typed")]

use super::render::{self, BOLD, DIM, YELLOW, paint, wrap};
use super::terminal::{Interrupts, Key, read_key};
use super::{say, say_wrapped};
use crate::permission::network::{HostAnswer, HostQuestion};
use crate::text::neutralize;

/// The trust gate's question (SPEC §1.2): what the project's own config would enable, then
/// `[y/N]`, one key, default no. Everything listed comes from the repository and is neutralised.
pub(crate) fn ask_trust(
    root: &std::path::Path,
    items: &[String],
    color: bool,
    width: usize,
    interrupts: &Interrupts,
) -> bool {
    let root = neutralize(&root.display().to_string());
    say_wrapped(color, YELLOW, &format!("This project ({root}) has its own mewcode config:"), width, 0);
    for item in items {
        say_wrapped(color, "", &format!("  - {}", neutralize(item)), width, 4);
    }
    say_wrapped(color, DIM, "Trusting it lets these run and apply here; deny rules apply either way.", width, 0);
    const QUESTION: &str = "trust this project? [y/N]";
    let question = put_question(QUESTION, color, width);
    let yes = matches!(read_key(interrupts), Key::Byte(b'y' | b'Y'));
    let answer = if yes { "yes (remembered until these files change)" } else { "no (its config is ignored)" };
    say_answer(&question, answer, width);
    yes
}

/// `continue? [y/N]`, one key, default no.
pub(super) fn ask_continue(color: bool, width: usize, interrupts: &Interrupts) -> bool {
    let question = put_question("continue? [y/N]", color, width);
    let yes = matches!(read_key(interrupts), Key::Byte(b'y' | b'Y'));
    say_answer(&question, if yes { "yes" } else { "no" }, width);
    yes
}

/// A command wants to reach a host the network policy asks about: why (the policy's reason,
/// neutralised: the host comes from the command), then `[y] this session  [a] always  [n] no`.
pub(super) fn ask_host(question: &HostQuestion, color: bool, width: usize, interrupts: &Interrupts) -> HostAnswer {
    let host = neutralize(&question.host);
    say_wrapped(color, YELLOW, &format!("A command wants to reach {host} (port {}).", question.port), width, 0);
    say_wrapped(color, DIM, &neutralize(&question.reason), width, 2);
    let always = format!("always (saved in {})", question.saves_to);
    let answers = [(b'y', "yes, for this session"), (b'a', always.as_str()), (b'n', "no")];
    let keys = "allow it? [y] this session  [a] always  [n] no";
    match ask_choice(keys, &answers, color, width, interrupts) {
        Some(b'y') => HostAnswer::Session,
        Some(b'a') => HostAnswer::Always,
        _ => HostAnswer::Deny,
    }
}

/// A one-key question with several answers (`answers`: the key and the word echoed for it);
/// the key chosen, or None for any other key, Ctrl-C or a closed stdin (echoed as `cancelled`).
pub(super) fn ask_choice(
    question: &str,
    answers: &[(u8, &str)],
    color: bool,
    width: usize,
    interrupts: &Interrupts,
) -> Option<u8> {
    let question = put_question(question, color, width);
    let chosen = match read_key(interrupts) {
        Key::Byte(byte) => answers.iter().find(|(key, _)| *key == byte.to_ascii_lowercase()),
        Key::Interrupted | Key::Closed => None,
    };
    say_answer(&question, chosen.map_or("cancelled", |(_, word)| word), width);
    chosen.map(|(key, _)| *key)
}

/// Shows `question` in bold, word-wrapped to `width` with room for a blank after it, and
/// returns it as wrapped (the answer goes after its last line).
fn put_question(question: &str, color: bool, width: usize) -> String {
    let wrapped = wrap(question, width.saturating_sub(1), 0);
    print!("{} ", paint(color, BOLD, &wrapped));
    let _ = std::io::Write::flush(&mut std::io::stdout());
    wrapped
}

/// The answer to a one-key question (`question` as `put_question` showed it), after the
/// question's last line when it fits there, else on the lines below (wrapped), so the terminal
/// never breaks it mid-word.
fn say_answer(question: &str, answer: &str, width: usize) {
    let last_line = question.rsplit('\n').next().unwrap_or(question);
    if render::display_width(last_line) + 1 + render::display_width(answer) < width {
        say(answer);
    } else {
        say(&format!("\n{}", wrap(answer, width, 0)));
    }
}
