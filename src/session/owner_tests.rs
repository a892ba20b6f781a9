//! Unit tests of `owner.rs`: ownership marks, key files and the key created once.

use super::*;
use crate::test_dir::TempDir;
use std::os::unix::fs::PermissionsExt;

const ID: &str = "20261202-131500-a1b2";

#[test]
fn marks_are_per_key_and_per_id() {
    let owner = Owner::from_key([7; KEY_BYTES]);
    let mark = owner.mark(ID).unwrap();
    assert_eq!(mark.len(), 64);
    assert!(owner.owns(ID, Some(&mark)));
    assert!(!owner.owns("20261202-131500-a1b3", Some(&mark)), "a mark does not move to another id");
    assert!(!Owner::from_key([8; KEY_BYTES]).owns(ID, Some(&mark)), "another install's key");
    assert!(!owner.owns(ID, None));
    assert!(!owner.owns(ID, Some("")));
    assert!(!owner.owns(ID, Some(&mark.to_uppercase())));
    assert_eq!(Owner::none().mark(ID), None);
    assert!(!Owner::none().owns(ID, Some(&mark)));
    assert!(!Owner::none().owns(ID, None));
    assert_eq!(format!("{owner:?}"), "Owner { key: set }");
}

#[test]
fn file_marks_cover_the_path_and_every_byte_and_differ_from_session_marks() {
    let owner = Owner::from_key([7; KEY_BYTES]);
    let path = Path::new("/p/.mewcode/settings.local.yaml");
    let content = b"permissions:\n  allow: [\"Bash(=ls)\"]\n";
    let mark = owner.file_mark(path, content).unwrap();
    assert_eq!(mark.len(), 64);
    assert!(owner.owns_file(path, content, &mark));
    assert!(!owner.owns_file(path, b"permissions:\n  allow: [\"Bash(*)\"]\n", &mark), "changed content");
    assert!(!owner.owns_file(path, &content[..content.len() - 1], &mark), "one byte less");
    assert!(!owner.owns_file(Path::new("/q/.mewcode/settings.local.yaml"), content, &mark), "another project");
    assert!(!Owner::from_key([8; KEY_BYTES]).owns_file(path, content, &mark), "another install's key");
    assert!(!owner.owns_file(path, content, &mark.to_uppercase()));
    assert!(!owner.owns_file(path, content, ""));
    assert_eq!(Owner::none().file_mark(path, content), None);
    assert!(!Owner::none().owns_file(path, content, &mark));
    // The message has its own prefix: the same bytes never make a session's mark.
    assert_ne!(owner.file_mark(Path::new(""), b""), owner.mark(""));
    let expected: String = hmac_sha256(&[7; KEY_BYTES], b"mewcode file\0/p/.mewcode/settings.local.yaml\0x")
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    assert_eq!(owner.file_mark(path, b"x").unwrap(), expected);
}

#[test]
fn key_files_parse_only_as_64_lowercase_hex_digits() {
    let hex = "0123456789abcdef".repeat(4);
    let key = parse_key(&hex).unwrap();
    assert_eq!(key[..3], [0x01, 0x23, 0x45]);
    assert_eq!(parse_key(&format!("{hex}\n")), Some(key));
    for bad in [String::new(), hex[1..].to_string(), format!("{hex}0"), hex.to_uppercase(), format!("{hex}\n\n")] {
        assert_eq!(parse_key(&bad), None, "{bad:?}");
    }
    assert_eq!(parse_key(&format!("{}g", &hex[1..])), None);
    assert_eq!(parse_key(&format!("+{}", &hex[1..])), None);
}

#[test]
fn a_key_another_run_created_first_is_adopted_not_replaced() {
    // Two first runs race: the other one linked its key between our read and our link.
    let temp = TempDir::new("owner-race");
    let home = temp.path();
    let path = home.join(KEY_FILE);
    let theirs = "ab".repeat(32);
    fs::write(&path, format!("{theirs}\n")).unwrap();
    let owner = create_key(home, &path).unwrap();
    assert_eq!(owner, Owner::from_key(parse_key(&theirs).unwrap()));
    assert_eq!(fs::read_to_string(&path).unwrap(), format!("{theirs}\n"));
    let names: Vec<_> = fs::read_dir(home).unwrap().map(|entry| entry.unwrap().file_name()).collect();
    assert_eq!(names, vec![std::ffi::OsString::from(KEY_FILE)], "no temporary file left");
    fs::write(&path, "torn").unwrap();
    assert!(create_key(home, &path).is_err(), "a half-written key of theirs is an error, not ours");
}

#[test]
fn the_key_is_created_once_private_and_then_reused() {
    // `home` does not exist yet: loading the owner makes it.
    let temp = TempDir::new("owner");
    let home = temp.join("home");
    let first = load_owner(&home).unwrap();
    let path = home.join(KEY_FILE);
    assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    assert_eq!(load_owner(&home).unwrap(), first);
    assert_ne!(first, Owner::none());
    let names: Vec<_> = fs::read_dir(&home).unwrap().map(|entry| entry.unwrap().file_name()).collect();
    assert_eq!(names, vec![std::ffi::OsString::from(KEY_FILE)], "no temporary file left");
    fs::write(&path, "garbage").unwrap();
    let err = load_owner(&home).unwrap_err().to_string();
    assert!(err.contains("session-key") && err.contains("delete it"), "{err}");
    assert_eq!(fs::read_to_string(&path).unwrap(), "garbage", "a bad key is never overwritten");
}
