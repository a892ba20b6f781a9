//! Tests of which point `mewcode rewind` goes to, and its refusal.

use super::*;

fn point(turn: u32, rewind: bool, changed: &[&str]) -> Point {
    Point {
        turn,
        rewind,
        prompt: format!("turn {turn}"),
        ts: 0,
        changed: changed.iter().map(|path| path.to_string()).collect(),
        history_len: Some(0),
    }
}

#[test]
fn a_turn_or_undo_names_its_point() {
    let points =
        vec![point(3, false, &[]), point(2, true, &["/p/a"]), point(2, false, &["/p/a"]), point(1, false, &[])];
    assert_eq!(find_point(&points, RewindTarget::Turn(2)).map(|point| point.rewind), Ok(false));
    assert_eq!(find_point(&points, RewindTarget::Undo).map(|point| (point.turn, point.rewind)), Ok((2, true)));
    let missing = find_point(&points, RewindTarget::Turn(7)).unwrap_err();
    assert!(missing.contains("no turn 7 in this session (its turns are 1 to 3"), "{missing}");
    assert!(find_point(&points[3..], RewindTarget::Undo).unwrap_err().contains("nothing to undo"));
}

#[test]
fn the_refusal_names_the_files_and_both_ways_out() {
    let plan = Plan {
        turn: 1,
        rewind: false,
        restore: vec!["/p/a".into()],
        remove: vec![],
        hand_changed: vec!["/p/a".into(), "/p/b\x1b[2J".into()],
        not_covered: vec![],
        unreached: vec![],
    };
    let text = hand_changed_refusal(&plan, Path::new("/p"));
    assert!(text.starts_with("files changed outside mewcode since then: a, b"), "{text}");
    assert!(!text.contains('\x1b'), "file names are neutralised: {text:?}");
    assert!(text.contains("--keep-changed") && text.contains("--overwrite-changed"), "{text}");
}
