//! Tests of `spool.rs`: reads pick up where the last stopped, the cap keeps the newest output and
//! says what was dropped, characters are never cut.

use super::*;
use crate::test_dir::TempDir;

fn spool(dir: &TempDir, cap: u64) -> Spool {
    Spool::create(&dir.join("job.log"), cap).unwrap()
}

#[test]
fn each_read_returns_what_came_since_the_last_and_says_what_waits() {
    let dir = TempDir::new("spool");
    let mut spool = spool(&dir, 1000);
    spool.append(b"one\n").unwrap();
    spool.append(b"two\n").unwrap();
    assert_eq!(spool.read_new(5).unwrap(), Read { text: "one\nt".into(), waiting: 3, dropped: 0 });
    assert_eq!(spool.read_new(100).unwrap(), Read { text: "wo\n".into(), waiting: 0, dropped: 0 });
    assert_eq!(spool.read_new(100).unwrap(), Read::default());
    spool.append(b"three").unwrap();
    assert_eq!(spool.read_new(100).unwrap().text, "three");
    assert_eq!(spool.total(), 13);
}

#[test]
fn past_the_cap_the_unread_output_is_dropped_counted_and_the_newest_kept() {
    let dir = TempDir::new("spool");
    let mut spool = spool(&dir, 10);
    spool.append(b"abcdef").unwrap();
    assert_eq!(spool.read_new(2).unwrap().text, "ab");
    spool.append(b"ghijk").unwrap();
    let read = spool.read_new(100).unwrap();
    assert_eq!(read, Read { text: "ghijk".into(), waiting: 0, dropped: 4 });
    assert!(std::fs::metadata(dir.join("job.log")).unwrap().len() <= 10);
    // One write bigger than the cap: its end only.
    spool.append(b"0123456789ABCDEF").unwrap();
    assert_eq!(spool.read_new(100).unwrap().text, "6789ABCDEF");
    assert_eq!(spool.total(), 27);
}

#[test]
fn a_character_split_between_writes_is_read_whole() {
    let dir = TempDir::new("spool");
    let mut spool = spool(&dir, 100);
    let snowman = "\u{2603}".as_bytes();
    spool.append(&[b'a', snowman[0]]).unwrap();
    assert_eq!(spool.read_new(100).unwrap(), Read { text: "a".into(), waiting: 1, dropped: 0 });
    spool.append(&snowman[1..]).unwrap();
    assert_eq!(spool.read_new(100).unwrap().text, "\u{2603}");
    // A byte that is no character at all is shown, not held back.
    spool.append(&[0xff, b'b']).unwrap();
    assert_eq!(spool.read_new(100).unwrap().text, "\u{fffd}b");
}

#[test]
fn the_file_is_private_and_goes_with_the_spool() {
    let dir = TempDir::new("spool");
    let path = dir.join("job.log");
    let spool = spool(&dir, 100);
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    assert!(Spool::create(&path, 100).is_err(), "never opens a file that is already there");
    drop(spool);
    assert!(!path.exists());
}

#[test]
fn a_spool_filled_exactly_to_its_cap_drops_nothing() {
    let dir = TempDir::new("spool");
    let mut spool = spool(&dir, 10);
    spool.append(b"abcd").unwrap();
    spool.append(b"efghij").unwrap();
    assert_eq!(spool.read_new(100).unwrap(), Read { text: "abcdefghij".into(), waiting: 0, dropped: 0 });
    spool.append(b"k").unwrap();
    assert_eq!(spool.read_new(100).unwrap(), Read { text: "k".into(), waiting: 0, dropped: 0 });
}
