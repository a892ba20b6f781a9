//! The trust gate's memory: which project roots the user trusted, with a SHA-256 of the project
//! files that can run code or widen permissions (`.mewcode.yaml`, `.mewcode/settings.yaml`).
//!
//! Invariant: a project is trusted only while those files hash to what the user saw when they
//! said yes; any change (including a file appearing or disappearing) asks again. The store is
//! `$MEWCODE_HOME/trusted.yaml`, written atomically; an unreadable store trusts nothing.

use crate::digest::sha256_hex;
use crate::fsx;
use std::path::Path;

/// The store's file name under MEWCODE_HOME.
pub const TRUSTED_FILE: &str = "trusted.yaml";

/// The project files whose content the trust covers, relative to the root.
pub const TRUSTED_PROJECT_FILES: [&str; 2] = [".mewcode.yaml", ".mewcode/settings.yaml"];

#[derive(serde::Deserialize, serde::Serialize, Default)]
struct TrustFile {
    #[serde(default)]
    projects: Vec<TrustEntry>,
}

#[derive(serde::Deserialize, serde::Serialize, Clone)]
struct TrustEntry {
    path: String,
    sha256: String,
}

/// The fingerprint of the project's trust-relevant files (absent files count, as "absent").
pub fn project_fingerprint(root: &Path) -> String {
    let mut material = Vec::new();
    for name in TRUSTED_PROJECT_FILES {
        material.extend_from_slice(name.as_bytes());
        match std::fs::read(root.join(name)) {
            Ok(bytes) => {
                material.extend_from_slice(format!("\0present\0{}\0", bytes.len()).as_bytes());
                material.extend_from_slice(&bytes);
            }
            Err(_) => material.extend_from_slice(b"\0absent\0"),
        }
    }
    sha256_hex(&material)
}

/// True when the project has none of the trust-relevant files (nothing to trust).
pub fn project_needs_trust(root: &Path) -> bool {
    TRUSTED_PROJECT_FILES.iter().any(|name| root.join(name).is_file())
}

/// True when the user trusted this root with exactly the current files.
pub fn is_trusted(home: &Path, root: &Path) -> bool {
    let fingerprint = project_fingerprint(root);
    let root = root.display().to_string();
    load(home).projects.iter().any(|entry| entry.path == root && entry.sha256 == fingerprint)
}

/// Records that the user trusts the root with its current files (replacing an older entry).
pub fn save_trust(home: &Path, root: &Path) -> Result<(), String> {
    let mut store = load(home);
    let path = root.display().to_string();
    store.projects.retain(|entry| entry.path != path);
    store.projects.push(TrustEntry { path, sha256: project_fingerprint(root) });
    let text = serde_yaml::to_string(&store).map_err(|err| format!("cannot encode {TRUSTED_FILE}: {err}"))?;
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
        assert!(project_needs_trust(&root));
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
}
