//! Unit tests of `settings.rs`: configured headers and extra body keys, reserved keys refused.

use super::*;

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter().map(|(name, value)| (name.to_string(), value.to_string())).collect()
}

#[test]
fn configured_headers_follow_the_built_in_ones_and_replace_same_names() {
    let built_in = pairs(&[("accept", "text/event-stream"), ("authorization", "Bearer k")]);
    let configured = pairs(&[("Authorization", "Token t"), ("api-key", "az")]);
    assert_eq!(
        merge_headers(built_in, &configured),
        pairs(&[("accept", "text/event-stream"), ("Authorization", "Token t"), ("api-key", "az")])
    );
}

#[test]
fn reserved_keys_in_extra_body_are_never_applied() {
    let mut body = Map::new();
    body.insert("model".to_string(), json!("m"));
    let extra_body = json!({"model": "other", "tools": [], "seed": 7}).as_object().cloned().unwrap_or_default();
    apply_request_settings(&mut body, &RequestSettings { extra_body, ..RequestSettings::default() });
    assert_eq!(Value::Object(body), json!({"model": "m", "seed": 7}));
}
