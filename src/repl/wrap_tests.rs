//! Tests of `wrap.rs`: a word shown before it is complete, then finished on its line or moved.

use super::*;

fn feed(wrap: &mut Wrap, out: &mut Vec<u8>, text: &str) {
    for c in text.chars() {
        wrap.push(out, c).unwrap();
    }
}

#[test]
fn a_shown_word_that_still_fits_is_finished_where_it_is() {
    let (mut wrap, mut out) = (Wrap::new(20), Vec::new());
    feed(&mut wrap, &mut out, "one tw");
    assert!(wrap.has_pending());
    wrap.show_pending(&mut out).unwrap();
    assert_eq!(String::from_utf8_lossy(&out), "one tw");
    assert_eq!(wrap.column(), 6);
    assert!(!wrap.has_pending(), "nothing new to show");
    feed(&mut wrap, &mut out, "o three");
    wrap.end_line(&mut out).unwrap();
    assert_eq!(String::from_utf8_lossy(&out), "one two three\n");
}

#[test]
fn a_shown_word_that_outgrows_the_line_is_erased_and_moved_whole() {
    let (mut wrap, mut out) = (Wrap::new(12), Vec::new());
    feed(&mut wrap, &mut out, "hello wor");
    wrap.show_pending(&mut out).unwrap();
    feed(&mut wrap, &mut out, "ldwide end");
    wrap.end_line(&mut out).unwrap();
    assert_eq!(String::from_utf8_lossy(&out), "hello wor\x08\x08\x08\x08    \x08\x08\x08\x08\nworldwide\nend\n");
}

#[test]
fn a_word_that_would_reach_the_line_end_is_not_shown_early() {
    let (mut wrap, mut out) = (Wrap::new(10), Vec::new());
    feed(&mut wrap, &mut out, "abc defghi");
    wrap.show_pending(&mut out).unwrap();
    assert_eq!(String::from_utf8_lossy(&out), "abc", "{out:?}");
    wrap.end_line(&mut out).unwrap();
    assert_eq!(String::from_utf8_lossy(&out), "abc defghi\n", "it fits exactly once complete");
}

#[test]
fn an_erased_styled_part_restores_the_style_of_what_stays() {
    let (mut wrap, mut out) = (Wrap::new(12), Vec::new());
    feed(&mut wrap, &mut out, "hello ");
    wrap.style("\x1b[1m", "\x1b[1m");
    feed(&mut wrap, &mut out, "bol");
    wrap.show_pending(&mut out).unwrap();
    feed(&mut wrap, &mut out, "dlylonger");
    wrap.end_line(&mut out).unwrap();
    let text = String::from_utf8_lossy(&out);
    assert!(
        text.starts_with("hello \x1b[1mbol\x08\x08\x08\x08    \x08\x08\x08\x08\x1b[0m\n\x1b[1mboldlylonger"),
        "{text:?}"
    );
}
