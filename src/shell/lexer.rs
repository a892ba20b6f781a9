//! Word reading for the shell parser: quotes, escapes, `$'…'` and extended globs; what starts
//! with `$` or a backtick is handed to `substitution.rs`.
//!
//! Invariant: a word's text is what bash would pass after quote removal, with expansions left
//! literal, and its [`WordInfo`] records what quote removal hid (quoted parts, globs, braces,
//! expansions, substitutions), so no later check mistakes a quoted `*` for a glob or misses an
//! unquoted one. Unterminated quotes are Unparseable. It does not parse substitution bodies.

use super::parser::Parser;
use super::{Unparseable, WordInfo};

/// Characters escaped in [`WordInfo::pattern`] when they came from quoted text.
const PATTERN_SPECIAL: &[char] = &['\\', '*', '?', '[', ']', '{', '}', ','];

pub(super) fn push_quoted(text: &mut String, info: &mut WordInfo, c: char) {
    text.push(c);
    if PATTERN_SPECIAL.contains(&c) {
        info.pattern.push('\\');
    }
    info.pattern.push(c);
}

pub(super) fn push_unquoted(text: &mut String, info: &mut WordInfo, c: char) {
    text.push(c);
    info.pattern.push(c);
}

/// Pushes literal expansion or substitution text (`$X`, `$(…)`): kept verbatim, marked quoted
/// in the pattern so its characters are never taken for globs.
pub(super) fn push_literal(text: &mut String, info: &mut WordInfo, literal: &str) {
    for c in literal.chars() {
        push_quoted(text, info, c);
    }
}

impl Parser<'_> {
    /// Reads one word at the cursor (the caller has checked it is not at an operator).
    pub(super) fn read_word(&mut self) -> Result<(String, WordInfo), Unparseable> {
        let mut text = String::new();
        let mut info = WordInfo::default();
        let first = self.pos;
        while let Some(c) = self.peek() {
            if (c == '<' || c == '>') && self.peek_at(1) == Some('(') {
                self.read_process_substitution(&mut text, &mut info)?;
                continue;
            }
            if self.at_word_end() {
                break;
            }
            match c {
                '\\' => {
                    info.quoted = true;
                    match self.peek_at(1) {
                        Some('\n') => self.pos += 2,
                        Some(next) => {
                            self.pos += 2;
                            push_quoted(&mut text, &mut info, next);
                        }
                        None => {
                            self.pos += 1;
                            push_quoted(&mut text, &mut info, '\\');
                        }
                    }
                }
                '\'' => self.read_single_quoted(&mut text, &mut info)?,
                '"' => self.read_double_quoted(&mut text, &mut info)?,
                '$' | '`' => self.read_dollar_or_backtick_in(&mut text, &mut info, false)?,
                '*' | '?' | '+' | '@' if self.peek_at(1) == Some('(') && self.peek_at(2) != Some(')') => {
                    self.read_extglob(&mut text, &mut info)?;
                }
                '*' | '?' | '[' => {
                    info.glob = true;
                    push_unquoted(&mut text, &mut info, c);
                    self.pos += 1;
                }
                '{' => {
                    info.brace = true;
                    push_unquoted(&mut text, &mut info, c);
                    self.pos += 1;
                }
                _ => {
                    push_unquoted(&mut text, &mut info, c);
                    self.pos += 1;
                }
            }
        }
        if self.pos == first {
            return self.fail("unexpected character");
        }
        Ok((text, info))
    }

    /// An extended glob `?(…)`, `*(…)`, `+(…)`, `@(…)` (always on in `[[ == ]]`, elsewhere after
    /// `shopt -s extglob`): one pattern word up to the matching `)`, blanks and `|` included;
    /// quotes and substitutions inside are read as in any word. `f?()` stays a function name,
    /// and `!(…)` is not read this way: without extglob, bash runs `!(cmd)` as a negated subshell.
    fn read_extglob(&mut self, text: &mut String, info: &mut WordInfo) -> Result<(), Unparseable> {
        info.glob = true;
        let mut depth = 0usize;
        while let Some(c) = self.peek() {
            match c {
                '\\' => match self.peek_at(1) {
                    Some('\n') => self.pos += 2,
                    Some(next) => {
                        info.quoted = true;
                        self.pos += 2;
                        push_quoted(text, info, next);
                    }
                    None => return self.fail("unterminated extended glob"),
                },
                '\'' => self.read_single_quoted(text, info)?,
                '"' => self.read_double_quoted(text, info)?,
                '$' | '`' => self.read_dollar_or_backtick_in(text, info, false)?,
                '\n' => return self.fail("unterminated extended glob"),
                _ => {
                    depth = match c {
                        '(' => depth + 1,
                        ')' => depth - 1,
                        _ => depth,
                    };
                    push_unquoted(text, info, c);
                    self.pos += 1;
                    if c == ')' && depth == 0 {
                        return Ok(());
                    }
                }
            }
        }
        self.fail("unterminated extended glob")
    }

    pub(super) fn read_single_quoted(&mut self, text: &mut String, info: &mut WordInfo) -> Result<(), Unparseable> {
        info.quoted = true;
        self.pos += 1;
        loop {
            match self.peek() {
                None => return self.fail("unterminated '"),
                Some('\'') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(c) => {
                    push_quoted(text, info, c);
                    self.pos += 1;
                }
            }
        }
    }

    pub(super) fn read_double_quoted(&mut self, text: &mut String, info: &mut WordInfo) -> Result<(), Unparseable> {
        info.quoted = true;
        self.pos += 1;
        loop {
            match self.peek() {
                None => return self.fail("unterminated \""),
                Some('"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some('\\') => match self.peek_at(1) {
                    Some('\n') => self.pos += 2,
                    Some(next @ ('$' | '`' | '"' | '\\')) => {
                        self.pos += 2;
                        push_quoted(text, info, next);
                    }
                    _ => {
                        self.pos += 1;
                        push_quoted(text, info, '\\');
                    }
                },
                Some('$' | '`') => self.read_dollar_or_backtick_in(text, info, true)?,
                Some(c) => {
                    push_quoted(text, info, c);
                    self.pos += 1;
                }
            }
        }
    }

    /// `$'…'`: ANSI-C quoting, decoded the way bash does (`$'\x72m'` is `rm`).
    pub(super) fn read_ansi_c(&mut self, text: &mut String, info: &mut WordInfo) -> Result<(), Unparseable> {
        info.quoted = true;
        self.pos += 2;
        loop {
            let Some(c) = self.peek() else { return self.fail("unterminated $'") };
            self.pos += 1;
            match c {
                '\'' => return Ok(()),
                '\\' => {
                    let Some(escape) = self.peek() else { return self.fail("unterminated $'") };
                    self.pos += 1;
                    let decoded = match escape {
                        'n' => Some('\n'),
                        't' => Some('\t'),
                        'r' => Some('\r'),
                        'a' => Some('\u{7}'),
                        'b' => Some('\u{8}'),
                        'e' | 'E' => Some('\u{1b}'),
                        'f' => Some('\u{c}'),
                        'v' => Some('\u{b}'),
                        '\\' | '\'' | '"' | '?' => Some(escape),
                        'x' => self.read_code(16, 2),
                        'u' => self.read_code(16, 4),
                        'U' => self.read_code(16, 8),
                        '0'..='7' => {
                            self.pos -= 1;
                            self.read_code(8, 3)
                        }
                        'c' => {
                            let control = self.peek().map(|c| char::from((c as u32 & 0x1f) as u8));
                            self.pos += 1;
                            control
                        }
                        other => {
                            push_quoted(text, info, '\\');
                            Some(other)
                        }
                    };
                    if let Some(decoded) = decoded {
                        push_quoted(text, info, decoded);
                    }
                }
                other => push_quoted(text, info, other),
            }
        }
    }

    /// Reads up to `max_digits` digits in `radix`; None when there are none (bash then keeps
    /// the escape literally, which only matters for display).
    fn read_code(&mut self, radix: u32, max_digits: usize) -> Option<char> {
        let mut value = 0u32;
        let mut digits = 0;
        while digits < max_digits {
            let Some(digit) = self.peek().and_then(|c| c.to_digit(radix)) else { break };
            value = value.wrapping_mul(radix).wrapping_add(digit);
            digits += 1;
            self.pos += 1;
        }
        if digits == 0 { None } else { char::from_u32(value & 0xff_ffff).or(Some('\u{fffd}')) }
    }
}
