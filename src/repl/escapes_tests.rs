//! Tests of `strip_escapes`: whole and cut-off sequences of every kind go, the text stays.

use super::*;

fn check(line: &str, expected: &str) {
    assert_eq!(strip_escapes(line), expected, "{line:?}");
}

#[test]
fn text_without_escapes_is_kept_as_it_is() {
    for line in ["", "fix the parser", "naïve café 日本語 ✓", "a [bracket] and O and ] too", "tab\there"] {
        check(line, line);
    }
}

#[test]
fn csi_sequences_go_with_their_parameters() {
    check("\x1b[Z", "");
    check("\x1b[Zhello", "hello");
    check("hel\x1b[Zlo", "hello");
    check("\x1b[A\x1b[B\x1b[C\x1b[Dup", "up");
    check("\x1b[1;5Cword", "word");
    check("\x1b[15~\x1b[24~f5 and f12", "f5 and f12");
    check("\x1b[3~delete", "delete");
    check("\x1b[200~pasted\x1b[201~", "pasted");
    check("\x1b[31mred\x1b[0m plain", "red plain");
    check("\x1b[38;2;255;0;0mtrue colour\x1b[m", "true colour");
    check("\x1b[?25l\x1b[?1049hscreen", "screen");
    check("\x1b[1 qcursor", "cursor");
    // The 8-bit CSI.
    check("\u{9b}Zx\u{9b}1;2Hy", "xy");
}

#[test]
fn mouse_reports_go_whole() {
    check("\x1b[M !!click", "click");
    check("\x1b[<0;12;5Mclick\x1b[<0;12;5m", "click");
    check("\x1b[32;12;5Mclick", "click");
    check("\x1b[M !", "");
}

#[test]
fn ss3_sequences_go_with_their_one_character() {
    check("\x1bOPf1", "f1");
    check("\x1bOA\x1bOBarrows", "arrows");
    check("\u{8f}Qf2", "f2");
}

#[test]
fn string_controls_run_to_bel_or_st() {
    check("\x1b]0;a title\x07after", "after");
    check("\x1b]8;;http://example.com\x1b\\link\x1b]8;;\x1b\\", "link");
    check("\x1bPq#0;2;0;0;0\x1b\\sixel", "sixel");
    check("\x1b_application\x1b\\ok", "ok");
    check("\u{9d}0;title\u{9c}ok", "ok");
    // Never terminated: the rest of the line was its text.
    check("keep\x1b]0;no end", "keep");
}

#[test]
fn cut_off_sequences_go_and_what_cut_them_stays() {
    check("text\x1b", "text");
    check("text\x1b[", "text");
    check("text\x1b[1;5", "text");
    check("text\x1bO", "text");
    check("a\x1b[1;\u{e9}b", "a\u{e9}b");
    check("a\x1b[12\x1b[Zb", "ab");
}

#[test]
fn a_lone_esc_goes_alone_and_two_character_escapes_go_whole() {
    check("\x1b", "");
    check("\x1b\x1b[Ax", "x");
    check("a\x1b\tb", "a\tb");
    check("\x1bbword", "word");
    check("\x1b7saved\x1b8", "saved");
    check("\x1b(Bcharset", "charset");
    check("\x1b é", "é");
    check("\x1b\u{e9}t\u{e9}", "\u{e9}t\u{e9}");
}

#[test]
fn no_escape_survives_any_mix() {
    // Every pair and triple of pieces, so a sequence cut by another is covered too.
    let pieces = [
        "\x1b",
        "\x1b[",
        "\x1b[1;",
        "\x1b[Z",
        "\x1bO",
        "\x1bOP",
        "\x1b]",
        "\x1b]0;t\x07",
        "\x1b\\",
        "\u{9b}",
        "\u{9d}",
        "\u{8f}",
        "\x1b[M",
        "\x1bP",
        "x",
        "[",
        "O",
        ";",
        "\x07",
        "é",
    ];
    for first in pieces {
        for second in pieces {
            for third in pieces {
                let line = format!("{first}{second}{third}");
                let stripped = strip_escapes(&line);
                assert!(!stripped.chars().any(is_introducer), "{line:?} -> {stripped:?}");
            }
        }
    }
}
