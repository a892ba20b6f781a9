//! Unit tests of `text.rs`: neutralizing, revealing and truncating text for display.

use super::*;

#[test]
fn escapes_and_controls_become_visible() {
    assert_eq!(neutralize("plain\ttext\nline"), "plain\ttext\nline");
    assert_eq!(neutralize("\x1b[2J\x1b[Hcleared"), "^[[2J^[[Hcleared");
    assert_eq!(neutralize("fake\r[y] yes once"), "fake^M[y] yes once");
    assert_eq!(neutralize("bell\x07 del\x7f"), "bell^G del^?");
    assert_eq!(neutralize("c1\u{9b}31m"), "c1\\u{9b}31m");
    assert_eq!(neutralize("title\x1b]0;pwned\x07"), "title^[]0;pwned^G");
    assert_eq!(neutralize("rtl\u{202e}txt"), "rtl\\u{202e}txt");
    assert_eq!(neutralize("ünïcödé ✓"), "ünïcödé ✓");
}

#[test]
fn reveal_spells_out_what_looks_like_nothing_or_a_space() {
    let check = |text: &str, expected: &str| {
        assert_eq!(reveal(text), expected, "{text:?}");
        assert_eq!(reveal(expected), expected, "idempotent on {expected:?}");
    };
    check("plain ascii\ttext", "plain ascii\ttext");
    check("ünïcödé ✓ 日本", "ünïcödé ✓ 日本");
    check("\x1b[2Kclear\r", "^[[2Kclear^M");
    check("zero\u{200b}width\u{200d}joiner\u{2060}\u{feff}", "zero\\u{200b}width\\u{200d}joiner\\u{2060}\\u{feff}");
    check(
        "bidi\u{202e}override\u{2067}isolate\u{200f}mark\u{61c}",
        "bidi\\u{202e}override\\u{2067}isolate\\u{200f}mark\\u{61c}",
    );
    check(
        "nb\u{a0}sp ideo\u{3000}graphic em\u{2003}narrow\u{202f}",
        "nb\\u{a0}sp ideo\\u{3000}graphic em\\u{2003}narrow\\u{202f}",
    );
    check("line\u{2028}para\u{2029}", "line\\u{2028}para\\u{2029}");
    check("soft\u{ad}hyphen braille\u{2800} filler\u{3164}", "soft\\u{ad}hyphen braille\\u{2800} filler\\u{3164}");
    check("tag\u{e0072}\u{e006d} vs\u{fe0f}", "tag\\u{e0072}\\u{e006d} vs\\u{fe0f}");
}

#[test]
fn truncate_chars_cuts_on_a_character_boundary_and_marks_the_cut() {
    assert_eq!(truncate_chars("short", 5, "…"), "short");
    assert_eq!(truncate_chars("longer", 5, "…"), "longe…");
    assert_eq!(truncate_chars("ünïcödé", 3, " [cut]"), "ünï [cut]");
    assert_eq!(truncate_chars("日本語テキスト", 2, ""), "日本");
    assert_eq!(truncate_chars("", 0, "…"), "");
    assert_eq!(truncate_chars("x", 0, "…"), "…");
}

#[test]
fn first_lines_counts_what_it_leaves_out() {
    assert_eq!(first_lines("a\nb\nc\n\n", 5), "a\nb\nc");
    assert_eq!(first_lines("a\nb\nc\nd", 2), "a\nb\n(2 more lines)");
    assert_eq!(first_lines("", 2), "");
}

#[test]
fn first_names_says_how_many_were_left_out() {
    let names: Vec<String> = ["a", "b", "c"].iter().map(|name| name.to_string()).collect();
    assert_eq!(first_names(&names, 3), "a, b, c");
    assert_eq!(first_names(&names, 2), "a, b and 1 more");
    assert_eq!(first_names(&names[..0], 2), "");
}
