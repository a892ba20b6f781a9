//! Unit tests of ids, cleanup planning, listing and titles.

use super::*;
use crate::msg::Message;

const DAY: i64 = 86_400;

#[test]
fn ids_format_and_parse_back() {
    // 2026-12-02 13:15:00 local.
    let time = days_from_civil(2026, 12, 2) * DAY + 13 * 3600 + 15 * 60;
    assert_eq!(format_id(time, 0xa1b2), "20261202-131500-a1b2");
    assert_eq!(parse_id("20261202-131500-a1b2"), Some(time));
    assert_eq!(format_id(0, 0), "19700101-000000-0000");
    for (days, salt) in [(0, 1u16), (11_000, 0xffff), (20_000, 0x0042), (-1, 7)] {
        let time = days * DAY + 3_723;
        assert_eq!(parse_id(&format_id(time, salt)), Some(time));
    }
    let id = new_id();
    assert!(parse_id(&id).is_some(), "{id}");
    for not_id in [
        "",
        "notes",
        "20261202-131500-A1B2",
        "20261302-131500-a1b2",
        "20261202-131500-a1b",
        "20261202_131500-a1b2",
        "2026120x-131500-a1b2",
    ] {
        assert_eq!(parse_id(not_id), None, "{not_id}");
    }
}

#[test]
fn cleanup_removes_only_old_ids() {
    let now = days_from_civil(2026, 12, 2) * DAY;
    let names: Vec<String> = [
        format_id(now - 31 * DAY, 1),     // old: removed
        format_id(now - 29 * DAY, 2),     // recent: kept
        format_id(now, 3),                // today: kept
        "backup-of-20200101".to_string(), // not an id: never touched
        "20200101-000000-zzzz".to_string(),
    ]
    .into();
    assert_eq!(plan_cleanup(&names, now, None), vec![names[0].clone()]);
    // The session being resumed stays, however old.
    assert_eq!(plan_cleanup(&names, now, Some(&names[0])), Vec::<String>::new());
}

#[test]
fn titles_are_fifty_characters_on_one_line() {
    assert_eq!(title_of("  fix\nthe   bug "), "fix the bug");
    let long = "é".repeat(60);
    assert_eq!(title_of(&long), "é".repeat(50));
    assert_eq!(title_of(&"日本".repeat(30)).chars().count(), 50);
    assert_eq!(title_of(&"a".repeat(50)), "a".repeat(50));
}

#[test]
fn stale_decisions() {
    let hour = 3600;
    assert_eq!(stale_note(1_000_000, 1_000_000 + 6 * hour), None);
    assert!(stale_note(1_000_000, 1_000_000 + 7 * hour).unwrap().contains("idle for 7 h"));
    assert_eq!(stale_note(0, 1_000_000), None);
    assert_eq!(stale_note(10, 5), None);
}

#[test]
fn listing_is_newest_first_and_skips_non_sessions() {
    let dir = std::env::temp_dir().join(format!("mewcode-list-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let sessions = sessions_dir(&dir);
    let base = days_from_civil(2026, 12, 1) * DAY;
    let ids: Vec<String> = (0..3).map(|n| format_id(base + n * 60, n as u16)).collect();
    for (index, id) in ids.iter().enumerate() {
        let meta = Meta {
            version: record::VERSION,
            id: id.clone(),
            created: 0,
            title: title_of(&format!("task {index} — ünïcødé {}", "x".repeat(60))),
            model: format!("model-{index}"),
        };
        let mut writer = SessionWriter::create(&log_path(&sessions, id), &meta).unwrap();
        writer.append(&Message::user("hi"), 1);
    }
    // Equal mtimes are likely within one test: the id breaks the tie, newest first.
    std::fs::create_dir_all(sessions.join("not-a-session")).unwrap();
    std::fs::create_dir_all(sessions.join(format_id(base, 9))).unwrap(); // an id without a log
    let listed = list_sessions(&sessions);
    let listed_ids: Vec<&str> = listed.iter().map(|info| info.id.as_str()).collect();
    assert_eq!(listed_ids, vec![ids[2].as_str(), ids[1].as_str(), ids[0].as_str()]);
    assert_eq!(listed[0].model, "model-2");
    assert_eq!(listed[0].title.chars().count(), 50);
    assert!(listed[0].title.starts_with("task 2 — ünïcødé x"));
    assert_eq!(latest_session(&sessions).unwrap().id, ids[2]);
    assert!(find_session(&sessions, &ids[0]).is_ok());
    assert!(matches!(find_session(&sessions, "nope"), Err(SessionError::NotFound { .. })));
    assert!(matches!(latest_session(&dir.join("none")), Err(SessionError::NoSessions)));
    std::fs::remove_dir_all(&dir).unwrap();
}
