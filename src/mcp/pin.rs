//! Tool-definition pinning (SECURITY-NOTES §3b, the "rug pull"): the first time mewcode sees a
//! server, it records a digest of each tool's description and input schema in
//! `$MEWCODE_HOME/mcp-pins.json`, keyed by the server's name and what it runs (command line) or
//! reaches (URL). When a tool the user already had changes its description or schema, the server
//! is flagged and its tools refuse to run until the user accepts the new definitions with
//! `mewcode mcp accept NAME`.
//!
//! Invariants: `check` is pure and decides on digests only; a tool that is new beside unchanged
//! ones is trusted on first use like a new server (it is recorded, the user is told), a tool that
//! disappeared stays recorded so that it cannot come back changed unnoticed, and nothing but
//! `accept` (an explicit user command) or a first sighting writes a digest. Digests are SHA-256
//! over the description and over the schema with object keys sorted, so a server that only
//! reorders keys is not flagged.

use super::client::ToolInfo;
use crate::digest::sha256_hex;
use crate::sync::lock;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

/// The store's file name under `$MEWCODE_HOME`.
pub(crate) const PINS_FILE: &str = "mcp-pins.json";

/// One tool's fingerprint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ToolPrint {
    /// SHA-256 of the description.
    pub description: String,
    /// SHA-256 of the input schema in canonical JSON (object keys sorted).
    pub input_schema: String,
}

/// Every tool of one server, by the server's own tool name.
pub(crate) type ServerPrint = BTreeMap<String, ToolPrint>;

/// What pinning makes of a server's current tool list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Nothing recorded for this server: record the list and use it.
    FirstSeen,
    /// Every tool is as accepted (some may be gone): use it.
    Same,
    /// New tools beside unchanged ones: record them and use the list; the user is told.
    Added(Vec<String>),
    /// Accepted tools changed: the server's tools refuse to run until the user accepts.
    Changed(Vec<Change>),
}

/// One accepted tool whose definition changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Change {
    pub tool: String,
    pub description: bool,
    pub input_schema: bool,
}

impl std::fmt::Display for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match (self.description, self.input_schema) {
            (true, true) => "description and input schema",
            (true, false) => "description",
            (false, true | false) => "input schema",
        };
        write!(f, "{} ({what})", self.tool)
    }
}

/// The fingerprint of a tool list.
pub(crate) fn fingerprint(tools: &[ToolInfo]) -> ServerPrint {
    tools
        .iter()
        .map(|tool| {
            let print = ToolPrint {
                description: sha256_hex(tool.description.as_bytes()),
                input_schema: sha256_hex(canonical_json(&tool.input_schema).as_bytes()),
            };
            (tool.name.clone(), print)
        })
        .collect()
}

/// Compares `current` with what was accepted (`pinned`).
pub(crate) fn check(pinned: Option<&ServerPrint>, current: &ServerPrint) -> Verdict {
    let Some(pinned) = pinned else { return Verdict::FirstSeen };
    let mut changes = Vec::new();
    let mut added = Vec::new();
    for (name, print) in current {
        match pinned.get(name) {
            None => added.push(name.clone()),
            Some(accepted) if accepted == print => {}
            Some(accepted) => changes.push(Change {
                tool: name.clone(),
                description: accepted.description != print.description,
                input_schema: accepted.input_schema != print.input_schema,
            }),
        }
    }
    match (changes.is_empty(), added.is_empty()) {
        (false, _) => Verdict::Changed(changes),
        (true, false) => Verdict::Added(added),
        (true, true) => Verdict::Same,
    }
}

/// What to record after `Added`: the accepted tools, plus the new ones.
pub(crate) fn merge(pinned: Option<&ServerPrint>, current: &ServerPrint) -> ServerPrint {
    let mut merged = pinned.cloned().unwrap_or_default();
    merged.extend(current.iter().map(|(name, print)| (name.clone(), print.clone())));
    merged
}

/// A server's key in the store: its name and its command line or URL, so that a server renamed
/// onto another's command, or a name pointed at another URL, starts afresh instead of inheriting.
pub(crate) fn server_key(name: &str, target: &str) -> String {
    format!("{name} {target}")
}

/// `value` as JSON with every object's keys sorted.
fn canonical_json(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            let fields: Vec<String> = entries
                .iter()
                .map(|(key, value)| format!("{}:{}", Value::from(key.as_str()), canonical_json(value)))
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        Value::Array(items) => format!("[{}]", items.iter().map(canonical_json).collect::<Vec<_>>().join(",")),
        other => other.to_string(),
    }
}

/// The store file: every server's accepted fingerprint.
#[derive(Debug, Default, Serialize, Deserialize)]
struct PinFile {
    version: u32,
    servers: BTreeMap<String, ServerPrint>,
}

/// Servers connect on parallel threads: one read-modify-write of the store at a time.
static STORE: Mutex<()> = Mutex::new(());

/// The accepted fingerprint of `key`, or None. A missing file is an empty store; an unreadable
/// or corrupt one is an error (the caller flags the server rather than trust it blindly).
pub(crate) fn load_pin(path: &Path, key: &str) -> Result<Option<ServerPrint>, String> {
    let _one_at_a_time = lock(&STORE);
    Ok(read_store(path)?.servers.remove(key))
}

/// Records `print` as accepted for `key`.
pub(crate) fn save_pin(path: &Path, key: &str, print: &ServerPrint) -> Result<(), String> {
    let _one_at_a_time = lock(&STORE);
    let mut store = read_store(path)?;
    store.version = 1;
    store.servers.insert(key.to_string(), print.clone());
    let text = serde_json::to_string_pretty(&store).map_err(|err| err.to_string())?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|err| format!("cannot create {}: {err}", dir.display()))?;
    }
    crate::fsx::write_atomic(path, text.as_bytes()).map_err(|err| format!("cannot write {}: {err}", path.display()))
}

fn read_store(path: &Path) -> Result<PinFile, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text)
            .map_err(|err| format!("{} is not a valid pin store ({err}); remove it to start afresh", path.display())),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(PinFile::default()),
        Err(err) => Err(format!("cannot read {}: {err}", path.display())),
    }
}

#[cfg(test)]
#[path = "pin_tests.rs"]
mod tests;
