//! The `checks:` key: commands run after the agent writes a file whose project-relative path
//! matches a glob (`{pattern: "**/*.py", command: "python3 -m py_compile {file}", timeout: 30}`),
//! parsed, matched, and their command written out for one file.
//!
//! Invariant: pure. A bad entry is an error naming its key path (`checks[1].pattern`), so a check
//! that could never match or never run is found at start-up, not after the tenth silent edit.
//! Patterns are globs over the path relative to the project root, `/`-separated: `*` and `?`
//! stay within a segment, `**` spans segments, `[...]` is a class, `{a,b}` alternatives (nested
//! too), a backslash escapes; as in `.gitignore`, a pattern without a `/` matches the file name
//! in any directory (`*.py`), and a leading `/` anchors it at the root (`/setup.py`). Running
//! the commands is `crate::checks`'s; merging the levels is `mod.rs`'s.

use super::error::{ConfigError, FileContext, error};
use super::value::{describe, kind, opt_string, opt_u64, warn_unknown_keys};
use crate::warning::Warning;
use serde_yaml::{Mapping, Value};

/// A check's timeout when its entry gives none.
pub(crate) const DEFAULT_TIMEOUT_S: u64 = 30;
/// The longest timeout a check may have.
const MAX_TIMEOUT_S: u64 = 600;
/// The most alternatives a pattern's braces may expand to.
const MAX_ALTERNATIVES: usize = 256;
/// The keys of one entry.
const ENTRY_KEYS: &[&str] = &["pattern", "command", "timeout"];
/// Where a command's path goes.
const PLACEHOLDER: &str = "{file}";

/// One configured check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckConfig {
    /// Which files it runs for.
    pub pattern: Glob,
    /// The shell command; `{file}` stands for the written file's path.
    pub command: String,
    pub timeout_s: u64,
    /// The file it came from (display form), for doctor.
    pub source: String,
}

impl CheckConfig {
    /// The command to run for the file at `rel` (project-relative): every `{file}` replaced by
    /// the path as one shell word (`./` first when it starts with `-`, so it is never an option).
    pub(crate) fn command_for(&self, rel: &str) -> String {
        let path = if rel.starts_with('-') { format!("./{rel}") } else { rel.to_string() };
        self.command.replace(PLACEHOLDER, &shell_word(&path))
    }
}

/// A validated glob and the regex it stands for. Two globs are equal when their text is.
#[derive(Clone, Debug)]
pub struct Glob {
    text: String,
    regex: regex::Regex,
}

impl PartialEq for Glob {
    fn eq(&self, other: &Glob) -> bool {
        self.text == other.text
    }
}

impl Eq for Glob {}

impl Glob {
    /// Parses a pattern (module doc); the error says what is wrong with it.
    pub(crate) fn parse(text: &str) -> Result<Glob, String> {
        if text.trim().is_empty() {
            return Err("empty pattern; write a glob such as \"**/*.py\"".to_string());
        }
        if text.trim() != text {
            return Err(format!("{text:?} has spaces around it; remove them"));
        }
        let mut bodies = Vec::new();
        for alternative in expand_braces(text)? {
            bodies.push(alternative_regex(&alternative)?);
        }
        let source = format!("^(?:{})$", bodies.join("|"));
        let regex = regex::Regex::new(&source).map_err(|err| format!("not a valid glob: {err}"))?;
        Ok(Glob { text: text.to_string(), regex })
    }

    /// The pattern as written.
    pub(crate) fn as_str(&self) -> &str {
        &self.text
    }

    /// True when the file at `rel` (project-relative, `/`-separated) matches.
    pub(crate) fn matches(&self, rel: &str) -> bool {
        self.regex.is_match(rel)
    }
}

/// One alternative (braces expanded) as a regex body, checked for what could never match.
fn alternative_regex(alternative: &str) -> Result<String, String> {
    let anchored = alternative.strip_prefix('/');
    let body = anchored.unwrap_or(alternative);
    if body.is_empty() || body.ends_with('/') {
        let example = if body.is_empty() { "**" } else { "DIR/**" };
        return Err(format!(
            "{alternative:?} names a directory, not files; to match every file under it write {example}"
        ));
    }
    if body.split('/').any(|segment| segment.is_empty() || segment == "." || segment == "..") {
        return Err(format!("{alternative:?} has an empty, . or .. segment, which no path inside the project has"));
    }
    check_syntax(body)?;
    // As in `.gitignore`: no slash, any directory; a leading slash, the root only.
    let glob = if anchored.is_none() && !body.contains('/') { format!("**/{body}") } else { body.to_string() };
    Ok(crate::command::glob::glob_to_regex(&glob, true))
}

/// Refuses what the translation would take literally although it was surely meant as syntax: a
/// `[` never closed, a backslash with nothing after it.
fn check_syntax(glob: &str) -> Result<(), String> {
    let chars: Vec<char> = glob.chars().collect();
    let mut index = 0;
    while index < chars.len() {
        match chars[index] {
            '\\' if index + 1 == chars.len() => return Err("ends with a lone backslash".to_string()),
            '\\' => index += 1,
            '[' => match chars[index + 1..].iter().position(|&c| c == ']') {
                Some(length) if length > 0 => index += length + 1,
                _ => return Err("a [ is not closed by a ] (write \\[ for the character itself)".to_string()),
            },
            _ => {}
        }
        index += 1;
    }
    Ok(())
}

/// `{a,b}` alternatives expanded, left to right, nested braces too; an escaped brace is kept
/// as written (the glob translation reads the backslash).
fn expand_braces(text: &str) -> Result<Vec<String>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut open = None;
    let mut depth = 0usize;
    let mut index = 0;
    while index < chars.len() {
        match chars[index] {
            '\\' => index += 1,
            '{' => {
                if depth == 0 {
                    open = Some(index);
                }
                depth += 1;
            }
            '}' if depth == 0 => return Err("a } has no { before it (write \\} for the character itself)".to_string()),
            '}' => {
                depth -= 1;
                if depth == 0 {
                    let start = open.unwrap_or_default();
                    let prefix: String = chars[..start].iter().collect();
                    let suffix: String = chars[index + 1..].iter().collect();
                    let mut out = Vec::new();
                    for part in split_top_commas(&chars[start + 1..index]) {
                        for tail in expand_braces(&format!("{part}{suffix}"))? {
                            out.push(format!("{prefix}{tail}"));
                            if out.len() > MAX_ALTERNATIVES {
                                return Err(format!("its braces make more than {MAX_ALTERNATIVES} alternatives"));
                            }
                        }
                    }
                    return Ok(out);
                }
            }
            _ => {}
        }
        index += 1;
    }
    if depth > 0 {
        return Err("a { is not closed by a } (write \\{ for the character itself)".to_string());
    }
    Ok(vec![text.to_string()])
}

/// The parts of a brace group's inside, split at its own commas (not those of nested groups,
/// not escaped ones).
fn split_top_commas(inside: &[char]) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut depth = 0usize;
    let mut escaped = false;
    for &c in inside {
        let last = parts.len() - 1;
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == '{' {
            depth += 1;
        } else if c == '}' {
            depth -= 1;
        } else if c == ',' && depth == 0 {
            parts.push(String::new());
            continue;
        }
        parts[last].push(c);
    }
    parts
}

/// `text` as one POSIX shell word: as it is when it holds only characters no shell treats
/// specially, else in single quotes (a quote inside closed, escaped and reopened).
fn shell_word(text: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+,:@%=".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        return text.to_string();
    }
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// Reads a file's `checks:` list (empty when absent). `source` names the file for doctor.
pub(crate) fn parse_checks(
    map: &Mapping,
    ctx: &FileContext,
    warnings: &mut Vec<Warning>,
) -> Result<Vec<CheckConfig>, ConfigError> {
    let items = match map.get("checks") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Sequence(items)) => items,
        Some(other) => {
            let message = format!(
                "expected a list of {{pattern, command, timeout}} entries such as \
                 [{{pattern: \"**/*.py\", command: \"python3 -m py_compile {{file}}\"}}], got {}",
                kind(other)
            );
            return Err(error(ctx, "checks", message));
        }
    };
    let mut checks = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let path = format!("checks[{index}]");
        let Value::Mapping(entry) = item else {
            return Err(error(
                ctx,
                &path,
                format!("expected a mapping {{pattern, command, timeout}}, got {}", kind(item)),
            ));
        };
        warn_unknown_keys(entry, ENTRY_KEYS, &path, ctx, warnings);
        let pattern = match entry.get("pattern") {
            Some(Value::String(text)) => {
                Glob::parse(text).map_err(|message| error(ctx, &format!("{path}.pattern"), message))?
            }
            None | Some(Value::Null) => {
                let message = "missing; a glob over the project-relative path, such as \"**/*.py\"";
                return Err(error(ctx, &format!("{path}.pattern"), message.to_string()));
            }
            Some(other) => {
                let message = format!("expected a glob string, got {}", describe(other));
                return Err(error(ctx, &format!("{path}.pattern"), message));
            }
        };
        let command = opt_string(entry, "command", &path, ctx)?.unwrap_or_default();
        if command.trim().is_empty() {
            let message = "missing; a shell command, {file} standing for the file's path".to_string();
            return Err(error(ctx, &format!("{path}.command"), message));
        }
        let timeout_s = match opt_u64(entry, "timeout", &path, ctx)? {
            None => DEFAULT_TIMEOUT_S,
            Some(seconds @ 1..=MAX_TIMEOUT_S) => seconds,
            Some(seconds) => {
                let message = format!("expected seconds from 1 to {MAX_TIMEOUT_S}, got {seconds}");
                return Err(error(ctx, &format!("{path}.timeout"), message));
            }
        };
        checks.push(CheckConfig { pattern, command, timeout_s, source: ctx.display.to_string() });
    }
    Ok(checks)
}

/// The checks a level leaves of the lower levels' and adds: a check whose pattern (as written)
/// this level also has is replaced by this level's checks for it, as a level's hooks replace the
/// lower levels' for their event.
pub(crate) fn merge_checks(merged: &mut Vec<CheckConfig>, level: Vec<CheckConfig>) {
    merged.retain(|lower| !level.iter().any(|check| check.pattern == lower.pattern));
    merged.extend(level);
}

#[cfg(test)]
#[path = "checks_tests.rs"]
mod tests;
