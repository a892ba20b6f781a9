//! `${VAR}` expansion over a parsed YAML tree, collecting every undefined name.
//!
//! Invariant: only string values are expanded (never keys), each exactly once, left to right;
//! an undefined variable becomes the empty string and is reported, never an error. A value that
//! expands to text containing `${...}` is not expanded again (no recursive injection).

use std::collections::BTreeSet;

/// Looks up an environment variable; passed in so tests never touch the process environment.
pub(crate) type Lookup<'a> = &'a dyn Fn(&str) -> Option<String>;

/// Expands `${NAME}` in one string, adding undefined names to `undefined`.
/// Text that merely looks similar (`$NAME`, `${1X}`, an unclosed `${`) is left as it is.
fn expand_str(text: &str, lookup: Lookup, undefined: &mut BTreeSet<String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after.find('}').filter(|&end| is_var_name(&after[..end])) {
            Some(end) => {
                let name = &after[..end];
                match lookup(name) {
                    Some(value) => out.push_str(&value),
                    None => {
                        undefined.insert(name.to_string());
                    }
                }
                rest = &after[end + 1..];
            }
            None => {
                out.push_str("${");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Expands every string value in the tree in place.
pub(crate) fn expand_tree(value: &mut serde_yaml::Value, lookup: Lookup, undefined: &mut BTreeSet<String>) {
    match value {
        serde_yaml::Value::String(text) => *text = expand_str(text, lookup, undefined),
        serde_yaml::Value::Sequence(items) => {
            for item in items {
                expand_tree(item, lookup, undefined);
            }
        }
        serde_yaml::Value::Mapping(map) => {
            for (_, item) in map.iter_mut() {
                expand_tree(item, lookup, undefined);
            }
        }
        serde_yaml::Value::Tagged(tagged) => expand_tree(&mut tagged.value, lookup, undefined),
        serde_yaml::Value::Null | serde_yaml::Value::Bool(_) | serde_yaml::Value::Number(_) => {}
    }
}

/// `[A-Za-z_][A-Za-z0-9_]*`
fn is_var_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(first) if first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
#[path = "expand_tests.rs"]
mod tests;
