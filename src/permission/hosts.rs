//! The network policy for commands: whether a command may reach a host, decided from
//! `sandbox.network`, the allowed hosts, the project's git remotes, the reviewed package
//! registries and what the person allowed this session.
//!
//! Invariant: pure (no IO, no clock). `open` allows every host and `off` refuses every host;
//! `allowlist` allows a host a configured entry matches, a registry of [`REGISTRIES`] (on ports
//! 80 and 443 only), a remembered git remote host or a host the person allowed this session, and
//! asks about any other. An IP address never matches a name (`config::hosts`), and this machine
//! (`localhost`, loopback) is allowed only by an entry or an answer that names it: a command
//! reaching a local service is the unix-socket/tmux class of escape. Every refusal and every
//! question names the host and the exact setting that would allow it.
//!
//! What it does not do: enforce anything (the command proxy asks it per connection), ask the
//! person (the front end turns `Ask` into a question in the REPL and a refusal in `-p`), or read
//! any file (the caller brings the configuration, the local settings' hosts and the remembered
//! remotes).

use crate::config::hosts::Host;
use crate::config::sandbox::AllowedHost;
use crate::config::{NetworkMode, SandboxConfig};
use std::collections::BTreeSet;

/// The package registries `allowlist` lets commands reach by default
/// (`sandbox.allow_registries`), reviewed one by one: each serves packages for download, and
/// none is a general file host. (What a registry still accepts: a package published with an
/// account's token, which is why `allow_registries: false` exists.)
const REGISTRIES: &[(&str, &str)] = &[
    // npm: the registry and its tarballs; yarn classic's mirror of it.
    ("npm", "registry.npmjs.org"),
    ("npm", "registry.yarnpkg.com"),
    // PyPI: the index (`/simple`) and the files it links to.
    ("PyPI", "pypi.org"),
    ("PyPI", "files.pythonhosted.org"),
    // crates.io: the API, the sparse index and the crate downloads.
    ("crates.io", "crates.io"),
    ("crates.io", "index.crates.io"),
    ("crates.io", "static.crates.io"),
    // Go: the module proxy and the checksum database `go` checks every module against. Not
    // storage.googleapis.com, although the proxy redirects module zips there: it is all of Google
    // Cloud Storage, where anyone's bucket accepts uploads, so it is asked about like any host.
    ("Go", "proxy.golang.org"),
    ("Go", "sum.golang.org"),
    // Maven Central.
    ("Maven Central", "repo.maven.apache.org"),
    ("Maven Central", "repo1.maven.org"),
    // RubyGems: the API and the compact index.
    ("RubyGems", "rubygems.org"),
    ("RubyGems", "index.rubygems.org"),
    // Debian and Ubuntu archives (apt, often over plain HTTP: hence port 80 too).
    ("Debian", "deb.debian.org"),
    ("Debian", "security.debian.org"),
    ("Ubuntu", "archive.ubuntu.com"),
    ("Ubuntu", "security.ubuntu.com"),
    ("Ubuntu", "ports.ubuntu.com"),
];

/// The ports a registry is reached on: HTTP and HTTPS.
const REGISTRY_PORTS: [u16; 2] = [80, 443];

/// Everything the decision needs, built once at start-up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct HostPolicy {
    mode: NetworkMode,
    /// The file that set the mode, empty for the default.
    mode_source: String,
    /// The project's own file set the mode.
    mode_by_project: bool,
    /// `sandbox.allow_hosts` of the user's config files, then of the local settings file.
    allowed: Vec<AllowedHost>,
    /// The remembered git remote hosts but this machine's; empty when `allow_git_remotes` is off.
    git_remotes: Vec<Host>,
    allow_git_remotes: bool,
    registries: bool,
    /// Where the person adds a host, as the messages name it (`~/.mewcode/config.yaml`).
    user_config: String,
}

impl HostPolicy {
    /// The policy of `sandbox` (the merged config), with the hosts of the local settings file
    /// (only when it carries this installation's mark: `permission::store`), the project's
    /// remembered git remote hosts (`config::trust`), and the user's config file as messages
    /// should name it.
    pub(crate) fn new(
        sandbox: &SandboxConfig,
        local_hosts: Vec<AllowedHost>,
        git_remotes: Vec<Host>,
        user_config: &str,
    ) -> HostPolicy {
        let mut allowed = sandbox.allow_hosts.clone();
        for host in local_hosts {
            if !allowed.iter().any(|present| present.pattern == host.pattern) {
                allowed.push(host);
            }
        }
        HostPolicy {
            mode: sandbox.network_mode,
            mode_source: sandbox.network_source.clone(),
            mode_by_project: sandbox.network_by_project,
            allowed,
            // A remote on this machine is a local service like any other: it asks.
            git_remotes: if sandbox.allow_git_remotes {
                git_remotes.into_iter().filter(|host| !host.is_local()).collect()
            } else {
                Vec::new()
            },
            allow_git_remotes: sandbox.allow_git_remotes,
            registries: sandbox.allow_registries,
            user_config: user_config.to_string(),
        }
    }
}

/// The hosts the person allowed for this session (`y`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct SessionGrants {
    hosts: BTreeSet<Host>,
}

impl SessionGrants {
    /// Allows `host` (any port) for the rest of the session; false when it is no host.
    pub(crate) fn grant(&mut self, host: &str) -> bool {
        Host::parse(host).is_some_and(|host| {
            self.hosts.insert(host);
            true
        })
    }
}

/// What a command's connection to a host comes to. Each reason names the host; `Ask` and
/// `Deny` name the setting that would allow it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum HostVerdict {
    Allow(String),
    Ask(String),
    Deny(String),
}

/// Whether a command may reach `target_host` on `port` (module doc).
pub(crate) fn decide(target_host: &str, port: u16, policy: &HostPolicy, grants: &SessionGrants) -> HostVerdict {
    let Some(host) = Host::parse(target_host) else {
        return HostVerdict::Deny(format!("{target_host:?} is not a host name or an IP address"));
    };
    let setting = format!("add \"{host}\" to sandbox.allow_hosts in {}", policy.user_config);
    let endpoint = match &host {
        Host::Ip(std::net::IpAddr::V6(ip)) => format!("[{ip}]:{port}"),
        host => format!("{host}:{port}"),
    };
    match policy.mode {
        NetworkMode::Open => return HostVerdict::Allow(format!("{host}: sandbox.network is open{}", policy.set_in())),
        NetworkMode::Off => {
            let fix = if policy.mode_by_project {
                "the project's own config turned the network off, and only it can turn it back on".to_string()
            } else {
                format!("set sandbox.network: allowlist and {setting}")
            };
            return HostVerdict::Deny(format!("{endpoint} refused: sandbox.network is off{} ({fix})", policy.set_in()));
        }
        NetworkMode::Allowlist => {}
    }
    if let Some(allowed) = policy.allowed.iter().find(|allowed| allowed.pattern.matches(&host, port)) {
        let pattern = &allowed.pattern;
        return HostVerdict::Allow(format!(
            "{host}: matches \"{pattern}\" in sandbox.allow_hosts ({})",
            allowed.source
        ));
    }
    if grants.hosts.contains(&host) {
        return HostVerdict::Allow(format!("{host}: allowed for this session"));
    }
    if policy.registries && REGISTRY_PORTS.contains(&port) {
        let known = REGISTRIES.iter().find(|(_, name)| matches!(&host, Host::Name(host) if host == name));
        if let Some((ecosystem, _)) = known {
            return HostVerdict::Allow(format!("{host}: the {ecosystem} package registry (sandbox.allow_registries)"));
        }
    }
    if policy.git_remotes.contains(&host) {
        return HostVerdict::Allow(format!("{host}: a git remote of the project (sandbox.allow_git_remotes)"));
    }
    let local = if host.is_local() {
        " (it is this machine: a command reaching a local service acts through that service)"
    } else {
        ""
    };
    HostVerdict::Ask(format!("{endpoint} is not allowed for commands{local}; to allow it, {setting}"))
}

impl HostPolicy {
    /// ` (set in FILE)`, or nothing for the default.
    fn set_in(&self) -> String {
        if self.mode_source.is_empty() { String::new() } else { format!(" (set in {})", self.mode_source) }
    }
}

/// The policy in a few lines for `doctor` and `/status`: the mode, then for `allowlist` the
/// hosts allowed (configured, git remotes, registries).
pub(crate) fn describe(policy: &HostPolicy) -> Vec<String> {
    let mode = policy.mode.as_str();
    let set_in = if policy.mode_source.is_empty() { " (default)".to_string() } else { policy.set_in() };
    match policy.mode {
        NetworkMode::Open => return vec![format!("network: {mode}{set_in}: commands reach any host")],
        NetworkMode::Off => return vec![format!("network: {mode}{set_in}: commands reach no host")],
        NetworkMode::Allowlist => {}
    }
    let mut lines = vec![format!("network: {mode}{set_in}: other hosts are asked about (refused in -p)")];
    if policy.allowed.is_empty() {
        lines.push("allowed hosts: none configured (sandbox.allow_hosts)".to_string());
    }
    let mut sources: Vec<&str> = Vec::new();
    for allowed in &policy.allowed {
        if !sources.contains(&allowed.source.as_str()) {
            sources.push(&allowed.source);
        }
    }
    for source in sources {
        let hosts: Vec<String> = policy
            .allowed
            .iter()
            .filter(|allowed| allowed.source == source)
            .map(|allowed| allowed.pattern.to_string())
            .collect();
        lines.push(format!("allowed hosts: {} ({source})", hosts.join(", ")));
    }
    lines.push(match (policy.allow_git_remotes, policy.git_remotes.is_empty()) {
        (false, _) => "git remotes: not allowed (sandbox.allow_git_remotes: false)".to_string(),
        (true, true) => "git remotes: none remembered (they are remembered when you trust the project)".to_string(),
        (true, false) => {
            let hosts: Vec<String> = policy.git_remotes.iter().map(ToString::to_string).collect();
            format!("git remotes: {}", hosts.join(", "))
        }
    });
    lines.push(if policy.registries {
        format!("registries: {} known hosts (sandbox.allow_registries)", REGISTRIES.len())
    } else {
        "registries: not allowed (sandbox.allow_registries: false)".to_string()
    });
    lines
}

#[cfg(test)]
#[path = "hosts_tests.rs"]
mod tests;
