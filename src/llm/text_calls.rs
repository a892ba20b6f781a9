//! Deterministic recognisers for tool calls that small local models write as text in the
//! answer instead of as structured calls: Hermes/Qwen `<tool_call>{json}</tool_call>`, Qwen3-coder
//! `<function=NAME><parameter=K>V</parameter></function>`, Mistral `[TOOL_CALLS][...]` and
//! `[TOOL_CALLS]name[ARGS]{json}` (optionally `name[CALL_ID]id[ARGS]`), and a fenced JSON block
//! naming a tool.
//!
//! Invariant: a segment becomes calls only when every call in it parses and names a tool offered
//! in the request; anything else stays text, unchanged. This module decides on complete segments
//! and on marker prefixes; holding text back while it streams is `content.rs`'s job. No second
//! model, no guessing: JSON must be valid JSON.

use crate::msg::ToolDefinition;
use serde_json::Value;

/// A recovered call before it gets an id: the tool name and its input as JSON text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TextCall {
    pub name: String,
    pub input: String,
}

/// The tools of one request, as the recognisers need them.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ToolNames {
    tools: Vec<(String, Vec<String>)>,
}

impl ToolNames {
    /// The offered tools: each name with its parameters declared `"type": "string"` (Qwen3-coder
    /// parameter values are text; only non-string parameters are read as JSON).
    pub(crate) fn from_definitions(definitions: &[ToolDefinition]) -> ToolNames {
        let tools = definitions
            .iter()
            .map(|definition| {
                let strings = definition
                    .input_schema
                    .get("properties")
                    .and_then(Value::as_object)
                    .into_iter()
                    .flatten()
                    .filter(|(_, schema)| schema.get("type").and_then(Value::as_str) == Some("string"))
                    .map(|(name, _)| name.clone())
                    .collect();
                (definition.name.clone(), strings)
            })
            .collect();
        ToolNames { tools }
    }

    fn knows(&self, name: &str) -> bool {
        self.tools.iter().any(|(known, _)| known == name)
    }

    fn is_string_parameter(&self, tool: &str, parameter: &str) -> bool {
        self.tools.iter().any(|(known, strings)| known == tool && strings.iter().any(|name| name == parameter))
    }
}

/// The text formats, each opened by its marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    /// `<tool_call>` + JSON object (Hermes, Qwen2.5) or + `<function=...>` (Qwen3-coder).
    Hermes,
    /// `<function=NAME>` ... `</function>` (Qwen3-coder without the wrapper).
    Function,
    /// `[TOOL_CALLS]` + a JSON array, or + `name[ARGS]{json}` (Mistral).
    Mistral,
    /// A Markdown code fence whose body is a call object.
    Fence,
}

/// Every marker, in the order they are tried at one position.
pub(crate) const MARKERS: &[(&str, Format)] = &[
    ("<tool_call>", Format::Hermes),
    ("<function=", Format::Function),
    ("[TOOL_CALLS]", Format::Mistral),
    ("```", Format::Fence),
];

/// What the text after a marker says about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Opening {
    /// It opens a call: capture until the format's end.
    Call,
    /// Plain prose that mentions the marker.
    Prose,
    /// A code block that is not a call (```` ```rust ````): what it shows is an example.
    Block,
    /// Too little text yet to tell.
    Undecided,
}

/// Decides whether `marker` (of `format`) followed by `rest` opens a call.
pub(crate) fn classify_opening(format: Format, rest: &str) -> Opening {
    match format {
        Format::Hermes => {
            let rest = rest.trim_start();
            if rest.is_empty() {
                Opening::Undecided
            } else if rest.starts_with('{') || rest.starts_with('[') || rest.starts_with("<function=") {
                Opening::Call
            } else if "<function=".starts_with(rest) {
                Opening::Undecided
            } else {
                Opening::Prose
            }
        }
        Format::Function => {
            let name_length = rest.find(|character: char| !is_name_char(character)).unwrap_or(rest.len());
            match rest[name_length..].chars().next() {
                None if name_length <= 64 => Opening::Undecided,
                Some('>') if (1..=64).contains(&name_length) => Opening::Call,
                _ => Opening::Prose,
            }
        }
        Format::Mistral => match rest.chars().next() {
            None => Opening::Undecided,
            Some(character) if character == '[' || is_name_char(character) => Opening::Call,
            Some(_) => Opening::Prose,
        },
        Format::Fence => {
            // The info string is one short word: a long first line, or one with a backtick, is
            // inline code or prose. Deciding on the first 33 bytes keeps the answer the same
            // however the text is split.
            let info_end = rest.find('\n');
            let info = &rest[..info_end.unwrap_or(rest.len())];
            if info.len() > 32 || info.contains('`') {
                return Opening::Prose;
            }
            let Some(info_end) = info_end else { return Opening::Undecided };
            match info.trim() {
                "json" | "json5" | "tool_call" | "tool_code" => Opening::Call,
                "" => match rest[info_end + 1..].trim_start().chars().next() {
                    None => Opening::Undecided,
                    Some('{' | '[') => Opening::Call,
                    Some(_) => Opening::Block,
                },
                _ => Opening::Block,
            }
        }
    }
}

/// Where a captured segment starting with its marker ends (the byte just past it), once the
/// closing text has arrived; None while it is still open. Mistral calls have no closing text:
/// they run to the end of the answer. `searched` is the length already searched without
/// success, so a long call streamed in many deltas is scanned about once.
pub(crate) fn segment_end(format: Format, segment: &str, searched: usize) -> Option<usize> {
    let close = |body_start: usize, closing: &str| {
        let mut from = body_start.max(searched.saturating_sub(closing.len()));
        while !segment.is_char_boundary(from) {
            from -= 1;
        }
        segment.get(from..)?.find(closing).map(|at| from + at + closing.len())
    };
    match format {
        Format::Hermes => close("<tool_call>".len(), "</tool_call>"),
        Format::Function => close("<function=".len(), "</function>"),
        Format::Mistral => None,
        Format::Fence => close(segment.find('\n')? + 1, "```"),
    }
}

/// Parses a whole segment (marker included, possibly unterminated at the end of the answer).
/// Returns the calls and how many bytes of `segment` they used (Mistral may leave text after
/// its JSON), or None when the segment is not entirely valid calls to offered tools.
pub(crate) fn parse_segment(format: Format, segment: &str, tools: &ToolNames) -> Option<(Vec<TextCall>, usize)> {
    let (calls, used) = match format {
        Format::Hermes => {
            let inner = segment.strip_prefix("<tool_call>")?;
            match inner.strip_suffix("</tool_call>") {
                Some(inner) if inner.trim_start().starts_with("<function=") => {
                    (function_calls(inner.trim(), tools)?, segment.len())
                }
                Some(inner) => (json_calls(inner.trim(), false)?, segment.len()),
                None if inner.trim_start().starts_with("<function=") => {
                    (function_calls(inner.trim(), tools)?, segment.len())
                }
                // Unclosed at the end of the answer (the model stopped at its end-of-turn token
                // instead): one JSON value, and whatever prose follows it stays prose.
                None => {
                    let json = inner.trim_start();
                    let (value, used) = first_json(json)?;
                    let calls = match value {
                        Value::Array(items) => items.iter().map(call_from_json).collect::<Option<Vec<_>>>()?,
                        object => vec![call_from_json(&object)?],
                    };
                    (calls, segment.len() - json.len() + used)
                }
            }
        }
        Format::Function => (function_calls(segment.trim_end(), tools)?, segment.len()),
        Format::Mistral => mistral_calls(segment)?,
        Format::Fence => {
            let body = &segment[segment.find('\n')? + 1..];
            let body = body.trim_end().strip_suffix("```")?;
            // A fence is often an example: only an object with its arguments spelled out counts.
            (json_calls(body.trim(), true)?, segment.len())
        }
    };
    let all_offered = !calls.is_empty() && calls.iter().all(|call| tools.knows(&call.name));
    all_offered.then_some((calls, used))
}

/// `{"name", "arguments"|"parameters"}` or an array of them, and nothing else; with
/// `require_arguments` an object without either key is not a call.
fn json_calls(text: &str, require_arguments: bool) -> Option<Vec<TextCall>> {
    let call = |value: &Value| {
        let value = unwrap_function(value);
        let has_arguments = value.get("arguments").or_else(|| value.get("parameters")).is_some();
        if require_arguments && !has_arguments { None } else { call_from_json(value) }
    };
    match serde_json::from_str::<Value>(text).ok()? {
        Value::Array(items) => items.iter().map(call).collect(),
        object => Some(vec![call(&object)?]),
    }
}

/// One call object, bare or in the API's `function` wrapper. Arguments must be an object, or a
/// string holding one (some templates double-encode); absent arguments mean `{}`.
fn call_from_json(value: &Value) -> Option<TextCall> {
    let object = unwrap_function(value).as_object()?;
    let name = object.get("name")?.as_str()?.to_string();
    let arguments = object.get("arguments").or_else(|| object.get("parameters"));
    let input = match arguments {
        None | Some(Value::Null) => "{}".to_string(),
        Some(arguments @ Value::Object(_)) => arguments.to_string(),
        Some(Value::String(text)) => {
            serde_json::from_str::<Value>(text).ok().filter(Value::is_object)?;
            text.clone()
        }
        Some(_) => return None,
    };
    Some(TextCall { name, input })
}

/// One or more `<function=NAME>` blocks separated by whitespace.
fn function_calls(text: &str, tools: &ToolNames) -> Option<Vec<TextCall>> {
    let mut calls = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        let after = rest.strip_prefix("<function=")?;
        let (name, after) = after.split_once('>')?;
        if name.is_empty() || !name.chars().all(is_name_char) {
            return None;
        }
        let (body, after) = match after.find("</function>") {
            Some(end) => (&after[..end], &after[end + "</function>".len()..]),
            None => (after, ""), // unterminated at the end of the answer
        };
        calls.push(TextCall { name: name.to_string(), input: parameters(name, body, tools)? });
        rest = after.trim_start();
    }
    Some(calls)
}

/// `<parameter=K>V</parameter>` pairs as a JSON object. Values are text (one newline on each side
/// trimmed, as the Qwen3-coder template writes them); a parameter the schema does not declare a
/// string is read as JSON when it parses (numbers, booleans, arrays).
fn parameters(tool: &str, body: &str, tools: &ToolNames) -> Option<String> {
    let mut object = serde_json::Map::new();
    let mut rest = body.trim();
    while !rest.is_empty() {
        let after = rest.strip_prefix("<parameter=")?;
        let (key, after) = after.split_once('>')?;
        let end = after.find("</parameter>")?;
        let raw = &after[..end];
        let raw = raw.strip_prefix('\n').unwrap_or(raw);
        let raw = raw.strip_suffix('\n').unwrap_or(raw);
        let value = if tools.is_string_parameter(tool, key) {
            Value::String(raw.to_string())
        } else {
            serde_json::from_str(raw.trim()).unwrap_or_else(|_| Value::String(raw.to_string()))
        };
        object.insert(key.to_string(), value);
        rest = after[end + "</parameter>".len()..].trim_start();
    }
    Some(Value::Object(object).to_string())
}

/// Some models copy the API's shape: `{"type": "function", "function": {"name", "arguments"}}`.
fn unwrap_function(value: &Value) -> &Value {
    value.get("function").filter(|function| function.get("name").is_some()).unwrap_or(value)
}

/// `[TOOL_CALLS][{...}, ...]` or one or more `[TOOL_CALLS]name[ARGS]{...}`; returns the bytes used.
fn mistral_calls(segment: &str) -> Option<(Vec<TextCall>, usize)> {
    let mut calls = Vec::new();
    let mut position = 0;
    while let Some(after) = segment[position..].trim_start().strip_prefix("[TOOL_CALLS]") {
        let start = segment.len() - after.len();
        if after.starts_with('[') {
            let (value, used) = first_json(after)?;
            for item in value.as_array()? {
                calls.push(call_from_json(item)?);
            }
            position = start + used;
        } else {
            let name_length = after.find(|character: char| !is_name_char(character)).unwrap_or(after.len());
            let mut arguments_text = &after[name_length..];
            // Newer Mistral templates put the call's id between the name and the arguments.
            if let Some(id_and_rest) = arguments_text.strip_prefix("[CALL_ID]") {
                let id_length = id_and_rest.find(|character: char| !character.is_ascii_alphanumeric());
                arguments_text = &id_and_rest[id_length.unwrap_or(id_and_rest.len())..];
            }
            let arguments_text = arguments_text.strip_prefix("[ARGS]")?;
            let (arguments, used) = first_json(arguments_text)?;
            if !arguments.is_object() || name_length == 0 {
                return None;
            }
            calls.push(TextCall { name: after[..name_length].to_string(), input: arguments.to_string() });
            position = segment.len() - arguments_text.len() + used;
        }
    }
    (!calls.is_empty()).then_some((calls, position))
}

/// The first JSON value at the start of `text` and the bytes it spans.
fn first_json(text: &str) -> Option<(Value, usize)> {
    let mut values = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    let value = values.next()?.ok()?;
    Some((value, values.byte_offset()))
}

fn is_name_char(character: char) -> bool {
    character.is_ascii_alphanumeric() || matches!(character, '_' | '-' | '.' | ':')
}

#[cfg(test)]
#[path = "text_calls_tests.rs"]
mod tests;
