//! The three settings files (SPEC §1.2): reading their rule texts, and changing their lists —
//! "always allow" answers and `/permissions add` / `remove`. `.mewcode/settings.local.yaml` is
//! the file mewcode writes by itself; the project's and the user's files only change when the
//! person says so at `/permissions`. The local file also holds the hosts commands may reach
//! that the person allowed "always" (`sandbox.allow_hosts`: `load_local_hosts`,
//! `save_local_host`), under the same mark.
//!
//! Why the local file is marked: it lives in the project, where a command the model runs (or a
//! clone) can write `Bash(*)` into it. So mewcode writes it with a first line
//! `# mewcode-mark: <64 hex digits>`, the HMAC under this installation's key
//! (`session::Owner::file_mark`) of the file's path and every byte after that line. A local file
//! without a matching mark is not mewcode's: its allow rules never apply, trusted project or not
//! (the caller warns), and an "always" answer never builds on it: the file is moved aside to
//! `settings.local.yaml.rejected` and a new one holds only the new rule. A rule is never removed
//! from it either: marking what is left would adopt its allow rules.
//!
//! Invariant: reading never fails silently — unreadable YAML is an error naming the file; a
//! missing file is simply empty. Changing a list is idempotent (a rule already present is not
//! added again), keeps the other keys of the file, creates the file and its directory when
//! missing, never writes through a symbolic link, never loses the content of a file it did not
//! write (an unmarked local file is set aside; a file whose comments re-encoding drops is kept
//! as `<name>.bak`), and is atomic. Which levels' allow rules take effect (the trust gate, the
//! mark) is decided by the caller.

use super::rules::{Level, RuleList, RuleTexts};
use crate::config::hosts::HostPattern;
use crate::config::sandbox::AllowedHost;
use crate::fsx;
use crate::session::Owner;
use serde_yaml::{Mapping, Value};
use std::path::{Path, PathBuf};

/// The local settings file, relative to the root: "always" answers land here.
pub(crate) const LOCAL_SETTINGS: &str = ".mewcode/settings.local.yaml";

/// The project's settings file, relative to the root (committed, shared with the team).
pub(crate) const PROJECT_SETTINGS: &str = ".mewcode/settings.yaml";

/// The user's settings file, relative to `$MEWCODE_HOME`.
pub(crate) const USER_SETTINGS: &str = "settings.yaml";

/// Where the previous content of a settings file goes when re-encoding it drops its comments.
const BACKUP_SUFFIX: &str = ".bak";

/// How the first line of a local settings file mewcode wrote starts; the mark follows.
const MARK_PREFIX: &str = "# mewcode-mark: ";

/// The comment under the mark, saying what the file is.
const LOCAL_HEADER: &str = "\
# mewcode permission rules and allowed hosts for this checkout only (\"always\" answers land here; keep it out of git).
# Written and marked by mewcode: a change by anything else unmarks it, and then its allow rules and hosts are ignored.
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

/// The settings file of each level, nearest first (no project file when the project's
/// `.mewcode` is `home` itself: `config::project::shares_user_dir`).
pub(crate) fn settings_paths(root: &Path, home: &Path) -> Vec<(Level, PathBuf)> {
    let mut paths = vec![
        (Level::Local, root.join(LOCAL_SETTINGS)),
        (Level::Project, root.join(PROJECT_SETTINGS)),
        (Level::User, home.join(USER_SETTINGS)),
    ];
    // In `~` with the default `~/.mewcode`, the project's file is the user's: read once, as hers.
    if crate::config::project::shares_user_dir(root, home) {
        paths.retain(|(level, _)| *level != Level::Project);
    }
    paths
}

/// Reads one settings file's `permissions.allow`, `.ask` and `.deny` lists. A missing file
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

/// The `sandbox.allow_hosts` of the local settings file at `path`, with its mark: the caller
/// uses them only when the mark is [`Mark::Ours`] (a clone or a command can write this file).
/// A missing file has none; a bad entry is an error naming the file and the key path.
pub(crate) fn load_local_hosts(path: &Path, owner: &Owner) -> Result<(Vec<AllowedHost>, Mark), String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), Mark::Ours)),
        Err(err) => return Err(format!("{}: {err}", path.display())),
    };
    let hosts = parse_local_hosts(&text).map_err(|message| format!("{}: {message}", path.display()))?;
    let source = LOCAL_SETTINGS.to_string();
    let hosts = hosts.into_iter().map(|pattern| AllowedHost { pattern, source: source.clone() }).collect();
    Ok((hosts, check_mark(path, &text, owner)))
}

/// The `sandbox.allow_hosts` of a settings document (pure).
fn parse_local_hosts(text: &str) -> Result<Vec<HostPattern>, String> {
    let root: Value = serde_yaml::from_str(text).map_err(|err| format!("invalid YAML: {err}"))?;
    let sandbox = match root.get("sandbox") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Mapping(sandbox)) => sandbox,
        Some(_) => return Err("sandbox: expected a mapping with allow_hosts".to_string()),
    };
    crate::config::sandbox::parse_allow_hosts(sandbox.get("allow_hosts"))
        .map(Option::unwrap_or_default)
        .map_err(|(at, message)| format!("sandbox.allow_hosts{at}: {message}"))
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
            Some(_) => return Err("permissions: expected a mapping with allow, ask and deny lists".to_string()),
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
    Ok(RuleTexts { allow: list("allow")?, ask: list("ask")?, deny: list("deny")? })
}

/// A change to one list of a settings file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RuleEdit<'a> {
    /// Append these rules; those already in the list are skipped.
    Add(&'a [String]),
    /// Take this rule out of the list (every copy of it); an error when it is not there.
    Remove(&'a str),
}

/// What a change of a settings file did on disk.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Saved {
    /// How many rules were added or removed (none when every added rule was there already).
    pub changed: usize,
    /// Where the local file went when it was not mewcode's (its rules no longer apply), and why.
    pub set_aside: Option<(PathBuf, Mark)>,
    /// Where the previous content went because it had comments, which re-encoding drops.
    pub backup: Option<PathBuf>,
}

/// Changes one list of the local settings file under `root` (creating it) and marks the result
/// as this installation's (`owner`). A file there that is not mewcode's (`check_mark`) is never
/// built on: for an addition its content is kept under a free `.rejected` name next to it and
/// the new file holds only the new rules; a removal from it is refused. The file must be a plain
/// file inside the project: a repository can ship `.mewcode/settings.local.yaml` (or
/// `.mewcode`) as a symlink to a file elsewhere, and answering "always" must not write through
/// it.
pub(crate) fn save_local_rules(
    root: &Path,
    owner: &Owner,
    list: RuleList,
    edit: RuleEdit<'_>,
) -> Result<Saved, String> {
    save_local(root, owner, |path, existing| plan_local_save(path, existing, owner, list, edit))
}

/// Adds `host` to `sandbox.allow_hosts` of the local settings file under `root`, as
/// `save_local_rules` adds a rule: the file's text edited (`config::host_edit`), marked anew; a
/// file that is not mewcode's set aside first. `changed` is 0 when the host was listed already.
pub(crate) fn save_local_host(root: &Path, owner: &Owner, host: &HostPattern) -> Result<Saved, String> {
    save_local(root, owner, |path, existing| {
        plan_local_change(path, existing, owner, false, |body| {
            let edit = crate::config::host_edit::plan_add_host(body, host)?;
            Ok((edit.text, usize::from(edit.added)))
        })
    })
}

/// Writes the local settings file under `root` as `plan` says, given its path and content.
fn save_local(
    root: &Path,
    owner: &Owner,
    plan: impl FnOnce(&Path, &str) -> Result<LocalSave, String>,
) -> Result<Saved, String> {
    let rel = LOCAL_SETTINGS;
    let path = root.join(rel);
    if owner.file_mark(&path, b"").is_none() {
        let message = "this installation has no key to mark it with (see the warning about sessions at start-up)";
        return Err(format!("{}: {message}", path.display()));
    }
    let (canonical_root, existing) = read_beneath(root, rel)?;
    let plan = plan(&path, &existing).map_err(|message| format!("{}: {message}", path.display()))?;
    let LocalSave::Write { text, changed, set_aside } = plan else {
        return Ok(Saved { changed: 0, set_aside: None, backup: None });
    };
    prepare_dirs(&canonical_root, rel)?;
    // The old content is kept before the name is reused, so a failure loses nothing.
    let set_aside = match set_aside {
        Some(mark) => Some((keep_rejected(&canonical_root, rel, &existing)?, mark)),
        None => None,
    };
    fsx::write_atomic_beneath(&canonical_root, &path, text.as_bytes())
        .map_err(|err| format!("{}: {err}", path.display()))?;
    Ok(Saved { changed, set_aside, backup: None })
}

/// Changes one list of the settings file `base/rel` that mewcode does not mark: the project's
/// (`base` the root, `rel` `PROJECT_SETTINGS`) or the user's (`base` `$MEWCODE_HOME`, created
/// when missing, `rel` `USER_SETTINGS`). Only the `permissions` list changes, but the file is
/// re-encoded: when it had comments, its previous content is kept as `<rel>.bak` first.
pub(crate) fn save_plain_rules(base: &Path, rel: &str, list: RuleList, edit: RuleEdit<'_>) -> Result<Saved, String> {
    let path = base.join(rel);
    if !base.exists() {
        std::fs::create_dir_all(base).map_err(|err| format!("{}: {err}", base.display()))?;
    }
    let (canonical_base, existing) = read_beneath(base, rel)?;
    let (text, changed) =
        edit_rules(&existing, list, edit).map_err(|message| format!("{}: {message}", path.display()))?;
    if changed == 0 {
        return Ok(Saved { changed, set_aside: None, backup: None });
    }
    prepare_dirs(&canonical_base, rel)?;
    let backup = if has_comments(&existing) {
        let backup = canonical_base.join(format!("{rel}{BACKUP_SUFFIX}"));
        fsx::write_atomic_beneath(&canonical_base, &backup, existing.as_bytes())
            .map_err(|err| format!("{}: {err}", backup.display()))?;
        Some(backup)
    } else {
        None
    };
    fsx::write_atomic_beneath(&canonical_base, &canonical_base.join(rel), text.as_bytes())
        .map_err(|err| format!("{}: {err}", path.display()))?;
    Ok(Saved { changed, set_aside: None, backup })
}

/// The canonical `base` and the content of `base/rel` (empty when missing), once `rel` is known
/// to stay beneath `base` and not to be a symbolic link.
fn read_beneath(base: &Path, rel: &str) -> Result<(PathBuf, String), String> {
    let path = base.join(rel);
    let canonical_base =
        super::sandbox::check_path(base, ".", None).map_err(|denial| format!("{}: {denial}", base.display()))?;
    if let Err(denial) = super::sandbox::check_path(&canonical_base, rel, None) {
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
    Ok((canonical_base, existing))
}

/// Creates the directories of `rel` beneath `base` (`.mewcode`: mewcode's own, never through a
/// symbolic link), with the `.gitignore` that keeps what mewcode writes there out of git.
fn prepare_dirs(base: &Path, rel: &str) -> Result<(), String> {
    let rel_dir = Path::new(rel).parent().unwrap_or(Path::new(""));
    if rel_dir.as_os_str().is_empty() {
        return Ok(());
    }
    fsx::create_dirs_beneath(base, rel_dir).map_err(|err| err.to_string())?;
    // `.mewcode/settings.local.yaml` is the user's own: it must not show in `git status`.
    fsx::ensure_gitignored_dir(base, rel_dir).map_err(|err| format!("{}: {err}", base.join(rel_dir).display()))
}

/// True when a YAML text has a comment, which re-encoding would drop (pure; a `#` inside a
/// quoted rule is not one, but a line-based look is enough to decide on keeping a copy).
fn has_comments(text: &str) -> bool {
    text.lines().any(|line| {
        let line = line.trim_start();
        line.starts_with('#') || line.contains(" #")
    })
}

/// What changing the local file comes to (pure).
#[derive(Debug, PartialEq, Eq)]
enum LocalSave {
    /// Every added rule is there already in mewcode's own file.
    Unchanged,
    /// Write `text` (marked); `set_aside` says why the old content must be kept first.
    Write { text: String, changed: usize, set_aside: Option<Mark> },
}

/// Plans a change of the local file at `path` whose content is `existing` (empty when missing):
/// built on only when it is mewcode's, else started anew for an addition and refused for a
/// removal (pure).
fn plan_local_save(
    path: &Path,
    existing: &str,
    owner: &Owner,
    list: RuleList,
    edit: RuleEdit<'_>,
) -> Result<LocalSave, String> {
    let removal = matches!(edit, RuleEdit::Remove(_));
    plan_local_change(path, existing, owner, removal, |body| edit_rules(body, list, edit))
}

/// [`plan_local_save`] for any `change` of the body (the text under the mark and the header),
/// which returns the new body and how many entries it changed; a `removal` from a file that is
/// not mewcode's is refused.
fn plan_local_change(
    path: &Path,
    existing: &str,
    owner: &Owner,
    removal: bool,
    change: impl FnOnce(&str) -> Result<(String, usize), String>,
) -> Result<LocalSave, String> {
    let (body, set_aside) = if existing.trim().is_empty() {
        ("", None)
    } else {
        match check_mark(path, existing, owner) {
            Mark::Ours => (split_mark(existing).map_or("", |(_, body)| body), None),
            unmarked @ (Mark::Missing | Mark::Wrong) => ("", Some(unmarked)),
        }
    };
    if let (Some(mark), true) = (set_aside, removal) {
        return Err(format!("not changed: the file is not mewcode's, as {}; edit or delete it yourself", mark.why()));
    }
    // The header is written anew below; an edit that keeps comments must not see it twice.
    let (body, changed) = change(body.strip_prefix(LOCAL_HEADER).unwrap_or(body))?;
    if changed == 0 && set_aside.is_none() {
        return Ok(LocalSave::Unchanged);
    }
    let text = render_marked(path, &format!("{LOCAL_HEADER}{body}"), owner)
        .ok_or("this installation has no key to mark it with")?;
    Ok(LocalSave::Write { text, changed, set_aside })
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

/// The document with `edit` made to `permissions.<list>` (pure; adding is idempotent), and how
/// many rules it added or removed. A removal of a rule the list does not hold is an error.
/// Re-encoding drops comments (the local file's header is written anew by its caller).
fn edit_rules(existing: &str, list: RuleList, edit: RuleEdit<'_>) -> Result<(String, usize), String> {
    let key = list.as_str();
    let mut root: Value = if existing.trim().is_empty() {
        Value::Mapping(Mapping::new())
    } else {
        serde_yaml::from_str(existing).map_err(|err| format!("invalid YAML, not changed: {err}"))?
    };
    if root.is_null() {
        root = Value::Mapping(Mapping::new());
    }
    let Value::Mapping(map) = &mut root else { return Err("expected a mapping at the top level".to_string()) };
    let permissions = map.entry(Value::from("permissions")).or_insert_with(|| Value::Mapping(Mapping::new()));
    if permissions.is_null() {
        *permissions = Value::Mapping(Mapping::new());
    }
    let Value::Mapping(permissions) = permissions else { return Err("permissions: expected a mapping".to_string()) };
    let rules = permissions.entry(Value::from(key)).or_insert_with(|| Value::Sequence(Vec::new()));
    if rules.is_null() {
        *rules = Value::Sequence(Vec::new());
    }
    let Value::Sequence(rules) = rules else { return Err(format!("permissions.{key}: expected a list")) };
    let changed = match edit {
        RuleEdit::Add(added) => {
            let mut count = 0;
            for rule in added {
                if !rules.iter().any(|present| present.as_str() == Some(rule.as_str())) {
                    rules.push(Value::from(rule.as_str()));
                    count += 1;
                }
            }
            count
        }
        RuleEdit::Remove(removed) => {
            let before = rules.len();
            rules.retain(|present| present.as_str() != Some(removed));
            match before - rules.len() {
                0 => return Err(format!("permissions.{key} does not hold {removed:?} (changed since start-up?)")),
                count => count,
            }
        }
    };
    let body = serde_yaml::to_string(&root).map_err(|err| format!("cannot encode: {err}"))?;
    Ok((body, changed))
}

#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;
