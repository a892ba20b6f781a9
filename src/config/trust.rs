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

/// Records that the user trusts the root with its current files (replacing an older entry).
pub fn save_trust(home: &Path, root: &Path) -> Result<(), String> {
    let mut store = load(home);
    let path = root.display().to_string();
    let sha256 = project_fingerprint(root, home);
    match store.projects.iter_mut().find(|entry| entry.path == path) {
        Some(entry) => entry.sha256 = sha256,
        None => store.projects.push(TrustEntry { path, sha256 }),
    }
    // Entries that trust nothing were left by the `local_sha256` of older versions.
    store.projects.retain(|entry| !entry.sha256.is_empty());
    save(home, &store)
}

fn save(home: &Path, store: &TrustFile) -> Result<(), String> {
    let text = serde_yaml::to_string(store).map_err(|err| format!("cannot encode {TRUSTED_FILE}: {err}"))?;
    let header = "# Projects you trusted with mewcode, and a hash of their config when you did.\n";
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
