//! Unit tests of the `lean_below` / `lean_tools` keys: values, errors, merge.

use super::*;
use std::path::Path;

fn parse(yaml: &str) -> Result<LeanEntry, String> {
    let map: Mapping = serde_yaml::from_str(yaml).unwrap();
    let ctx = FileContext { display: "config.yaml", dir: Path::new("/"), lookup: None };
    parse_lean(&map, &ctx).map_err(|err| err.to_string())
}

#[test]
fn lean_keys_read_a_window_and_optional_tools() {
    assert_eq!(parse("other: 1\n"), Ok(LeanEntry::default()));
    assert_eq!(
        parse("lean_below: 8192\nlean_tools: [task]\n"),
        Ok(LeanEntry { below: Some(8192), tools: Some(vec!["task".to_string()]) })
    );
    assert_eq!(parse("lean_below: 0\nlean_tools: []\n"), Ok(LeanEntry { below: Some(0), tools: Some(Vec::new()) }));
}

#[test]
fn lean_keys_refuse_bad_values_naming_the_key() {
    let cases = [
        ("lean_below: small\n", "config.yaml: lean_below: expected a whole number >= 0, got \"small\""),
        ("lean_below: -1\n", "config.yaml: lean_below: expected a whole number >= 0, got -1"),
        (
            "lean_tools: [bash]\n",
            "config.yaml: lean_tools[0]: \"bash\" is not an optional tool; the tools a lean request may leave out are: task, job",
        ),
        ("lean_tools: task\n", "config.yaml: lean_tools: expected a list of tool names such as [task], got a string"),
    ];
    for (yaml, expected) in cases {
        assert_eq!(parse(yaml).unwrap_err(), expected, "{yaml}");
    }
}

#[test]
fn a_higher_level_replaces_only_the_keys_it_sets() {
    let mut config = LeanConfig::default();
    assert_eq!(config, LeanConfig { below: 16_384, tools: Vec::new() });
    LeanEntry { below: Some(4096), tools: Some(vec!["task".into()]) }.apply(&mut config);
    LeanEntry { below: Some(0), tools: None }.apply(&mut config);
    assert_eq!(config, LeanConfig { below: 0, tools: vec!["task".to_string()] });
}
