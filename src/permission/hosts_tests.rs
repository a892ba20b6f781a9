//! Unit tests of `hosts.rs`: the decision in each mode, from each source of allowed hosts, and
//! the description.

use super::*;
use crate::config::hosts::HostPattern;

const USER: &str = "~/.mewcode/config.yaml";

fn allowed(patterns: &[&str], source: &str) -> Vec<AllowedHost> {
    patterns
        .iter()
        .map(|text| AllowedHost { pattern: HostPattern::parse(text).unwrap(), source: source.to_string() })
        .collect()
}

fn hosts(names: &[&str]) -> Vec<Host> {
    names.iter().map(|name| Host::parse(name).unwrap()).collect()
}

fn sandbox(mode: NetworkMode, source: &str) -> SandboxConfig {
    SandboxConfig {
        network_mode: mode,
        network_source: source.to_string(),
        allow_hosts: allowed(&["api.example.com", "*.corp.example", "10.0.0.5:8080"], USER),
        ..SandboxConfig::default()
    }
}

fn policy(mode: NetworkMode) -> HostPolicy {
    let local = allowed(&["approved.example.net"], ".mewcode/settings.local.yaml");
    HostPolicy::new(&sandbox(mode, ""), local, hosts(&["github.com", "localhost"]), USER)
}

fn verdict(host: &str, port: u16, policy: &HostPolicy) -> HostVerdict {
    decide(host, port, policy, &SessionGrants::default())
}

fn allows(host: &str, port: u16, policy: &HostPolicy) -> String {
    match verdict(host, port, policy) {
        HostVerdict::Allow(why) => why,
        other => panic!("{host}:{port}: {other:?}"),
    }
}

fn asks(host: &str, port: u16, policy: &HostPolicy) -> String {
    match verdict(host, port, policy) {
        HostVerdict::Ask(why) => why,
        other => panic!("{host}:{port}: {other:?}"),
    }
}

#[test]
fn open_allows_every_host_and_off_refuses_every_host() {
    let open = policy(NetworkMode::Open);
    for host in ["attacker.example", "127.0.0.1", "localhost", "api.example.com"] {
        assert!(allows(host, 443, &open).contains("sandbox.network is open"), "{host}");
    }
    let off = policy(NetworkMode::Off);
    for host in ["api.example.com", "registry.npmjs.org", "github.com", "attacker.example"] {
        let HostVerdict::Deny(why) = verdict(host, 443, &off) else { panic!("{host}") };
        assert!(why.contains(host) && why.contains("sandbox.network is off"), "{why}");
        assert!(
            why.contains(&format!(
                "set sandbox.network: allowlist and add \"{host}\" to sandbox.allow_hosts in {USER}"
            )),
            "{why}"
        );
    }
    // Set off by the project: the user's config cannot turn it back on, and the message says so.
    let by_project = SandboxConfig { network_by_project: true, ..sandbox(NetworkMode::Off, ".mewcode.yaml") };
    let project_off = HostPolicy::new(&by_project, Vec::new(), Vec::new(), USER);
    let HostVerdict::Deny(why) = verdict("api.example.com", 443, &project_off) else { panic!() };
    assert!(why.contains("(set in .mewcode.yaml)") && why.contains("the project's own config turned"), "{why}");
    assert!(!why.contains("allow_hosts"), "no advice the project would override: {why}");
    // Set off in the user's own file (named however the loader displays it): the fix is there.
    let user_off =
        HostPolicy::new(&sandbox(NetworkMode::Off, "/home/u/.mewcode/config.yaml"), Vec::new(), Vec::new(), USER);
    let HostVerdict::Deny(why) = verdict("api.example.com", 443, &user_off) else { panic!() };
    assert_eq!(
        why,
        format!(
            "api.example.com:443 refused: sandbox.network is off (set in /home/u/.mewcode/config.yaml) (set \
             sandbox.network: allowlist and add \"api.example.com\" to sandbox.allow_hosts in {USER})"
        )
    );
}

#[test]
fn allowlist_allows_configured_hosts_and_names_the_entry() {
    let policy = policy(NetworkMode::Allowlist);
    let why = allows("API.example.com.", 443, &policy);
    assert_eq!(why, format!("api.example.com: matches \"api.example.com\" in sandbox.allow_hosts ({USER})"));
    assert!(allows("git.corp.example", 22, &policy).contains("\"*.corp.example\""));
    assert!(allows("approved.example.net", 443, &policy).contains(".mewcode/settings.local.yaml"));
    assert!(allows("10.0.0.5", 8080, &policy).contains("10.0.0.5:8080"));
    asks("corp.example", 443, &policy);
    asks("10.0.0.5", 8081, &policy);
    asks("evil-api.example.com", 443, &policy);
}

#[test]
fn allowlist_allows_the_registries_on_web_ports_only() {
    let policy = policy(NetworkMode::Allowlist);
    for (ecosystem, host) in REGISTRIES {
        let why = allows(host, 443, &policy);
        assert!(why.contains(&format!("the {ecosystem} package registry")), "{why}");
    }
    assert!(allows("deb.debian.org", 80, &policy).contains("Debian"));
    asks("registry.npmjs.org", 22, &policy);
    asks("evil.registry.npmjs.org", 443, &policy);
    asks("storage.googleapis.com", 443, &policy);
    asks("objects.githubusercontent.com", 443, &policy);
    let mut config = sandbox(NetworkMode::Allowlist, "");
    config.allow_registries = false;
    let without = HostPolicy::new(&config, Vec::new(), Vec::new(), USER);
    asks("registry.npmjs.org", 443, &without);
}

#[test]
fn allowlist_allows_remembered_git_remotes_but_not_this_machine() {
    let policy = policy(NetworkMode::Allowlist);
    assert!(allows("github.com", 22, &policy).contains("a git remote of the project"));
    asks("gitlab.com", 443, &policy);
    // A remote on this machine is still asked about: a local service is an escape route.
    let why = asks("localhost", 22, &policy);
    assert!(why.contains("it is this machine"), "{why}");
    let mut config = sandbox(NetworkMode::Allowlist, "");
    config.allow_git_remotes = false;
    let without = HostPolicy::new(&config, Vec::new(), hosts(&["github.com"]), USER);
    asks("github.com", 443, &without);
}

#[test]
fn this_machine_and_addresses_ask_unless_listed() {
    let policy = policy(NetworkMode::Allowlist);
    for local in ["localhost", "127.0.0.1", "127.1", "[::1]", "0.0.0.0", "2130706433"] {
        let why = asks(local, 80, &policy);
        assert!(why.contains("it is this machine"), "{why}");
    }
    // An address is never the name it may resolve to, nor a wildcard's subdomain.
    asks("93.184.216.34", 443, &policy);
    let config =
        SandboxConfig { allow_hosts: allowed(&["localhost", "127.0.0.1:8080"], USER), ..SandboxConfig::default() };
    let listed = HostPolicy::new(&config, Vec::new(), Vec::new(), USER);
    allows("localhost", 3000, &listed);
    allows("127.1", 8080, &listed);
    asks("127.0.0.1", 3000, &listed);
    asks("::1", 8080, &listed);
}

#[test]
fn a_question_names_the_host_and_the_setting_that_allows_it() {
    let policy = policy(NetworkMode::Allowlist);
    assert_eq!(
        asks("Attacker.Example", 443, &policy),
        format!(
            "attacker.example:443 is not allowed for commands; to allow it, add \"attacker.example\" to \
             sandbox.allow_hosts in {USER}"
        )
    );
    assert!(asks("[::1]", 8080, &policy).starts_with("[::1]:8080 is not allowed for commands (it is this machine"));
    let HostVerdict::Deny(why) = verdict("not a host", 443, &policy) else { panic!() };
    assert!(why.contains("\"not a host\" is not a host name"), "{why}");
}

#[test]
fn a_host_allowed_for_the_session_passes_on_any_port() {
    let policy = policy(NetworkMode::Allowlist);
    let mut grants = SessionGrants::default();
    assert!(grants.grant("New.Example."));
    assert!(!grants.grant("not a host"));
    for port in [443, 8443] {
        let HostVerdict::Allow(why) = decide("new.example", port, &policy, &grants) else { panic!() };
        assert_eq!(why, "new.example: allowed for this session");
    }
    assert!(matches!(decide("other.example", 443, &policy, &grants), HostVerdict::Ask(_)));
    // A grant never reaches past `off`.
    assert!(matches!(decide("new.example", 443, &self::policy(NetworkMode::Off), &grants), HostVerdict::Deny(_)));
}

#[test]
fn the_description_lists_the_mode_and_every_source() {
    assert_eq!(
        describe(&policy(NetworkMode::Allowlist)),
        [
            "network: allowlist (default): other hosts are asked about (refused in -p)".to_string(),
            format!("allowed hosts: api.example.com, *.corp.example, 10.0.0.5:8080 ({USER})"),
            "allowed hosts: approved.example.net (.mewcode/settings.local.yaml)".to_string(),
            "git remotes: github.com".to_string(),
            format!("registries: {} known hosts (sandbox.allow_registries)", REGISTRIES.len()),
        ]
    );
    let config = SandboxConfig { allow_git_remotes: false, allow_registries: false, ..SandboxConfig::default() };
    assert_eq!(
        describe(&HostPolicy::new(&config, Vec::new(), hosts(&["github.com"]), USER)),
        [
            "network: allowlist (default): other hosts are asked about (refused in -p)",
            "allowed hosts: none configured (sandbox.allow_hosts)",
            "git remotes: not allowed (sandbox.allow_git_remotes: false)",
            "registries: not allowed (sandbox.allow_registries: false)",
        ]
    );
    let none = HostPolicy::new(&SandboxConfig::default(), Vec::new(), Vec::new(), USER);
    assert!(
        describe(&none)
            .contains(&"git remotes: none remembered (they are remembered when you trust the project)".to_string())
    );
    let off = HostPolicy::new(&sandbox(NetworkMode::Off, ".mewcode.yaml"), Vec::new(), Vec::new(), USER);
    assert_eq!(describe(&off), ["network: off (set in .mewcode.yaml): commands reach no host"]);
    let open = HostPolicy::new(&sandbox(NetworkMode::Open, USER), Vec::new(), Vec::new(), USER);
    assert_eq!(describe(&open), [format!("network: open (set in {USER}): commands reach any host")]);
}

#[test]
fn the_registry_table_holds_each_host_once_and_no_general_file_host() {
    let mut names: Vec<&str> = REGISTRIES.iter().map(|(_, host)| *host).collect();
    names.sort_unstable();
    let count = names.len();
    names.dedup();
    assert_eq!(names.len(), count);
    for host in names {
        assert!(matches!(Host::parse(host), Some(Host::Name(_))), "{host}");
    }
}
