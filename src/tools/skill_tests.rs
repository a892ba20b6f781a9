//! Tests of the `skill` tool: a skill's instructions and files, one of its files, unknown names.

use super::*;
use crate::config::skills::SkillOrigin;
use crate::test_dir::TempDir;
use crate::tools::test_support::{ProjectContext, check_rejects_bad_arguments, run};
use serde_json::json;

fn skill(name: &str, dir: &Path) -> Skill {
    Skill {
        name: name.to_string(),
        description: format!("{name} things"),
        body: format!("Do {name} things.\nRun scripts/go.sh."),
        dir: dir.to_path_buf(),
        file: format!("~/.claude/skills/{name}/SKILL.md"),
        origin: SkillOrigin::User,
        shadows: Vec::new(),
    }
}

/// Two skills, `pdf` with files and `bare` without, in a temp dir.
fn fixture() -> (TempDir, SkillTool) {
    let dir = TempDir::new("skill-tool");
    dir.write("pdf/SKILL.md", "---\ndescription: d\n---\nDo pdf things.");
    dir.write("pdf/scripts/go.sh", "echo go\n");
    dir.write("pdf/reference.md", "# Reference\n");
    dir.write("pdf/.env", "KEY=1");
    dir.write("pdf/.git/config", "x");
    dir.write("pdf/blob.bin", b"\x00\x01".as_slice());
    dir.mkdir("bare");
    let tool = SkillTool::new(vec![skill("bare", &dir.join("bare")), skill("pdf", &dir.join("pdf"))]);
    (dir, tool)
}

#[test]
fn returns_the_instructions_the_folder_and_its_files() {
    let (dir, tool) = fixture();
    let output = run(&tool, &dir.ctx(), json!({"name": "pdf"}));
    assert!(!output.is_error, "{}", output.content);
    let folder = dir.join("pdf");
    assert_eq!(
        output.content,
        format!(
            "Skill pdf (from ~/.claude/skills/pdf/SKILL.md)\nFolder: {}\n\nDo pdf things.\nRun scripts/go.sh.\n\n\
             Files in the folder (read one with the skill tool's file, run scripts with bash by their path under the folder):\n\
             - blob.bin\n- reference.md\n- scripts/go.sh\n",
            folder.display()
        )
    );
    let bare = run(&tool, &dir.ctx(), json!({"name": " bare "}));
    assert_eq!(
        bare.content,
        format!(
            "Skill bare (from ~/.claude/skills/bare/SKILL.md)\nFolder: {}\n\nDo bare things.\nRun scripts/go.sh.\n",
            dir.join("bare").display()
        )
    );
    // A name in other case is the same skill.
    assert!(run(&tool, &dir.ctx(), json!({"name": "PDF"})).content.starts_with("Skill pdf "));
}

#[test]
fn an_unknown_name_lists_the_skills() {
    let (dir, tool) = fixture();
    let output = run(&tool, &dir.ctx(), json!({"name": "docx"}));
    assert_eq!(output, ToolOutput::error("unknown skill \"docx\"; the skills are: bare, pdf"));
}

#[test]
fn file_reads_only_a_listed_text_file() {
    let (dir, tool) = fixture();
    let read = |file: &str| run(&tool, &dir.ctx(), json!({"name": "pdf", "file": file}));
    assert_eq!(read("scripts/go.sh"), ToolOutput::ok("echo go\n"));
    assert_eq!(read("./reference.md"), ToolOutput::ok("# Reference\n"));
    assert_eq!(read(&dir.join("pdf/reference.md").display().to_string()), ToolOutput::ok("# Reference\n"));
    assert_eq!(read("SKILL.md"), ToolOutput::ok("Do pdf things.\nRun scripts/go.sh."));
    // An empty file is the skill itself.
    assert!(read(" ").content.starts_with("Skill pdf "));
    let listed = "(its files: blob.bin, reference.md, scripts/go.sh)";
    for outside in [".env", "../bare/x", "/etc/passwd", "scripts/../.env", "nope.md"] {
        let output = read(outside);
        assert!(output.is_error, "{outside}");
        assert_eq!(output.content, format!("{outside:?} is not a file of skill pdf {listed}"));
    }
    let output = read("blob.bin");
    assert_eq!(
        output,
        ToolOutput::error(format!("{} is binary: run or read it with bash", dir.join("pdf/blob.bin").display()))
    );
    let output = run(&tool, &dir.ctx(), json!({"name": "bare", "file": "x"}));
    assert_eq!(output, ToolOutput::error("\"x\" is not a file of skill bare (its files: none besides SKILL.md)"));
}

#[test]
fn a_large_file_is_refused_and_one_at_the_limit_is_read() {
    let (dir, tool) = fixture();
    dir.write("pdf/big.txt", "x".repeat(MAX_FILE_BYTES as usize + 1));
    dir.write("pdf/exact.txt", "x".repeat(MAX_FILE_BYTES as usize));
    let output = run(&tool, &dir.ctx(), json!({"name": "pdf", "file": "big.txt"}));
    assert_eq!(
        output,
        ToolOutput::error(format!(
            "{} is larger than 128 KB: run or read it with bash",
            dir.join("pdf/big.txt").display()
        ))
    );
    let output = run(&tool, &dir.ctx(), json!({"name": "pdf", "file": "exact.txt"}));
    assert_eq!(output.content.len(), MAX_FILE_BYTES as usize);
    assert!(!output.is_error);
}

#[test]
fn a_file_gone_since_the_listing_is_an_error() {
    let (dir, _) = fixture();
    let skill = skill("pdf", &dir.join("pdf"));
    let output = read_listed(&skill, &["gone.md".to_string()], "gone.md");
    assert!(output.is_error);
    assert!(
        output.content.starts_with(&format!("cannot read {}: ", dir.join("pdf/gone.md").display())),
        "{}",
        output.content
    );
}

#[test]
fn the_listing_is_bounded() {
    let dir = TempDir::new("skill-many");
    for index in 0..=MAX_LISTED {
        dir.write(format!("s/f{index:03}"), "x");
    }
    dir.write("s/a/b/c/d/deep", "x");
    dir.write("s/a/b/c/d/e/too-deep", "x");
    let (files, more) = list_files(&dir.join("s"));
    assert_eq!(files.len(), MAX_LISTED);
    assert_eq!(files[0], "a/b/c/d/deep");
    assert_eq!(more, Listing::More(2));
    let skill = skill("s", &dir.join("s"));
    assert!(render(&skill, &files, more).ends_with("- f098\n- ... and 2 more\n"));
    assert!(render(&skill, &files, Listing::TooMany).ends_with("- ... and more (over 2000 files)\n"));
    let exact = TempDir::new("skill-exact");
    for index in 0..MAX_LISTED {
        exact.write(format!("s/f{index:03}"), "x");
    }
    assert_eq!(list_files(&exact.join("s")).1, Listing::All);
}

#[test]
fn a_huge_folder_stops_the_walk() {
    let dir = TempDir::new("skill-huge");
    for sub in 0..3 {
        for index in 0..MAX_WALKED / 2 {
            dir.write(format!("s/d{sub}/f{index}"), "");
        }
    }
    let (files, more) = list_files(&dir.join("s"));
    assert_eq!((files.len(), more), (MAX_LISTED, Listing::TooMany));
}

#[test]
fn is_read_only_opaque_and_rejects_bad_arguments() {
    let (_dir, tool) = fixture();
    assert!(tool.read_only());
    assert_eq!((tool.name(), tool.rule_name(), tool.kind()), ("skill", "Skill", ToolKind::Opaque));
    check_rejects_bad_arguments(&tool, "name");
    let lean = tool.lean_input_schema();
    assert_eq!(lean["required"], json!(["name"]));
    assert_eq!(tool.lean_description(), "Load a skill by name: its instructions and files (file: read one of them).");
    for words in ["\"# Skills\"", "before you start it", "run its scripts with bash", "With file"] {
        assert!(tool.description().contains(words), "{words}");
    }
}
