//! The OS sandbox for everything mewcode runs on the model's or the user's behalf (bash
//! commands, hooks): writes only under the project root, the session's temp dir and a few device
//! nodes; reads everywhere but the user's secret stores and the terminal devices; optionally no
//! network; no keystroke injection. Linux Landlock + seccomp, installed by `sys::child`.
//!
//! Invariant: the sandbox is on unless the user's own config says `sandbox: {mode: off}`; where
//! the kernel cannot confine, `auto` says so (`Status::Unavailable`) and `required` refuses to
//! run anything. Whatever a command is, it cannot write outside what it may touch: this is the
//! guarantee, the blacklist and rules are only the first, cheap layer with clear reasons.
//! What it does not do: hide secrets inside a writable root (Landlock cannot subtract), confine
//! MCP servers, or filter which hosts a command may reach (the network is all or nothing).

mod denials;
mod rules;
mod tmp;

use crate::config::{SandboxConfig, SandboxMode};
use crate::sync::lock;
use crate::sys::child::Confinement;
use crate::sys::landlock::Ruleset;
use crate::sys::seccomp;
use rules::{Layout, Stamps};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

pub(crate) use rules::DEVICES;
pub(crate) use tmp::SessionTmp;

/// Secret stores under the home directory that commands cannot read unless
/// `sandbox.readable_secrets` names them: keys, tokens and credentials of common tools.
const HOME_SECRETS: [&str; 17] = [
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".config/gh",
    ".kube",
    ".docker/config.json",
    ".netrc",
    ".git-credentials",
    ".pypirc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".password-store",
    ".local/share/keyrings",
    ".vault-token",
    ".terraform.d/credentials.tfrc.json",
];

/// Where the sandbox's paths come from (resolved by the caller; no environment read here).
#[derive(Clone, Debug, Default)]
pub struct Paths {
    pub root: PathBuf,
    /// The user's home directory ($HOME), for the secret stores.
    pub home: Option<PathBuf>,
    /// `$MEWCODE_HOME`: sessions, trust and history; hidden like a secret store.
    pub mewcode_home: Option<PathBuf>,
    /// The session's private temp dir (`$TMPDIR` of commands).
    pub tmp: Option<PathBuf>,
}

/// How commands will run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Confined with this Landlock ABI.
    Confined { abi: u32 },
    /// The kernel cannot confine: the reason.
    Unavailable { reason: String },
    /// Turned off by the user's config (the file that says so).
    Off { source: String },
}

/// The sandbox of one mewcode process, shared by the bash tool and the hooks.
#[derive(Debug)]
pub struct Sandbox {
    config: SandboxConfig,
    paths: Paths,
    status: Status,
    /// The ruleset last built and the directory times it was built from.
    built: Mutex<Option<(Arc<Ruleset>, Stamps)>>,
}

impl Default for Sandbox {
    /// Off: for tests and tools built without a config.
    fn default() -> Sandbox {
        Sandbox::off()
    }
}

impl Sandbox {
    /// The sandbox for `config`, with the Landlock ABI probed from the running kernel.
    pub fn detect(config: SandboxConfig, paths: Paths) -> Sandbox {
        Sandbox::new(config, paths, crate::sys::landlock::abi_version())
    }

    /// The sandbox for `config` given the Landlock ABI (or why there is none).
    pub fn new(config: SandboxConfig, paths: Paths, abi: Result<u32, String>) -> Sandbox {
        let status = match (config.mode, abi) {
            (SandboxMode::Off, _) => Status::Off { source: config.mode_source.clone() },
            (_, Ok(abi)) => Status::Confined { abi },
            (_, Err(reason)) => Status::Unavailable { reason },
        };
        Sandbox { config, paths, status, built: Mutex::new(None) }
    }

    /// An unconfined sandbox (`mode: off`), for tests and tools built without a config.
    pub fn off() -> Sandbox {
        let config = SandboxConfig { mode: SandboxMode::Off, ..SandboxConfig::default() };
        Sandbox::new(config, Paths::default(), Err("off".to_string()))
    }

    pub fn status(&self) -> &Status {
        &self.status
    }

    pub fn mode(&self) -> SandboxMode {
        self.config.mode
    }

    /// True when commands are not confined: the front ends say so in warning colours.
    pub(crate) fn is_degraded(&self) -> bool {
        !matches!(self.status, Status::Confined { .. })
    }

    /// One line for the banner, `doctor` and notices.
    pub fn summary(&self) -> String {
        let network = if self.config.network { "" } else { ", no network" };
        match &self.status {
            Status::Confined { abi } => format!(
                "sandbox on (Landlock ABI {abi}{network}): commands write only in the project and $TMPDIR, and cannot read secret stores"
            ),
            Status::Unavailable { reason } if self.config.mode == SandboxMode::Required => {
                format!("sandbox required but unavailable ({reason}): commands and hooks will not run")
            }
            Status::Unavailable { reason } => {
                format!(
                    "sandbox unavailable ({reason}): commands are NOT confined (only the blacklist and rules apply)"
                )
            }
            Status::Off { source } if source.is_empty() => {
                "sandbox OFF: commands can write anywhere you can".to_string()
            }
            Status::Off { source } => {
                format!("sandbox OFF (sandbox.mode: off in {source}): commands can write anywhere you can")
            }
        }
    }

    /// What the sandbox allows, one line each, for `doctor`.
    pub(crate) fn describe(&self) -> Vec<String> {
        let layout = self.layout();
        let list =
            |paths: &[PathBuf]| paths.iter().map(|path| path.display().to_string()).collect::<Vec<_>>().join(", ");
        vec![
            format!("writable:      {}, {}", list(&layout.writable), DEVICES.join(", ")),
            format!("not readable:  {} (except {})", list(&layout.hidden), DEVICES.join(", ")),
            format!("network:       {}", if self.config.network { "on" } else { "off (unix sockets only)" }),
            "processes:     own session, no terminal; everything a command started is killed when it ends".to_string(),
        ]
    }

    /// The environment a confined command needs on top of its own: the private temp dir.
    pub fn env(&self) -> Vec<(String, String)> {
        let Some(tmp) = &self.paths.tmp else { return Vec::new() };
        let tmp = tmp.display().to_string();
        ["TMPDIR", "TMP", "TEMP"].iter().map(|name| (name.to_string(), tmp.clone())).collect()
    }

    /// The confinement for the next command: None when the sandbox is off, an error (the text the
    /// model reads) when `required` cannot be honoured or the ruleset cannot be built.
    pub fn confinement(&self) -> Result<Option<Confinement>, String> {
        let filter = seccomp::build_filter(self.config.network);
        if filter.is_none() && !self.config.network && self.config.mode != SandboxMode::Off {
            return Err(
                "denied by sandbox: sandbox.network is false but this architecture has no network filter".to_string()
            );
        }
        match &self.status {
            Status::Off { .. } => Ok(None),
            Status::Unavailable { reason } if self.config.mode == SandboxMode::Required => Err(format!(
                "denied by sandbox: sandbox.mode is required but commands cannot be confined here ({reason})"
            )),
            Status::Unavailable { .. } => Ok(Some(Confinement { ruleset: None, filter })),
            Status::Confined { abi } => {
                let ruleset = self.ruleset(*abi).map_err(|err| format!("denied by sandbox: cannot build it: {err}"))?;
                Ok(Some(Confinement { ruleset: Some(ruleset), filter }))
            }
        }
    }

    /// Lines explaining the sandbox denials a command's output reports (empty when unconfined).
    pub(crate) fn explain_denials(&self, output: &str) -> Vec<String> {
        if !matches!(self.status, Status::Confined { .. }) {
            return Vec::new();
        }
        let layout = self.layout();
        let allowed = denials::Allowed {
            writable: &layout.writable,
            hidden: &layout.hidden,
            devices: &layout.devices,
            cwd: &self.paths.root,
        };
        denials::explain(output, &allowed)
    }

    /// The ruleset, rebuilt when a directory it was built from changed since.
    fn ruleset(&self, abi: u32) -> std::io::Result<Arc<Ruleset>> {
        let mut built = lock(&self.built);
        if let Some((ruleset, stamps)) = built.as_ref()
            && stamps.current()
        {
            return Ok(Arc::clone(ruleset));
        }
        let (ruleset, stamps) = rules::build(&self.layout(), abi, self.config.network)?;
        let ruleset = Arc::new(ruleset);
        *built = Some((Arc::clone(&ruleset), stamps));
        Ok(ruleset)
    }

    /// The paths of the ruleset, canonical, as they are on disk now.
    fn layout(&self) -> Layout {
        plan_layout(&self.config, &self.paths, &|path: &Path| std::fs::canonicalize(path).ok())
    }
}

/// What is writable and what is hidden. `resolve` canonicalizes a path and answers None for one
/// that does not exist (a hidden path that does not exist needs no hiding; a new entry is
/// unreadable until the ruleset is rebuilt, see `rules`).
fn plan_layout(config: &SandboxConfig, paths: &Paths, resolve: &dyn Fn(&Path) -> Option<PathBuf>) -> Layout {
    let mut writable: Vec<PathBuf> = std::iter::once(&paths.root)
        .chain(paths.tmp.iter())
        .chain(config.writable.iter())
        .chain(std::iter::once(&PathBuf::from("/dev/shm")))
        .filter_map(|path| resolve(path))
        .collect();
    writable.sort();
    writable.dedup();
    let readable: Vec<PathBuf> = config.readable_secrets.iter().filter_map(|path| resolve(path)).collect();
    let mut hidden: Vec<PathBuf> = paths
        .home
        .iter()
        .flat_map(|home| HOME_SECRETS.iter().map(move |secret| home.join(secret)))
        .chain(paths.mewcode_home.iter().cloned())
        .filter_map(|path| resolve(&path))
        .filter(|path| !readable.iter().any(|readable| path.starts_with(readable)))
        .collect();
    hidden.push(PathBuf::from("/dev"));
    hidden.sort();
    hidden.dedup();
    let devices = DEVICES.iter().map(PathBuf::from).collect();
    Layout { writable, hidden, devices }
}

#[cfg(test)]
mod tests;
