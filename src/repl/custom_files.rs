//! The person's own slash commands, read from Markdown files: the folders in precedence order,
//! a name from each file's path (`fix-issue.md` → `/fix-issue`, `frontend/review.md` →
//! `/frontend:review`, as Claude Code names them), optional front matter (`description:`,
//! `argument-hint:`) and the prompt below it.
//!
//! Invariant: a bad file (unreadable, not UTF-8, over `MAX_COMMAND_BYTES`, broken front matter,
//! no prompt, a name that cannot be typed) is one warning and never stops the others; the first
//! folder holding a name wins, and the files it shadows are remembered for `/help`. A project's
//! file is read only when it resolves inside the project root: a link planted in a repository
//! must not send `~/.ssh/id_rsa` to the model as a prompt. Which folders count (trust, homes) is
//! the caller's decision; what the built-in commands are is `custom.rs`'s.

use crate::warning::Warning;
use std::path::{Path, PathBuf};

/// A command file larger than this is not loaded (it is sent whole with every use).
const MAX_COMMAND_BYTES: u64 = 64 * 1024;
/// Subfolders deeper than this are not searched (a link loop ends here too).
const MAX_DEPTH: usize = 4;
/// Files looked at per folder, at most.
const MAX_FILES: usize = 500;

/// One folder of command files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CommandDir {
    pub path: PathBuf,
    /// How `/help` and warnings name it (`.mewcode/commands`, `~/.codex/prompts`).
    pub label: String,
    /// The project root, for a project's folder: its files must resolve inside it.
    pub inside: Option<PathBuf>,
}

/// One command, loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CustomCommand {
    /// With its slash: `/fix-issue`, `/frontend:review`.
    pub name: String,
    /// The front matter's `description:` (empty when there is none).
    pub description: String,
    /// The front matter's `argument-hint:` (empty when there is none).
    pub argument_hint: String,
    /// The prompt: the file's text after its front matter.
    pub body: String,
    /// The file, as `/help` shows it (`.mewcode/commands/fix-issue.md`).
    pub file: String,
    /// Files of the same name in later folders, which this one shadows.
    pub shadows: Vec<String>,
}

/// The front matter fields mewcode reads; the others (`allowed-tools`, `model`, …) are left.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct FrontMatter {
    description: String,
    argument_hint: String,
}

/// The folders a project brings, in precedence order: `.mewcode/commands`, `.claude/commands`.
pub(crate) fn project_command_dirs(root: &Path) -> Vec<CommandDir> {
    [".mewcode/commands", ".claude/commands"]
        .iter()
        .map(|rel| CommandDir { path: root.join(rel), label: rel.to_string(), inside: Some(root.to_path_buf()) })
        .collect()
}

/// Loads every folder's commands; a name is the first folder's that has it. Sorted by name.
pub(crate) fn load_custom_commands(dirs: &[CommandDir]) -> (Vec<CustomCommand>, Vec<Warning>) {
    let mut commands: Vec<CustomCommand> = Vec::new();
    let mut warnings = Vec::new();
    let mut seen: Vec<PathBuf> = Vec::new();
    for dir in dirs {
        if !crate::fsx::first_visit(&mut seen, &dir.path) {
            continue;
        }
        for (rel, path) in find_files(dir, &mut warnings) {
            let shown = format!("{}/{}", dir.label, rel.display());
            let loaded = command_name(&rel).and_then(|name| {
                Ok((name, crate::fsx::read_own_text(&path, dir.inside.as_deref(), MAX_COMMAND_BYTES, "commands")?))
            });
            let (name, text) = match loaded {
                Ok(loaded) => loaded,
                Err(problem) => {
                    warnings.push(Warning::new(shown, format!("not loaded: {problem}")));
                    continue;
                }
            };
            if let Some(winner) = commands.iter_mut().find(|command| command.name == name) {
                winner.shadows.push(shown);
                continue;
            }
            match parse_command_file(&text) {
                Ok((front, body)) => commands.push(CustomCommand {
                    name,
                    description: front.description,
                    argument_hint: front.argument_hint,
                    body: body.to_string(),
                    file: shown,
                    shadows: Vec::new(),
                }),
                Err(problem) => warnings.push(Warning::new(shown, format!("not loaded: {problem}"))),
            }
        }
    }
    commands.sort_by(|a, b| a.name.cmp(&b.name));
    (commands, warnings)
}

/// For the trust question: one line per folder that holds command files, naming them.
pub(crate) fn describe_command_dirs(dirs: &[CommandDir]) -> Vec<String> {
    const SHOWN: usize = 8;
    let mut lines = Vec::new();
    for dir in dirs {
        let names: Vec<String> =
            find_files(dir, &mut Vec::new()).iter().filter_map(|(rel, _)| command_name(rel).ok()).collect();
        if names.is_empty() {
            continue;
        }
        let listed = crate::text::first_names(&names, SHOWN);
        let plural = if names.len() == 1 { "" } else { "s" };
        lines.push(format!("{} slash command{plural} from {}: {listed}", names.len(), dir.label));
    }
    lines
}

/// The `.md` files of a folder and its subfolders (hidden ones skipped), as (path relative to
/// the folder, path), sorted. A missing folder has none.
fn find_files(dir: &CommandDir, warnings: &mut Vec<Warning>) -> Vec<(PathBuf, PathBuf)> {
    let mut found = Vec::new();
    let mut pending = vec![(PathBuf::new(), 0)];
    while let Some((rel, depth)) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(dir.path.join(&rel)) else { continue };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(text) = name.to_str() else { continue };
            if text.starts_with('.') {
                continue;
            }
            let entry_rel = rel.join(&name);
            // Followed through links: a folder of commands may be a link into one's dotfiles. A
            // `.md` that cannot be looked at (a dangling link) is kept, for its read to say why.
            match std::fs::metadata(entry.path()) {
                Ok(metadata) if metadata.is_dir() && depth < MAX_DEPTH => pending.push((entry_rel, depth + 1)),
                Ok(metadata) if !metadata.is_file() => {}
                Ok(_) | Err(_) if text.ends_with(".md") => found.push((entry_rel, entry.path())),
                Ok(_) | Err(_) => {}
            }
        }
        if found.len() > MAX_FILES {
            let message = format!("more than {MAX_FILES} command files; only the first {MAX_FILES} are loaded");
            warnings.push(Warning::new(dir.label.clone(), message));
            break;
        }
    }
    found.sort();
    found.truncate(MAX_FILES);
    found
}

/// `frontend/review.md` → `/frontend:review`; `Err` when a part cannot be typed as one word.
fn command_name(rel: &Path) -> Result<String, String> {
    let text = rel.to_str().unwrap_or_default();
    let stem = text.strip_suffix(".md").unwrap_or(text);
    let typable =
        |part: &str| !part.is_empty() && part.chars().all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !stem.split('/').all(typable) {
        return Err(format!("{text:?} cannot be typed as a command name (use letters, digits, - _ and .)"));
    }
    Ok(format!("/{}", stem.replace('/', ":")))
}

/// A command file's front matter and prompt. The front matter is the block between a first line
/// `---` and the next `---`, read as `key: value` lines: lenient where Claude Code's examples are
/// not strict YAML (`argument-hint: [pr] [priority]`), strict about a block that never closes or
/// a line that is not a key. Errors say what is wrong, for the warning.
fn parse_command_file(text: &str) -> Result<(FrontMatter, &str), String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut front = FrontMatter::default();
    let body = match text.split_once('\n') {
        Some((first, rest)) if first.trim_end() == "---" => {
            let mut lines = Vec::new();
            let mut body = None;
            let mut offset = 0;
            for line in rest.split_inclusive('\n') {
                offset += line.len();
                if line.trim_end() == "---" {
                    body = Some(&rest[offset..]);
                    break;
                }
                lines.push(line.trim_end());
            }
            let Some(body) = body else { return Err("its front matter (--- at the top) has no closing ---".into()) };
            front = parse_front_matter(&lines)?;
            body
        }
        _ => text,
    };
    let body = body.trim();
    if body.is_empty() {
        return Err("it has no prompt (the file is empty after its front matter)".into());
    }
    Ok((front, body))
}

/// The `key: value` lines of a front matter. Indented lines and list items continue the key
/// above: a `|` or `>` block, or a value on the lines below its key, becomes one line; the
/// items of a list key are left. Comments and blank lines are skipped.
fn parse_front_matter(lines: &[&str]) -> Result<FrontMatter, String> {
    let mut fields: Vec<(String, String)> = Vec::new();
    // The last key's value continues on the indented lines below it.
    let mut open = false;
    for (index, line) in lines.iter().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if line.starts_with([' ', '\t']) || trimmed.starts_with("- ") {
            if let Some((_, value)) = fields.last_mut().filter(|_| open) {
                value.push(' ');
                value.push_str(trimmed);
            }
            continue;
        }
        let Some((key, value)) = trimmed.split_once(':') else {
            return Err(format!("front matter line {} is not `key: value`: {trimmed:?}", index + 2));
        };
        let value = value.trim();
        open = matches!(value, "" | "|" | ">" | "|-" | ">-" | "|+" | ">+");
        fields.push((key.trim().to_string(), if open { String::new() } else { unquote(value) }));
    }
    let field = |name: &str| {
        let value = fields.iter().find(|(key, _)| key == name).map_or("", |(_, value)| value.as_str());
        value.split_whitespace().collect::<Vec<_>>().join(" ")
    };
    Ok(FrontMatter { description: field("description"), argument_hint: field("argument-hint") })
}

/// A YAML scalar without its quotes (`"a \"b\""`, `'it''s'`); a plain one as it is.
fn unquote(value: &str) -> String {
    if value.len() >= 2 && value.starts_with('"') && value.ends_with('"') {
        let inner = &value[1..value.len() - 1];
        let mut out = String::new();
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            match (c, c == '\\') {
                (_, true) => match chars.next() {
                    Some('n') => out.push(' '),
                    Some(next) => out.push(next),
                    None => out.push('\\'),
                },
                (c, false) => out.push(c),
            }
        }
        return out;
    }
    if value.len() >= 2 && value.starts_with('\'') && value.ends_with('\'') {
        return value[1..value.len() - 1].replace("''", "'");
    }
    value.to_string()
}

#[cfg(test)]
#[path = "custom_files_tests.rs"]
mod tests;
