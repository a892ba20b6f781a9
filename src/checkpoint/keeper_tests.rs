//! Tests of a session's keeper: when snapshots are taken, what survives a resume, and what a
//! store that lost objects or a log of a newer format does.

use super::*;
use crate::test_dir::TempDir;

const SESSION: &str = "20250101-120000-abcd";

fn open(project: &TempDir, session: &str) -> Keeper {
    let coverage = Coverage { project: project.path().to_path_buf(), extra: Vec::new() };
    Keeper::open(&coverage, session, &CancelToken::new())
}

fn moments(keeper: &Keeper) -> Vec<(u32, Moment)> {
    let timeline = Timeline::new(&keeper.records);
    (0..timeline.len()).map(|index| (keeper.snapshot_turn(index), timeline.moment(index))).collect()
}

impl Keeper {
    fn snapshot_turn(&self, index: usize) -> u32 {
        let snapshots: Vec<u32> = self
            .records
            .iter()
            .filter_map(|record| match record {
                Record::Snapshot(snapshot) => Some(snapshot.turn),
                Record::Header { .. } | Record::Turn { .. } => None,
            })
            .collect();
        snapshots[index]
    }
}

#[test]
fn a_turn_records_one_before_at_its_first_change_and_an_after_only_then() {
    let project = TempDir::new("ck-rec-turns");
    project.write("a.txt", "0");
    let mut keeper = open(&project, SESSION);
    keeper.before_change().unwrap();
    assert_eq!(moments(&keeper), [], "a change outside a turn records nothing");
    assert_eq!(keeper.begin_turn("quiet", 0), 1);
    keeper.end_turn().unwrap();
    assert_eq!(keeper.begin_turn("busy", 2), 2);
    keeper.before_change().unwrap();
    project.write("a.txt", "1");
    keeper.before_change().unwrap();
    assert_eq!(moments(&keeper), [(2, Moment::Before)]);
    // The turn's end was never reported: the next turn ends it first.
    assert_eq!(keeper.begin_turn(&format!("{}\nmore", "x".repeat(300)), 4), 3);
    assert_eq!(moments(&keeper), [(2, Moment::Before), (2, Moment::After)]);
    keeper.end_turn().unwrap();
    keeper.end_turn().unwrap();
    assert_eq!(moments(&keeper).len(), 2);
    assert_eq!(keeper.points()[0].prompt, "x".repeat(200));
}

#[test]
fn a_store_that_lost_an_object_gets_it_back_at_the_next_full_snapshot() {
    let project = TempDir::new("ck-rec-lost");
    project.write("a.txt", "content");
    let mut first = open(&project, SESSION);
    first.begin_turn("one", 0);
    first.before_change().unwrap();
    first.end_turn().unwrap();
    first.stop();
    let digest = crate::checkpoint::store::Digest::of(b"content");
    let store = Store::new(project.path());
    std::fs::remove_file(store.object_path(digest)).unwrap();
    // The saved stat cache still vouches for a.txt; the next session's first snapshot must not
    // trust it for the store.
    let mut second = open(&project, "20250101-130000-abcd");
    second.begin_turn("two", 0);
    second.before_change().unwrap();
    assert!(store.has(digest, 7));
}

#[test]
fn a_skipped_root_stays_skipped_across_a_resume_and_is_noted_once() {
    let base = TempDir::new("ck-rec-skip");
    let project = base.mkdir("project");
    for name in ["1", "2", "3"] {
        base.write(format!("big/{name}"), name);
    }
    let coverage = Coverage { project: project.clone(), extra: vec![base.join("big")] };
    let mut keeper = Keeper::open(&coverage, SESSION, &CancelToken::new());
    keeper.join_warm();
    keeper.roots.extra_cap = 2;
    keeper.begin_turn("one", 0);
    keeper.before_change().unwrap();
    keeper.end_turn().unwrap();
    assert_eq!(keeper.notes().len(), 1, "{:?}", keeper.notes());
    assert!(keeper.notes()[0].contains("more than 2 files"));
    drop(keeper);
    let resumed = Keeper::open(&coverage, SESSION, &CancelToken::new());
    assert_eq!(resumed.skipped, BTreeSet::from([base.join("big").to_string_lossy().into_owned()]));
}

#[test]
fn a_log_of_a_newer_format_turns_checkpoints_off_with_the_reason() {
    let project = TempDir::new("ck-rec-newer");
    project.write(super::super::log::log_rel(SESSION), "{\"kind\":\"header\",\"version\":99}\n");
    let mut keeper = open(&project, SESSION);
    assert!(keeper.warm.is_none(), "no warm-up for checkpoints that are off");
    assert_eq!(keeper.begin_turn("p", 0), 1);
    let error = keeper.before_change().unwrap_err();
    assert!(error.contains("newer mewcode"), "{error}");
    assert_eq!(keeper.plan(1, false).unwrap_err(), error);
    assert_eq!(keeper.session_changes().unwrap_err(), error);
    let log = project.read(super::super::log::log_rel(SESSION));
    assert_eq!(log.lines().count(), 1, "nothing appended to a log this version cannot read");
}

/// Dates a file an hour back: old enough for the stat cache to vouch for it.
fn age(path: &Path) {
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options().write(true).open(path).unwrap().set_modified(hour_ago).unwrap();
}

#[test]
fn the_warm_up_and_the_session_save_the_stat_cache_so_the_next_session_reads_nothing_again() {
    let project = TempDir::new("ck-rec-cache");
    let old = project.write("a.txt", "old");
    age(&old);
    let mut first = open(&project, SESSION);
    first.join_warm();
    let stat_of = |path: &Path| crate::checkpoint::cache::Stat::of(&std::fs::symlink_metadata(path).unwrap());
    let digest = |text: &str| crate::checkpoint::store::Digest::of(text.as_bytes());
    assert_eq!(
        StatCache::load(project.path()).lookup("a.txt", &stat_of(&old)),
        Some(digest("old")),
        "saved by the warm-up"
    );
    let new = project.write("b.txt", "new");
    age(&new);
    first.begin_turn("one", 0);
    first.before_change().unwrap();
    assert_eq!(first.unsaved, 1);
    first.stop();
    assert_eq!(
        StatCache::load(project.path()).lookup("b.txt", &stat_of(&new)),
        Some(digest("new")),
        "saved at the end"
    );
    let mut second = open(&project, "20250101-130000-abcd");
    let scanned = second.scan_now().unwrap();
    assert_eq!(scanned.cached, Vec::new(), "nothing read again");
}
