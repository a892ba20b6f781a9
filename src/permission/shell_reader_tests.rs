//! Corners of the shell reader that mutation testing (`cargo mutants` over `lexer.rs` and
//! `parser.rs`, README "Development") found unpinned: each test states what bash does there.

use super::tests::{programs, render};
use super::*;

/// `levels` copies of `open`, then `core`, then `levels` copies of `close`, after `echo `.
fn nested(open: &str, core: &str, close: &str, levels: usize) -> String {
    format!("echo {}{core}{}", open.repeat(levels), close.repeat(levels))
}

fn refusal(src: &str) -> Option<String> {
    parse_command(src).err().map(|error| error.reason)
}

#[test]
fn a_dollar_brace_ends_at_its_first_closing_brace_as_in_bash() {
    // bash reads `${` with P_FIRSTCLOSE: a `{` inside does not nest, so the first `}` closes it
    // and the rest of the line is commands (bash prints `{`, runs pa, prints `}`).
    assert_eq!(programs("echo ${x:-{} ; pa ; echo }"), ["echo", "pa", "echo"]);
    assert_eq!(programs("echo \"${x:-{}\" ; pa ; echo \"}\""), ["echo", "pa", "echo"]);
    assert_eq!(programs("echo $(( ${x:-{} )); pa"), ["echo", "pa"]);
    assert_eq!(programs("echo $[ ${x:-{} ]; pa"), ["echo", "pa"]);
    assert_eq!(render("echo ${x:-{a} b}"), "[echo] [${x:-{a}] [b}]", "bash passes `{{a` and `b}}`");
    // A nested `${…}` is read whole, an escaped or quoted `}` closes nothing.
    assert_eq!(render("echo ${a:-${b} c}"), "[echo] [${a:-${b} c}]");
    assert_eq!(render("echo ${x:-\\}} ${y:-'}'}"), "[echo] [${x:-\\}}] [${y:-'}'}]");
}

#[test]
fn substitutions_inside_a_dollar_brace_mark_the_word() {
    for input in ["echo ${x:-$(pa)}", "echo ${x:-\"$(pa)\"}", "echo \"${x:-$(pa)}\""] {
        let parsed = parse_command(input).unwrap_or_else(|error| panic!("{input:?}: {error}"));
        assert_eq!(parsed.subcommands[0].words, ["pa"], "{input:?}");
        assert!(parsed.subcommands[1].word_info[1].substitution, "{input:?}");
    }
}

#[test]
fn nesting_deeper_than_the_limit_is_refused_however_it_nests() {
    // Groups: MAX_DEPTH levels are read, one more is refused.
    let groups = |levels: usize| format!("{}pa{}", "( ".repeat(levels), " )".repeat(levels));
    assert_eq!(refusal(&groups(MAX_DEPTH)), None);
    assert_eq!(refusal(&groups(MAX_DEPTH + 1)).as_deref(), Some("nesting too deep"));
    // Every other way to nest counts too, so no input can overflow the stack; nested
    // arithmetic is also read in linear time (it once took time exponential in the depth).
    for (open, core, close) in [
        ("$((x) ", "pa", ")"),
        ("$(( 1 + ", "1", " ))"),
        ("$[ 1 + ", "1", " ]"),
        ("${a[$((1))+", "1", "]}"),
        ("${x:-", "1", "}"),
        ("\"${x:-", "1", "}\""),
    ] {
        assert_eq!(refusal(&nested(open, core, close, MAX_DEPTH / 2)), None, "{open:?}");
        let deep = nested(open, core, close, MAX_DEPTH + 12);
        assert_eq!(refusal(&deep).as_deref(), Some("nesting too deep"), "{open:?}");
    }
    assert_eq!(refusal(&nested("${x:-", "1", "}", MAX_DEPTH)), None);
    assert_eq!(refusal(&nested("${x:-", "1", "}", MAX_DEPTH + 1)).as_deref(), Some("nesting too deep"));
    assert_eq!(refusal(&nested("${x:-", "1", "}", 100_000)).as_deref(), Some("nesting too deep"));
    let siblings = format!("echo{}", " ${x}".repeat(MAX_DEPTH * 2));
    assert_eq!(refusal(&siblings), None, "expansions side by side do not nest");
    // A backtick body is one level deeper than the backticks.
    let backtick = |levels: usize| format!("echo {}`$(pa)`{}", "$(echo ".repeat(levels), ")".repeat(levels));
    assert_eq!(refusal(&backtick(MAX_DEPTH - 2)), None);
    assert_eq!(refusal(&backtick(MAX_DEPTH - 1)).as_deref(), Some("nesting too deep"));
}
