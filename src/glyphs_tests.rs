//! Tests of the glyph table: the ASCII set is ASCII, both sets are complete.

use super::*;

#[test]
fn every_ascii_glyph_is_ascii() {
    // Debug shows every field, so a symbol added later is checked too.
    let shown = format!("{ASCII:?}");
    assert!(shown.is_ascii(), "{shown}");
    assert!(ASCII.spinner.iter().all(char::is_ascii));
}

#[test]
fn the_unicode_set_is_the_one_with_symbols_and_both_draw_something() {
    assert!(!format!("{UNICODE:?}").is_ascii());
    for glyphs in [&UNICODE, &ASCII] {
        let shown = format!("{glyphs:?}");
        assert!(!shown.contains("\"\""), "an empty symbol: {shown}");
        assert!(glyphs.spinner.len() >= 4, "{shown}");
        // The separator is a word break on both sides, so wrapping may cut a line there.
        assert!(glyphs.separator.starts_with(' ') && glyphs.separator.ends_with(' '));
    }
    assert_eq!(Glyphs::pick(true), &UNICODE);
    assert_eq!(Glyphs::pick(false), &ASCII);
}

#[test]
fn symbols_that_mark_a_column_keep_their_width_in_both_sets() {
    // The rewind mark stands where a turn number's `#` is; the spinner redraws over one column.
    for glyphs in [&UNICODE, &ASCII] {
        assert_eq!(glyphs.undo.chars().count(), 1);
        assert_eq!(glyphs.prompt.chars().count(), 1, "the prompt is `> ` or `› `, two columns");
    }
}
