//! Unit tests of `dir.rs`: directories held by descriptor refuse links on the way and stay inside.

use super::*;
use crate::test_dir::TempDir;
use std::io::Write;

#[test]
fn a_symlink_anywhere_on_the_way_is_refused() {
    let base = TempDir::new("sys-dir-walk");
    std::fs::create_dir_all(base.join("real/sub")).unwrap();
    std::os::unix::fs::symlink(base.join("real"), base.join("link")).unwrap();
    std::fs::write(base.join("real/file"), "x").unwrap();
    assert!(Dir::open_no_symlinks(&base.join("real/sub")).is_ok());
    for through_link in ["link", "link/sub", "real/file"] {
        let err = Dir::open_no_symlinks(&base.join(through_link)).unwrap_err();
        assert!(is_not_a_plain_directory(&err), "{through_link}: {err}");
    }
    let missing = Dir::open_no_symlinks(&base.join("none")).unwrap_err();
    assert!(!is_not_a_plain_directory(&missing) && missing.kind() == io::ErrorKind::NotFound, "{missing}");
    for not_canonical in [Path::new("relative/dir"), Path::new(""), &base.join("real/../real")] {
        let err = Dir::open_no_symlinks(not_canonical).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{}: {err}", not_canonical.display());
    }
}

#[test]
fn entries_are_created_renamed_and_removed_inside_the_directory_only() {
    let base = TempDir::new("sys-dir-at");
    std::fs::create_dir_all(base.join("d")).unwrap();
    std::fs::write(base.join("outside"), "secret").unwrap();
    std::os::unix::fs::symlink(base.join("outside"), base.join("d/link")).unwrap();
    let dir = Dir::open_no_symlinks(&base.join("d")).unwrap();
    assert_eq!(dir.create_new(OsStr::new("link")).unwrap_err().kind(), io::ErrorKind::AlreadyExists);
    assert_eq!(dir.entry(OsStr::new("link")).unwrap(), Entry::Other, "the link itself, not its target");
    assert_eq!(dir.entry(OsStr::new("none")).unwrap(), Entry::Missing);
    let mut file = dir.create_new(OsStr::new("new")).unwrap();
    file.write_all(b"fresh").unwrap();
    file.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(0o4751)).unwrap();
    assert_eq!(dir.entry(OsStr::new("new")).unwrap(), Entry::RegularFile { permissions: 0o4751 });
    dir.rename(OsStr::new("new"), OsStr::new("link")).unwrap();
    assert_eq!(std::fs::read_to_string(base.join("d/link")).unwrap(), "fresh");
    assert_eq!(std::fs::read_to_string(base.join("outside")).unwrap(), "secret", "the link was replaced");
    dir.sync().unwrap();
    dir.remove_file(OsStr::new("link")).unwrap();
    assert_eq!(dir.entry(OsStr::new("link")).unwrap(), Entry::Missing);
    for bad in ["", ".", "..", "a/b", "../outside"] {
        assert_eq!(dir.create_new(OsStr::new(bad)).unwrap_err().kind(), io::ErrorKind::InvalidInput, "{bad:?}");
        assert_eq!(dir.remove_file(OsStr::new(bad)).unwrap_err().kind(), io::ErrorKind::InvalidInput, "{bad:?}");
    }
    assert_eq!(dir.entry(OsStr::new("nul\0")).unwrap_err().kind(), io::ErrorKind::InvalidInput);
}

#[test]
fn a_file_opened_for_append_is_never_reached_through_a_link() {
    use std::io::{Read, Seek};
    let base = TempDir::new("sys-dir-append");
    std::fs::create_dir_all(base.join("d")).unwrap();
    std::fs::write(base.join("outside"), "secret").unwrap();
    std::os::unix::fs::symlink(base.join("outside"), base.join("d/link")).unwrap();
    let dir = Dir::open_no_symlinks(&base.join("d")).unwrap();
    let err = dir.open_append(OsStr::new("link"), false).unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::ELOOP), "{err}");
    assert_eq!(dir.open_append(OsStr::new("link"), true).unwrap_err().kind(), io::ErrorKind::AlreadyExists);
    assert_eq!(dir.open_append(OsStr::new("log"), false).unwrap_err().kind(), io::ErrorKind::NotFound);
    dir.open_append(OsStr::new("log"), true).unwrap().write_all(b"one\n").unwrap();
    assert_eq!(dir.open_append(OsStr::new("log"), true).unwrap_err().kind(), io::ErrorKind::AlreadyExists);
    let mut reopened = dir.open_append(OsStr::new("log"), false).unwrap();
    reopened.write_all(b"two\n").unwrap();
    let mut text = String::new();
    reopened.rewind().unwrap();
    reopened.read_to_string(&mut text).unwrap();
    assert_eq!(text, "one\ntwo\n", "appended, and readable through the same descriptor");
    assert_eq!(std::fs::read_to_string(base.join("outside")).unwrap(), "secret");
}

#[test]
fn links_are_made_as_given_and_only_empty_directories_removed_never_through_a_link() {
    let base = TempDir::new("sys-dir-link");
    std::fs::create_dir_all(base.join("d/full")).unwrap();
    std::fs::create_dir_all(base.join("d/empty")).unwrap();
    std::fs::create_dir_all(base.join("elsewhere")).unwrap();
    std::fs::write(base.join("d/full/f"), "x").unwrap();
    std::os::unix::fs::symlink(base.join("elsewhere"), base.join("d/to-dir")).unwrap();
    let dir = Dir::open_no_symlinks(&base.join("d")).unwrap();
    dir.symlink(Path::new("../nowhere"), OsStr::new("new-link")).unwrap();
    assert_eq!(std::fs::read_link(base.join("d/new-link")).unwrap(), Path::new("../nowhere"));
    assert_eq!(dir.symlink(Path::new("x"), OsStr::new("new-link")).unwrap_err().kind(), io::ErrorKind::AlreadyExists);
    assert!(dir.remove_dir(OsStr::new("full")).is_err(), "a directory with a file stays");
    assert!(dir.remove_dir(OsStr::new("to-dir")).is_err(), "a link is not followed");
    assert!(base.join("elsewhere").is_dir() && base.join("d/full/f").is_file());
    dir.remove_dir(OsStr::new("empty")).unwrap();
    assert!(!base.join("d/empty").exists());
    assert!(dir.remove_dir(OsStr::new("../elsewhere")).is_err(), "one plain name only");
}
