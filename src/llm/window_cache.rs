//! What discovery learned about each endpoint (its window, whether its model accepts images), remembered in `$MEWCODE_HOME/discovery.json` so
//! a run does not ask five endpoints again (a one-shot makes one request, not six) and the
//! "no window reported" assumption is stated once per endpoint, not on every run.
//!
//! Invariant: a cache that is missing, unreadable or malformed is an empty cache (discovery asks
//! again), never an error; an entry older than `MAX_AGE_S` is not used; the file is replaced
//! atomically, so a reader never sees half of it. Time comes in as seconds (the caller's clock).

use crate::fsx::write_atomic;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// How long an answer is believed: a server's window changes when it is restarted with other
/// flags, which a week of use will usually have surfaced (a request failing for the window
/// drops the entry at once, see `forget`).
pub(crate) const MAX_AGE_S: u64 = 7 * 24 * 3600;

/// The file's name under `$MEWCODE_HOME`.
pub(crate) const FILE_NAME: &str = "discovery.json";

/// What one endpoint and model reported.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Entry {
    pub base_url: String,
    pub model: String,
    /// The window, or None when the server answered but reported none.
    pub window: Option<u64>,
    /// What answered, e.g. `GET /props`.
    pub endpoint: Option<String>,
    /// A caveat about the figure (an assumption rather than a report).
    pub note: Option<String>,
    /// When it was asked, in seconds since the Unix epoch.
    pub checked_at: u64,
    /// Whether the user was told the assumption (the fallback or the note) already.
    pub warned: bool,
    /// Whether the model accepts images, when the server said (absent in older files).
    #[serde(default)]
    pub vision: Option<bool>,
    /// What said it (`POST /api/show`, `GET /props`).
    #[serde(default)]
    pub vision_endpoint: Option<String>,
    /// Whether vision was asked about at all (false in an older build's entry: ask again).
    #[serde(default)]
    pub vision_asked: bool,
}

impl Entry {
    /// One line for doctor and `/status`: the window remembered, where it came from and how old
    /// the answer is at `now` (`4096 tokens from GET /props, asked 3 h ago`).
    pub(crate) fn describe(&self, now: u64) -> String {
        let what = match (self.window, &self.endpoint) {
            (Some(window), Some(endpoint)) => format!("{window} tokens from {endpoint}"),
            (Some(window), None) => format!("{window} tokens"),
            (None, _) => "none: the server answered without a window".to_string(),
        };
        let note = self.note.as_deref().map(|note| format!(" ({note})")).unwrap_or_default();
        format!("{what}{note}, asked {} ago", age(now.saturating_sub(self.checked_at)))
    }
}

/// A duration in seconds the way people say an age: `40 s`, `12 min`, `3 h`, `2 d`.
fn age(seconds: u64) -> String {
    match seconds {
        0..60 => format!("{seconds} s"),
        60..3600 => format!("{} min", seconds / 60),
        3600..86_400 => format!("{} h", seconds / 3600),
        _ => format!("{} d", seconds / 86_400),
    }
}

#[derive(Default, Serialize, Deserialize)]
struct File {
    entries: Vec<Entry>,
}

/// The cache of one `$MEWCODE_HOME`.
pub(crate) struct WindowCache {
    path: PathBuf,
    entries: Vec<Entry>,
    /// Whether anything changed since `load` (`save` writes only then).
    changed: bool,
}

impl WindowCache {
    /// Reads `dir/discovery.json`; anything unreadable is an empty cache.
    pub(crate) fn load(dir: &Path) -> WindowCache {
        let path = dir.join(FILE_NAME);
        let entries = std::fs::read_to_string(&path)
            .ok()
            .and_then(|text| serde_json::from_str::<File>(&text).ok())
            .map(|file| file.entries)
            .unwrap_or_default();
        WindowCache { path, entries, changed: false }
    }

    /// The entry for `base_url` and `model` when it is younger than `MAX_AGE_S` at `now` (an
    /// entry from the future, after a clock change, is not believed either).
    pub(crate) fn fresh(&self, base_url: &str, model: &str, now: u64) -> Option<&Entry> {
        self.entries
            .iter()
            .find(|entry| entry.base_url == base_url && entry.model == model)
            .filter(|entry| entry.checked_at <= now && now - entry.checked_at < MAX_AGE_S)
    }

    /// Records an answer, replacing any older one for the same endpoint and model.
    pub(crate) fn record(&mut self, entry: Entry) {
        self.forget(&entry.base_url, &entry.model);
        self.entries.push(entry);
        self.changed = true;
    }

    /// Notes that the user was told the assumption for this endpoint and model.
    pub(crate) fn mark_warned(&mut self, base_url: &str, model: &str) {
        for entry in self.entries.iter_mut().filter(|entry| entry.base_url == base_url && entry.model == model) {
            entry.warned = true;
            self.changed = true;
        }
    }

    /// Drops what is known about an endpoint and model (a request failed for the window), so
    /// the next start asks again. Returns whether there was an entry.
    pub(crate) fn forget(&mut self, base_url: &str, model: &str) -> bool {
        let before = self.entries.len();
        self.entries.retain(|entry| !(entry.base_url == base_url && entry.model == model));
        self.changed |= self.entries.len() != before;
        self.entries.len() != before
    }

    /// Writes the file atomically when something changed (its directory must exist).
    pub(crate) fn save(&self) -> std::io::Result<()> {
        if !self.changed {
            return Ok(());
        }
        let file = File { entries: self.entries.clone() };
        let text = serde_json::to_string_pretty(&file).map_err(std::io::Error::other)?;
        write_atomic(&self.path, text.as_bytes())
    }
}

#[cfg(test)]
#[path = "window_cache_tests.rs"]
mod tests;
