//! Tests of the unit tests' temp directory.

use super::TempDir;

#[test]
fn each_dir_is_fresh_canonical_and_removed_on_drop() {
    let first = TempDir::new("probe");
    let second = TempDir::new("probe");
    assert_ne!(first.path(), second.path());
    assert_eq!(std::fs::canonicalize(first.path()).unwrap(), first.path());
    let file = first.write("a/b/c.txt", "text");
    assert_eq!(file, first.join("a/b/c.txt"));
    assert_eq!(first.read("a/b/c.txt"), "text");
    assert!(first.mkdir("d/e").is_dir());
    let kept = first.path().to_path_buf();
    drop(first);
    assert!(!kept.exists());
}
