//! Tests of `live.rs`.

use super::*;

#[test]
fn a_tail_keeps_the_last_lines_and_counts_every_one() {
    let tail = LiveTail::new();
    let progress = tail.progress();
    assert_eq!(tail.last(3), (0, vec![]));
    for n in 1..=20 {
        progress.line(&format!("line {n}"));
    }
    assert_eq!(tail.last(2), (20, vec!["line 19".to_string(), "line 20".to_string()]));
    assert_eq!(tail.last(100).1.len(), LIVE_LINES);
    assert_eq!(format!("{progress:?}"), "Progress");
}
