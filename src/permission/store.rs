//! The three settings files (SPEC §1.2): reading their rule texts, and persisting "always allow"
//! answers into `.mewcode/settings.local.yaml`, the one settings file mewcode writes itself.
//!
//! Why the local file is marked: it lives in the project, where a command the model runs (or a
//! clone) can write `Bash(*)` into it. So mewcode writes it with a first line
//! `# mewcode-mark: <64 hex digits>`, the HMAC under this installation's key
//! (`session::Owner::file_mark`) of the file's path and every byte after that line. A local file
//! without a matching mark is not mewcode's: its allow rules never apply, trusted project or not
//! (the caller warns), and an "always" answer never builds on it: the file is moved aside to
//! `settings.local.yaml.rejected` and a new one holds only the new rule.
//!
//! Invariant: reading never fails silently — unreadable YAML is an error naming the file; a
//! missing file is simply empty. Persisting is idempotent (a rule already present is not added
//! again), keeps the other keys of a file mewcode wrote, creates the file and its directory when
//! missing, never loses the content of a file it did not write, and is atomic. Which levels'
//! allow rules take effect (the trust gate, the mark) is decided by the caller.

use super::rules::{Level, RuleTexts};
use crate::fsx;
use crate::session::Owner;
use serde_yaml::{Mapping, Value};
use std::path::{Path, PathBuf};

/// The local settings file, relative to the root: "always" answers land here.
pub(crate) const LOCAL_SETTINGS: &str = ".mewcode/settings.local.yaml";

/// How the first line of a local settings file mewcode wrote starts; the mark follows.
const MARK_PREFIX: &str = "# mewcode-mark: ";

/// The comment under the mark, saying what the file is.
const LOCAL_HEADER: &str = "\
# mewcode permission rules for this checkout only (\"always\" answers land here; keep it out of git).
# Written and marked by mewcode: a change by anything else unmarks it, and then its allow rules are ignored.
";

/// Where a local file that is not mewcode's goes when an "always" answer needs the name.
const REJECTED_SUFFIX: &str = ".rejected";

/// Whether the local settings file is the one mewcode wrote, by its mark.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mark {
    /// Marked by this installation for this path and exactly this content, or no file at all
    /// (nothing in it to distrust): its rules apply.
    Ours,
    /// No mark line: written by hand, by a command, by a clone, or by a mewcode from before marks.
    Missing,
    /// A mark that does not match: the file changed after mewcode wrote it, or it was copied
    /// from another project or another installation.
    Wrong,
}

impl Mark {
    /// Why a file with this mark is not mewcode's, for warnings and doctor.
    pub(crate) fn why(self) -> &'static str {
        match self {
            Mark::Ours => "it is the file mewcode wrote",
            Mark::Missing => {
                "it has no mewcode mark (mewcode did not write it: a command, a clone, an edit by hand or \
                 a mewcode from before marks did)"
            }
            Mark::Wrong => {
                "its mewcode mark does not match (it changed after mewcode wrote it, or it was copied from \
                 another project or installation)"
            }
        }
    }
}

/// The settings file of each level, nearest first.
pub(crate) fn settings_paths(root: &Path, home: &Path) -> [(Level, PathBuf); 3] {
    [
        (Level::Local, root.join(LOCAL_SETTINGS)),
        (Level::Project, root.join(".mewcode/settings.yaml")),
        (Level::User, home.join("settings.yaml")),
    ]
}

/// Reads one settings file's `permissions.allow` and `permissions.deny` lists. A missing file
/// is empty; anything unreadable is an error that names the file and the key.
pub(crate) fn load_rule_texts(path: &Path) -> Result<RuleTexts, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(RuleTexts::default()),
        Err(err) => return Err(format!("{}: {err}", path.display())),
    };
    parse_rule_texts(&text).map_err(|message| format!("{}: {message}", path.display()))
}

/// Reads the local settings file at `path` (`settings_paths`' first) as `load_rule_texts`
/// does, with its mark checked on the same bytes the rules come from.
pub(crate) fn load_local_rule_texts(path: &Path, owner: &Owner) -> Result<(RuleTexts, Mark), String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok((RuleTexts::default(), Mark::Ours)),
        Err(err) => return Err(format!("{}: {err}", path.display())),
    };
    let texts = parse_rule_texts(&text).map_err(|message| format!("{}: {message}", path.display()))?;
    Ok((texts, check_mark(path, &text, owner)))
}

/// Whether `text`, the content of the local settings file at `path`, carries this
/// installation's mark for exactly the rest of it (pure).
fn check_mark(path: &Path, text: &str, owner: &Owner) -> Mark {
    match split_mark(text) {
        None => Mark::Missing,
        Some((mark, body)) if owner.owns_file(path, body.as_bytes(), mark) => Mark::Ours,
        Some(_) => Mark::Wrong,
    }
}

/// The mark and the rest of a marked text, or `None` when its first line is no mark line.
fn split_mark(text: &str) -> Option<(&str, &str)> {
    let rest = text.strip_prefix(MARK_PREFIX)?;
    Some(rest.split_once('\n').unwrap_or((rest, "")))
}

/// `body` under its mark line (pure); `None` without a key.
fn render_marked(path: &Path, body: &str, owner: &Owner) -> Option<String> {
    let mark = owner.file_mark(path, body.as_bytes())?;
    Some(format!("{MARK_PREFIX}{mark}\n{body}"))
}

/// Parses a settings document (pure).
fn parse_rule_texts(text: &str) -> Result<RuleTexts, String> {
    let root: Value = serde_yaml::from_str(text).map_err(|err| format!("invalid YAML: {err}"))?;
    let permissions = match &root {
        Value::Null => return Ok(RuleTexts::default()),
        Value::Mapping(map) => match map.get("permissions") {
            None | Some(Value::Null) => return Ok(RuleTexts::default()),
            Some(Value::Mapping(permissions)) => permissions,
            Some(_) => return Err("permissions: expected a mapping with allow and deny lists".to_string()),
        },
        _ => return Err("expected a mapping at the top level".to_string()),
    };
    let list = |key: &str| -> Result<Vec<String>, String> {
        match permissions.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Sequence(items)) => items
                .iter()
                .enumerate()
                .map(|(index, item)| match item {
                    Value::String(rule) => Ok(rule.clone()),
                    _ => Err(format!("permissions.{key}[{index}]: expected a rule string like \"Bash(git *)\"")),
                })
                .collect(),
            Some(_) => Err(format!("permissions.{key}: expected a list of rule strings")),
        }
    };
    Ok(RuleTexts { allow: list("allow")?, deny: list("deny")? })
}

/// What an "always" answer changed on disk.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Saved {
    /// How many of the rules were new (none when all were there already).
    pub added: usize,
    /// Where the local file went when it was not mewcode's (its rules no longer apply), and why.
    pub set_aside: Option<(PathBuf, Mark)>,
}

/// Adds allow rules to the local settings file under `root` (creating it), skipping those
/// already present, and marks the result as this installation's (`owner`). A file there that
/// is not mewcode's (`check_mark`) is never built on: its content is kept under a free
/// `.rejected` name next to it and the new file holds only `rules`. The file must be a plain
/// file inside the project: a repository can ship `.mewcode/settings.local.yaml` (or
/// `.mewcode`) as a symlink to a file elsewhere, and answering "always" must not write through
/// it.
pub(crate) fn save_local_allow_rules(root: &Path, owner: &Owner, rules: &[String]) -> Result<Saved, String> {
    let rel = LOCAL_SETTINGS;
    let path = root.join(rel);
    if owner.file_mark(&path, b"").is_none() {
        let message = "this installation has no key to mark it with (see the warning about sessions at start-up)";
        return Err(format!("{}: {message}", path.display()));
    }
    let canonical_root =
        super::sandbox::check_path(root, ".", None).map_err(|denial| format!("{}: {denial}", root.display()))?;
    if let Err(denial) = super::sandbox::check_path(&canonical_root, rel, None) {
        return Err(format!("{}: {denial}; not writing through it", path.display()));
    }
    if std::fs::symlink_metadata(&path).is_ok_and(|meta| meta.file_type().is_symlink()) {
        return Err(format!("{}: is a symbolic link; settings are only written to a plain file", path.display()));
    }
    let existing = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(err) => return Err(format!("{}: {err}", path.display())),
    };
    let plan =
        plan_local_save(&path, &existing, owner, rules).map_err(|message| format!("{}: {message}", path.display()))?;
    let LocalSave::Write { text, added, set_aside } = plan else { return Ok(Saved { added: 0, set_aside: None }) };
    // Its directories (`.mewcode`) are mewcode's own: created beneath the root, never through a
    // symbolic link (the check above allows one that stays inside the project).
    let rel_dir = Path::new(rel).parent().unwrap_or(Path::new(""));
    fsx::create_dirs_beneath(&canonical_root, rel_dir).map_err(|err| err.to_string())?;
    // `.mewcode/settings.local.yaml` is the user's own: it must not show in `git status`.
    fsx::ensure_gitignored_dir(&canonical_root, rel_dir)
        .map_err(|err| format!("{}: {err}", canonical_root.join(rel_dir).display()))?;
    // The old content is kept before the name is reused, so a failure loses nothing.
    let set_aside = match set_aside {
        Some(mark) => Some((keep_rejected(&canonical_root, rel, &existing)?, mark)),
        None => None,
    };
    fsx::write_atomic_beneath(&canonical_root, &path, text.as_bytes())
        .map_err(|err| format!("{}: {err}", path.display()))?;
    Ok(Saved { added, set_aside })
}

/// What saving rules into the local file comes to (pure).
#[derive(Debug, PartialEq, Eq)]
enum LocalSave {
    /// Every rule is there already in mewcode's own file.
    Unchanged,
    /// Write `text` (marked); `set_aside` says why the old content must be kept first.
    Write { text: String, added: usize, set_aside: Option<Mark> },
}

/// Plans saving `rules` into the local file at `path` whose content is `existing` (empty when
/// missing): built on only when it is mewcode's, else started anew (pure).
fn plan_local_save(path: &Path, existing: &str, owner: &Owner, rules: &[String]) -> Result<LocalSave, String> {
    let (body, set_aside) = if existing.trim().is_empty() {
        ("", None)
    } else {
        match check_mark(path, existing, owner) {
            Mark::Ours => (split_mark(existing).map_or("", |(_, body)| body), None),
            unmarked @ (Mark::Missing | Mark::Wrong) => ("", Some(unmarked)),
        }
    };
    let (body, added) = add_allow_rules(body, rules)?;
    if added == 0 && set_aside.is_none() {
        return Ok(LocalSave::Unchanged);
    }
    let text = render_marked(path, &body, owner).ok_or("this installation has no key to mark it with")?;
    Ok(LocalSave::Write { text, added, set_aside })
}

/// Writes `content` (the local file that was not mewcode's) under the first free name of
/// `<rel>.rejected`, `<rel>.rejected-2`, ... and returns its path. A free name, never an
/// existing one: an earlier rejected file may not have been looked at yet.
fn keep_rejected(root: &Path, rel: &str, content: &str) -> Result<PathBuf, String> {
    for number in 1..100 {
        let name =
            if number == 1 { format!("{rel}{REJECTED_SUFFIX}") } else { format!("{rel}{REJECTED_SUFFIX}-{number}") };
        if std::fs::symlink_metadata(root.join(&name)).is_ok() {
            continue;
        }
        return fsx::write_new_beneath(root, Path::new(&name), content.as_bytes())
            .map_err(|err| format!("cannot keep the unmarked local settings aside: {err}"));
    }
    Err(format!("{}: 99 rejected copies already; review and delete them", root.join(rel).display()))
}

/// The document with `rules` appended to `permissions.allow` (pure; idempotent), under mewcode's
/// header comment.
fn add_allow_rules(existing: &str, rules: &[String]) -> Result<(String, usize), String> {
    let mut root: Value = if existing.trim().is_empty() {
        Value::Mapping(Mapping::new())
    } else {
        serde_yaml::from_str(existing).map_err(|err| format!("invalid YAML, not changed: {err}"))?
    };
    let Value::Mapping(map) = &mut root else { return Err("expected a mapping at the top level".to_string()) };
    let permissions = map.entry(Value::from("permissions")).or_insert_with(|| Value::Mapping(Mapping::new()));
    if permissions.is_null() {
        *permissions = Value::Mapping(Mapping::new());
    }
    let Value::Mapping(permissions) = permissions else { return Err("permissions: expected a mapping".to_string()) };
    let allow = permissions.entry(Value::from("allow")).or_insert_with(|| Value::Sequence(Vec::new()));
    if allow.is_null() {
        *allow = Value::Sequence(Vec::new());
    }
    let Value::Sequence(allow) = allow else { return Err("permissions.allow: expected a list".to_string()) };
    let mut added = 0;
    for rule in rules {
        if !allow.iter().any(|present| present.as_str() == Some(rule.as_str())) {
            allow.push(Value::from(rule.as_str()));
            added += 1;
        }
    }
    // Re-encoding drops comments, so the header is written anew each time.
    let body = serde_yaml::to_string(&root).map_err(|err| format!("cannot encode: {err}"))?;
    Ok((format!("{LOCAL_HEADER}{body}"), added))
}

#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;
