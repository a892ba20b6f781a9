//! Tests of the skills section: names and descriptions only, and the lean section's budget.

use super::*;
use crate::config::skills::SkillOrigin;
use std::path::PathBuf;

fn skill(name: &str, description: &str) -> Skill {
    Skill {
        name: name.to_string(),
        description: description.to_string(),
        body: "SECRET BODY".to_string(),
        dir: PathBuf::from("/skills").join(name),
        file: format!("{name}/SKILL.md"),
        origin: SkillOrigin::User,
        shadows: Vec::new(),
    }
}

/// A realistic description: what it does, then when to use it (two sentences, ~200 characters).
fn realistic(index: usize) -> Skill {
    skill(
        &format!("skill-{index:02}"),
        "Fills, merges and extracts text from PDF documents with the scripts in this folder. Use it when the \
         user mentions PDF files, forms or reports that must be produced as PDF.",
    )
}

#[test]
fn no_skills_no_section() {
    assert_eq!(skills_section(&[]), "");
    assert_eq!(lean_skills_section(&[]), "");
}

#[test]
fn the_full_section_lists_names_and_descriptions_not_bodies() {
    let skills = [skill("pdf", "Fill PDF forms. Use for PDFs."), skill("review", "Review a PR")];
    let section = skills_section(&skills);
    assert_eq!(
        section,
        "\n\n# Skills\nSkills are instructions for particular tasks, kept out of this prompt until needed. Before you \
         start a task that a skill below describes, call the skill tool with its name and follow what it returns.\n\
         - pdf: Fill PDF forms. Use for PDFs.\n- review: Review a PR"
    );
    assert!(!section.contains("SECRET BODY"));
}

#[test]
fn the_lean_section_has_first_sentences_then_names_past_its_budget() {
    let skills = [skill("pdf", "Fill PDF forms. Use for PDFs."), skill("review", "Review a PR")];
    assert_eq!(
        lean_skills_section(&skills),
        "\n\n# Skills (call skill with a name before a task it fits)\n- pdf: Fill PDF forms.\n- review: Review a PR"
    );
    let many: Vec<Skill> = (0..40).map(realistic).collect();
    let section = lean_skills_section(&many);
    assert!(!section.contains("SECRET BODY"));
    let described = section.lines().filter(|line| line.starts_with("- skill-")).count();
    let also = section.lines().last().unwrap();
    assert!(also.starts_with(&format!("- also: skill-{described:02}, ")), "{also}");
    assert!(also.ends_with(", skill-39"), "{also}");
    // The described lines stay within the budget, and one more would not have fitted.
    let lines: usize = section.lines().filter(|line| line.starts_with("- skill-")).map(|line| line.len() + 1).sum();
    assert!(lines <= LEAN_BUDGET_BYTES && lines + lines / described > LEAN_BUDGET_BYTES, "{lines}");
}

#[test]
fn a_lean_line_costs_little_and_a_skill_past_the_budget_a_name() {
    // Measured: the bytes a realistic skill adds to each request, full and lean.
    let one = skills_section(&[realistic(0)]).len();
    let two = skills_section(&[realistic(0), realistic(1)]).len();
    let full_per_skill = two - one;
    let lean_one = lean_skills_section(&[realistic(0)]).len();
    let lean_two = lean_skills_section(&[realistic(0), realistic(1)]).len();
    let lean_per_skill = lean_two - lean_one;
    assert_eq!(
        (full_per_skill, lean_per_skill),
        (184, 91),
        "full {full_per_skill} B, lean {lean_per_skill} B per skill"
    );
    let many: Vec<Skill> = (0..100).map(realistic).collect();
    let fewer: Vec<Skill> = (0..99).map(realistic).collect();
    let per_name = lean_skills_section(&many).len() - lean_skills_section(&fewer).len();
    assert_eq!(per_name, ", skill-99".len());
    // A hundred skills in a lean request: 2117 bytes, about 530 tokens.
    assert_eq!(lean_skills_section(&many).len(), 2117);
}

#[test]
fn the_lean_section_keeps_the_order_after_the_first_skill_past_the_budget() {
    // A short line after the budget ran out goes to the names too: the list stays in order.
    let mut skills: Vec<Skill> = (0..20).map(realistic).collect();
    skills.push(skill("zz", "Short."));
    let section = lean_skills_section(&skills);
    assert!(section.ends_with(", skill-19, zz"), "{section}");
    assert!(!section.contains("Short."));
}
