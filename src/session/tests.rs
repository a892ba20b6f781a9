//! Unit tests of ids, cleanup planning, listing and titles.

use super::*;
use crate::msg::Message;
use crate::test_dir::TempDir;
use crate::test_tree::files_under;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

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
fn clean_expired_removes_old_directories_only_and_reports_a_failure_once() {
    let now = days_from_civil(2026, 12, 2) * DAY;
    let (_dir, sessions) = temp_sessions("cleanup");
    // No sessions directory yet: nothing to do, nothing to report.
    assert_eq!(clean_expired(&sessions, now, None).unwrap(), 0);
    let (old, recent, kept, planted) = (
        format_id(now - 31 * DAY, 1),
        format_id(now - 1, 2),
        format_id(now - 40 * DAY, 3),
        format_id(now - 50 * DAY, 4),
    );
    for name in [&old, &recent, &kept] {
        std::fs::create_dir_all(sessions.join(name).join("tool-results")).unwrap();
    }
    // A file named like an old id is not a session directory: left alone, and no failure.
    std::fs::write(sessions.join(&planted), "not a session").unwrap();
    assert_eq!(clean_expired(&sessions, now, Some(&kept)).unwrap(), 1);
    assert!(!sessions.join(&old).exists());
    assert!(sessions.join(&recent).is_dir() && sessions.join(&kept).is_dir() && sessions.join(&planted).is_file());
    // A sessions path that cannot be read is one error naming it.
    std::fs::remove_dir_all(&sessions).unwrap();
    std::fs::write(&sessions, "a file where the directory should be").unwrap();
    let err = clean_expired(&sessions, now, None).unwrap_err();
    let message = err.to_string();
    assert!(message.starts_with("could not clean up old sessions: ") && message.contains("sessions"), "{message}");
    assert!(matches!(err, SessionError::Cleanup { left: 0, .. }), "{err:?}");
    let many = SessionError::Cleanup { path: sessions.clone(), err: std::io::Error::other("busy"), left: 3 };
    assert!(many.to_string().contains("(3 old session directories left;"), "{many}");
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

/// Writes a session log in `sessions` with header `meta` and one user message.
fn write_session(sessions: &Path, meta: &Meta) {
    let mut writer = SessionWriter::create(project_root(sessions).unwrap(), &log_rel(&meta.id), meta).unwrap();
    writer.append(&Message::user("hi"), 1);
}

fn meta_for(id: &str, title: &str, model: &str, owner: &Owner) -> Meta {
    Meta {
        version: record::VERSION,
        id: id.to_string(),
        created: 0,
        title: title_of(title),
        model: model.to_string(),
        owner: owner.mark(id),
    }
}

/// A fresh project directory (removed on drop) and its sessions directory (not made yet).
fn temp_sessions(tag: &str) -> (TempDir, PathBuf) {
    let dir = TempDir::new(&format!("session-{tag}"));
    let sessions = sessions_dir(dir.path());
    (dir, sessions)
}

#[test]
fn listing_is_newest_first_and_skips_non_sessions() {
    let (dir, sessions) = temp_sessions("list");
    let owner = Owner::from_key([1; 32]);
    let base = days_from_civil(2026, 12, 1) * DAY;
    let ids: Vec<String> = (0..3).map(|n| format_id(base + n * 60, n as u16)).collect();
    for (index, id) in ids.iter().enumerate() {
        let title = format!("task {index} — ünïcødé {}", "x".repeat(60));
        write_session(&sessions, &meta_for(id, &title, &format!("model-{index}"), &owner));
    }
    // Equal mtimes are likely within one test: the id breaks the tie, newest first.
    std::fs::create_dir_all(sessions.join("not-a-session")).unwrap();
    std::fs::create_dir_all(sessions.join(format_id(base, 9))).unwrap(); // an id without a log
    let listed = list_sessions(&sessions, &owner);
    let listed_ids: Vec<&str> = listed.iter().map(|info| info.id.as_str()).collect();
    assert_eq!(listed_ids, vec![ids[2].as_str(), ids[1].as_str(), ids[0].as_str()]);
    assert!(listed.iter().all(|info| info.owned));
    assert_eq!(listed[0].model, "model-2");
    assert_eq!(listed[0].title.chars().count(), 50);
    assert!(listed[0].title.starts_with("task 2 — ünïcødé x"));
    assert_eq!(latest_session(&sessions, &owner).unwrap().id, ids[2]);
    assert!(find_session(&sessions, &ids[0]).is_ok());
    assert!(matches!(find_session(&sessions, "nope"), Err(SessionError::NotFound { .. })));
    assert!(matches!(latest_session(&dir.join("none"), &owner), Err(SessionError::NoSessions { not_owned: 0 })));
    // Another installation owns none of them: all listed, none continued, and the error says why.
    let stranger = Owner::from_key([2; 32]);
    assert!(list_sessions(&sessions, &stranger).iter().all(|info| !info.owned));
    let err = latest_session(&sessions, &stranger).unwrap_err();
    assert!(matches!(err, SessionError::NoSessions { not_owned: 3 }), "{err:?}");
    assert!(err.to_string().contains("3 session(s) here were not created by this mewcode"), "{err}");
    assert!(matches!(latest_session(&sessions, &Owner::none()), Err(SessionError::NoSessions { not_owned: 3 })));
}

#[test]
fn a_planted_future_dated_session_is_listed_last_flagged_and_never_continued() {
    let (_dir, sessions) = temp_sessions("planted");
    let owner = Owner::from_key([3; 32]);
    let now_utc = i64::try_from(now_s()).unwrap();
    let mine = format_id(to_local(now_utc as u64) - 3600, 1);
    write_session(&sessions, &meta_for(&mine, "my task", "m", &owner));
    // Planted: dated a year ahead, a header without our mark (or with a mark copied from ours,
    // which covers another id), and file times in the future.
    let planted = format_id(to_local(now_utc as u64) + 365 * DAY, 2);
    let copied = format_id(to_local(now_utc as u64) + 2 * DAY, 3);
    write_session(&sessions, &meta_for(&planted, "do as I say", "m", &Owner::none()));
    let mut copied_meta = meta_for(&copied, "copied mark", "m", &owner);
    copied_meta.owner = owner.mark(&mine);
    write_session(&sessions, &copied_meta);
    let year_ahead = SystemTime::now() + std::time::Duration::from_secs(365 * 86_400);
    for id in [&planted, &copied] {
        std::fs::File::options().append(true).open(log_path(&sessions, id)).unwrap().set_modified(year_ahead).unwrap();
    }
    let listed = list_sessions(&sessions, &owner);
    let summary: Vec<(&str, bool)> = listed.iter().map(|info| (info.id.as_str(), info.owned)).collect();
    assert_eq!(summary[0], (mine.as_str(), true), "{summary:?}");
    assert!(summary[1..].iter().all(|(_, owned)| !owned), "{summary:?}");
    assert_eq!(latest_session(&sessions, &owner).unwrap().id, mine);
    assert!(render_line(&listed[1]).contains("[not created here]"), "{}", render_line(&listed[1]));
    assert!(!render_line(&listed[0]).contains("[not created here]"));
    // Naming it explicitly still resumes it, with a note for the user.
    let resumed = resume_session(&sessions, &planted, "m", 200_000, now_s(), &owner).unwrap();
    assert_eq!(resumed.not_owned_note, Some(not_owned_note(&planted)));
    let resumed = resume_session(&sessions, &mine, "m", 200_000, now_s(), &owner).unwrap();
    assert_eq!(resumed.not_owned_note, None);
}

fn info(id: &str, modified_ms: u64, owned: bool) -> SessionInfo {
    SessionInfo { id: id.to_string(), modified_ms, title: String::new(), model: String::new(), owned }
}

#[test]
fn plan_latest_picks_the_newest_owned_session_dated_in_the_past() {
    let now_local = days_from_civil(2026, 12, 2) * DAY + 12 * 3600;
    let now_ms = 1_000_000_000;
    let at = |offset_s: i64, salt: u16| format_id(now_local + offset_s, salt);
    let check = |sessions: &[SessionInfo], expected: Option<&str>| {
        let picked = plan_latest(sessions, now_ms, now_local).map(|info| info.id.as_str());
        assert_eq!(picked, expected, "{sessions:?}");
    };
    let (old, recent) = (at(-7200, 1), at(-60, 2));
    check(&[], None);
    check(&[info(&old, 10, true), info(&recent, 20, true)], Some(&recent));
    check(&[info(&old, 30, true), info(&recent, 20, true)], Some(&old));
    // Not owned: never, however new.
    check(&[info(&old, 10, true), info(&recent, now_ms, false)], Some(&old));
    check(&[info(&recent, 20, false)], None);
    // Dated in the future beyond a time zone's worth of slack: passed over.
    let (ahead_ok, ahead_far) = (at(FUTURE_SLACK_S, 3), at(FUTURE_SLACK_S + 1, 4));
    check(&[info(&old, 10, true), info(&ahead_far, 20, true)], Some(&old));
    check(&[info(&old, 10, true), info(&ahead_ok, 20, true)], Some(&ahead_ok));
    // A write time in the future counts as now: the id breaks the tie, it does not win outright.
    check(&[info(&recent, now_ms, true), info(&old, now_ms + 1, true)], Some(&recent));
    check(&[info(&old, now_ms - 1, true), info(&recent, now_ms - 2, true)], Some(&old));
    check(&[info(&recent, now_ms + 5, true), info(&old, now_ms - 1, true)], Some(&recent));
    // Equal times: the later id.
    check(&[info(&recent, 5, true), info(&old, 5, true)], Some(&recent));
    // A name that is not an id is never picked.
    check(&[info("notes", 99, true)], None);
}

#[test]
fn listing_lines_flag_sessions_not_created_here_before_the_fields_their_header_chose() {
    let mut session = info("20261202-131500-a1b2", 1_700_000_000_999, true);
    session.model = "test-model".into();
    session.title = "fix the bug".into();
    let time = render_time(to_local(1_700_000_000));
    assert_eq!(render_line(&session), format!("20261202-131500-a1b2  {time}  test-model            fix the bug"));
    session.owned = false;
    assert_eq!(
        render_line(&session),
        format!("20261202-131500-a1b2  {time}  [not created here]  test-model            fix the bug")
    );
}

#[test]
fn a_new_session_keeps_mewcode_dir_out_of_git_and_never_writes_through_a_linked_dir() {
    let (dir, sessions) = temp_sessions("gitignore");
    let owner = Owner::from_key([3; 32]);
    create_session(&sessions, "20260101-000000-abcd", "hi", "m", &owner).unwrap();
    let ignore = std::fs::read_to_string(dir.join(".mewcode/.gitignore")).unwrap();
    assert_eq!(ignore, crate::fsx::MEWCODE_DIR_GITIGNORE);
    // A repository that ships `.mewcode` as a link out gets no session written through it.
    let outside = dir.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::remove_dir_all(dir.join(".mewcode")).unwrap();
    std::os::unix::fs::symlink(&outside, dir.join(".mewcode")).unwrap();
    let err = create_session(&sessions, "20260101-000000-abce", "hi", "m", &owner).unwrap_err();
    assert!(err.to_string().contains("symbolic link"), "{err}");
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
}

#[test]
fn no_session_is_created_through_a_planted_sessions_link() {
    let (dir, sessions) = temp_sessions("linked-sessions");
    let owner = Owner::from_key([4; 32]);
    let outside = dir.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::create_dir_all(dir.join(".mewcode")).unwrap();
    std::os::unix::fs::symlink(&outside, &sessions).unwrap();
    let err = create_session(&sessions, "20260101-000000-abcd", "hi", "m", &owner).unwrap_err();
    let expected = format!("{} is a symbolic link; mewcode does not write through it", sessions.display());
    assert!(err.to_string().contains(&expected), "{err}");
    assert_eq!(files_under(&outside), Vec::new());
    // Nor does the start-up cleanup remove what looks old there: it is not ours.
    let old = outside.join("20200101-000000-abcd");
    std::fs::create_dir_all(&old).unwrap();
    let now = days_from_civil(2026, 12, 2) * DAY;
    let err = clean_expired(&sessions, now, None).unwrap_err();
    assert!(err.to_string().contains(&expected), "{err}");
    assert!(old.is_dir());
}

#[test]
fn a_session_reached_through_a_planted_link_is_not_this_projects() {
    let owner = Owner::from_key([5; 32]);
    let id = "20260101-000000-abcd";
    // The session's directory, then its log alone, moved outside with a link left in its place:
    // what a repository does to pass another project's session (ours, so marked) for its own.
    for planted in [PathBuf::from(id), Path::new(id).join("conversation.jsonl")] {
        let (dir, sessions) = temp_sessions("linked-resume");
        write_session(&sessions, &meta_for(id, "my task", "m", &owner));
        assert_eq!(list_sessions(&sessions, &owner).len(), 1);
        let outside = dir.join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        let moved = outside.join("moved");
        std::fs::rename(sessions.join(&planted), &moved).unwrap();
        std::os::unix::fs::symlink(&moved, sessions.join(&planted)).unwrap();
        let before = files_under(&outside);
        let what = planted.display();
        assert_eq!(list_sessions(&sessions, &owner), Vec::new(), "{what}: not listed");
        assert!(matches!(latest_session(&sessions, &owner), Err(SessionError::NoSessions { .. })), "{what}");
        assert!(matches!(find_session(&sessions, id), Err(SessionError::NotFound { .. })), "{what}");
        let resumed = resume_session(&sessions, id, "m", 200_000, now_s(), &owner);
        assert!(matches!(resumed, Err(SessionError::NotFound { .. })), "{what}: not resumed");
        assert_eq!(files_under(&outside), before, "{what}");
    }
}
