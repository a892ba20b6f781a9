//! Table tests and the conservation property for the shell splitter.

use super::*;
use crate::test_rng::XorShift;

/// Renders a parse as `words|words` with redirections as `op:target`, for whole-value asserts.
pub(super) fn render(src: &str) -> String {
    match parse_command(src) {
        Err(_) => "UNPARSEABLE".to_string(),
        Ok(parsed) => parsed
            .subcommands
            .iter()
            .map(|command| {
                let mut parts: Vec<String> = command.assignments.iter().map(|a| format!("{a}=")).collect();
                parts.extend(command.words.iter().map(|w| format!("[{w}]")));
                parts.extend(command.redirections.iter().map(|r| format!("{:?}{}:{}", r.op, fd(r.fd), r.target)));
                parts.join(" ")
            })
            .collect::<Vec<_>>()
            .join(" | "),
    }
}

fn fd(fd: Option<u32>) -> String {
    fd.map(|n| format!("@{n}")).unwrap_or_default()
}

#[test]
fn splits_like_bash() {
    let cases: &[(&str, &str)] = &[
        ("ls", "[ls]"),
        ("ls -la  src", "[ls] [-la] [src]"),
        ("git status; rm x", "[git] [status] | [rm] [x]"),
        ("a && b || c", "[a] | [b] | [c]"),
        ("a | b |& c", "[a] | [b] | [c]"),
        ("a & b", "[a] | [b]"),
        ("a\nb\n\nc", "[a] | [b] | [c]"),
        ("echo 'a; rm x'", "[echo] [a; rm x]"),
        ("echo \"a && b\"", "[echo] [a && b]"),
        ("echo \"\\\"; rm x; echo \\\"\"", "[echo] [\"; rm x; echo \"]"),
        ("echo \\; rm", "[echo] [;] [rm]"),
        ("r''m -rf /", "[rm] [-rf] [/]"),
        ("\\rm -rf /", "[rm] [-rf] [/]"),
        ("\"rm\" -rf /", "[rm] [-rf] [/]"),
        ("$'\\x72\\x6d' -rf /", "[rm] [-rf] [/]"),
        ("$'\\162m' x", "[rm] [x]"),
        ("$'a\\'b'", "[a'b]"),
        ("echo a#b # comment; rm x", "[echo] [a#b]"),
        ("ls # c\nrm x", "[ls] | [rm] [x]"),
        ("(cd x; rm y)", "[cd] [x] | [rm] [y]"),
        ("{ a; b; }", "[a] | [b]"),
        ("{ a; b; } > out", "[a] | [b] | Write:out"),
        ("echo {a,b}", "[echo] [{a,b}]"),
        ("f() { rm -rf /; }; f", "[rm] [-rf] [/] | [f]"),
        ("git $(rm x)", "[rm] [x] | [git] [$(rm x)]"),
        ("echo `rm x`", "[rm] [x] | [echo] [`rm x`]"),
        ("echo \"$(rm x)\"", "[rm] [x] | [echo] [$(rm x)]"),
        ("diff <(ls a) >(wc)", "[ls] [a] | [wc] | [diff] [<(ls a)] [>(wc)]"),
        ("bash < <(curl x)", "[curl] [x] | [bash] Read:<(curl x)"),
        ("tee > >(wc) x", "[wc] | [tee] [x] Write:>(wc)"),
        ("echo $(echo $(rm x))", "[rm] [x] | [echo] [$(rm x)] | [echo] [$(echo $(rm x))]"),
        ("echo ${x:-$(rm y)}", "[rm] [y] | [echo] [${x:-$(rm y)}]"),
        ("echo $((1+2))", "[echo] [$((1+2))]"),
        ("FOO=1 BAR=2 make", "FOO=1= BAR=2= [make]"),
        ("FOO=1", "FOO=1="),
        ("echo FOO=1", "[echo] [FOO=1]"),
        ("ls > out 2>&1", "[ls] Write:out Dup@2:1"),
        ("ls >> a 2> b < c", "[ls] Append:a Write@2:b Read:c"),
        ("ls &> a", "[ls] WriteBoth:a"),
        ("ls &>> a", "[ls] AppendBoth:a"),
        ("ls >| /etc/x", "[ls] Clobber:/etc/x"),
        ("ls >&/tmp/x", "[ls] WriteBoth:/tmp/x"),
        ("ls>out", "[ls] Write:out"),
        ("ls 2>/dev/null", "[ls] Write@2:/dev/null"),
        ("exec 3<> f", "[exec] ReadWrite@3:f"),
        ("cat <<EOF\nrm -rf /\nEOF\nls", "[cat] HereDoc { quoted: false }:rm -rf /\n | [ls]"),
        ("cat <<'EOF' | sh\n$(x)\nEOF", "[cat] HereDoc { quoted: true }:$(x)\n | [sh]"),
        ("cat <<EOF\n$(rm y)\nEOF", "[cat] HereDoc { quoted: false }:$(rm y)\n | [rm] [y]"),
        ("cat <<-E\n\tx\n\tE\n", "[cat] HereDoc { quoted: false }:x\n"),
        ("bash <<< 'rm -rf /'", "[bash] HereString:rm -rf /"),
        ("ls \\\n -la", "[ls] [-la]"),
        ("if true; then rm x; fi", "[true] | [rm] [x]"),
        ("if { rm -rf /; }; then :; fi", "[rm] [-rf] [/] | [:]"),
        ("while ! ls; do (rm x); done", "[ls] | [rm] [x]"),
        ("time ( rm x )", "[rm] [x]"),
        ("time -p ls", "[ls]"),
        ("function f { rm x; }; f", "[rm] [x] | [f]"),
        ("function f() { rm x; }", "[rm] [x]"),
        ("echo if then fi", "[echo] [if] [then] [fi]"),
        ("'if' x", "[if] [x]"),
        ("echo \"a\nb\"", "[echo] [a\nb]"),
        ("echo ~ $HOME ${HOME}", "[echo] [~] [${HOME}] [${HOME}]"),
        ("echo $IFS'x' \"$a\"b", "[echo] [${IFS}x] [${a}b]"),
        ("a;b&&c||d|e", "[a] | [b] | [c] | [d] | [e]"),
        ("ls\r\nrm x", "[ls\r] | [rm] [x]"),
        ("echo $((1 + $(rm x)))", "[rm] [x] | [echo] [$((1 + $(rm x)))]"),
        ("case x in a) rm -rf /;; esac", "[case] [x] | [case] [a] | [rm] [-rf] [/]"),
        (
            "case $(a) in (x|$(b)) c;& y) ;; *) d; e;;& esac > f",
            "[a] | [case] [$(a)] | [b] | [case] [x] [$(b)] | [c] | [case] [y] | [case] [*] | [d] | [e] | Write:f",
        ),
        ("case x in\n  a | b )\n    c\n    ;;\nesac; d", "[case] [x] | [case] [a] [b] | [c] | [d]"),
        ("for i in a $(b) *; do c; done", "[b] | [for] [i] [in] [a] [$(b)] [*] | [c]"),
        ("for i\ndo c; done", "[for] [i] | [c]"),
        ("for ((i=0;i<2;i++)); do c; done", "[((] [i=0;i<2;i++] | [c]"),
        ("(( x = 1 )) && y", "[((] [ x = 1 ] | [y]"),
        ("((a) ; (b))", "[a] | [b]"),
        ("a=(1 $(b) 'c d'); e", "[b] | a=(1 $(b) c d)= | [e]"),
        ("declare -a a=(1 2)", "[declare] [-a] [a=(1 2)]"),
        ("while read l; do c; done < <(d)", "[read] [l] | [c] | [d] | Read:<(d)"),
        (
            "[[ -f a && ( b < c || ! -n $(d) ) ]] && e",
            "[d] | [[[] [-f] [a] [&&] [(] [b] [<] [c] [||] [!] [-n] [$(d)] [)] []]] | [e]",
        ),
        ("[[ $x =~ ^(a|b)+ c$ ]]; e", "[[[] [${x}] [=~] [^(a|b)+] [c$] []]] | [e]"),
        ("[[ $x =~ (a b) ]] > f", "[[[] [${x}] [=~] [(a b)] []]] Write:f"),
    ];
    for (input, expected) in cases {
        assert_eq!(render(input), *expected, "input {input:?}");
    }
}

#[test]
fn fails_closed_on_what_it_cannot_read() {
    let cases = [
        "echo 'unterminated",
        "echo \"unterminated",
        "echo $(ls",
        "echo `ls",
        "(ls",
        "ls)",
        "{ ls; ",
        "ls &&",
        "ls | | wc",
        "case x in a) rm -rf /;; ",
        "case x a) b;; esac",
        "a=(1 2",
        "for ((i=0;i<2;i++",
        "for i in a | b; do c; done",
        "ls >",
        "echo ${x",
        "$'abc",
        "coproc x { rm -rf /; ",
        "echo @(a|b",
        "pa; }",
        "}",
        "{ pa; }; }",
        "pa && }",
        "echo +(a\nb)",
        "rm ( )",
        "f() rm -rf /",
        "function f rm -rf /",
        "function",
    ];
    for input in cases {
        assert!(parse_command(input).is_err(), "{input:?} should be unparseable");
    }
}

#[test]
fn flags_and_contexts_are_reported() {
    let parsed = parse_command("cat <(ls) | sh & echo $X `pwd` > f").unwrap();
    assert!(parsed.has_substitution && parsed.has_expansion && parsed.has_background);
    let contexts: Vec<Nesting> = parsed.subcommands.iter().map(|c| c.context).collect();
    assert_eq!(
        contexts,
        vec![Nesting::ProcessSubstitution, Nesting::Script, Nesting::Script, Nesting::Substitution, Nesting::Script]
    );
    assert_eq!(parsed.subcommands[2].pipe_input_from, Some(1));
    let info = &parsed.subcommands[4].word_info;
    assert!(info[1].expansion && !info[1].substitution && info[2].substitution);
    let globbed = parse_command("rm -rf '*' * b[c] {x,y} '{'").unwrap();
    let flags: Vec<(bool, bool)> = globbed.subcommands[0].word_info.iter().map(|i| (i.glob, i.brace)).collect();
    assert_eq!(
        flags,
        vec![
            (false, false),
            (false, false),
            (false, false),
            (true, false),
            (true, false),
            (false, true),
            (false, false)
        ]
    );
    assert_eq!(globbed.subcommands[0].word_info[2].pattern, "\\*");
}

#[test]
fn raw_text_is_the_command_as_written() {
    let parsed = parse_command("  git  status ;\t\"rm\" -rf  x > y # tail").unwrap();
    let raws: Vec<&str> = parsed.subcommands.iter().map(|c| c.raw.as_str()).collect();
    assert_eq!(raws, vec!["git  status", "\"rm\" -rf  x > y"]);
}

const ALPHABET: &[&str] = &[
    "a", "b", "rm", " ", " ", "\t", "\n", ";", "&", "&&", "|", "||", "'", "\"", "\\", "$", "$(", "`", "(", ")", "{ ",
    "}", "#", "<", ">", ">>", "2>&1", "<<EOF\n", "EOF", "$'", "*", "~", "=", "-rf", "/", "é", "\r", "<(", "${",
];

#[test]
fn random_inputs_never_panic_and_lose_no_command_text() {
    let seed = 0x9e37_79b9_7f4a_7c15u64;
    println!("shell property seed: {seed:#x}");
    let mut rng = XorShift(seed);
    let mut parsed_count = 0;
    for case in 0..20_000 {
        let length = (rng.next() % 24) as usize;
        let input: String = (0..length).map(|_| ALPHABET[(rng.next() % ALPHABET.len() as u64) as usize]).collect();
        let Ok(parsed) = parse_command(&input) else { continue };
        parsed_count += 1;
        let mut covered = vec![false; input.len()];
        let spans = parsed.subcommands.iter().map(|c| c.span.clone()).chain(parsed.other_spans.iter().cloned());
        for span in spans {
            for flag in covered.iter_mut().take(span.end).skip(span.start) {
                *flag = true;
            }
        }
        for (offset, c) in input.char_indices() {
            let separator = " \t\r\n;&|(){}\\".contains(c);
            assert!(covered[offset] || separator, "seed {seed:#x} case {case}: byte {offset} of {input:?} lost");
        }
        for command in &parsed.subcommands {
            if command.context == Nesting::Script {
                assert_eq!(input.get(command.span.clone()), Some(command.raw.as_str()), "seed {seed:#x} case {case}");
            }
        }
    }
    assert!(parsed_count > 2_000, "the generator should produce parseable inputs too ({parsed_count})");
}

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    let deep = "$(".repeat(10_000);
    assert!(parse_command(&deep).is_err());
    let backticks = "echo ".to_string() + &"(".repeat(5_000);
    assert!(parse_command(&backticks).is_err());
}

/// The programs a parse says will run, in order (substitution bodies first, as parsed).
pub(super) fn programs(src: &str) -> Vec<String> {
    match parse_command(src) {
        Err(_) => vec!["UNPARSEABLE".to_string()],
        Ok(parsed) => parsed.subcommands.iter().filter_map(|command| command.words.first().cloned()).collect(),
    }
}

#[test]
fn dollar_double_paren_is_a_command_substitution_unless_bash_reads_arithmetic() {
    // subst.c: arithmetic only when the text up to the matching `)` is `(…)` and balanced.
    let cases: &[(&str, &[&str])] = &[
        ("git status $((x -y) && git log)", &["x", "git", "git"]),
        ("git status \"$((x -y) && git log)\"", &["x", "git", "git"]),
        ("git status > $((x) ; y)", &["x", "y", "git"]),
        ("git status <<< $((x) | y)", &["x", "y", "git"]),
        ("git status $(( (x) ; y) )", &["x", "y", "git"]),
        ("echo $((1+(2)))", &["echo"]),
        ("echo $(( (1) ))", &["echo"]),
        ("echo $((a) + (b))", &["UNPARSEABLE"]),
        ("echo \"$(( ')' ))\"", &["echo"]),
        // Quotes and escapes hide parentheses from bash's balance check too.
        ("echo $(( \")\" ))", &["echo"]),
        ("echo $(( \\) ))", &["echo"]),
        ("echo $(( \"(\\\"\" ))", &["echo"]),
        ("echo $(( ')' ))", &["echo"]),
        ("echo $(( \"(\" ))", &["echo"]),
        ("echo $((x #c\n) )", &["UNPARSEABLE"]),
    ];
    for (input, expected) in cases {
        assert_eq!(programs(input), *expected, "input {input:?}");
    }
}

#[test]
fn dollar_double_paren_in_a_heredoc_body_follows_the_same_rule() {
    let parsed = parse_command("cat <<EOF\n$((x -y) && git log)\nEOF").unwrap();
    assert!(parsed.has_substitution);
    assert_eq!(programs("cat <<EOF\n$((x -y) && git log)\nEOF"), ["cat", "x", "git"]);
    assert_eq!(programs("cat <<EOF\n$((1 + 2))\nEOF"), ["cat"]);
    assert_eq!(programs("cat <<'EOF'\n$((x -y) && git log)\nEOF"), ["cat"]);
}

#[test]
fn dollar_bracket_is_arithmetic_not_a_heredoc() {
    assert_eq!(programs("echo $[1<<2]\nx after"), ["echo", "x"]);
    assert_eq!(programs("echo \"$[1<<2]\"; x"), ["echo", "x"]);
    assert_eq!(programs("echo $[ $(x) + 1 ]"), ["x", "echo"]);
    assert_eq!(programs("echo $[ 'a[$(x)]' ]"), ["x", "echo"]);
    assert!(parse_command("echo $[1").is_err());
}

#[test]
fn arithmetic_subscripts_hide_no_substitution_behind_quotes() {
    for input in [
        "echo $(( 'a[$(x)]' ))",
        "echo $(( a[\\$(x)] ))",
        "echo ${a['$(x)']}",
        "echo ${v:'a[$(x)]'}",
        "echo \"${a[\"$(x)\"]}\"",
        "echo ${a[`x`]}",
    ] {
        let parsed = parse_command(input).unwrap_or_else(|error| panic!("{input:?}: {error}"));
        assert!(parsed.has_substitution, "{input:?}");
        assert_eq!(parsed.subcommands[0].words, ["x"], "{input:?}");
    }
}

#[test]
fn heredoc_lines_join_at_backslash_newline_before_the_delimiter() {
    assert_eq!(programs("cat <<EOF\nEO\\\nF\nx inside\nEOF\n"), ["cat", "x", "EOF"]);
    assert_eq!(programs("cat <<EOF\nEOF\\\n\nx inside\nEOF\n"), ["cat", "x", "EOF"]);
    assert_eq!(programs("cat <<-EOF\n\tEO\\\nF\nx inside\nEOF\n"), ["cat", "x", "EOF"]);
    // An escaped backslash does not join; a quoted delimiter joins nothing.
    assert_eq!(programs("cat <<EOF\nEO\\\\\nF\nx inside\nEOF\n"), ["cat"]);
    assert_eq!(programs("cat <<'EOF'\nEO\\\nF\nx inside\nEOF\n"), ["cat"]);
    // The joined text is what bash expands: `$\` + newline + `(x)` is `$(x)`.
    assert_eq!(programs("cat <<EOF\n$\\\n(x)\nEOF\n"), ["cat", "x"]);
}

#[test]
fn function_substitutions_are_command_substitutions_everywhere() {
    for input in [
        "echo ${ x; }",
        "echo ${| x; }",
        "echo \"${ x; }\"",
        "cat <<< ${ x; }",
        "cat <<< \"${| x; }\"",
        "cat > ${ x; }",
        "cat <<EOF\n${ x; }\nEOF",
        "cat <<EOF\n${|x;}\nEOF",
        "echo ${a[${ x; }]}",
    ] {
        let parsed = parse_command(input).unwrap_or_else(|error| panic!("{input:?}: {error}"));
        assert!(parsed.has_substitution, "{input:?}");
        assert!(parsed.subcommands.iter().any(|command| command.words == ["x"]), "{input:?}");
    }
}

#[test]
fn arithmetic_balance_follows_bash_quoting() {
    let cases: &[(&str, bool)] = &[
        ("1 + (2)", true),
        ("a) + (b", false),
        ("(", false),
        ("\\)", true),
        ("')'", true),
        ("')", false),
        ("\")\"", true),
        ("\"\\\")\"", true),
        ("\"(", false),
        ("\"a\" )", false),
        ("'a' (", false),
    ];
    for (text, balanced) in cases {
        assert_eq!(substitution::balanced_parens(text), *balanced, "{text:?}");
    }
}

#[test]
fn bracket_extents_read_quotes_and_nesting_like_bash() {
    let cases: &[(&str, &[&str])] = &[
        ("echo $[ \"]\" ]; x", &["echo", "x"]),
        ("echo $[ ']' ]; x", &["echo", "x"]),
        ("echo $[ \\] ]; x", &["echo", "x"]),
        ("echo $[ $'\\']' ]; x", &["echo", "x"]),
        ("echo $[ `a ]` ]; x", &["a", "echo", "x"]),
        ("echo $[ $(a ]) ]; x", &["a", "echo", "x"]),
        ("echo $[ a[1] + ${b[2]} ]; x", &["echo", "x"]),
        // bash's balance check skips `$(…)` inside double quotes; ours does not, so this reads
        // as a command substitution (judging more, never less: `a` is seen either way).
        ("echo $(( \"$(a \")\")\" )); x", &["a", "$(a \")\")", "echo", "x"]),
        ("echo $(( (1) + $[ (2) ] )); x", &["echo", "x"]),
        ("echo $[ 1", &["UNPARSEABLE"]),
    ];
    for (input, expected) in cases {
        assert_eq!(programs(input), *expected, "input {input:?}");
    }
}

#[test]
fn corner_cases_mutation_runs_found_unpinned() {
    let cases: &[(&str, &str)] = &[
        ("echo a\\\nb", "[echo] [ab]"),
        ("echo \"a\\\nb\"", "[echo] [ab]"),
        ("echo \"$'x'\"", "[echo] [$'x']"),
        ("echo $'\\x411' $'\\u00e9x' $'\\1012'", "[echo] [A1] [éx] [A2]"),
        ("echo `echo \\`rm x\\``", "[rm] [x] | [echo] [`rm x`] | [echo] [`echo \\`rm x\\``]"),
        ("_A_1=x B2=y cmd", "_A_1=x= B2=y= [cmd]"),
        ("1A=x cmd", "[1A=x] [cmd]"),
    ];
    for (input, expected) in cases {
        assert_eq!(render(input), *expected, "input {input:?}");
    }
    let parsed = parse_command("echo `a | b`").unwrap();
    assert_eq!(parsed.subcommands[1].words, ["b"]);
    assert_eq!(parsed.subcommands[1].pipe_input_from, Some(0));
}

#[test]
fn a_reader_that_stops_moving_refuses_instead_of_hanging() {
    let parser = super::Parser::new("echo", 0);
    assert!(parser.check_stall().is_ok());
    for _ in 0..10_000 {
        assert_eq!(parser.peek(), Some('e'));
    }
    assert!(parser.check_stall().is_ok(), "looking at one place 10 000 times is still reading");
    assert_eq!(parser.peek(), None, "past the limit the reader sees the end");
    let mut moved = parser;
    moved.pos += 1;
    assert_eq!(moved.peek(), None, "and sees it wherever it goes next");
    let stalled = moved.check_stall().expect_err("stalled");
    assert!(stalled.reason.contains("stalled"));
}

#[test]
fn coproc_runs_its_command_and_a_name_is_an_assignment() {
    assert_eq!(programs("coproc pa x"), ["pa"]);
    assert_eq!(programs("coproc xcase -n -u"), ["xcase"], "a name not before a group is the command");
    assert_eq!(programs("coproc { pa; pb; }; pc"), ["pa", "pb", "pc"]);
    assert_eq!(programs("coproc ( pa )"), ["pa"]);
    let named = parse_command("coproc PATH { pa; }").expect("parses");
    assert!(named.has_background && named.has_control_flow);
    assert_eq!(named.subcommands[0].assignments, ["PATH="], "bash assigns the array PATH and PATH_PID");
    assert!(named.subcommands[0].words.is_empty());
    assert_eq!(named.subcommands[1].words, ["pa"]);
    assert_eq!(programs("coproc N (pb)"), ["pb"]);
    assert_eq!(programs("coproc 9x y"), ["9x"], "9x is no name: it is the command");
}

#[test]
fn extended_globs_are_pattern_words_whose_substitutions_run() {
    assert_eq!(programs("[[ ab == @(ab|+([!/]))/..?(/) ]] && pa"), ["[[", "pa"]);
    assert_eq!(programs("echo a@(b|$(pb)) +(x y)"), ["pb", "echo"], "substitutions are recorded first");
    let parsed = parse_command("ls *(a|b)").expect("parses");
    assert_eq!(parsed.subcommands[0].words, ["ls", "*(a|b)"]);
    assert!(parsed.subcommands[0].word_info[1].glob);
    assert_eq!(programs("f?() { pa; }"), ["pa"], "f?() stays a function definition");
    assert_eq!(programs("!(pa)"), ["pa"], "without extglob bash runs !(cmd) as a negated subshell");
    assert_eq!(programs("echo ?('a)b'|\\))"), ["echo"]);
}

#[test]
fn a_refusal_says_where_the_reader_stopped() {
    let error = parse_command("ls; echo 'open").expect_err("unparseable");
    assert_eq!(error.offset, 14, "{error}");
    let error = parse_command("ls; rm ( )").expect_err("unparseable");
    assert_eq!(error.to_string(), "cannot parse command at byte 10: function without a { } or ( ) body");
}

#[test]
fn list_operators_comments_and_leading_redirects() {
    for complete in ["ls;", "ls &", "ls; ", "ls & pwd", "ls;\npwd", "ls\n\n", "(ls;)", "{ ls & }"] {
        assert!(parse_command(complete).is_ok(), "{complete:?} is complete");
    }
    for open in ["ls &&", "ls && ", "ls ||", "ls |", "ls | ", "ls &&\n", "ls && # more"] {
        assert!(parse_command(open).is_err(), "{open:?} needs a command after it");
    }
    assert_eq!(programs("# rm -rf /\nls"), ["ls"], "a comment line runs nothing");
    assert_eq!(programs("ls; # rm -rf /\npwd"), ["ls", "pwd"]);
    assert_eq!(programs("ls && # rm\npwd"), ["ls", "pwd"], "a comment may sit after && before the command");
    let leading = parse_command("&>/dev/null ls").expect("a redirect may come first");
    assert!(!leading.has_background, "&> is a redirect, not a background job");
    assert_eq!(leading.subcommands[0].words, ["ls"]);
    let appended = parse_command("&>>log ls").expect("a redirect may come first");
    assert!(!appended.has_background);
}

#[test]
fn a_pipe_continues_across_a_newline() {
    let parsed = parse_command("echo x |\n\nsh").expect("parses");
    assert_eq!(parsed.subcommands[1].words, ["sh"]);
    assert_eq!(parsed.subcommands[1].pipe_input_from, Some(0), "sh reads echo's output");
    let parsed = parse_command("echo x\nsh").expect("parses");
    assert_eq!(parsed.subcommands[1].pipe_input_from, None);
}

#[test]
fn a_closing_brace_is_read_once() {
    assert_eq!(programs("{ pa; } > out; pb"), ["pa", "pb"]);
    assert_eq!(programs("{ pa; }; { pb; }"), ["pa", "pb"]);
    assert_eq!(programs("echo ${ pa; }x; pb"), ["pa", "echo", "pb"]);
    let parsed = parse_command("echo ${ pa; }x y").expect("parses");
    let echo = parsed.subcommands.iter().find(|command| command.words.first().is_some_and(|word| word == "echo"));
    assert_eq!(echo.expect("echo").words.len(), 3, "the substitution ends at its brace: {parsed:?}");
}

#[test]
fn case_arms_and_blank_continuations_end_where_bash_ends_them() {
    assert_eq!(
        programs("case x in a) pa\nesac\npb"),
        programs("case x in a) pa;; esac\npb"),
        "the last ;; is optional"
    );
    assert!(!programs("case x in a) pa\nesac\npb").contains(&"esac".to_string()));
    assert_eq!(programs("case x in a) pa;;b) pb;;esac"), programs("case x in a) pa;; b) pb;; esac"));
    assert!(programs("case x in a) pa;;b) pb;;esac").contains(&"pb".to_string()));
    assert!(programs("case x in a) pa;&b) pb;;&c) pc;;esac").contains(&"pc".to_string()));
    let joined = programs("echo a \\\n  b; pc \\\n; pd");
    assert_eq!(joined, ["echo", "pc", "pd"], "backslash-newline between words is a blank");
}

#[test]
fn arithmetic_names_skip_numbers_in_any_base() {
    assert_eq!(arithmetic_names("x=y+1"), ["x", "y"]);
    assert_eq!(arithmetic_names("0x1f + 2#101 + 64#zZ_@ + n"), ["n"]);
    assert_eq!(arithmetic_names("a[i]++"), ["a", "i"]);
    assert!(arithmetic_names("1+2*3").is_empty());
}

#[test]
fn code_markers_are_what_runs_a_command_once_expanded() {
    for (text, marker) in [
        ("$(id)", true),
        ("`id`", true),
        ("${ id; }", true),
        ("${\tid; }", true),
        ("${\nid; }", true),
        ("${|id; }", true),
        // A text check, so arithmetic `$((` counts too: it errs towards running code.
        ("$((1))", true),
        ("$x ${x} ${x:-y} $[1] a(b)", false),
        ("plain", false),
    ] {
        assert_eq!(code_marker(text), marker, "{text:?}");
    }
}
