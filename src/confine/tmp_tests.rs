//! Unit tests of `tmp.rs`: session temp dirs recognised, private, removed on drop, stale ones cleared.

use super::*;
use crate::test_dir::TempDir;

#[test]
fn names_of_session_dirs_are_recognised_and_others_are_not() {
    assert_eq!(owner_pid("mewcode-tmp-123-456"), Some(123));
    for other in ["mewcode-tmp-123", "mewcode-tmp-x-1", "mewcode-tmp-1-", "mewcode-tmp-1-2a", "other-1-2"] {
        assert_eq!(owner_pid(other), None, "{other}");
    }
}

#[test]
fn a_session_dir_is_private_removed_on_drop_and_stale_ones_go() {
    let temp = TempDir::new("tmp-test");
    let base = temp.path();
    // A dead process's dir (pid 0 never exists as a process we can see) and a live one's.
    std::fs::create_dir_all(base.join("mewcode-tmp-999999999-1/inner")).unwrap();
    let live = base.join(format!("mewcode-tmp-{}-1", std::process::id()));
    std::fs::create_dir_all(&live).unwrap();
    let tmp = SessionTmp::create(base).unwrap();
    assert!(!base.join("mewcode-tmp-999999999-1").exists());
    assert!(live.exists());
    let mode = std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(tmp.path()).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o700);
    let path = tmp.path().to_path_buf();
    std::fs::write(path.join("f"), "x").unwrap();
    drop(tmp);
    assert!(!path.exists());
}
