//! The recursive-descent part of the shell parser: lists, pipelines, groups, simple commands
//! and redirections. Words are read by `lexer.rs` (what follows `$` or a backtick by
//! `substitution.rs`), here-doc bodies by `heredoc.rs`, compound commands (`case`, `for`, `[[`,
//! `((`, arrays) by `compound.rs`.
//!
//! Invariant: every byte of the input is consumed by exactly one of a simple command's span,
//! a comment or here-doc span, or a separator — nothing is skipped silently.

use super::{
    MAX_DEPTH, Nesting, ParsedCommand, RESERVED_WORDS, Redirect, RedirectOp, SimpleCommand, Unparseable, WordInfo,
};
use std::cell::Cell;
use std::ops::Range;

/// Looks at one position more often than this without moving on: a loop that cannot end (a
/// defect of the reader). `peek` then reports the end of input, so every loop stops, and the
/// command is refused as unreadable: it is asked about instead of hanging the agent.
const STALL_LIMIT: u32 = 10_000;

/// What closes the list being parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Term {
    Eof,
    Paren,
    Brace,
    /// A bash 5.3 function substitution `${ …; }`: any `}` in command position closes it.
    FunSub,
    /// The commands of one `case` item: closed by `;;`, `;&` or `;;&` (consumed) or by `esac`
    /// (left for the caller).
    Case,
}

pub(super) struct PendingHeredoc {
    pub(super) command: usize,
    pub(super) redirect: usize,
    pub(super) delimiter: String,
    pub(super) strip_tabs: bool,
    pub(super) quoted: bool,
}

/// A simple command being assembled.
#[derive(Default)]
pub(super) struct Draft {
    pub(super) assignments: Vec<String>,
    pub(super) words: Vec<String>,
    pub(super) word_info: Vec<WordInfo>,
    pub(super) redirections: Vec<Redirect>,
    pub(super) heredocs: Vec<(usize, String, bool, bool)>,
    pub(super) start: Option<usize>,
    pub(super) end: usize,
    /// A header command (`for`, `case`, `[[`, `((`): see [`super::SimpleCommand::header`].
    pub(super) header: bool,
}

pub(super) struct Parser<'a> {
    pub(super) src: &'a str,
    pub(super) chars: Vec<(usize, char)>,
    pub(super) pos: usize,
    pub(super) depth: usize,
    pub(super) out: ParsedCommand,
    pub(super) pending: Vec<PendingHeredoc>,
    /// When set, every span is replaced by this one (backtick bodies: their text was unescaped).
    pub(super) span_override: Option<Range<usize>>,
    /// The position `peek` last looked at, and how many times in a row (see [`STALL_LIMIT`]).
    stall: Cell<(usize, u32)>,
}

impl<'a> Parser<'a> {
    pub(super) fn new(src: &'a str, depth: usize) -> Parser<'a> {
        Parser {
            src,
            chars: src.char_indices().collect(),
            pos: 0,
            depth,
            out: ParsedCommand::default(),
            pending: Vec::new(),
            span_override: None,
            stall: Cell::new((0, 0)),
        }
    }

    pub(super) fn peek(&self) -> Option<char> {
        let (at, count) = self.stall.get();
        if count > STALL_LIMIT {
            // Once stalled, the input has ended for good: whatever moves on, it reads nothing.
            return None;
        }
        let count = if at == self.pos { count + 1 } else { 0 };
        self.stall.set((self.pos, count));
        if count > STALL_LIMIT {
            return None;
        }
        self.chars.get(self.pos).map(|(_, c)| *c)
    }

    /// Fails when the reader stalled (see [`STALL_LIMIT`]): what it read cannot be trusted.
    pub(super) fn check_stall(&self) -> Result<(), Unparseable> {
        if self.stall.get().1 > STALL_LIMIT {
            return Err(Unparseable { reason: "the reader stalled".to_string(), offset: self.offset() });
        }
        Ok(())
    }

    pub(super) fn peek_at(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).map(|(_, c)| *c)
    }

    pub(super) fn offset(&self) -> usize {
        self.chars.get(self.pos).map_or(self.src.len(), |(offset, _)| *offset)
    }

    pub(super) fn fail<T>(&self, reason: &str) -> Result<T, Unparseable> {
        Err(Unparseable { reason: reason.to_string(), offset: self.offset() })
    }

    pub(super) fn span(&self, range: Range<usize>) -> Range<usize> {
        match &self.span_override {
            Some(span) => span.clone(),
            None => range,
        }
    }

    /// Skips spaces, tabs and backslash-newline continuations.
    pub(super) fn skip_blanks(&mut self) {
        loop {
            match (self.peek(), self.peek_at(1)) {
                (Some(' ' | '\t'), _) => self.pos += 1,
                (Some('\\'), Some('\n')) => self.pos += 2,
                _ => return,
            }
        }
    }

    pub(super) fn skip_comment(&mut self) {
        let start = self.offset();
        while let Some(c) = self.peek() {
            if c == '\n' {
                break;
            }
            self.pos += 1;
        }
        let span = self.span(start..self.offset());
        self.out.other_spans.push(span);
    }

    /// True at a character that ends a word.
    pub(super) fn at_word_end(&self) -> bool {
        matches!(self.peek(), None | Some(' ' | '\t' | '\n' | ';' | '&' | '|' | '<' | '>' | '(' | ')'))
    }

    pub(super) fn parse_list(&mut self, term: Term, context: Nesting) -> Result<(), Unparseable> {
        if self.depth > MAX_DEPTH {
            return self.fail("nesting too deep");
        }
        let mut last_stage: Option<usize> = None;
        let mut piped = false;
        // After `&&`, `||` or `|` a command must follow; `;` and `&` need one before them.
        let mut need_command = false;
        let mut have_command = false;
        loop {
            self.skip_blanks();
            if term == Term::Case {
                if self.at_keyword("esac") && !need_command {
                    return Ok(());
                }
                if self.peek() == Some(';') && matches!(self.peek_at(1), Some(';' | '&')) {
                    if need_command {
                        return self.fail("operator without a command after it");
                    }
                    let fallthrough = self.peek_at(1) == Some(';') && self.peek_at(2) == Some('&');
                    self.pos += if fallthrough { 3 } else { 2 };
                    return Ok(());
                }
            }
            let c = self.peek();
            let operator = matches!(c, Some(';' | '|')) || (c == Some('&') && self.peek_at(1) != Some('>'));
            if need_command && (operator || matches!(c, None | Some(')' | '}'))) {
                return self.fail("operator without a command after it");
            }
            if !have_command && operator {
                return self.fail("operator without a command before it");
            }
            let Some(c) = c else {
                if term != Term::Eof {
                    return self.fail("unbalanced ( or {");
                }
                return Ok(());
            };
            if operator {
                need_command = c != ';' && !(c == '&' && self.peek_at(1) != Some('&'));
                have_command = false;
            } else if !matches!(c, '#' | '\n' | ')' | '}') {
                need_command = false;
                have_command = true;
            }
            match c {
                '#' => self.skip_comment(),
                '\n' => {
                    self.pos += 1;
                    self.read_heredoc_bodies()?;
                    if !piped {
                        last_stage = None;
                    }
                }
                ';' => {
                    if self.peek_at(1) == Some(';') {
                        return self.fail("`;;` (case) is not supported");
                    }
                    self.pos += 1;
                    (last_stage, piped) = (None, false);
                }
                '&' if self.peek_at(1) == Some('&') => {
                    self.pos += 2;
                    (last_stage, piped) = (None, false);
                }
                '&' if self.peek_at(1) != Some('>') => {
                    self.pos += 1;
                    self.out.has_background = true;
                    (last_stage, piped) = (None, false);
                }
                '|' if self.peek_at(1) == Some('|') => {
                    self.pos += 2;
                    (last_stage, piped) = (None, false);
                }
                '|' => {
                    if piped {
                        return self.fail("empty pipeline stage");
                    }
                    self.pos += if self.peek_at(1) == Some('&') { 2 } else { 1 };
                    piped = true;
                }
                ')' => {
                    if term != Term::Paren {
                        return self.fail("unbalanced )");
                    }
                    self.pos += 1;
                    return Ok(());
                }
                '(' if self.peek_at(1) == Some('(') && self.arithmetic_command(context)? => {
                    (last_stage, piped) = (None, false);
                }
                '(' => {
                    self.pos += 1;
                    self.out.has_group = true;
                    self.nested(Term::Paren, context)?;
                    self.group_redirections(context)?;
                    (last_stage, piped) = (None, false);
                }
                '{' if matches!(self.peek_at(1), Some(' ' | '\t' | '\n')) => {
                    self.pos += 1;
                    self.out.has_group = true;
                    self.nested(Term::Brace, context)?;
                    self.group_redirections(context)?;
                    (last_stage, piped) = (None, false);
                }
                '}' if term == Term::FunSub => {
                    self.pos += 1;
                    return Ok(());
                }
                '}' if term == Term::Brace
                    && matches!(
                        self.peek_at(1),
                        None | Some(' ' | '\t' | '\n' | ';' | '&' | '|' | ')' | '<' | '>')
                    ) =>
                {
                    self.pos += 1;
                    return Ok(());
                }
                _ => {
                    let input = if piped { last_stage } else { None };
                    let index = self.parse_simple(context, input)?;
                    last_stage = index;
                    piped = false;
                }
            }
        }
    }

    /// Reads a word and checks that the cursor moved: a reader that consumed nothing would
    /// make every loop here spin, so that is refused rather than hanging (linear time).
    pub(super) fn read_word_advancing(&mut self) -> Result<(String, WordInfo), Unparseable> {
        let before = self.pos;
        let word = self.read_word()?;
        if self.pos == before {
            return self.fail("no progress reading a word");
        }
        Ok(word)
    }

    pub(super) fn nested(&mut self, term: Term, context: Nesting) -> Result<(), Unparseable> {
        self.depth += 1;
        let result = self.parse_list(term, context);
        self.depth -= 1;
        result
    }

    /// Redirections after `)` or `}` apply to the whole group; they become a word-less command
    /// so the checks see them.
    pub(super) fn group_redirections(&mut self, context: Nesting) -> Result<(), Unparseable> {
        let mut draft = Draft::default();
        loop {
            self.skip_blanks();
            if !self.try_redirect(&mut draft)? {
                break;
            }
        }
        if draft.start.is_some() {
            self.push(draft, context, None);
        }
        Ok(())
    }

    /// Parses one simple command; returns its index (None when it was only a function name).
    fn parse_simple(&mut self, context: Nesting, input: Option<usize>) -> Result<Option<usize>, Unparseable> {
        let mut draft = Draft::default();
        loop {
            self.skip_blanks();
            match self.peek() {
                None | Some('\n' | ';' | '|' | ')') => break,
                Some('&') if self.peek_at(1) != Some('>') => break,
                Some('#') => {
                    self.skip_comment();
                    break;
                }
                Some('(') => {
                    // `name()` starts a function definition; its body is the group that follows.
                    if draft.words.len() == 1 && draft.assignments.is_empty() && draft.redirections.is_empty() {
                        self.pos += 1;
                        self.skip_blanks();
                        if self.peek() != Some(')') {
                            return self.fail("unexpected (");
                        }
                        self.pos += 1;
                        self.expect_function_body()?;
                        // The name is not a command; keep its text accounted for.
                        if let Some(start) = draft.start {
                            let span = self.span(start..draft.end);
                            self.out.other_spans.push(span);
                        }
                        return Ok(None);
                    }
                    return self.fail("unexpected (");
                }
                _ => {}
            }
            if self.try_redirect(&mut draft)? {
                continue;
            }
            let start = self.offset();
            let (word, info) = self.read_word_advancing()?;
            let at_command_start = draft.start.is_none();
            draft.start.get_or_insert(start);
            draft.end = self.offset();
            if at_command_start && !info.quoted && RESERVED_WORDS.contains(&word.as_str()) {
                return self.reserved_word(&word, start, context).map(|()| None);
            }
            if at_command_start && !info.quoted && word == "[[" {
                return self.conditional(start, context).map(|()| None);
            }
            let (word, info) = if self.peek() == Some('(') && is_assignment(&info.pattern) && word.ends_with('=') {
                self.array_elements(word, info)?
            } else {
                (word, info)
            };
            draft.end = self.offset();
            if draft.words.is_empty() && is_assignment(&info.pattern) {
                draft.assignments.push(word);
            } else {
                draft.words.push(word);
                draft.word_info.push(info);
            }
        }
        if draft.start.is_none() {
            return self.fail("empty command");
        }
        Ok(Some(self.push(draft, context, input)))
    }

    /// A reserved word at the start of a command is syntax, not a command: what follows it
    /// starts a new command (so `if { rm x; }` and `time ( rm x )` are seen as groups).
    fn reserved_word(&mut self, word: &str, start: usize, context: Nesting) -> Result<(), Unparseable> {
        self.out.has_control_flow = true;
        match word {
            "case" => return self.case_command(start, context),
            "for" | "select" => return self.loop_header(word, start, context),
            "coproc" => self.coproc_name(context)?,
            // A group's `}` is read where the group ends; anywhere else bash reports a syntax error.
            "}" => return self.fail("unexpected }"),
            "function" => {
                self.skip_blanks();
                if self.at_word_end() {
                    return self.fail("function without a name");
                }
                self.read_word_advancing()?;
                self.skip_blanks();
                if self.peek() == Some('(') {
                    self.pos += 1;
                    self.skip_blanks();
                    if self.peek() != Some(')') {
                        return self.fail("unexpected (");
                    }
                    self.pos += 1;
                }
                self.expect_function_body()?;
            }
            "time" => {
                self.skip_blanks();
                if self.peek() == Some('-') && self.peek_at(1) == Some('p') {
                    self.pos += 2;
                    if !self.at_word_end() {
                        return self.fail("unexpected option after time");
                    }
                }
            }
            _ => {}
        }
        let span = self.span(start..self.offset());
        self.out.other_spans.push(span);
        Ok(())
    }

    /// `coproc [NAME] command`: the command that follows runs in the background, judged as any
    /// other. NAME is taken only before a `{ …; }` or `( … )` group, as bash does; bash assigns
    /// the array NAME and NAME_PID, so NAME is recorded as a variable assignment (`coproc PATH
    /// { :; }` would make PATH a descriptor number).
    fn coproc_name(&mut self, context: Nesting) -> Result<(), Unparseable> {
        self.out.has_background = true;
        self.skip_blanks();
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            self.pos += 1;
        }
        let name: String = self.chars[start..self.pos].iter().map(|(_, c)| *c).collect();
        let word_end = self.pos;
        self.skip_blanks();
        let group = matches!((self.peek(), self.peek_at(1)), (Some('{'), Some(' ' | '\t' | '\n')) | (Some('('), _));
        let named = !name.is_empty() && !name.starts_with(|c: char| c.is_ascii_digit());
        if !(group && named && matches!(self.chars.get(word_end), Some((_, ' ' | '\t')))) {
            // No NAME: what follows is the command itself.
            self.pos = start;
            return Ok(());
        }
        let (begin, end) = (self.offset_of_index(start), self.offset_of_index(word_end));
        let draft = Draft { assignments: vec![format!("{name}=")], start: Some(begin), end, ..Draft::default() };
        self.push(draft, context, None);
        Ok(())
    }

    /// A function body must follow its name: a `{ …; }` or `( … )` group (other compound
    /// commands are legal bash but refused here, failing closed).
    fn expect_function_body(&mut self) -> Result<(), Unparseable> {
        while matches!(self.peek(), Some(' ' | '\t' | '\n')) {
            self.pos += 1;
        }
        let group = matches!((self.peek(), self.peek_at(1)), (Some('{'), Some(' ' | '\t' | '\n')) | (Some('('), _));
        if !group {
            return self.fail("function without a { } or ( ) body");
        }
        self.out.has_group = true;
        Ok(())
    }

    pub(super) fn push(&mut self, draft: Draft, context: Nesting, input: Option<usize>) -> usize {
        let start = draft.start.unwrap_or(0);
        let index = self.out.subcommands.len();
        for (redirect, delimiter, strip_tabs, quoted) in draft.heredocs {
            self.pending.push(PendingHeredoc { command: index, redirect, delimiter, strip_tabs, quoted });
        }
        self.out.subcommands.push(SimpleCommand {
            assignments: draft.assignments,
            words: draft.words,
            word_info: draft.word_info,
            redirections: draft.redirections,
            raw: self.src.get(start..draft.end).unwrap_or_default().to_string(),
            span: self.span(start..draft.end),
            context,
            pipe_input_from: input,
            header: draft.header,
        });
        index
    }

    /// Reads a redirection at the cursor into `draft`; false when there is none.
    pub(super) fn try_redirect(&mut self, draft: &mut Draft) -> Result<bool, Unparseable> {
        let start = self.pos;
        let mut digits = String::new();
        while let Some(c) = self.peek().filter(char::is_ascii_digit) {
            digits.push(c);
            self.pos += 1;
        }
        let rest: String = self.chars[self.pos..].iter().take(3).map(|(_, c)| *c).collect();
        let (op, len) = if rest.starts_with("&>>") && digits.is_empty() {
            (RedirectOp::AppendBoth, 3)
        } else if rest.starts_with("&>") && digits.is_empty() {
            (RedirectOp::WriteBoth, 2)
        } else if rest.starts_with("<<<") {
            (RedirectOp::HereString, 3)
        } else if rest.starts_with("<<") {
            (RedirectOp::HereDoc { quoted: false }, if rest.starts_with("<<-") { 3 } else { 2 })
        } else if rest.starts_with("<(") || rest.starts_with(">(") {
            // A process substitution is a word, not a redirection.
            self.pos = start;
            return Ok(false);
        } else if rest.starts_with(">>") {
            (RedirectOp::Append, 2)
        } else if rest.starts_with(">|") {
            (RedirectOp::Clobber, 2)
        } else if rest.starts_with(">&") || rest.starts_with("<&") {
            (RedirectOp::Dup, 2)
        } else if rest.starts_with("<>") {
            (RedirectOp::ReadWrite, 2)
        } else if rest.starts_with('>') {
            (RedirectOp::Write, 1)
        } else if rest.starts_with('<') {
            (RedirectOp::Read, 1)
        } else {
            self.pos = start;
            return Ok(false);
        };
        let start_offset = self.chars.get(start).map_or(self.src.len(), |(offset, _)| *offset);
        self.pos += len;
        self.skip_blanks();
        // `bash < <(curl …)`: a process substitution is a word, so it can be the target.
        let process_substitution = matches!(self.peek(), Some('<' | '>')) && self.peek_at(1) == Some('(');
        if self.at_word_end() && !process_substitution {
            return self.fail("redirection without a target");
        }
        let (mut target, info) = self.read_word_advancing()?;
        let mut op = op;
        if op == RedirectOp::Dup && !(target == "-" || target.trim_end_matches('-').chars().all(|c| c.is_ascii_digit()))
        {
            // `>&file` (no fd number before it) is bash's old spelling of `&>file`.
            op = if rest.starts_with('>') { RedirectOp::WriteBoth } else { RedirectOp::Read };
        }
        if let RedirectOp::HereDoc { .. } = op {
            self.out.has_heredoc = true;
            let quoted = info.quoted;
            op = RedirectOp::HereDoc { quoted };
            draft.heredocs.push((draft.redirections.len(), std::mem::take(&mut target), len == 3, quoted));
        }
        if op == RedirectOp::HereString {
            self.out.has_heredoc = true;
        }
        draft.redirections.push(Redirect { fd: digits.parse().ok(), op, target, target_info: info });
        draft.start.get_or_insert(start_offset);
        draft.end = self.offset();
        Ok(true)
    }

    pub(super) fn merge(&mut self, inner: ParsedCommand) {
        let offset = self.out.subcommands.len();
        for mut command in inner.subcommands {
            command.pipe_input_from = command.pipe_input_from.map(|index| index + offset);
            self.out.subcommands.push(command);
        }
        self.out.has_substitution |= inner.has_substitution;
        self.out.has_expansion |= inner.has_expansion;
        self.out.has_group |= inner.has_group;
        self.out.has_background |= inner.has_background;
        self.out.has_heredoc |= inner.has_heredoc;
        self.out.has_control_flow |= inner.has_control_flow;
        self.out.other_spans.extend(inner.other_spans);
    }
}

/// True for `NAME=…`, `NAME+=…` and `NAME[…]=…` with an unquoted name.
fn is_assignment(pattern: &str) -> bool {
    let Some(eq) = pattern.find('=') else { return false };
    let name = pattern[..eq].trim_end_matches('+');
    let name = name.split('[').next().unwrap_or_default();
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}
