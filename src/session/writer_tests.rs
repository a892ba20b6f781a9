//! Unit tests of `writer.rs`: appends survive a torn line and a planted link is refused.

use super::*;
use crate::session::reader::load_log;
use crate::test_dir::TempDir;

fn meta() -> Meta {
    Meta {
        version: 1,
        id: "20261202-131500-a1b2".into(),
        created: 1,
        title: "t".into(),
        model: "m".into(),
        owner: None,
    }
}

#[test]
fn appends_survive_reopen_after_a_torn_line() {
    let temp = TempDir::new("writer");
    let dir = temp.path();
    let rel = Path::new("s/conversation.jsonl");
    let path = dir.join(rel);
    let mut writer = SessionWriter::create(dir, rel, &meta()).unwrap();
    assert_eq!(writer.append(&Message::user("one"), 2), None);
    assert_eq!(writer.append(&Message::assistant("two"), 3), None);
    drop(writer);
    assert!(SessionWriter::create(dir, rel, &meta()).is_err(), "create never overwrites");
    // A torn line, as kill -9 in the middle of a write would leave.
    std::fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(br#"{"role":"user","con"#).unwrap();
    let mut reopened = SessionWriter::reopen(dir, rel, "x", "m").unwrap();
    assert_eq!(reopened.append(&Message::user("three"), 4), None);
    assert_eq!(reopened.id(), "x");
    let loaded = load_log(&path).unwrap();
    assert_eq!(loaded.meta, Some(meta()));
    assert_eq!(
        loaded.messages,
        vec![
            Message::user("one"),
            Message::assistant("two"),
            Message::user("three"),
            Message::assistant(crate::session::reader::INTERRUPTED_NOTE)
        ]
    );
    assert_eq!(loaded.skipped_lines, 1);
    reopened.append_compacted(&[Message::user("summary"), Message::assistant("ok")], 5);
    assert_eq!(load_log(&path).unwrap().messages, vec![Message::user("summary"), Message::assistant("ok")]);
}

#[test]
fn a_log_planted_as_a_link_is_neither_created_nor_reopened_through_it() {
    let temp = TempDir::new("writer-link");
    let dir = temp.path();
    std::fs::create_dir_all(dir.join("project/s")).unwrap();
    let outside = dir.join("outside.jsonl");
    std::fs::write(&outside, "{}\n").unwrap();
    let rel = Path::new("s/conversation.jsonl");
    std::os::unix::fs::symlink(&outside, dir.join("project").join(rel)).unwrap();
    let project = dir.join("project");
    let err = SessionWriter::reopen(&project, rel, "x", "m").unwrap_err();
    assert!(err.to_string().contains("is a symbolic link; mewcode does not write through it"), "{err}");
    let err = SessionWriter::create(&project, rel, &meta()).unwrap_err();
    assert!(err.to_string().contains("is a symbolic link; mewcode does not write through it"), "{err}");
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "{}\n");
}
