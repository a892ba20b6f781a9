//! Layer 4 and the fixed path policies: the mode matrix, and whether a bash command touches the
//! agent's own control files (self-protection). The names of the control and sensitive files
//! are `crate::special_paths`, shared with the sandbox.
//!
//! Invariant: the mode matrix only ever yields Allow or Ask — Deny belongs to the blacklist,
//! the sandbox and the user's rules. Path names are compared case-insensitively, because the
//! same repository may later be opened on a case-insensitive filesystem.

use super::kind::ToolKind;
use crate::command::glob::glob_to_regex;
use crate::command::wrappers;
use crate::mode::Mode;
use crate::shell::{self, SimpleCommand};
use crate::special_paths::{is_in_directory, is_protected_component, is_protected_path, protected_names};
use regex::Regex;
use std::path::Path;

/// What a tool can do, for the mode matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ToolClass {
    /// Never changes anything (built-in read tools, MCP tools with a trusted readOnlyHint).
    Read,
    /// Writes files in the project (Write, Edit).
    Write,
    /// Runs things: Bash, and every unknown or MCP tool without readOnlyHint (the strictest).
    Exec,
}

/// The class of a call, from the tool's declared kind and its read-only flag.
pub(crate) fn classify(kind: ToolKind, read_only: bool) -> ToolClass {
    match kind {
        _ if read_only => ToolClass::Read,
        ToolKind::WritesPath => ToolClass::Write,
        // A tool that only reads paths is a read whatever it says.
        ToolKind::ReadsPath { .. } => ToolClass::Read,
        ToolKind::RunsCommand | ToolKind::Opaque => ToolClass::Exec,
    }
}

/// The mode matrix: read-only → Allow; bypass → Allow; acceptEdits + file write → Allow; else
/// Ask (plan keeps the default matrix as a backstop). Returns (allowed, reason).
pub(crate) fn mode_allows(mode: Mode, class: ToolClass) -> (bool, String) {
    match (mode, class) {
        (_, ToolClass::Read) => (true, "read-only tool".into()),
        (Mode::Bypass, _) => (true, "bypass mode".into()),
        (Mode::AcceptEdits, ToolClass::Write) => (true, "acceptEdits mode allows file edits".into()),
        (Mode::Default | Mode::Plan | Mode::AcceptEdits, ToolClass::Exec) => {
            (false, format!("{mode} mode asks before running commands or external tools"))
        }
        (Mode::Default | Mode::Plan, ToolClass::Write) => (false, format!("{mode} mode asks before editing files")),
    }
}

/// Programs that only read the files they name (or, like `echo`, only print their arguments),
/// so naming `.git/…` with them — or a glob such as `echo *` — is harmless.
const VIEWERS: &[&str] = &[
    "echo",
    "printf",
    "true",
    ":",
    "test",
    "[",
    "[[",
    "pwd",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "cat",
    "head",
    "tail",
    "less",
    "more",
    "wc",
    "ls",
    "stat",
    "file",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "diff",
    "cmp",
    "md5sum",
    "sha256sum",
    "sha1sum",
    "tree",
    "du",
];

/// True when a bash command may write the agent's control files: a write redirection to one,
/// a non-viewer naming one (`cp x .git/hooks/`, `cd .mewcode`, a glob like `.g*`), or
/// `git config` setting a key. Over-approximates: it is a reason to ask, not to deny.
/// Names are also resolved against `root`, so a symlink `innocent -> .git` does not hide it.
pub(crate) fn bash_touches_protected(command: &str, root: &Path) -> bool {
    let Ok(parsed) = shell::parse_command(command) else { return false };
    parsed.subcommands.iter().any(|command| subcommand_touches_protected(command, root))
}

/// True when `word`, resolved as a path under `root`, lands in a protected place.
fn resolves_protected(word: &str, root: &Path) -> bool {
    let value = word.rsplit_once('=').map_or(word, |(_, value)| value);
    match super::sandbox::check_path(root, value, None) {
        Ok(resolved) => resolved.strip_prefix(root).is_ok_and(is_protected_path),
        Err(_) => false,
    }
}

fn subcommand_touches_protected(command: &SimpleCommand, root: &Path) -> bool {
    let writes_protected = command.redirections.iter().any(|redirect| {
        redirect.op.writes()
            && (mentions_protected(&redirect.target, false, false, root) || resolves_protected(&redirect.target, root))
    });
    // A `for`/`case`/`[[`/`((` header writes nothing but its redirections.
    if writes_protected || command.header {
        return writes_protected;
    }
    let effective = wrappers::unwrap_command(&command.words);
    let program = effective.words.first().map(|word| wrappers::program_name(word)).unwrap_or_default();
    if program == "git" && effective.words.iter().any(|word| word == "config") {
        let reads = ["--get", "--get-all", "--get-regexp", "--list", "-l", "get", "list"];
        if !effective.words.iter().any(|word| reads.contains(&word.as_str())) {
            return true;
        }
    }
    if VIEWERS.contains(&program) && effective.wrappers.is_empty() {
        return false;
    }
    // A glob names only files that exist when it expands, and those are listed by the expansion;
    // the pattern itself counts at the root only when that list is cut short (`echo *` in a
    // project without a top-level control file is harmless, `cp x *` next to AGENTS.md is not).
    let mut expanded = Vec::new();
    let mut words = Vec::new();
    for (word, info) in command.words.iter().zip(&command.word_info) {
        let globbed = info.glob || info.brace;
        let mut root_pattern = false;
        if globbed {
            let expansion = crate::command::expansion::expand(word, info, root);
            root_pattern = expansion.truncated;
            expanded.extend(expansion.words);
        }
        words.push((word.as_str(), globbed, root_pattern));
    }
    let assignments = command.assignments.iter().map(|assignment| (assignment.as_str(), false, false));
    words.into_iter().chain(assignments).any(|(word, globbed, root_pattern)| {
        mentions_protected(word, globbed, root_pattern, root) || resolves_protected(word, root)
    }) || expanded.iter().any(|word| mentions_protected(word, false, false, root) || resolves_protected(word, root))
}

/// True when some `/`, `=` or `:`-separated part of `word` is (or, for a glob, could match) a
/// protected name. A glob below the root (`build/*`) can only reach a nested control directory
/// (`sub/.git`) when it starts with a dot, because bash globs skip dot files; at the root it
/// could match any protected name (`*` matches `AGENTS.md`), which counts when `root_pattern`
/// says the files it matches could not all be listed.
fn mentions_protected(word: &str, globbed: bool, root_pattern: bool, root: &Path) -> bool {
    word.split(['=', ':']).any(|path| {
        let parts: Vec<&str> = path.trim_end_matches('/').split('/').collect();
        if is_protected_path(Path::new(path)) {
            return true;
        }
        parts.iter().enumerate().any(|(index, part)| {
            let lower = part.to_lowercase();
            // `.vscode` named last may be written whole (`cp -r x .vscode`); `.vscode/launch.json`
            // is decided by the whole path above.
            if is_protected_component(&lower) && (index + 1 == parts.len() || !is_in_directory(&lower)) {
                return true;
            }
            if !(globbed && part.contains(['*', '?', '[', '{'])) {
                return false;
            }
            let parent = parts[..index].join("/");
            let at_root = parent.is_empty()
                || parent == "."
                || super::sandbox::check_path(root, &parent, None).is_ok_and(|resolved| {
                    std::fs::canonicalize(root).is_ok_and(|canonical_root| resolved == canonical_root)
                });
            (lower.starts_with('.') || (at_root && root_pattern)) && glob_could_match_protected(&lower)
        })
    })
}

/// bash globs skip dot files unless the pattern starts with a literal dot; braces may expand
/// to anything, so they count as a match.
fn glob_could_match_protected(part: &str) -> bool {
    if part.contains('{') {
        return true;
    }
    let Ok(regex) = Regex::new(&format!("(?i)^{}$", glob_to_regex(part, true))) else { return true };
    protected_names().any(|name| (part.starts_with('.') || !name.starts_with('.')) && regex.is_match(name))
}
