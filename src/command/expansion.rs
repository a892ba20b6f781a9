//! What a word may become after brace and pathname expansion, for the checks against sensitive
//! and protected names: `cat {.env,x}` is `cat .env x`, and `cat .e*` is `cat .env` in a
//! directory that holds one.
//!
//! Invariant: over-approximate what bash would produce. Globs are matched against the files
//! that exist (bash never expands a glob to a missing file), case-insensitively and with dot
//! files included (`shopt -s nocaseglob dotglob` may come earlier in the same script); the
//! pattern itself is always kept too. Directories outside the project are not listed (the
//! sandbox check refuses those words on its own). More matches than [`MAX_MATCHES`] make the
//! expansion [`Expansion::truncated`], which callers treat as unknown.

use super::glob::{glob_to_regex, has_wildcard};
use super::normalize;
use crate::shell::WordInfo;
use regex::Regex;
use std::path::{Path, PathBuf};

/// Paths kept per word before the expansion counts as too large to check.
const MAX_MATCHES: usize = 256;

/// The words a shell word may expand to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Expansion {
    /// The candidates, escapes removed: brace alternatives, glob matches (spelled relative to
    /// the word's own base, as bash prints them) and the patterns themselves.
    pub words: Vec<String>,
    /// More than [`MAX_MATCHES`] paths matched: what the word becomes is not fully known.
    pub truncated: bool,
}

/// Expands `word` (with its lexer facts) against the files under `root` (the command's cwd).
pub(crate) fn expand(word: &str, info: &WordInfo, root: &Path) -> Expansion {
    let mut expansion = Expansion::default();
    if !info.glob && !info.brace {
        expansion.words.push(word.to_string());
        return expansion;
    }
    let patterns = if info.brace { normalize::brace_patterns(&info.pattern) } else { vec![info.pattern.clone()] };
    for pattern in patterns {
        expansion.words.push(normalize::unescape(&pattern));
        // Quoted glob characters are escaped in the pattern, so this is bash's own test.
        if has_wildcard(&pattern) {
            expansion.truncated |= !glob_paths(&pattern, root, &mut expansion.words);
        }
    }
    expansion.words.dedup();
    expansion
}

/// Adds the existing paths matching `pattern` to `out`; false when there were too many.
fn glob_paths(pattern: &str, root: &Path, out: &mut Vec<String>) -> bool {
    let Ok(root) = std::fs::canonicalize(root) else { return true };
    let absolute = pattern.starts_with('/');
    // (path on disk, spelling as bash would print it)
    let mut current: Vec<(PathBuf, String)> =
        vec![if absolute { (PathBuf::from("/"), String::new()) } else { (root.clone(), String::new()) }];
    let components: Vec<&str> = pattern.split('/').filter(|part| !part.is_empty()).collect();
    let separator = |spelled: &str| if spelled.is_empty() && !absolute { String::new() } else { format!("{spelled}/") };
    for component in components {
        let mut next = Vec::new();
        if has_wildcard(component) {
            let Ok(regex) = Regex::new(&format!("(?i)^{}$", glob_to_regex(component, true))) else { return true };
            for (dir, spelled) in &current {
                // Only the project is listed; a word reaching outside is the sandbox check's.
                let inside = std::fs::canonicalize(dir).is_ok_and(|dir| dir.starts_with(&root));
                let Ok(entries) = std::fs::read_dir(dir).map_err(drop).and_then(|e| inside.then_some(e).ok_or(()))
                else {
                    continue;
                };
                for entry in entries.flatten() {
                    let name = entry.file_name().to_string_lossy().into_owned();
                    if regex.is_match(&name) {
                        next.push((dir.join(&name), format!("{}{name}", separator(spelled))));
                        if next.len() > MAX_MATCHES {
                            return false;
                        }
                    }
                }
            }
        } else {
            let literal = normalize::unescape(component);
            next = current
                .iter()
                .filter(|(dir, _)| dir.join(&literal).symlink_metadata().is_ok())
                .map(|(dir, spelled)| (dir.join(&literal), format!("{}{literal}", separator(spelled))))
                .collect();
        }
        current = next;
        if current.is_empty() {
            return true;
        }
    }
    out.extend(current.into_iter().map(|(_, spelled)| spelled));
    true
}

#[cfg(test)]
#[path = "expansion_tests.rs"]
mod tests;
