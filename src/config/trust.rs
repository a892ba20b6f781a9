//! The trust gate's memory: which project roots the user trusted, with a SHA-256 of the project
//! files that can run code or widen permissions (`.mewcode.yaml`, `.mewcode/settings.yaml`,
//! `.mcp.json`).
//!
//! Invariant: a project is trusted only while those files hash to what the user saw when they
//! said yes; any change (including a file appearing or disappearing) asks again. The store is
//! `$MEWCODE_HOME/trusted.yaml`, written atomically; an unreadable store trusts nothing.

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
    /// The SHA-256 of `.mewcode/settings.local.yaml` as mewcode last wrote it ("always" answers),
    /// so its allow rules apply without trusting the rest of the project, while a local file
    /// that came with a clone does not.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    local_sha256: String,
}

/// The local settings file, relative to the root.
pub(crate) const LOCAL_SETTINGS: &str = ".mewcode/settings.local.yaml";

/// The fingerprint of the project's trust-relevant files (absent files count, as "absent").
fn project_fingerprint(root: &Path) -> String {
    let mut material = Vec::new();
    for name in TRUSTED_PROJECT_FILES {
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
    let fingerprint = project_fingerprint(root);
    let root = root.display().to_string();
    load(home)
        .projects
        .iter()
        .any(|entry| entry.path == root && !entry.sha256.is_empty() && entry.sha256 == fingerprint)
}

/// True when the local settings file is exactly what mewcode itself last wrote there.
pub(crate) fn local_settings_vouched(home: &Path, root: &Path) -> bool {
    let Ok(bytes) = std::fs::read(root.join(LOCAL_SETTINGS)) else { return false };
    let digest = sha256_hex(&bytes);
    let root = root.display().to_string();
    load(home).projects.iter().any(|entry| entry.path == root && entry.local_sha256 == digest)
}

/// Records the local settings file's current content as written by mewcode.
pub fn record_local_settings(home: &Path, root: &Path) -> Result<(), String> {
    let bytes = std::fs::read(root.join(LOCAL_SETTINGS)).map_err(|err| format!("{LOCAL_SETTINGS}: {err}"))?;
    let mut store = load(home);
    let path = root.display().to_string();
    let local_sha256 = sha256_hex(&bytes);
    match store.projects.iter_mut().find(|entry| entry.path == path) {
        Some(entry) => entry.local_sha256 = local_sha256,
        None => store.projects.push(TrustEntry { path, sha256: String::new(), local_sha256 }),
    }
    save(home, &store)
}

/// Records that the user trusts the root with its current files (replacing an older entry).
pub fn save_trust(home: &Path, root: &Path) -> Result<(), String> {
    let mut store = load(home);
    let path = root.display().to_string();
    let sha256 = project_fingerprint(root);
    match store.projects.iter_mut().find(|entry| entry.path == path) {
        Some(entry) => entry.sha256 = sha256,
        None => store.projects.push(TrustEntry { path, sha256, local_sha256: String::new() }),
    }
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
mod tests {
    use super::*;

    #[test]
    fn trust_is_remembered_and_lost_when_a_file_changes() {
        let dir = std::env::temp_dir().join(format!("mewcode-trust-{}", std::process::id()));
        let (home, root) = (dir.join("home"), dir.join("proj"));
        std::fs::create_dir_all(root.join(".mewcode")).unwrap();
        std::fs::write(root.join(".mewcode.yaml"), "mcp_servers: {}\n").unwrap();
        assert!(!is_trusted(&home, &root));
        save_trust(&home, &root).unwrap();
        assert!(is_trusted(&home, &root));
        save_trust(&home, &root).unwrap();
        let text = std::fs::read_to_string(home.join(TRUSTED_FILE)).unwrap();
        assert_eq!(text.matches("sha256").count(), 1, "one entry per project: {text}");
        std::fs::write(root.join(".mewcode/settings.yaml"), "permissions: {allow: [\"Bash(*)\"]}\n").unwrap();
        assert!(!is_trusted(&home, &root), "a new settings file asks again");
        save_trust(&home, &root).unwrap();
        std::fs::write(root.join(".mewcode.yaml"), "mcp_servers: {x: {type: stdio, command: evil}}\n").unwrap();
        assert!(!is_trusted(&home, &root), "a changed config asks again");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_mcp_json_appearing_or_changing_asks_again_and_its_absence_keeps_old_fingerprints() {
        let dir = std::env::temp_dir().join(format!("mewcode-trust-mcp-{}", std::process::id()));
        let (home, root) = (dir.join("home"), dir.join("proj"));
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join(".mewcode.yaml"), "mcp_servers: {}\n").unwrap();
        // The fingerprint of a project without .mcp.json is what it was before .mcp.json counted.
        let mut before = Vec::new();
        before.extend_from_slice(b".mewcode.yaml\0present\0");
        before.extend_from_slice(b"16\0mcp_servers: {}\n");
        before.extend_from_slice(b".mewcode/settings.yaml\0absent\0");
        assert_eq!(project_fingerprint(&root), sha256_hex(&before));
        save_trust(&home, &root).unwrap();
        std::fs::write(root.join(".mcp.json"), r#"{"mcpServers": {"x": {"command": "evil"}}}"#).unwrap();
        assert!(!is_trusted(&home, &root), "a new .mcp.json asks again");
        save_trust(&home, &root).unwrap();
        assert!(is_trusted(&home, &root));
        std::fs::write(root.join(".mcp.json"), r#"{"mcpServers": {"x": {"command": "worse"}}}"#).unwrap();
        assert!(!is_trusted(&home, &root), "a changed .mcp.json asks again");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_local_settings_file_is_vouched_for_only_as_mewcode_wrote_it() {
        let dir = std::env::temp_dir().join(format!("mewcode-trust-local-{}", std::process::id()));
        let (home, root) = (dir.join("home"), dir.join("proj"));
        std::fs::create_dir_all(root.join(".mewcode")).unwrap();
        std::fs::write(root.join(LOCAL_SETTINGS), "permissions: {allow: [\"Bash(*)\"]}\n").unwrap();
        assert!(!local_settings_vouched(&home, &root), "a file that came with the clone");
        std::fs::write(root.join(LOCAL_SETTINGS), "permissions: {allow: [\"Bash(=ls)\"]}\n").unwrap();
        record_local_settings(&home, &root).unwrap();
        assert!(local_settings_vouched(&home, &root));
        assert!(!is_trusted(&home, &root), "vouching for the local file does not trust the project");
        std::fs::write(root.join(LOCAL_SETTINGS), "permissions: {allow: [\"Bash(*)\"]}\n").unwrap();
        assert!(!local_settings_vouched(&home, &root));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
