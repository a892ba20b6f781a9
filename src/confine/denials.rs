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
/// At most this many explanations per result.
const MAX_LINES: usize = 5;

/// What the command may touch, as the explanation needs it.
pub struct Allowed<'a> {
    pub writable: &'a [PathBuf],
    pub hidden: &'a [PathBuf],
    pub devices: &'a [PathBuf],
    /// The command's working directory, for relative paths.
    pub cwd: &'a Path,
}

/// One line per distinct path named by a denial line of `output` that the sandbox explains.
pub fn explain(output: &str, allowed: &Allowed) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for line in output.lines().filter(|line| DENIAL_PHRASES.iter().any(|phrase| line.contains(phrase))) {
        for candidate in path_candidates(line) {
            let Some(path) = absolute(&candidate, allowed.cwd) else { continue };
            let Some(reason) = classify(&path, allowed) else { continue };
            let text = format!("denied by sandbox: {reason}: {}", path.display());
            if !lines.contains(&text) {
                lines.push(text);
            }
            if lines.len() == MAX_LINES {
                return lines;
            }
        }
    }
    lines
}

/// Why the sandbox refused `path`, or None when the sandbox allows it.
fn classify(path: &Path, allowed: &Allowed) -> Option<&'static str> {
    if allowed.devices.iter().any(|device| path == device) {
        return None;
    }
    if is_terminal(path) {
        return Some("commands have no terminal");
    }
    if allowed.hidden.iter().any(|hidden| path.starts_with(hidden)) {
        return Some("a protected secret store (sandbox.readable_secrets lists the ones commands may read)");
    }
    if allowed.writable.iter().any(|dir| path.starts_with(dir)) {
        return None;
    }
    Some("write outside the project (sandbox.writable lists more writable paths)")
}

fn is_terminal(path: &Path) -> bool {
    let text = path.to_string_lossy();
    text == "/dev/tty" || text == "/dev/console" || text.starts_with("/dev/pts/") || text.starts_with("/dev/tty")
}

/// Path-looking words of a line: quoted strings and words starting with `/`, `./`, `../` or `~`,
/// with the punctuation programs put around them removed.
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
        if word.starts_with('/') || word.starts_with("./") || word.starts_with("../") {
            candidates.push(word.to_string());
        }
    }
    candidates.retain(|candidate| looks_like_path(candidate));
    candidates
}

fn looks_like_path(text: &str) -> bool {
    !text.is_empty() && !text.contains(char::is_whitespace) && (text.contains('/') || !text.starts_with('-'))
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
mod tests {
    use super::*;

    fn check(output: &str, expected: &[&str]) {
        let writable = vec![PathBuf::from("/p"), PathBuf::from("/tmp/mewcode-1")];
        let hidden = vec![PathBuf::from("/h/.ssh"), PathBuf::from("/dev")];
        let devices = vec![PathBuf::from("/dev/null")];
        let allowed = Allowed { writable: &writable, hidden: &hidden, devices: &devices, cwd: Path::new("/p/sub") };
        assert_eq!(explain(output, &allowed), expected, "{output}");
    }

    const OUTSIDE: &str = "denied by sandbox: write outside the project (sandbox.writable lists more writable paths)";

    #[test]
    fn common_denial_messages_name_their_path() {
        check("bash: /etc/x: Permission denied\nexit", &[&format!("{OUTSIDE}: /etc/x")]);
        check("touch: cannot touch '/h/y': Permission denied", &[&format!("{OUTSIDE}: /h/y")]);
        check("rm: cannot remove '../../etc/passwd': Permission denied", &[&format!("{OUTSIDE}: /etc/passwd")]);
        check(
            "PermissionError: [Errno 13] Permission denied: '/usr/lib/x.so'",
            &[&format!("{OUTSIDE}: /usr/lib/x.so")],
        );
        check(
            "cat: /h/.ssh/id_ed25519: Permission denied",
            &[
                "denied by sandbox: a protected secret store (sandbox.readable_secrets lists the ones commands may read): /h/.ssh/id_ed25519",
            ],
        );
        check("bash: /dev/tty: No such device or address", &[]);
        check(
            "sh: 1: cannot create /dev/pts/0: Permission denied",
            &["denied by sandbox: commands have no terminal: /dev/pts/0"],
        );
        check("mv: cannot move 'a' to '/srv/a': Operation not permitted", &[&format!("{OUTSIDE}: /srv/a")]);
    }

    #[test]
    fn allowed_paths_and_unrelated_lines_are_left_alone() {
        check("bash: /p/x: Permission denied", &[]);
        check("bash: /tmp/mewcode-1/x: Permission denied", &[]);
        check("bash: /dev/null: Permission denied", &[]);
        check("error: /etc/x not found", &[]);
        check("", &[]);
        // The same path twice is one line; many paths are capped.
        check("/etc/a: Permission denied\n/etc/a: Permission denied", &[&format!("{OUTSIDE}: /etc/a")]);
        let many: String = (0..9).map(|n| format!("/etc/{n}: Permission denied\n")).collect();
        let expected: Vec<String> = (0..5).map(|n| format!("{OUTSIDE}: /etc/{n}")).collect();
        let expected: Vec<&str> = expected.iter().map(String::as_str).collect();
        check(&many, &expected);
    }
}
