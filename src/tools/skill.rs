//! `skill` [Skill]: loads one of the run's skills (`config::skills`) by name — its instructions,
//! its folder and the files in it — or, with `file`, one of those files.
//!
//! Invariant: read-only and runs nothing: a skill's scripts run through bash, judged and confined
//! like any command. Only the skills found at start-up are offered (a project's only once it is
//! trusted); `file` reads only a file of the skill's own listing (no `..`, no hidden files, no
//! path the model made up), so it reaches nothing `read_file` could not be pointed at in a
//! skill folder. An unknown name is an error listing the names there are.

use super::{Tool, ToolContext, ToolKind, ToolOutput, parse_input};
use crate::config::skills::{SKILL_FILE, Skill};
use serde::Deserialize;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The model-facing name.
pub(crate) const SKILL_TOOL: &str = "skill";
/// Files listed per skill, at most.
const MAX_LISTED: usize = 100;
/// Folder depth of the listing (a link loop ends here too).
const MAX_DEPTH: usize = 4;
/// Files the listing walks at most (a skill folder holding `node_modules`).
const MAX_WALKED: usize = 2000;
/// The most of a skill's file that `file` returns.
const MAX_FILE_BYTES: u64 = 128 * 1024;

/// The `skill` tool over the skills of a run.
pub(crate) struct SkillTool {
    skills: Vec<Skill>,
}

impl SkillTool {
    pub(crate) fn new(skills: Vec<Skill>) -> SkillTool {
        SkillTool { skills }
    }
}

#[derive(Deserialize)]
struct Input {
    name: String,
    #[serde(default)]
    file: Option<String>,
}

impl Tool for SkillTool {
    fn name(&self) -> &str {
        SKILL_TOOL
    }

    fn rule_name(&self) -> &str {
        "Skill"
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Opaque
    }

    fn description(&self) -> &str {
        "Loads a skill: instructions for a kind of task, listed by name and description under \
         \"# Skills\" in the system prompt. Load the skill whose description matches the task before \
         you start it, then follow it. Returns the skill's instructions, its folder and the files in \
         it (scripts, references, templates); run its scripts with bash. With file (a path from that \
         list), returns that file's text instead."
    }

    fn input_schema(&self) -> serde_json::Value {
        serde_json::json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "The skill's name, as listed under # Skills"},
                "file": {"type": "string", "description": "A file of the skill's folder to read, relative to it (from the list the skill returned)"}
            },
            "required": ["name"]
        })
    }

    fn lean_description(&self) -> String {
        "Load a skill by name: its instructions and files (file: read one of them).".to_string()
    }

    fn lean_input_schema(&self) -> serde_json::Value {
        super::lean::lean_schema(self.input_schema(), &[("name", "skill name"), ("file", "a file of the skill")])
    }

    fn read_only(&self) -> bool {
        true
    }

    fn execute(&self, input_json: &str, _ctx: &ToolContext) -> ToolOutput {
        let input: Input = match parse_input(SKILL_TOOL, input_json) {
            Ok(input) => input,
            Err(output) => return output,
        };
        let wanted = input.name.trim();
        let found = self.skills.iter().find(|skill| skill.name == wanted);
        let Some(skill) = found.or_else(|| self.skills.iter().find(|skill| skill.name.eq_ignore_ascii_case(wanted)))
        else {
            let names: Vec<&str> = self.skills.iter().map(|skill| skill.name.as_str()).collect();
            return ToolOutput::error(format!("unknown skill {wanted:?}; the skills are: {}", names.join(", ")));
        };
        let (files, more) = list_files(&skill.dir);
        match input.file.as_deref().map(str::trim).filter(|file| !file.is_empty()) {
            Some(file) => read_listed(skill, &files, file),
            None => ToolOutput::ok(render(skill, &files, more)),
        }
    }
}

/// The skill as the model reads it: where it is, its instructions, then the files beside them.
fn render(skill: &Skill, files: &[String], more: Listing) -> String {
    let mut text =
        format!("Skill {} (from {})\nFolder: {}\n\n{}\n", skill.name, skill.file, skill.dir.display(), skill.body);
    if files.is_empty() {
        return text;
    }
    text.push_str("\nFiles in the folder (read one with the skill tool's file, run scripts with bash by their path under the folder):\n");
    for file in files {
        text.push_str(&format!("- {file}\n"));
    }
    match more {
        Listing::All => {}
        Listing::More(count) => text.push_str(&format!("- ... and {count} more\n")),
        Listing::TooMany => text.push_str(&format!("- ... and more (over {MAX_WALKED} files)\n")),
    }
    text
}

/// One file of the skill's listing, as text.
fn read_listed(skill: &Skill, files: &[String], wanted: &str) -> ToolOutput {
    let wanted = wanted.strip_prefix("./").unwrap_or(wanted);
    let wanted = Path::new(wanted).strip_prefix(&skill.dir).map_or(wanted.to_string(), |rel| rel.display().to_string());
    if wanted == SKILL_FILE {
        return ToolOutput::ok(skill.body.clone());
    }
    if !files.contains(&wanted) {
        return ToolOutput::error(format!(
            "{wanted:?} is not a file of skill {} (its files: {})",
            skill.name,
            if files.is_empty() { "none besides SKILL.md".to_string() } else { files.join(", ") }
        ));
    }
    let path = skill.dir.join(&wanted);
    let mut bytes = Vec::new();
    let read = std::fs::File::open(&path).and_then(|file| file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes));
    if let Err(err) = read {
        return ToolOutput::error(format!("cannot read {}: {err}", path.display()));
    }
    if bytes.len() as u64 > MAX_FILE_BYTES || super::has_nul(&bytes) {
        let why = if super::has_nul(&bytes) {
            "binary".to_string()
        } else {
            format!("larger than {} KB", MAX_FILE_BYTES / 1024)
        };
        return ToolOutput::error(format!("{} is {why}: run or read it with bash", path.display()));
    }
    ToolOutput::ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// What the listing of a skill's files left out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Listing {
    All,
    /// This many files beyond `MAX_LISTED`.
    More(usize),
    /// The walk stopped at `MAX_WALKED` files.
    TooMany,
}

/// The files of a skill's folder but its `SKILL.md`, relative to it and sorted (hidden ones and
/// those under hidden folders left out), at most `MAX_LISTED`, and what was left out.
fn list_files(dir: &Path) -> (Vec<String>, Listing) {
    let mut found = Vec::new();
    let mut pending: Vec<(PathBuf, usize)> = vec![(PathBuf::new(), 0)];
    while let Some((rel, depth)) = pending.pop() {
        if found.len() >= MAX_WALKED {
            found.sort();
            found.truncate(MAX_LISTED);
            return (found, Listing::TooMany);
        }
        let Ok(entries) = std::fs::read_dir(dir.join(&rel)) else { continue };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(text) = name.to_str() else { continue };
            if text.starts_with('.') {
                continue;
            }
            let entry_rel = rel.join(text);
            match std::fs::metadata(entry.path()) {
                Ok(meta) if meta.is_dir() && depth < MAX_DEPTH => pending.push((entry_rel, depth + 1)),
                Ok(meta) if meta.is_file() && entry_rel != Path::new(SKILL_FILE) => {
                    found.push(entry_rel.display().to_string());
                }
                _ => {}
            }
        }
    }
    found.sort();
    let more = found.len().saturating_sub(MAX_LISTED);
    found.truncate(MAX_LISTED);
    (found, if more == 0 { Listing::All } else { Listing::More(more) })
}

#[cfg(test)]
#[path = "skill_tests.rs"]
mod tests;
