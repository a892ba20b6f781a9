//! What the splitter flattens, read back from the syntax between simple commands: which commands
//! run in the background, which sit in a group or loop whose input is piped (`curl x | while read
//! l; do …; done`), the bodies of function definitions, and loops with their condition and body.
//!
//! Invariant: it reads only the text between the spans of the script's own commands (comments
//! and here-doc bodies removed), so it never re-lexes words; what it cannot pair (a stray
//! closer, a `case` pattern's parenthesis) is skipped, and every construct still open at the end
//! is closed there. It answers structural questions for the blacklist (fork bombs, network data
//! piped into a group); it decides nothing itself.

use crate::shell::{Nesting, ParsedCommand};
use std::ops::Range;

/// What a construct is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// `{ …; }` or `( … )`.
    Group,
    /// `while`/`until` (condition commands, then `do` … `done`), or `for`/`select` (a header).
    Loop { until: bool, arithmetic_for: bool },
    /// `if` … `fi`, `case` … `esac`.
    Conditional,
}

/// One compound construct of the script.
#[derive(Clone, Debug)]
pub(super) struct Construct {
    pub(super) kind: Kind,
    /// The function this construct is the body of (`f() { … }`, `function f { … }`).
    pub(super) function: Option<String>,
    /// Indices (into the parsed subcommands) of the commands inside, in order.
    pub(super) commands: Vec<usize>,
    /// For a loop: the commands of its body (after `do`); the others are its condition.
    pub(super) body: Vec<usize>,
    /// Commands whose output is piped into the whole construct.
    pub(super) fed_by: Vec<usize>,
}

/// The structure of one parsed script.
#[derive(Clone, Debug, Default)]
pub(super) struct Structure {
    pub(super) constructs: Vec<Construct>,
    /// Per subcommand: put in the background by `&` (itself, or a list or group containing it).
    pub(super) background: Vec<bool>,
    /// Per subcommand: commands whose output reaches it through a `|` the parser did not record
    /// (the command follows a group: `{ curl x; } | sh`).
    pub(super) piped_from: Vec<Vec<usize>>,
}

impl Structure {
    /// Commands whose output a construct containing `index` is fed with.
    pub(super) fn group_input(&self, index: usize) -> Vec<usize> {
        self.constructs
            .iter()
            .filter(|construct| construct.commands.contains(&index))
            .flat_map(|construct| construct.fed_by.iter().copied())
            .collect()
    }

    /// True when the command is backgrounded or is a stage of a pipeline.
    pub(super) fn runs_concurrently(&self, parsed: &ParsedCommand, index: usize) -> bool {
        self.background.get(index).copied().unwrap_or(false)
            || parsed.subcommands.get(index).is_some_and(|command| command.pipe_input_from.is_some())
            || parsed.subcommands.iter().any(|command| command.pipe_input_from == Some(index))
            || self.piped_from.get(index).is_some_and(|from| !from.is_empty())
            || self.piped_from.iter().any(|from| from.contains(&index))
            || self
                .constructs
                .iter()
                .any(|construct| construct.commands.contains(&index) && !construct.fed_by.is_empty())
    }
}

/// One token of the syntax between commands.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    /// `&` alone (not `&&`, `&>`).
    Background,
    /// `|` or `|&`.
    Pipe,
    /// `;`, `&&`, `||`, `;;`, a newline.
    Separator,
    Open(char),
    Close(char),
    Word(String),
}

/// An open construct while reading.
struct Open {
    construct: usize,
    /// What closes it: `}` `)` `done` `fi` `esac`.
    closer: &'static str,
    /// The first command of the list it belongs to, for `&` after it.
    list_start: usize,
    /// A loop's `do` was read: the commands that follow are its body.
    in_body: bool,
}

/// Reads the structure of `parsed`, whose commands were parsed from `source`.
pub(super) fn read_structure(source: &str, parsed: &ParsedCommand) -> Structure {
    let count = parsed.subcommands.len();
    let mut structure =
        Structure { constructs: Vec::new(), background: vec![false; count], piped_from: vec![Vec::new(); count] };
    let own: Vec<usize> = (0..count).filter(|index| parsed.subcommands[*index].context == Nesting::Script).collect();
    let mut stack: Vec<Open> = Vec::new();
    // The commands since the last list separator at this level (`a && b &` backgrounds both).
    let mut list_start = 0usize;
    // The commands of the unit that just ended (a command, or a closed construct).
    let mut last_unit: Vec<usize> = Vec::new();
    let mut pending_pipe: Vec<usize> = Vec::new();
    let mut pending_function: Option<String> = None;
    let mut position = 0usize;
    for slot in 0..=own.len() {
        let next = own.get(slot).copied();
        let gap_end = next.map_or(source.len(), |index| parsed.subcommands[index].span.start);
        let gap = gap_text(source, position, gap_end, &parsed.other_spans);
        let tokens = tokenize(&gap);
        let mut previous_word: Option<String> = None;
        for (token_index, token) in tokens.iter().enumerate() {
            match token {
                Token::Background => {
                    let first = list_start.min(last_unit.first().copied().unwrap_or(list_start));
                    let last = last_unit.last().copied().unwrap_or(first);
                    for index in own.iter().copied().filter(|index| (first..=last).contains(index)) {
                        structure.background[index] = true;
                    }
                    list_start = next.unwrap_or(count);
                    pending_pipe.clear();
                }
                Token::Pipe => pending_pipe = last_unit.clone(),
                Token::Separator => {
                    pending_pipe.clear();
                    list_start = next.unwrap_or(count);
                }
                Token::Open(bracket) => {
                    // `f ( ) {`: a word, then `(` `)`, then the body.
                    if *bracket == '(' && tokens.get(token_index + 1) == Some(&Token::Close(')')) {
                        pending_function = previous_word.take();
                        continue;
                    }
                    if stack.last().is_some_and(|open| open.closer == "esac") {
                        continue;
                    }
                    let closer = if *bracket == '{' { "}" } else { ")" };
                    open_construct(
                        &mut structure,
                        &mut stack,
                        Kind::Group,
                        closer,
                        &mut pending_pipe,
                        &mut pending_function,
                        list_start,
                    );
                }
                Token::Close(bracket) => {
                    let empty_parens = token_index > 0 && tokens[token_index - 1] == Token::Open('(');
                    if *bracket == ')' && empty_parens || stack.last().is_some_and(|open| open.closer == "esac") {
                        continue;
                    }
                    let closer = if *bracket == '}' { "}" } else { ")" };
                    if let Some(unit) = close_construct(&structure, &mut stack, closer) {
                        list_start = stack.last().map_or(list_start, |open| open.list_start).min(list_start);
                        last_unit = unit;
                    }
                }
                Token::Word(word) => {
                    match word.as_str() {
                        "while" | "until" => open_construct(
                            &mut structure,
                            &mut stack,
                            Kind::Loop { until: word == "until", arithmetic_for: false },
                            "done",
                            &mut pending_pipe,
                            &mut pending_function,
                            list_start,
                        ),
                        "for" | "select" => open_construct(
                            &mut structure,
                            &mut stack,
                            Kind::Loop {
                                until: false,
                                arithmetic_for: next.is_some_and(|index| {
                                    parsed.subcommands[index].words.first().is_some_and(|first| first == "((")
                                }),
                            },
                            "done",
                            &mut pending_pipe,
                            &mut pending_function,
                            list_start,
                        ),
                        "if" => open_construct(
                            &mut structure,
                            &mut stack,
                            Kind::Conditional,
                            "fi",
                            &mut pending_pipe,
                            &mut pending_function,
                            list_start,
                        ),
                        "do" => {
                            if let Some(open) = stack.last_mut() {
                                open.in_body = true;
                            }
                        }
                        "done" | "fi" | "esac" => {
                            if let Some(unit) = close_construct(&structure, &mut stack, word_closer(word)) {
                                last_unit = unit;
                            }
                        }
                        "function" => {
                            pending_function = tokens.get(token_index + 1).and_then(|token| match token {
                                Token::Word(name) => Some(name.clone()),
                                _ => None,
                            });
                        }
                        _ => {}
                    }
                    previous_word = Some(word.clone());
                    continue;
                }
            }
            previous_word = None;
        }
        let Some(index) = next else { break };
        let command = &parsed.subcommands[index];
        // A `case WORD` header opens the construct its patterns and bodies belong to.
        // A `case WORD` or `for NAME in …` header opens its construct (`for ((…))` was opened
        // by the `for` in the gap).
        if command.header && command.raw.starts_with("case") && command.words.first().is_some_and(|word| word == "case")
        {
            open_construct(
                &mut structure,
                &mut stack,
                Kind::Conditional,
                "esac",
                &mut pending_pipe,
                &mut pending_function,
                list_start,
            );
        }
        if command.header && command.words.first().is_some_and(|word| word == "for" || word == "select") {
            let kind = Kind::Loop { until: false, arithmetic_for: false };
            open_construct(
                &mut structure,
                &mut stack,
                kind,
                "done",
                &mut pending_pipe,
                &mut pending_function,
                list_start,
            );
        }
        if !pending_pipe.is_empty() && command.pipe_input_from.is_none() {
            structure.piped_from[index] = std::mem::take(&mut pending_pipe);
        }
        pending_pipe.clear();
        for open in &stack {
            let construct = &mut structure.constructs[open.construct];
            construct.commands.push(index);
            if open.in_body || !matches!(construct.kind, Kind::Loop { .. }) {
                construct.body.push(index);
            }
        }
        last_unit = vec![index];
        position = command.span.end;
    }
    structure
}

fn word_closer(word: &str) -> &'static str {
    match word {
        "done" => "done",
        "fi" => "fi",
        _ => "esac",
    }
}

fn open_construct(
    structure: &mut Structure,
    stack: &mut Vec<Open>,
    kind: Kind,
    closer: &'static str,
    pending_pipe: &mut Vec<usize>,
    pending_function: &mut Option<String>,
    list_start: usize,
) {
    structure.constructs.push(Construct {
        kind,
        function: pending_function.take(),
        commands: Vec::new(),
        body: Vec::new(),
        fed_by: std::mem::take(pending_pipe),
    });
    stack.push(Open { construct: structure.constructs.len() - 1, closer, list_start, in_body: false });
}

/// Closes the innermost construct `closer` ends (and any unclosed ones inside it); returns the
/// commands of the closed construct.
fn close_construct(structure: &Structure, stack: &mut Vec<Open>, closer: &str) -> Option<Vec<usize>> {
    let position = stack.iter().rposition(|open| open.closer == closer)?;
    let construct = stack[position].construct;
    stack.truncate(position);
    Some(structure.constructs[construct].commands.clone())
}

/// The text of `source[start..end]` with comment and here-doc spans blanked (the parser's other
/// spans also hold reserved words and function names, which are kept).
fn gap_text(source: &str, start: usize, end: usize, other_spans: &[Range<usize>]) -> String {
    let Some(text) = source.get(start..end.max(start)) else { return String::new() };
    let mut out: String = text.to_string();
    let blanked = other_spans.iter().filter(|span| {
        source.get(span.start..span.end).is_some_and(|text| text.starts_with('#') || text.contains('\n'))
    });
    for span in blanked {
        let from = span.start.max(start);
        let to = span.end.min(end);
        if from < to
            && let Some(range) = out.get(from - start..to - start).map(|blank| (from - start, blank.len()))
        {
            out.replace_range(range.0..range.0 + range.1, &"\n".repeat(range.1));
        }
    }
    out
}

fn tokenize(gap: &str) -> Vec<Token> {
    let chars: Vec<char> = gap.chars().collect();
    let mut tokens = Vec::new();
    let mut index = 0;
    while let Some(&c) = chars.get(index) {
        let next = chars.get(index + 1).copied();
        index += 1;
        match c {
            '&' if next == Some('&') => {
                tokens.push(Token::Separator);
                index += 1;
            }
            '&' if next == Some('>') => index += 1,
            '&' => tokens.push(Token::Background),
            '|' if next == Some('|') => {
                tokens.push(Token::Separator);
                index += 1;
            }
            '|' => {
                if next == Some('&') {
                    index += 1;
                }
                tokens.push(Token::Pipe);
            }
            ';' | '\n' => tokens.push(Token::Separator),
            '{' | '(' => tokens.push(Token::Open(c)),
            '}' | ')' => tokens.push(Token::Close(c)),
            c if c.is_whitespace() => {}
            _ => {
                let start = index - 1;
                while chars.get(index).is_some_and(|c| !c.is_whitespace() && !"&|;(){}\n".contains(*c)) {
                    index += 1;
                }
                tokens.push(Token::Word(chars[start..index].iter().collect()));
            }
        }
    }
    tokens
}
