//! Layer 4 and the fixed path policies: the mode matrix, the agent's own control files
//! (self-protection) and sensitive files.
//!
//! Invariant: the mode matrix only ever yields Allow or Ask — Deny belongs to the blacklist,
//! the sandbox and the user's rules. Path names are compared case-insensitively, because the
//! same repository may later be opened on a case-insensitive filesystem.

use super::kind::ToolKind;
use crate::command::glob::glob_to_regex;
use crate::command::wrappers;
use crate::mode::Mode;
use crate::shell::{self, SimpleCommand};
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

/// How a protected name is recognised in a path (components compared lower-cased).
#[derive(Clone, Copy, Debug)]
enum Spot {
    /// A directory: the name itself and everything beneath it.
    Dir(&'static str),
    /// A file name anywhere.
    File(&'static str),
    /// A file name directly inside a directory of the given name.
    In(&'static str, &'static str),
    /// A file name ending with this suffix.
    Suffix(&'static str),
}

/// The files whose writes always ask (outside bypass mode): each one makes code run later
/// without anyone typing a command, or changes the agent's own instructions. The test is what
/// runs *automatically* on checkout, commit, `cd` or opening the editor — files that only run
/// when someone runs them (`Makefile`, `package.json` scripts, `build.rs`) are normal work.
const PROTECTED: &[(Spot, &str)] = &[
    (Spot::Dir(".git"), "git: hooks run on commit and checkout, config can name programs to run"),
    (Spot::Dir(".mewcode"), "mewcode's own settings, permissions and sessions"),
    (Spot::File(".mewcode.yaml"), "mewcode's project config (providers, hooks, MCP servers)"),
    (Spot::File("agents.md"), "the agent's instructions"),
    (Spot::File("claude.md"), "the agent's instructions when AGENTS.md is absent"),
    (Spot::File(".mcp.json"), "MCP servers a coding agent starts"),
    (Spot::Dir(".claude"), "Claude Code settings: hooks run when it starts"),
    (Spot::Dir(".husky"), "husky's git hooks, run on commit"),
    (Spot::Dir(".githooks"), "the usual core.hooksPath directory, run on commit"),
    (Spot::Dir(".lefthook"), "lefthook's scripts, run on commit"),
    (Spot::File("lefthook.yml"), "lefthook's hook commands, run on commit"),
    (Spot::File(".lefthook.yml"), "lefthook's hook commands, run on commit"),
    (Spot::File("lefthook.yaml"), "lefthook's hook commands, run on commit"),
    (Spot::File(".lefthook.yaml"), "lefthook's hook commands, run on commit"),
    (Spot::File(".pre-commit-config.yaml"), "pre-commit's hook commands, run on commit"),
    (Spot::File(".envrc"), "direnv: runs on cd"),
    (Spot::File(".autoenv.zsh"), "zsh-autoenv: runs on cd"),
    (Spot::File(".autoenv_leave.zsh"), "zsh-autoenv: runs on leaving the directory"),
    (Spot::File("mise.toml"), "mise: environment and hooks on cd"),
    (Spot::File(".mise.toml"), "mise: environment and hooks on cd"),
    (Spot::In(".vscode", "tasks.json"), "VS Code: tasks can run when the folder opens"),
    (Spot::In(".vscode", "settings.json"), "VS Code: settings name programs the editor runs"),
    (Spot::Suffix(".code-workspace"), "VS Code workspace: settings and tasks"),
    (Spot::Dir(".devcontainer"), "dev containers: initializeCommand runs on the host"),
    (Spot::Dir(".idea"), "JetBrains IDEs: run configurations and startup tasks"),
    (Spot::File(".exrc"), "vim/neovim exrc: runs when the editor opens"),
    (Spot::File(".nvimrc"), "neovim exrc: runs when the editor opens"),
    (Spot::File(".nvim.lua"), "neovim exrc: runs when the editor opens"),
    (Spot::File(".dir-locals.el"), "Emacs: directory variables can eval code"),
    (Spot::File(".dir-locals-2.el"), "Emacs: directory variables can eval code"),
];

/// The name of the first protected spot `path` (relative to the root, or absolute) lies in,
/// with why it is protected.
pub(crate) fn protected_spot(path: &Path) -> Option<(&'static str, &'static str)> {
    let components: Vec<String> =
        path.components().map(|component| component.as_os_str().to_string_lossy().to_lowercase()).collect();
    let last = components.last()?;
    PROTECTED.iter().find_map(|&(spot, why)| {
        let hit = match spot {
            Spot::Dir(name) => components.iter().any(|component| component == name).then_some(name),
            Spot::File(name) => (last == name).then_some(name),
            Spot::In(dir, name) => {
                let parent = components.len().checked_sub(2).map(|index| components[index].as_str());
                (last == name && parent == Some(dir)).then_some(name)
            }
            Spot::Suffix(suffix) => last.ends_with(suffix).then_some(suffix),
        };
        hit.map(|name| (name, why))
    })
}

/// True when a path (relative to the root, or absolute) lies in a protected spot.
fn is_protected_path(path: &Path) -> bool {
    protected_spot(path).is_some()
}

/// The protected names a single path component may equal (the directory and file of `In`
/// spots both), for checking what a glob could match; suffix spots are checked apart.
fn protected_names() -> impl Iterator<Item = &'static str> {
    PROTECTED
        .iter()
        .flat_map(|&(spot, _)| match spot {
            Spot::Dir(name) | Spot::File(name) => [Some(name), None],
            Spot::In(dir, name) => [Some(dir), Some(name)],
            Spot::Suffix(_) => [None, None],
        })
        .flatten()
}

/// Whether a component names a protected spot on its own, for words like `cp x .husky/`: a
/// protected directory or file name, or the directory of an `In` spot (`cp -r x .vscode` may
/// write its `tasks.json`).
pub(crate) fn is_protected_component(lower: &str) -> bool {
    PROTECTED.iter().any(|&(spot, _)| match spot {
        Spot::Dir(name) | Spot::File(name) | Spot::In(name, _) => name == lower,
        Spot::Suffix(suffix) => lower.ends_with(suffix),
    })
}

/// True for a session log: a path (relative to the root) in `.mewcode/sessions/<id>/`, except
/// the session's `tool-results/` (offloaded results the model is told to read back). Logs hold
/// whatever the model was once shown with approval, so reading them again counts as sensitive.
pub(crate) fn is_session_log(relative: &Path) -> bool {
    let components: Vec<String> =
        relative.components().map(|component| component.as_os_str().to_string_lossy().to_lowercase()).collect();
    components.first().is_some_and(|first| first == ".mewcode")
        && components.get(1).is_some_and(|second| second == "sessions")
        && components.get(3).is_none_or(|fourth| fourth != "tool-results")
}

/// Sensitive file names, matched whole (lowercase).
const SENSITIVE_NAMES: &[&str] = &[".env", ".netrc"];
/// Sensitive file name beginnings (lowercase).
const SENSITIVE_PREFIXES: &[&str] = &[".env.", "id_rsa", "id_ed25519"];
/// Sensitive file name endings (lowercase).
const SENSITIVE_SUFFIXES: &[&str] = &[".pem", ".key"];

/// True for files whose content should not reach the model without asking: `.env`, `.env.*`,
/// `*.pem`, `*.key`, `id_rsa*`, `id_ed25519*`, `.netrc`, in any case.
///
/// The walk of grep and glob asks this for every file it meets, so an ASCII name (nearly all
/// of them) is compared in place without allocating; other names are lowercased the Unicode
/// way first (the Kelvin sign `K` lowercases to an ASCII `k`).
pub(crate) fn is_sensitive_path(path: &Path) -> bool {
    let Some(name) = path.file_name() else { return false };
    let bytes = name.as_encoded_bytes();
    if bytes.is_ascii() {
        return is_sensitive_name(bytes);
    }
    is_sensitive_name(name.to_string_lossy().to_lowercase().as_bytes())
}

fn is_sensitive_name(name: &[u8]) -> bool {
    let same = |part: &[u8], pattern: &str| part.eq_ignore_ascii_case(pattern.as_bytes());
    SENSITIVE_NAMES.iter().any(|pattern| same(name, pattern))
        || SENSITIVE_PREFIXES.iter().any(|pattern| name.get(..pattern.len()).is_some_and(|head| same(head, pattern)))
        || SENSITIVE_SUFFIXES
            .iter()
            .any(|pattern| name.len() >= pattern.len() && same(&name[name.len() - pattern.len()..], pattern))
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

/// True when `lower` is protected only as the directory of an `In` spot (`.vscode`).
fn is_in_directory(lower: &str) -> bool {
    let mut in_directory = false;
    for &(spot, _) in PROTECTED {
        match spot {
            Spot::In(dir, _) => in_directory |= dir == lower,
            Spot::Dir(name) | Spot::File(name) if name == lower => return false,
            Spot::Suffix(suffix) if lower.ends_with(suffix) => return false,
            Spot::Dir(_) | Spot::File(_) | Spot::Suffix(_) => {}
        }
    }
    in_directory
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
