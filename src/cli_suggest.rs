//! What an unknown flag or a misspelt command most likely meant: the flags of the agents users
//! come from and mewcode's names for them, and the nearest word by edit distance.
//!
//! Invariant: pure (words in, a message or a word out), like `cli.rs`, whose usage errors use it.

use crate::cli::SUBCOMMANDS;

/// Flags of the agents users come from, and what mewcode calls the same thing.
const KNOWN_ELSEWHERE: &[(&str, &str)] = &[
    ("--max-turns", "--max-iterations N"),
    ("--permission-mode", "--mode MODE"),
    ("--dangerously-skip-permissions", "--mode bypass"),
    ("--yolo", "--mode bypass"),
    ("--dangerously-bypass-approvals-and-sandbox", "--mode bypass"),
    ("--full-auto", "--mode acceptEdits"),
    ("--cd", "-C DIR"),
    ("-m", "--model MODEL"),
    ("--system-prompt", "--append-system-prompt TEXT (the built-in prompt stays)"),
    ("--debug", "doctor (config, warnings, provider reachability)"),
];

/// The usage error of an unknown flag: mewcode's name for a flag other agents have, or the
/// flag of `help` (the `--help` text) it most likely misspells.
pub(crate) fn unknown_flag(flag: &str, help: &str) -> String {
    if let Some((_, ours)) = KNOWN_ELSEWHERE.iter().find(|(theirs, _)| *theirs == flag) {
        return format!("unknown flag {flag}; mewcode's is {ours}");
    }
    let ours = help.split_whitespace().filter(|word| word.starts_with("--") && word.len() > 3);
    let closest = ours.map(|word| word.trim_end_matches(',')).min_by_key(|word| distance(word, flag));
    match closest {
        Some(word) if distance(word, flag) <= 2 => format!("unknown flag {flag} (did you mean {word}?)"),
        _ => format!("unknown flag {flag}"),
    }
}

/// The subcommand a one-word first argument most likely misspells (at most two edits away).
pub(crate) fn near_subcommand(word: &str) -> Option<&'static str> {
    if word.contains(char::is_whitespace) {
        return None;
    }
    SUBCOMMANDS.iter().copied().find(|command| distance(command, word) <= 2)
}

/// The edit distance between two words (Levenshtein, by characters).
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diagonal + usize::from(ca != *cb)).min(row[j] + 1).min(above + 1);
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
#[path = "cli_suggest_tests.rs"]
mod tests;
