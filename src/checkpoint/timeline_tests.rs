//! Tests of reading the log back: states, turn changes, targets and hand changes, as data.

use super::*;
use crate::checkpoint::store::Digest;

fn file(content: &str) -> Option<Entry> {
    Some(Entry::File { hash: Digest::of(content.as_bytes()), mode: 0o644, size: content.len() as u64 })
}

fn turn(number: u32) -> Record {
    Record::Turn {
        turn: number,
        prompt: format!("prompt {number}"),
        history_len: number as usize * 2,
        ts: 100 + u64::from(number),
    }
}

fn snap(number: u32, moment: MomentName, entries: &[(&str, Option<Entry>)]) -> Record {
    snap_covering(number, moment, &[], entries)
}

fn snap_covering(number: u32, moment: MomentName, extra: &[&str], entries: &[(&str, Option<Entry>)]) -> Record {
    Record::Snapshot(Snapshot {
        turn: number,
        moment,
        ts: 200 + u64::from(number),
        extra: extra.iter().map(|root| root.to_string()).collect(),
        skipped: Vec::new(),
        undo: false,
        entries: entries.iter().map(|(key, entry)| (key.to_string(), entry.clone())).collect(),
    })
}

fn tree(entries: &[(&str, Option<Entry>)]) -> Tree {
    Tree {
        entries: entries.iter().filter_map(|(key, entry)| Some((key.to_string(), entry.clone()?))).collect(),
        extra: Vec::new(),
    }
}

fn keys(set: BTreeSet<String>) -> Vec<String> {
    set.into_iter().collect()
}

use MomentName::{After, Before, PostRewind, PreRewind};

/// A session: turn 1 changes a and creates c, b is changed by hand, turn 2 changes nothing, turn
/// 3 deletes a, a rewind to turn 1 and its result.
fn session() -> Vec<Record> {
    vec![
        turn(1),
        snap(1, Before, &[("a", file("a0")), ("b", file("b0"))]),
        snap(1, After, &[("a", file("a1")), ("c", file("c1"))]),
        turn(2),
        turn(3),
        snap(3, Before, &[("b", file("b-hand"))]),
        snap(3, After, &[("a", None)]),
        snap(1, PreRewind, &[]),
        snap(1, PostRewind, &[("a", file("a0")), ("b", file("b0")), ("c", None)]),
    ]
}

#[test]
fn a_delta_applied_turns_one_state_into_the_other() {
    let old = tree(&[("same", file("s")), ("changed", file("1")), ("gone", file("g"))]);
    let new = tree(&[("same", file("s")), ("changed", file("2")), ("added", file("n"))]);
    let delta = old.delta(&new);
    let expected: BTreeMap<String, Option<Entry>> = [("added", file("n")), ("changed", file("2")), ("gone", None)]
        .into_iter()
        .map(|(key, entry)| (key.to_string(), entry))
        .collect();
    assert_eq!(delta, expected);
    let mut replayed = old.clone();
    replayed.apply(&Snapshot {
        turn: 1,
        moment: After,
        ts: 0,
        extra: vec!["/x".into()],
        skipped: Vec::new(),
        undo: false,
        entries: delta,
    });
    assert_eq!(replayed.entries, new.entries);
    assert_eq!(replayed.extra, ["/x"]);
    assert_eq!(new.delta(&new), BTreeMap::new());
    assert_eq!(Tree::default().delta(&new).len(), 3, "the first snapshot lists everything");
    assert_eq!(new.delta(&Tree::default()).values().filter(|entry| entry.is_none()).count(), 3);
}

#[test]
fn keys_under_an_extra_root_compare_only_between_states_covering_it() {
    let both = ["/w".to_string()];
    let cases: [(&str, &[String], &[String], bool); 7] = [
        ("src/a.rs", &[], &[], true),
        ("/w/a", &both, &both, true),
        ("/w", &both, &both, true),
        ("/w/a", &both, &[], false),
        ("/w/a", &[], &both, false),
        ("/wx/a", &both, &both, false),
        ("/v/a", &both, &both, false),
    ];
    for (key, a, b, expected) in cases {
        assert_eq!(comparable(key, a, b), expected, "{key} {a:?} {b:?}");
    }
    let mut with_root = tree(&[("p", file("1")), ("/w/f", file("w"))]);
    with_root.extra = vec!["/w".into()];
    let without = tree(&[("p", file("2"))]);
    assert_eq!(keys(differing(&with_root, &without)), ["p"], "the root no longer covered is not 'deleted'");
}

#[test]
fn states_are_replayed_and_turns_numbered_from_the_log() {
    let records = session();
    let timeline = Timeline::new(&records);
    assert_eq!((timeline.len(), timeline.last_turn()), (6, 3));
    assert_eq!(timeline.tree_at(0), tree(&[("a", file("a0")), ("b", file("b0"))]));
    assert_eq!(timeline.tree_at(3), tree(&[("b", file("b-hand")), ("c", file("c1"))]));
    assert_eq!(timeline.last_tree(), tree(&[("a", file("a0")), ("b", file("b0"))]));
    assert_eq!(Timeline::new(&[]).last_tree(), Tree::default());
    assert_eq!(Timeline::new(&[]).last_turn(), 0);
    assert_eq!(Timeline::new(&[snap(4, Before, &[])]).last_turn(), 4, "a snapshot whose turn line was lost");
    let moments: Vec<Moment> = (0..timeline.len()).map(|index| timeline.moment(index)).collect();
    assert_eq!(
        moments,
        [Moment::Before, Moment::After, Moment::Before, Moment::After, Moment::PreRewind, Moment::PostRewind]
    );
    let mut skipping = snap(1, Before, &[]);
    if let Record::Snapshot(snapshot) = &mut skipping {
        snapshot.skipped = vec!["/big".into()];
    }
    let with_skip = [skipping, snap(1, After, &[])];
    assert_eq!(Timeline::new(&with_skip).skipped(), BTreeSet::from(["/big".to_string()]));
}

#[test]
fn a_restore_goes_to_the_turns_before_or_the_first_snapshot_after_it_began_or_undoes_a_rewind() {
    let records = session();
    let timeline = Timeline::new(&records);
    assert_eq!(timeline.target(1, false), Ok(Some(0)));
    assert_eq!(timeline.target(3, false), Ok(Some(2)));
    assert_eq!(timeline.target(2, false), Ok(Some(2)), "turn 2 changed nothing: the state when turn 3 began");
    assert_eq!(timeline.target(1, true), Ok(Some(4)));
    assert!(timeline.target(4, false).unwrap_err().contains("no turn 4"));
    assert!(timeline.target(3, true).unwrap_err().contains("no rewind to turn 3"));
    let quiet = [turn(1), snap(1, Before, &[]), snap(1, After, &[]), turn(2)];
    assert_eq!(Timeline::new(&quiet).target(2, false), Ok(None), "nothing recorded since: nothing to restore");
    let twice =
        [turn(1), snap(1, PreRewind, &[]), snap(1, PostRewind, &[]), snap(1, PreRewind, &[]), snap(1, PostRewind, &[])];
    assert_eq!(Timeline::new(&twice).target(1, true), Ok(Some(2)), "the latest rewind");
}

#[test]
fn changes_compare_values_so_a_change_undone_is_no_change() {
    let records = [
        snap(1, Before, &[("a", file("0"))]),
        snap(1, After, &[("a", file("1"))]),
        snap(2, Before, &[("a", file("0"))]),
        snap(2, After, &[("b", file("b"))]),
    ];
    let timeline = Timeline::new(&records);
    assert_eq!(keys(timeline.changed(0, 2)), Vec::<String>::new());
    assert_eq!(keys(timeline.changed(0, 3)), ["b"]);
    assert_eq!(keys(timeline.changed(1, 3)), ["a", "b"]);
    let roots =
        [snap_covering(1, Before, &[], &[("p", file("0"))]), snap_covering(1, After, &["/w"], &[("/w/x", file("x"))])];
    assert_eq!(keys(Timeline::new(&roots).changed(0, 1)), Vec::<String>::new(), "a root newly covered is not a change");
}

#[test]
fn hand_changes_are_what_changed_after_an_after_or_a_post_rewind() {
    let records = session();
    let timeline = Timeline::new(&records);
    let last = timeline.last_tree();
    let now = tree(&[("a", file("a0")), ("b", file("b-again"))]);
    // Gaps: After(1) → Before(3): b by hand; After(3) → PreRewind: nothing; PostRewind → now: b.
    assert_eq!(keys(timeline.hand_changed(0, &last, &now)), ["b"]);
    assert_eq!(keys(timeline.hand_changed(5, &last, &now)), ["b"]);
    assert_eq!(keys(timeline.hand_changed(2, &last, &last)), Vec::<String>::new());
    let hand_then = [
        turn(1),
        snap(1, Before, &[("a", file("0"))]),
        snap(1, After, &[("a", file("1"))]),
        snap(2, Before, &[("x", file("x"))]),
    ];
    let timeline = Timeline::new(&hand_then);
    let now = tree(&[("a", file("1")), ("x", file("x")), ("y", file("y"))]);
    assert_eq!(
        keys(timeline.hand_changed(0, &timeline.last_tree(), &now)),
        ["x"],
        "after a Before, changes are the turn's"
    );
    let ends: Vec<bool> = [Moment::Before, Moment::After, Moment::PreRewind, Moment::PostRewind]
        .into_iter()
        .map(ends_mewcode_change)
        .collect();
    assert_eq!(ends, [false, true, false, true]);
}

#[test]
fn points_list_turns_and_rewinds_newest_first_with_what_each_changed() {
    let strings = |items: &[&str]| items.iter().map(|item| item.to_string()).collect::<Vec<_>>();
    let point = |turn: u32, rewind: bool, prompt: &str, ts: u64, changed: &[&str], history_len: Option<usize>| Point {
        turn,
        rewind,
        prompt: prompt.to_string(),
        ts,
        changed: strings(changed),
        history_len,
    };
    let records = session();
    assert_eq!(
        Timeline::new(&records).points(),
        [
            point(1, true, "rewind to turn 1", 201, &["a", "b", "c"], None),
            point(3, false, "prompt 3", 103, &["a"], Some(6)),
            point(2, false, "prompt 2", 102, &[], Some(4)),
            point(1, false, "prompt 1", 101, &["a", "c"], Some(2)),
        ]
    );
    let cut = [
        turn(1),
        snap(1, Before, &[("a", file("0"))]),
        turn(2),
        snap(2, Before, &[("a", file("1"))]),
        snap(2, After, &[("b", file("b"))]),
    ];
    let points = Timeline::new(&cut).points();
    let changes = (points[0].changed.clone(), points[1].changed.clone());
    assert_eq!(changes, (strings(&["b"]), strings(&["a"])), "a turn cut short by a kill: until the next snapshot");
    let unfinished = [snap(1, PreRewind, &[("a", file("0"))]), snap(2, Before, &[("a", file("1"))])];
    assert_eq!(
        Timeline::new(&unfinished).points()[0].changed,
        Vec::<String>::new(),
        "a rewind that never recorded its result"
    );
}
