//! Extra directories (`--add-dir DIR[:ro]`, and `add_dirs:` in the user's own config): roots
//! besides the project that the file tools may read and, unless `:ro`, write, and that commands
//! see the same way. Parsed and resolved here; the permission engine, the sandbox and the
//! checkpoints take the resolved list.
//!
//! Invariant: an `AddDir` names an existing directory by its canonical path. A directory that
//! holds `$MEWCODE_HOME` (sessions, trust, settings) is refused outright, and one that holds the
//! user's home or is `/` is refused writable (the home holds shell start-up files, ssh and git
//! settings: files that run code later), with the way to add it read-only. A project's config
//! cannot add directories (`mod.rs` ignores its `add_dirs:` with a warning).

use super::Level;
use super::error::{ConfigError, FileContext, error};
use super::value::kind;
use crate::warning::Warning;
use serde_yaml::{Mapping, Value};
use std::path::{Path, PathBuf};

/// The suffix that adds a directory read-only.
const READ_ONLY: &str = ":ro";
/// The suffix that says writable explicitly (the default).
const WRITABLE: &str = ":rw";

/// One extra root, resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AddDir {
    /// Canonical, an existing directory.
    pub path: PathBuf,
    /// False for `DIR:ro`.
    pub writable: bool,
    /// Where it was given: `--add-dir` or the config file's display name.
    pub source: String,
}

impl AddDir {
    /// `/abs/lib (read-only, --add-dir)`: how doctor, `/status` and the system prompt list it.
    pub(crate) fn describe(&self) -> String {
        let access = if self.writable { "read-write" } else { "read-only" };
        format!("{} ({access}, {})", self.path.display(), self.source)
    }
}

/// The places a directory is judged against.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Places<'a> {
    /// The user's home directory (`$HOME`), for `~` and the writable refusal.
    pub home: Option<&'a Path>,
    /// `$MEWCODE_HOME`.
    pub mewcode_home: &'a Path,
    /// The project root (canonical).
    pub root: &'a Path,
}

/// `add_dirs:` of one file: a list of `DIR` or `DIR:ro` strings, kept with the file's directory
/// (a relative entry is relative to it). Resolution waits for `resolve`: a directory that is
/// missing today is a warning there, not a broken config.
pub(super) fn parse_add_dirs(map: &Mapping, ctx: &FileContext) -> Result<Vec<String>, ConfigError> {
    match map.get("add_dirs") {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Sequence(items)) => items
            .iter()
            .enumerate()
            .map(|(index, item)| match item {
                Value::String(text) if !text.trim().is_empty() => Ok(text.trim().to_string()),
                other => Err(error(
                    ctx,
                    &format!("add_dirs[{index}]"),
                    format!("expected a directory (DIR or DIR:ro), got {}", kind(other)),
                )),
            })
            .collect(),
        Some(other) => Err(error(ctx, "add_dirs", format!("expected a list of directories, got {}", kind(other)))),
    }
}

/// `DIR:ro` → (`DIR`, read-only); `DIR:rw` and `DIR` → writable.
fn split_spec(spec: &str) -> (&str, bool) {
    if let Some(dir) = spec.strip_suffix(READ_ONLY) {
        (dir, false)
    } else {
        (spec.strip_suffix(WRITABLE).unwrap_or(spec), true)
    }
}

/// Resolves one spec given at `source`: `~` through the home, a relative path against `base`,
/// every link followed. `Ok(None)` for a directory inside the project (nothing to add); `Err`
/// says why the directory cannot be added and what to do instead.
pub(crate) fn resolve(spec: &str, source: &str, base: &Path, places: &Places) -> Result<Option<AddDir>, String> {
    let (raw, writable) = split_spec(spec);
    let joined = if raw == "~" || raw.starts_with("~/") {
        let home = places.home.ok_or_else(|| format!("{spec}: ~ cannot be expanded (HOME is not set)"))?;
        home.join(raw.trim_start_matches('~').trim_start_matches('/'))
    } else if raw.is_empty() {
        return Err("an empty directory name".to_string());
    } else {
        base.join(raw)
    };
    let path = std::fs::canonicalize(&joined).map_err(|err| format!("{spec}: {err}"))?;
    if !path.is_dir() {
        return Err(format!("{spec}: not a directory"));
    }
    let canonical = |path: &Path| std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mewcode_home = canonical(places.mewcode_home);
    if mewcode_home.starts_with(&path) || path.starts_with(&mewcode_home) {
        return Err(format!(
            "{spec}: holds mewcode's own home {} (sessions, trust, settings): add a directory beside it",
            mewcode_home.display()
        ));
    }
    let root = canonical(places.root);
    if path.starts_with(&root) {
        return Ok(None);
    }
    let holds_home = places.home.map(canonical).is_some_and(|home| home.starts_with(&path));
    if writable && (holds_home || path == Path::new("/")) {
        return Err(format!(
            "{spec}: cannot be added writable: it holds your home directory (shell start-up files, ssh and git \
             settings run code later); add it read-only ({raw}{READ_ONLY}) or add the directory you work in"
        ));
    }
    Ok(Some(AddDir { path, writable, source: source.to_string() }))
}

/// One file's `add_dirs:` (`specs`) merged into `dirs`: the user's own files and `--config` add
/// theirs, a directory missing today is a warning (as a `sandbox.writable` path is); a
/// project's entries are ignored with a warning, since a repository must not widen what the
/// agent may touch.
pub(super) fn merge(
    dirs: &mut Vec<AddDir>,
    specs: &[String],
    (level, display, dir): (Level, &str, &Path),
    places: &Places,
    warnings: &mut Vec<Warning>,
) {
    if specs.is_empty() {
        return;
    }
    if level == Level::Project {
        let message = "add_dirs is ignored in a project's config: only your own config.yaml or --add-dir can add \
                       directories";
        warnings.push(Warning::new(display, message));
        return;
    }
    for spec in specs {
        match resolve(spec, display, dir, places) {
            Ok(Some(added)) => push(dirs, added),
            Ok(None) => {
                warnings.push(Warning::new(display, format!("add_dirs: {spec} is inside the project; ignored")))
            }
            Err(why) => warnings.push(Warning::new(display, format!("add_dirs: {why}; ignored"))),
        }
    }
}

/// Adds `dir` to `dirs`: the same path given twice keeps the first source and is read-only only
/// when every spelling said so.
pub(crate) fn push(dirs: &mut Vec<AddDir>, dir: AddDir) {
    match dirs.iter_mut().find(|known| known.path == dir.path) {
        Some(known) => known.writable |= dir.writable,
        None => dirs.push(dir),
    }
}

#[cfg(test)]
#[path = "add_dirs_tests.rs"]
mod tests;
