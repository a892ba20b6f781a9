//! Tests of what `/diff` shows of each change.

use super::*;
use crate::glyphs::{ASCII, UNICODE};
use std::path::PathBuf;

fn change(before: Option<&[u8]>, after: Option<&[u8]>) -> FileChange {
    FileChange { path: PathBuf::from("src/a.rs"), before: before.map(<[u8]>::to_vec), after: after.map(<[u8]>::to_vec) }
}

#[test]
fn text_changes_are_diffs_with_their_counts() {
    let Body::Diff { text, added, removed } =
        body_of(&change(Some(b"one\ntwo\n"), Some(b"one\n2\n3\n")), "src/a.rs", &UNICODE)
    else {
        panic!("a diff")
    };
    assert_eq!((added, removed), (2, 1));
    assert!(text.starts_with("--- a/src/a.rs\n+++ b/src/a.rs\n"), "{text}");
    let Body::Diff { text, added, removed } = body_of(&change(None, Some(b"new\n")), "src/a.rs", &UNICODE) else {
        panic!("a diff")
    };
    assert_eq!((added, removed), (1, 0));
    assert!(text.starts_with("--- /dev/null\n+++ b/src/a.rs\n"), "{text}");
    let Body::Diff { text, .. } = body_of(&change(Some(b"gone\n"), None), "src/a.rs", &UNICODE) else {
        panic!("a diff")
    };
    assert!(text.contains("+++ /dev/null"), "{text}");
}

#[test]
fn binary_changes_are_described_never_printed() {
    assert_eq!(
        body_of(&change(Some(b"a\0b"), Some(b"a\0bc")), "src/a.rs", &UNICODE),
        Body::Note("binary file changed: 3 → 4 bytes".into())
    );
    assert_eq!(
        body_of(&change(Some(b"a\0b"), Some(b"a\0bc")), "src/a.rs", &ASCII),
        Body::Note("binary file changed: 3 -> 4 bytes".into())
    );
    assert_eq!(
        body_of(&change(None, Some(b"\0\0")), "src/a.rs", &UNICODE),
        Body::Note("created (binary, 2 bytes)".into())
    );
    assert_eq!(
        body_of(&change(Some(&[0xff, 0xfe]), None), "src/a.rs", &UNICODE),
        Body::Note("deleted (binary, 2 bytes)".into())
    );
}

#[test]
fn the_summary_adds_up_lines_and_counts_files() {
    let bodies = vec![
        ("a".to_string(), Body::Diff { text: String::new(), added: 3, removed: 1 }),
        ("b".to_string(), Body::Note("binary".into())),
        ("c".to_string(), Body::Diff { text: String::new(), added: 1, removed: 2 }),
    ];
    assert_eq!(summary(&bodies, &UNICODE), "3 files changed in this session: +4 −3");
    assert_eq!(summary(&bodies[1..2], &UNICODE), "1 file changed in this session: +0 −0");
    assert_eq!(summary(&bodies, &ASCII), "3 files changed in this session: +4 -3");
}
