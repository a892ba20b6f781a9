//! Tests of finding and reading skills: front matter, names, descriptions, precedence, bad files.

use super::*;
use crate::test_dir::TempDir;

/// A user folder (no root to stay inside) at `dir/rel`.
fn user_dir(dir: &TempDir, rel: &str, label: &str) -> SkillDir {
    SkillDir { path: dir.join(rel), label: label.to_string(), origin: SkillOrigin::User, inside: None }
}

/// A project folder of `root` at `root/rel`.
fn project_dir(root: &Path, rel: &str) -> SkillDir {
    SkillDir {
        path: root.join(rel),
        label: rel.to_string(),
        origin: SkillOrigin::Project,
        inside: Some(root.to_path_buf()),
    }
}

fn messages(warnings: &[Warning]) -> Vec<String> {
    warnings.iter().map(ToString::to_string).collect()
}

/// What a file parses to: (name, description, body), or the problem.
type Parsed<'a> = Result<(Option<&'a str>, Option<&'a str>, &'a str), &'a str>;

#[test]
fn parses_front_matter_and_body() {
    let cases: &[(&str, Parsed)] = &[
        (
            "---\nname: pdf\ndescription: Fill PDF forms\n---\n# PDF\nRun it.\n",
            Ok((Some("pdf"), Some("Fill PDF forms"), "# PDF\nRun it.")),
        ),
        (
            "---\r\nname: 'a-b'\r\ndescription: \"Say hi\"\r\n---\r\nHello\r\n",
            Ok((Some("a-b"), Some("Say hi"), "Hello")),
        ),
        // YAML's block scalars, lists and maps are read as YAML; only the two fields are kept.
        (
            "---\ndescription: >\n  Two\n  lines\nallowed-tools:\n  - Bash(git:*)\nmetadata:\n  version: 1\n---\nx",
            Ok((None, Some("Two lines\n"), "x")),
        ),
        ("---\nname: 7\ndescription: true\n---\nx", Ok((Some("7"), Some("true"), "x"))),
        ("\u{feff}---\ndescription: bom\n---\nx", Ok((None, Some("bom"), "x"))),
        // An empty front matter and an empty body are read (the checks come later).
        ("---\n---\n", Ok((None, None, ""))),
        ("---\nname: x\n---", Ok((Some("x"), None, ""))),
        // Not YAML (`: ` inside a plain value): the top-level lines are read as text.
        (
            "---\nname: review\ndescription: Use when: reviewing a PR\n  more: indented\n- item\n# c\n\n---\nBody",
            Ok((Some("review"), Some("Use when: reviewing a PR"), "Body")),
        ),
        ("---\nname: \"q\"\ndescription: 'Use: it'\nbad: [\n---\nB", Ok((Some("q"), Some("Use: it"), "B"))),
        ("---\nname: ''\ndescription: \"half\nx: a: b\n---\nB", Ok((Some(""), Some("\"half"), "B"))),
        ("---\nname: half'\ndescription: \"\nx: a: b\n---\nB", Ok((Some("half'"), Some("\""), "B"))),
        ("---\nname:\ndescription: d\n---\nx", Ok((None, Some("d"), "x"))),
        (
            "no front matter\n",
            Err("it has no front matter (a first line --- then name: and description: lines, then ---)"),
        ),
        ("---", Err("it has no front matter (a first line --- then name: and description: lines, then ---)")),
        ("---\ndescription: never closed\nbody", Err("its front matter (--- at the top) has no closing ---")),
        ("---\n- a\n- b\n---\nx", Err("its front matter is not a list of `key: value` lines")),
        ("---\nname: [a]\ndescription: d\n---\nx", Err("its front matter's name is not text")),
        ("---\nname: a\ndescription: {x: 1}\n---\nx", Err("its front matter's description is not text")),
    ];
    for (text, expected) in cases {
        let parsed = parse_skill_file(text);
        let got = parsed
            .as_ref()
            .map(|(front, body)| (front.name.as_deref(), front.description.as_deref(), *body))
            .map_err(String::as_str);
        assert_eq!(&got, expected, "{text:?}");
    }
}

#[test]
fn a_front_matter_that_is_neither_yaml_nor_lines_names_the_line() {
    let err = parse_skill_file("---\nname: a\ndescription: b: c\nnot a key\n---\nx").unwrap_err();
    assert!(err.starts_with("its front matter is not YAML ("), "{err}");
    assert!(err.ends_with("), and line 4 is not `key: value`"), "{err}");
    let err = parse_skill_file("---\nname: a: b\nnot a key\n---\nx").unwrap_err();
    assert!(err.ends_with("), and line 3 is not `key: value`"), "{err}");
}

#[test]
fn names_are_lowercase_letters_digits_and_hyphens_up_to_64() {
    for good in ["a", "pdf-forms", "x2", "-", &"a".repeat(64)] {
        assert!(valid_name(good), "{good}");
    }
    for bad in ["", "PDF", "a_b", "a b", "a.b", "\u{e9}t\u{e9}", &"a".repeat(65)] {
        assert!(!valid_name(bad), "{bad}");
    }
}

/// `check_fields` of a folder and front matter: the result and the warnings' messages.
fn check(folder: &str, name: Option<&str>, description: Option<&str>) -> (Option<(String, String)>, Vec<String>) {
    let front = FrontMatter { name: name.map(str::to_string), description: description.map(str::to_string) };
    let mut warnings = Vec::new();
    let checked = check_fields(folder, front, "s/SKILL.md", &mut warnings);
    (checked, messages(&warnings))
}

#[test]
fn names_default_to_the_folder_and_problems_are_warnings_naming_the_file() {
    let ok = |name: &str, description: &str| Some((name.to_string(), description.to_string()));
    assert_eq!(check("pdf", Some("pdf"), Some("Fill")), (ok("pdf", "Fill"), vec![]));
    assert_eq!(check("pdf", None, Some(" Fill\n  forms ")), (ok("pdf", "Fill forms"), vec![]));
    assert_eq!(check("pdf", Some("  "), Some("d")), (ok("pdf", "d"), vec![]));
    assert_eq!(check("pdf", Some(" pdf "), Some("d")), (ok("pdf", "d"), vec![]));
    assert_eq!(
        check("pdf", Some("forms"), Some("d")),
        (
            ok("forms", "d"),
            vec!["s/SKILL.md: its name \"forms\" differs from its folder \"pdf\"; loaded as \"forms\"".to_string()]
        )
    );
    assert_eq!(
        check("pdf", Some("PDF Forms"), Some("d")),
        (
            ok("pdf", "d"),
            vec![
                "s/SKILL.md: its name \"PDF Forms\" is not a valid skill name (lowercase letters, digits and hyphens, at most 64); loaded as \"pdf\""
                    .to_string()
            ]
        )
    );
    assert_eq!(
        check("My Skill", Some("Bad"), Some("d")),
        (
            None,
            vec![
                "s/SKILL.md: not loaded: neither its name nor its folder \"My Skill\" is a valid skill name (lowercase letters, digits and hyphens, at most 64)"
                    .to_string()
            ]
        )
    );
    assert_eq!(check("My Skill", None, Some("d")).0, None);
    assert_eq!(check("My Skill", Some("good"), Some("d")).0, ok("good", "d"));
    let no_description =
        "s/SKILL.md: not loaded: it has no description (the model chooses a skill by its description)".to_string();
    assert_eq!(check("pdf", Some("pdf"), None), (None, vec![no_description.clone()]));
    assert_eq!(check("pdf", Some("pdf"), Some(" \n ")), (None, vec![no_description]));
}

#[test]
fn a_long_description_is_cut_at_1024_characters_with_a_warning() {
    let exact = "\u{e9}".repeat(1024);
    assert_eq!(check("a", None, Some(&exact)), (Some(("a".to_string(), exact.clone())), vec![]));
    let (checked, warnings) = check("a", None, Some(&format!("{exact}xyz")));
    assert_eq!(checked, Some(("a".to_string(), exact)));
    assert_eq!(warnings, vec!["s/SKILL.md: its description has 1027 characters; cut to 1024".to_string()]);
}

#[test]
fn loads_skills_first_folder_wins_and_bad_files_are_warnings() {
    let dir = TempDir::new("skills-load");
    dir.write("mine/pdf/SKILL.md", "---\nname: pdf\ndescription: Mine\n---\nMy body\n");
    dir.write("mine/pdf/scripts/fill.py", "print()");
    dir.write("mine/broken/SKILL.md", "no front matter");
    dir.write("mine/nodesc/SKILL.md", "---\nname: nodesc\n---\nx");
    dir.write("mine/.hidden/SKILL.md", "---\ndescription: hidden\n---\nx");
    dir.write("mine/notes/README.md", "not a skill");
    dir.write("mine/big/SKILL.md", format!("---\ndescription: big\n---\n{}", "x".repeat(MAX_SKILL_BYTES as usize)));
    dir.write("mine/latin/SKILL.md", b"---\ndescription: \xff\n---\nx".as_slice());
    dir.write("theirs/pdf/SKILL.md", "---\ndescription: Theirs\n---\nTheir body");
    dir.write("theirs/zeta/SKILL.md", "---\ndescription: Last\n---\nZ");
    dir.write("theirs/alpha/SKILL.md", "---\ndescription: First\n---\nA");
    let dirs = [user_dir(&dir, "mine", "~/mine"), user_dir(&dir, "theirs", "~/theirs"), user_dir(&dir, "missing", "x")];
    let (skills, warnings) = load_skills(&dirs);
    let names: Vec<&str> = skills.iter().map(|skill| skill.name.as_str()).collect();
    assert_eq!(names, ["alpha", "pdf", "zeta"]);
    let pdf = &skills[1];
    assert_eq!(pdf.description, "Mine");
    assert_eq!(pdf.body, "My body");
    assert_eq!(pdf.dir, dir.join("mine/pdf"));
    assert_eq!(pdf.file, "~/mine/pdf/SKILL.md");
    assert_eq!(pdf.origin, SkillOrigin::User);
    assert_eq!(pdf.shadows, ["~/theirs/pdf/SKILL.md"]);
    assert_eq!(
        messages(&warnings),
        [
            "~/mine/big/SKILL.md: not loaded: it is larger than 128 KB",
            "~/mine/broken/SKILL.md: not loaded: it has no front matter (a first line --- then name: and description: lines, then ---)",
            "~/mine/latin/SKILL.md: not loaded: it is not UTF-8 text",
            "~/mine/nodesc/SKILL.md: not loaded: it has no description (the model chooses a skill by its description)",
        ]
    );
}

#[test]
fn a_file_exactly_at_the_size_limit_loads() {
    let dir = TempDir::new("skills-size");
    let head = "---\ndescription: d\n---\n";
    dir.write("s/a/SKILL.md", format!("{head}{}", "x".repeat(MAX_SKILL_BYTES as usize - head.len())));
    let (skills, warnings) = load_skills(&[user_dir(&dir, "s", "s")]);
    assert_eq!((skills.len(), warnings), (1, vec![]));
}

#[test]
fn a_folder_reached_twice_is_read_once() {
    let dir = TempDir::new("skills-twice");
    dir.write("s/a/SKILL.md", "---\ndescription: d\n---\nx");
    std::os::unix::fs::symlink(dir.join("s"), dir.join("link")).unwrap();
    let (skills, _) = load_skills(&[user_dir(&dir, "s", "s"), user_dir(&dir, "link", "link")]);
    assert_eq!(skills.len(), 1);
    assert!(skills[0].shadows.is_empty(), "{:?}", skills[0].shadows);
}

#[test]
fn a_project_skill_that_leads_outside_the_project_is_not_read() {
    let base = TempDir::new("skills-outside");
    let root = base.mkdir("repo");
    base.write("secret/SKILL.md", "---\ndescription: key=1\n---\nkey");
    base.write("repo/.claude/skills/own/SKILL.md", "---\ndescription: Own\n---\nx");
    base.mkdir("repo/.claude/skills/planted");
    std::os::unix::fs::symlink(base.join("secret/SKILL.md"), root.join(".claude/skills/planted/SKILL.md")).unwrap();
    std::os::unix::fs::symlink(base.join("secret"), root.join(".claude/skills/linked")).unwrap();
    std::os::unix::fs::symlink(base.join("nowhere"), root.join(".claude/skills/own/../dangling")).unwrap();
    let (skills, warnings) = load_skills(&[project_dir(&root, ".claude/skills")]);
    assert_eq!(skills.iter().map(|skill| skill.name.as_str()).collect::<Vec<_>>(), ["own"]);
    assert_eq!(skills[0].origin, SkillOrigin::Project);
    let outside = "not loaded: it leads outside the project (a link); a project's skills must be its own files";
    assert_eq!(
        messages(&warnings),
        [format!(".claude/skills/linked/SKILL.md: {outside}"), format!(".claude/skills/planted/SKILL.md: {outside}")]
    );
    // The same links are the user's own choice in a user folder.
    let mut user = project_dir(&root, ".claude/skills");
    user.inside = None;
    assert_eq!(load_skills(&[user]).0.len(), 3);
}

#[test]
fn a_dangling_skill_file_is_a_warning() {
    let dir = TempDir::new("skills-dangling");
    dir.mkdir("s/gone");
    std::os::unix::fs::symlink(dir.join("nowhere"), dir.join("s/gone/SKILL.md")).unwrap();
    let (skills, warnings) = load_skills(&[user_dir(&dir, "s", "s")]);
    assert!(skills.is_empty());
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].to_string().starts_with("s/gone/SKILL.md: not loaded: cannot read it: "), "{:?}", warnings);
}

#[test]
fn too_many_skills_in_one_folder_is_a_warning() {
    let dir = TempDir::new("skills-many");
    for index in 0..=MAX_SKILLS_PER_DIR {
        dir.write(format!("s/k{index:03}/SKILL.md"), "---\ndescription: d\n---\nx");
    }
    let (skills, warnings) = load_skills(&[user_dir(&dir, "s", "s")]);
    assert_eq!(skills.len(), MAX_SKILLS_PER_DIR);
    assert_eq!(skills.last().map(|skill| skill.name.as_str()), Some("k199"));
    assert_eq!(messages(&warnings), ["s: more than 200 skills; only the first 200 are loaded"]);
    let exact = TempDir::new("skills-exact");
    for index in 0..MAX_SKILLS_PER_DIR {
        exact.write(format!("s/k{index:03}/SKILL.md"), "---\ndescription: d\n---\nx");
    }
    assert_eq!(load_skills(&[user_dir(&exact, "s", "s")]).1, vec![]);
}

#[test]
fn describes_the_folders_that_hold_skills() {
    let dir = TempDir::new("skills-describe");
    dir.write("a/one/SKILL.md", "anything");
    dir.write("a/notes/x.md", "not a skill");
    for index in 0..10 {
        dir.write(format!("b/s{index}/SKILL.md"), "x");
    }
    let dirs = [user_dir(&dir, "a", ".claude/skills"), user_dir(&dir, "b", ".agents/skills"), user_dir(&dir, "c", "c")];
    assert_eq!(
        describe_skill_dirs(&dirs),
        [
            "1 skill from .claude/skills: one",
            "10 skills from .agents/skills: s0, s1, s2, s3, s4, s5, s6, s7 and 2 more",
        ]
    );
}

#[test]
fn skill_dirs_put_the_users_first_and_leave_out_a_project_folder_that_is_the_users() {
    let base = TempDir::new("skills-dirs");
    let (root, home, user_home) = (base.mkdir("u/repo"), base.join("u/.mewcode"), base.join("u"));
    let (user, project) = skill_dirs(&root, &home, Some(&user_home));
    let shown = |dirs: &[SkillDir]| {
        dirs.iter().map(|dir| (dir.label.clone(), dir.origin, dir.inside.clone())).collect::<Vec<_>>()
    };
    assert_eq!(
        shown(&user),
        [
            ("~/.mewcode/skills".to_string(), SkillOrigin::User, None),
            ("~/.claude/skills".to_string(), SkillOrigin::User, None),
            ("~/.agents/skills".to_string(), SkillOrigin::User, None),
        ]
    );
    assert_eq!(user[1].path, user_home.join(".claude/skills"));
    let inside = Some(root.clone());
    assert_eq!(
        shown(&project),
        [
            (".mewcode/skills".to_string(), SkillOrigin::Project, inside.clone()),
            (".claude/skills".to_string(), SkillOrigin::Project, inside.clone()),
            (".agents/skills".to_string(), SkillOrigin::Project, inside),
        ]
    );
    assert_eq!(project[2].path, root.join(".agents/skills"));
    // Started in the home directory: its folders are the user's (with the default MEWCODE_HOME,
    // `.mewcode/skills` too); a link to the user's folder is the user's too.
    base.mkdir("u/.claude/skills");
    let (user, project) = skill_dirs(&user_home, &home, Some(&user_home));
    assert_eq!(user.len(), 3);
    assert_eq!(project, []);
    let (_, project) = skill_dirs(&user_home, &base.join("elsewhere"), Some(&user_home));
    assert_eq!(shown(&project), [(".mewcode/skills".to_string(), SkillOrigin::Project, Some(user_home.clone()))]);
    base.mkdir("u/repo/.mewcode");
    std::os::unix::fs::symlink(base.join("u/.claude/skills"), root.join(".mewcode/skills")).unwrap();
    let (_, project) = skill_dirs(&root, &home, Some(&user_home));
    assert_eq!(project.iter().map(|dir| dir.label.as_str()).collect::<Vec<_>>(), [".claude/skills", ".agents/skills"]);
    // No HOME: only MEWCODE_HOME's folder is the user's, named by its full path.
    let (user, _) = skill_dirs(&root, &home, None);
    assert_eq!(
        user.iter().map(|dir| dir.label.clone()).collect::<Vec<_>>(),
        [home.join("skills").display().to_string()]
    );
}
