//! Typed reads of one YAML value of a config file: optional strings, numbers and switches, the
//! names of a value's kind for messages, and the warning for an unknown key.
//!
//! Invariant: pure, and a value of the wrong type is an error (or, for the `String` readers, an
//! `Err` message) that names its key path; an absent or null key is `None`, never a default.
//! Nothing here knows which keys a config file has.

use super::error::{ConfigError, FileContext, error};
use crate::warning::Warning;
use serde_yaml::{Mapping, Value};

pub(super) fn warn_unknown_keys(
    map: &Mapping,
    known: &[&str],
    path: &str,
    ctx: &FileContext,
    warnings: &mut Vec<Warning>,
) {
    for key in map.keys() {
        let key = scalar_text(key);
        if !known.contains(&key.as_str()) {
            let at = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
            warnings
                .push(Warning::new(ctx.display, format!("{at}: unknown key; ignored (known: {})", known.join(", "))));
        }
    }
}

pub(super) fn opt_string(
    map: &Mapping,
    key: &str,
    path: &str,
    ctx: &FileContext,
) -> Result<Option<String>, ConfigError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(Value::Number(number)) => Ok(Some(number.to_string())),
        Some(other) => Err(error(ctx, &join(path, key), format!("expected a string, got {}", kind(other)))),
    }
}

pub(super) fn opt_u64(map: &Mapping, key: &str, path: &str, ctx: &FileContext) -> Result<Option<u64>, ConfigError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(number)) if number.as_u64().is_some() => Ok(number.as_u64()),
        // A `${VAR}` that expanded to digits arrives as a string.
        Some(Value::String(text)) if text.trim().parse::<u64>().is_ok() => Ok(text.trim().parse().ok()),
        Some(Value::String(text)) if text.trim().is_empty() => Ok(None),
        Some(other) => {
            Err(error(ctx, &join(path, key), format!("expected a whole number >= 0, got {}", describe(other))))
        }
    }
}

pub(super) fn opt_f64(map: &Mapping, key: &str, path: &str, ctx: &FileContext) -> Result<Option<f64>, ConfigError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(number)) => Ok(number.as_f64()),
        Some(Value::String(text)) if text.trim().parse::<f64>().is_ok() => Ok(text.trim().parse().ok()),
        Some(other) => Err(error(ctx, &join(path, key), format!("expected a number, got {}", describe(other)))),
    }
}

pub(super) fn opt_bool(map: &Mapping, key: &str, path: &str, ctx: &FileContext) -> Result<Option<bool>, ConfigError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(flag)) => Ok(Some(*flag)),
        Some(Value::String(text)) if text == "true" || text == "false" => Ok(Some(text == "true")),
        Some(other) => Err(error(ctx, &join(path, key), format!("expected true or false, got {}", describe(other)))),
    }
}

pub(super) fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Number(number) => number.to_string(),
        Value::Bool(flag) => flag.to_string(),
        Value::Null => String::new(),
        other => kind(other).to_string(),
    }
}

pub(super) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "nothing",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Sequence(_) => "a list",
        Value::Mapping(_) => "a mapping",
        Value::Tagged(_) => "a tagged value",
    }
}

pub(super) fn describe(value: &Value) -> String {
    match value {
        Value::String(text) => format!("{text:?}"),
        Value::Number(number) => number.to_string(),
        Value::Bool(flag) => flag.to_string(),
        other => kind(other).to_string(),
    }
}

pub(super) fn join(path: &str, key: &str) -> String {
    if path.is_empty() { key.to_string() } else { format!("{path}.{key}") }
}
