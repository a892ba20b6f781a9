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
mod tests {
    use super::*;

    fn check(input: &str, expected: &str, expected_undefined: &[&str]) {
        let lookup = |name: &str| match name {
            "HOME_DIR" => Some("/home/u".to_string()),
            "TOKEN" => Some("s3cret".to_string()),
            "EMPTY" => Some(String::new()),
            "NESTED" => Some("${TOKEN}".to_string()),
            _ => None,
        };
        let mut undefined = BTreeSet::new();
        assert_eq!(expand_str(input, &lookup, &mut undefined), expected, "input {input:?}");
        let undefined: Vec<&str> = undefined.iter().map(String::as_str).collect();
        assert_eq!(undefined, expected_undefined, "input {input:?}");
    }

    #[test]
    fn expansion_cases() {
        check("plain", "plain", &[]);
        check("${TOKEN}", "s3cret", &[]);
        check("Bearer ${TOKEN}!", "Bearer s3cret!", &[]);
        check("${HOME_DIR}/x/${TOKEN}", "/home/u/x/s3cret", &[]);
        check("${EMPTY}", "", &[]);
        check("${MISSING}", "", &["MISSING"]);
        check("a${MISSING}b${OTHER}c${MISSING}", "abc", &["MISSING", "OTHER"]);
        check("$TOKEN", "$TOKEN", &[]);
        check("${1BAD}", "${1BAD}", &[]);
        check("${unclosed", "${unclosed", &[]);
        check("${}", "${}", &[]);
        check("${_under_score9}", "", &["_under_score9"]);
        check("${NESTED}", "${TOKEN}", &[]);
        check("${${TOKEN}}", "${s3cret}", &[]);
        check("ünï ${TOKEN} ✓", "ünï s3cret ✓", &[]);
    }

    #[test]
    fn tree_expansion_touches_values_not_keys() {
        let mut value: serde_yaml::Value =
            serde_yaml::from_str("${KEY}: ${TOKEN}\nlist: [\"${TOKEN}\", 3, true]\n").unwrap();
        let lookup = |name: &str| (name == "TOKEN").then(|| "t".to_string());
        let mut undefined = BTreeSet::new();
        expand_tree(&mut value, &lookup, &mut undefined);
        let expected: serde_yaml::Value = serde_yaml::from_str("${KEY}: t\nlist: [t, 3, true]\n").unwrap();
        assert_eq!(value, expected);
        assert!(undefined.is_empty());
    }
}
