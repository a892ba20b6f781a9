//! Layer 3: permission rules — their syntax, their matchers, and the level-pooled decision
//! (SPEC §5.3).
//!
//! Syntax: `Tool` (every call of the tool; `Tool` may be a glob over full tool names such as
//! `mcp__github__*`) or `Tool(pattern)`, where the pattern runs from the first `(` to the final
//! `)` (so it may contain parentheses). Patterns: `=exact`, `~regex` (must match the whole
//! target), `!inner` (negation, nests: `!!x`, `!~re`, `!=x`), otherwise a glob in which `\`
//! escapes the next character. `Bash(git:*)` (Claude Code's prefix spelling) is `Bash(git *)`.
//! Bash patterns use command globs (`*` matches anything, spaces
//! and `/` included; a trailing ` *` also matches nothing, so `git push *` covers a bare
//! `git push`); Read/Write/Edit/Glob/Grep use path globs (`*` and `?` within one segment,
//! `**` across segments; relative patterns match paths relative to the root, absolute ones
//! absolute paths, `~/…` ones paths under the home directory). Other tools (Task, MCP, unknown
//! names) have no target, so only bare rules apply to them; a pattern on them is an error.
//!
//! Invariant: a deny matching at ANY level wins over every ask and allow, and an ask over every
//! allow; levels only label the decision. Glob matching compiles to the linear-time `regex` crate, never a backtracking
//! matcher, so hostile targets cannot blow up a check.
//!
//! - `mod.rs` — one rule: its syntax, its matcher, the level it came from
//! - `ruleset.rs` — the rules of every level and the decision over them
//! - `command_rules.rs` — how Bash rules meet a compound command: every sub-command, every spelling
//! - `tests.rs` — unit tests of the syntax, the matchers and the decision

use super::kind::{TargetKind, kind_of_rule_tool};
use crate::command::glob::{glob_to_regex, has_wildcard};
use regex::Regex;
use std::fmt;

/// Where a rule came from, nearest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// `<root>/.mewcode/settings.local.yaml` ("always allow" writes here).
    Local,
    /// `<root>/.mewcode/settings.yaml` (committed).
    Project,
    /// `$MEWCODE_HOME/settings.yaml`.
    User,
    /// Added for this session only (`/permissions add … --session`, or an "always" that lasts
    /// the session): no file, gone when mewcode exits.
    Session,
    /// Given for this run only: `--allowedTools` / `--disallowedTools` and the `permissions:`
    /// block of a `--config` file. Never written anywhere.
    Invocation,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Local => "local",
            Level::Project => "project",
            Level::User => "user",
            Level::Session => "session",
            Level::Invocation => "invocation",
        }
    }
}

/// Which list a rule sits in: what it does to a call it matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleList {
    Allow,
    /// Ask a person, whatever allow rules or the mode say (Claude Code's `ask` list).
    Ask,
    Deny,
}

impl RuleList {
    /// The key of the list in a settings file, and the word `/permissions` uses.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleList::Allow => "allow",
            RuleList::Ask => "ask",
            RuleList::Deny => "deny",
        }
    }
}

/// The target kind of the tool a rule names (by its friendly name).
pub(crate) fn target_kind(tool: &str) -> TargetKind {
    kind_of_rule_tool(tool).target()
}

/// A parsed rule.
#[derive(Clone, Debug)]
pub struct Rule {
    /// The rule as written (trimmed), for messages.
    pub text: String,
    /// The tool part; may be a glob over full tool names.
    pub tool: String,
    tool_matcher: Regex,
    pub pattern: Option<Pattern>,
}

/// A rule's pattern and its compiled matcher.
#[derive(Clone, Debug)]
pub struct Pattern {
    pub source: String,
    pub matcher: Matcher,
}

/// The four pattern kinds.
#[derive(Clone, Debug)]
pub enum Matcher {
    Exact(String),
    Regex(Regex),
    Not(Box<Matcher>),
    Glob { source: String, regex: Regex, wildcard: bool },
}

/// Why a rule text was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum RuleError {
    Empty,
    UnbalancedParens,
    EmptyTool,
    /// The tool part has characters other than letters, digits, `_ - . * ?`.
    BadToolName,
    /// `Tool()`: an empty pattern would be ambiguous (use the bare `Tool`).
    EmptyPattern,
    /// A pattern on a tool whose calls have no target (MCP, Task, unknown) or on a tool glob.
    NoTarget,
    BadRegex(String),
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuleError::Empty => f.write_str("empty rule"),
            RuleError::UnbalancedParens => f.write_str("unbalanced parentheses: write Tool or Tool(pattern)"),
            RuleError::EmptyTool => f.write_str("missing tool name before ("),
            RuleError::BadToolName => f.write_str("tool name may only contain letters, digits, _ - . * ?"),
            RuleError::EmptyPattern => f.write_str("empty pattern: write the bare tool name to match every call"),
            RuleError::NoTarget => f.write_str("this tool takes no pattern: only Bash and the file tools have targets"),
            RuleError::BadRegex(error) => write!(f, "invalid regex: {error}"),
        }
    }
}

/// Splits a list of rules as a command line gives them (`--allowedTools "Bash(git *),Edit"`):
/// at commas and spaces outside parentheses, so `Bash(git log *)` stays one rule; each is
/// checked with `parse_rule`. `Err` says which rule is wrong and why (pure).
pub(crate) fn parse_rule_list(text: &str) -> Result<Vec<String>, String> {
    let mut rules = Vec::new();
    let (mut depth, mut current) = (0usize, String::new());
    for ch in text.chars() {
        match ch {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth == 0 && (ch == ',' || ch.is_whitespace()) {
            rules.extend((!current.is_empty()).then(|| std::mem::take(&mut current)));
        } else {
            current.push(ch);
        }
    }
    rules.extend((!current.is_empty()).then_some(current));
    if rules.is_empty() {
        return Err("expected one or more rules, like Bash(git *) or Edit".to_string());
    }
    for rule in &rules {
        if let Err(error) = parse_rule(rule) {
            return Err(format!("{rule:?} is not a rule: {error} (e.g. Bash(git *), Read(src/**), Edit)"));
        }
    }
    Ok(rules)
}

/// Parses one rule text.
pub(crate) fn parse_rule(text: &str) -> Result<Rule, RuleError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(RuleError::Empty);
    }
    let (tool, pattern) = match text.find('(') {
        None if text.contains(')') => return Err(RuleError::UnbalancedParens),
        None => (text, None),
        Some(open) => {
            let Some(inner) = text[open + 1..].strip_suffix(')') else { return Err(RuleError::UnbalancedParens) };
            (&text[..open], Some(inner))
        }
    };
    if tool.is_empty() {
        return Err(RuleError::EmptyTool);
    }
    if !tool.chars().all(|c| c.is_ascii_alphanumeric() || "_-.*?".contains(c)) {
        return Err(RuleError::BadToolName);
    }
    let tool_matcher = Regex::new(&format!("^{}$", glob_to_regex(tool, false)))
        .map_err(|error| RuleError::BadRegex(error.to_string()))?;
    let pattern = match pattern {
        None => None,
        Some("") => return Err(RuleError::EmptyPattern),
        Some(source) => {
            let kind = if tool.contains(['*', '?']) { TargetKind::None } else { target_kind(tool) };
            if kind == TargetKind::None {
                return Err(RuleError::NoTarget);
            }
            Some(Pattern { source: source.to_string(), matcher: compile(source, kind == TargetKind::Path)? })
        }
    };
    Ok(Rule { text: text.to_string(), tool: tool.to_string(), tool_matcher, pattern })
}

fn compile(source: &str, path: bool) -> Result<Matcher, RuleError> {
    if let Some(exact) = source.strip_prefix('=') {
        return Ok(Matcher::Exact(exact.to_string()));
    }
    if let Some(regex) = source.strip_prefix('~') {
        // Unanchored, as the seed's Go `MatchString`: a deny `Bash(~curl)` blocks `curl http://x`.
        // An allow regex that is not anchored at both ends is reported (`unanchored_regex`),
        // since it allows more than it seems to.
        let regex = Regex::new(regex).map_err(|error| RuleError::BadRegex(error.to_string()))?;
        return Ok(Matcher::Regex(regex));
    }
    if let Some(inner) = source.strip_prefix('!') {
        return Ok(Matcher::Not(Box::new(compile(inner, path)?)));
    }
    let source = if path { source.strip_prefix("./").unwrap_or(source) } else { source };
    // Claude Code's prefix spelling `git:*` means what `git *` means here: the command `git`,
    // alone or with arguments — never `gitx` or `git=1 other`.
    let prefix_rule;
    let source = match source.strip_suffix(":*") {
        Some(head) if !path && !head.is_empty() && !head.ends_with('\\') => {
            prefix_rule = format!("{head} *");
            prefix_rule.as_str()
        }
        _ => source,
    };
    // `git push *` also matches a bare `git push`: a deny written that way must not be dodged
    // by leaving the arguments off.
    let body = match source.strip_suffix(" *") {
        Some(head) if !path => format!("{}(?: .*)?", glob_to_regex(head, false)),
        _ => glob_to_regex(source, path),
    };
    let regex = Regex::new(&format!("(?s)^{body}$")).map_err(|error| RuleError::BadRegex(error.to_string()))?;
    Ok(Matcher::Glob { source: source.to_string(), regex, wildcard: has_wildcard(source) })
}

impl Matcher {
    /// True when the matcher accepts `target`.
    pub fn matches(&self, target: &str) -> bool {
        match self {
            Matcher::Exact(exact) => exact == target,
            Matcher::Regex(regex) => regex.is_match(target),
            Matcher::Not(inner) => !inner.matches(target),
            Matcher::Glob { regex, .. } => regex.is_match(target),
        }
    }

    /// True when the matcher can accept only one string: `=exact`, or a glob without
    /// wildcards. Only such rules may allow commands that run other programs.
    pub(crate) fn is_exact(&self) -> bool {
        match self {
            Matcher::Exact(_) => true,
            Matcher::Glob { wildcard, .. } => !wildcard,
            Matcher::Regex(_) | Matcher::Not(_) => false,
        }
    }

    /// True for a path pattern anchored at `/`, or at `~/` (then `Some(true)` for home).
    pub(crate) fn anchor(&self) -> Anchor {
        let source = match self {
            Matcher::Exact(source) => source.as_str(),
            Matcher::Glob { source, .. } => source.as_str(),
            Matcher::Regex(regex) => regex.as_str().trim_start_matches("\\A").trim_start_matches('^'),
            Matcher::Not(inner) => return inner.anchor(),
        };
        if source.starts_with('/') {
            Anchor::Absolute
        } else if source.starts_with("~/") {
            Anchor::Home
        } else {
            Anchor::Root
        }
    }
}

/// The regex of a `~regex` pattern that is not anchored at both ends (`^…$` or `\A…\z`):
/// matched anywhere, it accepts every target that merely contains a match. `None` for anchored
/// regexes and for other pattern kinds (a negation is reported as such, not looked through).
pub(crate) fn unanchored_regex(matcher: &Matcher) -> Option<&str> {
    match matcher {
        Matcher::Regex(regex) => {
            let source = regex.as_str();
            // Leading inline flags (`(?i)`) do not move the anchor.
            let body = match source.strip_prefix("(?") {
                Some(rest) => match rest.split_once(')') {
                    Some((flags, after))
                        if !flags.is_empty() && flags.chars().all(|c| c.is_ascii_alphabetic() || c == '-') =>
                    {
                        after
                    }
                    _ => source,
                },
                None => source,
            };
            let starts = body.starts_with('^') || body.starts_with("\\A");
            let ends = (body.ends_with('$') && !body.ends_with("\\$")) || body.ends_with("\\z");
            // `^a|b$` anchors each end to one branch only.
            (!(starts && ends) || has_top_level_alternation(body)).then_some(source)
        }
        Matcher::Not(_) | Matcher::Exact(_) | Matcher::Glob { .. } => None,
    }
}

/// True when `regex` has a `|` outside every group and character class.
fn has_top_level_alternation(regex: &str) -> bool {
    let mut depth = 0usize;
    let mut in_class = false;
    let mut chars = regex.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            '(' if !in_class => depth += 1,
            ')' if !in_class => depth = depth.saturating_sub(1),
            '|' if !in_class && depth == 0 => return true,
            _ => {}
        }
    }
    false
}

/// What a path pattern is relative to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Anchor {
    Root,
    Absolute,
    Home,
}

impl Rule {
    /// True when the rule's tool part matches the friendly or full tool name.
    pub(crate) fn matches_tool(&self, tool: &str) -> bool {
        self.tool_matcher.is_match(tool)
    }
}

/// The rule that persists "always allow" for one target: an `=exact` pattern, so no glob,
/// regex or negation character in the target can widen it, and parentheses need no escape
/// (the pattern runs to the final `)`). Tools without targets get the bare tool name.
pub(crate) fn exact_rule_for(tool_rule_name: &str, target: &str) -> String {
    match target_kind(tool_rule_name) {
        TargetKind::None => tool_rule_name.to_string(),
        TargetKind::Command | TargetKind::Path => format!("{tool_rule_name}(={target})"),
    }
}

pub(crate) mod command_rules;
mod ruleset;
pub use ruleset::*;

#[cfg(test)]
mod tests;
