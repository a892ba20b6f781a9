//! Scripts the blacklist assembles from several parts of one command line: text echoed into a
//! shell or `xargs`, files written or downloaded and then run, `$(echo …)` used as an argument.
//!
//! Invariant: only literal text the command line itself supplies is followed (echo/printf
//! arguments, here-doc bodies, download targets); what a program would print at run time is
//! unknown and left alone.

use super::{BlacklistHit, DOWNLOADER, Family, MaybeMatch, check_script, hit};
use crate::command::normalize;
use crate::command::wrappers::{self, SHELLS, is_interpreter};
use crate::shell::{self, RedirectOp, SimpleCommand};

/// The text `echo`/`printf` would print (escapes decoded, echo's `-n -e -E` dropped), or None
/// when the words are not an echo or printf.
pub(super) fn echo_text(words: &[String]) -> Option<String> {
    let program = wrappers::program_name(words.first()?);
    let args = words[1..].iter();
    let args: Vec<&str> = match program {
        "echo" => args
            .skip_while(|arg| arg.len() > 1 && arg.starts_with('-') && arg[1..].chars().all(|c| "neE".contains(c)))
            .map(String::as_str)
            .collect(),
        "printf" => args.map(String::as_str).collect(),
        _ => return None,
    };
    Some(normalize::decode_escapes(&args.join(" ")))
}

/// The words an upstream `echo`/`printf` stage pipes into this command.
pub(super) fn piped_echo_words(command: &SimpleCommand, all: &[SimpleCommand]) -> Vec<String> {
    let Some(stage) = command.pipe_input_from.and_then(|index| all.get(index)) else { return Vec::new() };
    let effective = wrappers::unwrap_command(&stage.words);
    echo_text(&effective.words).map(|text| text.split_whitespace().map(str::to_string).collect()).unwrap_or_default()
}

/// Replaces `$(echo X)` and `` `echo X` `` inside a word by `X`; other substitutions stay.
pub(super) fn resolve_echo_substitutions(word: &str) -> String {
    let mut out = String::new();
    let mut rest = word;
    while let Some(start) = rest.find(['$', '`']) {
        out.push_str(&rest[..start]);
        let tail = &rest[start..];
        let body = if let Some(inner) = tail.strip_prefix("$(") {
            closing_paren(inner).map(|end| (&inner[..end], end + 3))
        } else if let Some(inner) = tail.strip_prefix('`') {
            inner.find('`').map(|end| (&inner[..end], end + 2))
        } else {
            None
        };
        match body {
            Some((inner, consumed)) => {
                let printed = shell::parse_command(inner).ok().and_then(|parsed| match parsed.subcommands.as_slice() {
                    [only] => echo_text(&wrappers::unwrap_command(&only.words).words),
                    _ => None,
                });
                out.push_str(&printed.unwrap_or_else(|| tail[..consumed].to_string()));
                rest = &tail[consumed..];
            }
            None => {
                out.push_str(&tail[..1]);
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The index of the `)` closing a `$(` whose body starts `text` (quotes skipped roughly).
fn closing_paren(text: &str) -> Option<usize> {
    let mut depth = 1usize;
    let mut quote: Option<char> = None;
    for (index, c) in text.char_indices() {
        match (quote, c) {
            (Some(open), _) if c == open => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(') => depth += 1,
            (None, ')') => {
                depth -= 1;
                if depth == 0 {
                    return Some(index);
                }
            }
            _ => {}
        }
    }
    None
}

/// A file written (by echo/printf/cat redirections) or downloaded earlier in the script and
/// then run by a shell or executed directly: the written text is checked as a script, and
/// running a downloaded file is a download piped into a shell.
pub(super) fn staged_scripts(commands: &[SimpleCommand], depth: usize) -> Option<BlacklistHit> {
    let mut written: Vec<(String, String)> = Vec::new();
    let mut downloaded: Vec<String> = Vec::new();
    for command in commands {
        let effective = wrappers::unwrap_command(&command.words);
        let Some(program_word) = effective.words.first() else { continue };
        let program = wrappers::program_name(program_word);
        if DOWNLOADER.is_match(program) {
            let names = effective.words[1..].iter().chain(command.redirections.iter().map(|redirect| &redirect.target));
            downloaded.extend(names.map(|word| wrappers::program_name(word.trim_start_matches("-o")).to_string()));
            continue;
        }
        let heredoc = command
            .redirections
            .iter()
            .find(|redirect| matches!(redirect.op, RedirectOp::HereDoc { .. } | RedirectOp::HereString));
        let content = echo_text(&effective.words).or_else(|| heredoc.map(|redirect| redirect.target.clone()));
        if let Some(content) = content {
            for redirect in command.redirections.iter().filter(|redirect| redirect.op.writes()) {
                written.push((wrappers::program_name(&redirect.target).to_string(), content.clone()));
            }
        }
        let runs_file = SHELLS.contains(&program) || is_interpreter(program) || matches!(program, "source" | ".");
        let script = if runs_file { effective.words[1..].iter().find(|arg| !arg.starts_with('-')) } else { None };
        let executed = program_word.contains('/').then_some(program_word);
        for file in script.into_iter().chain(executed) {
            let name = wrappers::program_name(file);
            if downloaded.iter().any(|downloaded| downloaded == name) {
                return hit(Family::PipeToShell, &command.raw);
            }
            for (_, content) in written.iter().filter(|(written, _)| written == name) {
                if let Some(found) = check_script(content, depth + 1) {
                    return Some(found);
                }
            }
        }
    }
    None
}
