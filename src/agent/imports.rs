//! `@path` imports in instruction files (AGENTS.md, CLAUDE.md), as Claude Code reads them: a word
//! `@docs/style.md` outside code brings that file's content in, after its line. A project's files
//! reach inside the project; the user's own `$MEWCODE_HOME/AGENTS.md` reaches the user's home
//! directory and `$MEWCODE_HOME` (and may write `@~/notes.md`), as Claude Code's user memory may.
//!
//! Invariant: only files that resolve inside the `Reach` are read (a link or a `..` out is not
//! followed: what is read goes to the provider on every request), never a sensitive file
//! (`.env`, keys) nor, for the user's file, a secret store the sandbox hides or the
//! installation's key; each at most once per instruction file, at most `MAX_DEPTH` imports deep,
//! and the whole stays within the byte budget it is given. A path relative to the importing
//! file's directory, as Claude Code's.

use std::path::{Path, PathBuf};

/// Where an instruction file's imports may read, as resolved (canonical) directories.
pub(super) struct Reach {
    roots: Vec<PathBuf>,
    /// The user's home directory, for `@~/…` and its secret stores (the user's file only).
    home: Option<PathBuf>,
}

impl Reach {
    /// A project's file: inside the (canonical) root only.
    pub(super) fn project(root: &Path) -> Reach {
        Reach { roots: vec![root.to_path_buf()], home: None }
    }

    /// The user's own file: under `mewcode_home` or the user's `home` directory (not when that
    /// is `/`, which would be everything).
    pub(super) fn personal(mewcode_home: &Path, home: Option<&Path>) -> Reach {
        let home = home.and_then(|home| std::fs::canonicalize(home).ok()).filter(|home| home.parent().is_some());
        let roots = std::fs::canonicalize(mewcode_home).into_iter().chain(home.clone()).collect();
        Reach { roots, home }
    }

    /// The file `target` names from `dir`, resolved, when this reach may read it.
    fn resolve(&self, dir: &Path, target: &str) -> Option<PathBuf> {
        let path = match target.strip_prefix("~/") {
            Some(rest) => self.home.as_ref()?.join(rest),
            None if target.starts_with('~') => return None,
            None => dir.join(target),
        };
        let real = std::fs::canonicalize(path).ok()?;
        let inside = self.roots.iter().any(|root| real.starts_with(root));
        let secret = crate::special_paths::is_sensitive_path(&real)
            || real.file_name().is_some_and(|name| name == crate::fsx::USER_DIR_KEY)
            || self
                .home
                .as_ref()
                .is_some_and(|home| crate::confine::secrets::home_secrets(home).any(|secret| real.starts_with(secret)));
        (inside && !secret && real.is_file()).then_some(real)
    }
}

/// How deep imports may nest (an import's imports count one more).
const MAX_DEPTH: usize = 5;

/// `text`, the content of a file in `dir`, with its imports expanded, at most `budget` bytes;
/// every file read is added to `files`.
pub(super) fn expand(text: &str, dir: &Path, reach: &Reach, budget: usize, files: &mut Vec<PathBuf>) -> String {
    let mut expander = Expander { reach, seen: Vec::new(), files, out: String::new(), budget };
    expander.text(text, dir, 0);
    expander.out
}

struct Expander<'a> {
    reach: &'a Reach,
    /// Files already brought in (no file twice, no cycle).
    seen: Vec<PathBuf>,
    files: &'a mut Vec<PathBuf>,
    out: String,
    budget: usize,
}

impl Expander<'_> {
    fn text(&mut self, text: &str, dir: &Path, depth: usize) {
        let mut fenced = false;
        for (index, line) in text.lines().enumerate() {
            if index > 0 {
                self.push("\n");
            }
            self.push(line);
            let trimmed = line.trim_start();
            if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
                fenced = !fenced;
                continue;
            }
            if fenced || depth >= MAX_DEPTH {
                continue;
            }
            for target in imports_of(line) {
                let Some(path) = self.resolve(dir, target) else { continue };
                let Ok(content) = std::fs::read_to_string(&path) else { continue };
                self.seen.push(path.clone());
                self.files.push(path.clone());
                self.push("\n");
                let parent = path.parent().unwrap_or(dir).to_path_buf();
                self.text(content.trim(), &parent, depth + 1);
            }
        }
    }

    /// The file `target` names from `dir`, when the reach may read it and it was not read yet.
    fn resolve(&self, dir: &Path, target: &str) -> Option<PathBuf> {
        self.reach.resolve(dir, target).filter(|real| !self.seen.contains(real))
    }

    fn push(&mut self, text: &str) {
        let room = self.budget.saturating_sub(self.out.len());
        let mut cut = text.len().min(room);
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        self.out.push_str(&text[..cut]);
    }
}

/// The paths a line imports: words `@path` (not `@` alone, not inside a code span), trailing
/// punctuation dropped. A home path (`~/…`) is the reach's to allow.
fn imports_of(line: &str) -> Vec<&str> {
    let mut in_code = false;
    let mut found = Vec::new();
    for word in line.split_whitespace() {
        let ticks = word.matches('`').count();
        let starts_code = word.starts_with('`');
        if !in_code
            && !starts_code
            && let Some(path) = word.strip_prefix('@')
        {
            let path = path.trim_end_matches(['.', ',', ';', ':', '!', '?', ')', ']', '"', '\'']);
            if !path.is_empty() && !path.starts_with('@') {
                found.push(path);
            }
        }
        if ticks % 2 == 1 {
            in_code = !in_code;
        }
    }
    found
}

#[cfg(test)]
#[path = "imports_tests.rs"]
mod tests;
