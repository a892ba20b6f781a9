//! Tests of `imports.rs`.

use super::*;
use crate::test_dir::TempDir;

fn project() -> (TempDir, PathBuf) {
    let dir = TempDir::new("imports");
    let root = std::fs::canonicalize(dir.path()).unwrap().join("repo");
    std::fs::create_dir_all(root.join("docs/deep")).unwrap();
    (dir, root)
}

#[test]
fn imports_bring_files_in_after_their_line_relative_to_the_importing_file() {
    let (_dir, root) = project();
    std::fs::write(root.join("docs/style.md"), "Use tabs.\nSee @deep/more.md.").unwrap();
    std::fs::write(root.join("docs/deep/more.md"), "Short names.").unwrap();
    let mut files = Vec::new();
    let text = expand("Rules:\n- style: @docs/style.md\nEnd.", &root, &Reach::project(&root), 10_000, &mut files);
    assert_eq!(text, "Rules:\n- style: @docs/style.md\nUse tabs.\nSee @deep/more.md.\nShort names.\nEnd.");
    assert_eq!(files, vec![root.join("docs/style.md"), root.join("docs/deep/more.md")]);
}

#[test]
fn code_mail_addresses_home_paths_missing_files_and_links_out_are_not_imports() {
    let (dir, root) = project();
    std::fs::write(root.join("a.md"), "A").unwrap();
    std::fs::write(dir.path().join("secret"), "key=1").unwrap();
    std::os::unix::fs::symlink(dir.path().join("secret"), root.join("link.md")).unwrap();
    let text = "mail me@x.org, `@a.md` and ``` fenced:\n```\n@a.md\n```\n@~/notes.md @missing.md @link.md @../secret";
    let mut files = Vec::new();
    assert_eq!(expand(text, &root, &Reach::project(&root), 10_000, &mut files), text);
    assert!(files.is_empty(), "{files:?}");
}

#[test]
fn a_cycle_stops_and_the_budget_holds() {
    let (_dir, root) = project();
    std::fs::write(root.join("a.md"), "A then @b.md").unwrap();
    std::fs::write(root.join("b.md"), "B then @a.md").unwrap();
    let mut files = Vec::new();
    let text = expand("@a.md", &root, &Reach::project(&root), 10_000, &mut files);
    assert_eq!(text, "@a.md\nA then @b.md\nB then @a.md");
    assert_eq!(expand("@a.md", &root, &Reach::project(&root), 8, &mut Vec::new()), "@a.md\nA ");
}

#[test]
fn imports_nest_only_so_deep() {
    let (_dir, root) = project();
    for n in 0..8 {
        std::fs::write(root.join(format!("f{n}.md")), format!("level {n} @f{}.md", n + 1)).unwrap();
    }
    let text = expand("@f0.md", &root, &Reach::project(&root), 10_000, &mut Vec::new());
    assert!(text.contains("level 4") && !text.contains("level 5"), "{text}");
}

#[test]
fn the_users_file_reaches_the_home_directory_and_mewcode_home_but_no_secret_and_nothing_above() {
    let dir = TempDir::new("imports-personal");
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let (home, mewcode_home) = (base.join("u"), base.join("u/.mewcode"));
    std::fs::create_dir_all(mewcode_home.join("parts")).unwrap();
    std::fs::create_dir_all(home.join("notes")).unwrap();
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(mewcode_home.join("parts/style.md"), "Style part.").unwrap();
    std::fs::write(home.join("notes/agent.md"), "Notes part, then @../shared.md").unwrap();
    std::fs::write(home.join("shared.md"), "Shared part.").unwrap();
    std::fs::write(base.join("outside.md"), "OUTSIDE").unwrap();
    std::fs::write(home.join(".ssh/config"), "SSH").unwrap();
    std::fs::write(home.join(".env"), "ENV").unwrap();
    std::fs::write(mewcode_home.join("session-key"), "KEY").unwrap();
    std::os::unix::fs::symlink(base.join("outside.md"), home.join("link.md")).unwrap();
    let text = "@parts/style.md @~/notes/agent.md\n@../../outside.md @~/../outside.md @~/link.md\n\
                @~/.ssh/config @~/.env @session-key";
    let mut files = Vec::new();
    let reach = Reach::personal(&mewcode_home, Some(&home));
    let expanded = expand(text, &mewcode_home, &reach, 10_000, &mut files);
    assert_eq!(
        expanded,
        "@parts/style.md @~/notes/agent.md\nStyle part.\nNotes part, then @../shared.md\nShared part.\n\
         @../../outside.md @~/../outside.md @~/link.md\n@~/.ssh/config @~/.env @session-key"
    );
    assert_eq!(files, vec![mewcode_home.join("parts/style.md"), home.join("notes/agent.md"), home.join("shared.md")]);
    // Without a home directory, `~/` names nothing and only $MEWCODE_HOME is reached.
    let alone = expand(
        "@~/notes/agent.md @parts/style.md",
        &mewcode_home,
        &Reach::personal(&mewcode_home, None),
        10_000,
        &mut Vec::new(),
    );
    assert_eq!(alone, "@~/notes/agent.md @parts/style.md\nStyle part.");
    // A home directory of `/` would reach everything: only $MEWCODE_HOME is reached then.
    let rooted = Reach::personal(&mewcode_home, Some(Path::new("/")));
    assert_eq!(expand("@../../outside.md", &mewcode_home, &rooted, 10_000, &mut Vec::new()), "@../../outside.md");
}

#[test]
fn a_projects_file_never_imports_a_sensitive_file_inside_it() {
    let (_dir, root) = project();
    std::fs::write(root.join(".env"), "TOKEN=1").unwrap();
    std::fs::write(root.join("docs/server.pem"), "KEY").unwrap();
    let text = "@.env @docs/server.pem";
    assert_eq!(expand(text, &root, &Reach::project(&root), 10_000, &mut Vec::new()), text);
}
