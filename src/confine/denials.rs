//! Explaining a sandbox denial to the model: the kernel only says EACCES ("Permission denied"),
//! so the lines of a failed command's output that report one are read for the paths they name,
//! and each path outside what the command may touch becomes a line the model understands
//! (`denied by sandbox: write outside the project: /etc/x`).
//!
//! Invariant: pure (text and the layout in, lines out), and it never claims a denial for a path
//! the sandbox allows: such lines are left alone (a real permission problem, not ours).

use std::path::{Component, Path, PathBuf};

/// Phrases with which programs report EACCES / EPERM / EROFS.
const DENIAL_PHRASES: [&str; 4] =
    ["Permission denied", "Operation not permitted", "Read-only file system", "permission denied"];
/// Phrases with which programs report ENOENT: in the namespace view a secret store is an empty
/// directory, so only a hidden path is explained on such a line.
const MISSING_PHRASES: [&str; 2] = ["No such file or directory", "no such file or directory"];
/// At most this many paths per kind of denial.
const MAX_PATHS: usize = 5;

/// What the command may touch, as the explanation needs it.
pub(super) struct Allowed<'a> {
    pub writable: &'a [PathBuf],
    pub hidden: &'a [PathBuf],
    pub devices: &'a [PathBuf],
    /// The command's working directory, for relative paths.
    pub cwd: &'a Path,
}

fn has(text: &str, phrases: &[&str]) -> bool {
    phrases.iter().any(|phrase| text.contains(phrase))
}

/// True when `output` reports a refusal or a missing file at all: only then is there anything
/// to explain (and worth resolving the layout for).
pub(super) fn may_explain(output: &str) -> bool {
    has(output, &DENIAL_PHRASES) || has(output, &MISSING_PHRASES)
}

/// One line per kind of denial reported by `output`, naming the paths of that kind (at most
/// `MAX_PATHS`, then how many more).
pub(super) fn explain(output: &str, allowed: &Allowed) -> Vec<String> {
    let mut kinds: Vec<(Refusal, Vec<PathBuf>)> = Vec::new();
    for line in output.lines().filter(|line| has(line, &DENIAL_PHRASES) || has(line, &MISSING_PHRASES)) {
        let missing_only = !has(line, &DENIAL_PHRASES);
        for candidate in path_candidates(line) {
            let Some(path) = absolute(&candidate, allowed.cwd) else { continue };
            let Some(refusal) = classify(&path, allowed) else { continue };
            if missing_only && refusal != Refusal::Secret {
                continue;
            }
            match kinds.iter_mut().find(|(kind, _)| *kind == refusal) {
                Some((_, paths)) if !paths.contains(&path) => paths.push(path),
                Some(_) => {}
                None => kinds.push((refusal, vec![path])),
            }
        }
    }
    kinds
        .into_iter()
        .map(|(refusal, paths)| {
            let shown: Vec<String> = paths.iter().take(MAX_PATHS).map(|path| path.display().to_string()).collect();
            let more = paths.len().saturating_sub(MAX_PATHS);
            let more = if more > 0 { format!(" and {more} more") } else { String::new() };
            format!("denied by sandbox: {}: {}{more} ({})", refusal.what(), shown.join(", "), refusal.hint())
        })
        .collect()
}

/// The kinds of denial, each with its sentence and what the user can change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Refusal {
    Outside,
    Secret,
    Terminal,
}

impl Refusal {
    fn what(self) -> &'static str {
        match self {
            Refusal::Outside => "write outside the project",
            Refusal::Secret => "a protected secret store",
            Refusal::Terminal => "commands have no terminal",
        }
    }

    fn hint(self) -> &'static str {
        match self {
            Refusal::Outside => {
                "only the project and $TMPDIR are writable; sandbox.writable in the user's config adds paths"
            }
            Refusal::Secret => "sandbox.readable_secrets in the user's config lists the ones commands may read",
            Refusal::Terminal => "run it without a terminal, or ask the user to run it",
        }
    }
}

/// Why the sandbox refused `path`, or None when the sandbox allows it.
fn classify(path: &Path, allowed: &Allowed) -> Option<Refusal> {
    if allowed.devices.iter().any(|device| path == device) {
        return None;
    }
    if is_terminal(path) {
        return Some(Refusal::Terminal);
    }
    if allowed.hidden.iter().any(|hidden| path.starts_with(hidden)) {
        return Some(Refusal::Secret);
    }
    if allowed.writable.iter().any(|dir| path.starts_with(dir)) {
        return None;
    }
    Some(Refusal::Outside)
}

fn is_terminal(path: &Path) -> bool {
    let text = path.to_string_lossy();
    text == "/dev/tty" || text == "/dev/console" || text.starts_with("/dev/pts/") || text.starts_with("/dev/tty")
}

/// Path-looking words of a line: quoted strings (a path may hold spaces) and words starting with
/// `/`, `./` or `../`, with the punctuation programs put around them removed.
fn path_candidates(line: &str) -> Vec<String> {
    let mut candidates = Vec::new();
    for quote in ['\'', '"', '`', '‘', '’'] {
        let mut parts = line.split(quote);
        parts.next();
        while let (Some(inside), Some(_)) = (parts.next(), parts.clone().next()) {
            candidates.push(inside.to_string());
            parts.next();
        }
    }
    for word in line.split(|c: char| c.is_whitespace() || c == '\'' || c == '"' || c == '`') {
        let word = word.trim_end_matches([':', ',', ';', ')', '.']).trim_start_matches('(');
        // A word inside a quoted path with spaces is a piece of that path, not a path.
        let in_quotes = candidates.iter().any(|quoted| quoted.contains(word));
        if (word.starts_with('/') || word.starts_with("./") || word.starts_with("../")) && !in_quotes {
            candidates.push(word.to_string());
        }
    }
    // Quoted words that are not paths ('a', 'Cannot write') resolve under the working directory,
    // which is writable, so `classify` drops them: no separate filter is needed.
    candidates
}

/// `text` made absolute against `cwd` and cleaned of `.` and `..` (lexically: the kernel already
/// refused it, the point is to name it).
fn absolute(text: &str, cwd: &Path) -> Option<PathBuf> {
    let joined = if text.starts_with('/') { PathBuf::from(text) } else { cwd.join(text) };
    let mut clean = PathBuf::from("/");
    for component in joined.components() {
        match component {
            Component::Normal(part) => clean.push(part),
            Component::ParentDir => {
                clean.pop();
            }
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    Some(clean)
}

#[cfg(test)]
#[path = "denials_tests.rs"]
mod tests;
