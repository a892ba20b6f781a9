//! Unit tests of `fsx.rs`: link-refusing creation and writes, and lexical path handling.

use super::*;
use crate::test_dir::TempDir;
use crate::test_tree::files_under;

#[test]
fn the_mewcode_dir_gets_its_gitignore_once_and_never_through_a_link() {
    let temp = TempDir::new("fsx-gitignore");
    let base = temp.path();
    let project = base.join("project");
    fs::create_dir_all(&project).unwrap();
    let dir = project.join(".mewcode");
    ensure_gitignored_dir(&project, Path::new(".mewcode")).unwrap();
    assert_eq!(fs::read_to_string(dir.join(".gitignore")).unwrap(), MEWCODE_DIR_GITIGNORE);
    // The user's own (or the repository's) file stays as it is.
    fs::write(dir.join(".gitignore"), "mine\n").unwrap();
    ensure_gitignored_dir(&project, Path::new(".mewcode")).unwrap();
    assert_eq!(fs::read_to_string(dir.join(".gitignore")).unwrap(), "mine\n");
    // A dangling link at the name is not followed.
    fs::remove_file(dir.join(".gitignore")).unwrap();
    std::os::unix::fs::symlink(base.join("victim"), dir.join(".gitignore")).unwrap();
    ensure_gitignored_dir(&project, Path::new(".mewcode")).unwrap();
    assert!(!base.join("victim").exists());
    // `.mewcode` itself as a link out: refused, nothing written where it points.
    fs::remove_dir_all(&dir).unwrap();
    fs::create_dir_all(base.join("outside")).unwrap();
    std::os::unix::fs::symlink(base.join("outside"), &dir).unwrap();
    let err = ensure_gitignored_dir(&project, Path::new(".mewcode")).unwrap_err();
    assert!(err.to_string().contains("is a symbolic link; mewcode does not write through it"), "{err}");
    assert_eq!(fs::read_dir(base.join("outside")).unwrap().count(), 0);
}

/// A project (reached through a link, as a user's checkout may be) and, beside it, an
/// `outside` directory holding `keep.txt`: where a planted link wants mewcode's writes.
fn project_with_outside(tag: &str) -> (TempDir, PathBuf, PathBuf) {
    let base = TempDir::new(&format!("fsx-{tag}"));
    fs::create_dir_all(base.join("real-project")).unwrap();
    std::os::unix::fs::symlink(base.join("real-project"), base.join("project")).unwrap();
    fs::create_dir_all(base.join("outside")).unwrap();
    fs::write(base.join("outside/keep.txt"), "keep").unwrap();
    let (project, outside) = (base.join("project"), base.join("outside"));
    (base, project, outside)
}

fn outside_untouched(outside: &Path) {
    let names: Vec<_> = fs::read_dir(outside).unwrap().map(|entry| entry.unwrap().file_name()).collect();
    assert_eq!(names, vec![OsString::from("keep.txt")]);
    assert_eq!(fs::read_to_string(outside.join("keep.txt")).unwrap(), "keep");
}

#[test]
fn mewcode_dirs_are_created_beneath_the_root_and_every_planted_link_or_file_on_the_way_is_refused() {
    let (base, project, outside) = project_with_outside("beneath");
    let rel = Path::new(".mewcode/sessions/20260101-000000-abcd/tool-results");
    // The root itself is reached through a link: that is the user's business, allowed.
    assert_eq!(create_dirs_beneath(&project, rel).unwrap(), project.join(rel));
    assert!(fs::symlink_metadata(project.join(rel)).unwrap().is_dir());
    assert_eq!(create_dirs_beneath(&project, rel).unwrap(), project.join(rel), "existing directories pass");
    // Each of mewcode's own components in turn as a link out (and as a dangling link).
    for planted in [".mewcode", ".mewcode/sessions", ".mewcode/sessions/20260101-000000-abcd", rel.to_str().unwrap()] {
        let _ = fs::remove_dir_all(project.join(".mewcode"));
        fs::create_dir_all(project.join(planted).parent().unwrap()).unwrap();
        for target in [outside.clone(), base.join("nowhere")] {
            std::os::unix::fs::symlink(&target, project.join(planted)).unwrap();
            let err = create_dirs_beneath(&project, &rel.join("more")).unwrap_err();
            let expected =
                format!("{} is a symbolic link; mewcode does not write through it", project.join(planted).display());
            assert_eq!(err.to_string(), expected);
            fs::remove_file(project.join(planted)).unwrap();
        }
        // A file in its place.
        fs::write(project.join(planted), "x").unwrap();
        let err = create_dirs_beneath(&project, rel).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotADirectory, "{planted}: {err}");
        assert!(err.to_string().contains(&project.join(planted).display().to_string()), "{err}");
        fs::remove_file(project.join(planted)).unwrap();
    }
    outside_untouched(&outside);
    assert!(!base.join("nowhere").exists());
    // Checking alone creates nothing and finds the same links.
    let _ = fs::remove_dir_all(project.join(".mewcode"));
    check_dirs_beneath(&project, rel).unwrap();
    assert!(!project.join(".mewcode").exists());
    std::os::unix::fs::symlink(&outside, project.join(".mewcode")).unwrap();
    assert!(check_dirs_beneath(&project, rel).unwrap_err().to_string().contains(".mewcode is a symbolic link"));
    fs::remove_file(project.join(".mewcode")).unwrap();
    for not_plain in ["/etc", "../outside", "a/../../outside", "./a"] {
        let err = create_dirs_beneath(&project, Path::new(not_plain)).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{not_plain}: {err}");
    }
    outside_untouched(&outside);
}

#[test]
fn a_log_is_created_and_reopened_for_append_never_through_a_link_or_a_second_hard_link() {
    let (_base, project, outside) = project_with_outside("append-beneath");
    let rel = Path::new(".mewcode/sessions/s/conversation.jsonl");
    open_append_beneath(&project, rel, true).unwrap().write_all(b"one\n").unwrap();
    assert!(open_append_beneath(&project, rel, true).is_err(), "create never reuses a file");
    open_append_beneath(&project, rel, false).unwrap().write_all(b"two\n").unwrap();
    assert_eq!(fs::read_to_string(project.join(rel)).unwrap(), "one\ntwo\n");
    // A link at the log's name, to an existing file outside: neither mode writes through it.
    fs::remove_file(project.join(rel)).unwrap();
    std::os::unix::fs::symlink(outside.join("keep.txt"), project.join(rel)).unwrap();
    for create_new in [false, true] {
        let err = open_append_beneath(&project, rel, create_new).unwrap_err();
        assert!(err.to_string().contains("is a symbolic link; mewcode does not write through it"), "{err}");
    }
    // A hard link to a file elsewhere receives the same bytes: refused too.
    fs::remove_file(project.join(rel)).unwrap();
    fs::hard_link(outside.join("keep.txt"), project.join(rel)).unwrap();
    let err = open_append_beneath(&project, rel, false).unwrap_err();
    assert!(err.to_string().contains("has another hard link"), "{err}");
    fs::remove_file(project.join(rel)).unwrap();
    // A directory on the way as a link: refused before anything is opened or created.
    fs::remove_dir_all(project.join(".mewcode/sessions/s")).unwrap();
    std::os::unix::fs::symlink(&outside, project.join(".mewcode/sessions/s")).unwrap();
    for create_new in [false, true] {
        let err = open_append_beneath(&project, rel, create_new).unwrap_err();
        assert!(err.to_string().contains("sessions/s is a symbolic link"), "{err}");
    }
    outside_untouched(&outside);
}

#[test]
fn a_new_file_beneath_replaces_a_planted_link_or_leftover_and_never_writes_through_a_linked_directory() {
    let (_base, project, outside) = project_with_outside("new-beneath");
    let rel = Path::new(".mewcode/results/big");
    assert_eq!(write_new_beneath(&project, rel, b"first").unwrap(), project.join(rel));
    assert_eq!(write_new_beneath(&project, rel, b"second").unwrap(), project.join(rel), "a leftover is replaced");
    fs::remove_file(project.join(rel)).unwrap();
    std::os::unix::fs::symlink(outside.join("keep.txt"), project.join(rel)).unwrap();
    write_new_beneath(&project, rel, b"third").unwrap();
    assert!(fs::symlink_metadata(project.join(rel)).unwrap().is_file(), "the link itself was replaced");
    assert_eq!(fs::read_to_string(project.join(rel)).unwrap(), "third");
    fs::remove_dir_all(project.join(".mewcode/results")).unwrap();
    std::os::unix::fs::symlink(&outside, project.join(".mewcode/results")).unwrap();
    let err = write_new_beneath(&project, rel, b"payload").unwrap_err();
    assert!(err.to_string().contains("results is a symbolic link"), "{err}");
    outside_untouched(&outside);
}

#[test]
fn clean_path_folds_dots_lexically() {
    let cases = [
        ("/a/b/../c", "/a/c"),
        ("/a/./b/", "/a/b"),
        ("/../..", "/"),
        ("a/../..", ".."),
        ("a/..", "."),
        ("./x//y", "x/y"),
        ("/a/b/../../..", "/"),
    ];
    for (input, expected) in cases {
        assert_eq!(clean_path(Path::new(input)), PathBuf::from(expected), "input {input}");
    }
}

#[test]
fn resolve_path_joins_relative_and_keeps_absolute() {
    let root = Path::new("/proj");
    assert_eq!(resolve_path(root, "src/main.rs"), PathBuf::from("/proj/src/main.rs"));
    assert_eq!(resolve_path(root, "../etc/passwd"), PathBuf::from("/etc/passwd"));
    assert_eq!(resolve_path(root, "/tmp/x/../y"), PathBuf::from("/tmp/y"));
    assert_eq!(resolve_path(root, "."), PathBuf::from("/proj"));
    assert_eq!(resolve_path(root, ""), PathBuf::from("/proj"));
}

#[test]
fn write_atomic_creates_and_replaces_without_leftovers() {
    let temp = TempDir::new("fsx-write");
    let dir = temp.path();
    let target = dir.join("file.txt");
    write_atomic(&target, b"one").unwrap();
    write_atomic(&target, b"two").unwrap();
    assert_eq!(fs::read(&target).unwrap(), b"two");
    let names: Vec<_> = fs::read_dir(dir).unwrap().map(|entry| entry.unwrap().file_name()).collect();
    assert_eq!(names, vec![std::ffi::OsString::from("file.txt")]);
}

#[test]
fn write_atomic_keeps_permissions_of_the_existing_file() {
    let temp = TempDir::new("fsx-perm");
    let dir = temp.path();
    let target = dir.join("script.sh");
    fs::write(&target, "old").unwrap();
    fs::set_permissions(&target, fs::Permissions::from_mode(0o751)).unwrap();
    write_atomic(&target, b"new").unwrap();
    assert_eq!(fs::metadata(&target).unwrap().permissions().mode() & 0o777, 0o751);
}

#[test]
fn write_atomic_through_a_symlink_keeps_the_link() {
    let temp = TempDir::new("fsx-link");
    let dir = temp.path();
    let real = dir.join("real.txt");
    let link = dir.join("link.txt");
    fs::write(&real, "old").unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();
    write_atomic(&link, b"new").unwrap();
    assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(fs::read(&real).unwrap(), b"new");
}

#[test]
fn write_atomic_refuses_a_dangling_symlink() {
    let temp = TempDir::new("fsx-dangling");
    let dir = temp.path();
    let link = dir.join("link.txt");
    std::os::unix::fs::symlink(dir.join("nowhere/new.txt"), &link).unwrap();
    assert!(write_atomic(&link, b"x").is_err());
    assert!(!dir.join("nowhere").exists());
}

/// A project with `sub/file.txt` (content "old") and, beside it, an `outside` directory with
/// `secret.txt`, the place an attacker wants the write to land.
struct Race {
    /// Holds the others; removed when the race is dropped.
    base: TempDir,
    project: PathBuf,
    outside: PathBuf,
}

impl Race {
    fn new(tag: &str) -> Race {
        let base = TempDir::new(&format!("fsx-{tag}"));
        let (project, outside) = (base.join("project"), base.join("outside"));
        fs::create_dir_all(project.join("sub")).unwrap();
        fs::create_dir_all(&outside).unwrap();
        fs::write(project.join("sub/file.txt"), "old").unwrap();
        fs::write(outside.join("secret.txt"), "secret").unwrap();
        Race { base, project, outside }
    }

    /// Moves directory `dir` aside (to `<dir>-moved`, returned) and puts a symlink to
    /// `outside` in its place: the swap an attacker races against the write.
    fn swap_for_symlink(&self, dir: &Path) -> PathBuf {
        let moved = PathBuf::from(format!("{}-moved", dir.display()));
        fs::rename(dir, &moved).unwrap();
        std::os::unix::fs::symlink(&self.outside, dir).unwrap();
        moved
    }

    fn outside_untouched(&self) {
        let secret = self.outside.join("secret.txt");
        assert_eq!(files_under(&self.outside), vec![(secret, b"secret".to_vec())]);
    }
}

#[test]
fn a_directory_swapped_for_a_symlink_after_resolution_is_refused_and_nothing_is_written() {
    // The file's parent, then its grandparent (the project directory itself).
    for (swapped, file_in_moved) in [("project/sub", "file.txt"), ("project", "sub/file.txt")] {
        let race = Race::new("race-resolved");
        let swapped = race.base.join(swapped);
        let mut moved = None;
        let result = write_atomic_observed(&race.project.join("sub/file.txt"), None, b"payload", &mut |step| {
            if step == Step::Resolved {
                moved = Some(race.swap_for_symlink(&swapped));
            }
        });
        let err = result.unwrap_err().to_string();
        assert!(err.contains("was replaced") && err.contains("nothing was written"), "{err}");
        race.outside_untouched();
        let moved = moved.unwrap();
        let original = moved.join(file_in_moved);
        assert_eq!(files_under(&moved), vec![(original, b"old".to_vec())], "unchanged, no temporary file");
    }
}

#[test]
fn a_directory_swapped_after_it_was_opened_does_not_move_the_write() {
    let race = Race::new("race-opened");
    let mut moved = None;
    write_atomic_observed(&race.project.join("sub/file.txt"), None, b"payload", &mut |step| {
        if step == Step::Opened {
            moved = Some(race.swap_for_symlink(&race.project.join("sub")));
        }
    })
    .unwrap();
    race.outside_untouched();
    let written = moved.unwrap().join("file.txt");
    assert_eq!(fs::read_to_string(written).unwrap(), "payload", "in the directory that was opened");
}

#[test]
fn a_symlink_planted_at_the_file_name_after_resolution_is_replaced_not_followed() {
    for step_of_swap in [Step::Resolved, Step::Opened] {
        let race = Race::new("race-leaf");
        let target = race.project.join("sub/file.txt");
        write_atomic_observed(&target, None, b"payload", &mut |step| {
            if step == step_of_swap {
                fs::remove_file(&target).unwrap();
                std::os::unix::fs::symlink(race.outside.join("secret.txt"), &target).unwrap();
            }
        })
        .unwrap();
        race.outside_untouched();
        let meta = fs::symlink_metadata(&target).unwrap();
        assert!(meta.file_type().is_file(), "{step_of_swap:?}: the planted link was replaced by the file");
        assert_eq!(fs::read_to_string(&target).unwrap(), "payload");
        // A link's mode (0777) is not carried over to the new file.
        assert_ne!(meta.permissions().mode() & 0o777, 0o777);
    }
}

#[test]
fn a_swap_between_the_permission_check_and_the_call_is_caught_beneath_the_root() {
    // The check saw `sub/` inside the project; by the time the write comes (after the user
    // approved it, say) `sub` points outside, and so does the link at another name.
    let race = Race::new("race-before-call");
    let target = race.project.join("sub/file.txt");
    let moved = race.swap_for_symlink(&race.project.join("sub"));
    let err = write_atomic_beneath(&race.project, &target, b"payload").unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::PermissionDenied, "{err}");
    assert!(err.to_string().contains("outside") && err.to_string().contains("nothing was written"), "{err}");
    std::os::unix::fs::symlink(race.outside.join("secret.txt"), race.project.join("link.txt")).unwrap();
    assert!(write_atomic_beneath(&race.project, &race.project.join("link.txt"), b"payload").is_err());
    race.outside_untouched();
    assert_eq!(fs::read_to_string(moved.join("file.txt")).unwrap(), "old");
    // The same swap after resolution is the walk's to catch, with the root given too.
    let race = Race::new("race-beneath-resolved");
    let target = race.project.join("sub/file.txt");
    let result = write_atomic_observed(&target, Some(&race.project), b"payload", &mut |step| {
        if step == Step::Resolved {
            race.swap_for_symlink(&race.project.join("sub"));
        }
    });
    assert!(result.unwrap_err().to_string().contains("was replaced"));
    race.outside_untouched();
}

#[test]
fn beneath_the_root_allows_the_root_itself_its_subdirectories_and_links_inside_it() {
    let race = Race::new("beneath");
    let root = &race.project;
    fs::create_dir_all(root.join("real")).unwrap();
    std::os::unix::fs::symlink(root.join("real"), root.join("alias")).unwrap();
    std::os::unix::fs::symlink(root.join("real/target.txt"), root.join("link.txt")).unwrap();
    fs::write(root.join("real/target.txt"), "old").unwrap();
    write_atomic_beneath(root, &root.join("top.txt"), b"top").unwrap();
    write_atomic_beneath(root, &root.join("sub/file.txt"), b"sub").unwrap();
    write_atomic_beneath(root, &root.join("alias/new.txt"), b"aliased").unwrap();
    write_atomic_beneath(root, &root.join("link.txt"), b"linked").unwrap();
    let read = |rel: &str| fs::read_to_string(root.join(rel)).unwrap();
    assert_eq!(
        [read("top.txt"), read("sub/file.txt"), read("real/new.txt"), read("real/target.txt")],
        ["top", "sub", "aliased", "linked"]
    );
    // A sibling that merely shares the root's name as a prefix is outside.
    let sibling = race.base.join("project-evil");
    fs::create_dir_all(&sibling).unwrap();
    assert!(write_atomic_beneath(root, &sibling.join("x.txt"), b"x").is_err());
    assert!(!sibling.join("x.txt").exists());
}

#[test]
fn write_atomic_through_a_symlinked_directory_resolved_before_the_call_still_works() {
    // A link the permission check saw and followed (here: into the project's own `real/`).
    let race = Race::new("linked-dir");
    fs::create_dir_all(race.project.join("real")).unwrap();
    std::os::unix::fs::symlink(race.project.join("real"), race.project.join("alias")).unwrap();
    write_atomic(&race.project.join("alias/new.txt"), b"via alias").unwrap();
    assert_eq!(fs::read_to_string(race.project.join("real/new.txt")).unwrap(), "via alias");
    assert!(fs::symlink_metadata(race.project.join("alias")).unwrap().file_type().is_symlink());
}

#[test]
fn temporary_names_are_hidden_named_after_the_file_and_never_repeat() {
    let (first, second) = (temp_name(OsStr::new("a.rs")), temp_name(OsStr::new("a.rs")));
    let prefix = format!(".a.rs.mewcode-tmp-{}-", std::process::id());
    assert!(first.starts_with(&prefix) && second.starts_with(&prefix), "{first} {second}");
    assert_ne!(first, second, "two writers of one file in one process must not share a temporary file");
}

#[test]
fn a_bare_file_name_resolves_to_the_current_directory() {
    let here = fs::canonicalize(".").unwrap();
    assert_eq!(resolve_destination(Path::new("x.txt")).unwrap(), (here.clone(), OsString::from("x.txt")));
    assert_eq!(resolve_destination(Path::new("./x.txt")).unwrap(), (here, OsString::from("x.txt")));
    assert_eq!(resolve_destination(Path::new("/")).unwrap_err().kind(), io::ErrorKind::InvalidInput);
}

#[test]
fn write_atomic_fails_cleanly_when_the_parent_is_missing() {
    let temp = TempDir::new("fsx-missing");
    let dir = temp.path();
    let target = dir.join("no/such/dir/file.txt");
    assert!(write_atomic(&target, b"x").is_err());
}

#[test]
fn display_path_is_root_relative_inside_the_root() {
    let root = Path::new("/proj");
    assert_eq!(display_path(root, Path::new("/proj/src/a.rs")), "src/a.rs");
    assert_eq!(display_path(root, Path::new("/proj")), ".");
    assert_eq!(display_path(root, Path::new("/other/b.rs")), "/other/b.rs");
}

#[test]
fn put_beneath_creates_files_links_and_directories_and_replaces_a_link_at_the_name_itself() {
    let (_base, project, outside) = project_with_outside("put-beneath");
    // The `*_beneath` writers of checkpoints take the root canonical.
    let project = fs::canonicalize(project).unwrap();
    put_beneath(&project, Path::new("new/dir/tool.sh"), Content::File { bytes: b"#!/bin/sh\n", mode: 0o755 }, true)
        .unwrap();
    assert_eq!(fs::read(project.join("new/dir/tool.sh")).unwrap(), b"#!/bin/sh\n");
    assert_eq!(fs::metadata(project.join("new/dir/tool.sh")).unwrap().permissions().mode() & 0o7777, 0o755);
    put_beneath(&project, Path::new("new/dir/tool.sh"), Content::File { bytes: b"x", mode: 0o600 }, false).unwrap();
    assert_eq!(fs::metadata(project.join("new/dir/tool.sh")).unwrap().permissions().mode() & 0o7777, 0o600);
    std::os::unix::fs::symlink(outside.join("keep.txt"), project.join("planted")).unwrap();
    put_beneath(&project, Path::new("planted"), Content::File { bytes: b"mine", mode: 0o644 }, true).unwrap();
    assert!(fs::symlink_metadata(project.join("planted")).unwrap().is_file());
    put_beneath(&project, Path::new("link"), Content::Link { target: Path::new("../anywhere") }, true).unwrap();
    assert_eq!(fs::read_link(project.join("link")).unwrap(), Path::new("../anywhere"));
    put_beneath(&project, Path::new("link"), Content::Link { target: Path::new("new") }, true).unwrap();
    assert_eq!(fs::read_link(project.join("link")).unwrap(), Path::new("new"));
    let err = put_beneath(&project, Path::new("new"), Content::File { bytes: b"x", mode: 0o644 }, true).unwrap_err();
    assert!(err.to_string().contains("new"), "a directory is not replaced: {err}");
    let names: Vec<String> = fs::read_dir(project.join("new/dir"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["tool.sh"], "no temporary file left");
    outside_untouched(&outside);
}

#[test]
fn put_and_remove_beneath_never_go_through_a_linked_directory_even_one_inside_the_root() {
    let (_base, project, outside) = project_with_outside("put-link-dir");
    // The `*_beneath` writers of checkpoints take the root canonical.
    let project = fs::canonicalize(project).unwrap();
    fs::create_dir_all(project.join("inside")).unwrap();
    std::os::unix::fs::symlink(&outside, project.join("out")).unwrap();
    std::os::unix::fs::symlink(project.join("inside"), project.join("in")).unwrap();
    for dir in ["out", "in"] {
        let rel = Path::new(dir).join("keep.txt");
        let err = put_beneath(&project, &rel, Content::File { bytes: b"payload", mode: 0o644 }, true).unwrap_err();
        assert!(err.to_string().contains("symbolic link"), "{dir}: {err}");
        assert!(remove_beneath(&project, &rel).is_err(), "{dir}");
    }
    assert!(!project.join("inside/keep.txt").exists());
    outside_untouched(&outside);
}

#[test]
fn remove_beneath_takes_files_and_links_and_empty_directories_only() {
    let (_base, project, outside) = project_with_outside("remove-beneath");
    // The `*_beneath` writers of checkpoints take the root canonical.
    let project = fs::canonicalize(project).unwrap();
    fs::create_dir_all(project.join("d/empty")).unwrap();
    fs::write(project.join("d/f.txt"), "f").unwrap();
    std::os::unix::fs::symlink(outside.join("keep.txt"), project.join("d/link")).unwrap();
    remove_beneath(&project, Path::new("d/link")).unwrap();
    remove_beneath(&project, Path::new("d/f.txt")).unwrap();
    remove_beneath(&project, Path::new("d/f.txt")).unwrap();
    remove_beneath(&project, Path::new("missing/dir/f.txt")).unwrap();
    assert!(remove_beneath(&project, Path::new("d/empty")).is_err(), "not a directory");
    fs::write(project.join("d/other"), "o").unwrap();
    assert!(remove_empty_dir_beneath(&project, Path::new("d")).is_err(), "not empty");
    remove_empty_dir_beneath(&project, Path::new("d/empty")).unwrap();
    assert_eq!(fs::read_dir(project.join("d")).unwrap().count(), 1);
    outside_untouched(&outside);
}

#[test]
fn a_user_dir_holding_the_installation_key_gets_no_gitignore() {
    let dir = TempDir::new("fsx-user-dir");
    std::fs::create_dir_all(dir.join("home/.mewcode")).unwrap();
    std::fs::write(dir.join("home/.mewcode").join(USER_DIR_KEY), "k\n").unwrap();
    ensure_gitignored_dir(&dir.join("home"), Path::new(".mewcode")).unwrap();
    assert!(!dir.join("home/.mewcode/.gitignore").exists());
    std::fs::create_dir_all(dir.join("proj")).unwrap();
    ensure_gitignored_dir(&dir.join("proj"), Path::new(".mewcode")).unwrap();
    assert!(dir.join("proj/.mewcode/.gitignore").is_file());
}

#[test]
fn a_folder_reached_twice_is_visited_once() {
    let dir = crate::test_dir::TempDir::new("first-visit");
    dir.mkdir("real");
    std::os::unix::fs::symlink(dir.join("real"), dir.join("link")).unwrap();
    let mut seen = Vec::new();
    assert!(first_visit(&mut seen, &dir.join("real")));
    assert!(!first_visit(&mut seen, &dir.join("link")));
    assert!(!first_visit(&mut seen, &dir.join("real")));
    assert!(first_visit(&mut seen, &dir.join("missing")));
    assert!(first_visit(&mut seen, &dir.join("missing")), "an unresolvable folder is never skipped");
}
