//! Tests of `typeahead.rs`.

use super::*;

fn feed_all(chunks: &[&[u8]]) -> (Vec<Typed>, Kept) {
    let mut decoder = TypeAhead::default();
    let typed = chunks.iter().flat_map(|chunk| decoder.feed(chunk)).collect();
    (typed, decoder.finish())
}

#[test]
fn a_lone_esc_interrupts_and_text_around_it_is_kept() {
    let (typed, kept) = feed_all(&[b"also c", b"\x1b", b"heck"]);
    assert_eq!(typed, vec![Typed::Interrupt]);
    assert_eq!(kept, Kept { queued: vec![], draft: Some("also check".into()) });
}

#[test]
fn enter_queues_the_line_and_ctrl_j_is_a_newline_inside_it() {
    let (typed, kept) = feed_all(&[b"first\nsecond\r", b"third\r", b"  \r", b"rest"]);
    assert_eq!(typed, vec![Typed::Queued("first\nsecond".into()), Typed::Queued("third".into())]);
    assert_eq!(kept.queued, vec!["first\nsecond".to_string(), "third".to_string()]);
    assert_eq!(kept.draft.as_deref(), Some("rest"));
}

#[test]
fn escape_sequences_are_not_text_and_not_esc() {
    // Shift-Tab, arrows (CSI and SS3), a function key, Alt-x, an OSC reply ended by BEL and by ST.
    let keys: &[&[u8]] =
        &[b"a\x1b[Z", b"\x1b[A\x1bOB", b"\x1b[15~b", b"\x1bx", b"\x1b]11;rgb:0/0/0\x07c", b"\x1b]0;t\x1b\\d"];
    let (typed, kept) = feed_all(keys);
    assert_eq!(typed, vec![]);
    assert_eq!(kept.draft.as_deref(), Some("abcd"));
}

#[test]
fn two_escs_in_one_read_are_one_esc_press_each_way() {
    let (typed, _) = feed_all(&[b"\x1b\x1b"]);
    assert!(typed.contains(&Typed::Interrupt), "{typed:?}");
}

#[test]
fn editing_keys_work_on_whole_characters() {
    let (_, kept) = feed_all(&[b"caf\xc3", b"\xa9s\x7f\x7f!", b" two words\x17\x17x"]);
    assert_eq!(kept.draft.as_deref(), Some("caf! x"));
    let (_, cleared) = feed_all(&[b"gone\x15kept"]);
    assert_eq!(cleared.draft.as_deref(), Some("kept"));
    let (_, controls) = feed_all(&[b"a\x01\x02\x0bb\x08c"]);
    assert_eq!(controls.draft.as_deref(), Some("ac"));
    let (_, tabbed) = feed_all(&[b"col\tumn"]);
    assert_eq!(tabbed.draft.as_deref(), Some("col\tumn"), "a tab is text");
}

#[test]
fn a_bracketed_paste_keeps_its_newlines_and_escs_in_one_line() {
    let (typed, kept) = feed_all(&[b"\x1b[200~line one\rline two\x1b[201~", b"\r"]);
    assert_eq!(typed, vec![Typed::Queued("line one\nline two".into())]);
    assert_eq!(kept.draft, None);
}

#[test]
fn kept_text_becomes_one_draft_when_the_turn_was_stopped() {
    let kept = Kept { queued: vec!["a".into(), "b".into()], draft: Some("c".into()) };
    assert_eq!(kept.into_draft().as_deref(), Some("a\nb\nc"));
    assert_eq!(Kept::default().into_draft(), None);
}
