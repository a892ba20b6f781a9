//! Markdown in the REPL (SPEC §9): an answer streamed in deltas of a few characters (markers
//! split across them) is shown rendered — headings, emphasis, code spans, lists, links, quotes
//! and a fenced code block without their markers, bold and colour on a terminal — and under
//! `NO_COLOR` the bytes written for the answer (logged with `pipe-pane`) hold no escape at all.

use crate::support::tmux::{Pane, Tmux};
use crate::support::{FakeModel, Provider, Reply, TestEnv};
use serde_json::{Value, json};

const ANSWER: &str = "# Release plan\n\nThe **build** is *green* and `cargo test` passes.\n\n\
- first **step**\n- second step with [the guide](https://example.com/guide)\n\n1. ship it\n\n\
> a quoted note\n\n```sh\nmake release VERSION=2\n```\nAll done.";

/// The rendered answer, line by line, as the screen shows it.
const SHOWN: &[&str] = &[
    "Release plan",
    "",
    "The build is green and cargo test passes.",
    "",
    "• first step",
    "• second step with the guide (https://example.com/guide)",
    "",
    "1. ship it",
    "",
    "│ a quoted note",
    "",
    "── sh",
    "make release VERSION=2",
    "──",
    "All done.",
];

/// An Anthropic stream that sends `text` in deltas of three characters.
fn streamed_in_small_deltas(text: &str) -> Reply {
    let event = |name: &str, data: Value| format!("event: {name}\ndata: {data}\n\n");
    let mut body = event(
        "message_start",
        json!({"type":"message_start","message":{"id":"msg_md","type":"message","role":"assistant","content":[],"model":"test-model","stop_reason":null,"usage":{"input_tokens":100,"output_tokens":1}}}),
    );
    body += &event(
        "content_block_start",
        json!({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}),
    );
    let chars: Vec<char> = text.chars().collect();
    for delta in chars.chunks(3) {
        let delta: String = delta.iter().collect();
        body += &event(
            "content_block_delta",
            json!({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":delta}}),
        );
    }
    body += &event("content_block_stop", json!({"type":"content_block_stop","index":0}));
    body += &event(
        "message_delta",
        json!({"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":60}}),
    );
    body += &event("message_stop", json!({"type":"message_stop"}));
    Reply::sse(&body)
}

/// Asks for the plan and waits for the whole answer and the prompt after it.
fn ask(tmux: &Tmux) -> String {
    tmux.wait_for_prompt();
    tmux.type_text("what is the release plan?");
    tmux.keys(&["Enter"]);
    tmux.wait_for("All done.");
    tmux.wait_for_prompt()
}

/// The escape sequences written right before the first `text` on a `capture-pane -e` screen
/// (tmux writes each attribute as a sequence of its own).
fn escapes_before(styled: &str, text: &str) -> String {
    let mut before = &styled[..styled.find(text).expect("the text on the screen")];
    let mut escapes = Vec::new();
    while let Some(start) = before.rfind('\x1b') {
        let sequence = &before[start..];
        let parameters = sequence.strip_prefix("\x1b[").and_then(|rest| rest.strip_suffix('m'));
        if !parameters.is_some_and(|codes| codes.chars().all(|c| c.is_ascii_digit() || c == ';')) {
            break;
        }
        escapes.insert(0, sequence);
        before = &before[..start];
    }
    escapes.concat()
}

/// The screen's lines from the answer's first to its last.
fn answer_lines(screen: &str) -> Vec<String> {
    let lines: Vec<String> = screen.lines().map(|line| line.trim_end().to_string()).collect();
    let first = lines.iter().position(|line| line.contains("Release plan")).expect("the answer's heading");
    let last = lines.iter().position(|line| line == "All done.").expect("the answer's end");
    lines[first..=last].to_vec()
}

#[test]
fn a_streamed_markdown_answer_is_shown_rendered_without_its_markers() {
    let model = FakeModel::start();
    model.push(streamed_in_small_deltas(ANSWER));
    let env = TestEnv::with_model("markdown-screen", &model, Provider::anthropic());
    let tmux = Tmux::start(&env, &[], &[]);
    let screen = ask(&tmux);
    let shown = answer_lines(&screen);
    assert_eq!(shown, SHOWN, "the screen:\n{screen}");
    for marker in ["**", "`", "#", "[the guide]", "> a"] {
        assert!(!shown.iter().any(|line| line.contains(marker)), "{marker:?} on the screen:\n{screen}");
    }
    // On a terminal the styles are there: bold, italic, the code colour, the dim fence.
    let styled = tmux.screen_with_escapes();
    for (text, code) in [("build", "1"), ("green", "3"), ("cargo test", "36"), ("make release", "36"), ("── sh", "2")]
    {
        let escapes = escapes_before(&styled, text);
        assert!(escapes.contains(&format!("\x1b[{code}m")), "{text:?} after {escapes:?}: {styled:?}");
    }
    assert!(model.violations().is_empty(), "{:?}", model.violations());
}

#[test]
fn no_color_writes_the_rendered_answer_without_a_single_escape_byte() {
    let model = FakeModel::start();
    model.push(streamed_in_small_deltas(ANSWER));
    let env = TestEnv::with_model("markdown-no-color", &model, Provider::anthropic());
    let log = env.dir.path().join("pane.log");
    let tmux = Tmux::start_with(&env, &[], &[("NO_COLOR", "1")], Pane { log: Some(log.clone()), ..Pane::default() });
    let screen = ask(&tmux);
    assert_eq!(answer_lines(&screen), SHOWN, "the screen:\n{screen}");
    let raw = std::fs::read(&log).unwrap();
    let text = String::from_utf8_lossy(&raw);
    let start = text.find("Release plan").expect("the answer in the log");
    let end = text[start..].find("All done.").map(|at| start + at + "All done.".len()).expect("its end");
    let answer = &text[start..end];
    assert!(!answer.contains('\x1b'), "an escape byte in the answer: {answer:?}");
    // The bytes are the lines shown (the terminal's own line ends aside), markers and all gone.
    assert_eq!(answer.replace("\r\n", "\n"), SHOWN.join("\n"), "{answer:?}");
}

#[test]
fn the_last_word_of_a_paused_stream_shows_at_once() {
    let model = FakeModel::start();
    let (release, stalled) = crossbeam_channel::bounded::<()>(0);
    let body = crate::repl::partial_text("The last word before the pause is unfinishe");
    model.push(Reply::Stall { body: body.into_bytes(), release: stalled });
    let env = TestEnv::with_model("markdown-pause", &model, Provider::anthropic());
    let tmux = Tmux::start(&env, &[], &[]);
    tmux.wait_for_prompt();
    tmux.type_text("go");
    tmux.keys(&["Enter"]);
    // The stream stalls mid-word: the word is shown anyway, not held until the next delta.
    tmux.wait_for("pause is unfinishe");
    drop(release);
}
