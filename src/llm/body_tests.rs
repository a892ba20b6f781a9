//! Unit tests of `body.rs`: the history bytes land where the placeholder sits.

use super::*;
use serde_json::json;

#[test]
fn the_messages_are_written_where_the_placeholder_sits_and_bytes_match_a_value() {
    let mut fields = Map::new();
    fields.insert("model".to_string(), json!("m"));
    fields.insert(MESSAGES.to_string(), Value::Null);
    fields.insert("temperature".to_string(), json!(0.2));
    let messages = vec![json!({"role": "user", "content": "a \"quoted\"\nline\t\u{1}é"})];
    let mut expected = fields.clone();
    expected.insert(MESSAGES.to_string(), Value::Array(messages.clone()));
    let (bytes, cut) = encode_body(&fields, &messages, 0, Some("temperature"));
    assert_eq!(String::from_utf8(bytes.clone()).unwrap(), Value::Object(expected.clone()).to_string());
    let cut = cut.unwrap();
    let without = [&bytes[..cut.start], &bytes[cut.end..]].concat();
    expected.shift_remove("temperature");
    assert_eq!(String::from_utf8(without).unwrap(), Value::Object(expected).to_string());
}

#[test]
fn an_empty_map_and_a_missing_cut_key() {
    assert_eq!(encode_body(&Map::new(), &Value::Null, 0, Some("x")), (b"{}".to_vec(), None));
}
