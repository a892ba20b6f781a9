//! Unit tests of add_dirs.rs: specs, resolution and its refusals, merging the levels.

use super::*;
use crate::test_dir::TempDir;

/// A machine in a temp dir: `home/` (with `.mewcode/`), `home/proj` (the project) and
/// `home/lib`, `home/docs` beside it.
struct Machine {
    dir: TempDir,
}

impl Machine {
    fn new() -> Machine {
        let dir = TempDir::new("add-dirs");
        for sub in ["home/.mewcode", "home/proj/sub", "home/lib/gen", "home/docs"] {
            dir.mkdir(sub);
        }
        dir.write("home/lib/file.txt", "x");
        Machine { dir }
    }

    fn path(&self, rel: &str) -> PathBuf {
        std::fs::canonicalize(self.dir.join(rel)).unwrap()
    }

    fn resolve(&self, spec: &str) -> Result<Option<AddDir>, String> {
        let (home, mewcode_home, root) = (self.path("home"), self.path("home/.mewcode"), self.path("home/proj"));
        let places = Places { home: Some(&home), mewcode_home: &mewcode_home, root: &root };
        resolve(spec, "--add-dir", &root, &places)
    }
}

#[test]
fn a_spec_is_writable_unless_it_ends_in_ro() {
    assert_eq!(split_spec("../lib"), ("../lib", true));
    assert_eq!(split_spec("../lib:rw"), ("../lib", true));
    assert_eq!(split_spec("../lib:ro"), ("../lib", false));
    assert_eq!(split_spec("a:b"), ("a:b", true));
}

#[test]
fn relative_home_and_linked_directories_resolve_to_their_canonical_path() {
    let machine = Machine::new();
    let lib = machine.path("home/lib");
    let expected = AddDir { path: lib.clone(), writable: true, source: "--add-dir".into() };
    assert_eq!(machine.resolve("../lib"), Ok(Some(expected.clone())));
    assert_eq!(machine.resolve("~/lib"), Ok(Some(expected.clone())));
    assert_eq!(machine.resolve(lib.to_str().unwrap()), Ok(Some(expected)));
    std::os::unix::fs::symlink(&lib, machine.dir.join("home/link")).unwrap();
    let read_only = machine.resolve("../link:ro").unwrap().unwrap();
    assert_eq!((read_only.path, read_only.writable), (lib, false));
}

#[test]
fn what_cannot_be_added_says_why() {
    let machine = Machine::new();
    let refused = |spec: &str| machine.resolve(spec).unwrap_err();
    assert!(refused("../missing").starts_with("../missing: No such file"), "{}", refused("../missing"));
    assert_eq!(refused("../lib/file.txt"), "../lib/file.txt: not a directory");
    assert_eq!(refused(":ro"), "an empty directory name");
    for holds_mewcode in ["~", "~/.mewcode", "~/.mewcode:ro", "/"] {
        let why = refused(holds_mewcode);
        assert!(why.contains("holds mewcode's own home"), "{holds_mewcode}: {why}");
    }
}

#[test]
fn a_directory_holding_the_home_may_only_be_added_read_only() {
    let machine = Machine::new();
    let home = machine.path("home");
    let elsewhere = machine.dir.mkdir("mewcode-home");
    let root = machine.path("home/proj");
    let places = Places { home: Some(&home), mewcode_home: &elsewhere, root: &root };
    let why = resolve("~", "--add-dir", &root, &places).unwrap_err();
    assert!(why.contains("cannot be added writable") && why.contains("(~:ro)"), "{why}");
    let parent = home.parent().unwrap().to_str().unwrap().to_string();
    assert!(resolve(&parent, "--add-dir", &root, &places).is_err());
    let read_only = resolve("~:ro", "--add-dir", &root, &places).unwrap().unwrap();
    assert_eq!((read_only.path, read_only.writable), (home.clone(), false));
    // Below the home is fine writable.
    assert!(resolve("~/docs", "--add-dir", &root, &places).unwrap().unwrap().writable);
}

#[test]
fn a_directory_inside_the_project_adds_nothing() {
    let machine = Machine::new();
    assert_eq!(machine.resolve("."), Ok(None));
    assert_eq!(machine.resolve("sub:ro"), Ok(None));
    // One holding the project is added (a monorepo's other packages), unless it holds more.
    assert!(machine.resolve("..:ro").unwrap_err().contains("mewcode's own home"));
    let monorepo = machine.resolve("../proj/..:ro").unwrap_err();
    assert!(monorepo.contains("mewcode's own home"), "{monorepo}");
}

#[test]
fn the_same_directory_twice_is_one_entry_writable_if_either_said_so() {
    let machine = Machine::new();
    let mut dirs = Vec::new();
    push(&mut dirs, machine.resolve("../lib:ro").unwrap().unwrap());
    push(&mut dirs, machine.resolve("~/lib").unwrap().unwrap());
    push(&mut dirs, machine.resolve("../docs:ro").unwrap().unwrap());
    assert_eq!(dirs.len(), 2);
    assert!(dirs[0].writable && !dirs[1].writable);
    assert_eq!(dirs[1].describe(), format!("{} (read-only, --add-dir)", machine.path("home/docs").display()));
}

#[test]
fn a_projects_add_dirs_are_ignored_and_the_users_missing_ones_warned_about() {
    let machine = Machine::new();
    let (home, mewcode_home, root) = (machine.path("home"), machine.path("home/.mewcode"), machine.path("home/proj"));
    let places = Places { home: Some(&home), mewcode_home: &mewcode_home, root: &root };
    let specs = vec!["~/lib".to_string(), "~/gone:ro".to_string(), "proj/sub".to_string()];
    let (mut dirs, mut warnings) = (Vec::new(), Vec::new());
    merge(&mut dirs, &specs, (Level::Project, ".mewcode.yaml", &root), &places, &mut warnings);
    assert!(dirs.is_empty());
    assert!(warnings[0].to_string().contains("add_dirs is ignored in a project's config"), "{warnings:?}");
    warnings.clear();
    merge(&mut dirs, &specs, (Level::User, "config.yaml", &home), &places, &mut warnings);
    assert_eq!(dirs.iter().map(|dir| dir.path.clone()).collect::<Vec<_>>(), [machine.path("home/lib")]);
    assert_eq!(dirs[0].source, "config.yaml");
    let said: Vec<String> = warnings.iter().map(ToString::to_string).collect();
    assert!(said[0].contains("add_dirs: ~/gone:ro: No such file") && said[0].ends_with("; ignored"), "{said:?}");
    assert!(said[1].contains("add_dirs: proj/sub is inside the project; ignored"), "{said:?}");
}

#[test]
fn add_dirs_must_be_a_list_of_strings() {
    let ctx = FileContext { display: "config.yaml", dir: Path::new("/"), lookup: None };
    let parse = |text: &str| parse_add_dirs(&serde_yaml::from_str::<Mapping>(text).unwrap(), &ctx);
    assert_eq!(parse("add_dirs: [a, ' b:ro ']").unwrap(), ["a", "b:ro"]);
    assert_eq!(parse("other: 1").unwrap(), Vec::<String>::new());
    assert_eq!(parse("add_dirs: a").unwrap_err().key_path, "add_dirs");
    assert_eq!(parse("add_dirs: [a, 3]").unwrap_err().key_path, "add_dirs[1]");
    assert_eq!(parse("add_dirs: ['']").unwrap_err().key_path, "add_dirs[0]");
}
