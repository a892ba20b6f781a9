//! Tests of garbage collection: only unreferenced old objects go, with their cache entries.

use super::*;
use crate::checkpoint::cache::{Cached, Stat};
use crate::test_dir::TempDir;

/// Stores `content` and dates its object `age` back.
fn object(store: &Store, content: &str, age: Duration) -> Digest {
    let digest = Digest::of(content.as_bytes());
    store.put(digest, content.as_bytes()).unwrap();
    std::fs::File::open(store.object_path(digest)).unwrap().set_modified(SystemTime::now() - age).unwrap();
    digest
}

#[test]
fn the_digests_a_log_names_are_read_as_text_even_from_a_damaged_line() {
    let (one, two) = (Digest::of(b"1"), Digest::of(b"2"));
    let log = format!(
        "{{\"kind\":\"snapshot\",\"entries\":{{\"a\":{{\"hash\":\"{}\",\"mode\":420}},\"b\":{{\"hash\":\"short\"}}}}}}\n{{\"hash\":\"{}\",\"torn",
        one.to_hex(),
        two.to_hex()
    );
    assert_eq!(digests_in(log.as_bytes()).collect::<Vec<_>>(), [one, two]);
    assert_eq!(digests_in(b"\"hash\":\"").count(), 0);
}

#[test]
fn an_object_goes_only_unreferenced_and_older_than_the_minimum_age() {
    let hour = Some(MIN_AGE);
    let cases = [
        (false, hour, true),
        (false, Some(MIN_AGE - Duration::from_secs(1)), false),
        (true, hour, false),
        (false, None, false),
    ];
    for (referenced, age, expected) in cases {
        assert_eq!(is_garbage(referenced, age), expected, "{referenced} {age:?}");
    }
}

#[test]
fn unreferenced_old_objects_and_their_cache_entries_go_the_rest_stays() {
    let project = TempDir::new("ck-gc");
    assert_eq!(collect_garbage(project.path()), Ok(0), "no store yet");
    let store = Store::new(project.path());
    let day = Duration::from_secs(86_400);
    let referenced = object(&store, "referenced", day);
    let garbage = object(&store, "garbage", day);
    let young = object(&store, "young", Duration::ZERO);
    project.write(".mewcode/checkpoints/objects/zz/not-an-object", "left alone");
    // Named like an object, but not in a fan-out directory: not ours to judge.
    let odd = format!(".mewcode/checkpoints/objects/{}/{}", &garbage.to_hex()[..3], &garbage.to_hex()[3..]);
    project.write(&odd, "left alone");
    std::fs::File::open(project.join(&odd)).unwrap().set_modified(SystemTime::now() - day).unwrap();
    let log = format!("{{\"kind\":\"snapshot\",\"entries\":{{\"a\":{{\"hash\":\"{}\"}}}}}}\n", referenced.to_hex());
    project.write(".mewcode/sessions/20250101-120000-abcd/checkpoints.jsonl", log);
    let mut cache = StatCache::default();
    let stat = Stat { size: 1, mtime_ns: 1, ctime_ns: 1, ino: 1, mode: 1 };
    for (key, digest) in [("r", referenced), ("g", garbage)] {
        cache.insert(key.into(), Cached { stat, digest, hashed_at_ns: i64::MAX });
    }
    cache.save(project.path()).unwrap();
    assert_eq!(collect_garbage(project.path()), Ok(1));
    assert!(store.has(referenced, 10) && store.has(young, 5) && !store.object_path(garbage).exists());
    assert!(project.join(".mewcode/checkpoints/objects/zz/not-an-object").exists() && project.join(&odd).exists());
    let cache = StatCache::load(project.path());
    assert_eq!((cache.lookup("r", &stat), cache.lookup("g", &stat)), (Some(referenced), None));
    assert_eq!(collect_garbage(project.path()), Ok(0));
    std::fs::remove_file(project.join(".mewcode/checkpoints/stat-cache")).unwrap();
    assert_eq!(collect_garbage(project.path()), Ok(0));
    assert!(!project.join(".mewcode/checkpoints/stat-cache").exists(), "nothing removed, nothing rewritten");
}

#[test]
fn nothing_goes_when_a_log_cannot_be_read_or_the_store_is_a_link() {
    let project = TempDir::new("ck-gc-refuse");
    let store = Store::new(project.path());
    let old = object(&store, "old", Duration::from_secs(86_400));
    std::fs::create_dir_all(project.join(".mewcode/sessions/20250101-120000-abcd/checkpoints.jsonl")).unwrap();
    assert!(collect_garbage(project.path()).unwrap_err().contains("no checkpoint object was removed"));
    assert!(store.has(old, 3));
    let other = TempDir::new("ck-gc-link");
    let outside = TempDir::new("ck-gc-outside");
    std::fs::create_dir_all(other.join(".mewcode")).unwrap();
    std::os::unix::fs::symlink(outside.path(), other.join(".mewcode/checkpoints")).unwrap();
    outside.write("objects/ab/cdef", "theirs");
    assert!(collect_garbage(other.path()).unwrap_err().contains("symbolic link"));
    assert_eq!(outside.read("objects/ab/cdef"), "theirs");
}

#[test]
fn without_sessions_every_old_object_goes_and_a_session_without_checkpoints_names_none() {
    let project = TempDir::new("ck-gc-sessions");
    let store = Store::new(project.path());
    let day = Duration::from_secs(86_400);
    let first = object(&store, "first", day);
    assert_eq!(collect_garbage(project.path()), Ok(1), "no sessions directory: nothing refers to it");
    assert!(!store.object_path(first).exists());
    let second = object(&store, "second", day);
    project.mkdir(".mewcode/sessions/20250101-120000-abcd");
    assert_eq!(collect_garbage(project.path()), Ok(1), "a session that never recorded a checkpoint");
    assert!(!store.object_path(second).exists());
    let third = object(&store, "third", day);
    std::fs::remove_dir_all(project.join(".mewcode/sessions")).unwrap();
    project.write(".mewcode/sessions", "not a directory");
    assert!(collect_garbage(project.path()).unwrap_err().contains("cannot list"));
    assert!(store.has(third, 5), "sessions that cannot be listed may name anything");
}
