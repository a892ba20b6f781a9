//! `/permissions`: the rules in force, numbered and grouped by effect (deny, ask, allow) with
//! the file each comes from (local, project, user settings, this session, built into mewcode),
//! the mode and the session's grant of file edits; `add` and `remove` change them.
//!
//! Invariant: parsing, completion and the listing are pure functions of the text and the rule
//! book; the rules change only through the gate (`Gate::add_rule`, `Gate::remove_rule`), which
//! saves the file first and then rebuilds the engine every agent of the session shares, so the
//! next tool call is decided by the change.

use super::chat::Chat;
use super::render::{DIM, RED};
use super::say_wrapped;
use super::setup::Setup;
use crate::glyphs::Glyphs;
use crate::mode::Mode;
use crate::permission::book::{Entry, RuleBook, Source, Which};
use crate::permission::rules::{Level, RuleList};
use crate::text::neutralize;

/// The command's name.
const NAME: &str = "/permissions";

/// How the command is used, said after a line that does not parse.
const USAGE: &str = "usage: /permissions, /permissions add allow|ask|deny RULE [--local|--project|--user|--session], \
                     /permissions remove N|RULE";

/// The scope flags of `add`, and the level each names.
const SCOPES: [(&str, Level); 4] =
    [("--local", Level::Local), ("--project", Level::Project), ("--user", Level::User), ("--session", Level::Session)];

/// What `/permissions` was asked.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Request {
    List,
    Add { list: RuleList, level: Level, rule: String },
    Remove(Which),
}

/// The arguments of a `/permissions` line, `None` for any other line.
pub(super) fn arguments(line: &str) -> Option<&str> {
    let rest = line.trim().strip_prefix(NAME)?;
    (rest.is_empty() || rest.starts_with(char::is_whitespace)).then(|| rest.trim())
}

/// Runs `/permissions ARGUMENTS`: lists, adds or removes, and says what happened.
pub(super) fn run(arguments: &str, chat: &Chat, setup: &Setup) {
    let (color, width) = (setup.color, chat.screen.width);
    let say_error = |message: &str| say_wrapped(color, RED, &neutralize(&format!("{NAME}: {message}")), width, 4);
    let request = match parse_request(arguments) {
        Ok(request) => request,
        Err(message) => return say_error(&message),
    };
    let gate = &chat.agent.toolbox.gate;
    let Some(book) = gate.rule_book() else { return say_error("this session keeps no permission rules") };
    let outcome = match request {
        Request::List => {
            for (line, hang, code) in render_listing(&book, chat.mode, setup.glyphs) {
                say_wrapped(color, code, &neutralize(&line), width, hang);
            }
            return;
        }
        Request::Add { list, level, rule } => gate.add_rule(list, level, &rule),
        Request::Remove(which) => gate.remove_rule(&which),
    };
    match outcome {
        Ok(said) => say_wrapped(color, "", &neutralize(&said), width, 4),
        Err(message) => say_error(&message),
    }
}

/// Parses the arguments of `/permissions` (pure).
fn parse_request(arguments: &str) -> Result<Request, String> {
    let (verb, rest) = arguments.split_once(char::is_whitespace).unwrap_or((arguments, ""));
    let rest = rest.trim();
    match verb {
        "" | "list" if rest.is_empty() => Ok(Request::List),
        "add" => parse_add(rest),
        "remove" | "rm" if !rest.is_empty() => Ok(Request::Remove(match rest.parse::<usize>() {
            Ok(number) => Which::Number(number),
            Err(_) => Which::Rule(rest.to_string()),
        })),
        _ => Err(USAGE.to_string()),
    }
}

/// `EFFECT RULE [--scope]`, the scope also accepted before the rule; local by default. A rule
/// never ends in a word of its own like `--word` (its pattern ends with `)`, and a bare rule is
/// one word), so such a word is a scope.
fn parse_add(rest: &str) -> Result<Request, String> {
    let (effect, rule) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let list = match effect {
        "allow" => RuleList::Allow,
        "ask" => RuleList::Ask,
        "deny" => RuleList::Deny,
        "" => return Err(USAGE.to_string()),
        other => return Err(format!("{other:?} is not an effect: add allow, ask or deny rules")),
    };
    let mut rule = rule.trim();
    let mut level = None;
    let is_flag = |word: &&str| word.starts_with("--") && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    let first = rule.split_whitespace().next().filter(is_flag);
    let last = rule.rsplit_once(char::is_whitespace).map(|(_, word)| word).filter(is_flag);
    for flag in [first, last].into_iter().flatten() {
        let Some((_, named)) = SCOPES.iter().find(|(name, _)| *name == flag) else {
            return Err(format!("unknown scope {flag}: use --local, --project, --user or --session"));
        };
        if level.replace(*named).is_some() {
            return Err("give one scope: --local, --project, --user or --session".to_string());
        }
        rule = rule.strip_prefix(flag).or_else(|| rule.strip_suffix(flag)).unwrap_or(rule).trim();
    }
    if rule.is_empty() {
        return Err(format!("add {effect}: which rule? e.g. {NAME} add {effect} Bash(git diff *)"));
    }
    Ok(Request::Add { list, level: level.unwrap_or(Level::Local), rule: rule.to_string() })
}

/// The lines of the listing (pure): each with the indent of its continuation rows and its colour.
fn render_listing(book: &RuleBook, mode: Mode, glyphs: &Glyphs) -> Vec<(String, usize, &'static str)> {
    let files = book.files();
    let mut lines = Vec::new();
    let granted = if book.edits_granted() { "file edits granted for this session" } else { "" };
    let separator = if granted.is_empty() { "" } else { glyphs.separator };
    lines.push((format!("mode: {mode}{separator}{granted} (Shift-Tab or /mode changes it)"), 4, ""));
    let entries = book.listing();
    for list in [RuleList::Deny, RuleList::Ask, RuleList::Allow] {
        lines.push((format!("{}:", list.as_str()), 4, ""));
        let listed: Vec<&Entry> = entries.iter().filter(|entry| entry.list == list).collect();
        for entry in listed {
            let (source, code) = match entry.source {
                Source::Rule(level) => (level_label(book, level), ""),
                Source::EditsGrant => ("this session (\"always\" to an edit)".to_string(), ""),
                Source::BuiltIn => ("built-in, cannot be removed".to_string(), DIM),
            };
            lines.push((format!("  {:>3}  {}  {} {source}", entry.number, entry.text, glyphs.from), 9, code));
        }
    }
    lines.push(("files:".to_string(), 4, ""));
    for level in [Level::Local, Level::Project, Level::User] {
        let Some(path) = files.path(level) else { continue };
        let mut line = format!("  {:<8} {}", level.as_str(), path.display());
        if level == Level::Local {
            line.push_str(" (\"always\" answers are saved here)");
        }
        if let Some(why) = files.allow_ignored(level) {
            line.push_str(&format!("; its allow rules are {why}"));
        }
        lines.push((line, 11, ""));
    }
    lines.push((format!("{USAGE}; a rule removed or added applies from the next tool call"), 4, DIM));
    lines
}

/// Where a rule of `level` comes from, as listed: the level and its file.
fn level_label(book: &RuleBook, level: Level) -> String {
    let files = book.files();
    match (level, files.path(level)) {
        (Level::Invocation, _) => "this run (--allowedTools, --disallowedTools, --config)".to_string(),
        (Level::Session, _) | (_, None) => "this session".to_string(),
        (level, Some(path)) => {
            let shown = path.strip_prefix(&files.root).unwrap_or(&path).display().to_string();
            format!("{}, {shown}", level.as_str())
        }
    }
}

/// Completions for the text before the cursor when it is a `/permissions` line with a space in
/// it: the sub-commands, then the effects of `add`, then a scope flag; `None` for other lines.
pub(super) fn complete(before_cursor: &str) -> Option<(usize, Vec<String>)> {
    let arguments = before_cursor.strip_prefix(NAME)?.strip_prefix(' ')?;
    let words: Vec<&str> = arguments.split(' ').collect();
    let typed = words.last().copied().unwrap_or("");
    let start = before_cursor.len() - typed.len();
    let options: &[&str] = match words.as_slice() {
        [_] => &["add", "remove", "list"],
        ["add", _] => &["allow", "ask", "deny"],
        ["add", _, .., _] if typed.starts_with("--") => &["--local", "--project", "--user", "--session"],
        _ => &[],
    };
    let matching = options.iter().filter(|option| option.starts_with(typed)).map(|option| option.to_string());
    Some((start, matching.collect()))
}

#[cfg(test)]
#[path = "permissions_tests.rs"]
mod tests;
