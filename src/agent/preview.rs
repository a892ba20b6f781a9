//! One-line previews of tool arguments and results for the front ends.
//!
//! Invariant: pure and bounded: a preview is at most one line of `MAX_CHARS` characters, whatever
//! the input (it is neutralised for the terminal by the renderer, not here).

use crate::msg::ToolCall;

const MAX_CHARS: usize = 100;

/// The most telling argument of a call (`path`, `command`, `pattern`, ...) or its compact JSON.
pub(crate) fn arguments(call: &ToolCall) -> String {
    let value: Option<serde_json::Value> = serde_json::from_str(&call.input).ok();
    let main = value.as_ref().and_then(|value| {
        ["command", "path", "file_path", "pattern", "url", "query", "description", "prompt"]
            .iter()
            .find_map(|key| value.get(key).and_then(|item| item.as_str()).map(String::from))
    });
    let text = match (main, &value) {
        (Some(text), _) => text,
        (None, Some(value)) => value.to_string(),
        (None, None) => call.input.clone(),
    };
    one_line(&text)
}

/// The first line of a result, with a count of the lines left out.
pub(crate) fn result(content: &str) -> String {
    let mut lines = content.lines().filter(|line| !line.trim().is_empty());
    let first = lines.next().unwrap_or("");
    let rest = lines.count();
    let first = one_line(first);
    if rest == 0 { first } else { format!("{first} (+{rest} lines)") }
}

fn one_line(text: &str) -> String {
    let flat: String = text.chars().map(|c| if c == '\n' || c == '\r' || c == '\t' { ' ' } else { c }).collect();
    let flat = flat.trim();
    if flat.chars().count() <= MAX_CHARS {
        return flat.to_string();
    }
    let cut: String = flat.chars().take(MAX_CHARS - 3).collect();
    format!("{cut}...")
}

#[cfg(test)]
#[path = "preview_tests.rs"]
mod tests;
