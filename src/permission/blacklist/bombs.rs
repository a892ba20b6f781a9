//! The process-count family of the blacklist: anything that multiplies processes without
//! bound, recognised by its shape rather than its spelling — a function that calls itself in
//! the background or in a pipeline (`:(){ :|:& };:` under any name, `$FUNCNAME` included), a
//! script that starts itself again concurrently (`bash $0 & bash $0`), an endless loop whose
//! body leaves a process running on each turn (`while true; do x & done`, `for ((;;))`), an
//! endless input fanned out to unlimited parallel jobs (`yes | xargs -P0 …`), and inline code
//! that forks inside an endless loop (`perl -e 'fork while 1'`, Python's `while True:
//! os.fork()`).
//!
//! Invariant: a loop counts as endless only when its condition is a constant truth (`true`,
//! `:`, `[ 1 ]`, `((1))`, an empty `for ((;;))` condition, `until false`), and it is spared when
//! its body waits or leaves (`wait`, `break`, `exit`, `return`) — `while true; do make & wait;
//! done` is ordinary work. Shapes are read from the structure (`structure.rs`), so words in quotes
//! (`echo ':(){ :|:& };:'`) are text, not a bomb. The raw-text scan is kept only for commands
//! the splitter cannot parse.

use super::structure::{Kind, Structure};
use super::{BlacklistHit, Family, MaybeMatch, hit};
use crate::command::wrappers;
use crate::shell::{ParsedCommand, SimpleCommand};
use regex::Regex;
use std::sync::LazyLock;

/// Checks one parsed script (`source` is its text, named in the reason for the shapes that span
/// several commands) for the shapes above.
pub(super) fn check_bombs(source: &str, parsed: &ParsedCommand, structure: &Structure) -> Option<BlacklistHit> {
    let commands = &parsed.subcommands;
    for construct in &structure.constructs {
        if let Some(name) = &construct.function {
            let recursive = construct.commands.iter().copied().find(|index| {
                commands[*index].words.first().is_some_and(|word| calls_function(word, name))
                    && structure.runs_concurrently(parsed, *index)
            });
            if recursive.is_some() {
                return hit(Family::ForkBomb, source);
            }
        }
        if let Kind::Loop { until, arithmetic_for } = construct.kind
            && endless(construct, commands, until, arithmetic_for)
            && construct.body.iter().any(|index| structure.background[*index])
            && !construct.body.iter().any(|index| leaves_or_waits(&commands[*index]))
        {
            return hit(Family::ForkBomb, source);
        }
    }
    for (index, command) in commands.iter().enumerate() {
        let effective = wrappers::unwrap_command(&command.words);
        if runs_itself(&effective.words) && structure.runs_concurrently(parsed, index) {
            return hit(Family::ForkBomb, &command.raw);
        }
        if unbounded_fan_out(command, commands) {
            return hit(Family::ForkBomb, &command.raw);
        }
        let program = effective.words.first().map(|word| wrappers::program_name(word)).unwrap_or_default();
        if wrappers::is_interpreter(program) && effective.words[1..].iter().any(|code| forks_forever(code)) {
            return hit(Family::ForkBomb, &command.raw);
        }
    }
    None
}

/// `f`, `$FUNCNAME`, `${FUNCNAME[0]}` inside the body of `f`.
fn calls_function(word: &str, name: &str) -> bool {
    word == name || matches!(word, "${FUNCNAME}" | "${FUNCNAME[0]}" | "$FUNCNAME")
}

/// `$0` run as a program, or as the script of a shell (`bash "$0"`).
fn runs_itself(words: &[String]) -> bool {
    let is_self = |word: &String| matches!(word.as_str(), "${0}" | "$0");
    let Some(program) = words.first() else { return false };
    if is_self(program) {
        return true;
    }
    wrappers::SHELLS.contains(&wrappers::program_name(program))
        && words[1..].iter().find(|arg| !arg.starts_with('-')).is_some_and(is_self)
}

/// The loop's condition is a constant truth (for `until`, a constant falsehood).
fn endless(
    construct: &super::structure::Construct,
    commands: &[SimpleCommand],
    until: bool,
    arithmetic_for: bool,
) -> bool {
    let condition: Vec<&SimpleCommand> = construct
        .commands
        .iter()
        .filter(|index| !construct.body.contains(index))
        .map(|index| &commands[*index])
        .collect();
    if arithmetic_for {
        // `for ((init; cond; step))`: an empty or non-zero constant condition never ends.
        return condition.first().and_then(|header| header.words.get(1)).is_some_and(|expression| {
            let parts: Vec<&str> = expression.split(';').collect();
            parts.get(1).is_some_and(|cond| cond.trim().is_empty() || is_nonzero_constant(cond))
        });
    }
    let Some(last) = condition.last() else { return false };
    let words: Vec<&str> = last.words.iter().map(String::as_str).collect();
    let truth = match words.as_slice() {
        [program] => matches!(wrappers::program_name(program), "true" | ":"),
        ["[", operand, "]"] | ["test", operand] | ["[[", operand, "]]"] => !operand.is_empty(),
        ["((", expression] => is_nonzero_constant(expression),
        _ => false,
    };
    let falsehood = matches!(words.as_slice(), [program] if wrappers::program_name(program) == "false");
    if until { falsehood } else { truth }
}

fn is_nonzero_constant(text: &str) -> bool {
    let text = text.trim();
    text.parse::<i64>().is_ok_and(|value| value != 0)
}

/// A body command that waits for the jobs it started or leaves the loop.
fn leaves_or_waits(command: &SimpleCommand) -> bool {
    command.words.first().is_some_and(|word| matches!(word.as_str(), "wait" | "break" | "exit" | "return"))
}

/// `xargs -P0` / `parallel -j0` (no limit on parallel jobs) fed by an endless input (`yes`,
/// `/dev/zero`, `/dev/urandom`, `seq inf`).
fn unbounded_fan_out(command: &SimpleCommand, all: &[SimpleCommand]) -> bool {
    let words = &command.words;
    let program = words.first().map(|word| wrappers::program_name(word)).unwrap_or_default();
    let unlimited = match program {
        "xargs" => option_is_zero(words, &["-P"], &["--max-procs"]),
        "parallel" => option_is_zero(words, &["-j", "-P"], &["--jobs", "--max-procs"]),
        _ => false,
    };
    if !unlimited {
        return false;
    }
    let endless_file = |text: &str| matches!(text, "/dev/zero" | "/dev/urandom" | "/dev/random");
    if command.redirections.iter().any(|redirect| endless_file(&redirect.target)) {
        return true;
    }
    let Some(stage) = command.pipe_input_from.and_then(|index| all.get(index)) else { return false };
    let stage_words = wrappers::unwrap_command(&stage.words).words;
    let stage_program = stage_words.first().map(|word| wrappers::program_name(word)).unwrap_or_default();
    stage_program == "yes"
        || stage_words.iter().any(|word| endless_file(word))
        || stage.redirections.iter().any(|redirect| endless_file(&redirect.target))
        || (stage_program == "seq" && stage_words.iter().any(|word| word.eq_ignore_ascii_case("inf")))
}

/// `-P0`, `-P 0`, `--max-procs=0`, `--max-procs 0` (also `0%` for parallel's percentages).
fn option_is_zero(words: &[String], short: &[&str], long: &[&str]) -> bool {
    let zero = |value: &str| matches!(value, "0" | "0%");
    words.iter().enumerate().any(|(index, word)| {
        let next = words.get(index + 1).map(String::as_str).unwrap_or_default();
        short.iter().any(|flag| word == flag && zero(next) || word.strip_prefix(flag).is_some_and(zero))
            || long.iter().any(|flag| {
                word == flag && zero(next)
                    || word.strip_prefix(flag).and_then(|rest| rest.strip_prefix('=')).is_some_and(zero)
            })
    })
}

/// A fork primitive of Perl, Python, Ruby, PHP or Node.
static FORK_CALL: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"\bfork\b|\bpcntl_fork\b|\bforkpty\b|\bPopen\b|\bspawn(?:Sync)?\b").ok());

/// An endless loop: `while 1`, `while True`, `while(true)`, `for(;;)`, Ruby's `loop`, Perl's
/// statement modifiers `fork while 1` / `1 while fork` / `fork until 0`.
static ENDLESS_LOOP: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(concat!(
        r"\bwhile\s*\(?\s*(?:1|[Tt]rue|TRUE|fork\b[^)]*|os\.fork\(\))\s*\)?\s*[:{;\n]?",
        r"|\bfor\s*\(\s*;\s*;\s*\)|\bloop\s*(?:\{|do\b)|\buntil\s*\(?\s*(?:0|false)\b|\bfork\s+while\b",
    ))
    .ok()
});

/// Leaving a loop or waiting for children.
static LEAVES: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"\b(?:break|last|exit|return|wait|waitpid|join)\b").ok());

/// Inline code that forks inside an endless loop and never leaves it.
fn forks_forever(code: &str) -> bool {
    FORK_CALL.is_match(code) && ENDLESS_LOOP.is_match(code) && !LEAVES.is_match(code)
}
