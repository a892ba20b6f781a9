//! Unit tests of `landlock.rs`: the rights per ABI and rules on directories, files and links.

use super::*;
use crate::test_dir::TempDir;

#[test]
fn each_abi_adds_its_rights() {
    assert_eq!(fs_rights_for_abi(0), 0);
    assert_eq!(fs_rights_for_abi(1), 0x1fff);
    assert_eq!(fs_rights_for_abi(2), 0x3fff);
    assert_eq!(fs_rights_for_abi(3), 0x7fff);
    assert_eq!(fs_rights_for_abi(4), 0x7fff);
    assert_eq!(fs_rights_for_abi(5), 0xffff);
    assert_eq!(fs_rights_for_abi(7), 0xffff);
}

#[test]
fn a_ruleset_takes_rules_on_directories_and_files_but_not_symlinks() {
    let Ok(abi) = abi_version() else {
        eprintln!("skipped: no Landlock on this kernel");
        return;
    };
    let ruleset = Ruleset::create(fs_rights_for_abi(abi), 0, 0).unwrap();
    let temp = TempDir::new("landlock");
    let dir = temp.path();
    std::fs::write(dir.join("file"), "x").unwrap();
    std::os::unix::fs::symlink("file", dir.join("link")).unwrap();
    ruleset.allow(dir, u64::MAX, true).unwrap();
    // A file gets only file rights: asking for every right is not an error.
    ruleset.allow(&dir.join("file"), u64::MAX, false).unwrap();
    assert!(ruleset.allow(&dir.join("link"), ACCESS_FS_READ_FILE, false).is_err());
    assert!(ruleset.allow(&dir.join("missing"), ACCESS_FS_READ_FILE, true).is_err());
}
