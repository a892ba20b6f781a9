//! Unit tests of `sandbox.rs`: parsing the `sandbox:` key and merging it across levels.

use super::*;

fn entry(yaml: &str) -> Result<SandboxEntry, String> {
    let value: Value = serde_yaml::from_str(yaml).unwrap();
    let mut warnings = Vec::new();
    parse_sandbox(&value, "f.yaml", &mut warnings).map_err(|err| err.to_string())
}

#[test]
fn parses_every_key_and_refuses_bad_values() {
    let parsed = entry("{mode: required, writable: [~/.cache, build], readable_secrets: [~/.aws], network: false}");
    assert_eq!(
        parsed,
        Ok(SandboxEntry {
            mode: Some(SandboxMode::Required),
            writable: Some(vec!["~/.cache".into(), "build".into()]),
            readable_secrets: Some(vec!["~/.aws".into()]),
            network: Some(false),
            ..SandboxEntry::default()
        })
    );
    let parsed = entry(
        "{unix_sockets: [/run/x.sock], view: false, limits: {processes: 64, memory: 2G, tmp: 512M, shm: 1048576}}",
    );
    assert_eq!(
        parsed,
        Ok(SandboxEntry {
            unix_sockets: Some(vec!["/run/x.sock".into()]),
            view: Some(false),
            limits: LimitsEntry {
                processes: Some(64),
                memory: Some(2 << 30),
                tmp: Some(512 << 20),
                shm: Some(1 << 20)
            },
            ..SandboxEntry::default()
        })
    );
    assert!(entry("{limits: {processes: 2G}}").unwrap_err().contains("sandbox.limits.processes: expected count"));
    assert!(entry("{limits: {memory: lots}}").unwrap_err().contains("sandbox.limits.memory: expected a size"));
    assert!(entry("{limits: {tmp: 0}}").unwrap_err().contains("sandbox.limits.tmp"));
    assert!(entry("{limits: 5}").unwrap_err().contains("sandbox.limits: expected a mapping"));
    assert!(entry("{view: maybe}").unwrap_err().contains("sandbox.view: expected true or false"));
    assert_eq!(entry("{mode: off}").map(|e| e.mode), Ok(Some(SandboxMode::Off)));
    assert_eq!(entry("{mode: 'off'}").map(|e| e.mode), Ok(Some(SandboxMode::Off)));
    assert_eq!(entry("{mode: auto}").map(|e| e.mode), Ok(Some(SandboxMode::Auto)));
    assert_eq!(entry("{mode: offf}"), Err("f.yaml: sandbox.mode: expected auto|required|off, got \"offf\"".into()));
    assert!(entry("{network: maybe}").unwrap_err().contains("sandbox.network"));
    assert!(entry("{writable: /tmp}").unwrap_err().contains("list of paths"));
    assert!(entry("off").unwrap_err().contains("{mode: off}"));
    assert_eq!(
        entry("yes"),
        Err("f.yaml: sandbox: expected a mapping with mode, writable, readable_secrets, network, unix_sockets, view, limits".into())
    );
    assert!(entry("{writable: ['']}").unwrap_err().contains("sandbox.writable: expected a list of paths"));
    assert!(entry("{readable_secrets: [1]}").unwrap_err().contains("sandbox.readable_secrets"));
    assert_eq!(entry("~"), Ok(SandboxEntry::default()));
}

#[test]
fn unknown_keys_are_warnings_and_known_ones_are_not() {
    let value: Value = serde_yaml::from_str("{mode: auto, network: true, writeable: [x]}").unwrap();
    let mut warnings = Vec::new();
    let parsed = parse_sandbox(&value, "f.yaml", &mut warnings).unwrap();
    assert_eq!(parsed.mode, Some(SandboxMode::Auto));
    let texts: Vec<String> = warnings.iter().map(ToString::to_string).collect();
    assert_eq!(texts.len(), 1, "{texts:?}");
    assert!(texts[0].contains("sandbox.writeable: unknown key"), "{texts:?}");
}

fn merged(level: Level, yaml: &str, start: SandboxConfig) -> (SandboxConfig, Vec<Warning>) {
    let mut config = start;
    let mut warnings = Vec::new();
    let parsed = entry(yaml).unwrap();
    merge_sandbox(&mut config, parsed, level, "x.yaml", Path::new("/p"), Some(Path::new("/h")), &mut warnings);
    (config, warnings)
}

#[test]
fn the_user_level_sets_anything_and_resolves_paths() {
    let (config, warnings) = merged(
        Level::User,
        "{mode: off, writable: [~/.cache, rel], readable_secrets: ['~']}",
        SandboxConfig::default(),
    );
    assert_eq!(config.mode, SandboxMode::Off);
    assert_eq!(config.mode_source, "x.yaml");
    assert_eq!(config.writable, vec![PathBuf::from("/h/.cache"), PathBuf::from("/p/rel")]);
    assert_eq!(config.readable_secrets, vec![PathBuf::from("/h")]);
    assert!(warnings.is_empty());
}

#[test]
fn limits_and_sockets_merge_and_a_project_may_only_lower_limits() {
    let (config, _) = merged(
        Level::User,
        "{unix_sockets: [~/s.sock], view: false, limits: {processes: 100, memory: 1G}}",
        SandboxConfig::default(),
    );
    assert_eq!(config.unix_sockets, vec![PathBuf::from("/h/s.sock")]);
    assert!(!config.view);
    assert_eq!(config.limits, SandboxLimits { processes: 100, memory: Some(1 << 30), ..SandboxLimits::default() });
    let (config, warnings) = merged(
        Level::Project,
        "{unix_sockets: [/s], view: false, limits: {processes: 50, memory: 2G, tmp: 2G, shm: 1M}}",
        config,
    );
    assert_eq!(config.limits, SandboxLimits { processes: 50, memory: Some(1 << 30), tmp: 1 << 30, shm: 1 << 20 });
    assert!(config.unix_sockets == vec![PathBuf::from("/h/s.sock")] && !config.view);
    let text = warnings[0].to_string();
    assert!(text.contains("unix_sockets, a higher limits.tmp, a higher limits.memory"), "{text}");
    assert!(!text.contains("view"), "view was already off: {text}");
    let (config, warnings) = merged(Level::Project, "{view: false, limits: {memory: 1G}}", SandboxConfig::default());
    assert!(config.view && config.limits.memory == Some(1 << 30));
    assert!(warnings[0].to_string().contains("view: false"));
}

#[test]
fn a_project_only_tightens() {
    let (config, warnings) = merged(
        Level::Project,
        "{mode: off, writable: [/], readable_secrets: [~/.ssh], network: true}",
        SandboxConfig { network: false, ..SandboxConfig::default() },
    );
    assert_eq!(config, SandboxConfig { network: false, ..SandboxConfig::default() });
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].to_string().contains("mode: off, network: true, writable, readable_secrets"));
    let (config, warnings) = merged(Level::Project, "{mode: required, network: false}", SandboxConfig::default());
    assert_eq!((config.mode, config.network, config.mode_source.as_str()), (SandboxMode::Required, false, "x.yaml"));
    assert!(warnings.is_empty());
    // Restating the current settings is not loosening.
    let (_, warnings) = merged(Level::Project, "{mode: auto, network: true}", SandboxConfig::default());
    assert!(warnings.is_empty(), "{warnings:?}");
}
