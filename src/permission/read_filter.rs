//! The permission decisions of `read_file`, made for every file a walk (grep, glob) reads or
//! lists: the sandbox, sensitive files and the user's deny rules (SPEC §5, issue 11). The engine
//! checks a grep or glob call once, on its search root; the walk below that root meets files the
//! engine never saw — a link `src/fixture.txt -> ~/.ssh/id_ed25519`, a `.env`, a file a
//! `Read(secret/**)` rule names — and this is where they are left out.
//!
//! Invariant: a file a `FileGate` admits would pass the checks a `read_file` call on it meets
//! before modes and approvals: it resolves inside the project root, it is not sensitive unless it
//! is the search root itself (the engine already asked about that path), and no deny or ask rule of
//! Read or Grep (and, for glob, Glob) names it at any level, in its resolved or its walked
//! spelling. It is cheap by construction: only entries that are symlinks are resolved (a plain
//! entry of a directory the walk reached without following a link is where that directory is,
//! and the start was resolved once), sensitive names are matched without allocating, and rules
//! are matched only when there are some.
//!
//! What it does not do: allow rules and modes play no part (a walk only ever leaves files out,
//! so "allowed" is the default), and it is a check, not a confinement — a link swapped in after
//! the check is not seen, as for `read_file`.

use super::rules::{self, Level, Rule, RuleSet};
use super::sandbox::{self, SandboxDenial};
use crate::config::AddDir;
use crate::special_paths;
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The tools whose deny (and ask) rules a walk may honour; the engine keeps only these for walks.
const WALK_RULE_TOOLS: [&str; 3] = ["Read", "Grep", "Glob"];

/// Why a walk left a file out. The tools only count these; the variants are for tests and for
/// callers that want to say more.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum SkipReason {
    /// The file resolves outside the project root, or cannot be resolved (a loop).
    Outside,
    /// A sensitive file (`.env`, `*.key`, …) that the caller did not name as the search root.
    Sensitive,
    /// A deny rule (or an ask rule: a walk cannot ask) names the file.
    Denied { level: Level, rule: String },
}

/// What the walks of grep and glob must not show: the project root (for the sandbox), the home
/// directory (for `~/` patterns) and the deny rules of Read, Grep and Glob from every level.
/// Built from the engine (`Engine::read_filter`) or, where no engine is at hand, with the
/// built-in checks only (`ReadFilter::builtin`). Cheap to clone.
#[derive(Clone, Debug)]
pub struct ReadFilter {
    root: PathBuf,
    home: Option<PathBuf>,
    /// The directories added besides the project (`--add-dir`), canonical: readable like it.
    added: Arc<[AddDir]>,
    deny: Arc<[(Level, Rule)]>,
}

impl ReadFilter {
    /// The sandbox and sensitive-file checks alone, with no rules (tests, tools run directly).
    pub(crate) fn builtin(root: PathBuf) -> ReadFilter {
        ReadFilter { root, home: None, added: Arc::from([]), deny: Arc::from([]) }
    }

    /// The filter over `ruleset`'s deny and ask rules of the walk tools, at every level.
    pub(super) fn from_rules(root: PathBuf, home: Option<PathBuf>, ruleset: &RuleSet) -> ReadFilter {
        let deny: Vec<(Level, Rule)> = ruleset
            .levels
            .iter()
            // A walk cannot ask: a file an ask rule names is left out as a denied one is.
            .flat_map(|(level, rules)| rules.deny.iter().chain(&rules.ask).map(move |rule| (*level, rule)))
            .filter(|(_, rule)| WALK_RULE_TOOLS.iter().any(|tool| rule.matches_tool(tool)))
            .map(|(level, rule)| (level, rule.clone()))
            .collect();
        ReadFilter { root, home, added: Arc::from([]), deny: deny.into() }
    }

    /// The filter that also admits files under `added` (read access: read-only ones too).
    pub(super) fn with_added_dirs(mut self, added: &[AddDir]) -> ReadFilter {
        self.added = added.into();
        self
    }

    /// The writable added directory a write to `path` (absolute) lands in, the deepest added
    /// directory holding where it leads when that one is writable; None for anywhere else (the
    /// project among them). The file tools write beneath it, so a link swapped after the check
    /// cannot carry the write out of it.
    pub(crate) fn writable_root_of(&self, path: &Path) -> Option<&Path> {
        let resolved = sandbox::resolve(path).ok()?;
        sandbox::added_dir_holding(&self.added, &resolved).filter(|dir| dir.writable).map(|dir| dir.path.as_path())
    }

    /// Prepares the checks of one walk by `tool_rule_name` (`Grep`, `Glob`) from `start` (the
    /// directory or file the tool walks, absolute or relative to the root). The start itself
    /// must resolve inside the root; the engine checked that already, this is the safe default
    /// for callers without one.
    pub fn gate(&self, tool_rule_name: &str, start: &Path) -> Result<FileGate, SandboxDenial> {
        let root = std::fs::canonicalize(&self.root).map_err(|error| SandboxDenial::BadRoot(error.to_string()))?;
        let start = self.root.join(start);
        let resolved_start = sandbox::resolve(&start)?;
        let roots: Vec<PathBuf> =
            std::iter::once(root.clone()).chain(self.added.iter().map(|dir| dir.path.clone())).collect();
        if !roots.iter().any(|root| sandbox::is_inside(root, &resolved_start)) {
            return Err(SandboxDenial::Outside(resolved_start));
        }
        let honoured = honoured_rule_tools(tool_rule_name);
        let deny =
            self.deny.iter().filter(|(_, rule)| honoured.iter().any(|tool| rule.matches_tool(tool))).cloned().collect();
        let transcripts = roots.iter().map(|root| root.join(".mewcode/sessions")).collect();
        Ok(FileGate { root, roots, home: self.home.clone(), deny, start, resolved_start, transcripts })
    }
}

/// The tools whose deny rules hide a file from a walk by `tool`: a file's content is guarded by
/// Read and Grep rules, so both walks honour them; glob lists names, which Glob rules guard too.
fn honoured_rule_tools(tool: &str) -> &'static [&'static str] {
    if tool == "Glob" { &WALK_RULE_TOOLS } else { &WALK_RULE_TOOLS[..2] }
}

/// The checks of one walk: `admits` decides each file the walk meets. Owns what it needs (a
/// few rules at most), so a tool can build one from a filter it made on the spot.
#[derive(Debug)]
pub struct FileGate {
    /// The canonical project root (deny rules are relative to it).
    root: PathBuf,
    /// Where files may be: the project root and the added directories.
    roots: Vec<PathBuf>,
    home: Option<PathBuf>,
    /// The deny rules this walk honours, nearest level first.
    deny: Vec<(Level, Rule)>,
    /// The start as the walk spells it (its files are `start` joined with their relative path).
    /// When it is a file, the caller named it and the engine has asked about it.
    start: PathBuf,
    resolved_start: PathBuf,
    /// `.mewcode/sessions` of each root, never searched.
    transcripts: Vec<PathBuf>,
}

impl FileGate {
    /// Decides one file of the walk. `path` is the start itself or the start joined with the
    /// names of directory entries, descending only into real directories (never through a
    /// symlinked one) — what `tools::walk` produces; `is_symlink` says whether the entry itself
    /// is a symlink (then, and only then, it is resolved here).
    pub(crate) fn admits(&self, path: &Path, is_symlink: bool) -> Result<(), SkipReason> {
        // Only a start that is a file is ever visited itself (a byte compare: lengths differ for
        // every file below a directory start).
        let named_by_caller = path.as_os_str() == self.start.as_os_str();
        // Where a link leads; a plain entry is trusted to be where the walk found it (see above).
        let link_target = if is_symlink && !named_by_caller {
            let resolved = sandbox::resolve(path).map_err(|_| SkipReason::Outside)?;
            if !self.roots.iter().any(|root| sandbox::is_inside(root, &resolved)) {
                return Err(SkipReason::Outside);
            }
            Some(resolved)
        } else {
            None
        };
        let resolved = self.resolved(path, named_by_caller, link_target.as_deref());
        // Session logs hold whatever the model was once shown with approval (keys included):
        // a later search must not bring it back unasked.
        if self.transcripts.iter().any(|logs| resolved.starts_with(logs) || path.starts_with(logs)) {
            return Err(SkipReason::Sensitive);
        }
        if !self.deny.is_empty() {
            self.check_deny_rules(path, &resolved)?;
        }
        let sensitive = special_paths::is_sensitive_path(path)
            || link_target.as_deref().is_some_and(special_paths::is_sensitive_path);
        if sensitive && !named_by_caller {
            return Err(SkipReason::Sensitive);
        }
        Ok(())
    }

    /// Where the walked `path` really is: the link's target, the resolved start, or the resolved
    /// start joined with the path below it.
    fn resolved<'a>(&'a self, path: &'a Path, named_by_caller: bool, link_target: Option<&'a Path>) -> Cow<'a, Path> {
        match (link_target, named_by_caller) {
            (Some(target), _) => Cow::Borrowed(target),
            (None, true) => Cow::Borrowed(&self.resolved_start),
            (None, false) => match path.strip_prefix(&self.start) {
                Ok(relative) => Cow::Owned(self.resolved_start.join(relative)),
                Err(_) => Cow::Borrowed(path),
            },
        }
    }

    /// Deny rules see both spellings, as in `check_rules`: the walked path and the resolved one,
    /// so `link.txt -> secret/key` is named by `Read(secret/**)`, and `secret/key` by
    /// `Read(secret/key)` however the walk reached it (also through a symlinked start).
    fn check_deny_rules(&self, path: &Path, resolved: &Path) -> Result<(), SkipReason> {
        let two_spellings = resolved != path;
        for (level, rule) in &self.deny {
            let names = |spelling: &Path| rules::path_rule_names(rule, spelling, &self.root, self.home.as_deref());
            if names(resolved) || (two_spellings && names(path)) {
                return Err(SkipReason::Denied { level: *level, rule: rule.text.clone() });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "read_filter_tests.rs"]
mod tests;
