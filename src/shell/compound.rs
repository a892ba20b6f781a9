//! Compound commands for the shell parser: `case … esac`, `for`/`select` headers, `for ((…))`
//! and `((…))`, `[[ … ]]` and array assignments `NAME=(…)`.
//!
//! Invariant: what bash expands in them (the `case` word and patterns, the `for` words, the
//! conditional's words, arithmetic text, array elements) is read with the word reader, so every
//! substitution in them is parsed; the syntax itself is kept as a header command
//! ([`super::SimpleCommand::header`]) so the rules can judge what it assigns and evaluates.

use super::parser::{Draft, Term};
use super::{Nesting, Parser, Unparseable, WordInfo};

impl Parser<'_> {
    /// True at the unquoted word `keyword` (followed by a character that ends a word).
    pub(super) fn at_keyword(&self, keyword: &str) -> bool {
        let length = keyword.chars().count();
        keyword.chars().enumerate().all(|(offset, c)| self.peek_at(offset) == Some(c))
            && matches!(self.peek_at(length), None | Some(' ' | '\t' | '\n' | ';' | '&' | '|' | '(' | ')' | '<' | '>'))
    }

    /// Skips blanks, newlines (reading the here-doc bodies they start) and comments.
    fn skip_separating_space(&mut self) -> Result<(), Unparseable> {
        loop {
            self.skip_blanks();
            match self.peek() {
                Some('\n') => {
                    self.pos += 1;
                    self.read_heredoc_bodies()?;
                }
                Some('#') => self.skip_comment(),
                _ => return Ok(()),
            }
        }
    }

    /// Accounts for syntax text (`case x in`, a pattern, `esac`) that is no command.
    fn syntax_span(&mut self, start: usize) {
        let span = self.span(start..self.offset());
        self.out.other_spans.push(span);
    }

    /// `case WORD in [(]PATTERN[|PATTERN]…) LIST ;; … esac`: the word and the patterns are
    /// expanded (their substitutions run and are parsed), each item's commands are parsed.
    pub(super) fn case_command(&mut self, start: usize, context: Nesting) -> Result<(), Unparseable> {
        self.skip_blanks();
        if self.at_word_end() {
            return self.fail("case without a word");
        }
        // The word and the patterns are expanded: kept as header commands to be judged.
        let mut header = Draft { header: true, start: Some(start), ..Draft::default() };
        header.words.push("case".to_string());
        header.word_info.push(WordInfo::default());
        let (subject, subject_info) = self.read_word_advancing()?;
        header.words.push(subject);
        header.word_info.push(subject_info);
        header.end = self.offset();
        self.push(header, context, None);
        self.skip_separating_space()?;
        if !self.at_keyword("in") {
            return self.fail("case without in");
        }
        self.pos += 2;
        self.syntax_span(start);
        loop {
            self.skip_separating_space()?;
            let item_start = self.offset();
            if self.at_keyword("esac") {
                self.pos += 4;
                self.syntax_span(item_start);
                return self.group_redirections(context);
            }
            if self.peek() == Some('(') {
                self.pos += 1;
            }
            let mut patterns = Draft { header: true, start: Some(self.offset()), ..Draft::default() };
            patterns.words.push("case".to_string());
            patterns.word_info.push(WordInfo::default());
            loop {
                self.skip_blanks();
                if self.at_word_end() {
                    return self.fail("case pattern expected");
                }
                let (pattern, pattern_info) = self.read_word_advancing()?;
                patterns.words.push(pattern);
                patterns.word_info.push(pattern_info);
                patterns.end = self.offset();
                self.skip_blanks();
                match self.peek() {
                    Some('|') => self.pos += 1,
                    Some(')') => {
                        self.pos += 1;
                        break;
                    }
                    _ => return self.fail("case pattern without )"),
                }
            }
            self.syntax_span(item_start);
            self.push(patterns, context, None);
            self.nested(Term::Case, context)?;
        }
    }

    /// `for NAME [in WORDS]` / `select …`: kept as a header command (`for NAME in WORDS`) that
    /// needs no rule but is judged for the variable it assigns; `for ((…))` is an arithmetic
    /// command. The `do … done` body is parsed by the list that follows.
    pub(super) fn loop_header(&mut self, keyword: &str, start: usize, context: Nesting) -> Result<(), Unparseable> {
        self.skip_blanks();
        if keyword == "for" && self.peek() == Some('(') && self.peek_at(1) == Some('(') {
            if !self.arithmetic_command(context)? {
                return self.fail("for (( without a closing ))");
            }
            let span = self.span(start..self.offset());
            self.out.other_spans.push(span);
            return Ok(());
        }
        let mut draft = Draft { header: true, start: Some(start), ..Draft::default() };
        draft.words.push(keyword.to_string());
        draft.word_info.push(WordInfo::default());
        if self.at_word_end() {
            return self.fail("for without a name");
        }
        let (name, info) = self.read_word_advancing()?;
        draft.words.push(name);
        draft.word_info.push(info);
        self.skip_blanks();
        if self.at_keyword("in") {
            self.pos += 2;
            draft.words.push("in".to_string());
            draft.word_info.push(WordInfo::default());
            loop {
                self.skip_blanks();
                if matches!(self.peek(), None | Some(';' | '\n')) {
                    break;
                }
                if self.at_word_end() {
                    return self.fail("unexpected operator in a for list");
                }
                let (word, info) = self.read_word_advancing()?;
                draft.words.push(word);
                draft.word_info.push(info);
            }
        }
        draft.end = self.offset();
        self.push(draft, context, None);
        Ok(())
    }

    /// `((…))` at the cursor: an arithmetic command when bash reads one (the text up to the
    /// matching `)` is `(…)` with balanced parentheses inside), kept as a header command
    /// `(( EXPR` judged for what it assigns and evaluates; false (nothing consumed) when bash
    /// reads nested subshells instead.
    pub(super) fn arithmetic_command(&mut self, context: Nesting) -> Result<bool, Unparseable> {
        let start = self.offset();
        let end = self.matched_end(self.pos)?;
        let content: String = self.chars[self.pos + 1..end - 1].iter().map(|(_, c)| *c).collect();
        let Some(inner) = content.strip_prefix('(').and_then(|rest| rest.strip_suffix(')')) else {
            return Ok(false);
        };
        if !super::substitution::balanced_parens(inner) {
            return Ok(false);
        }
        let inner = inner.to_string();
        let span = self.span(start..self.offset_of_index(end));
        let mut info = WordInfo::default();
        self.scan_arithmetic(&inner, span, &mut info)?;
        self.pos = end;
        let mut draft = Draft { header: true, start: Some(start), end: self.offset(), ..Draft::default() };
        draft.words = vec!["((".to_string(), inner];
        draft.word_info = vec![WordInfo::default(), info];
        loop {
            self.skip_blanks();
            if !self.try_redirect(&mut draft)? {
                break;
            }
        }
        self.push(draft, context, None);
        Ok(true)
    }

    /// `[[ … ]]`: inside, `&&`, `||`, `(`, `)`, `<`, `>` and `!` are the conditional's own
    /// operators and the word after `=~` is a regular expression that may hold `(`, `)` and `|`.
    /// Kept as a header command `[[ … ]]` (words as read) judged for what it evaluates.
    pub(super) fn conditional(&mut self, start: usize, context: Nesting) -> Result<(), Unparseable> {
        let mut draft = Draft { header: true, start: Some(start), ..Draft::default() };
        let push = |draft: &mut Draft, word: String, info: WordInfo| {
            draft.words.push(word);
            draft.word_info.push(info);
        };
        push(&mut draft, "[[".to_string(), WordInfo::default());
        let mut regex_next = false;
        loop {
            self.skip_separating_space()?;
            let operator = match (self.peek(), self.peek_at(1)) {
                (None, _) => return self.fail("unterminated [["),
                (Some(']'), Some(']'))
                    if matches!(self.peek_at(2), None | Some(' ' | '\t' | '\n' | ';' | '&' | '|' | ')')) =>
                {
                    self.pos += 2;
                    push(&mut draft, "]]".to_string(), WordInfo::default());
                    break;
                }
                (Some('&'), Some('&')) => Some("&&"),
                (Some('|'), Some('|')) => Some("||"),
                (Some('!'), Some(' ' | '\t')) => Some("!"),
                (Some(c @ ('(' | ')' | '<' | '>')), _) if !regex_next => Some(match c {
                    '(' => "(",
                    ')' => ")",
                    '<' => "<",
                    _ => ">",
                }),
                _ => None,
            };
            if let Some(operator) = operator {
                self.pos += operator.len();
                push(&mut draft, operator.to_string(), WordInfo::default());
                continue;
            }
            let (word, info) = if regex_next { self.regex_word()? } else { self.read_word_advancing()? };
            regex_next = word == "=~" && !info.quoted;
            push(&mut draft, word, info);
        }
        draft.end = self.offset();
        loop {
            self.skip_blanks();
            if !self.try_redirect(&mut draft)? {
                break;
            }
        }
        self.push(draft, context, None);
        Ok(())
    }

    /// The regular expression after `=~`: word pieces joined with the `(`, `)` and `|` between
    /// them, up to a blank outside parentheses.
    fn regex_word(&mut self) -> Result<(String, WordInfo), Unparseable> {
        let mut text = String::new();
        let mut info = WordInfo::default();
        let mut depth = 0usize;
        loop {
            match self.peek() {
                None | Some('\n') => break,
                Some(' ' | '\t') if depth == 0 => break,
                Some(c @ (' ' | '\t' | '|')) => {
                    text.push(c);
                    self.pos += 1;
                }
                Some('(') => {
                    depth += 1;
                    text.push('(');
                    self.pos += 1;
                }
                Some(')') if depth > 0 => {
                    depth -= 1;
                    text.push(')');
                    self.pos += 1;
                }
                Some(_) => {
                    let (piece, piece_info) = self.read_word_advancing()?;
                    text.push_str(&piece);
                    info.quoted |= piece_info.quoted;
                    info.expansion |= piece_info.expansion;
                    info.substitution |= piece_info.substitution;
                }
            }
        }
        if text.is_empty() {
            return self.fail("=~ without a regular expression");
        }
        Ok((text, info))
    }

    /// `NAME=(…)`: the elements of an array assignment, read as words (their substitutions
    /// run); the assignment is kept as `NAME=(e1 e2 …)`.
    pub(super) fn array_elements(
        &mut self,
        mut text: String,
        mut info: WordInfo,
    ) -> Result<(String, WordInfo), Unparseable> {
        self.pos += 1;
        text.push('(');
        let mut first = true;
        loop {
            self.skip_separating_space()?;
            match self.peek() {
                None => return self.fail("unterminated array assignment"),
                Some(')') => {
                    self.pos += 1;
                    text.push(')');
                    return Ok((text, info));
                }
                _ if self.at_word_end() => return self.fail("unexpected operator in an array assignment"),
                _ => {
                    let (element, element_info) = self.read_word_advancing()?;
                    if !first {
                        text.push(' ');
                    }
                    first = false;
                    text.push_str(&element);
                    info.quoted |= element_info.quoted;
                    info.expansion |= element_info.expansion;
                    info.substitution |= element_info.substitution;
                }
            }
        }
    }
}
