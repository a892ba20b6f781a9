//! Tests of `/init`'s prompt: what it asks for, and "improve" when instruction files exist.

use super::*;
use crate::test_dir::TempDir;

#[test]
fn the_prompt_asks_for_agents_md_with_commands_layout_and_conventions() {
    let prompt = init_prompt(&[]);
    for needle in ["write an AGENTS.md file at its root", "build, run, test", "the layout", "the conventions"] {
        assert!(prompt.contains(needle), "missing {needle:?} in {prompt}");
    }
    assert!(!prompt.contains("already exists"), "{prompt}");
    assert!(!prompt.contains("CLAUDE.md:"), "{prompt}");
}

#[test]
fn an_existing_file_is_improved_not_overwritten() {
    let agents = init_prompt(&["AGENTS.md"]);
    assert!(agents.contains("An AGENTS.md already exists: read it first and improve it rather than overwrite it"));
    let claude = init_prompt(&["CLAUDE.md"]);
    assert!(claude.contains("There is a CLAUDE.md: read it and carry over what is still right"), "{claude}");
    let both = init_prompt(&["AGENTS.md", "CLAUDE.md"]);
    assert!(both.contains("improve it") && both.contains("keep the two consistent"), "{both}");
}

#[test]
fn finds_the_instruction_files_at_the_root() {
    let dir = TempDir::new("init-existing");
    assert_eq!(existing_files(dir.path()), Vec::<&str>::new());
    dir.write("CLAUDE.md", "x");
    dir.write("sub/AGENTS.md", "x");
    assert_eq!(existing_files(dir.path()), vec!["CLAUDE.md"]);
    dir.write("AGENTS.md", "x");
    assert_eq!(existing_files(dir.path()), vec!["AGENTS.md", "CLAUDE.md"]);
}
