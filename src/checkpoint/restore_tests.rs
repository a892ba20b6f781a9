//! Tests of restoring: the decision per key as a table, and plans applied on disk.

use super::*;
use crate::checkpoint::store::Digest;
use crate::test_dir::TempDir;

fn file(content: &str) -> Entry {
    Entry::File { hash: Digest::of(content.as_bytes()), mode: 0o644, size: content.len() as u64 }
}

fn tree(entries: &[(&str, Entry)]) -> Tree {
    Tree { entries: entries.iter().map(|(key, entry)| (key.to_string(), entry.clone())).collect(), extra: Vec::new() }
}

#[test]
fn each_key_is_kept_restored_removed_or_not_covered() {
    let (one, two) = (file("1"), file("2"));
    let link = Entry::Link { target: "t".into() };
    let unstored = Entry::Unstored { size: 1 << 30, mtime_ns: 1 };
    let other_unstored = Entry::Unstored { size: 1 << 30, mtime_ns: 2 };
    let cases: [(Option<&Entry>, Option<&Entry>, Action); 12] = [
        (Some(&one), Some(&one), Action::Keep),
        (Some(&unstored), Some(&unstored), Action::Keep),
        (Some(&one), Some(&two), Action::Restore),
        (Some(&one), None, Action::Restore),
        (Some(&link), Some(&one), Action::Restore),
        (Some(&one), Some(&link), Action::Restore),
        (None, Some(&one), Action::Remove),
        (None, Some(&link), Action::Remove),
        (Some(&unstored), Some(&other_unstored), Action::NotCovered),
        (Some(&unstored), None, Action::NotCovered),
        (Some(&one), Some(&unstored), Action::NotCovered),
        (None, Some(&unstored), Action::NotCovered),
    ];
    for (target, now, expected) in cases {
        assert_eq!(decide(target, now), expected, "{target:?} → {now:?}");
    }
}

#[test]
fn a_plan_lists_sorted_keys_and_leaves_uncovered_files_and_foreign_roots_alone() {
    let mut target = tree(&[
        ("a", file("1")),
        ("b", file("1")),
        ("ignored-now", file("1")),
        ("/w/x", file("1")),
        ("big", Entry::Unstored { size: 9, mtime_ns: 1 }),
    ]);
    target.extra = vec!["/w".into()];
    let now = tree(&[("a", file("2")), ("c", file("new")), ("big", Entry::Unstored { size: 9, mtime_ns: 2 })]);
    let changes = plan_changes(&target, &now, |key| key == "ignored-now");
    let strings = |items: &[&str]| items.iter().map(|item| item.to_string()).collect::<Vec<_>>();
    assert_eq!(
        changes,
        Changes { restore: strings(&["a", "b"]), remove: strings(&["c"]), not_covered: strings(&["big"]) },
        "/w is not covered now: its file is not 'deleted'"
    );
}

struct Setup {
    project: TempDir,
    roots: Roots,
    store: Store,
}

fn setup(label: &str) -> Setup {
    let project = TempDir::new(label);
    let roots = Roots { project: project.path().to_path_buf(), extra: Vec::new(), extra_cap: 10 };
    let store = Store::new(project.path());
    Setup { project, roots, store }
}

impl Setup {
    fn stored(&self, content: &str) -> Entry {
        self.store.put(Digest::of(content.as_bytes()), content.as_bytes()).unwrap();
        file(content)
    }

    fn plan(&self, restore: &[&str], remove: &[&str]) -> Plan {
        let paths = |keys: &[&str]| keys.iter().map(|key| self.project.join(key)).collect::<Vec<_>>();
        Plan {
            turn: 1,
            rewind: false,
            restore: paths(restore),
            remove: paths(remove),
            hand_changed: Vec::new(),
            not_covered: Vec::new(),
            unreached: Vec::new(),
        }
    }
}

#[test]
fn removals_go_deepest_first_and_take_the_directories_they_empty_unless_the_target_needs_them() {
    let setup = setup("ck-restore-dirs");
    let project = &setup.project;
    project.write("new/deep/er/x.txt", "x");
    project.write("new/deep/y.txt", "y");
    project.write("kept/z.txt", "z");
    project.write("holds-ignored/z.txt", "z");
    project.write("holds-ignored/ignored.o", "o");
    project.mkdir("needed/sub");
    project.write("needed/sub/new.txt", "n");
    let target = tree(&[("needed/sub/old.txt", setup.stored("old"))]);
    let plan = setup.plan(
        &["needed/sub/old.txt"],
        &["new/deep/y.txt", "new/deep/er/x.txt", "kept/z.txt", "holds-ignored/z.txt", "needed/sub/new.txt"],
    );
    let report = apply_plan(&setup.roots, &setup.store, &target, &plan, &[project.join("kept/z.txt")]);
    assert_eq!(report.failed, Vec::new());
    assert_eq!(report.kept, vec![project.join("kept/z.txt")]);
    assert_eq!(report.removed.len(), 4);
    assert_eq!(report.removed[0], project.join("new/deep/er/x.txt"), "deepest first");
    assert_eq!(report.restored, vec![project.join("needed/sub/old.txt")]);
    assert!(!project.join("new").exists(), "every directory the removals emptied");
    assert!(project.join("kept/z.txt").exists() && project.join("holds-ignored/ignored.o").exists());
    assert_eq!(project.read("needed/sub/old.txt"), "old");
    assert!(project.path().is_dir(), "never the root itself");
}

#[test]
fn each_failure_is_reported_by_path_and_the_others_still_go() {
    let setup = setup("ck-restore-fail");
    let project = &setup.project;
    project.write("dir-now/inner.txt", "a directory took the file's name");
    let target = tree(&[
        ("ok.txt", setup.stored("fine")),
        ("lost.txt", file("never stored")),
        ("big", Entry::Unstored { size: 1, mtime_ns: 1 }),
        ("dir-now", setup.stored("was a file")),
        ("link", Entry::Link { target: "ok.txt".into() }),
    ]);
    let mut plan = setup.plan(&["lost.txt", "big", "dir-now", "absent-from-target", "ok.txt", "link"], &[]);
    plan.restore.push(PathBuf::from("/elsewhere/file"));
    let report = apply_plan(&setup.roots, &setup.store, &target, &plan, &[]);
    assert_eq!(report.restored, vec![project.join("ok.txt"), project.join("link")]);
    let failed: Vec<&Path> = report.failed.iter().map(|(path, _)| path.as_path()).collect();
    let expected = [
        project.join("lost.txt"),
        project.join("big"),
        project.join("dir-now"),
        project.join("absent-from-target"),
        PathBuf::from("/elsewhere/file"),
    ];
    assert_eq!(failed, expected.iter().map(PathBuf::as_path).collect::<Vec<_>>());
    assert!(report.failed[0].1.contains("cannot be read"), "{:?}", report.failed);
    assert!(report.failed[1].1.contains("not recorded"), "{:?}", report.failed);
    assert!(report.failed[4].1.contains("outside"), "{:?}", report.failed);
    assert_eq!(project.read("ok.txt"), "fine");
    assert_eq!(std::fs::read_link(project.join("link")).unwrap(), Path::new("ok.txt"));
    assert_eq!(project.read("dir-now/inner.txt"), "a directory took the file's name");
}

#[test]
fn a_restored_file_replaces_a_link_at_its_name_instead_of_writing_through_it() {
    let setup = setup("ck-restore-link");
    let outside = TempDir::new("ck-restore-link-outside");
    let victim = outside.write("victim", "untouched");
    std::os::unix::fs::symlink(&victim, setup.project.join("f.txt")).unwrap();
    let target = tree(&[("f.txt", setup.stored("mine"))]);
    let report = apply_plan(&setup.roots, &setup.store, &target, &setup.plan(&["f.txt"], &[]), &[]);
    assert_eq!(report.failed, Vec::new());
    assert_eq!(setup.project.read("f.txt"), "mine");
    assert!(!std::fs::symlink_metadata(setup.project.join("f.txt")).unwrap().file_type().is_symlink());
    assert_eq!(outside.read("victim"), "untouched");
}
