//! The Landlock ruleset for commands: what is writable, what is readable, built from the disk.
//!
//! Landlock can only allow, never carve a hole in what it allowed, so "read everywhere except
//! ~/.ssh" is built by allowing reads on every entry of every directory on the way to a hidden
//! path, except the entry that leads to it: for a hidden `/home/u/.ssh`, read on each entry of
//! `/` but `home`, on each entry of `/home` but `u`, on each entry of `/home/u` but `.ssh`.
//! Listing directories (READ_DIR) is allowed everywhere: names are not secrets, and `ls ~` must
//! work. Symlink entries get no rule: access through a link is decided at its target.
//!
//! Invariant: the ruleset reflects the directories as they were when it was built; `Stamps`
//! records their modification times so the caller rebuilds it when an entry was added or
//! removed (a new entry is unreadable until then: the failure is closed, not open).

use crate::sys::landlock::{self, Ruleset};
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Read (and run) a file, or everything beneath a directory.
const READ: u64 = landlock::ACCESS_FS_READ_FILE | landlock::ACCESS_FS_EXECUTE;
/// The device nodes every shell needs, readable and writable (`> /dev/null` truncates).
pub(crate) const DEVICES: [&str; 5] = ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"];

/// What the ruleset is built from: absolute, canonical paths.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Layout {
    /// Everything allowed beneath these.
    pub writable: Vec<PathBuf>,
    /// Not readable (nor anything beneath).
    pub hidden: Vec<PathBuf>,
    /// Single files readable and writable although inside a hidden path (device nodes).
    pub devices: Vec<PathBuf>,
}

/// The directories whose entries were enumerated, with their modification times then.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Stamps(Vec<(PathBuf, Option<SystemTime>)>);

impl Stamps {
    /// True when no enumerated directory changed since.
    pub(super) fn current(&self) -> bool {
        self.0.iter().all(|(dir, then)| modified(dir) == *then)
    }
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::symlink_metadata(path).and_then(|meta| meta.modified()).ok()
}

/// The directories to enumerate: every strict ancestor of a hidden path, `/` first. Pure.
fn plan_ancestors(hidden: &[PathBuf]) -> Vec<PathBuf> {
    let mut ancestors: Vec<PathBuf> =
        hidden.iter().flat_map(|path| path.ancestors().skip(1).map(Path::to_path_buf)).collect();
    ancestors.sort();
    ancestors.dedup();
    // An ancestor inside a hidden path is never read from anyway.
    ancestors.retain(|dir| !hidden.iter().any(|hidden| dir.starts_with(hidden)));
    ancestors
}

/// True when an entry of an enumerated directory gets no read rule of its own: it is hidden,
/// or it leads to something hidden (then it is enumerated itself). Pure.
fn skip_entry(entry: &Path, hidden: &[PathBuf]) -> bool {
    hidden.iter().any(|hidden| hidden.starts_with(entry))
}

/// What a ruleset for `abi` handles: (filesystem rights, network rights, scopes). Pure.
pub(super) fn plan_handled(abi: u32, network: bool) -> (u64, u64, u64) {
    let handled_net =
        if !network && abi >= 4 { landlock::ACCESS_NET_BIND_TCP | landlock::ACCESS_NET_CONNECT_TCP } else { 0 };
    let scoped = if abi >= 6 { landlock::SCOPE_SIGNAL | landlock::SCOPE_ABSTRACT_UNIX_SOCKET } else { 0 };
    (landlock::fs_rights_for_abi(abi), handled_net, scoped)
}

/// Builds the ruleset for `abi` from `layout`. `network` false also handles TCP bind/connect
/// (ABI 4) with no port allowed; ABI 6 scopes signals and abstract unix sockets to the domain.
pub(super) fn build(layout: &Layout, abi: u32, network: bool) -> io::Result<(Ruleset, Stamps)> {
    let (all, handled_net, scoped) = plan_handled(abi, network);
    let ruleset = Ruleset::create(all, handled_net, scoped)?;
    ruleset.allow(Path::new("/"), landlock::ACCESS_FS_READ_DIR, true)?;
    let mut stamps = Vec::new();
    let ancestors = plan_ancestors(&layout.hidden);
    if ancestors.is_empty() {
        ruleset.allow(Path::new("/"), READ, true)?;
    }
    for dir in &ancestors {
        stamps.push((dir.clone(), modified(dir)));
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            // A directory we cannot list keeps what is below it unreadable: closed, not open.
            Err(_) => continue,
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if skip_entry(&path, &layout.hidden) || entry.file_type().is_ok_and(|kind| kind.is_symlink()) {
                continue;
            }
            // An entry that vanished, or became a link, between listing and opening stays
            // unreadable until the next build: closed, not open.
            let _ = ruleset.allow(&path, READ, false);
        }
    }
    for dir in &layout.writable {
        ruleset
            .allow(dir, all, true)
            .map_err(|err| io::Error::new(err.kind(), format!("writable path {}: {err}", dir.display())))?;
    }
    for device in &layout.devices {
        // A device that is missing on this machine is simply not available.
        let _ = ruleset.allow(device, all, true);
    }
    Ok((ruleset, Stamps(stamps)))
}

#[cfg(test)]
#[path = "rules_tests.rs"]
mod tests;
