//! The trust gate's memory: which project roots the user trusted, with a SHA-256 of the project
//! files that can run code or widen permissions (`.mewcode.yaml`, `.mewcode/settings.yaml`,
//! `.mcp.json`).
//!
//! Invariant: a project is trusted only while those files hash to what the user saw when they
//! said yes; any change (including a file appearing or disappearing) asks again. The store is
//! `$MEWCODE_HOME/trusted.yaml`, written atomically; an unreadable store trusts nothing.
//!
//! What it does not cover: `.mewcode/settings.local.yaml`, which mewcode writes itself and marks
//! (`permission::store`); trusting a project never makes that file's allow rules apply. (Stores
//! written before the mark also hold a `local_sha256` per project: it is ignored when read and
//! dropped at the next write. A hash of the file as mewcode last wrote it could not tell a rule
//! the user approved from one a command had planted before the user's next "always".)
//!
//! It also remembers the hosts of the project's git remotes as they were when the user trusted
//! it (`git_remotes`): `sandbox.allow_git_remotes` allows those, so a remote a command adds later
//! is asked about, not allowed. An entry written before this field has none: nothing is
//! remembered, every remote host asks (until the project is trusted again). A project that
//! brings no config of its own is never asked the trust question: `remember_remote_hosts_once`
//! records its remotes the first time it is seen, in an entry that trusts nothing else.

use super::git_remotes::read_remote_hosts;
use super::hosts::Host;
use crate::digest::sha256_hex;
use crate::fsx;
use std::path::Path;

/// The store's file name under MEWCODE_HOME.
const TRUSTED_FILE: &str = "trusted.yaml";

/// The project files whose content the trust covers, relative to the root.
const TRUSTED_PROJECT_FILES: [&str; 3] = [".mewcode.yaml", ".mewcode/settings.yaml", ".mcp.json"];

/// Of those, the files counted only when present: `.mcp.json` joined the list later, and a
/// project trusted before it existed keeps its fingerprint (its appearing still changes it).
const COUNTED_WHEN_PRESENT: [&str; 1] = [".mcp.json"];

#[derive(serde::Deserialize, serde::Serialize, Default)]
struct TrustFile {
    #[serde(default)]
    projects: Vec<TrustEntry>,
}

#[derive(serde::Deserialize, serde::Serialize, Clone)]
struct TrustEntry {
    path: String,
    /// The project files' fingerprint when the user trusted the project; empty when they never did.
    #[serde(default)]
    sha256: String,
    /// The hosts of the project's git remotes when they were remembered; None (an entry from
    /// before this field): none remembered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    git_remotes: Option<Vec<String>>,
}

/// The fingerprint of the project's trust-relevant files (absent files count, as "absent").
/// In `~` with the default `~/.mewcode` (`project::shares_user_dir`), `.mewcode/settings.yaml` is
/// the user's own file, not the project's, and is left out.
fn project_fingerprint(root: &Path, home: &Path) -> String {
    let mut material = Vec::new();
    let shared = super::project::shares_user_dir(root, home);
    for name in TRUSTED_PROJECT_FILES {
        if shared && name.starts_with(".mewcode/") {
            continue;
        }
        let content = std::fs::read(root.join(name));
        if content.is_err() && COUNTED_WHEN_PRESENT.contains(&name) {
            continue;
        }
        material.extend_from_slice(name.as_bytes());
        match content {
            Ok(bytes) => {
                material.extend_from_slice(format!("\0present\0{}\0", bytes.len()).as_bytes());
                material.extend_from_slice(&bytes);
            }
            Err(_) => material.extend_from_slice(b"\0absent\0"),
        }
    }
    sha256_hex(&material)
}

/// True when the user trusted this root with exactly the current files.
pub fn is_trusted(home: &Path, root: &Path) -> bool {
    let fingerprint = project_fingerprint(root, home);
    let root = root.display().to_string();
    load(home)
        .projects
        .iter()
        .any(|entry| entry.path == root && !entry.sha256.is_empty() && entry.sha256 == fingerprint)
}

/// Records that the user trusts the root with its current files and its current git remotes
/// (replacing an older entry).
pub fn save_trust(home: &Path, root: &Path) -> Result<(), String> {
    let mut store = load(home);
    let path = root.display().to_string();
    let sha256 = project_fingerprint(root, home);
    let git_remotes = Some(host_names(&read_remote_hosts(root)));
    match store.projects.iter_mut().find(|entry| entry.path == path) {
        Some(entry) => {
            entry.sha256 = sha256;
            entry.git_remotes = git_remotes;
        }
        None => store.projects.push(TrustEntry { path, sha256, git_remotes }),
    }
    save(home, &store)
}

/// The hosts of the project's git remotes as remembered (module doc); empty when none were.
pub(crate) fn remembered_remote_hosts(home: &Path, root: &Path) -> Vec<Host> {
    let path = root.display().to_string();
    let store = load(home);
    let entry = store.projects.iter().find(|entry| entry.path == path);
    entry
        .and_then(|entry| entry.git_remotes.as_deref())
        .unwrap_or_default()
        .iter()
        .filter_map(|host| Host::parse(host))
        .collect()
}

/// The remembered remote hosts of a project; when the store has no entry for it at all (a
/// project seen for the first time), its current remotes are remembered first, in an entry
/// that trusts nothing else. An entry without remembered remotes (trusted before they were
/// remembered) stays as it is: its remotes ask until the project is trusted again.
pub(crate) fn remember_remote_hosts_once(home: &Path, root: &Path) -> Result<Vec<Host>, String> {
    let mut store = load(home);
    let path = root.display().to_string();
    if store.projects.iter().any(|entry| entry.path == path) {
        return Ok(remembered_remote_hosts(home, root));
    }
    let hosts = read_remote_hosts(root);
    store.projects.push(TrustEntry { path, sha256: String::new(), git_remotes: Some(host_names(&hosts)) });
    save(home, &store)?;
    Ok(hosts)
}

fn host_names(hosts: &[Host]) -> Vec<String> {
    hosts.iter().map(ToString::to_string).collect()
}

fn save(home: &Path, store: &TrustFile) -> Result<(), String> {
    // Entries that remember nothing were left by the `local_sha256` of older versions.
    let mut store = TrustFile { projects: store.projects.clone() };
    store.projects.retain(|entry| !entry.sha256.is_empty() || entry.git_remotes.is_some());
    let text = serde_yaml::to_string(&store).map_err(|err| format!("cannot encode {TRUSTED_FILE}: {err}"))?;
    let header =
        "# Projects you trusted with mewcode, a hash of their config and their git remotes' hosts when you did.\n";
    std::fs::create_dir_all(home).map_err(|err| format!("{}: {err}", home.display()))?;
    let target = home.join(TRUSTED_FILE);
    fsx::write_atomic(&target, format!("{header}{text}").as_bytes())
        .map_err(|err| format!("{}: {err}", target.display()))
}

fn load(home: &Path) -> TrustFile {
    std::fs::read_to_string(home.join(TRUSTED_FILE))
        .ok()
        .and_then(|text| serde_yaml::from_str::<TrustFile>(&text).ok())
        .unwrap_or_default()
}

#[cfg(test)]
#[path = "trust_tests.rs"]
mod tests;
