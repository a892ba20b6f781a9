//! The one shell-aware lexer and splitter that the blacklist, the rules and the prompts all use.
//!
//! It reads a bash command string the way bash would tokenise it (quotes, `$'…'`, escapes,
//! operators, groups, comments, here-docs, redirections, `$(…)`, backticks, `<(…)`) and returns
//! every simple command it contains, the ones inside substitutions included, so nothing that
//! would run is hidden from a check. Invariant: it fails closed — anything it does not
//! understand (an unbalanced quote or paren, `case`'s `;;`, an array assignment, nesting deeper
//! than [`MAX_DEPTH`]) is [`Unparseable`], and callers then treat the command as unknown (the
//! blacklist scans the raw text, rules never allow it). It does not expand anything: `$HOME`,
//! `~` and globs stay literal in the words and are flagged in [`WordInfo`].
//!
//! Here-docs: the body is read after the next newline and never parsed as commands of the
//! outer script; an unquoted body's `$(…)` and backticks are parsed (bash runs them), and the
//! body text is kept as the redirect's `target` so a check can treat it as a script when it is
//! fed to a shell.

use std::ops::Range;

/// Words that are syntax when they start a command (bash's reserved words that can precede
/// or close commands; `for`/`select`/`case` headers are kept as words, and `case` bodies are
/// refused at `;;`).
const RESERVED_WORDS: &[&str] =
    &["if", "then", "else", "elif", "fi", "while", "until", "do", "done", "!", "time", "function", "coproc", "}"];

/// Nesting limit for substitutions and groups; deeper input is Unparseable instead of a stack
/// overflow (the parser is recursive).
pub const MAX_DEPTH: usize = 48;

/// A parsed command string: every simple command in it, and what kind of shell syntax was seen.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParsedCommand {
    /// Every simple command, substitution bodies included (an inner command comes before the
    /// command whose word contains it).
    pub subcommands: Vec<SimpleCommand>,
    /// `$(…)`, backticks, or `<(…)`/`>(…)` somewhere (also inside double quotes or here-docs).
    pub has_substitution: bool,
    /// A parameter or arithmetic expansion (`$X`, `${X}`, `$((…))`) somewhere.
    pub has_expansion: bool,
    /// A `( … )` subshell, a `{ …; }` group or a function definition.
    pub has_group: bool,
    /// A command put in the background with `&`.
    pub has_background: bool,
    /// A here-doc or here-string.
    pub has_heredoc: bool,
    /// A reserved word (`if`, `while`, `!`, `time`, `function`, …) started a command.
    pub has_control_flow: bool,
    /// Byte ranges of the input that belong to no simple command but are not separators:
    /// comments and here-doc bodies.
    pub other_spans: Vec<Range<usize>>,
}

/// Where a simple command sits in the script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Context {
    /// A command of the script itself (or of a `( )` / `{ }` group in it).
    Script,
    /// Inside `$(…)` or backticks.
    Substitution,
    /// Inside `<(…)` or `>(…)`.
    ProcessSubstitution,
}

/// One simple command: assignments, words and redirections, as bash would see them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimpleCommand {
    /// `NAME=value` prefixes, quote-removed (`FOO=1` in `FOO=1 make`).
    pub assignments: Vec<String>,
    /// The words after quote removal; `$X`, `~` and globs are kept literally.
    pub words: Vec<String>,
    /// One entry per word, same order.
    pub word_info: Vec<WordInfo>,
    pub redirections: Vec<Redirect>,
    /// The command's own text, exactly as written.
    pub raw: String,
    /// Where `raw` sits in the input (for commands parsed out of backticks: the whole
    /// backtick region, because their text was unescaped first).
    pub span: Range<usize>,
    pub context: Context,
    /// The index in `subcommands` of the command whose stdout feeds this one through `|`.
    pub pipe_input_from: Option<usize>,
}

/// What quote removal hid about a word.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WordInfo {
    /// Part of the word was quoted or escaped.
    pub quoted: bool,
    /// The word contains an unquoted or double-quoted `$X`, `${…}`, `$((…))`.
    pub expansion: bool,
    /// The word contains `$(…)`, backticks or a process substitution.
    pub substitution: bool,
    /// The word contains an unquoted `*`, `?` or `[` (a pathname glob).
    pub glob: bool,
    /// The word contains an unquoted `{` (possible brace expansion).
    pub brace: bool,
    /// The word with its quoted characters among `\*?[]{},` backslash-escaped, so glob and
    /// brace syntax can be told from literal text after quote removal.
    pub pattern: String,
}

/// One redirection and its target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Redirect {
    /// The explicit fd number (`2` in `2>`), if written.
    pub fd: Option<u32>,
    pub op: RedirectOp,
    /// The target word after quote removal; for a here-doc the body, for a here-string the word.
    pub target: String,
    pub target_info: WordInfo,
}

/// The redirection operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedirectOp {
    /// `>`
    Write,
    /// `>>`
    Append,
    /// `>|` (the clobber operator: writes even under `set -o noclobber`)
    Clobber,
    /// `&>` and `>&file`
    WriteBoth,
    /// `&>>`
    AppendBoth,
    /// `<`
    Read,
    /// `<>`
    ReadWrite,
    /// `>&N`, `<&N`, `>&-`: an fd duplication or close, touching no file.
    Dup,
    /// `<<` and `<<-`; `quoted` delimiters disable expansion in the body.
    HereDoc { quoted: bool },
    /// `<<<`
    HereString,
}

impl RedirectOp {
    /// True when the operator can create or change the target file.
    pub fn writes(self) -> bool {
        matches!(self, RedirectOp::Write | RedirectOp::Append | RedirectOp::Clobber | RedirectOp::WriteBoth)
            || matches!(self, RedirectOp::AppendBoth | RedirectOp::ReadWrite)
    }

    /// True when the target names a file (not an fd, a here-doc body or a here-string).
    pub fn names_file(self) -> bool {
        !matches!(self, RedirectOp::Dup | RedirectOp::HereDoc { .. } | RedirectOp::HereString)
    }
}

/// Why a command could not be parsed; callers treat it as unknown (fail closed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unparseable {
    pub reason: String,
    /// Byte offset in the input where the parser gave up.
    pub offset: usize,
}

impl std::fmt::Display for Unparseable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot parse command at byte {}: {}", self.offset, self.reason)
    }
}

/// Parses a bash command string into its simple commands; see the module doc for what fails.
pub fn parse_command(src: &str) -> Result<ParsedCommand, Unparseable> {
    let mut parser = Parser::new(src, 0);
    parser.parse_list(Term::Eof, Context::Script)?;
    parser.finish_heredocs()?;
    Ok(parser.out)
}

/// What closes the list being parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Term {
    Eof,
    Paren,
    Brace,
}

struct PendingHeredoc {
    command: usize,
    redirect: usize,
    delimiter: String,
    strip_tabs: bool,
    quoted: bool,
}

/// A simple command being assembled.
#[derive(Default)]
struct Draft {
    assignments: Vec<String>,
    words: Vec<String>,
    word_info: Vec<WordInfo>,
    redirections: Vec<Redirect>,
    heredocs: Vec<(usize, String, bool, bool)>,
    start: Option<usize>,
    end: usize,
}

struct Parser<'a> {
    src: &'a str,
    chars: Vec<(usize, char)>,
    pos: usize,
    depth: usize,
    out: ParsedCommand,
    pending: Vec<PendingHeredoc>,
    /// Added to every recorded span (nonzero for a backtick body parsed on its own).
    base: usize,
    /// When set, every span is replaced by this one (backtick bodies: their text was unescaped).
    span_override: Option<Range<usize>>,
}

impl<'a> Parser<'a> {
    fn new(src: &'a str, depth: usize) -> Parser<'a> {
        Parser {
            src,
            chars: src.char_indices().collect(),
            pos: 0,
            depth,
            out: ParsedCommand::default(),
            pending: Vec::new(),
            base: 0,
            span_override: None,
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).map(|(_, c)| *c)
    }

    fn peek_at(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).map(|(_, c)| *c)
    }

    fn offset(&self) -> usize {
        self.chars.get(self.pos).map_or(self.src.len(), |(offset, _)| *offset)
    }

    fn fail<T>(&self, reason: &str) -> Result<T, Unparseable> {
        Err(Unparseable { reason: reason.to_string(), offset: self.base + self.offset() })
    }

    fn span(&self, range: Range<usize>) -> Range<usize> {
        match &self.span_override {
            Some(span) => span.clone(),
            None => self.base + range.start..self.base + range.end,
        }
    }

    /// Skips spaces, tabs and backslash-newline continuations.
    fn skip_blanks(&mut self) {
        loop {
            match (self.peek(), self.peek_at(1)) {
                (Some(' ' | '\t'), _) => self.pos += 1,
                (Some('\\'), Some('\n')) => self.pos += 2,
                _ => return,
            }
        }
    }

    fn skip_comment(&mut self) {
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
    fn at_word_end(&self) -> bool {
        matches!(self.peek(), None | Some(' ' | '\t' | '\n' | ';' | '&' | '|' | '<' | '>' | '(' | ')'))
    }

    fn parse_list(&mut self, term: Term, context: Context) -> Result<(), Unparseable> {
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

    fn nested(&mut self, term: Term, context: Context) -> Result<(), Unparseable> {
        self.depth += 1;
        let result = self.parse_list(term, context);
        self.depth -= 1;
        result
    }

    /// Redirections after `)` or `}` apply to the whole group; they become a word-less command
    /// so the checks see them.
    fn group_redirections(&mut self, context: Context) -> Result<(), Unparseable> {
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
    fn parse_simple(&mut self, context: Context, input: Option<usize>) -> Result<Option<usize>, Unparseable> {
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
                        self.out.has_group = true;
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
            let (word, info) = self.read_word()?;
            let at_command_start = draft.start.is_none();
            draft.start.get_or_insert(start);
            draft.end = self.offset();
            if at_command_start && !info.quoted && RESERVED_WORDS.contains(&word.as_str()) {
                return self.reserved_word(&word, start).map(|()| None);
            }
            if self.peek() == Some('(') && is_assignment(&info.pattern) && word.ends_with('=') {
                return self.fail("array assignment is not supported");
            }
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
    fn reserved_word(&mut self, word: &str, start: usize) -> Result<(), Unparseable> {
        self.out.has_control_flow = true;
        match word {
            "coproc" => return self.fail("coproc is not supported"),
            "function" => {
                self.skip_blanks();
                if self.at_word_end() {
                    return self.fail("function without a name");
                }
                self.read_word()?;
                self.skip_blanks();
                if self.peek() == Some('(') {
                    self.pos += 1;
                    self.skip_blanks();
                    if self.peek() != Some(')') {
                        return self.fail("unexpected (");
                    }
                    self.pos += 1;
                }
                self.out.has_group = true;
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

    fn push(&mut self, draft: Draft, context: Context, input: Option<usize>) -> usize {
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
        });
        index
    }

    /// Reads a redirection at the cursor into `draft`; false when there is none.
    fn try_redirect(&mut self, draft: &mut Draft) -> Result<bool, Unparseable> {
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
        if self.at_word_end() {
            return self.fail("redirection without a target");
        }
        let (mut target, info) = self.read_word()?;
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

    fn merge(&mut self, inner: ParsedCommand) {
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

#[path = "lexer.rs"]
mod lexer;

#[path = "heredoc.rs"]
mod heredoc;

#[cfg(test)]
#[path = "shell_tests.rs"]
mod tests;
