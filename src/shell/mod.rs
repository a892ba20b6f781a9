//! The bash reader: the one shell-aware lexer and splitter that the blacklist, the rules, the
//! read-only check and the prompts all use. It imports nothing from the crate.
//!
//! Invariant: it returns what bash would split, and what it cannot read is unknown. It reads a
//! bash command string the way bash would tokenise it (quotes, `$'…'`, escapes, operators,
//! groups, comments, here-docs, redirections, `$(…)`, backticks, `<(…)`) and returns every
//! simple command it contains, the ones inside substitutions included, so nothing that would
//! run is hidden from a check. It reads `case … esac`, `for`/`select` headers, `for ((…))`,
//! arithmetic commands `((…))` and array assignments `a=(…)`. Anything it does not understand
//! (an unbalanced quote or paren, a function without a `{ }`/`( )` body, nesting deeper than
//! [`MAX_DEPTH`]) is [`Unparseable`], never a guess, and callers then treat the command as
//! unknown (the blacklist scans the raw text, rules never allow it).
//!
//! It does not expand anything: `$HOME`, `~` and globs stay literal in the words and are
//! flagged in [`WordInfo`]; a `$NAME` is written back as `${NAME}` so quote removal cannot glue
//! it to the next text. Reserved words that start a command (`if`, `then`, `!`, `time`,
//! `function f`, …) are syntax, not words: what follows them starts a new command, so
//! `if { rm x; }` is seen as a group. Here-docs: the body is read after the next newline and
//! never parsed as commands of the outer script; an unquoted body's `$(…)` and backticks are
//! parsed (bash runs them), and the body text is kept as the redirect's `target` so a check can
//! treat it as a script when it is fed to a shell.
//!
//! - `mod.rs` — what the reader returns ([`ParsedCommand`] and its parts), [`parse_command`]
//! - `parser.rs` — recursive descent: lists, pipelines, groups, simple commands, redirections
//! - `lexer.rs` — words: quotes, escapes, `$'…'`, extended globs
//! - `substitution.rs` — what follows `$` or a backtick: expansions, arithmetic, substitutions
//! - `heredoc.rs` — here-doc bodies
//! - `compound.rs` — `case`, `for`/`select`, `((…))`, `[[ … ]]`, array assignments
//! - `tests.rs` — table tests of the splitting and the conservation property
//! - `reader_tests.rs` — corners of the reader that mutation testing found unpinned

use std::ops::Range;

/// Words that are syntax when they start a command (bash's reserved words that can precede
/// or close commands, and those that open `case`, `for` and `select`).
const RESERVED_WORDS: &[&str] = &[
    "if", "then", "else", "elif", "fi", "while", "until", "do", "done", "!", "time", "function", "coproc", "}", "case",
    "for", "select",
];

/// Nesting limit for substitutions and groups; deeper input is Unparseable instead of a stack
/// overflow (the parser is recursive).
pub(crate) const MAX_DEPTH: usize = 48;

/// A parsed command string: every simple command in it, and what kind of shell syntax was seen.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParsedCommand {
    /// Every simple command, substitution bodies included (an inner command comes before the
    /// command whose word contains it).
    pub subcommands: Vec<SimpleCommand>,
    /// `$(…)`, backticks or `${ …; }` somewhere (also inside double quotes, here-docs or
    /// arithmetic); process substitutions `<(…)`/`>(…)` are not counted here: their commands
    /// are in `subcommands` with `Nesting::ProcessSubstitution`.
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
pub enum Nesting {
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
    pub context: Nesting,
    /// The index in `subcommands` of the command whose stdout feeds this one through `|`.
    pub pipe_input_from: Option<usize>,
    /// Syntax kept as a command so it can be judged, not a program: a `for NAME in WORDS` or
    /// `select` header (words as written, keyword first) or an arithmetic command `((…))` /
    /// `for ((…))` (words `((` and the expression). No rule is needed to run it; what it
    /// assigns and evaluates is judged like the builtins that do the same.
    pub header: bool,
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
    pub(crate) fn names_file(self) -> bool {
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
    parser.parse_list(Term::Eof, Nesting::Script)?;
    parser.finish_heredocs()?;
    Ok(parser.out)
}

/// True when `text` holds something that runs a command once bash expands it: `$(`, a
/// backtick, or a bash 5.3 function substitution `${ …}` / `${|…}`.
pub(crate) fn code_marker(text: &str) -> bool {
    text.contains("$(")
        || text.contains('`')
        || ["${ ", "${\t", "${\n", "${|"].iter().any(|marker| text.contains(marker))
}

/// Every identifier in an arithmetic expression: any of them may be assigned (`x=1`, `x++`,
/// `x+=1`), and a variable's value is itself evaluated as an expression, so naming one is enough.
pub(crate) fn arithmetic_names(expression: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut current = String::new();
    let mut after_digit = false;
    for c in expression.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_alphanumeric() || c == '_' {
            if current.is_empty() && (c.is_ascii_digit() || after_digit) {
                // A number (`10`, `0x1f`, `64#zz`): its letters are digits, not names.
                after_digit = true;
                continue;
            }
            current.push(c);
        } else {
            after_digit = c == '#' && after_digit;
            if !current.is_empty() {
                names.push(std::mem::take(&mut current));
            }
        }
    }
    names
}

mod compound;
mod heredoc;
mod lexer;
mod parser;
mod substitution;
use parser::{Parser, Term};

#[cfg(test)]
mod tests;

#[cfg(test)]
mod reader_tests;
