//! The lean form of a tool definition, for requests to a small window (`agent::Lean`): a
//! description cut to its first sentence, and a schema whose properties keep a few words of
//! description at most.
//!
//! Invariant: pure, and a lean schema differs from its full schema only in the `description`
//! of its top-level properties: names, types, bounds, enums and the required list stay, so a
//! call written against either parses the same way.

use serde_json::Value;

/// The longest lean description taken from someone else's text (an MCP tool's), in characters.
pub(crate) const MAX_LEAN_DESCRIPTION: usize = 160;

/// The first sentence (or line) of `text`, at most `max_chars` characters: cut at the last space
/// before the limit and marked with `...`. "e.g." and "i.e." do not end a sentence.
pub(crate) fn first_sentence(text: &str, max_chars: usize) -> String {
    let text = text.trim();
    let mut end = text.len();
    let mut previous = None;
    for (index, character) in text.char_indices() {
        if character == '\n' {
            end = index;
            break;
        }
        let next_is_space = text[index + character.len_utf8()..].chars().next().is_none_or(char::is_whitespace);
        if matches!(character, '.' | '!' | '?') && next_is_space && !is_abbreviation(&text[..index], previous) {
            end = index + character.len_utf8();
            break;
        }
        previous = Some(character);
    }
    let sentence = text[..end].trim_end();
    if sentence.chars().count() <= max_chars {
        return sentence.to_string();
    }
    let limit = sentence.char_indices().nth(max_chars.saturating_sub(3)).map_or(sentence.len(), |(index, _)| index);
    let cut = sentence[..limit].rfind(' ').filter(|&space| space > 0).unwrap_or(limit);
    format!("{}...", sentence[..cut].trim_end_matches([' ', ',', ';', ':']))
}

/// True when the period after `before` closes "e.g" or "i.e" rather than a sentence.
fn is_abbreviation(before: &str, previous: Option<char>) -> bool {
    previous.is_some_and(|character| character.is_ascii_alphabetic())
        && ["e.g", "i.e"].iter().any(|abbreviation| before.to_ascii_lowercase().ends_with(abbreviation))
}

/// `full` with every top-level property's `description` replaced by its hint in `hints` (a few
/// words), or removed when it has none.
pub(crate) fn lean_schema(full: Value, hints: &[(&str, &str)]) -> Value {
    let mut schema = full;
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            let Value::Object(property) = property else { continue };
            property.remove("description");
            if let Some((_, hint)) = hints.iter().find(|(key, _)| key == name) {
                property.insert("description".to_string(), Value::String(hint.to_string()));
            }
        }
    }
    schema
}

#[cfg(test)]
#[path = "lean_tests.rs"]
mod tests;
