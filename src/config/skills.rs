//! Skills: folders holding a `SKILL.md` (Claude Code's and Codex's format) — a YAML front matter
//! with `name` and `description`, then the instructions — found in the user's and the project's
//! skill folders, read and checked here.
//!
//! Invariant: a bad skill (unreadable, not UTF-8, too large, no front matter, no description, a
//! name that cannot be one) is one warning naming its file and never stops the others; a
//! questionable one (a name that differs from its folder, a description cut to its limit) loads
//! with a warning. The first folder holding a name wins, user folders before the project's (as
//! Claude Code ranks them: personal over project), and what it shadows is remembered. A project's
//! `SKILL.md` is read only when it resolves inside the project root (a planted link must not send
//! `~/.ssh/id_rsa` to the model). Which folders count (trust, homes) is the caller's decision.

use crate::warning::Warning;
use std::path::{Path, PathBuf};

/// A `SKILL.md` larger than this is not loaded (its body is sent whole when the skill is used).
const MAX_SKILL_BYTES: u64 = 128 * 1024;
/// The longest a name may be (Claude Code's limit).
const MAX_NAME_CHARS: usize = 64;
/// The longest a description may be (Claude Code's limit); a longer one is cut with a warning.
const MAX_DESCRIPTION_CHARS: usize = 1024;
/// Skill folders looked at per skills folder, at most.
const MAX_SKILLS_PER_DIR: usize = 200;
/// The file that makes a folder a skill.
pub(crate) const SKILL_FILE: &str = "SKILL.md";

/// Whose a skills folder is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SkillOrigin {
    /// The user's own (`$MEWCODE_HOME/skills`, `~/.claude/skills`, `~/.agents/skills`).
    User,
    /// The project's (`.mewcode/skills`, `.claude/skills`, `.agents/skills`): behind the trust gate.
    Project,
}

/// One folder of skill folders.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SkillDir {
    pub path: PathBuf,
    /// How lists and warnings name it (`.claude/skills`, `~/.agents/skills`).
    pub label: String,
    pub origin: SkillOrigin,
    /// The project root, for a project's folder: its files must resolve inside it.
    pub inside: Option<PathBuf>,
}

/// One skill, loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Skill {
    /// What the model asks for (`pdf-forms`).
    pub name: String,
    /// When to use it: the only part of it in the system prompt, whitespace folded to one line.
    pub description: String,
    /// The instructions: the text after the front matter, trimmed.
    pub body: String,
    /// The skill's folder (as found, absolute): its scripts and references live there.
    pub dir: PathBuf,
    /// Its `SKILL.md` as lists show it (`.claude/skills/pdf-forms/SKILL.md`).
    pub file: String,
    pub origin: SkillOrigin,
    /// The files of the same name in later folders, which this one shadows.
    pub shadows: Vec<String>,
}

/// The two fields mewcode reads; the others (`allowed-tools`, `license`, `metadata`) are left.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct FrontMatter {
    name: Option<String>,
    description: Option<String>,
}

/// The skill folders of a run in precedence order, first wins: the user's (`$MEWCODE_HOME/skills`
/// at `home`, then `~/.claude/skills` and `~/.agents/skills` under `user_home`), then the
/// project's under `root`. A project folder that is one of the user's (mewcode started in the
/// home directory) is left out of the project's: it is loaded once, as the user's. Returns
/// (user, project).
pub(crate) fn skill_dirs(root: &Path, home: &Path, user_home: Option<&Path>) -> (Vec<SkillDir>, Vec<SkillDir>) {
    let tilde = |path: &Path| match user_home.and_then(|user_home| path.strip_prefix(user_home).ok()) {
        Some(rel) => format!("~/{}", rel.display()),
        None => path.display().to_string(),
    };
    let mut user = vec![home.join("skills")];
    user.extend(user_home.iter().flat_map(|dir| [dir.join(".claude/skills"), dir.join(".agents/skills")]));
    let user: Vec<SkillDir> = user
        .into_iter()
        .map(|path| SkillDir { label: tilde(&path), path, origin: SkillOrigin::User, inside: None })
        .collect();
    let same = |a: &Path, b: &Path| {
        a == b || std::fs::canonicalize(a).is_ok_and(|a| std::fs::canonicalize(b).is_ok_and(|b| a == b))
    };
    let project = [".mewcode/skills", ".claude/skills", ".agents/skills"]
        .iter()
        .map(|rel| SkillDir {
            path: root.join(rel),
            label: rel.to_string(),
            origin: SkillOrigin::Project,
            inside: Some(root.to_path_buf()),
        })
        .filter(|dir| !user.iter().any(|mine| same(&mine.path, &dir.path)))
        .collect();
    (user, project)
}

/// Loads every folder's skills; a name is the first folder's that has it. Sorted by name.
pub(crate) fn load_skills(dirs: &[SkillDir]) -> (Vec<Skill>, Vec<Warning>) {
    let mut skills: Vec<Skill> = Vec::new();
    let mut warnings = Vec::new();
    let mut seen: Vec<PathBuf> = Vec::new();
    for dir in dirs {
        if !crate::fsx::first_visit(&mut seen, &dir.path) {
            continue;
        }
        for folder in skill_folders(dir, &mut warnings) {
            let shown = format!("{}/{folder}/{SKILL_FILE}", dir.label);
            let skill_dir = dir.path.join(&folder);
            let loaded = crate::fsx::read_own_text(
                &skill_dir.join(SKILL_FILE),
                dir.inside.as_deref(),
                MAX_SKILL_BYTES,
                "skills",
            )
            .and_then(|text| parse_skill_file(&text).map(|(front, body)| (front, body.to_string())));
            let (front, body) = match loaded {
                Ok(loaded) => loaded,
                Err(problem) => {
                    warnings.push(Warning::new(shown, format!("not loaded: {problem}")));
                    continue;
                }
            };
            let Some((name, description)) = check_fields(&folder, front, &shown, &mut warnings) else { continue };
            if let Some(winner) = skills.iter_mut().find(|skill| skill.name == name) {
                winner.shadows.push(shown);
                continue;
            }
            skills.push(Skill {
                name,
                description,
                body,
                dir: skill_dir,
                file: shown,
                origin: dir.origin,
                shadows: Vec::new(),
            });
        }
    }
    skills.sort_by(|a, b| a.name.cmp(&b.name));
    (skills, warnings)
}

/// For the trust question: one line per folder that holds skills, naming their folders.
pub(crate) fn describe_skill_dirs(dirs: &[SkillDir]) -> Vec<String> {
    const SHOWN: usize = 8;
    let mut lines = Vec::new();
    for dir in dirs {
        let names = skill_folders(dir, &mut Vec::new());
        if names.is_empty() {
            continue;
        }
        let listed = crate::text::first_names(&names, SHOWN);
        let plural = if names.len() == 1 { "" } else { "s" };
        lines.push(format!("{} skill{plural} from {}: {listed}", names.len(), dir.label));
    }
    lines
}

/// The names of the folders of `dir` that hold a `SKILL.md` (hidden ones skipped), sorted; at
/// most `MAX_SKILLS_PER_DIR`, with a warning beyond. A missing folder has none.
fn skill_folders(dir: &SkillDir, warnings: &mut Vec<Warning>) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(&dir.path) else { return Vec::new() };
    let mut names: Vec<String> = entries
        .flatten()
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| !name.starts_with('.'))
        // Through links: a skill folder may be a link into one's dotfiles. A `SKILL.md` that
        // cannot be looked at (a dangling link) is kept, for its read to say why.
        .filter(|name| std::fs::symlink_metadata(dir.path.join(name).join(SKILL_FILE)).is_ok())
        .collect();
    names.sort();
    if names.len() > MAX_SKILLS_PER_DIR {
        let message = format!("more than {MAX_SKILLS_PER_DIR} skills; only the first {MAX_SKILLS_PER_DIR} are loaded");
        warnings.push(Warning::new(dir.label.clone(), message));
        names.truncate(MAX_SKILLS_PER_DIR);
    }
    names
}

/// A `SKILL.md`'s front matter and body. The front matter is the block between a first line
/// `---` and the next `---`, read as YAML; when it is not valid YAML (skills in the wild write
/// `description: Use when: ...` unquoted), its top-level `key: value` lines are read as text, and
/// only a line that is neither makes the file unreadable. Errors say what is wrong.
fn parse_skill_file(text: &str) -> Result<(FrontMatter, &str), String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some((_, rest)) = text.split_once('\n').filter(|(first, _)| first.trim_end() == "---") else {
        return Err("it has no front matter (a first line --- then name: and description: lines, then ---)".into());
    };
    let mut offset = 0;
    let mut block = None;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            block = Some((&rest[..offset], &rest[offset + line.len()..]));
            break;
        }
        offset += line.len();
    }
    let Some((yaml, body)) = block else { return Err("its front matter (--- at the top) has no closing ---".into()) };
    let front = match serde_yaml::from_str::<serde_yaml::Value>(yaml) {
        Ok(value) => front_from_yaml(&value)?,
        Err(err) => front_from_lines(yaml)
            .map_err(|line| format!("its front matter is not YAML ({err}), and line {line} is not `key: value`"))?,
    };
    Ok((front, body.trim()))
}

/// The fields of a front matter that parsed as YAML: it must be a mapping (or empty), and the two
/// fields text (a number or a boolean is taken as written).
fn front_from_yaml(value: &serde_yaml::Value) -> Result<FrontMatter, String> {
    use serde_yaml::Value;
    let map = match value {
        Value::Null => return Ok(FrontMatter::default()),
        Value::Mapping(map) => map,
        _ => return Err("its front matter is not a list of `key: value` lines".into()),
    };
    let field = |key: &str| -> Result<Option<String>, String> {
        match map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(Value::Number(number)) => Ok(Some(number.to_string())),
            Some(Value::Bool(flag)) => Ok(Some(flag.to_string())),
            Some(_) => Err(format!("its front matter's {key} is not text")),
        }
    };
    Ok(FrontMatter { name: field("name")?, description: field("description")? })
}

/// The fields of a front matter that is not YAML, read line by line: a top-level `key: value`
/// line sets the key (quotes around the whole value removed); indented lines, list items,
/// comments and blank lines are passed over. `Err` is the number of the first other line (the
/// file's numbering: the opening `---` is line 1).
fn front_from_lines(yaml: &str) -> Result<FrontMatter, usize> {
    let mut front = FrontMatter::default();
    for (index, line) in yaml.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || line.starts_with([' ', '\t']) || trimmed.starts_with("- ")
        {
            continue;
        }
        let Some((key, value)) = trimmed.split_once(':') else { return Err(index + 2) };
        let value = unquote(value.trim());
        match key.trim() {
            "name" => front.name = Some(value),
            "description" => front.description = Some(value),
            _ => {}
        }
    }
    Ok(front)
}

/// A value without the quotes around all of it (`"a"`, `'b'`); otherwise as it is.
fn unquote(value: &str) -> String {
    let quoted = |quote: char| value.len() >= 2 && value.starts_with(quote) && value.ends_with(quote);
    if quoted('"') || quoted('\'') { value[1..value.len() - 1].to_string() } else { value.to_string() }
}

/// The skill's name and description, checked; `None` (with a warning) when it cannot be loaded.
/// The name defaults to the folder's; one that differs from the folder's is used, with a
/// warning; one that is not a valid name falls back to the folder's, with a warning. The
/// description is required; whitespace is folded to single spaces and a long one is cut.
fn check_fields(
    folder: &str,
    front: FrontMatter,
    shown: &str,
    warnings: &mut Vec<Warning>,
) -> Option<(String, String)> {
    let description = front.description.unwrap_or_default().split_whitespace().collect::<Vec<_>>().join(" ");
    if description.is_empty() {
        let message = "not loaded: it has no description (the model chooses a skill by its description)";
        warnings.push(Warning::new(shown, message));
        return None;
    }
    let declared = front.name.map(|name| name.trim().to_string()).filter(|name| !name.is_empty());
    let name = match declared {
        Some(name) if valid_name(&name) => {
            if name != folder {
                let message = format!("its name {name:?} differs from its folder {folder:?}; loaded as {name:?}");
                warnings.push(Warning::new(shown, message));
            }
            name
        }
        Some(name) if valid_name(folder) => {
            let message = format!("its name {name:?} is not a valid skill name ({}); loaded as {folder:?}", NAME_RULE);
            warnings.push(Warning::new(shown, message));
            folder.to_string()
        }
        None if valid_name(folder) => folder.to_string(),
        _ => {
            let message =
                format!("not loaded: neither its name nor its folder {folder:?} is a valid skill name ({NAME_RULE})");
            warnings.push(Warning::new(shown, message));
            return None;
        }
    };
    let description = match description.char_indices().nth(MAX_DESCRIPTION_CHARS) {
        Some((cut, _)) => {
            let count = description.chars().count();
            let message = format!("its description has {count} characters; cut to {MAX_DESCRIPTION_CHARS}");
            warnings.push(Warning::new(shown, message));
            description[..cut].to_string()
        }
        None => description,
    };
    Some((name, description))
}

/// What a skill name may be, for warnings.
const NAME_RULE: &str = "lowercase letters, digits and hyphens, at most 64";

/// True when `name` is a skill name: 1 to 64 lowercase ASCII letters, digits and hyphens.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_CHARS
        && name.bytes().all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'-')
}

#[cfg(test)]
#[path = "skills_tests.rs"]
mod tests;
