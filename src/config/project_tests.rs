//! Unit tests of `project.rs`: the project root, foreign git dirs and the instruction directories.

use super::*;
use crate::test_dir::TempDir;

fn git_dir(dir: &Path) {
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    std::fs::write(dir.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
}

#[test]
fn the_root_is_the_nearest_git_top_level_and_the_cwd_outside_git() {
    let temp = TempDir::new("root-find");
    let base = temp.path();
    let uid = crate::sys::current_uid();
    let nested = base.join("repo/pkg/a");
    std::fs::create_dir_all(&nested).unwrap();
    assert_eq!(find_root(&nested, uid, None), (nested.clone(), RootKind::NotGit));
    git_dir(&base.join("repo"));
    assert_eq!(find_root(&nested, uid, None), (base.join("repo"), RootKind::GitTopLevel));
    // A worktree or submodule: `.git` is a file pointing elsewhere.
    std::fs::write(base.join("repo/pkg/.git"), "gitdir: ../.git/modules/pkg\n").unwrap();
    assert_eq!(find_root(&nested, uid, None), (base.join("repo/pkg"), RootKind::GitTopLevel));
    // Not git's: an empty directory or a file of something else.
    std::fs::remove_file(base.join("repo/pkg/.git")).unwrap();
    std::fs::create_dir_all(base.join("repo/pkg/a/.git")).unwrap();
    std::fs::write(base.join("repo/pkg/.git"), "not git\n").unwrap();
    assert_eq!(find_root(&nested, uid, None), (base.join("repo"), RootKind::GitTopLevel));
}

#[test]
fn a_git_dir_of_another_user_or_in_home_never_widens_the_root() {
    let temp = TempDir::new("root-wide");
    let base = temp.path();
    let uid = crate::sys::current_uid();
    let nested = base.join("home/projects/x");
    std::fs::create_dir_all(&nested).unwrap();
    git_dir(&base.join("home"));
    let (root, kind) = find_root(&nested, uid, Some(&base.join("home")));
    assert_eq!(root, nested);
    assert!(matches!(kind, RootKind::GitIgnored(ref reason) if reason.contains("too wide")), "{kind:?}");
    // Started in HOME itself: it is the project.
    let home = base.join("home");
    assert_eq!(find_root(&home, uid, Some(&home)), (home.clone(), RootKind::GitTopLevel));
    let (root, kind) = find_root(&nested, uid.wrapping_add(1), None);
    assert_eq!(root, nested);
    assert!(matches!(kind, RootKind::GitIgnored(ref reason) if reason.contains("another user")), "{kind:?}");
}

#[test]
fn instruction_dirs_run_from_the_root_down_to_the_cwd() {
    let dirs = instruction_dirs(Path::new("/r"), Path::new("/r/pkg/a"));
    assert_eq!(dirs, vec![PathBuf::from("/r"), PathBuf::from("/r/pkg"), PathBuf::from("/r/pkg/a")]);
    assert_eq!(instruction_dirs(Path::new("/r"), Path::new("/r")), vec![PathBuf::from("/r")]);
    assert_eq!(instruction_dirs(Path::new("/r"), Path::new("/elsewhere")), vec![PathBuf::from("/r")]);
}

#[test]
fn the_home_directory_shares_the_user_dir_compared_resolved() {
    let dir = TempDir::new("shares-user-dir");
    let home = dir.join("u");
    std::fs::create_dir_all(home.join("sub")).unwrap();
    assert!(shares_user_dir(&home, &home.join(".mewcode")), "not yet created: same parent and name");
    std::fs::create_dir_all(home.join(".mewcode")).unwrap();
    assert!(shares_user_dir(&home, &home.join("sub/../.mewcode")));
    std::os::unix::fs::symlink(home.join(".mewcode"), dir.join("link")).unwrap();
    assert!(shares_user_dir(&home, &dir.join("link")), "a link to it is the same directory");
    assert!(!shares_user_dir(&home.join("sub"), &home.join(".mewcode")));
    assert!(!shares_user_dir(&home, &dir.join("elsewhere")));
}
