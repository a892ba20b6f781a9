//! Unit tests of `reads.rs`: the recency list, fingerprints of content, and their bounds.

use super::*;
use crate::digest::sha256;
use crate::test_dir::TempDir;

#[test]
fn read_tracker_keeps_the_most_recent_distinct_paths() {
    let tracker = ReadTracker::new();
    for index in 0..(ReadTracker::CAPACITY + 10) {
        tracker.record(Path::new(&format!("/p/{index}")));
    }
    tracker.record(Path::new("/p/20"));
    let recent = tracker.recent(3);
    let last = ReadTracker::CAPACITY + 9;
    let expected: Vec<PathBuf> =
        [format!("/p/{}", last - 1), format!("/p/{last}"), "/p/20".to_string()].iter().map(PathBuf::from).collect();
    assert_eq!(recent, expected);
    assert_eq!(tracker.recent(1000).len(), ReadTracker::CAPACITY);
    assert_eq!(ReadTracker::new().recent(5), Vec::<PathBuf>::new());
}

#[test]
fn a_small_file_is_fingerprinted_by_the_hash_of_its_whole_content() {
    let temp = TempDir::new("reads-whole");
    let file = temp.write("a.txt", "hello\n");
    let loaded = load_fingerprint(&file, 100).unwrap();
    let expected =
        Fingerprinted { fingerprint: Fingerprint::Whole(sha256(b"hello\n")), len: 6, bytes: Some(b"hello\n".to_vec()) };
    assert_eq!(loaded, expected);
    // The bytes are kept up to the limit exactly, and dropped past it.
    assert_eq!(load_fingerprint(&file, 6).unwrap().bytes, Some(b"hello\n".to_vec()));
    assert_eq!(load_fingerprint(&file, 5).unwrap(), Fingerprinted { bytes: None, ..expected.clone() });
    // Same length, other content: another fingerprint.
    temp.write("a.txt", "hellO\n");
    assert_ne!(load_fingerprint(&file, 0).unwrap().fingerprint, expected.fingerprint);
    // Content bigger than one read buffer is hashed whole, and kept whole when asked.
    let big: Vec<u8> = (0..200_000u32).map(|n| (n % 251) as u8).collect();
    temp.write("big.bin", &big);
    let loaded = load_fingerprint(&temp.join("big.bin"), big.len()).unwrap();
    assert_eq!(loaded, Fingerprinted { fingerprint: Fingerprint::Whole(sha256(&big)), len: 200_000, bytes: Some(big) });
    assert!(load_fingerprint(&temp.join("missing"), 10).is_err());
    // A read that fails is an error, not a fingerprint of what was read before it failed.
    assert!(load_fingerprint(temp.path(), 10).is_err(), "a directory opens, but does not read");
}

/// The limits the README documents: the whole file up to 64 MiB, else 1 MiB at each end.
#[test]
fn the_documented_limits() {
    assert_eq!((WHOLE_HASH_MAX_BYTES, EDGE_BYTES), (64 << 20, 1 << 20));
}

/// Past the whole-hash limit: the length, the modification time and the two ends count; a change
/// in the middle that keeps both is the documented blind spot.
#[test]
fn a_huge_file_is_fingerprinted_by_its_length_time_and_ends() {
    let temp = TempDir::new("reads-sampled");
    let limits = Limits { whole_max: 100, edge: 10 };
    let original: Vec<u8> = (0..300u32).map(|n| b'a' + (n % 26) as u8).collect();
    let file = temp.write("huge.log", &original);
    let when = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::new(1_700_000_000, 5);
    let set_time =
        |at: std::time::SystemTime| File::options().write(true).open(&file).unwrap().set_modified(at).unwrap();
    set_time(when);
    let first = load_with_limits(&file, 1000, limits).unwrap();
    assert_eq!((first.len, first.bytes.as_ref()), (300, None), "a sampled file's bytes are never kept");
    let Fingerprint::Sampled { len, modified_ns, .. } = first.fingerprint else { panic!("{first:?}") };
    assert_eq!((len, modified_ns), (300, 1_700_000_000_000_000_005));
    let changed = |at: usize, when: std::time::SystemTime| {
        let mut bytes = original.clone();
        bytes[at] = b'#';
        std::fs::write(&file, &bytes).unwrap();
        set_time(when);
        load_with_limits(&file, 0, limits).unwrap().fingerprint
    };
    assert_ne!(changed(0, when), first.fingerprint, "the first bytes count");
    assert_ne!(changed(295, when), first.fingerprint, "the last bytes count");
    assert_ne!(changed(150, when + std::time::Duration::from_nanos(1)), first.fingerprint, "the time counts");
    assert_eq!(changed(150, when), first.fingerprint, "the middle with the same time does not");
    std::fs::write(&file, &original[..299]).unwrap();
    set_time(when);
    assert_ne!(load_with_limits(&file, 0, limits).unwrap().fingerprint, first.fingerprint, "the length counts");
    // At the limit exactly, the whole content is hashed.
    std::fs::write(&file, &original[..100]).unwrap();
    assert_eq!(load_with_limits(&file, 0, limits).unwrap().fingerprint, Fingerprint::Whole(sha256(&original[..100])));
}

#[test]
fn fingerprints_are_bounded_and_the_oldest_is_dropped_first() {
    let tracker = ReadTracker::new();
    let fingerprint = |n: usize| Fingerprint::Whole(sha256(n.to_string().as_bytes()));
    let key = |n: usize| PathBuf::from(format!("/p/{n}"));
    for n in 0..ReadTracker::SEEN_CAPACITY {
        tracker.remember(&key(n), fingerprint(n));
    }
    // Seen again, the first file becomes the newest; the second is now the oldest.
    tracker.remember(&key(0), fingerprint(1000));
    tracker.remember(&key(ReadTracker::SEEN_CAPACITY), fingerprint(7));
    assert_eq!(tracker.last_seen(&key(0)), Some(fingerprint(1000)));
    assert_eq!(tracker.last_seen(&key(1)), None, "the oldest is dropped");
    assert_eq!(tracker.last_seen(&key(2)), Some(fingerprint(2)));
    assert_eq!(tracker.last_seen(&key(ReadTracker::SEEN_CAPACITY)), Some(fingerprint(7)));
    assert_eq!(lock(&tracker.inner).seen.len(), ReadTracker::SEEN_CAPACITY);
    assert_eq!(lock(&tracker.inner).by_age.len(), ReadTracker::SEEN_CAPACITY);
    // The recency list of compaction is another list: fingerprints do not fill it.
    assert!(tracker.recent(10).is_empty());
    tracker.forget(&key(2));
    assert_eq!(tracker.last_seen(&key(2)), None);
    assert_eq!(lock(&tracker.inner).by_age.len(), ReadTracker::SEEN_CAPACITY - 1);
    tracker.forget(&key(2));
}

#[test]
fn a_read_records_the_path_and_the_file_under_its_real_name() {
    let temp = TempDir::new("reads-record");
    let real = temp.write("real.txt", "content\n");
    let link = temp.join("link.txt");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    assert_eq!(content_key(&link), std::fs::canonicalize(&real).unwrap());
    assert_eq!(content_key(&temp.join("new.txt")), temp.join("new.txt"), "a missing file keys as itself");
    let tracker = ReadTracker::new();
    record_read(&tracker, &link);
    assert_eq!(tracker.recent(5), vec![link.clone()], "compaction re-reads the path the model used");
    let expected = Fingerprint::Whole(sha256(b"content\n"));
    assert_eq!(tracker.last_seen(&content_key(&real)), Some(expected));
    // A file gone since: what was seen of it is forgotten.
    std::fs::remove_file(&real).unwrap();
    tracker.remember(&real, expected);
    record_read(&tracker, &real);
    assert_eq!(tracker.last_seen(&real), None);
}
