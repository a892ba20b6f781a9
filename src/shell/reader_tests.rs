//! Corners of the reader that mutation testing found unpinned; each test states what bash does.

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

#[test]
fn dollar_double_quote_is_a_locale_string_outside_quotes_and_a_dollar_inside() {
    assert_eq!(render("echo $\"x\""), "[echo] [x]");
    assert_eq!(render("echo \"a$\" \"b\""), "[echo] [a$] [b]", "bash passes `a$` and `b`");
}

#[test]
fn a_backslash_that_escapes_nothing_stays_in_quotes_and_backticks() {
    // In double quotes `\` escapes only `$`, backquote, `"`, `\` and newline; in a backtick
    // body only `$`, backquote and `\`: before other characters it is kept.
    assert_eq!(render("echo \"a\\b\""), "[echo] [a\\b]");
    assert_eq!(render("echo `pa \\x`"), "[pa] [x] | [echo] [`pa \\x`]");
}

#[test]
fn special_parameters_are_two_characters_long() {
    assert_eq!(render("echo $1 $@ $? x"), "[echo] [$1] [$@] [$?] [x]");
}

#[test]
fn a_command_substitution_body_is_read_as_commands_not_as_bracketed_text() {
    // A `)` in a comment or after a case pattern does not end `$(`.
    assert_eq!(programs("echo $(pa # c)\n)"), ["pa", "echo"]);
    assert_eq!(programs("echo $(case x in a) pa;; esac)"), ["case", "case", "pa", "echo"]);
}

#[test]
fn extended_glob_patterns_keep_quoted_parentheses_and_join_continued_lines() {
    assert_eq!(programs("[[ x == @(\"a)\"|b) ]] && pa"), ["[[", "pa"]);
    assert_eq!(render("[[ ab == @(a\\\nb) ]] && pa"), "[[[] [ab] [==] [@(ab)] []]] | [pa]");
}

#[test]
fn ansi_c_control_escapes_decode_like_bash() {
    assert_eq!(render("echo $'\\ca\\cZ\\c[x'"), "[echo] [\u{1}\u{1a}\u{1b}x]");
}

#[test]
fn bracket_extents_skip_quoted_text_and_nest_only_their_own_bracket() {
    for input in ["echo $[ \"'\" ]\npa", "echo $[ '\\' ]\npa", "echo $[ 'a]' ]\npa", "echo $[ ( ]\npa"] {
        assert_eq!(programs(input), ["echo", "pa"], "{input:?}");
    }
}

#[test]
fn an_escaped_dollar_in_a_here_doc_runs_nothing() {
    assert_eq!(programs("cat <<EOF\n\\$(pa) $(pb)\nEOF"), ["cat", "pb"]);
}

#[test]
fn a_coproc_name_is_its_own_word_and_starts_with_no_digit() {
    let named = parse_command("coproc PATH { pa; }").unwrap();
    assert_eq!((named.subcommands[0].raw.as_str(), named.subcommands[0].span.clone()), ("PATH", 7..11));
    // bash: "`9x': not a valid identifier", and nothing runs.
    assert!(parse_command("coproc 9x { pa; }").is_err());
}

#[test]
fn time_takes_only_dash_p_and_a_function_needs_a_body() {
    assert_eq!(programs("time cp a b"), ["cp"]);
    assert_eq!(programs("time -x ls"), ["-x"], "bash: -x: command not found");
    assert!(parse_command("function f() pa").is_err(), "bash: syntax error near unexpected token `pa'");
    assert_eq!(programs("function f () ( pa )"), ["pa"]);
}

#[test]
fn a_groups_redirections_are_read_with_the_group() {
    // The group's output goes to f: the redirection-only command feeds no pipe.
    let parsed = parse_command("(pa) > f | pb").unwrap();
    assert_eq!(render("(pa) > f | pb"), "[pa] | Write:f | [pb]");
    assert_eq!(parsed.subcommands[2].pipe_input_from, None);
}

#[test]
fn a_redirection_without_a_target_says_so() {
    let error = parse_command("ls > <x").unwrap_err();
    assert_eq!(error.to_string(), "cannot parse command at byte 5: redirection without a target");
}

#[test]
fn here_strings_count_as_here_docs_and_other_redirections_do_not() {
    assert!(parse_command("cat <<< x").unwrap().has_heredoc);
    assert!(!parse_command("ls > f < g 2>&1").unwrap().has_heredoc);
}

#[test]
fn a_backtick_body_keeps_its_pipes_and_reports_its_syntax() {
    let parsed = parse_command("pa; echo `pb | pc`").unwrap();
    assert_eq!(parsed.subcommands[2].words, ["pc"]);
    assert_eq!(parsed.subcommands[2].pipe_input_from, Some(1), "pc reads pb, not pa");
    assert!(parse_command("echo `(pa)`").unwrap().has_group);
    assert!(parse_command("echo `cat <<< x`").unwrap().has_heredoc);
    assert!(parse_command("echo `if pa; then pb; fi`").unwrap().has_control_flow);
}
