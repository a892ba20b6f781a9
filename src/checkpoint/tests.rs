//! Whole sessions of checkpoints on real projects: turns that change files every way a tool or a
//! command can, then restores, undos, resumes, and what must never be touched.

use super::*;
use crate::test_dir::TempDir;
use std::os::unix::fs::PermissionsExt;

const SESSION: &str = "20250101-120000-abcd";

fn coverage(project: &TempDir) -> Coverage {
    Coverage { project: project.path().to_path_buf(), extra: Vec::new() }
}

fn open(project: &TempDir) -> Checkpoints {
    Checkpoints::open(coverage(project), SESSION)
}

/// One turn that changes files: begin, the checkpoint before the first change, `change`, end.
fn turn(checkpoints: &Checkpoints, prompt: &str, change: impl FnOnce()) -> u32 {
    let number = checkpoints.begin_turn(prompt, 0);
    checkpoints.before_change().unwrap();
    change();
    checkpoints.end_turn().unwrap();
    number
}

/// Restores to before `turn` (or undoes the rewind to it), keeping `keep`.
fn restore(checkpoints: &Checkpoints, turn: u32, rewind: bool, keep: &[PathBuf]) -> Report {
    let plan = checkpoints.plan(turn, rewind).unwrap();
    let report = checkpoints.apply(&plan, keep).unwrap();
    assert_eq!(report.failed, Vec::new(), "{plan:?}");
    report
}

fn mode_of(path: &Path) -> u32 {
    std::fs::symlink_metadata(path).unwrap().permissions().mode() & 0o777
}

fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Bytes no text file has, `len` of them.
fn binary(len: usize, seed: u64) -> Vec<u8> {
    let mut rng = crate::test_rng::XorShift(seed);
    (0..len).map(|_| rng.next() as u8).collect()
}

#[test]
fn every_kind_of_change_a_turn_makes_is_put_back_by_a_restore() {
    let project = TempDir::new("ck-kinds");
    project.write("written.txt", "before\n");
    project.write("sed.txt", "alpha beta\n");
    project.write("truncated.txt", "abc");
    project.write("deleted/keep.txt", "keep me\n");
    project.write("exec.sh", "#!/bin/sh\n");
    project.write("was-exec.sh", "#!/bin/sh\necho\n");
    set_mode(&project.join("was-exec.sh"), 0o755);
    let big = binary(5 << 20, 29);
    std::fs::write(project.join("big.bin"), &big).unwrap();
    std::os::unix::fs::symlink("written.txt", project.join("link")).unwrap();
    std::os::unix::fs::symlink("nowhere", project.join("dangling")).unwrap();
    let checkpoints = open(&project);
    let number = turn(&checkpoints, "change everything", || {
        crate::fsx::write_atomic(&project.join("written.txt"), b"after\n").unwrap();
        // `sed -i`: a new file renamed over the old one.
        std::fs::write(project.join(".sed-tmp"), "alpha gamma\n").unwrap();
        std::fs::rename(project.join(".sed-tmp"), project.join("sed.txt")).unwrap();
        // In place, same size, at once: the racy case a stat cache must not miss.
        std::fs::write(project.join("truncated.txt"), "xyz").unwrap();
        std::fs::remove_dir_all(project.join("deleted")).unwrap();
        project.write("created/deep/new.txt", "new\n");
        set_mode(&project.join("exec.sh"), 0o755);
        std::fs::write(project.join("was-exec.sh"), "changed\n").unwrap();
        let mut other = big.clone();
        other[4 << 20] ^= 0xff;
        std::fs::write(project.join("big.bin"), &other).unwrap();
        std::fs::remove_file(project.join("link")).unwrap();
        std::os::unix::fs::symlink("sed.txt", project.join("link")).unwrap();
        std::fs::remove_file(project.join("dangling")).unwrap();
        std::os::unix::fs::symlink("/etc", project.join("new-link")).unwrap();
    });
    assert_eq!(number, 1);
    let changed = checkpoints.points()[0].changed.clone();
    let expected = [
        "big.bin",
        "created/deep/new.txt",
        "dangling",
        "deleted/keep.txt",
        "exec.sh",
        "link",
        "new-link",
        "sed.txt",
        "truncated.txt",
        "was-exec.sh",
        "written.txt",
    ];
    assert_eq!(changed, expected);
    let plan = checkpoints.plan(1, false).unwrap();
    let rel = |paths: &[PathBuf]| -> Vec<String> {
        paths.iter().map(|path| path.strip_prefix(project.path()).unwrap().to_string_lossy().into_owned()).collect()
    };
    assert_eq!(rel(&plan.remove), ["created/deep/new.txt", "new-link"]);
    assert_eq!(rel(&plan.restore).len(), 9);
    assert_eq!((plan.hand_changed.clone(), plan.not_covered.clone()), (Vec::new(), Vec::new()));
    let report = checkpoints.apply(&plan, &[]).unwrap();
    assert_eq!((report.failed.clone(), report.restored.len(), report.removed.len()), (Vec::new(), 9, 2));
    assert_eq!(project.read("written.txt"), "before\n");
    assert_eq!(project.read("sed.txt"), "alpha beta\n");
    assert_eq!(project.read("truncated.txt"), "abc");
    assert_eq!(project.read("deleted/keep.txt"), "keep me\n");
    assert!(!project.join("created").exists(), "the directories the turn created went with its file");
    assert_eq!((mode_of(&project.join("exec.sh")), mode_of(&project.join("was-exec.sh"))), (0o644, 0o755));
    assert_eq!(project.read("was-exec.sh"), "#!/bin/sh\necho\n");
    assert!(std::fs::read(project.join("big.bin")).unwrap() == big, "the 5 MB binary is back byte for byte");
    assert_eq!(std::fs::read_link(project.join("link")).unwrap(), Path::new("written.txt"));
    assert_eq!(std::fs::read_link(project.join("dangling")).unwrap(), Path::new("nowhere"));
    assert!(std::fs::symlink_metadata(project.join("new-link")).is_err());
    assert_eq!(checkpoints.plan(1, false).unwrap().restore, Vec::<PathBuf>::new(), "nothing left to restore");
}

#[test]
fn heavy_and_gitignored_files_are_neither_stored_nor_deleted_and_too_large_ones_are_listed() {
    let project = TempDir::new("ck-ignored");
    project.write(".gitignore", "build/\n*.log\n");
    project.write("src/main.rs", "fn main() {}\n");
    project.write("node_modules/pkg/index.js", "module.exports = 1;\n");
    project.write("build/out.o", "object code");
    project.write("trace.log", "old log\n");
    let huge = project.join("huge.bin");
    std::fs::File::create(&huge).unwrap().set_len(scan::MAX_FILE_BYTES + 1).unwrap();
    let checkpoints = open(&project);
    turn(&checkpoints, "build", || {
        project.write("node_modules/pkg/new.js", "added by npm\n");
        project.write("node_modules/pkg/index.js", "module.exports = 2;\n");
        project.write("build/new.o", "more object code");
        project.write("trace.log", "new log\n");
        project.write("src/main.rs", "fn main() { run() }\n");
        std::fs::File::options().write(true).open(&huge).unwrap().set_len(scan::MAX_FILE_BYTES + 2).unwrap();
    });
    let plan = checkpoints.plan(1, false).unwrap();
    assert_eq!((plan.restore.clone(), plan.remove.clone()), (vec![project.join("src/main.rs")], Vec::new()));
    assert_eq!(plan.not_covered, vec![huge.clone()]);
    restore(&checkpoints, 1, false, &[]);
    assert_eq!(project.read("src/main.rs"), "fn main() {}\n");
    assert_eq!(project.read("node_modules/pkg/index.js"), "module.exports = 2;\n");
    assert_eq!(project.read("node_modules/pkg/new.js"), "added by npm\n");
    assert_eq!(
        (project.read("build/new.o"), project.read("trace.log")),
        ("more object code".into(), "new log\n".into())
    );
    assert_eq!(std::fs::metadata(&huge).unwrap().len(), scan::MAX_FILE_BYTES + 2, "never written");
    let store = store::Store::new(project.path());
    for ignored in ["module.exports = 1;\n", "object code", "old log\n"] {
        assert!(!store.object_path(store::Digest::of(ignored.as_bytes())).exists(), "{ignored:?} was stored");
    }
    assert!(store.object_path(store::Digest::of(b"fn main() {}\n")).exists());
}

#[test]
fn hand_changes_between_turns_and_since_the_last_are_listed_and_kept_when_asked() {
    let project = TempDir::new("ck-hand");
    for name in ["a.txt", "b.txt", "c.txt", "d.txt"] {
        project.write(name, "original\n");
    }
    let checkpoints = open(&project);
    turn(&checkpoints, "one", || drop(project.write("a.txt", "turn one\n")));
    project.write("b.txt", "by hand between turns\n");
    turn(&checkpoints, "two", || drop(project.write("c.txt", "turn two\n")));
    project.write("d.txt", "by hand after the last turn\n");
    project.write("e.txt", "created by hand\n");
    let plan = checkpoints.plan(1, false).unwrap();
    assert_eq!(plan.hand_changed, vec![project.join("b.txt"), project.join("d.txt"), project.join("e.txt")]);
    assert_eq!(checkpoints.plan(2, false).unwrap().hand_changed, vec![project.join("d.txt"), project.join("e.txt")]);
    let report = restore(&checkpoints, 1, false, &[project.join("b.txt"), PathBuf::from("e.txt")]);
    assert_eq!(report.kept, vec![project.join("b.txt"), project.join("e.txt")]);
    assert_eq!(project.read("a.txt"), "original\n");
    assert_eq!(project.read("b.txt"), "by hand between turns\n");
    assert_eq!(project.read("c.txt"), "original\n");
    assert_eq!(project.read("d.txt"), "original\n");
    assert_eq!(project.read("e.txt"), "created by hand\n");
}

#[test]
fn a_restore_goes_two_turns_back_and_undoing_it_brings_the_turns_back() {
    let project = TempDir::new("ck-undo");
    project.write("a.txt", "zero\n");
    let checkpoints = open(&project);
    turn(&checkpoints, "first", || drop(project.write("a.txt", "one\n")));
    turn(&checkpoints, "nothing", || {});
    let third = checkpoints.begin_turn("second", 4);
    checkpoints.before_change().unwrap();
    project.write("a.txt", "two\n");
    project.write("b.txt", "new in two\n");
    checkpoints.before_change().unwrap();
    checkpoints.end_turn().unwrap();
    assert_eq!(third, 3);
    restore(&checkpoints, 1, false, &[]);
    assert_eq!((project.read("a.txt"), project.join("b.txt").exists()), ("zero\n".into(), false));
    let points = checkpoints.points();
    let summary: Vec<(u32, bool, &str, usize)> =
        points.iter().map(|point| (point.turn, point.rewind, point.prompt.as_str(), point.changed.len())).collect();
    assert_eq!(
        summary,
        [(1, true, "rewind to turn 1", 2), (3, false, "second", 2), (2, false, "nothing", 0), (1, false, "first", 1)]
    );
    assert_eq!((points[0].history_len, points[1].history_len), (None, Some(4)));
    let undo = checkpoints.plan(1, true).unwrap();
    assert_eq!(
        (undo.rewind, undo.restore.clone(), undo.remove.clone()),
        (true, vec![project.join("a.txt"), project.join("b.txt")], Vec::new())
    );
    restore(&checkpoints, 1, true, &[]);
    assert_eq!((project.read("a.txt"), project.read("b.txt")), ("two\n".into(), "new in two\n".into()));
    let undone = &checkpoints.points()[0];
    assert_eq!((undone.turn, undone.rewind, undone.prompt.as_str()), (1, true, "undo of the rewind to turn 1"));
    assert_eq!(undone.changed.len(), 2);
    assert!(checkpoints.plan(2, true).is_err(), "no rewind went to turn 2");
    assert!(checkpoints.plan(9, false).unwrap_err().contains("no turn 9"));
}

#[test]
fn a_resumed_session_numbers_on_and_restores_what_the_first_run_recorded_despite_a_torn_line() {
    let project = TempDir::new("ck-resume");
    project.write("a.txt", "zero\n");
    {
        let checkpoints = open(&project);
        turn(&checkpoints, "first", || drop(project.write("a.txt", "one\n")));
        turn(&checkpoints, "second", || drop(project.write("a.txt", "two\n")));
    }
    let log = project.join(log::log_rel(SESSION));
    let mut torn = std::fs::read(&log).unwrap();
    torn.extend_from_slice(br#"{"kind":"snapshot","turn":3,"moment":"bef"#);
    std::fs::write(&log, &torn).unwrap();
    {
        let checkpoints = open(&project);
        assert_eq!(checkpoints.points().len(), 2);
        assert_eq!(turn(&checkpoints, "third", || drop(project.write("b.txt", "three\n"))), 3);
        restore(&checkpoints, 2, false, &[]);
        assert_eq!((project.read("a.txt"), project.join("b.txt").exists()), ("one\n".into(), false));
    }
    let checkpoints = open(&project);
    let turns: Vec<(u32, bool)> = checkpoints.points().iter().map(|point| (point.turn, point.rewind)).collect();
    assert_eq!(turns, [(2, true), (3, false), (2, false), (1, false)]);
    restore(&checkpoints, 1, false, &[]);
    assert_eq!(project.read("a.txt"), "zero\n");
}

#[test]
fn a_directory_swapped_for_a_link_after_the_plan_is_not_written_through() {
    let project = TempDir::new("ck-planted");
    let outside = TempDir::new("ck-planted-outside");
    project.write("sub/f.txt", "mine\n");
    let checkpoints = open(&project);
    turn(&checkpoints, "delete", || std::fs::remove_file(project.join("sub/f.txt")).unwrap());
    let plan = checkpoints.plan(1, false).unwrap();
    assert_eq!(plan.restore, vec![project.join("sub/f.txt")]);
    std::fs::remove_dir(project.join("sub")).unwrap();
    std::os::unix::fs::symlink(outside.path(), project.join("sub")).unwrap();
    let report = checkpoints.apply(&plan, &[]).unwrap();
    assert_eq!(report.failed.len(), 1, "{report:?}");
    assert!(report.failed[0].1.contains("symbolic link"), "{report:?}");
    assert_eq!(crate::test_tree::files_under(outside.path()), Vec::new());
}

#[test]
fn session_changes_compare_the_first_snapshot_with_the_files_now() {
    let project = TempDir::new("ck-diff");
    project.write("a.txt", "zero\n");
    project.write("gone.txt", "bye\n");
    let checkpoints = open(&project);
    assert_eq!(checkpoints.session_changes().unwrap(), Vec::new(), "nothing recorded yet");
    turn(&checkpoints, "one", || {
        project.write("a.txt", "one\n");
        std::fs::remove_file(project.join("gone.txt")).unwrap();
    });
    project.write("new.txt", "by hand\n");
    let changes = checkpoints.session_changes().unwrap();
    let expected = vec![
        FileChange { path: project.join("a.txt"), before: Some(b"zero\n".to_vec()), after: Some(b"one\n".to_vec()) },
        FileChange { path: project.join("gone.txt"), before: Some(b"bye\n".to_vec()), after: None },
        FileChange { path: project.join("new.txt"), before: None, after: Some(b"by hand\n".to_vec()) },
    ];
    assert_eq!(changes, expected);
}

#[test]
fn a_turn_that_changes_nothing_records_nothing_and_is_still_a_point() {
    let project = TempDir::new("ck-quiet");
    project.write("a.txt", "zero\n");
    let checkpoints = open(&project);
    assert_eq!(checkpoints.begin_turn("just a question\nsecond line", 7), 1);
    checkpoints.end_turn().unwrap();
    let log = std::fs::read_to_string(project.join(log::log_rel(SESSION))).unwrap();
    assert!(log.contains(r#""kind":"turn""#) && !log.contains("snapshot"), "{log}");
    let points = checkpoints.points();
    assert_eq!(points.len(), 1);
    assert_eq!(
        (points[0].prompt.as_str(), points[0].changed.len(), points[0].history_len),
        ("just a question", 0, Some(7))
    );
    let empty = checkpoints.plan(1, false).unwrap();
    assert_eq!((empty.restore.len(), empty.remove.len()), (0, 0));
    assert_eq!(checkpoints.apply(&empty, &[]).unwrap(), Report::default());
}

/// Every file under `.git` with its bytes and mode.
fn git_tree(project: &Path) -> Vec<(PathBuf, Vec<u8>, u32)> {
    crate::test_tree::files_under(&project.join(".git"))
        .into_iter()
        .map(|(path, bytes)| {
            let mode = mode_of(&path);
            (path, bytes, mode)
        })
        .collect()
}

#[test]
fn checkpoints_and_rewinds_leave_a_real_git_repository_untouched() {
    let project = TempDir::new("ck-git");
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(project.path())
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
    };
    // Without git there is no repository to protect: nothing to check here.
    if git(&["--version"]).is_err() {
        return;
    }
    project.write("a.txt", "zero\n");
    assert!(git(&["init", "-q"]).unwrap().status.success());
    git(&["add", "a.txt"]).unwrap();
    let commit = git(&["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "first"]).unwrap();
    assert!(commit.status.success(), "{commit:?}");
    project.write("a.txt", "staged\n");
    git(&["add", "a.txt"]).unwrap();
    let before = git_tree(project.path());
    let checkpoints = open(&project);
    turn(&checkpoints, "one", || drop(project.write("a.txt", "one\n")));
    turn(&checkpoints, "two", || drop(project.write("b.txt", "two\n")));
    restore(&checkpoints, 1, false, &[]);
    restore(&checkpoints, 1, true, &[]);
    drop(checkpoints);
    assert_eq!(git_tree(project.path()), before);
    assert_eq!(project.read("a.txt"), "one\n");
}

#[test]
fn files_under_an_extra_writable_root_are_restored_too() {
    let base = TempDir::new("ck-extra");
    let project = base.mkdir("project");
    base.write("project/a.txt", "project\n");
    base.write("cache/state.json", "{\"v\":1}\n");
    let coverage = Coverage { project: project.clone(), extra: vec![base.join("cache")] };
    let checkpoints = Checkpoints::open(coverage, SESSION);
    turn(&checkpoints, "both", || {
        base.write("cache/state.json", "{\"v\":2}\n");
        base.write("cache/new/file", "new\n");
        base.write("project/a.txt", "changed\n");
    });
    let changed = &checkpoints.points()[0].changed;
    let cache = base.join("cache").to_string_lossy().into_owned();
    assert_eq!(changed, &[format!("{cache}/new/file"), format!("{cache}/state.json"), "a.txt".to_string()]);
    let report = restore(&checkpoints, 1, false, &[]);
    assert_eq!(report.removed, vec![base.join("cache/new/file")]);
    assert_eq!((base.read("cache/state.json"), base.read("project/a.txt")), ("{\"v\":1}\n".into(), "project\n".into()));
    assert!(!base.join("cache/new").exists() && base.join("cache").is_dir(), "the root itself stays");
    assert_eq!(checkpoints.notes(), Vec::<String>::new());
}
