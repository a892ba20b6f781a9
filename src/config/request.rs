//! A provider's request settings — `temperature`, `top_p`, `headers`, `extra_body` — parsed from
//! one config entry.
//!
//! Invariant: pure; a bad type or a reserved `extra_body` key is an error naming the file and the
//! key path. The encoders apply the values (`llm::settings`); nothing here knows a protocol.

use super::error::{ConfigError, FileContext};
use serde_yaml::{Mapping, Value};

/// The body keys mewcode owns: `extra_body` may not set them (the conversation, the model and the
/// streaming mode are what mewcode is; a config that overrode them would break it silently).
pub(crate) const RESERVED_BODY_KEYS: &[&str] = &["model", "messages", "tools", "stream"];

/// Per-provider additions to every request. `Default` adds nothing.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct RequestSettings {
    /// Sampling temperature, sent when set.
    pub temperature: Option<f64>,
    /// Nucleus sampling, sent when set.
    pub top_p: Option<f64>,
    /// Extra HTTP headers (Azure's `api-key`, OpenRouter's `HTTP-Referer`), in file order; one
    /// named like a built-in header (`authorization`) replaces it.
    pub headers: Vec<(String, String)>,
    /// Merged into the top level of the JSON body last (never a `RESERVED_BODY_KEYS` key).
    pub extra_body: serde_json::Map<String, serde_json::Value>,
}

/// Reads the four keys of provider entry `path` (e.g. `providers[0]`).
pub(crate) fn parse_request_settings(
    map: &Mapping,
    path: &str,
    ctx: &FileContext,
) -> Result<RequestSettings, ConfigError> {
    let fail = |key: &str, message: String| ConfigError {
        file: ctx.display.to_string(),
        key_path: format!("{path}.{key}"),
        message,
    };
    let number = |key: &str, max: f64| -> Result<Option<f64>, ConfigError> {
        let value = match map.get(key) {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::Number(number)) => number.as_f64(),
            // A `${VAR}` that expanded to digits arrives as a string.
            Some(Value::String(text)) => text.trim().parse::<f64>().ok(),
            Some(_) => None,
        };
        match value {
            Some(value) if value.is_finite() && (0.0..=max).contains(&value) => Ok(Some(value)),
            _ => Err(fail(key, format!("expected a number from 0 to {max}, got {}", shown(map.get(key))))),
        }
    };
    let temperature = number("temperature", 2.0)?;
    let top_p = number("top_p", 1.0)?;
    let mut headers = Vec::new();
    match map.get("headers") {
        None | Some(Value::Null) => {}
        Some(Value::Mapping(entries)) => {
            for (name, value) in entries {
                let name = match name {
                    Value::String(name) if !name.trim().is_empty() => name.trim().to_string(),
                    other => return Err(fail("headers", format!("expected header names, got {}", shown(Some(other))))),
                };
                let value = match value {
                    Value::String(text) => text.clone(),
                    Value::Number(number) => number.to_string(),
                    other => {
                        return Err(fail(
                            &format!("headers.{name}"),
                            format!("expected a string, got {}", shown(Some(other))),
                        ));
                    }
                };
                headers.push((name, value));
            }
        }
        Some(other) => {
            return Err(fail("headers", format!("expected a map of header: value, got {}", shown(Some(other)))));
        }
    }
    let extra_body = match map.get("extra_body") {
        None | Some(Value::Null) => serde_json::Map::new(),
        Some(value @ Value::Mapping(_)) => match serde_json::to_value(value) {
            Ok(serde_json::Value::Object(object)) => object,
            Ok(_) | Err(_) => return Err(fail("extra_body", "expected a map with string keys".to_string())),
        },
        Some(other) => return Err(fail("extra_body", format!("expected a map, got {}", shown(Some(other))))),
    };
    if let Some(key) = extra_body.keys().find(|key| RESERVED_BODY_KEYS.contains(&key.as_str())) {
        let message =
            format!("mewcode sets {key:?} itself; extra_body may not override {}", RESERVED_BODY_KEYS.join(", "));
        return Err(fail(&format!("extra_body.{key}"), message));
    }
    Ok(RequestSettings { temperature, top_p, headers, extra_body })
}

fn shown(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => "nothing".to_string(),
        Some(Value::String(text)) => format!("{text:?}"),
        Some(Value::Number(number)) => number.to_string(),
        Some(Value::Bool(flag)) => flag.to_string(),
        Some(Value::Sequence(_)) => "a list".to_string(),
        Some(Value::Mapping(_)) => "a map".to_string(),
        Some(Value::Tagged(_)) => "a tagged value".to_string(),
    }
}
