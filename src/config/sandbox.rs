//! The `sandbox:` key: how commands are confined (`mode: auto|required|off`, `writable`,
//! `readable_secrets`, `network: open|allowlist|off`, `allow_hosts`, `allow_git_remotes`,
//! `allow_registries`, `unix_sockets`, `view`, `limits`), parsed from one file and merged across
//! levels.
//!
//! Invariant: a project's own file can only tighten the sandbox (`mode: required`,
//! `network: allowlist|off`, `allow_git_remotes: false`, `allow_registries: false`, lower
//! `limits`); anything that would loosen it there (`network: open`, hosts of its own) is ignored
//! with a warning, because a cloned repository must not be able to turn off the protection
//! against itself. The user's levels add their `allow_hosts` to one another's. A value that does
//! not parse is an error, not a warning: a typo in `mode` must not silently mean "on" or "off".

use super::Level;
use super::error::ConfigError;
use super::hosts::HostPattern;
use crate::warning::Warning;
use serde_yaml::{Mapping, Value};
use std::path::{Path, PathBuf};

/// Whether commands are confined.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SandboxMode {
    /// Confined where the kernel supports it; said aloud where it does not.
    #[default]
    Auto,
    /// Confined, or the command does not run.
    Required,
    /// Not confined (only an explicit `mode: off` gets here).
    Off,
}

impl SandboxMode {
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::Auto => "auto",
            SandboxMode::Required => "required",
            SandboxMode::Off => "off",
        }
    }
}

/// What commands may reach on the network (`sandbox.network`), loosest first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum NetworkMode {
    /// Any host (the old `network: true`).
    Open,
    /// The allowed hosts; any other is asked about (`permission::hosts`).
    #[default]
    Allowlist,
    /// No host at all (the old `network: false`).
    Off,
}

impl NetworkMode {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            NetworkMode::Open => "open",
            NetworkMode::Allowlist => "allowlist",
            NetworkMode::Off => "off",
        }
    }
}

/// One `sandbox.allow_hosts` entry and the file it came from (display form).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AllowedHost {
    pub pattern: HostPattern,
    pub source: String,
}

/// The resolved sandbox settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SandboxConfig {
    pub mode: SandboxMode,
    /// The file that set `mode` (for "off in FILE"), empty for the default.
    pub mode_source: String,
    /// Extra writable paths, absolute.
    pub writable: Vec<PathBuf>,
    /// Secret stores commands may read after all, absolute.
    pub readable_secrets: Vec<PathBuf>,
    /// False: commands get no network sockets. Derived from `network_mode` (`merge_sandbox`).
    pub network: bool,
    /// `sandbox.network`.
    pub network_mode: NetworkMode,
    /// The file that set `network_mode`, empty for the default.
    pub network_source: String,
    /// The project's own file set `network_mode` (so only it can loosen it again).
    pub network_by_project: bool,
    /// `sandbox.allow_hosts` of the user's levels, in the order read.
    pub allow_hosts: Vec<AllowedHost>,
    /// `sandbox.allow_git_remotes`: the hosts of the project's git remotes (as remembered when
    /// it was trusted) are allowed.
    pub allow_git_remotes: bool,
    /// `sandbox.allow_registries`: the reviewed package registries are allowed.
    pub allow_registries: bool,
    /// Unix sockets commands may connect to (then all unix sockets are allowed and these are
    /// bound into the view); empty: no unix socket at all.
    pub unix_sockets: Vec<PathBuf>,
    /// False: no namespace view even where the kernel allows it (Landlock and seccomp only).
    pub view: bool,
    pub limits: SandboxLimits,
}

/// Per-command caps (the view's; without it there are none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SandboxLimits {
    /// Processes and threads at once.
    pub processes: u64,
    /// Memory per command, bytes (a control group where one is writable, and per process the
    /// writable memory); None: three quarters of the machine's memory.
    pub memory: Option<u64>,
    /// Size of each private tmpfs (`/tmp`, `/var/tmp`, `/run`), bytes.
    pub tmp: u64,
    /// Size of the private `/dev/shm`, bytes.
    pub shm: u64,
}

impl Default for SandboxLimits {
    fn default() -> SandboxLimits {
        SandboxLimits { processes: 2048, memory: None, tmp: 1 << 30, shm: 256 << 20 }
    }
}

impl Default for SandboxConfig {
    fn default() -> SandboxConfig {
        SandboxConfig {
            mode: SandboxMode::Auto,
            mode_source: String::new(),
            writable: Vec::new(),
            readable_secrets: Vec::new(),
            network: true,
            network_mode: NetworkMode::Allowlist,
            network_source: String::new(),
            network_by_project: false,
            allow_hosts: Vec::new(),
            allow_git_remotes: true,
            allow_registries: true,
            unix_sockets: Vec::new(),
            view: true,
            limits: SandboxLimits::default(),
        }
    }
}

/// What one file says under `sandbox:` (unset fields are None). Paths are as written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct SandboxEntry {
    pub mode: Option<SandboxMode>,
    pub writable: Option<Vec<String>>,
    pub readable_secrets: Option<Vec<String>>,
    pub network: Option<NetworkMode>,
    pub allow_hosts: Option<Vec<HostPattern>>,
    pub allow_git_remotes: Option<bool>,
    pub allow_registries: Option<bool>,
    pub unix_sockets: Option<Vec<String>>,
    pub view: Option<bool>,
    pub limits: LimitsEntry,
}

/// What one file says under `sandbox.limits:`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct LimitsEntry {
    pub processes: Option<u64>,
    pub memory: Option<u64>,
    pub tmp: Option<u64>,
    pub shm: Option<u64>,
}

const SANDBOX_KEYS: &[&str] = &[
    "mode",
    "writable",
    "readable_secrets",
    "network",
    "allow_hosts",
    "allow_git_remotes",
    "allow_registries",
    "unix_sockets",
    "view",
    "limits",
];
const LIMIT_KEYS: &[&str] = &["processes", "memory", "tmp", "shm"];

/// Parses the value of `sandbox:`; `display` names the file in errors and warnings.
pub(crate) fn parse_sandbox(
    value: &Value,
    display: &str,
    warnings: &mut Vec<Warning>,
) -> Result<SandboxEntry, ConfigError> {
    let error = |key: &str, message: String| ConfigError {
        file: display.to_string(),
        key_path: if key.is_empty() { "sandbox".to_string() } else { format!("sandbox.{key}") },
        message,
    };
    let map: &Mapping = match value {
        Value::Null => return Ok(SandboxEntry::default()),
        Value::Mapping(map) => map,
        Value::String(text) if text == "off" => {
            return Err(error("", "expected a mapping; to turn the sandbox off write `sandbox: {mode: off}`".into()));
        }
        _ => {
            return Err(error("", format!("expected a mapping with {}", SANDBOX_KEYS.join(", "))));
        }
    };
    for key in map.keys() {
        let name = key.as_str().unwrap_or_default();
        if !SANDBOX_KEYS.contains(&name) {
            let message = format!("sandbox.{name}: unknown key (expected {}); ignored", SANDBOX_KEYS.join(", "));
            warnings.push(Warning::new(display, message));
        }
    }
    let mode = match map.get("mode") {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) => Some(match text.as_str() {
            "auto" => SandboxMode::Auto,
            "required" => SandboxMode::Required,
            "off" => SandboxMode::Off,
            other => return Err(error("mode", format!("expected auto|required|off, got {other:?}"))),
        }),
        // YAML 1.1 reads a bare `off` as false.
        Some(Value::Bool(false)) => Some(SandboxMode::Off),
        Some(_) => return Err(error("mode", "expected auto|required|off".into())),
    };
    let flag = |key: &str| match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(flag)) => Ok(Some(*flag)),
        Some(_) => Err(error(key, "expected true or false".into())),
    };
    let network = match map.get("network") {
        None | Some(Value::Null) => None,
        // The booleans of before the allowlist.
        Some(Value::Bool(true)) => Some(NetworkMode::Open),
        Some(Value::Bool(false)) => Some(NetworkMode::Off),
        Some(Value::String(text)) => Some(match text.as_str() {
            "open" => NetworkMode::Open,
            "allowlist" => NetworkMode::Allowlist,
            "off" => NetworkMode::Off,
            other => return Err(error("network", format!("expected open|allowlist|off, got {other:?}"))),
        }),
        Some(_) => return Err(error("network", "expected open|allowlist|off".into())),
    };
    let allow_hosts = parse_allow_hosts(map.get("allow_hosts"))
        .map_err(|(at, message)| error(&format!("allow_hosts{at}"), message))?;
    let allow_git_remotes = flag("allow_git_remotes")?;
    let allow_registries = flag("allow_registries")?;
    let view = flag("view")?;
    let limits = match map.get("limits") {
        None | Some(Value::Null) => LimitsEntry::default(),
        Some(Value::Mapping(limits)) => {
            for key in limits.keys() {
                let name = key.as_str().unwrap_or_default();
                if !LIMIT_KEYS.contains(&name) {
                    let message =
                        format!("sandbox.limits.{name}: unknown key (expected {}); ignored", LIMIT_KEYS.join(", "));
                    warnings.push(Warning::new(display, message));
                }
            }
            let size = |key: &str, unit: &str| -> Result<Option<u64>, ConfigError> {
                match limits.get(key) {
                    None | Some(Value::Null) => Ok(None),
                    Some(value) => parse_size(value, unit == "count")
                        .map(Some)
                        .ok_or_else(|| error(&format!("limits.{key}"), format!("expected {unit}, got {value:?}"))),
                }
            };
            LimitsEntry {
                processes: size("processes", "count")?,
                memory: size("memory", "a size such as 4G or 512M")?,
                tmp: size("tmp", "a size such as 4G or 512M")?,
                shm: size("shm", "a size such as 4G or 512M")?,
            }
        }
        Some(_) => return Err(error("limits", "expected a mapping with processes, memory, tmp, shm".into())),
    };
    let list = |key: &str| -> Result<Option<Vec<String>>, ConfigError> {
        match map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Sequence(items)) => items
                .iter()
                .map(|item| match item {
                    Value::String(text) if !text.trim().is_empty() => Ok(text.clone()),
                    _ => Err(error(key, "expected a list of paths".into())),
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Some(_) => Err(error(key, "expected a list of paths".into())),
        }
    };
    Ok(SandboxEntry {
        mode,
        writable: list("writable")?,
        readable_secrets: list("readable_secrets")?,
        network,
        allow_hosts,
        allow_git_remotes,
        allow_registries,
        unix_sockets: list("unix_sockets")?,
        view,
        limits,
    })
}

/// The value of an `allow_hosts` key (of a config or a settings file): a list of host
/// entries. The error is the index suffix of the key path (`[2]`, or empty) and the message.
pub(crate) fn parse_allow_hosts(value: Option<&Value>) -> Result<Option<Vec<HostPattern>>, (String, String)> {
    let items = match value {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Sequence(items)) => items,
        Some(_) => {
            return Err((String::new(), "expected a list of hosts, e.g. [api.example.com, \"*.example.org\"]".into()));
        }
    };
    let mut patterns = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let Value::String(text) = item else {
            return Err((format!("[{index}]"), "expected a host such as api.example.com or \"*.example.org\"".into()));
        };
        patterns.push(HostPattern::parse(text).map_err(|message| (format!("[{index}]"), message))?);
    }
    Ok(Some(patterns))
}

/// A positive count, or a size in bytes with an optional K/M/G/T suffix (powers of 1024).
fn parse_size(value: &Value, count: bool) -> Option<u64> {
    let (number, unit) = match value {
        Value::Number(number) => (number.as_u64()?, 1),
        Value::String(text) if !count => {
            let text = text.trim();
            let (digits, unit) = match text.char_indices().last()? {
                (at, 'K' | 'k') => (&text[..at], 1u64 << 10),
                (at, 'M' | 'm') => (&text[..at], 1 << 20),
                (at, 'G' | 'g') => (&text[..at], 1 << 30),
                (at, 'T' | 't') => (&text[..at], 1 << 40),
                _ => (text, 1),
            };
            (digits.trim().parse().ok()?, unit)
        }
        _ => return None,
    };
    number.checked_mul(unit).filter(|bytes| *bytes > 0)
}

/// Applies one file's entry over the settings so far. `dir` resolves relative paths, `home`
/// resolves `~`. A project file only tightens (module doc).
pub(crate) fn merge_sandbox(
    config: &mut SandboxConfig,
    entry: SandboxEntry,
    level: Level,
    display: &str,
    dir: &Path,
    home: Option<&Path>,
    warnings: &mut Vec<Warning>,
) {
    merge_entry(config, entry, level, display, dir, home, warnings);
    // Whether commands may open network sockets at all (seccomp): not under `off`. Under
    // `allowlist` they need them for their own loopback and the bridge; the network namespace
    // and the proxy (`confine::outlet`) decide where they lead.
    config.network = config.network_mode != NetworkMode::Off;
}

fn merge_entry(
    config: &mut SandboxConfig,
    entry: SandboxEntry,
    level: Level,
    display: &str,
    dir: &Path,
    home: Option<&Path>,
    warnings: &mut Vec<Warning>,
) {
    let resolve = |paths: Vec<String>| -> Vec<PathBuf> {
        paths.iter().filter_map(|path| resolve_path(path, dir, home)).collect()
    };
    if level == Level::Project {
        let mut ignored = Vec::new();
        match entry.mode {
            Some(SandboxMode::Required) => {
                config.mode = SandboxMode::Required;
                config.mode_source = display.to_string();
            }
            Some(mode @ (SandboxMode::Off | SandboxMode::Auto)) if mode != config.mode => {
                ignored.push(format!("mode: {}", mode.as_str()));
            }
            _ => {}
        }
        match entry.network {
            Some(mode) if mode > config.network_mode => {
                config.network_mode = mode;
                config.network_source = display.to_string();
                config.network_by_project = true;
            }
            Some(mode) if mode < config.network_mode => ignored.push(format!("network: {}", mode.as_str())),
            _ => {}
        }
        let added: Vec<String> = entry
            .allow_hosts
            .unwrap_or_default()
            .iter()
            .filter(|pattern| !config.allow_hosts.iter().any(|allowed| &allowed.pattern == *pattern))
            .map(|pattern| format!("\"{pattern}\""))
            .collect();
        if !added.is_empty() {
            ignored.push(format!("allow_hosts {}", added.join(", ")));
        }
        match entry.allow_git_remotes {
            Some(false) => config.allow_git_remotes = false,
            Some(true) if !config.allow_git_remotes => ignored.push("allow_git_remotes: true".to_string()),
            _ => {}
        }
        match entry.allow_registries {
            Some(false) => config.allow_registries = false,
            Some(true) if !config.allow_registries => ignored.push("allow_registries: true".to_string()),
            _ => {}
        }
        if entry.writable.is_some_and(|paths| !paths.is_empty()) {
            ignored.push("writable".to_string());
        }
        if entry.readable_secrets.is_some_and(|paths| !paths.is_empty()) {
            ignored.push("readable_secrets".to_string());
        }
        if entry.unix_sockets.is_some_and(|paths| !paths.is_empty()) {
            ignored.push("unix_sockets".to_string());
        }
        if entry.view == Some(false) && config.view {
            ignored.push("view: false".to_string());
        }
        let limits = &mut config.limits;
        let lower = |current: &mut u64, wanted: Option<u64>, name: &str, ignored: &mut Vec<String>| match wanted {
            Some(wanted) if wanted <= *current => *current = wanted,
            Some(_) => ignored.push(format!("a higher limits.{name}")),
            None => {}
        };
        lower(&mut limits.processes, entry.limits.processes, "processes", &mut ignored);
        lower(&mut limits.tmp, entry.limits.tmp, "tmp", &mut ignored);
        lower(&mut limits.shm, entry.limits.shm, "shm", &mut ignored);
        match (entry.limits.memory, limits.memory) {
            (Some(wanted), Some(current)) if wanted > current => ignored.push("a higher limits.memory".to_string()),
            (Some(wanted), _) => limits.memory = Some(wanted),
            (None, _) => {}
        }
        if !ignored.is_empty() {
            let message = format!(
                "sandbox: a project can only tighten the sandbox, so {} is ignored (set it in your own config.yaml)",
                ignored.join(", ")
            );
            warnings.push(Warning::new(display, message));
        }
        return;
    }
    if let Some(mode) = entry.mode {
        config.mode = mode;
        config.mode_source = display.to_string();
    }
    if let Some(mode) = entry.network {
        config.network_mode = mode;
        config.network_source = display.to_string();
        config.network_by_project = false;
    }
    for pattern in entry.allow_hosts.unwrap_or_default() {
        if !config.allow_hosts.iter().any(|allowed| allowed.pattern == pattern) {
            config.allow_hosts.push(AllowedHost { pattern, source: display.to_string() });
        }
    }
    if let Some(allowed) = entry.allow_git_remotes {
        config.allow_git_remotes = allowed;
    }
    if let Some(allowed) = entry.allow_registries {
        config.allow_registries = allowed;
    }
    if let Some(paths) = entry.writable {
        config.writable = resolve(paths);
    }
    if let Some(paths) = entry.readable_secrets {
        config.readable_secrets = resolve(paths);
    }
    if let Some(paths) = entry.unix_sockets {
        config.unix_sockets = resolve(paths);
    }
    if let Some(view) = entry.view {
        config.view = view;
    }
    let LimitsEntry { processes, memory, tmp, shm } = entry.limits;
    let limits = &mut config.limits;
    limits.processes = processes.unwrap_or(limits.processes);
    limits.memory = memory.or(limits.memory);
    limits.tmp = tmp.unwrap_or(limits.tmp);
    limits.shm = shm.unwrap_or(limits.shm);
}

/// `~` and `~/x` through `home`, relative paths against `dir`; None for `~` without a home.
fn resolve_path(path: &str, dir: &Path, home: Option<&Path>) -> Option<PathBuf> {
    if path == "~" {
        return home.map(Path::to_path_buf);
    }
    if let Some(rest) = path.strip_prefix("~/") {
        return home.map(|home| home.join(rest));
    }
    Some(dir.join(path))
}

#[cfg(test)]
#[path = "sandbox_tests.rs"]
mod tests;
