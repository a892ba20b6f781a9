//! The per-provider request settings every encoder applies last: `temperature`, `top_p` and the
//! `extra_body` merge (both protocols accept the two sampling fields under these names).
//!
//! Invariant: pure; never touches a key mewcode owns (`config::request::RESERVED_BODY_KEYS`,
//! already refused when the config is read — skipped here too so no caller can break a body).

use crate::config::RequestSettings;
use crate::config::request::RESERVED_BODY_KEYS;
use serde_json::{Map, Value, json};

/// Adds the settings to a request body. `extra_body` comes last, so it can set anything else
/// (`max_tokens`, `stop`, a server's own fields) deliberately.
pub(crate) fn apply_request_settings(body: &mut Map<String, Value>, settings: &RequestSettings) {
    if let Some(temperature) = settings.temperature {
        body.insert("temperature".to_string(), json!(temperature));
    }
    if let Some(top_p) = settings.top_p {
        body.insert("top_p".to_string(), json!(top_p));
    }
    for (key, value) in &settings.extra_body {
        if !RESERVED_BODY_KEYS.contains(&key.as_str()) {
            body.insert(key.clone(), value.clone());
        }
    }
}

/// The headers of a request: the built-in ones, then the configured ones, where a configured
/// header replaces a built-in of the same name (case-insensitive).
pub(crate) fn merge_headers(built_in: Vec<(String, String)>, configured: &[(String, String)]) -> Vec<(String, String)> {
    let mut headers: Vec<(String, String)> = built_in
        .into_iter()
        .filter(|(name, _)| !configured.iter().any(|(configured, _)| configured.eq_ignore_ascii_case(name)))
        .collect();
    headers.extend(configured.iter().cloned());
    headers
}

#[cfg(test)]
#[path = "settings_tests.rs"]
mod tests;
