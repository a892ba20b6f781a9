//! Unit tests of `content.rs`: every split of the same answer gives one result; prose is never held back.

use super::*;
use crate::llm::test_server::fixture::{coalesce, text, thinking};
use crate::msg::ToolDefinition;

fn tools() -> Option<ToolNames> {
    let schema = serde_json::json!({"type": "object", "properties": {"path": {"type": "string"}}});
    Some(ToolNames::from_definitions(&[ToolDefinition {
        name: "read_file".to_string(),
        description: String::new(),
        input_schema: schema,
    }]))
}

/// Feeds `input` in pieces of `size` characters (0 = whole) and returns what came out.
fn run(input: &str, size: usize) -> (Vec<StreamEvent>, Vec<TextCall>) {
    let mut filter = ContentFilter::new(tools());
    let mut out = Vec::new();
    let characters: Vec<char> = input.chars().collect();
    let size = if size == 0 { characters.len().max(1) } else { size };
    for piece in characters.chunks(size) {
        filter.push(&piece.iter().collect::<String>(), &mut out);
    }
    let calls = filter.finish(&mut out);
    (coalesce(out), calls)
}

fn check(input: &str, expected_events: Vec<StreamEvent>, expected_calls: &[(&str, &str)]) {
    let expected_calls: Vec<TextCall> = expected_calls
        .iter()
        .map(|(name, input)| TextCall { name: name.to_string(), input: input.to_string() })
        .collect();
    for size in [0, 1, 2, 3, 4, 5, 7] {
        assert_eq!(run(input, size), (expected_events.clone(), expected_calls.clone()), "split {size}: {input:?}");
    }
}

const READ_A: (&str, &str) = ("read_file", r#"{"path":"a"}"#);

#[test]
fn plain_prose_passes_through() {
    check("Hello <b>world</b> [1] `x` <thinking", vec![text("Hello <b>world</b> [1] `x` <thinking")], &[]);
}

#[test]
fn think_tags_split_anywhere_become_thinking() {
    check("<think>plan</think>\n\nAnswer.", vec![thinking("plan"), text("Answer.")], &[]);
    check("  \n<think>\nplan\n</think>Answer.", vec![thinking("\nplan\n"), text("Answer.")], &[]);
}

#[test]
fn think_only_opens_at_the_start() {
    check("Use <think> tags.", vec![text("Use <think> tags.")], &[]);
}

#[test]
fn an_unterminated_think_is_thinking_to_the_end() {
    check("<think>still going </thi", vec![thinking("still going </thi")], &[]);
}

#[test]
fn hermes_calls_are_cut_out_of_the_prose() {
    check(
        "First.\n<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}</tool_call>\nThen more.",
        vec![text("First.\nThen more.")],
        &[READ_A],
    );
}

#[test]
fn several_formats_in_one_answer_all_become_calls() {
    check(
        "<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}</tool_call>\n<function=read_file>\n<parameter=path>\nb\n</parameter>\n</function>\n```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"c\"}}\n```",
        vec![],
        &[READ_A, ("read_file", r#"{"path":"b"}"#), ("read_file", r#"{"path":"c"}"#)],
    );
}

#[test]
fn a_fence_that_is_not_a_call_stays_text() {
    check(
        "Example:\n```json\n{\"name\": \"read_file\"}\n```\n```\n[1, 2]\n```\n",
        vec![text("Example:\n```json\n{\"name\": \"read_file\"}\n```\n```\n[1, 2]\n```\n")],
        &[],
    );
}

#[test]
fn markers_cut_off_at_the_end_are_released_as_text() {
    check("See <tool_ca", vec![text("See <tool_ca")], &[]);
    check("See [TOOL_CALLS]", vec![text("See [TOOL_CALLS]")], &[]);
    check("```js", vec![text("```js")], &[]);
}

#[test]
fn prose_is_released_as_soon_as_it_cannot_be_a_marker() {
    let mut filter = ContentFilter::new(tools());
    let mut out = Vec::new();
    filter.push("Wrap it in <tool_", &mut out);
    assert_eq!(out, vec![text("Wrap it in ")], "only the possible marker is held");
    out.clear();
    filter.push("call> tags", &mut out);
    assert_eq!(out, vec![text("<tool_call> tags")], "a marker followed by prose is prose at once");
    out.clear();
    filter.push(" and <tool_call>", &mut out);
    assert_eq!(out, vec![text(" and ")]);
    out.clear();
    filter.push(" {\"name\": \"read_file\"", &mut out);
    assert_eq!(out, vec![], "an opened call is held until it closes");
    filter.push(", \"arguments\": {\"path\": \"a\"}}</tool_call> done", &mut out);
    assert_eq!(out, vec![text("done")]);
    assert_eq!(filter.finish(&mut out), vec![TextCall { name: READ_A.0.to_string(), input: READ_A.1.to_string() }]);
}

#[test]
fn recovery_off_keeps_calls_as_text() {
    let mut filter = ContentFilter::new(None);
    let mut out = Vec::new();
    filter.push("<tool_call>{\"name\": \"read_file\"}</tool_call>", &mut out);
    assert_eq!(
        (out, filter.finish(&mut Vec::new())),
        (vec![text("<tool_call>{\"name\": \"read_file\"}</tool_call>")], vec![])
    );
}

#[test]
fn a_long_call_in_many_deltas_is_found_once_it_closes() {
    let content = "x".repeat(20_000);
    let input =
        format!("<tool_call>{{\"name\": \"read_file\", \"arguments\": {{\"path\": \"{content}\"}}}}</tool_call>");
    let (events, calls) = run(&input, 3);
    assert_eq!(events, vec![]);
    assert_eq!(calls, vec![TextCall { name: "read_file".to_string(), input: format!("{{\"path\":\"{content}\"}}") }]);
}

#[test]
fn a_call_shown_inside_a_code_block_or_backticks_is_an_example() {
    let example = "<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}</tool_call>";
    let block = format!("The format:\n```xml\n{example}\n```\nThat is all.");
    check(&block, vec![text(&block)], &[]);
    let plain_block = format!("```\n{example}\n```");
    check(&plain_block, vec![text(&plain_block)], &[]);
    let inline = format!("Write `{example}` to call it.");
    check(&inline, vec![text(&inline)], &[]);
}

#[test]
fn an_unclosed_hermes_call_at_the_end_keeps_the_prose_after_it() {
    check(
        "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\nI will wait.",
        vec![text("I will wait.")],
        &[READ_A],
    );
}

/// Feeds `input` in random pieces (on character boundaries) drawn from `rng`.
fn run_random(
    input: &str,
    tools: Option<ToolNames>,
    rng: &mut crate::test_rng::XorShift,
) -> (Vec<StreamEvent>, Vec<TextCall>) {
    let mut filter = ContentFilter::new(tools);
    let mut out = Vec::new();
    let characters: Vec<char> = input.chars().collect();
    let mut start = 0;
    while start < characters.len() {
        let end = (start + 1 + rng.below(12)).min(characters.len());
        filter.push(&characters[start..end].iter().collect::<String>(), &mut out);
        start = end;
    }
    let calls = filter.finish(&mut out);
    (coalesce(out), calls)
}

#[test]
fn random_answers_decode_the_same_however_they_are_split() {
    const SEED: u64 = 0x1e12_dec0;
    let pieces = [
        "Hello ",
        "<think>",
        "</think>",
        "<tool_call>",
        "</tool_call>",
        "{\"name\": \"read_file\", ",
        "\"arguments\": {\"path\": \"a\"}}",
        "<function=read_file>",
        "<parameter=path>",
        "x",
        "</parameter>",
        "</function>",
        "[TOOL_CALLS]",
        "[{\"name\": \"read_file\"}]",
        "```",
        "json\n",
        "rust\n",
        "\n",
        "`",
        "<",
        "[",
        " tags ",
        "é",
        "🐱",
    ];
    let mut rng = crate::test_rng::XorShift(SEED);
    for case in 0..5000 {
        let input: String = (0..1 + rng.below(14)).map(|_| rng.pick(&pieces)).collect();
        let whole = run(&input, 0);
        assert_eq!(run_random(&input, tools(), &mut rng), whole, "seed {SEED:#x}, case {case}: {input:?}");
        // Without recovery and without a leading <think>, content comes out exactly as it came in.
        if !input.trim_start().starts_with("<think>") {
            let (events, calls) = run_random(&input, None, &mut rng);
            assert!(calls.is_empty());
            let shown: String = events
                .iter()
                .map(|event| match event {
                    StreamEvent::Text(text) => text.as_str(),
                    other => panic!("seed {SEED:#x}, case {case}: {other:?} from {input:?}"),
                })
                .collect();
            assert_eq!(shown, input, "seed {SEED:#x}, case {case}");
        }
    }
}
