//! Tests of the record log: its lines as written, loads that skip what a kill tore, appends.

use super::*;
use crate::test_dir::TempDir;

const SESSION: &str = "20250101-120000-abcd";

fn snapshot(turn: u32, moment: MomentName, entries: &[(&str, Option<Entry>)]) -> Record {
    Record::Snapshot(Snapshot {
        turn,
        moment,
        ts: 7,
        extra: Vec::new(),
        skipped: Vec::new(),
        undo: false,
        entries: entries.iter().map(|(key, entry)| (key.to_string(), entry.clone())).collect(),
    })
}

#[test]
fn records_are_written_as_the_documented_json_lines() {
    let file = Entry::File { hash: Digest::of(b"x"), mode: 0o644, size: 1 };
    let entries = [
        ("a", Some(file)),
        ("b", Some(Entry::Link { target: "a".into() })),
        ("c", Some(Entry::Unstored { size: 99, mtime_ns: 5 })),
        ("d", None),
    ];
    let hex = Digest::of(b"x").to_hex();
    let cases = [
        (Record::Header { version: 1 }, r#"{"kind":"header","version":1}"#.to_string()),
        (
            Record::Turn { turn: 2, prompt: "fix it".into(), history_len: 4, ts: 9 },
            r#"{"kind":"turn","turn":2,"prompt":"fix it","history_len":4,"ts":9}"#.to_string(),
        ),
        (
            snapshot(2, MomentName::PreRewind, &entries),
            format!(
                r#"{{"kind":"snapshot","turn":2,"moment":"pre_rewind","ts":7,"entries":{{"a":{{"hash":"{hex}","mode":420,"size":1}},"b":{{"link":"a"}},"c":{{"unstored":99,"mtime_ns":5}},"d":null}}}}"#
            ),
        ),
    ];
    for (record, line) in cases {
        assert_eq!(render(&record), format!("{line}\n").into_bytes(), "{record:?}");
        assert_eq!(serde_json::from_str::<Record>(&line).unwrap(), record);
    }
    let mut covered = snapshot(1, MomentName::After, &[]);
    if let Record::Snapshot(snapshot) = &mut covered {
        snapshot.extra = vec!["/w".into()];
        snapshot.skipped = vec!["/big".into()];
        snapshot.undo = true;
    }
    let line = String::from_utf8(render(&covered)).unwrap();
    assert!(
        line.contains(r#""moment":"after","ts":7,"extra":["/w"],"skipped":["/big"],"undo":true,"entries":{}"#),
        "{line}"
    );
    assert_eq!(serde_json::from_str::<Record>(&line).unwrap(), covered);
}

#[test]
fn moments_map_to_their_log_names_and_back() {
    for moment in [Moment::Before, Moment::After, Moment::PreRewind, Moment::PostRewind] {
        assert_eq!(Moment::from(MomentName::from(moment)), moment);
    }
    let names: Vec<String> = [MomentName::Before, MomentName::After, MomentName::PreRewind, MomentName::PostRewind]
        .iter()
        .map(|name| serde_json::to_string(name).unwrap())
        .collect();
    assert_eq!(names, [r#""before""#, r#""after""#, r#""pre_rewind""#, r#""post_rewind""#]);
}

#[test]
fn a_load_skips_lines_that_do_not_parse_and_says_when_the_last_is_torn() {
    let turn = Record::Turn { turn: 1, prompt: "p".into(), history_len: 0, ts: 1 };
    let mut bytes = render(&Record::Header { version: 1 });
    bytes.extend(render(&turn));
    bytes.extend(b"{\"kind\":\"turn\",\"tu\n");
    bytes.extend(b"not json at all\n");
    bytes.extend(render(&turn));
    let loaded = parse_log(&bytes).unwrap();
    assert_eq!(loaded, Loaded { records: vec![turn.clone(), turn.clone()], exists: true, torn: false });
    bytes.extend(b"{\"kind\":\"snap");
    let torn = parse_log(&bytes).unwrap();
    assert_eq!((torn.records.len(), torn.torn), (2, true));
    let newer = [render(&Record::Header { version: VERSION + 1 }), render(&turn)].concat();
    assert!(parse_log(&newer).unwrap_err().contains("newer mewcode"));
    assert_eq!(parse_log(b"").unwrap(), Loaded { records: Vec::new(), exists: true, torn: false });
}

#[test]
fn appends_create_the_log_with_its_header_and_start_after_a_torn_line() {
    let project = TempDir::new("ck-log");
    let loaded = load_log(project.path(), SESSION).unwrap();
    assert_eq!(loaded, Loaded::default());
    let mut writer = LogWriter::new(project.path(), SESSION, &loaded);
    let turn = Record::Turn { turn: 1, prompt: "p".into(), history_len: 0, ts: 1 };
    writer.append(&turn).unwrap();
    writer.append(&turn).unwrap();
    let path = project.join(".mewcode/sessions").join(SESSION).join("checkpoints.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.lines().count(), 3);
    assert!(text.starts_with(r#"{"kind":"header","version":1}"#), "{text}");
    assert_eq!(project.read(".mewcode/.gitignore"), crate::fsx::MEWCODE_DIR_GITIGNORE);
    std::fs::write(&path, format!("{text}{{\"kind\":\"tu")).unwrap();
    let loaded = load_log(project.path(), SESSION).unwrap();
    assert!(loaded.torn);
    let mut writer = LogWriter::new(project.path(), SESSION, &loaded);
    writer.append(&turn).unwrap();
    let loaded = load_log(project.path(), SESSION).unwrap();
    assert_eq!((loaded.records.len(), loaded.torn), (3, false));
    assert_eq!(std::fs::read_to_string(&path).unwrap().matches("header").count(), 1);
}

#[test]
fn a_log_pruned_since_it_was_loaded_is_started_again() {
    let project = TempDir::new("ck-log-pruned");
    let turn = Record::Turn { turn: 1, prompt: "p".into(), history_len: 0, ts: 1 };
    LogWriter::new(project.path(), SESSION, &Loaded::default()).append(&turn).unwrap();
    let loaded = load_log(project.path(), SESSION).unwrap();
    std::fs::remove_dir_all(project.join(".mewcode/sessions")).unwrap();
    LogWriter::new(project.path(), SESSION, &loaded).append(&turn).unwrap();
    let text = project.read(log_rel(SESSION));
    assert_eq!(text.lines().count(), 2, "{text}");
}

#[test]
fn a_bad_session_id_or_a_planted_link_is_refused() {
    let project = TempDir::new("ck-log-refused");
    let outside = TempDir::new("ck-log-outside");
    for bad in ["", ".", "..", "a/b"] {
        assert!(load_log(project.path(), bad).unwrap_err().contains("not a session id"), "{bad:?}");
    }
    std::fs::create_dir_all(project.join(".mewcode/sessions")).unwrap();
    std::os::unix::fs::symlink(outside.path(), project.join(".mewcode/sessions").join(SESSION)).unwrap();
    let turn = Record::Turn { turn: 1, prompt: "p".into(), history_len: 0, ts: 1 };
    let error = LogWriter::new(project.path(), SESSION, &Loaded::default()).append(&turn).unwrap_err();
    assert!(error.contains("symbolic link"), "{error}");
    assert_eq!(crate::test_tree::files_under(outside.path()), Vec::new());
    std::fs::remove_file(project.join(".mewcode/sessions").join(SESSION)).unwrap();
    std::fs::create_dir_all(project.join(log_rel(SESSION))).unwrap();
    assert!(load_log(project.path(), SESSION).unwrap_err().contains("not a regular file"));
}
