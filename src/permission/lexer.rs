//! Word reading for the shell parser: quotes, escapes, `$'…'`, expansions and substitutions.
//!
//! Invariant: a word's text is what bash would pass after quote removal, with expansions left
//! literal; every substitution met on the way (also inside double quotes and `${…}`) is parsed
//! into sub-commands, never skipped. Unterminated quotes and arithmetic that contains a
//! substitution are Unparseable.

use super::{Context, Parser, Term, Unparseable, WordInfo};

/// Characters escaped in [`WordInfo::pattern`] when they came from quoted text.
const PATTERN_SPECIAL: &[char] = &['\\', '*', '?', '[', ']', '{', '}', ','];

fn push_quoted(text: &mut String, info: &mut WordInfo, c: char) {
    text.push(c);
    if PATTERN_SPECIAL.contains(&c) {
        info.pattern.push('\\');
    }
    info.pattern.push(c);
}

fn push_unquoted(text: &mut String, info: &mut WordInfo, c: char) {
    text.push(c);
    info.pattern.push(c);
}

/// Pushes literal expansion or substitution text (`$X`, `$(…)`): kept verbatim, marked quoted
/// in the pattern so its characters are never taken for globs.
fn push_literal(text: &mut String, info: &mut WordInfo, literal: &str) {
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

    fn read_single_quoted(&mut self, text: &mut String, info: &mut WordInfo) -> Result<(), Unparseable> {
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

    fn read_double_quoted(&mut self, text: &mut String, info: &mut WordInfo) -> Result<(), Unparseable> {
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

    /// Reads `$…` or a backtick substitution at the cursor (used by here-doc scanning too).
    pub(super) fn read_dollar_or_backtick(
        &mut self,
        text: &mut String,
        info: &mut WordInfo,
    ) -> Result<(), Unparseable> {
        self.read_dollar_or_backtick_in(text, info, true)
    }

    fn read_dollar_or_backtick_in(
        &mut self,
        text: &mut String,
        info: &mut WordInfo,
        in_double_quotes: bool,
    ) -> Result<(), Unparseable> {
        let start = self.offset();
        if self.peek() == Some('`') {
            return self.read_backtick(text, info);
        }
        match self.peek_at(1) {
            Some('\'') if !in_double_quotes => return self.read_ansi_c(text, info),
            Some('"') if !in_double_quotes => {
                self.pos += 1;
                return self.read_double_quoted(text, info);
            }
            Some('(') if self.peek_at(2) == Some('(') => self.read_arithmetic(info)?,
            Some('(') => {
                self.pos += 2;
                self.nested(Term::Paren, Context::Substitution)?;
                info.substitution = true;
                self.out.has_substitution = true;
            }
            Some('{') => self.read_braced_parameter(info)?,
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                self.pos += 1;
                let name_start = self.offset();
                while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                    self.pos += 1;
                }
                info.expansion = true;
                self.out.has_expansion = true;
                // Written braced, so quote removal cannot merge the name with what follows
                // (`$IFS'x'` must not read as `$IFSx`).
                let name = self.src.get(name_start..self.offset()).unwrap_or_default();
                push_literal(text, info, &format!("${{{name}}}"));
                return Ok(());
            }
            Some(c) if c.is_ascii_digit() || "@*#?$!-".contains(c) => {
                self.pos += 2;
                info.expansion = true;
                self.out.has_expansion = true;
            }
            _ => {
                self.pos += 1;
                if in_double_quotes {
                    push_quoted(text, info, '$');
                } else {
                    push_unquoted(text, info, '$');
                }
                return Ok(());
            }
        }
        let literal = self.src.get(start..self.offset()).unwrap_or_default().to_string();
        push_literal(text, info, &literal);
        Ok(())
    }

    /// `$((…))`: an arithmetic expansion; one that hides a substitution is refused. One that
    /// names a variable has an unknown value (bash evaluates the variable's text as an
    /// expression in turn, assignments included), so it counts as an expansion of the word.
    fn read_arithmetic(&mut self, info: &mut WordInfo) -> Result<(), Unparseable> {
        let body_start = self.offset() + 3;
        self.pos += 3;
        let mut depth = 2usize;
        while depth > 0 {
            match self.peek() {
                None => return self.fail("unterminated $(("),
                Some('(') => depth += 1,
                Some(')') => depth -= 1,
                Some('`') => return self.fail("substitution inside arithmetic"),
                Some('$') if self.peek_at(1) == Some('(') => return self.fail("substitution inside arithmetic"),
                _ => {}
            }
            self.pos += 1;
        }
        self.out.has_expansion = true;
        let body = self.src.get(body_start..self.offset().saturating_sub(2)).unwrap_or_default();
        info.expansion |= !crate::permission::builtins::arithmetic_names(body).is_empty();
        Ok(())
    }

    /// `${…}`: skipped to its closing brace, parsing any substitution inside it.
    fn read_braced_parameter(&mut self, info: &mut WordInfo) -> Result<(), Unparseable> {
        self.pos += 2;
        info.expansion = true;
        self.out.has_expansion = true;
        let mut depth = 1usize;
        loop {
            match self.peek() {
                None => return self.fail("unterminated ${"),
                Some('\\') => self.pos += 2,
                Some('}') => {
                    self.pos += 1;
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                Some('{') => {
                    self.pos += 1;
                    depth += 1;
                }
                Some('\'') => {
                    let (mut sink, mut sink_info) = (String::new(), WordInfo::default());
                    self.read_single_quoted(&mut sink, &mut sink_info)?;
                }
                Some('"') => {
                    let (mut sink, mut sink_info) = (String::new(), WordInfo::default());
                    self.read_double_quoted(&mut sink, &mut sink_info)?;
                    info.substitution |= sink_info.substitution;
                }
                Some('$' | '`') => {
                    let mut sink = String::new();
                    self.read_dollar_or_backtick_in(&mut sink, info, true)?;
                }
                Some(_) => self.pos += 1,
            }
        }
    }

    /// `` `…` ``: the body is unescaped (`\\`, `` \` ``, `\$`) and parsed on its own.
    fn read_backtick(&mut self, text: &mut String, info: &mut WordInfo) -> Result<(), Unparseable> {
        let start = self.offset();
        self.pos += 1;
        let mut body = String::new();
        loop {
            match self.peek() {
                None => return self.fail("unterminated `"),
                Some('`') => {
                    self.pos += 1;
                    break;
                }
                Some('\\') => match self.peek_at(1) {
                    Some(next @ ('\\' | '`' | '$')) => {
                        body.push(next);
                        self.pos += 2;
                    }
                    _ => {
                        body.push('\\');
                        self.pos += 1;
                    }
                },
                Some(c) => {
                    body.push(c);
                    self.pos += 1;
                }
            }
        }
        if self.depth >= super::MAX_DEPTH {
            return self.fail("nesting too deep");
        }
        let mut inner = Parser::new(&body, self.depth + 1);
        inner.span_override = Some(self.span(start..self.offset()));
        inner.parse_list(Term::Eof, Context::Substitution)?;
        inner.finish_heredocs()?;
        self.merge(inner.out);
        self.out.has_substitution = true;
        info.substitution = true;
        let literal = self.src.get(start..self.offset()).unwrap_or_default().to_string();
        push_literal(text, info, &literal);
        Ok(())
    }

    fn read_process_substitution(&mut self, text: &mut String, info: &mut WordInfo) -> Result<(), Unparseable> {
        let start = self.offset();
        self.pos += 2;
        self.nested(Term::Paren, Context::ProcessSubstitution)?;
        self.out.has_substitution = true;
        info.substitution = true;
        let literal = self.src.get(start..self.offset()).unwrap_or_default().to_string();
        push_literal(text, info, &literal);
        Ok(())
    }

    /// `$'…'`: ANSI-C quoting, decoded the way bash does (`$'\x72m'` is `rm`).
    fn read_ansi_c(&mut self, text: &mut String, info: &mut WordInfo) -> Result<(), Unparseable> {
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
