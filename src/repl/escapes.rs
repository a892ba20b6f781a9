//! Escape sequences a terminal sent that no key binding took, removed from a typed line.
//!
//! Under `TERM=dumb` rustyline reads plain lines, so every key that sends a sequence (Shift-Tab
//! is `ESC [ Z`, F1 is `ESC O P`, a mouse click `ESC [ M` and three bytes) lands in the line as
//! text; a paste can carry colour codes in any terminal. None of that is the person's words, so
//! it must never reach the model as a prompt.
//!
//! Invariant: pure; after `strip_escapes` a line holds no ESC and no C1 introducer (U+009B
//! CSI, U+008F SS3, U+009D OSC, ...), whole or cut-off sequences alike, and every other
//! character is kept in order. What a sequence is follows ECMA-48: CSI runs to a final byte
//! (`@`..`~`), SS3 takes one character, OSC and the other string controls run to BEL or ST
//! (`ESC \`), an nF escape takes its intermediates and a final, ESC and one of `0`..`~` is a
//! two-character escape (also what Alt and a key sends), and a lone ESC goes alone.

/// `line` without the escape sequences in it (see the file's doc).
pub(crate) fn strip_escapes(line: &str) -> String {
    if !line.chars().any(is_introducer) {
        return line.to_string();
    }
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len());
    let mut at = 0;
    while at < chars.len() {
        match sequence_len(&chars[at..]) {
            Some(len) => at += len,
            None => {
                out.push(chars[at]);
                at += 1;
            }
        }
    }
    out
}

/// ESC and the C1 controls that open a sequence in their 8-bit form.
fn is_introducer(c: char) -> bool {
    matches!(c, '\u{1b}' | '\u{8f}' | '\u{90}' | '\u{98}' | '\u{9b}' | '\u{9d}' | '\u{9e}' | '\u{9f}')
}

/// What follows an introducer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Parameters and intermediates, then one final character.
    Csi,
    /// One character.
    Ss3,
    /// Text up to BEL or ST (OSC, DCS, SOS, PM, APC).
    Text,
}

/// How many characters the sequence starting at `chars[0]` takes, or None when `chars[0]`
/// opens none.
fn sequence_len(chars: &[char]) -> Option<usize> {
    let (kind, body) = match chars {
        ['\u{9b}', ..] => (Kind::Csi, 1),
        ['\u{8f}', ..] => (Kind::Ss3, 1),
        ['\u{90}' | '\u{98}' | '\u{9d}' | '\u{9e}' | '\u{9f}', ..] => (Kind::Text, 1),
        ['\u{1b}', '[', ..] => (Kind::Csi, 2),
        ['\u{1b}', 'O', ..] => (Kind::Ss3, 2),
        ['\u{1b}', ']' | 'P' | 'X' | '^' | '_', ..] => (Kind::Text, 2),
        ['\u{1b}', next, ..] if (' '..='/').contains(next) => return Some(1 + nf_len(&chars[1..])),
        // A two-character escape (`ESC c`, `ESC 7`), which is also what Alt and a key sends
        // (`ESC b`): both go.
        ['\u{1b}', next, ..] if ('0'..='~').contains(next) => return Some(2),
        // A lone ESC, at the end or before anything else: only the ESC goes.
        ['\u{1b}', ..] => return Some(1),
        _ => return None,
    };
    let rest = &chars[body..];
    Some(
        body + match kind {
            Kind::Csi => csi_len(rest),
            Kind::Ss3 => usize::from(rest.first().is_some_and(|c| !c.is_control())),
            Kind::Text => text_len(rest),
        },
    )
}

/// The characters of a CSI sequence after `ESC [`: parameters (`0`..`?`), intermediates
/// (` `..`/`) and the final (`@`..`~`). An X10 mouse report (`ESC [ M` without parameters) is
/// followed by three raw characters (button, column, row), which go with it. A sequence cut off
/// by the end of the line or by a character that cannot be in it ends there, without that
/// character.
fn csi_len(rest: &[char]) -> usize {
    let mut len = 0;
    while let Some(&c) = rest.get(len) {
        len += 1;
        match c {
            '0'..='?' | ' '..='/' => {}
            'M' if len == 1 => return (len + 3).min(rest.len()),
            '@'..='~' => return len,
            _ => return len - 1,
        }
    }
    len
}

/// The characters of a string control's text after its opener: up to and with BEL or ST
/// (`ESC \`, or U+009C); to the end of the line when neither comes.
fn text_len(rest: &[char]) -> usize {
    let mut len = 0;
    while let Some(&c) = rest.get(len) {
        len += 1;
        match c {
            '\u{7}' | '\u{9c}' => return len,
            '\u{1b}' if rest.get(len) == Some(&'\\') => return len + 1,
            _ => {}
        }
    }
    len
}

/// The characters of an nF escape after ESC: intermediates (` `..`/`), then one final
/// (`0`..`~`) if it comes.
fn nf_len(rest: &[char]) -> usize {
    let intermediates = rest.iter().take_while(|c| (' '..='/').contains(*c)).count();
    let final_char = rest.get(intermediates).is_some_and(|c| ('0'..='~').contains(c));
    intermediates + usize::from(final_char)
}

#[cfg(test)]
#[path = "escapes_tests.rs"]
mod tests;
