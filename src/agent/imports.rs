//! `@path` imports in a project's instruction files (AGENTS.md, CLAUDE.md), as Claude Code reads
//! them: a word `@docs/style.md` outside code brings that file's content in, after its line.
//!
//! Invariant: only files that resolve inside the project root are read (a link out is not
//! followed: what is read goes to the provider on every request), each at most once per
//! instruction file, at most `MAX_DEPTH` imports deep, and the whole stays within the byte
//! budget it is given. A path relative to the importing file's directory, as Claude Code's.

use std::path::{Path, PathBuf};

/// How deep imports may nest (an import's imports count one more).
const MAX_DEPTH: usize = 5;

/// `text`, the content of a file in `dir`, with its imports expanded, at most `budget` bytes;
/// every file read is added to `files`.
pub(super) fn expand(text: &str, dir: &Path, root: &Path, budget: usize, files: &mut Vec<PathBuf>) -> String {
    let mut expander = Expander { root, seen: Vec::new(), files, out: String::new(), budget };
    expander.text(text, dir, 0);
    expander.out
}

struct Expander<'a> {
    root: &'a Path,
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
                let parent = path.parent().unwrap_or(self.root).to_path_buf();
                self.text(content.trim(), &parent, depth + 1);
            }
        }
    }

    /// The file `target` names from `dir`, when it is a file inside the root not read yet.
    fn resolve(&self, dir: &Path, target: &str) -> Option<PathBuf> {
        let real = std::fs::canonicalize(dir.join(target)).ok()?;
        (real.starts_with(self.root) && real.is_file() && !self.seen.contains(&real)).then_some(real)
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

/// The paths a line imports: words `@path` (not `@` alone, not inside a code span, not a home
/// path), trailing punctuation dropped.
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
            if !path.is_empty() && !path.starts_with('~') && !path.starts_with('@') {
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
