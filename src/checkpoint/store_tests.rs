//! Tests of the object store: names are digests, objects are written once and checked on read.

use super::*;
use crate::test_dir::TempDir;

#[test]
fn a_digest_is_64_lowercase_hex_digits_and_parses_back() {
    let digest = Digest::of(b"abc");
    assert_eq!(digest.to_hex(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert_eq!(Digest::parse_hex(&digest.to_hex()), Some(digest));
    assert_eq!(Digest::parse_hex(&digest.to_hex().to_uppercase()), Some(digest));
    assert_eq!(format!("{digest:?}"), digest.to_hex());
    for bad in ["", "ba78", &"g".repeat(64), &"é".repeat(32), &format!("{}0", digest.to_hex())] {
        assert_eq!(Digest::parse_hex(bad), None, "{bad:?}");
    }
    let json = serde_json::to_string(&digest).unwrap();
    assert_eq!(json, format!("\"{}\"", digest.to_hex()));
    assert_eq!(serde_json::from_str::<Digest>(&json).unwrap(), digest);
    assert!(serde_json::from_str::<Digest>("\"abc\"").is_err());
}

#[test]
fn an_object_is_stored_once_read_only_under_its_fan_out_and_read_back_checked() {
    let project = TempDir::new("ck-store");
    let store = Store::new(project.path());
    let digest = Digest::of(b"content");
    assert!(!store.has(digest, 7));
    store.put(digest, b"content").unwrap();
    let hex = digest.to_hex();
    let path = project.join(".mewcode/checkpoints/objects").join(&hex[..2]).join(&hex[2..]);
    assert_eq!(store.object_path(digest), path);
    assert_eq!(std::fs::read(&path).unwrap(), b"content");
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o400);
    assert!(store.has(digest, 7) && !store.has(digest, 8), "the size must match too");
    let inode = std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(&path).unwrap());
    store.put(digest, b"content").unwrap();
    assert_eq!(std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(&path).unwrap()), inode, "not written again");
    assert_eq!(store.get(digest).unwrap(), b"content");
    assert!(store.get(Digest::of(b"missing")).unwrap_err().contains("cannot be read"));
}

#[test]
fn a_planted_or_damaged_object_is_never_taken_for_the_content_it_is_named_after() {
    let project = TempDir::new("ck-store-planted");
    let store = Store::new(project.path());
    let digest = Digest::of(b"genuine");
    // A repository can ship a file under an object's name: git gives it mode 0644.
    project.write(Store::object_rel(digest), "fake!!!");
    assert!(!store.has(digest, 7), "same size, but not our mode");
    assert!(store.get(digest).unwrap_err().contains("damaged"));
    store.put(digest, b"genuine").unwrap();
    assert_eq!(store.get(digest).unwrap(), b"genuine");
    let other = Digest::of(b"linked");
    let target = project.write("elsewhere", "linked");
    std::fs::create_dir_all(store.object_path(other).parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&target, store.object_path(other)).unwrap();
    assert!(!store.has(other, 6), "a link is not an object");
    assert!(store.get(other).is_err(), "nor read through");
}

#[test]
fn nothing_is_stored_through_a_planted_link_and_prepare_keeps_mewcode_out_of_git() {
    let project = TempDir::new("ck-store-link");
    let outside = TempDir::new("ck-store-outside");
    std::fs::create_dir_all(project.join(".mewcode")).unwrap();
    std::os::unix::fs::symlink(outside.path(), project.join(".mewcode/checkpoints")).unwrap();
    let store = Store::new(project.path());
    store.prepare().unwrap();
    assert_eq!(project.read(".mewcode/.gitignore"), crate::fsx::MEWCODE_DIR_GITIGNORE);
    let error = store.put(Digest::of(b"x"), b"x").unwrap_err();
    assert!(error.contains("symbolic link"), "{error}");
    assert_eq!(crate::test_tree::files_under(outside.path()), Vec::new());
}
