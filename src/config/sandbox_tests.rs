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
            network: Some(NetworkMode::Off),
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
        Err("f.yaml: sandbox: expected a mapping with mode, writable, readable_secrets, network, allow_hosts, \
             allow_git_remotes, allow_registries, unix_sockets, view, limits"
            .into())
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
    let off = SandboxConfig { network: false, network_mode: NetworkMode::Off, ..SandboxConfig::default() };
    let (config, warnings) =
        merged(Level::Project, "{mode: off, writable: [/], readable_secrets: [~/.ssh], network: true}", off.clone());
    assert_eq!(config, off);
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].to_string().contains("mode: off, network: open, writable, readable_secrets"));
    let (config, warnings) = merged(Level::Project, "{mode: required, network: false}", SandboxConfig::default());
    assert_eq!((config.mode, config.network, config.mode_source.as_str()), (SandboxMode::Required, false, "x.yaml"));
    assert_eq!((config.network_mode, config.network_source.as_str()), (NetworkMode::Off, "x.yaml"));
    assert!(config.network_by_project);
    // The user's --config may open it again (it is the user's own file).
    let (config, _) = merged(Level::Invocation, "{network: allowlist}", config);
    assert_eq!((config.network_mode, config.network_by_project), (NetworkMode::Allowlist, false));
    assert!(warnings.is_empty());
    // Restating the current settings is not loosening.
    let (_, warnings) = merged(Level::Project, "{mode: auto, network: allowlist}", SandboxConfig::default());
    assert!(warnings.is_empty(), "{warnings:?}");
}

#[test]
fn network_takes_the_three_modes_and_the_old_booleans() {
    let mode = |yaml: &str| entry(yaml).map(|entry| entry.network);
    assert_eq!(mode("{network: open}"), Ok(Some(NetworkMode::Open)));
    assert_eq!(mode("{network: allowlist}"), Ok(Some(NetworkMode::Allowlist)));
    assert_eq!(mode("{network: 'off'}"), Ok(Some(NetworkMode::Off)));
    assert_eq!(mode("{network: true}"), Ok(Some(NetworkMode::Open)));
    assert_eq!(mode("{network: false}"), Ok(Some(NetworkMode::Off)));
    assert_eq!(mode("{}"), Ok(None));
    assert_eq!(mode("{network: on}"), Err("f.yaml: sandbox.network: expected open|allowlist|off, got \"on\"".into()));
    assert!(mode("{network: 1}").unwrap_err().contains("sandbox.network: expected open|allowlist|off"));
    let flags = entry("{allow_git_remotes: false, allow_registries: true}").unwrap();
    assert_eq!((flags.allow_git_remotes, flags.allow_registries), (Some(false), Some(true)));
    assert!(entry("{allow_registries: yes}").unwrap_err().contains("sandbox.allow_registries: expected true or false"));
    // The default: allowlist, with git remotes and registries, and commands keep their sockets
    // until the proxy enforces the list.
    let config = SandboxConfig::default();
    assert_eq!((config.network_mode, config.network), (NetworkMode::Allowlist, true));
    assert!(config.allow_git_remotes && config.allow_registries && config.allow_hosts.is_empty());
}

#[test]
fn the_socket_switch_follows_the_mode_allowlist_keeping_the_network_for_now() {
    for (yaml, mode, network) in [
        ("{network: open}", NetworkMode::Open, true),
        ("{network: allowlist}", NetworkMode::Allowlist, true),
        ("{network: off}", NetworkMode::Off, false),
        ("{}", NetworkMode::Allowlist, true),
    ] {
        let (config, _) = merged(Level::User, yaml, SandboxConfig::default());
        assert_eq!((config.network_mode, config.network), (mode, network), "{yaml}");
    }
}

#[test]
fn allow_hosts_entries_are_parsed_and_a_bad_one_names_its_key_path() {
    let parsed = entry("{allow_hosts: [API.example.com., '*.example.org', 'git.example.net:22', '::1']}").unwrap();
    let texts: Vec<String> = parsed.allow_hosts.unwrap().iter().map(ToString::to_string).collect();
    assert_eq!(texts, ["api.example.com", "*.example.org", "git.example.net:22", "::1"]);
    assert_eq!(
        entry("{allow_hosts: [ok.example, 'https://x.example/']}"),
        Err("f.yaml: sandbox.allow_hosts[1]: \"https://x.example/\" is not a host: write the host alone (e.g. \
             api.example.com), not a URL"
            .into())
    );
    assert!(entry("{allow_hosts: ['*']}").unwrap_err().starts_with("f.yaml: sandbox.allow_hosts[0]: "));
    assert!(entry("{allow_hosts: ['*.com']}").unwrap_err().contains("too broad"));
    assert!(entry("{allow_hosts: [1]}").unwrap_err().starts_with("f.yaml: sandbox.allow_hosts[0]: expected a host"));
    assert!(entry("{allow_hosts: x.example}").unwrap_err().starts_with("f.yaml: sandbox.allow_hosts: expected a list"));
    assert_eq!(entry("{allow_hosts: ~}").map(|entry| entry.allow_hosts), Ok(None));
}

fn patterns(config: &SandboxConfig) -> Vec<String> {
    config.allow_hosts.iter().map(|allowed| format!("{} ({})", allowed.pattern, allowed.source)).collect()
}

#[test]
fn the_users_levels_add_hosts_and_a_projects_hosts_are_ignored_with_a_warning() {
    let mut config = SandboxConfig::default();
    let mut warnings = Vec::new();
    for (level, file, yaml) in [
        (Level::User, "config.yaml", "{allow_hosts: [a.example, '*.b.example']}"),
        (Level::Project, ".mewcode.yaml", "{allow_hosts: [a.example, evil.example, 'EVIL2.example.']}"),
        (Level::Invocation, "extra.yaml", "{allow_hosts: [c.example, a.example]}"),
    ] {
        let parsed = entry(yaml).unwrap();
        merge_sandbox(&mut config, parsed, level, file, Path::new("/p"), None, &mut warnings);
    }
    assert_eq!(patterns(&config), ["a.example (config.yaml)", "*.b.example (config.yaml)", "c.example (extra.yaml)"]);
    let texts: Vec<String> = warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        texts,
        [".mewcode.yaml: sandbox: a project can only tighten the sandbox, so allow_hosts \"evil.example\", \
          \"evil2.example\" is ignored (set it in your own config.yaml)"]
    );
}

#[test]
fn a_project_may_narrow_the_network_but_never_open_it() {
    let open = || SandboxConfig { network_mode: NetworkMode::Open, ..SandboxConfig::default() };
    let (config, warnings) = merged(Level::Project, "{network: allowlist}", open());
    assert_eq!((config.network_mode, config.network, warnings.len()), (NetworkMode::Allowlist, true, 0));
    let (config, warnings) = merged(Level::Project, "{network: off}", open());
    assert_eq!((config.network_mode, config.network, warnings.len()), (NetworkMode::Off, false, 0));
    let (config, warnings) = merged(Level::Project, "{network: open}", open());
    assert_eq!((config.network_mode, warnings.len()), (NetworkMode::Open, 0), "restating is not loosening");
    let (config, warnings) = merged(Level::Project, "{network: open}", SandboxConfig::default());
    assert_eq!(config.network_mode, NetworkMode::Allowlist);
    assert!(warnings[0].to_string().contains("so network: open is ignored"), "{warnings:?}");
    let off = SandboxConfig { network_mode: NetworkMode::Off, network: false, ..SandboxConfig::default() };
    let (config, warnings) = merged(Level::Project, "{network: allowlist}", off);
    assert_eq!((config.network_mode, config.network), (NetworkMode::Off, false));
    assert!(warnings[0].to_string().contains("so network: allowlist is ignored"), "{warnings:?}");
    // The old `network: true` of a project is `open`: ignored under the default allowlist.
    let (config, warnings) = merged(Level::Project, "{network: true}", SandboxConfig::default());
    assert_eq!((config.network_mode, config.network), (NetworkMode::Allowlist, true));
    assert!(warnings[0].to_string().contains("network: open"));
    // The user's levels set any mode, looser too.
    let (config, warnings) = merged(Level::User, "{network: open}", SandboxConfig::default());
    assert_eq!((config.network_mode, config.network_source.as_str(), warnings.len()), (NetworkMode::Open, "x.yaml", 0));
}

#[test]
fn a_project_may_turn_off_git_remotes_and_registries_but_not_back_on() {
    let (config, warnings) =
        merged(Level::Project, "{allow_git_remotes: false, allow_registries: false}", SandboxConfig::default());
    assert!(!config.allow_git_remotes && !config.allow_registries && warnings.is_empty());
    let (config, warnings) = merged(Level::Project, "{allow_git_remotes: true, allow_registries: true}", config);
    assert!(!config.allow_git_remotes && !config.allow_registries);
    assert!(warnings[0].to_string().contains("allow_git_remotes: true, allow_registries: true is ignored"));
    let (_, warnings) =
        merged(Level::Project, "{allow_git_remotes: true, allow_registries: true}", SandboxConfig::default());
    assert!(warnings.is_empty(), "restating the default: {warnings:?}");
    let (config, _) = merged(Level::User, "{allow_git_remotes: false}", SandboxConfig::default());
    let (config, _) = merged(Level::Invocation, "{allow_git_remotes: true}", config);
    assert!(config.allow_git_remotes, "a user's level may turn them back on");
}
