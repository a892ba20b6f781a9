//! Everything after a `$` or a backtick for the shell parser: parameter expansions, arithmetic,
//! command and process substitutions, and bash 5.3's `${ cmd; }`/`${| cmd; }`.
//!
//! Invariant: every substitution met (also inside double quotes, `${…}`, arithmetic and here-doc
//! bodies) is parsed into sub-commands, never skipped. `$((` is arithmetic only when bash would
//! read it so (subst.c: the text up to the matching `)` must be `(…)` with balanced parentheses
//! inside); otherwise it is a command substitution whose body starts with a subshell. Arithmetic
//! text is scanned for substitutions with its quotes and backslashes removed, because bash
//! expands array subscripts a second time when it evaluates them (`$(( 'a[$(id)]' ))` runs `id`).
//! It expands nothing: the text is kept literally in the word.

use super::lexer::{push_literal, push_quoted, push_unquoted};
use super::parser::{Parser, Term};
use super::{MAX_DEPTH, Nesting, Unparseable, WordInfo, arithmetic_names, code_marker};
use std::ops::Range;

/// bash's `chk_arithsub`: parentheses balance and never close more than were opened, quotes
/// and escapes skipped.
pub(super) fn balanced_parens(text: &str) -> bool {
    let mut depth = 0usize;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '(' => depth += 1,
            ')' => {
                let Some(less) = depth.checked_sub(1) else { return false };
                depth = less;
            }
            '\\' => {
                chars.next();
            }
            '\'' if !chars.any(|q| q == '\'') => return false,
            '"' => {
                let mut closed = false;
                while let Some(q) = chars.next() {
                    match q {
                        '\\' => {
                            chars.next();
                        }
                        '"' => {
                            closed = true;
                            break;
                        }
                        _ => {}
                    }
                }
                if !closed {
                    return false;
                }
            }
            _ => {}
        }
    }
    depth == 0
}

/// `text` without its quote characters and backslashes, for a second reading of arithmetic text
/// (bash expands subscripts again when it evaluates them, when quotes hide nothing any more);
/// None when there are none: the second reading would be the first one again, and nested, the
/// repeated readings would take time exponential in the depth.
fn without_quotes(text: &str) -> Option<String> {
    let plain: String = text.chars().filter(|c| !matches!(c, '\\' | '\'' | '"')).collect();
    (plain.len() < text.len()).then_some(plain)
}

impl Parser<'_> {
    pub(super) fn read_dollar_or_backtick_in(
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
            Some('(') if self.peek_at(2) == Some('(') => self.read_dollar_double_paren(info)?,
            Some('[') => {
                let end = self.matched_end(self.pos)?;
                let body = self.bracket_text(end);
                let span = self.span(start..self.offset_of_index(end));
                self.pos = end;
                self.scan_arithmetic(&body, span, info)?;
            }
            Some('(') => {
                self.pos += 2;
                self.nested(Term::Paren, Nesting::Substitution)?;
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

    /// `$((…`: bash reads the text up to the `)` matching the first `(`; it is arithmetic when
    /// that text is `(…)` with balanced parentheses inside, otherwise a command substitution
    /// whose body starts with a subshell (`$((x) && y)` runs `x` and `y`).
    fn read_dollar_double_paren(&mut self, info: &mut WordInfo) -> Result<(), Unparseable> {
        let start = self.offset();
        let end = self.matched_end(self.pos)?;
        let content = self.bracket_text(end);
        let span = self.span(start..self.offset_of_index(end));
        self.pos = end;
        let arithmetic =
            content.strip_prefix('(').and_then(|rest| rest.strip_suffix(')')).filter(|inner| balanced_parens(inner));
        if let Some(inner) = arithmetic {
            return self.scan_arithmetic(inner, span, info);
        }
        // bash re-reads the body on its own at expansion time; a comment or a here-doc there
        // could end it elsewhere than the parenthesis count does, so those are refused.
        if content.contains('#') || content.contains("<<") {
            return self.fail("comment or here-doc inside a $(( command substitution");
        }
        self.parse_substitution_text(&content, span)?;
        info.substitution = true;
        Ok(())
    }

    /// Arithmetic text (`$((…))`, `$[…]`, `((…))`): its variables have unknown values (bash
    /// evaluates a variable's text as an expression in turn, assignments included), and its
    /// substitutions run — also those hidden behind quotes or backslashes, because subscripts
    /// are expanded again when they are evaluated.
    pub(super) fn scan_arithmetic(
        &mut self,
        text: &str,
        span: Range<usize>,
        info: &mut WordInfo,
    ) -> Result<(), Unparseable> {
        self.out.has_expansion = true;
        info.expansion |= !arithmetic_names(text).is_empty();
        if self.scan_substitutions(text, span.clone())? {
            info.substitution = true;
            return Ok(());
        }
        if let Some(plain) = without_quotes(text)
            && code_marker(&plain)
            && self.scan_substitutions(&plain, span)?
        {
            info.substitution = true;
        }
        Ok(())
    }

    /// Parses `text` as the body of a command substitution (its commands run).
    fn parse_substitution_text(&mut self, text: &str, span: Range<usize>) -> Result<(), Unparseable> {
        if self.depth >= MAX_DEPTH {
            return self.fail("nesting too deep");
        }
        let mut inner = Parser::new(text, self.depth + 1);
        inner.span_override = Some(span);
        inner.parse_list(Term::Eof, Nesting::Substitution)?;
        inner.finish_heredocs()?;
        self.merge(inner.out);
        self.out.has_substitution = true;
        Ok(())
    }

    /// Parses every substitution in `text` read the way bash expands a here-doc body or an
    /// arithmetic expression (double-quote rules: `\` escapes, quotes are literal); true when
    /// one was found. Nothing in the text is left unread.
    pub(super) fn scan_substitutions(&mut self, text: &str, span: Range<usize>) -> Result<bool, Unparseable> {
        if !text.contains('$') && !text.contains('`') {
            return Ok(false);
        }
        if self.depth >= MAX_DEPTH {
            return self.fail("nesting too deep");
        }
        let mut inner = Parser::new(text, self.depth + 1);
        inner.span_override = Some(span);
        while let Some(c) = inner.peek() {
            match (c, inner.peek_at(1)) {
                ('\\', _) => inner.pos += 2,
                ('$', Some('(' | '{' | '[')) | ('`', _) => {
                    let mut sink = String::new();
                    let mut sink_info = WordInfo::default();
                    inner.read_dollar_or_backtick_in(&mut sink, &mut sink_info, true)?;
                }
                _ => inner.pos += 1,
            }
        }
        inner.check_stall()?;
        let found = inner.out.has_substitution;
        self.merge(inner.out);
        Ok(found)
    }

    /// The char index just past the bracket that closes the one at `open_index` (a `(` or `[`,
    /// or the `$` of `$(`, `$[`, `${`), reading quotes, escapes, backticks and nested
    /// `$(`/`${`/`$[` the way bash's `parse_matched_pair` does: `(` and `[` nest, `{` does not
    /// (the first `}` closes a `${`).
    pub(super) fn matched_end(&self, open_index: usize) -> Result<usize, Unparseable> {
        // Each entry is the closing character awaited, or '"' inside double quotes.
        let mut stack: Vec<char> = Vec::new();
        let char_at = |index: usize| self.chars.get(index).map(|(_, c)| *c);
        let mut index = open_index;
        loop {
            let Some(c) = char_at(index) else { return self.fail("unterminated bracket") };
            let in_double = stack.last() == Some(&'"');
            let closing = |open: char| match open {
                '(' => ')',
                '[' => ']',
                _ => '}',
            };
            match c {
                '\\' => index += 1,
                '"' if in_double => {
                    stack.pop();
                }
                '"' => stack.push('"'),
                '\'' if !in_double => {
                    let ansi_c = index.checked_sub(1).and_then(char_at) == Some('$');
                    index += 1;
                    while let Some(q) = char_at(index) {
                        if q == '\'' {
                            break;
                        }
                        index += if ansi_c && q == '\\' { 2 } else { 1 };
                    }
                }
                '`' => {
                    index += 1;
                    while let Some(q) = char_at(index) {
                        if q == '`' {
                            break;
                        }
                        index += if q == '\\' { 2 } else { 1 };
                    }
                }
                '$' if matches!(char_at(index + 1), Some('(' | '[' | '{')) => {
                    index += 1;
                    stack.push(closing(char_at(index).unwrap_or('(')));
                }
                open @ ('(' | '[') if index == open_index => stack.push(closing(open)),
                open @ ('(' | '[') if !in_double && stack.last() == Some(&closing(open)) => {
                    stack.push(closing(open));
                }
                close if !in_double && stack.last() == Some(&close) => {
                    stack.pop();
                    if stack.is_empty() {
                        return Ok(index + 1);
                    }
                }
                _ => {}
            }
            index += 1;
        }
    }

    /// The text between the `$(` or `$[` at the cursor and its closing bracket at `end - 1`.
    fn bracket_text(&self, end: usize) -> String {
        self.chars[self.pos + 2..end - 1].iter().map(|(_, c)| *c).collect()
    }

    pub(super) fn offset_of_index(&self, index: usize) -> usize {
        self.chars.get(index).map_or(self.src.len(), |(offset, _)| *offset)
    }

    /// `${…}`: skipped to its closing brace, parsing any substitution inside it.
    ///
    /// `${ cmd; }` and `${| cmd; }` (bash 5.3 function substitutions) are command
    /// substitutions. Inside `${…}`, subscripts and offsets are arithmetic, where quotes hide no
    /// substitution (`${a['$(id)']}` runs `id`), so quoted text is scanned as well.
    fn read_braced_parameter(&mut self, info: &mut WordInfo) -> Result<(), Unparseable> {
        if matches!(self.peek_at(2), Some(' ' | '\t' | '\n' | '|')) {
            self.pos += if self.peek_at(2) == Some('|') { 3 } else { 2 };
            self.nested(Term::FunSub, Nesting::Substitution)?;
            info.substitution = true;
            self.out.has_substitution = true;
            return Ok(());
        }
        let start = self.pos;
        let commands_before = self.out.subcommands.len();
        // `${…}` nests (`${a:-${b:-…}}`): counted like a substitution, so deep input is refused
        // instead of overflowing the stack.
        if self.depth >= MAX_DEPTH {
            return self.fail("nesting too deep");
        }
        self.depth += 1;
        let body = self.read_braced_body(info);
        self.depth -= 1;
        body?;
        if self.out.subcommands.len() == commands_before {
            let read: String = self.chars[start..self.pos].iter().map(|(_, c)| *c).collect();
            if let Some(plain) = without_quotes(&read)
                && code_marker(&plain[2..])
            {
                let span = self.span(self.offset_of_index(start)..self.offset());
                if self.scan_substitutions(&plain[2..], span)? {
                    info.substitution = true;
                }
            }
        }
        Ok(())
    }

    /// Reads `${…}` up to its closing brace. As in bash (`parse_matched_pair` with
    /// `P_FIRSTCLOSE`), the first `}` outside quotes closes it, whatever `{` came before:
    /// `${x:-{} ; rm -rf / ; echo }` is three commands. A nested `${…}` is read whole.
    fn read_braced_body(&mut self, info: &mut WordInfo) -> Result<(), Unparseable> {
        self.pos += 2;
        info.expansion = true;
        self.out.has_expansion = true;
        loop {
            match self.peek() {
                None => return self.fail("unterminated ${"),
                Some('\\') => self.pos += 2,
                Some('}') => {
                    self.pos += 1;
                    return Ok(());
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
        if self.depth >= MAX_DEPTH {
            return self.fail("nesting too deep");
        }
        let mut inner = Parser::new(&body, self.depth + 1);
        inner.span_override = Some(self.span(start..self.offset()));
        inner.parse_list(Term::Eof, Nesting::Substitution)?;
        inner.finish_heredocs()?;
        self.merge(inner.out);
        self.out.has_substitution = true;
        info.substitution = true;
        let literal = self.src.get(start..self.offset()).unwrap_or_default().to_string();
        push_literal(text, info, &literal);
        Ok(())
    }

    pub(super) fn read_process_substitution(
        &mut self,
        text: &mut String,
        info: &mut WordInfo,
    ) -> Result<(), Unparseable> {
        let start = self.offset();
        self.pos += 2;
        self.nested(Term::Paren, Nesting::ProcessSubstitution)?;
        info.substitution = true;
        let literal = self.src.get(start..self.offset()).unwrap_or_default().to_string();
        push_literal(text, info, &literal);
        Ok(())
    }
}
