//! One-line previews of a call's arguments and of its result.

use super::*;

fn call(input: &str) -> ToolCall {
    ToolCall { id: "1".into(), name: "x".into(), input: input.into() }
}

#[test]
fn argument_previews() {
    assert_eq!(arguments(&call(r#"{"path":"src/main.rs","offset":3}"#)), "src/main.rs");
    assert_eq!(arguments(&call(r#"{"command":"cargo test\n--all"}"#)), "cargo test --all");
    assert_eq!(arguments(&call(r#"{"n":1}"#)), r#"{"n":1}"#);
    assert_eq!(arguments(&call("not json")), "not json");
    assert_eq!(arguments(&call(&format!(r#"{{"path":"{}"}}"#, "a".repeat(300)))).chars().count(), MAX_CHARS);
}

#[test]
fn result_previews() {
    assert_eq!(result("one line"), "one line");
    assert_eq!(result("\nfirst\nsecond\nthird\n"), "first (+2 lines)");
    assert_eq!(result(""), "");
}
