//! The "# Skills" section of the system prompt: each skill's name and description only, and how
//! to load one (the `skill` tool); the instructions themselves reach the model only when it asks.
//!
//! Invariant: pure, and depends only on the skills found at start-up (the section is part of the
//! stable prompt, byte-identical across turns). The lean section costs a bounded number of bytes
//! whatever the number of skills: a short line per skill up to `LEAN_BUDGET_BYTES`, the other
//! skills by name only, so a 4k window can hold many.

use crate::config::skills::Skill;
use crate::tools::lean::first_sentence;

/// The longest description of a skill in the lean section, in characters (its first sentence).
const LEAN_DESCRIPTION_CHARS: usize = 80;
/// The bytes of the lean section's described lines; the skills beyond are listed by name only.
const LEAN_BUDGET_BYTES: usize = 1200;

/// The section for the full prompt (empty without skills): every skill with its description.
pub(crate) fn skills_section(skills: &[Skill]) -> String {
    if skills.is_empty() {
        return String::new();
    }
    let mut text = "\n\n# Skills\nSkills are instructions for particular tasks, kept out of this prompt until needed. \
                    Before you start a task that a skill below describes, call the skill tool with its name and \
                    follow what it returns.\n"
        .to_string();
    for skill in skills {
        text.push_str(&format!("- {}: {}\n", skill.name, skill.description));
    }
    text.truncate(text.trim_end().len());
    text
}

/// The section for the lean prompt (empty without skills): a first sentence per skill while
/// the budget lasts, then the names of the rest on one line.
pub(crate) fn lean_skills_section(skills: &[Skill]) -> String {
    if skills.is_empty() {
        return String::new();
    }
    let mut text = "\n\n# Skills (call skill with a name before a task it fits)\n".to_string();
    let mut spent = 0;
    let mut rest = Vec::new();
    for skill in skills {
        let line = format!("- {}: {}\n", skill.name, first_sentence(&skill.description, LEAN_DESCRIPTION_CHARS));
        if rest.is_empty() && spent + line.len() <= LEAN_BUDGET_BYTES {
            spent += line.len();
            text.push_str(&line);
        } else {
            rest.push(skill.name.as_str());
        }
    }
    if !rest.is_empty() {
        text.push_str(&format!("- also: {}\n", rest.join(", ")));
    }
    text.truncate(text.trim_end().len());
    text
}

#[cfg(test)]
#[path = "prompt_skills_tests.rs"]
mod tests;
