//! The OS sandbox for everything mewcode runs on the model's or the user's behalf (bash
//! commands, hooks): writes only under the project root, the session's temp dir and a few device
//! nodes; reads everywhere but the user's secret stores and the terminal devices; optionally no
//! network; no keystroke injection. Linux Landlock + seccomp, installed by `sys::child`.
//!
//! Invariant: the sandbox is on unless the user's own config says `sandbox: {mode: off}`; where
//! the kernel cannot confine, `auto` says so (`Status::Unavailable`) and `required` refuses to
//! run anything. Whatever a command is, it cannot write outside what it may touch: this is the
//! guarantee, the blacklist and rules are only the first, cheap layer with clear reasons.
//! With the view and the network not open, the session's commands share a network namespace
//! apart from the machine's (loopback only); under `allowlist` each command's one way out is a
//! port there routed to a proxy that asks the session's `permission::network::NetworkGate` per
//! connection (`outlet.rs`). Without the view the policy is not enforced (commands share the
//! machine's network, and doctor says so).
//! What it does not do: hide secrets inside a writable root (Landlock cannot subtract), or confine
//! MCP servers.
//!
//! - `mod.rs` — `Sandbox`: the detected confinement, its `Status`, and what a command runs under
//! - `view.rs` — the view of the machine a command sees, planned as data
//! - `rules.rs` — the Landlock ruleset: what is writable and readable, built from the disk
//! - `secrets.rs` — the default list of secret stores commands cannot read
//! - `mounts.rs` — the mount table, read for the other paths a hidden file is reachable at
//! - `control.rs` — a project's control paths, bound read-only, and undoing those a command made
//! - `cgroup.rs` — control groups per command: caps on processes and memory
//! - `tmp.rs` — the session's private temp dir
//! - `denials.rs` — explaining a sandbox denial to the model from a command's output
//! - `outlet.rs` — the session's network namespace for commands, and each command's way out
//! - tests: each `x.rs` has its `x_tests.rs`; `tests.rs` runs real commands under the sandbox

mod cgroup;
mod control;
mod denials;
mod mounts;
mod outlet;
mod rules;
pub(crate) mod secrets;
mod tmp;
mod view;

use crate::config::{NetworkMode, SandboxConfig, SandboxLimits, SandboxMode};
use crate::permission::network::{HostAsk, NetworkGate};
use crate::sync::lock;
use crate::sys::child::{Confinement, Limits, ViewSetup};
use crate::sys::landlock::{LatePlan, Ruleset};
use crate::sys::{namespace, seccomp};
use rules::{Layout, Stamps};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

pub(crate) use outlet::Network;
pub(crate) use rules::DEVICES;
pub(crate) use tmp::SessionTmp;

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
    /// The directories from the root down to the working directory, whose control paths
    /// (`control.rs`) are read-only in the view, and the writable added directories (`--add-dir`).
    pub levels: Vec<PathBuf>,
    /// Directories added read-only (`--add-dir DIR:ro`): seen even inside another user's home.
    pub readable: Vec<PathBuf>,
}

/// How commands will run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Confined: by the namespace view (or why there is none) and by Landlock (its ABI, or why
    /// there is none). At least one of the two is there.
    Confined { view: Result<(), String>, abi: Result<u32, String> },
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
    /// The ruleset last built and the directory times it was built from (no view only).
    built: Mutex<Option<(Arc<Ruleset>, Stamps)>>,
    /// The control groups commands may get (with the view only).
    cgroups: cgroup::Cgroups,
    /// The network policy's decisions, for the ways out of the commands' network namespace.
    network: Option<Arc<NetworkGate>>,
    /// The session's network namespace for commands (started by the first command that needs
    /// it), or why it could not be made (then each command gets one of its own with no way out).
    outlets: Mutex<Option<Result<Arc<outlet::Outlets>, String>>>,
}

impl Default for Sandbox {
    /// Off: for tests and tools built without a config.
    fn default() -> Sandbox {
        Sandbox::off()
    }
}

impl Sandbox {
    /// The sandbox for `config`, with the Landlock ABI probed from the running kernel and the
    /// namespace view tried in a throwaway process.
    pub fn detect(config: SandboxConfig, paths: Paths) -> Sandbox {
        let view = match config.mode {
            SandboxMode::Off => Err("off".to_string()),
            _ if !config.view => Err("turned off by sandbox.view: false in your config".to_string()),
            _ => probe_view(&config),
        };
        let cgroups = if view.is_ok() {
            let mounts = mounts::parse(&std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default());
            cgroup::Cgroups::find(&mounts)
        } else {
            cgroup::Cgroups::default()
        };
        let mut sandbox = Sandbox::new(config, paths, crate::sys::landlock::abi_version(), view);
        sandbox.cgroups = cgroups;
        sandbox
    }

    /// The sandbox for `config` given the Landlock ABI and the view (or why each is missing).
    pub fn new(config: SandboxConfig, paths: Paths, abi: Result<u32, String>, view: Result<(), String>) -> Sandbox {
        let status = match (config.mode, abi, view) {
            (SandboxMode::Off, _, _) => Status::Off { source: config.mode_source.clone() },
            (_, Err(abi), Err(view)) => Status::Unavailable { reason: format!("{abi}; no namespace view: {view}") },
            (_, abi, view) => Status::Confined { view, abi },
        };
        Sandbox {
            config,
            paths,
            status,
            built: Mutex::new(None),
            cgroups: cgroup::Cgroups::default(),
            network: None,
            outlets: Mutex::new(None),
        }
    }

    /// The sandbox whose commands reach the network through `gate` (under `allowlist`, with the
    /// view); without one such commands reach only their own loopback.
    pub(crate) fn with_network(mut self, gate: Arc<NetworkGate>) -> Sandbox {
        self.network = Some(gate);
        self
    }

    /// The network policy's lines for doctor and `/status` (None without a policy).
    pub(crate) fn network_lines(&self) -> Option<Vec<String>> {
        let gate = self.network.as_ref()?;
        let mut lines = gate.describe();
        if self.config.network_mode == NetworkMode::Allowlist && !self.has_view() {
            lines.push(
                "NOT ENFORCED here: without the namespace view commands share mewcode's network (only open or off hold)"
                    .to_string(),
            );
        }
        Some(lines)
    }

    /// True when commands reach the outside through a port of their own to the policy's proxy.
    fn bridged(&self) -> bool {
        self.config.network_mode == NetworkMode::Allowlist && self.has_view() && self.network.is_some()
    }

    /// The session's network namespace, started at the first call that needs it (with the view,
    /// unless the network is open); None when the kernel refused it.
    fn outlets(&self) -> Option<Arc<outlet::Outlets>> {
        if !self.has_view() || shares_network(&self.config) {
            return None;
        }
        let mut outlets = lock(&self.outlets);
        let started = outlets.get_or_insert_with(|| {
            let view = namespace::keeper_view(crate::sys::current_uid(), crate::sys::current_gid());
            outlet::Outlets::start(view).map_err(|err| err.to_string())
        });
        started.as_ref().ok().cloned()
    }

    /// The paths the user made writable for commands besides the project (`sandbox.writable`):
    /// what checkpoints cover besides the project.
    pub(crate) fn extra_writable(&self) -> Vec<std::path::PathBuf> {
        self.config.writable.clone()
    }

    /// An unconfined sandbox (`mode: off`), for tests and tools built without a config.
    pub fn off() -> Sandbox {
        let config = SandboxConfig { mode: SandboxMode::Off, ..SandboxConfig::default() };
        Sandbox::new(config, Paths::default(), Err("off".to_string()), Err("off".to_string()))
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

    /// True when commands see the namespace view: only the project (and the configured paths)
    /// can change, whatever a command does.
    pub(crate) fn has_view(&self) -> bool {
        matches!(self.status, Status::Confined { view: Ok(()), .. })
    }

    /// One line for the banner, `doctor` and notices.
    pub fn summary(&self) -> String {
        let network = match self.config.network_mode {
            NetworkMode::Off => ", no network",
            NetworkMode::Allowlist if self.has_view() => ", network by allowlist",
            // Landlock alone cannot hold the allowlist: said wherever the summary is shown.
            NetworkMode::Allowlist if self.mode() != SandboxMode::Off => ", network NOT filtered",
            NetworkMode::Allowlist | NetworkMode::Open => "",
        };
        match &self.status {
            Status::Confined { view: Ok(()), abi } => {
                let landlock = match abi {
                    Ok(abi) => format!(" + Landlock ABI {abi}"),
                    Err(_) => String::new(),
                };
                format!(
                    "sandbox on (namespace view{landlock}{network}): commands can change only the project and $TMPDIR, and cannot see secret stores"
                )
            }
            Status::Confined { view: Err(_), abi } => format!(
                "sandbox on (Landlock ABI {}{network}, no namespace view): commands write only in the project and $TMPDIR, but can change modes and times outside, and control files in the project are guarded only by the rules",
                abi.as_ref().map_or(0, |abi| *abi)
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

    /// What the sandbox allows and which layers hold it, one line each, for `doctor`.
    pub(crate) fn describe(&self) -> Vec<String> {
        let layout = self.layout();
        let list =
            |paths: &[PathBuf]| paths.iter().map(|path| path.display().to_string()).collect::<Vec<_>>().join(", ");
        let (view, abi) = match &self.status {
            Status::Confined { view, abi } => (view.clone(), abi.clone()),
            Status::Unavailable { reason } => (Err(reason.clone()), Err(reason.clone())),
            Status::Off { .. } => (Err("off".to_string()), Err("off".to_string())),
        };
        let mut lines = vec![match &view {
            Ok(()) => "view:          on: / read-only (no write, chmod, chown, xattr or utimes outside), private /tmp /run /dev/shm, minimal /dev, fresh /proc, control paths read-only".to_string(),
            Err(reason) => format!("view:          MISSING ({reason}): modes and times outside can change (owners, attributes and flags are refused outright), control files in the project and secrets under other mounts are not held, no process or size caps"),
        }];
        lines.push(match &abi {
            Ok(abi) => format!("landlock:      ABI {abi}"),
            Err(reason) => format!("landlock:      missing ({reason})"),
        });
        lines.push(format!("writable:      {}, {}", list(&layout.writable), DEVICES.join(", ")));
        let known = secrets::HOME_SECRETS.len() + secrets::SYSTEM_SECRETS.len();
        lines.push(format!(
            "hidden:        $MEWCODE_HOME, other users' homes and {known} known secret stores ({})",
            secrets::summary()
        ));
        let present: Vec<PathBuf> = layout.hidden.iter().filter(|path| *path != Path::new("/dev")).cloned().collect();
        lines.push(format!("  here:        {}", if present.is_empty() { "none".to_string() } else { list(&present) }));
        if view.is_err() {
            lines.push(format!("  and /dev (except {})", DEVICES.join(", ")));
        }
        let unix = match self.config.unix_sockets.as_slice() {
            [] => ", no unix sockets".to_string(),
            sockets => format!(", unix sockets allowed ({})", list(sockets)),
        };
        let network = match self.config.network_mode {
            NetworkMode::Allowlist if !self.has_view() => "allowlist NOT enforced (it needs the view): on",
            mode => mode.as_str(),
        };
        lines.push(format!("network:       {network}{unix}"));
        let SandboxLimits { processes, memory, tmp, shm } = self.config.limits;
        let limits = if view.is_ok() {
            // The kernel never applies RLIMIT_NPROC to root: only a pids control group caps it.
            let cap = if self.cgroups.caps_processes() {
                "(a pids control group)"
            } else if crate::sys::current_uid() == 0 {
                "(NOT for root here: no writable pids control group)"
            } else {
                "(RLIMIT_NPROC in the command's user namespace)"
            };
            let memory = memory.or_else(default_memory).map_or(String::new(), |bytes| {
                let by = if self.cgroups.caps_memory() { "in all" } else { "per process" };
                format!(", {} MiB of memory {by}", bytes >> 20)
            });
            format!(
                "at most {processes} processes per command {cap}{memory}, /tmp {} MiB, /dev/shm {} MiB",
                tmp >> 20,
                shm >> 20
            )
        } else {
            "no process or size limits (they need the view)".to_string()
        };
        lines.push(format!("processes:     own session, no terminal, killed when the command ends; {limits}"));
        lines
    }

    /// The environment a confined command needs on top of its own: the private temp dir.
    pub fn env(&self) -> Vec<(String, String)> {
        let Some(tmp) = &self.paths.tmp else { return Vec::new() };
        let tmp = tmp.display().to_string();
        ["TMPDIR", "TMP", "TEMP"].iter().map(|name| (name.to_string(), tmp.clone())).collect()
    }

    /// The confinement for the next command with nobody to ask about a new host (tests, tools).
    pub fn confinement(&self) -> Result<Option<Confinement>, String> {
        self.confinement_asking(None).map(|(confinement, _)| confinement)
    }

    /// The confinement for the next command: None when the sandbox is off, an error (the text the
    /// model reads) when `required` cannot be honoured or the ruleset cannot be built. Under the
    /// network policy the command also gets its way out (`Network`, to hold until it ends), whose
    /// new hosts `ask` puts to the person.
    pub(crate) fn confinement_asking(&self, ask: Option<HostAsk>) -> Result<(Option<Confinement>, Network), String> {
        let mut network = Network::default();
        let confinement = self.confine()?;
        if let (true, Some(gate), Some(outlets)) = (self.bridged(), &self.network, self.outlets())
            && confinement.as_ref().is_some_and(|confinement| confinement.view.is_some())
        {
            let decide = gate.decider(ask, network.notes.clone());
            let lease = outlets
                .open(decide)
                .map_err(|err| format!("denied by sandbox: cannot open the command's way to the network: {err}"))?;
            network = Network { notes: network.notes, lease: Some(lease) };
        } else if let (true, Some(Err(why))) = (self.bridged(), lock(&self.outlets).as_ref()) {
            // The keeper could not be made: each command has a namespace of its own, no way out.
            network.notes.note(format!("network: commands reach no host in this session: {why}"));
        }
        Ok((confinement, network))
    }

    fn confine(&self) -> Result<Option<Confinement>, String> {
        let policy = seccomp::Policy {
            network: self.config.network,
            unix_sockets: !self.config.unix_sockets.is_empty(),
            // Inside the view only the project is writable; without it, seccomp alone stops owners,
            // attributes and flags from changing outside.
            metadata: self.has_view(),
        };
        let filter = seccomp::build_filter(policy);
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
            Status::Unavailable { .. } => Ok(Some(Confinement { ruleset: None, filter, view: None })),
            Status::Confined { view: Ok(()), abi } => {
                let setup = self.view_setup(abi.as_ref().ok().copied())?;
                Ok(Some(Confinement { ruleset: None, filter, view: Some(Box::new(setup)) }))
            }
            Status::Confined { view: Err(_), abi } => {
                let abi = abi.as_ref().map_or(0, |abi| *abi);
                let ruleset = self.ruleset(abi).map_err(|err| format!("denied by sandbox: cannot build it: {err}"))?;
                Ok(Some(Confinement { ruleset: Some(ruleset), filter, view: None }))
            }
        }
    }

    /// The view for the next command, planned from the disk as it is now (a secret store or a
    /// control file created since the last command is covered too).
    fn view_setup(&self, abi: Option<u32>) -> Result<ViewSetup, String> {
        let layout = self.layout();
        let mounts = mounts::parse(&std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default());
        // `/dev` is hidden for Landlock alone; the view replaces it whole.
        let mut hidden: Vec<PathBuf> = layout.hidden.into_iter().filter(|path| path != Path::new("/dev")).collect();
        let aliases: Vec<PathBuf> = hidden
            .iter()
            .flat_map(|path| mounts::aliases(path, &mounts).into_iter().filter(move |alias| same_file(alias, path)))
            .collect();
        hidden.extend(aliases);
        let inputs = view::Inputs {
            writable: layout.writable.iter().filter(|path| *path != Path::new("/dev/shm")).cloned().collect(),
            control: control::control_paths(&self.paths.levels)
                .iter()
                .filter_map(|path| std::fs::canonicalize(path).ok())
                .collect(),
            hidden,
            sockets: self.config.unix_sockets.iter().filter_map(|path| std::fs::canonicalize(path).ok()).collect(),
            // Name resolution: systemd-resolved's /etc/resolv.conf is a link into the private /run.
            system_files: ["/etc/resolv.conf", "/etc/hosts"]
                .iter()
                .filter_map(|file| std::fs::canonicalize(file).ok())
                .collect(),
        };
        let SandboxLimits { processes, memory, tmp, shm } = self.config.limits;
        let memory = memory.or_else(default_memory);
        let sizes = view::Sizes { tmp, shm };
        let plan = view::plan(&inputs, sizes, &host_kind).map_err(|err| format!("denied by sandbox: {err}"))?;
        let landlock = abi.map(|abi| {
            let (_, handled_net, scoped) = rules::plan_handled(abi, self.config.network);
            let mut late = LatePlan::new(abi, handled_net, scoped);
            for path in plan.writable.iter().chain(plan.devices.iter()) {
                late.allow_all(path);
            }
            late
        });
        let mut view = view_of(shares_network(&self.config), plan.steps);
        view.join = self.outlets().map(|outlets| outlets.namespaces());
        Ok(ViewSetup {
            view,
            landlock,
            limits: Limits { processes: Some(processes), memory },
            groups: self.cgroups.for_command(processes, memory),
        })
    }

    /// Runs a confined job (`confinement()` gave its confinement) and, with the view, removes
    /// the control paths it created where none existed (no mount could cover them): the result,
    /// and a line for the model per path removed. Every command and hook runs through here.
    pub(crate) fn run(&self, job: crate::proc::Job<'_>) -> (Result<crate::proc::Finished, String>, Vec<String>) {
        let watch = self.has_view().then(|| control::Watch::start(&self.paths.levels));
        let result = crate::proc::run(job);
        (result, watch.map(|watch| watch.undo()).unwrap_or_default())
    }

    /// Lines explaining the sandbox denials a command's output reports (empty when unconfined).
    pub(crate) fn explain_denials(&self, output: &str) -> Vec<String> {
        // After every command: the layout (a stat per known secret store) only when needed.
        if !matches!(self.status, Status::Confined { .. }) || !denials::may_explain(output) {
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
        let homes = other_users_homes(crate::sys::current_uid());
        plan_layout(&self.config, &self.paths, &homes, &|path: &Path| std::fs::canonicalize(path).ok())
    }
}

/// The entries of `/home`, and `/root`, that belong to another user than `uid` (root's own
/// `/root` stays visible to root whatever HOME says: its toolchains live there).
fn other_users_homes(uid: u32) -> Vec<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let entries = std::fs::read_dir("/home").into_iter().flatten().flatten().map(|entry| entry.path());
    entries
        .chain(std::iter::once(PathBuf::from("/root")))
        .filter(|path| std::fs::symlink_metadata(path).is_ok_and(|meta| meta.is_dir() && meta.uid() != uid))
        .collect()
}

/// Whether a command in the view shares mewcode's network: only under `open` (otherwise the
/// session's namespace, with a way out through the proxy under `allowlist`, none under `off`).
fn shares_network(config: &SandboxConfig) -> bool {
    config.network_mode == NetworkMode::Open
}

/// A view with the namespaces for `network` and the id maps of the running user.
fn view_of(network: bool, steps: Vec<namespace::Step>) -> namespace::View {
    let (uid_map, gid_map) = namespace::id_maps(crate::sys::current_uid(), crate::sys::current_gid());
    namespace::View {
        namespaces: namespace::namespaces(network),
        uid_map,
        gid_map,
        steps,
        proc: c"/proc".to_owned(),
        join: None,
    }
}

/// Tries the view's layers in a throwaway process: user, pid and mount namespaces, a frozen `/`,
/// a tmpfs and a fresh `/proc`.
fn probe_view(config: &SandboxConfig) -> Result<(), String> {
    let steps = vec![
        namespace::Step::FreezeAll,
        namespace::Step::Tmpfs { path: c"/tmp".to_owned(), options: c"size=4096".to_owned(), read_only: false },
    ];
    namespace::probe(&view_of(shares_network(config), steps))
}

/// The memory cap of a command when the user set none: three quarters of the machine's memory,
/// so one runaway process fails its allocation before the host starts killing others.
fn default_memory() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    plan_default_memory(&meminfo)
}

/// Three quarters of `MemTotal` (kB) in bytes. Pure.
fn plan_default_memory(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|line| line.starts_with("MemTotal:"))?;
    let kilobytes: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kilobytes * 1024 / 4 * 3)
}

/// What a path is on the host, without following a final link.
fn host_kind(path: &Path) -> Option<view::Kind> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    Some(if meta.is_dir() {
        view::Kind::Dir
    } else if meta.file_type().is_symlink() {
        view::Kind::Link
    } else {
        view::Kind::File
    })
}

/// True when both paths name the same file (a second mount of it, not something on top).
fn same_file(one: &Path, other: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(one), std::fs::metadata(other)) {
        (Ok(one), Ok(other)) => one.dev() == other.dev() && one.ino() == other.ino(),
        _ => false,
    }
}

/// What is writable and what is hidden. `resolve` canonicalizes a path and answers None for one
/// that does not exist (a hidden path that does not exist needs no hiding; a new entry is
/// unreadable until the ruleset is rebuilt, see `rules`).
///
/// Hidden: the secret stores of `secrets.rs` under HOME and on the system, `$MEWCODE_HOME`, and
/// `homes` (the home directories of other users, found by the caller) unless one holds the
/// project or a writable path.
fn plan_layout(
    config: &SandboxConfig,
    paths: &Paths,
    homes: &[PathBuf],
    resolve: &dyn Fn(&Path) -> Option<PathBuf>,
) -> Layout {
    let mut writable: Vec<PathBuf> = std::iter::once(&paths.root)
        .chain(paths.tmp.iter())
        .chain(config.writable.iter())
        .chain(std::iter::once(&PathBuf::from("/dev/shm")))
        .filter_map(|path| resolve(path))
        .collect();
    writable.sort();
    writable.dedup();
    let readable: Vec<PathBuf> = config.readable_secrets.iter().filter_map(|path| resolve(path)).collect();
    let home = paths.home.as_ref().and_then(|home| resolve(home));
    let added: Vec<PathBuf> = paths.readable.iter().filter_map(|path| resolve(path)).collect();
    let kept: Vec<PathBuf> = writable.iter().chain(&added).cloned().collect();
    let others = secrets::other_homes(home.as_deref(), homes, &kept);
    let mut hidden: Vec<PathBuf> = paths
        .home
        .iter()
        .flat_map(|home| secrets::home_secrets(home))
        .chain(secrets::SYSTEM_SECRETS.iter().map(|secret| PathBuf::from(secret.path)))
        .chain(paths.mewcode_home.iter().cloned())
        .chain(others)
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
