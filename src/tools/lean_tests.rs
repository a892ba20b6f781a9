//! Unit tests of the lean form: first sentences, thinned schemas, and every built-in's lean
//! definition against its full one.

use super::*;
use crate::confine::Sandbox;
use crate::tools::Registry;
use serde_json::json;
use std::sync::Arc;

#[test]
fn first_sentence_stops_at_the_first_sentence_or_line() {
    let cases = [
        ("Reads a file. Then more.", "Reads a file."),
        ("Finds files (e.g. **/*.rs, i.e. Rust). Respects .gitignore.", "Finds files (e.g. **/*.rs, i.e. Rust)."),
        ("Runs it\n\nDetails below.", "Runs it"),
        ("  No period at all  ", "No period at all"),
        ("Version 1.5 is out! Yes.", "Version 1.5 is out!"),
        ("", ""),
    ];
    for (text, expected) in cases {
        assert_eq!(first_sentence(text, MAX_LEAN_DESCRIPTION), expected, "{text:?}");
    }
}

#[test]
fn first_sentence_cuts_a_long_one_at_a_word_within_the_limit() {
    let long = "word ".repeat(60);
    let cut = first_sentence(&long, 40);
    assert_eq!(cut, format!("{}...", ["word"; 7].join(" ")));
    assert!(cut.chars().count() <= 40);
    // Characters, not bytes: a non-ASCII description is never cut inside a character.
    let wide = "\u{e9}".repeat(200);
    let cut = first_sentence(&wide, 20);
    assert_eq!(cut.chars().count(), 20);
    assert!(cut.ends_with("..."));
}

#[test]
fn lean_schema_replaces_only_property_descriptions() {
    let full = json!({
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "A long sentence about paths"},
            "limit": {"type": "integer", "minimum": 1, "description": "How many lines"}
        },
        "required": ["path"]
    });
    let lean = lean_schema(full, &[("limit", "max lines")]);
    assert_eq!(
        lean,
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "limit": {"type": "integer", "minimum": 1, "description": "max lines"}
            },
            "required": ["path"]
        })
    );
}

/// `schema` without any property's description.
fn without_descriptions(schema: &serde_json::Value) -> serde_json::Value {
    lean_schema(schema.clone(), &[])
}

#[test]
fn every_builtin_has_a_short_lean_definition_with_the_same_schema() {
    let registry = Registry::with_builtins(Vec::new(), Arc::new(Sandbox::off()), Arc::default());
    let full = registry.definitions();
    let lean = registry.lean_definitions(false, &[]);
    assert_eq!(full.len(), lean.len());
    for (full, lean) in full.iter().zip(&lean) {
        assert_eq!(full.name, lean.name);
        let line = &lean.description;
        assert!(!line.trim().is_empty() && !line.contains('\n'), "{}: {line:?}", lean.name);
        assert!(line.chars().count() <= 100, "{}: {} chars", lean.name, line.chars().count());
        assert!(!line.contains("e.g."), "{}: no examples in a lean description", lean.name);
        assert!(line.len() * 2 < full.description.len(), "{}: not shorter", lean.name);
        // Names, types, bounds, enums and required lists are the same: calls parse the same way.
        assert_eq!(without_descriptions(&full.input_schema), without_descriptions(&lean.input_schema), "{}", lean.name);
        for (name, property) in lean.input_schema["properties"].as_object().unwrap() {
            let hint = property.get("description").and_then(|hint| hint.as_str()).unwrap_or("");
            assert!(hint.split_whitespace().count() <= 4, "{}.{name}: {hint:?}", lean.name);
        }
    }
    let read_only: Vec<String> = registry.lean_definitions(true, &[]).into_iter().map(|tool| tool.name).collect();
    assert_eq!(read_only, ["read_file", "glob", "grep"]);
    let left_out: Vec<String> = registry.lean_definitions(false, &["bash"]).into_iter().map(|tool| tool.name).collect();
    assert!(!left_out.contains(&"bash".to_string()));
    let chars: usize =
        lean.iter().map(|tool| tool.name.len() + tool.description.len() + tool.input_schema.to_string().len()).sum();
    let full_chars: usize =
        full.iter().map(|tool| tool.name.len() + tool.description.len() + tool.input_schema.to_string().len()).sum();
    eprintln!("built-in definitions: lean {chars} chars, full {full_chars} chars");
    assert!(chars * 2 < full_chars, "lean {chars} chars, full {full_chars}");
}
