//! Tests of the streaming markdown renderer: each construct's exact output with colour off and
//! on, the same bytes however the text is split into deltas (every split point, one character
//! at a time, random chunkings with a printed seed), nothing lost to a marker never closed, code
//! blocks verbatim, no escape byte without colour, and wrapping that counts escapes as nothing.

use super::super::render::Renderer;
use super::*;
use crate::agent::Stop;
use crate::test_rng::XorShift;
use std::time::Instant;

/// The whole of `input` rendered at `width` columns, through the wrapper alone.
fn render(input: &str, color: bool, width: usize) -> String {
    let mut wrap = Wrap::new(width);
    let mut out = Vec::new();
    let mut markdown = Markdown::new(color, &crate::glyphs::UNICODE);
    for c in input.chars() {
        markdown.push(c, &mut wrap, &mut out).unwrap();
    }
    markdown.finish(&mut wrap, &mut out).unwrap();
    wrap.end_line(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// `input` streamed in `chunks` through the turn renderer (neutralised as a model's text is).
fn stream<'a>(chunks: impl IntoIterator<Item = &'a str>, color: bool, width: usize) -> String {
    let now = Instant::now();
    let mut renderer = Renderer::new(Vec::new(), color, false, width);
    for chunk in chunks {
        renderer.text(chunk, now).unwrap();
    }
    renderer.done(Stop::Completed, now).unwrap();
    String::from_utf8(renderer.into_inner()).unwrap()
}

/// Colour off, 40 columns.
fn check(input: &str, expected: &str) {
    assert_eq!(render(input, false, 40), expected, "input: {input:?}");
}

/// `text` without its SGR escapes (`ESC [ digits-and-semicolons m`).
fn strip_escapes(text: &str) -> String {
    let mut plain = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("\x1b[") {
        plain.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let end = after.find(|c: char| !c.is_ascii_digit() && c != ';').unwrap_or(after.len());
        assert_eq!(after[end..].chars().next(), Some('m'), "only SGR escapes are written: {text:?}");
        rest = &after[end + 1..];
    }
    plain.push_str(rest);
    plain
}

/// An answer with every construct, used by the whole-versus-split tests.
const SAMPLE: &str = "# Plan\n\nHere is **the plan**, with *care* and `code`; see [docs](https://example.com/a_b).\n\n\
## Steps\n\n1. Read `src/main.rs` and **check** the ~~old~~ new _flags_.\n2. Run the tests:\n\n   \
```sh\n   cargo test -- --nocapture **not bold**\n   ```\n\n- a bullet that is long enough to wrap across the \
narrow line\n  - nested *item*\n* star bullet\n\n> A quote with **bold** text that wraps around, too.\n> > nested\n\n\
---\n\n```rust\nfn main() {\n\tprintln!(\"# {}\", 1 * 2); // `x` [a](b)\n}\n```\n\n\\*escaped\\* and \
**unclosed bold, 2 * 3 = 6, snake_case_name, `unclosed code, [unclosed link](x\n";

#[test]
fn emphasis_is_shown_without_its_markers() {
    check("Some **bold**, *italic*, _under_ and ~~gone~~.", "Some bold, italic, under and gone.\n");
    check("***both*** and **a *b* c** and *a **b** c*", "both and a b c and a b c\n");
    check("__strong__ and 2 * 3 * 4 and a*b*c", "strong and 2 * 3 * 4 and abc\n");
    check("snake_case_name and ~one tilde~ stay", "snake_case_name and ~one tilde~ stay\n");
    check("\\*not\\* \\_emphasis\\_ and \\ x \\", "*not* _emphasis_ and \\ x \\\n");
}

#[test]
fn markers_never_closed_are_printed_with_everything_after_them() {
    check("**never closed and more", "**never closed and more\n");
    check("a *b and `code and [link and ~~gone", "a *b and `code and [link and ~~gone\n");
    check("**a** and **b\nnext **line**", "a and **b\nnext line\n");
    check("[text](url never closed", "[text](url never closed\n");
    check("[text](has space) [only brackets] ]", "[text](has space) [only brackets] ]\n");
    check("``a`b` c", "``ab c\n");
    // A `[` still open when the emphasis around it closes is text.
    check("**a [b** c and *[x*](y)", "a [b c and [x](y)\n");
}

#[test]
fn code_spans_are_verbatim_and_links_show_their_destination() {
    check("Run `cargo **test**` or ``a ` b`` now", "Run cargo **test** or a ` b now\n");
    check(
        "[the docs](https://x.dev/a_(b)) and [https://x.dev](https://x.dev)",
        "the docs (https://x.dev/a_(b)) and\nhttps://x.dev\n",
    );
    check("[**bold** link](u) [`code`](code)", "bold link (u) code\n");
}

#[test]
fn headings_lists_quotes_and_rules() {
    check("# Title\n### Sub *title*\n#hashtag\n####### seven", "Title\nSub title\n#hashtag\n####### seven\n");
    check(
        "- one\n* two\n+ three\n  - nested item that is long enough to wrap\n10. ten\n2) two",
        "• one\n• two\n• three\n  • nested item that is long enough to\n    wrap\n10. ten\n2) two\n",
    );
    check(
        "> quoted\n>\n> > nested **deep** quote text that wraps",
        "│ quoted\n│\n│ │ nested deep quote text that wraps\n",
    );
    check("---\n* * *\n___\n--\n- -", &format!("{0}\n{0}\n{0}\n--\n• -\n", "─".repeat(39)));
    check("2024 was\n1.5 is\n-x and +y", "2024 was\n1.5 is\n-x and +y\n");
}

#[test]
fn code_blocks_are_verbatim_unwrapped_and_their_fences_are_dim_rules() {
    let long = "x".repeat(50);
    check(
        &format!("```rust\n# not a heading\n- not a list **nor bold** [a](b)\n\tindented {long}\n```\nafter **bold**"),
        &format!("── rust\n# not a heading\n- not a list **nor bold** [a](b)\n    indented {long}\n──\nafter bold\n"),
    );
    check("~~~\n```\nstill code\n~~~~\ntext", "──\n```\nstill code\n──\ntext\n");
    check("  ```py\n  x = 1\n    y\n  ```", "  ── py\n  x = 1\n    y\n  ──\n");
    check("> ```\n> quoted code\n> ```\n", "│ ──\n│ quoted code\n│ ──\n");
    check("```a``` is inline", "a is inline\n");
    check("```\nnever closed *x*", "──\nnever closed *x*\n");
}

#[test]
fn colour_shows_styles_as_escapes_and_resets_them() {
    let rendered = render("# Title\n**b** *i* `c` [t](u)\n> q\n```\ncode\n```", true, 40);
    let expected = "\x1b[0;1mTitle\x1b[0m\n\
        \x1b[0;1mb\x1b[0m \x1b[0;3mi\x1b[0m \x1b[0;36mc\x1b[0m \x1b[0;4mt\x1b[0m \x1b[0;2m(u)\x1b[0m\n\
        \x1b[2m│\x1b[0m q\n\
        \x1b[0;2m──\x1b[0m\n\x1b[0;36mcode\x1b[0m\n\x1b[0;2m──\x1b[0m\n";
    assert_eq!(rendered, expected);
}

#[test]
fn a_styled_span_broken_by_a_wrap_is_reset_around_the_margin() {
    let rendered = render("> **one two three four five six seven eight nine**", true, 24);
    let expected = "\x1b[2m│\x1b[0m \x1b[0;1mone two three four\x1b[0m\n\
        \x1b[2m│\x1b[0m \x1b[0;1mfive six seven eight\x1b[0m\n\
        \x1b[2m│\x1b[0m \x1b[0;1mnine\x1b[0m\n";
    assert_eq!(rendered, expected);
}

#[test]
fn wrapping_counts_escapes_as_no_columns() {
    let prose: String = SAMPLE.split("```rust").next().unwrap().to_string();
    for width in [20, 33, 47, 80] {
        let plain = render(&prose, false, width);
        let coloured = render(&prose, true, width);
        assert_eq!(strip_escapes(&coloured), plain, "width {width}");
        // The one code line of `prose` is verbatim; every other line fits.
        for line in plain.lines().filter(|line| !line.contains("cargo test --")) {
            assert!(crate::repl::render::display_width(line) <= width, "{line:?} at {width}");
        }
    }
}

#[test]
fn every_split_of_the_answer_renders_the_same_bytes() {
    for color in [false, true] {
        let whole = stream([SAMPLE], color, 40);
        let boundaries: Vec<usize> = SAMPLE.char_indices().map(|(at, _)| at).collect();
        for &at in &boundaries {
            let split = stream([&SAMPLE[..at], &SAMPLE[at..]], color, 40);
            assert_eq!(split, whole, "split at byte {at} ({:?}), colour {color}", &SAMPLE[..at]);
        }
        let chars: Vec<String> = SAMPLE.chars().map(String::from).collect();
        assert_eq!(stream(chars.iter().map(String::as_str), color, 40), whole, "one char at a time");
    }
}

#[test]
fn random_chunkings_render_the_same_bytes() {
    const SEED: u64 = 0x6d61_726b_646f_776e;
    println!("seed {SEED:#x}");
    let mut rng = XorShift(SEED);
    let chars: Vec<char> = SAMPLE.chars().collect();
    let whole = [stream([SAMPLE], false, 40), stream([SAMPLE], true, 40)];
    for round in 0..200 {
        let mut chunks = Vec::new();
        let mut at = 0;
        while at < chars.len() {
            let length = 1 + rng.below(12);
            chunks.push(chars[at..(at + length).min(chars.len())].iter().collect::<String>());
            at += length;
        }
        let color = round % 2 == 1;
        let streamed = stream(chunks.iter().map(String::as_str), color, 40);
        assert_eq!(streamed, whole[usize::from(color)], "seed {SEED:#x}, round {round}, chunks {chunks:?}");
    }
}

#[test]
fn no_letter_is_ever_lost_whatever_the_markers() {
    // Random lines over letters and every marker character but `)` (a link whose text is its
    // destination shows it once): the letters and digits come out all, in order.
    const SEED: u64 = 0x0001_0203_0405_0607;
    println!("seed {SEED:#x}");
    let mut rng = XorShift(SEED);
    let alphabet =
        ["a", "b", "1", " ", " ", "*", "**", "_", "~~", "`", "```", "[", "]", "(", "#", "- ", "> ", "\\", "\n", "1. "];
    for round in 0..2000 {
        let input: String = (0..rng.below(30)).map(|_| rng.pick(&alphabet)).collect();
        for color in [false, true] {
            let output = strip_escapes(&render(&input, color, 30));
            let kept = |text: &str| text.chars().filter(char::is_ascii_alphanumeric).collect::<String>();
            assert_eq!(kept(&output), kept(&input), "seed {SEED:#x}, round {round}: {input:?} gave {output:?}");
            if !color {
                assert!(!output.contains('\x1b'), "{output:?}");
            }
        }
    }
}

#[test]
fn colour_off_writes_no_escape_and_no_emphasis_marker() {
    let plain = stream([SAMPLE], false, 120);
    assert!(!plain.contains('\x1b'), "{plain}");
    let coloured = stream([SAMPLE], true, 120);
    for output in [&plain, &strip_escapes(&coloured)] {
        assert!(output.contains("Here is the plan, with care and code; see docs"), "{output}");
        assert!(output.contains("(https://example.com/a_b)"), "{output}");
        assert!(output.contains("1. Read src/main.rs and check the old new"), "{output}");
        assert!(output.contains("cargo test -- --nocapture **not bold**"), "code is verbatim: {output}");
        assert!(output.contains("    println!(\"# {}\", 1 * 2); // `x` [a](b)"), "{output}");
        let end = "*escaped* and **unclosed bold, 2 * 3 = 6, snake_case_name, `unclosed code, [unclosed link](x";
        assert!(output.contains(end), "{output}");
        assert!(!output.contains("# Plan") && !output.contains("**the plan**"), "{output}");
    }
}

#[test]
fn a_models_escape_bytes_stay_inert_inside_markdown() {
    let output = stream(["**\x1b[2J", "bold** `\x1b]0;t\x07`\n```\n\x1b[H\r\n```"], true, 40);
    assert_eq!(strip_escapes(&output), "^[[2Jbold ^[]0;t^G\n──\n^[[H^M\n──\n");
    assert!(!output.contains("\x1b[2J") && !output.contains("\x1b]") && !output.contains('\r'), "{output:?}");
}

#[test]
fn line_starts_are_classified_from_as_few_characters_as_possible() {
    let head = |text: &str| read_head(text, false).block;
    assert_eq!(head("Hello"), Block::Paragraph { text: 0 });
    assert_eq!(head("*"), Block::Undecided);
    assert_eq!(head("**b"), Block::Paragraph { text: 0 });
    assert_eq!(head("- "), Block::Undecided);
    assert_eq!(head("- x"), Block::Item { marker: BULLET.to_string(), text: 2 });
    assert_eq!(head("12"), Block::Undecided);
    assert_eq!(head("12. x"), Block::Item { marker: "12.".to_string(), text: 4 });
    assert_eq!(head("##"), Block::Undecided);
    assert_eq!(head("## T"), Block::Heading { text: 3 });
    assert_eq!(head("``"), Block::Undecided);
    assert_eq!(head("```"), Block::Fence { ch: b'`', len: 3, info: 3 });
    assert_eq!(
        read_head(">  - x", false),
        Head { quotes: 1, indent: 1, block: Block::Item { marker: BULLET.into(), text: 5 } }
    );
    assert_eq!(read_head("---", true).block, Block::Rule);
    let fence = Fence { ch: b'`', len: 3, indent: 2, quotes: 0, info: 5 };
    assert_eq!(read_code_line("  ``", &fence, false), CodeLine::Undecided);
    assert_eq!(read_code_line("  ```", &fence, true), CodeLine::Close);
    assert_eq!(read_code_line("    x", &fence, false), CodeLine::Content { text: 2 });
}

#[test]
fn a_line_start_held_too_long_is_text() {
    let dashes = "-".repeat(MAX_HEAD + 10);
    assert_eq!(render(&format!("{dashes}x"), false, 40).replace('\n', ""), format!("{dashes}x"));
}
