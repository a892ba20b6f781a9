//! Unit tests of `expand.rs`: `${VAR}` expansion cases and the values it touches.

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
