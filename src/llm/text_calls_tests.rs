//! The recognisers on whole segments: what opens a call, and which segments are calls.

use super::*;
use serde_json::json;

fn tools() -> ToolNames {
    let definition = |name: &str| ToolDefinition {
        name: name.to_string(),
        description: String::new(),
        input_schema: json!({"type": "object", "properties": {"path": {"type": "string"}, "n": {"type": "integer"}}}),
    };
    ToolNames::from_definitions(&[definition("read_file"), definition("bash")])
}

fn parsed(format: Format, segment: &str) -> Option<Vec<(String, String)>> {
    parse_segment(format, segment, &tools())
        .map(|(calls, _)| calls.into_iter().map(|call| (call.name, call.input)).collect())
}

fn call(name: &str, input: &str) -> (String, String) {
    (name.to_string(), input.to_string())
}

#[test]
fn openings_are_decided_by_what_follows_the_marker() {
    let cases = [
        (Format::Hermes, "\n{", Opening::Call),
        (Format::Hermes, "  ", Opening::Undecided),
        (Format::Hermes, "<func", Opening::Undecided),
        (Format::Hermes, " tags", Opening::Prose),
        (Format::Function, "read_fi", Opening::Undecided),
        (Format::Function, "read_file>", Opening::Call),
        (Format::Function, " alone", Opening::Prose),
        (Format::Function, ">", Opening::Prose),
        (Format::Function, &format!("{}>", "n".repeat(65)), Opening::Prose),
        (Format::Mistral, "[{", Opening::Call),
        (Format::Mistral, "bash[ARGS]", Opening::Call),
        (Format::Mistral, " token", Opening::Prose),
        (Format::Fence, "json", Opening::Undecided),
        (Format::Fence, "json\n", Opening::Call),
        (Format::Fence, "\n{", Opening::Call),
        (Format::Fence, "\nfn main", Opening::Block),
        (Format::Fence, "rust\n", Opening::Block),
        (Format::Fence, "an info line much longer than one word\n{", Opening::Prose),
        (Format::Fence, "inline code spans are not fences, however long they run`", Opening::Prose),
    ];
    for (format, rest, expected) in cases {
        assert_eq!(classify_opening(format, rest), expected, "{format:?} {rest:?}");
    }
}

#[test]
fn hermes_accepts_parameters_string_arguments_and_arrays() {
    assert_eq!(
        parsed(Format::Hermes, r#"<tool_call>{"name": "bash", "parameters": {"n": 1.5e3}}</tool_call>"#),
        Some(vec![call("bash", r#"{"n":1500.0}"#)])
    );
    assert_eq!(
        parsed(Format::Hermes, r#"<tool_call>{"name": "bash", "arguments": "{\"path\": \"x\"}"}</tool_call>"#),
        Some(vec![call("bash", r#"{"path": "x"}"#)])
    );
    assert_eq!(
        parsed(Format::Hermes, r#"<tool_call>[{"name": "bash"}, {"name": "read_file", "arguments": {}}]</tool_call>"#),
        Some(vec![call("bash", "{}"), call("read_file", "{}")])
    );
    assert_eq!(
        parsed(
            Format::Hermes,
            r#"<tool_call>{"type": "function", "function": {"name": "bash", "arguments": {"n": 2}}}</tool_call>"#
        ),
        Some(vec![call("bash", r#"{"n":2}"#)])
    );
    assert_eq!(
        parsed(Format::Fence, "```json\n{\"function\": {\"name\": \"bash\", \"parameters\": {}}}\n```"),
        Some(vec![call("bash", "{}")])
    );
}

#[test]
fn segments_that_are_not_entirely_valid_calls_are_refused() {
    let refused = [
        (Format::Hermes, r#"<tool_call>{"name": "bash", "arguments": {}} trailing</tool_call>"#),
        (Format::Hermes, r#"<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>"#),
        (Format::Hermes, r#"<tool_call>{"name": "bash", "arguments": [1]}</tool_call>"#),
        (Format::Hermes, r#"<tool_call>{"name": "bash", "arguments": "not json"}</tool_call>"#),
        (Format::Hermes, r#"<tool_call>[{"name": "bash"}, {"name": "nope"}]</tool_call>"#),
        (Format::Function, "<function=bash>\n<parameter=n>\n1\n</function>"),
        (Format::Function, "<function=nope>\n</function>"),
        (Format::Mistral, "[TOOL_CALLS][{\"name\": \"bash\", \"arguments\": {}"),
        (Format::Mistral, "[TOOL_CALLS]bash{\"n\": 1}"),
        // A fence must spell out its arguments: a bare name is an example, not a call.
        (Format::Fence, "```json\n{\"name\": \"bash\"}\n```"),
        (Format::Fence, "```json\n{\"tool\": \"bash\", \"arguments\": {}}\n```"),
    ];
    for (format, segment) in refused {
        assert_eq!(parse_segment(format, segment, &tools()), None, "{segment}");
    }
}

#[test]
fn qwen3_parameters_follow_the_schema_types() {
    assert_eq!(
        parsed(
            Format::Function,
            "<function=read_file>\n<parameter=path>\n42\n</parameter>\n<parameter=n>\n42\n</parameter>\n</function>"
        ),
        Some(vec![call("read_file", r#"{"path":"42","n":42}"#)])
    );
    assert_eq!(
        parsed(Format::Function, "<function=bash>\n<parameter=command>\nls -la\n  cd x\n</parameter>\n</function>"),
        Some(vec![call("bash", r#"{"command":"ls -la\n  cd x"}"#)])
    );
}

#[test]
fn mistral_call_ids_between_name_and_arguments_are_skipped() {
    assert_eq!(
        parsed(Format::Mistral, "[TOOL_CALLS]bash[CALL_ID]a1B2c3D4e[ARGS]{\"path\": \"x\"}"),
        Some(vec![call("bash", r#"{"path":"x"}"#)])
    );
}

#[test]
fn mistral_reports_the_bytes_it_used() {
    let segment = "[TOOL_CALLS][{\"name\": \"bash\", \"arguments\": {}}]\nDone.";
    let (calls, used) = parse_segment(Format::Mistral, segment, &tools()).unwrap();
    assert_eq!((calls.len(), &segment[used..]), (1, "\nDone."));
}

#[test]
fn segment_ends_are_found_from_where_the_last_search_stopped() {
    let segment = "<tool_call>{\"a\": \"</tool_\"}</tool_call>tail";
    assert_eq!(segment_end(Format::Hermes, segment, 0), Some(segment.len() - 4));
    assert_eq!(segment_end(Format::Hermes, segment, 20), Some(segment.len() - 4));
    assert_eq!(segment_end(Format::Hermes, "<tool_call>{", 0), None);
    assert_eq!(segment_end(Format::Mistral, "[TOOL_CALLS][]", 0), None);
    assert_eq!(segment_end(Format::Fence, "```json\n{}\n```\nmore", 0), Some(14));
}
