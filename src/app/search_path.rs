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
mod tests {
    use super::*;

    fn check(path: Option<&str>, value: &str, dropped: &[&str]) {
        let dropped = dropped.iter().map(|entry| entry.to_string()).collect();
        let expected = SearchPath { value: value.to_string(), dropped, fell_back: value == FALLBACK };
        assert_eq!(plan_search_path(path), expected, "{path:?}");
    }

    #[test]
    fn empty_and_relative_entries_are_left_out_in_order() {
        check(Some("/usr/local/bin:/usr/bin:/bin"), "/usr/local/bin:/usr/bin:/bin", &[]);
        check(Some(":/usr/bin"), "/usr/bin", &[""]);
        check(Some("/usr/bin:"), "/usr/bin", &[""]);
        check(Some("/usr/bin::/bin"), "/usr/bin:/bin", &[""]);
        check(Some(".:/usr/bin"), "/usr/bin", &["."]);
        check(
            Some("bin:/usr/bin:./node_modules/.bin:../tools:~/bin"),
            "/usr/bin",
            &["bin", "./node_modules/.bin", "../tools", "~/bin"],
        );
        // Absolute entries are kept as they are, even odd ones: they do not depend on the cwd.
        check(Some("/opt/x/../y:/usr/bin/"), "/opt/x/../y:/usr/bin/", &[]);
    }

    #[test]
    fn nothing_left_or_no_path_at_all_gives_the_fallback_never_an_empty_path() {
        check(None, FALLBACK, &[]);
        check(Some(""), FALLBACK, &[""]);
        check(Some(".:bin"), FALLBACK, &[".", "bin"]);
        // The user's own PATH equal to the fallback is not a fallback.
        let same = plan_search_path(Some(&format!("bin:{FALLBACK}")));
        assert!(!same.fell_back && same.value == FALLBACK, "{same:?}");
        assert!(same.warning().unwrap().message.ends_with("they search only the absolute entries"));
    }

    #[test]
    fn the_warning_names_what_was_left_out() {
        assert_eq!(plan_search_path(Some("/usr/bin")).warning(), None);
        assert_eq!(plan_search_path(None).warning(), None);
        let one = plan_search_path(Some("bin:/usr/bin")).warning().unwrap();
        assert_eq!(
            one.to_string(),
            "PATH: left out \"bin\" for commands, hooks and MCP servers: an empty or relative entry finds \
             programs in whatever directory a command runs in, such as the project's own; they search only the \
             absolute entries"
        );
        let all = plan_search_path(Some(":.")).warning().unwrap();
        assert_eq!(
            all.to_string(),
            format!(
                "PATH: left out \"\", \".\" for commands, hooks and MCP servers: an empty or relative entry finds \
                 programs in whatever directory a command runs in, such as the project's own; no absolute entry \
                 is left, so they get PATH={FALLBACK}"
            )
        );
    }
}
