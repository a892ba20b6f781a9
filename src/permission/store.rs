//! The three settings files (SPEC §1.2): reading their rule texts, and persisting "always allow"
//! answers into `.mewcode/settings.local.yaml`.
//!
//! Invariant: reading never fails silently — unreadable YAML is an error naming the file; a
//! missing file is simply empty. Persisting is idempotent (a rule already present is not added
//! again), keeps the file's other keys, creates the file and its directory when missing, and is
//! atomic. Which levels' allow rules take effect (the trust gate) is decided by the caller.

use super::rules::{Level, RuleTexts};
use crate::fsx;
use serde_yaml::{Mapping, Value};
use std::path::{Path, PathBuf};

/// The settings file of each level, nearest first.
pub(crate) fn settings_paths(root: &Path, home: &Path) -> [(Level, PathBuf); 3] {
    [
        (Level::Local, root.join(".mewcode/settings.local.yaml")),
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

/// Adds allow rules to the settings file `rel` under `root` (creating it), skipping those
/// already present. Returns how many were added. The file must be a plain file inside the
/// project: a repository can ship `.mewcode/settings.local.yaml` (or `.mewcode`) as a symlink
/// to a file elsewhere, and answering "always" must not write through it.
pub(crate) fn save_allow_rules(root: &Path, rel: &str, rules: &[String]) -> Result<usize, String> {
    let path = root.join(rel);
    let root = super::sandbox::check_path(root, ".", None).map_err(|denial| format!("{}: {denial}", root.display()))?;
    if let Err(denial) = super::sandbox::check_path(&root, rel, None) {
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
    let (text, added) =
        add_allow_rules(&existing, rules).map_err(|message| format!("{}: {message}", path.display()))?;
    if added == 0 {
        return Ok(0);
    }
    // Its directories (`.mewcode`) are mewcode's own: created beneath the root, never through a
    // symbolic link (the check above allows one that stays inside the project).
    let rel_dir = Path::new(rel).parent().unwrap_or(Path::new(""));
    fsx::create_dirs_beneath(&root, rel_dir).map_err(|err| err.to_string())?;
    // `.mewcode/settings.local.yaml` is the user's own: it must not show in `git status`.
    if rel_dir.file_name().is_some_and(|name| name == ".mewcode") {
        fsx::ensure_gitignored_dir(&root, rel_dir).map_err(|err| format!("{}: {err}", root.join(rel_dir).display()))?;
    }
    fsx::write_atomic_beneath(&root, &path, text.as_bytes()).map_err(|err| format!("{}: {err}", path.display()))?;
    Ok(added)
}

/// The document with `rules` appended to `permissions.allow` (pure; idempotent).
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
    let body = serde_yaml::to_string(&root).map_err(|err| format!("cannot encode: {err}"))?;
    let header = if existing.trim().is_empty() {
        "# mewcode permission rules for this checkout only (\"always\" answers land here; keep it out of git).\n"
    } else {
        ""
    };
    Ok((format!("{header}{body}"), added))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_both_lists_and_reports_bad_shapes() {
        let texts =
            parse_rule_texts("permissions:\n  allow: [\"Bash(git *)\", \"Read(src/**)\"]\n  deny: [\"Read(.env)\"]\n")
                .unwrap();
        assert_eq!(texts.allow, ["Bash(git *)", "Read(src/**)"]);
        assert_eq!(texts.deny, ["Read(.env)"]);
        assert_eq!(parse_rule_texts("").unwrap(), RuleTexts::default());
        assert_eq!(parse_rule_texts("other: 1\n").unwrap(), RuleTexts::default());
        assert_eq!(
            parse_rule_texts("permissions:\n  allow: [1]\n").unwrap_err(),
            "permissions.allow[0]: expected a rule string like \"Bash(git *)\""
        );
        assert!(parse_rule_texts("permissions: [\n").unwrap_err().starts_with("invalid YAML"));
        assert_eq!(
            parse_rule_texts("permissions: yes\n").unwrap_err(),
            "permissions: expected a mapping with allow and deny lists"
        );
    }

    #[test]
    fn adding_rules_is_idempotent_and_keeps_other_keys() {
        let rule = vec!["Bash(=rm -rf build/*)".to_string()];
        let (first, added) = add_allow_rules("", &rule).unwrap();
        assert_eq!(added, 1);
        assert_eq!(parse_rule_texts(&first).unwrap().allow, rule);
        let (second, added) = add_allow_rules(&first, &rule).unwrap();
        assert_eq!((added, second.matches("rm -rf build").count()), (0, 1));
        let (kept, _) = add_allow_rules("permissions:\n  deny: [\"Read(.env)\"]\nnote: mine\n", &rule).unwrap();
        let texts = parse_rule_texts(&kept).unwrap();
        assert_eq!((texts.allow, texts.deny), (rule.clone(), vec!["Read(.env)".to_string()]));
        assert!(kept.contains("note: mine"));
        assert!(add_allow_rules("permissions: [\n", &rule).is_err(), "a broken file is never overwritten");
    }

    #[test]
    fn save_creates_the_file_and_its_directory() {
        let dir = std::env::temp_dir().join(format!("mewcode-store-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let rel = ".mewcode/settings.local.yaml";
        let rules = vec!["Write(=notes.md)".to_string()];
        assert_eq!(save_allow_rules(&dir, rel, &rules).unwrap(), 1);
        assert_eq!(save_allow_rules(&dir, rel, &rules).unwrap(), 0);
        assert_eq!(load_rule_texts(&dir.join(rel)).unwrap().allow, rules);
        // The local file is the user's own: kept out of git by mewcode's `.gitignore`.
        assert_eq!(std::fs::read_to_string(dir.join(".mewcode/.gitignore")).unwrap(), fsx::MEWCODE_DIR_GITIGNORE);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn save_never_writes_through_a_planted_symlink() {
        let base = std::env::temp_dir().join(format!("mewcode-store-link-{}", std::process::id()));
        let (project, outside) = (base.join("project"), base.join("outside"));
        std::fs::create_dir_all(project.join(".mewcode")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("victim.yaml"), "").unwrap();
        let rel = ".mewcode/settings.local.yaml";
        let rules = vec!["Bash(=ls)".to_string()];
        // The file itself links out.
        std::os::unix::fs::symlink(outside.join("victim.yaml"), project.join(rel)).unwrap();
        assert!(save_allow_rules(&project, rel, &rules).unwrap_err().contains("outside the project"));
        // The file links to another file inside the project.
        std::fs::remove_file(project.join(rel)).unwrap();
        std::fs::write(project.join("AGENTS.md"), "").unwrap();
        std::os::unix::fs::symlink("../AGENTS.md", project.join(rel)).unwrap();
        assert!(save_allow_rules(&project, rel, &rules).unwrap_err().contains("symbolic link"));
        // The directory links out.
        std::fs::remove_dir_all(project.join(".mewcode")).unwrap();
        std::os::unix::fs::symlink(&outside, project.join(".mewcode")).unwrap();
        assert!(save_allow_rules(&project, rel, &rules).is_err());
        // The directory links to another directory inside the project: mewcode's own directory
        // is never a link, wherever it points.
        std::fs::remove_file(project.join(".mewcode")).unwrap();
        std::fs::create_dir_all(project.join("docs")).unwrap();
        std::os::unix::fs::symlink("docs", project.join(".mewcode")).unwrap();
        let err = save_allow_rules(&project, rel, &rules).unwrap_err();
        assert!(err.contains(".mewcode is a symbolic link; mewcode does not write through it"), "{err}");
        assert_eq!(std::fs::read_dir(project.join("docs")).unwrap().count(), 0);
        assert_eq!(std::fs::read_to_string(outside.join("victim.yaml")).unwrap(), "");
        assert_eq!(std::fs::read_to_string(project.join("AGENTS.md")).unwrap(), "");
        assert!(!outside.join("settings.local.yaml").exists());
        assert!(!outside.join(".gitignore").exists());
        let _ = std::fs::remove_dir_all(&base);
    }
}
