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

#[test]
fn redirect_operators_say_whether_they_write_and_whether_they_name_a_file() {
    use RedirectOp::*;
    let table = [
        (Write, true, true),
        (Append, true, true),
        (Clobber, true, true),
        (WriteBoth, true, true),
        (AppendBoth, true, true),
        (ReadWrite, true, true),
        (Read, false, true),
        (Dup, false, false),
        (HereDoc { quoted: false }, false, false),
        (HereDoc { quoted: true }, false, false),
        (HereString, false, false),
    ];
    for (op, writes, names_file) in table {
        assert_eq!((op.writes(), op.names_file()), (writes, names_file), "{op:?}");
    }
}

#[test]
fn a_brace_opens_a_group_only_before_a_blank() {
    // `{ls,-la}` is one word (brace expansion makes it `ls -la`), not a group.
    assert_eq!(render("{ls,-la}"), "[{ls,-la}]");
    assert_eq!(render("{ ls; }"), "[ls]");
}

#[test]
fn a_function_substitution_consumes_its_closing_brace() {
    assert_eq!(render("echo ${ pa; }x; pb"), "[pa] | [echo] [${ pa; }x] | [pb]");
    // The brace belongs to the substitution: quoted in the pattern, never a brace of the word.
    let parsed = parse_command("echo ${ pa; }x").unwrap();
    assert_eq!(parsed.subcommands[1].word_info[1].pattern, "$\\{ pa; \\}x");
}

#[test]
fn nesting_is_counted_per_level_not_per_group_read() {
    // Groups one after another never nest: any number of them is read.
    let sequential = "( pa ); ".repeat(MAX_DEPTH * 2);
    assert_eq!(refusal(&sequential), None);
}

#[test]
fn a_function_name_is_one_plain_word() {
    // bash: `syntax error near unexpected token `('` for each.
    for input in ["a b() { pa; }", "A=1 f() { pa; }", "f >x () { pa; }"] {
        assert_eq!(refusal(input).as_deref(), Some("unexpected ("), "{input:?}");
    }
}

#[test]
fn double_brackets_open_a_conditional_only_at_the_start_of_a_command() {
    assert_eq!(render("echo [[ a"), "[echo] [[[] [a]");
}

#[test]
fn a_backslash_at_the_end_of_the_input_is_kept_literally() {
    assert_eq!(render("echo a\\"), "[echo] [a\\]");
}

#[test]
fn special_parameters_and_arithmetic_with_names_are_expansions() {
    let parsed = parse_command("echo $((1+2)) $((x+1)) $1 $@ $#").unwrap();
    let expansions: Vec<bool> = parsed.subcommands[0].word_info.iter().map(|info| info.expansion).collect();
    assert_eq!(expansions, [false, false, true, true, true, true]);
}

#[test]
fn compound_headers_are_marked_and_keep_their_text() {
    let headers = |src: &str| -> Vec<(Vec<String>, String)> {
        let parsed = parse_command(src).unwrap_or_else(|error| panic!("{src:?}: {error}"));
        let commands = parsed.subcommands.into_iter().filter(|command| command.header);
        commands.map(|command| (command.words, command.raw)).collect()
    };
    let header = |words: &[&str], raw: &str| (words.iter().map(|word| word.to_string()).collect(), raw.to_string());
    // Each after another command, so a header's text cannot start at the input's start by chance.
    let case_items =
        [header(&["case", "x"], "case x"), header(&["case", "a", "b"], "a|b"), header(&["case", "c"], "c")];
    assert_eq!(headers("pa; case x in # a comment\n a|b) pa;; (c) pb;; esac"), case_items);
    let for_in = header(&["for", "i", "in", "a", "b"], "for i in a b");
    assert_eq!(headers("pa; for i in a b; do pa; done"), [for_in]);
    assert_eq!(headers("pa; select i in a; do pa; done"), [header(&["select", "i", "in", "a"], "select i in a")]);
    assert_eq!(headers("pa; (( x = 1 )); pa"), [header(&["((", " x = 1 "], "(( x = 1 ))")]);
    assert_eq!(headers("pa; for (( i = 0; i < 2; i++ )); do pa; done").len(), 1);
    assert_eq!(headers("pa; [[ -n x ]] && pa"), [header(&["[[", "-n", "x", "]]"], "[[ -n x ]]")]);
    // `]]` closes only as a word of its own; `!` and `&&` are operators, with no pattern.
    assert_eq!(headers("[[ a ]]b ]]"), [header(&["[[", "a", "]]b", "]]"], "[[ a ]]b ]]")]);
    let parsed = parse_command("[[ ! a && b ]]").unwrap();
    assert_eq!(parsed.subcommands[0].word_info[1], WordInfo::default());
    assert_eq!(parsed.subcommands[0].word_info[3], WordInfo::default());
    // The syntax around the commands is accounted for: `case x in`, each `PATTERN)`, `esac`.
    let spans = parse_command("case x in a) pa;; esac").unwrap().other_spans;
    assert_eq!(spans, vec![0..9, 10..12, 18..22]);
}

#[test]
fn unfinished_compound_commands_say_what_is_missing() {
    assert_eq!(refusal("[[ -n x").as_deref(), Some("unterminated [["));
    assert_eq!(refusal("a=(x").as_deref(), Some("unterminated array assignment"));
    assert_eq!(refusal("a=(x ; y)").as_deref(), Some("unexpected operator in an array assignment"));
    // `select` and `for NAME` need a name; only `for` takes an arithmetic header.
    assert_eq!(refusal("select (( i )); do pa; done").as_deref(), Some("for without a name"));
}

#[test]
fn a_word_ending_in_equals_is_an_array_only_before_a_parenthesis() {
    assert_eq!(render("declare a= b"), "[declare] [a=] [b]");
    assert_eq!(render("declare a=(b c)"), "[declare] [a=(b c)]");
}

#[test]
fn a_regex_or_an_array_keeps_what_quote_removal_hid_in_its_pieces() {
    let last_word_info = |src: &str| {
        let parsed = parse_command(src).unwrap_or_else(|error| panic!("{src:?}: {error}"));
        let command = parsed.subcommands.into_iter().find(|command| command.words.len() > 1).unwrap();
        let info = command.word_info.last().cloned().unwrap();
        (info.quoted, info.expansion, info.substitution)
    };
    assert_eq!(last_word_info("declare a=(x)"), (false, false, false));
    assert_eq!(last_word_info("declare a=('q')"), (true, false, false));
    assert_eq!(last_word_info("declare a=($x)"), (false, true, false));
    assert_eq!(last_word_info("declare a=($(pa))"), (false, false, true));
    let regex_info = |src: &str| {
        let parsed = parse_command(src).unwrap_or_else(|error| panic!("{src:?}: {error}"));
        let command = parsed.subcommands.into_iter().find(|command| command.header).unwrap();
        let info = command.word_info[command.word_info.len() - 2].clone();
        (info.quoted, info.expansion, info.substitution)
    };
    assert_eq!(regex_info("[[ x =~ a(b|c) ]]"), (false, false, false));
    assert_eq!(regex_info("[[ x =~ 'a'(b) ]]"), (true, false, false));
    assert_eq!(regex_info("[[ x =~ a$y ]]"), (false, true, false));
    assert_eq!(regex_info("[[ x =~ a$(pa) ]]"), (false, false, true));
    // A `)` that closes nothing ends the reading: bash reports a syntax error.
    assert!(parse_command("[[ x =~ a) ]]").is_err());
}

#[test]
fn a_here_doc_cut_off_by_the_end_of_the_input_has_an_empty_body_read_to_the_end() {
    // bash warns and reads the body to the end of the input, here nothing.
    let parsed = parse_command("cat <<E").unwrap();
    assert_eq!(parsed.subcommands[0].redirections[0].target, "");
    assert_eq!(parsed.other_spans, vec![std::ops::Range { start: 7, end: 7 }]);
}
