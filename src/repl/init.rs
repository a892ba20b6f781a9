//! `/init`: asks the model to look at the project and write an `AGENTS.md` for it (build and
//! test commands, layout, conventions), or to improve the one there is.
//!
//! Invariant: it is an ordinary turn on a built-in prompt, through the typed prompt's path, so
//! the model writes the file with the normal tools and approvals; nothing here writes a file.
//! An existing `AGENTS.md` or `CLAUDE.md` changes the prompt to "improve, do not overwrite".

use super::render::{DIM, paint};
use super::setup::Setup;
use super::turn::TurnContext;
use super::{ReplEnd, chat::Chat, run_prompt, say};
use std::path::Path;

/// The instruction files `/init` looks for at the root, in the order the prompt names them.
const EXISTING: [&str; 2] = ["AGENTS.md", "CLAUDE.md"];

/// Runs `/init` as a turn.
pub(super) fn run(chat: &mut Chat, setup: &Setup, context: &TurnContext) -> Option<ReplEnd> {
    let existing = existing_files(&setup.root);
    let what = if existing.contains(&"AGENTS.md") { "improve AGENTS.md" } else { "write AGENTS.md" };
    say(&paint(setup.color, DIM, &format!("(asking the model to look at the project and {what})")));
    run_prompt(chat, setup, context, &init_prompt(&existing))
}

/// Which of `EXISTING` are at the root (a link counts: it is what the agents read).
fn existing_files(root: &Path) -> Vec<&'static str> {
    EXISTING.into_iter().filter(|name| root.join(name).symlink_metadata().is_ok()).collect()
}

/// The prompt of `/init`, given the instruction files already at the root.
fn init_prompt(existing: &[&str]) -> String {
    let has_agents = existing.contains(&"AGENTS.md");
    let has_claude = existing.contains(&"CLAUDE.md");
    let mut prompt = String::from(
        "Look at this project and write an AGENTS.md file at its root: the instructions a coding agent (or a new \
         contributor) needs to work here.\n\n\
         Explore first: the README, the build and package files (Cargo.toml, package.json, pyproject.toml, go.mod, \
         Makefile, ...), the CI configuration, the layout of the source and test directories, and a few \
         representative source files. Then write a concise file (about 150 lines at most) with:\n\
         - the commands to build, run, test (the whole suite and a single test), lint and format, exactly as this \
         project runs them;\n\
         - the layout: the main directories and what lives in each;\n\
         - the conventions: code style, naming, error handling, how tests are written, commit and review rules;\n\
         - anything surprising a newcomer would trip over.\n\
         Write only what you found in the files; do not invent commands or rules, and leave out what any \
         developer would know. If other agents' rule files exist (.cursorrules, .cursor/rules/, \
         .github/copilot-instructions.md), use what is right in them.",
    );
    if has_agents {
        prompt.push_str(
            "\n\nAn AGENTS.md already exists: read it first and improve it rather than overwrite it blindly - keep \
             what is right, correct what is out of date, add what is missing, with targeted edits.",
        );
    }
    if has_claude {
        let what = if has_agents { "keep the two consistent" } else { "carry over what is still right" };
        prompt.push_str(&format!(
            "\n\nThere is a CLAUDE.md: read it and {what}; do not delete it or overwrite it blindly."
        ));
    }
    prompt
}

#[cfg(test)]
#[path = "init_tests.rs"]
mod tests;
