//! The PATH that every program mewcode starts gets (commands, hooks, MCP servers, the start-up
//! `git status`): the user's PATH without its empty and relative entries.
//!
//! Invariant: no child is given a PATH entry that is empty or relative (`PATH=:/usr/bin`, `.`,
//! `bin`, a trailing `:`). A shell resolves such an entry against the directory a command runs in
//! — the project — so an allowed `git status` would run the repository's own `bin/git`. Nor is a
//! child given an empty or missing PATH: bash then searches the current directory too (its
//! built-in default ends in `.`), so when nothing is left `FALLBACK` is used. Pure: `app` reads
//! the environment and shows the warning.

use crate::warning::Warning;

/// The PATH children get when the user's has no absolute entry (or there is none): the usual
/// system directories, the same as dash's default and without bash's trailing `.`.
pub(crate) const FALLBACK: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// The PATH children get, and what was left out of the user's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SearchPath {
    /// The value to give children: never empty, every entry absolute.
    pub value: String,
    /// The entries left out, as they were spelled (an empty one as ``).
    pub dropped: Vec<String>,
    /// No entry was absolute (or there was no PATH): `value` is `FALLBACK`.
    pub fell_back: bool,
}

/// The user's `path` (None when PATH is unset) with every entry that is empty or not absolute
/// left out, in order; `FALLBACK` when no entry is left.
pub(crate) fn plan_search_path(path: Option<&str>) -> SearchPath {
    let (kept, dropped): (Vec<&str>, Vec<&str>) = path
        .map_or_else(Vec::new, |path| path.split(':').collect())
        .into_iter()
        .partition(|entry| entry.starts_with('/'));
    let value = if kept.is_empty() { FALLBACK.to_string() } else { kept.join(":") };
    SearchPath { value, dropped: dropped.into_iter().map(String::from).collect(), fell_back: kept.is_empty() }
}

impl SearchPath {
    /// The one start-up notice naming what was left out, or None when nothing was.
    pub(crate) fn warning(&self) -> Option<Warning> {
        if self.dropped.is_empty() {
            return None;
        }
        let entries: Vec<String> = self.dropped.iter().map(|entry| format!("{entry:?}")).collect();
        let rest = if self.fell_back {
            format!("no absolute entry is left, so they get PATH={FALLBACK}")
        } else {
            "they search only the absolute entries".to_string()
        };
        let message = format!(
            "left out {} for commands, hooks and MCP servers: an empty or relative entry finds programs in \
             whatever directory a command runs in, such as the project's own; {rest}",
            entries.join(", ")
        );
        Some(Warning::new("PATH", message))
    }
}

#[cfg(test)]
#[path = "search_path_tests.rs"]
mod tests;
