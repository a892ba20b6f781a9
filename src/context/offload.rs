//! Layer 1 (SPEC §6): a tool result over 50 000 bytes, or the undecided results of one tool
//! message totalling over 200 000 bytes (largest first), is written to
//! `<session>/tool-results/<id>` and replaced in history by a preview. In a small window the
//! limits and the preview shrink with it (`Limits`: a result over a quarter of the window goes).
//!
//! Invariant: every decision is final. A ledger keyed by tool_call_id remembers "kept" or
//! "replaced (with this preview)", so a result never flips between iterations (the model's view
//! and the prompt cache stay stable); a failed write decides nothing and is retried next
//! iteration. File names are sanitised to `[A-Za-z0-9_-]` so a hostile id cannot steer the write,
//! and no directory on the way below the project root may be a symbolic link (`DirBeneath`): a
//! repository can ship `.mewcode`, `sessions`, a session or `tool-results` as one.
//! Work per iteration is O(new messages): settled messages are never visited again.

use super::Limits;
use crate::msg::{History, Role};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// A single result larger than this (bytes) is offloaded (a small window: less, see `Limits`).
pub(crate) const SINGLE_RESULT_LIMIT: usize = 50_000;
/// Undecided results of one tool message totalling more than this (bytes) are offloaded,
/// largest first, until the rest fits.
pub(crate) const MESSAGE_AGGREGATE_LIMIT: usize = 200_000;
/// Lines of the original kept in the preview.
const PREVIEW_LINES: usize = 20;
/// Bytes of the original kept in the preview at most.
pub(crate) const PREVIEW_BYTES: usize = 2048;
/// The directory under the session directory that holds offloaded results.
pub(crate) const TOOL_RESULTS_DIR: &str = "tool-results";

/// A directory mewcode owns beneath one it does not: `rel` (plain names, such as
/// `.mewcode/sessions/<id>`) beneath `base` (the project root). `base` may be reached through
/// symbolic links; no directory of `rel` may be one, so no result is saved through a link a
/// repository planted (`fsx::write_new_beneath` checks each one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirBeneath {
    pub base: PathBuf,
    pub rel: PathBuf,
}

impl DirBeneath {
    /// Its subdirectory `name`.
    pub fn join(&self, name: impl AsRef<Path>) -> DirBeneath {
        DirBeneath { base: self.base.clone(), rel: self.rel.join(name) }
    }

    /// The directory as one path (for messages and previews).
    pub fn path(&self) -> PathBuf {
        self.base.join(&self.rel)
    }
}

/// A final decision about one tool result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Disposition {
    /// The result stays in history as it is.
    Kept,
    /// The result was saved to disk; history holds this preview instead.
    Replaced(String),
}

/// Which of one message's undecided results go to disk, given their sizes in bytes in message
/// order: largest first, while a result is over the single limit or the undecided total still
/// left is over the aggregate limit (both from `limits`).
fn plan_offload(sizes: &[usize], limits: &Limits) -> Vec<bool> {
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    // Largest first; ties keep message order, so the plan is deterministic.
    order.sort_by(|a, b| sizes[*b].cmp(&sizes[*a]).then(a.cmp(b)));
    let mut remaining: usize = sizes.iter().sum();
    let mut spill = vec![false; sizes.len()];
    for index in order {
        if sizes[index] > limits.single_result_bytes || remaining > limits.aggregate_bytes {
            spill[index] = true;
            remaining -= sizes[index];
        }
    }
    spill
}

/// The file name for a tool call id: `[A-Za-z0-9_-]` kept, anything else `_`; when that changed
/// the id (or it was empty or very long), a hash suffix keeps distinct ids apart.
fn sanitize_id(id: &str) -> String {
    let cleaned: String =
        id.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect();
    if cleaned == id && !id.is_empty() && id.len() <= 128 {
        return cleaned;
    }
    let short: String = cleaned.chars().take(64).collect();
    format!("{short}-{}", &crate::digest::sha256_hex(id.as_bytes())[..12])
}

/// The text that replaces an offloaded result: the first lines (at most `limits.preview_bytes`)
/// and how to read the rest in parts small enough to stay in the conversation.
fn render_preview(original: &str, saved: &Path, limits: &Limits) -> String {
    let mut head = String::new();
    for line in original.split_inclusive('\n').take(PREVIEW_LINES) {
        head.push_str(line);
    }
    if head.len() > limits.preview_bytes {
        let mut cut = limits.preview_bytes;
        while !head.is_char_boundary(cut) {
            cut -= 1;
        }
        head.truncate(cut);
    }
    format!(
        "[content offloaded] original size: {} bytes\n[saved to] {}\n[head preview]\n{}\n[end of preview]\n\n\
         This is only the beginning. The full content is saved at the path above: read it with read_file \
         (offset and limit read it in parts{}) instead of guessing the rest from this preview.",
        original.len(),
        saved.display(),
        head.trim_end_matches('\n'),
        part_hint(limits)
    )
}

/// In a window smaller than SPEC's, how big a part may be without being saved again.
fn part_hint(limits: &Limits) -> String {
    if limits.single_result_bytes >= SINGLE_RESULT_LIMIT {
        return String::new();
    }
    format!("; keep each part under {} bytes or it is saved to a file again", limits.single_result_bytes)
}

/// What one layer-1 pass did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PassReport {
    /// Results replaced by a preview in this pass.
    pub replaced: usize,
    /// Characters removed from the history.
    pub chars_removed: u64,
    /// Writes that failed (retried next pass), as messages for the user.
    pub failures: Vec<String>,
}

/// The ledger and the scan position of layer 1.
#[derive(Debug, Default)]
pub struct Offloader {
    ledger: HashMap<String, Disposition>,
    /// Messages before this index are settled (every result decided).
    scanned: usize,
    /// Tool messages before `scanned` that still hold an undecided result (a failed write).
    pending: BTreeSet<usize>,
}

impl Offloader {
    /// The history was replaced: scan it again from the start (the ledger stays).
    pub(crate) fn reset_scan(&mut self) {
        self.scanned = 0;
        self.pending.clear();
    }

    /// The decision recorded for a call id, if any.
    pub fn decision(&self, tool_call_id: &str) -> Option<&Disposition> {
        self.ledger.get(tool_call_id)
    }

    /// One pass over the messages not yet settled. `session_dir` None: nothing is offloaded and
    /// nothing is decided (the results wait for a directory).
    pub fn run(&mut self, history: &mut History, session_dir: Option<&DirBeneath>, limits: &Limits) -> PassReport {
        let mut outcome = PassReport::default();
        if history.len() < self.scanned {
            self.reset_scan();
        }
        let mut visit: Vec<usize> = self.pending.iter().copied().collect();
        visit.extend(self.scanned..history.len());
        self.scanned = history.len();
        for index in visit {
            if history.get(index).is_none_or(|message| message.role != Role::Tool) {
                self.pending.remove(&index);
                continue;
            }
            let settled = self.settle_message(history, index, session_dir, limits, &mut outcome);
            if settled {
                self.pending.remove(&index);
            } else {
                self.pending.insert(index);
            }
        }
        outcome
    }

    /// Applies the ledger and decides the undecided results of one tool message; false when a
    /// result is still undecided.
    fn settle_message(
        &mut self,
        history: &mut History,
        index: usize,
        session_dir: Option<&DirBeneath>,
        limits: &Limits,
        outcome: &mut PassReport,
    ) -> bool {
        let results = &history[index].tool_results;
        let mut undecided = Vec::new();
        let mut swaps: Vec<(usize, String)> = Vec::new();
        for (position, result) in results.iter().enumerate() {
            match self.ledger.get(&result.tool_call_id) {
                Some(Disposition::Replaced(preview)) if result.content != *preview => {
                    swaps.push((position, preview.clone()))
                }
                Some(_) => {}
                None => undecided.push(position),
            }
        }
        let sizes: Vec<usize> = undecided.iter().map(|position| results[*position].content.len()).collect();
        let plan = plan_offload(&sizes, limits);
        let mut all_decided = true;
        for (position, spill) in undecided.into_iter().zip(plan) {
            let result = &results[position];
            if !spill {
                self.ledger.insert(result.tool_call_id.clone(), Disposition::Kept);
                continue;
            }
            let Some(dir) = session_dir else {
                all_decided = false;
                continue;
            };
            match save(dir, &result.tool_call_id, &result.content) {
                Ok(path) => {
                    let preview = render_preview(&result.content, &path, limits);
                    self.ledger.insert(result.tool_call_id.clone(), Disposition::Replaced(preview.clone()));
                    swaps.push((position, preview));
                }
                Err(err) => {
                    all_decided = false;
                    let dir = dir.path().display().to_string();
                    outcome.failures.push(format!("could not save a large tool result to {dir}: {err}"));
                }
            }
        }
        // Only a real swap takes the message mutably: a live snapshot would make that a copy.
        if swaps.is_empty() {
            return all_decided;
        }
        if let Some(message) = history.get_mut(index) {
            for (position, preview) in swaps {
                if let Some(result) = message.tool_results.get_mut(position) {
                    let before = result.content.chars().count() as u64;
                    let after = preview.chars().count() as u64;
                    outcome.chars_removed += before.saturating_sub(after);
                    outcome.replaced += 1;
                    result.content = preview;
                }
            }
        }
        all_decided
    }
}

/// Writes one result to `<session dir>/tool-results/<sanitised id>` and returns the path. A
/// symlink planted at any directory of the session dir's `rel`, at `tool-results` or at the file
/// is never followed: the directories must be real ones and the file is created anew (a leftover
/// from an earlier failed attempt, or a planted link, is removed, not written through).
fn save(session_dir: &DirBeneath, tool_call_id: &str, content: &str) -> std::io::Result<PathBuf> {
    let rel = session_dir.rel.join(TOOL_RESULTS_DIR).join(sanitize_id(tool_call_id));
    crate::fsx::write_new_beneath(&session_dir.base, &rel, content.as_bytes())
}

#[cfg(test)]
#[path = "offload_tests.rs"]
mod tests;
