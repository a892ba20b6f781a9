//! The paths mewcode treats apart, by name: the control files a project uses to run code or
//! steer the agent (self-protection in the permission engine, read-only paths in the sandbox's
//! view), the session logs, and the sensitive files whose content asks before it reaches the
//! model.
//!
//! Invariant: one list each, shared by the permission engine and the sandbox, so what the engine
//! asks about and what the view makes read-only cannot drift apart. Names only, compared
//! lower-cased (a repository may later be opened on a case-insensitive filesystem); no
//! filesystem access and no decision: the engine and the sandbox decide what a match means.

use std::path::Path;

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
    (Spot::Dir(".agents"), "agent skills (.agents/skills): instructions the agent is told to follow"),
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
pub(crate) fn is_protected_path(path: &Path) -> bool {
    protected_spot(path).is_some()
}

/// The protected names a single path component may equal (the directory and file of `In`
/// spots both), for checking what a glob could match; suffix spots are checked apart.
pub(crate) fn protected_names() -> impl Iterator<Item = &'static str> {
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

/// True when `lower` is protected only as the directory of an `In` spot (`.vscode`).
pub(crate) fn is_in_directory(lower: &str) -> bool {
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
