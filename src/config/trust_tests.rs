//! Unit tests of `trust.rs`: trusted roots remembered, lost on change, and old stores read.

use super::*;
use crate::test_dir::TempDir;

#[test]
fn trust_is_remembered_and_lost_when_a_file_changes() {
    let dir = TempDir::new("trust");
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
}

#[test]
fn an_mcp_json_appearing_or_changing_asks_again_and_its_absence_keeps_old_fingerprints() {
    let dir = TempDir::new("trust-mcp");
    let (home, root) = (dir.join("home"), dir.join("proj"));
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join(".mewcode.yaml"), "mcp_servers: {}\n").unwrap();
    // The fingerprint of a project without .mcp.json is what it was before .mcp.json counted.
    let mut before = Vec::new();
    before.extend_from_slice(b".mewcode.yaml\0present\0");
    before.extend_from_slice(b"16\0mcp_servers: {}\n");
    before.extend_from_slice(b".mewcode/settings.yaml\0absent\0");
    assert_eq!(project_fingerprint(&root, &home), sha256_hex(&before));
    save_trust(&home, &root).unwrap();
    std::fs::write(root.join(".mcp.json"), r#"{"mcpServers": {"x": {"command": "evil"}}}"#).unwrap();
    assert!(!is_trusted(&home, &root), "a new .mcp.json asks again");
    save_trust(&home, &root).unwrap();
    assert!(is_trusted(&home, &root));
    std::fs::write(root.join(".mcp.json"), r#"{"mcpServers": {"x": {"command": "worse"}}}"#).unwrap();
    assert!(!is_trusted(&home, &root), "a changed .mcp.json asks again");
}

#[test]
fn a_store_from_before_the_mark_still_trusts_and_loses_its_local_hashes_at_the_next_write() {
    let dir = TempDir::new("trust-old");
    let (home, root, other) = (dir.join("home"), dir.join("proj"), dir.join("other"));
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&other).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let old = format!(
        "projects:\n- path: {}\n  sha256: {}\n  local_sha256: abc\n- path: {}\n  sha256: ''\n  local_sha256: def\n",
        root.display(),
        project_fingerprint(&root, &home),
        other.display()
    );
    std::fs::write(home.join(TRUSTED_FILE), old).unwrap();
    assert!(is_trusted(&home, &root), "an unknown key does not make the store unreadable");
    assert!(!is_trusted(&home, &other));
    save_trust(&home, &root).unwrap();
    let text = std::fs::read_to_string(home.join(TRUSTED_FILE)).unwrap();
    assert!(!text.contains("local_sha256"), "{text}");
    assert!(!text.contains(&other.display().to_string()), "an entry that trusts nothing is dropped: {text}");
    assert!(is_trusted(&home, &root));
}

#[test]
fn in_the_home_directory_the_users_own_settings_do_not_count_as_the_projects() {
    let dir = TempDir::new("trust-home");
    let root = dir.join("u");
    let home = root.join(".mewcode");
    std::fs::create_dir_all(&home).unwrap();
    save_trust(&home, &root).unwrap();
    std::fs::write(home.join("settings.yaml"), "permissions: {allow: [\"Read(*)\"]}\n").unwrap();
    assert!(is_trusted(&home, &root), "the user's settings file is not a project file");
    std::fs::write(root.join(".mewcode.yaml"), "mcp_servers: {}\n").unwrap();
    assert!(!is_trusted(&home, &root), "~/.mewcode.yaml still is");
}

fn names(hosts: Vec<Host>) -> Vec<String> {
    hosts.iter().map(ToString::to_string).collect()
}

fn set_remotes(root: &Path, urls: &[&str]) {
    std::fs::create_dir_all(root.join(".git")).unwrap();
    let config: String =
        urls.iter().enumerate().map(|(at, url)| format!("[remote \"r{at}\"]\n\turl = {url}\n")).collect();
    std::fs::write(root.join(".git/config"), config).unwrap();
}

#[test]
fn trusting_remembers_the_remote_hosts_of_that_moment_and_a_later_remote_is_not_remembered() {
    let dir = TempDir::new("trust-remotes");
    let (home, root) = (dir.join("home"), dir.join("proj"));
    set_remotes(&root, &["git@github.com:o/r.git", "https://GitLab.com/o/r"]);
    assert!(remembered_remote_hosts(&home, &root).is_empty(), "nothing trusted, nothing remembered");
    save_trust(&home, &root).unwrap();
    assert_eq!(names(remembered_remote_hosts(&home, &root)), ["github.com", "gitlab.com"]);
    set_remotes(&root, &["git@github.com:o/r.git", "https://GitLab.com/o/r", "https://attacker.example/x"]);
    assert_eq!(names(remembered_remote_hosts(&home, &root)), ["github.com", "gitlab.com"]);
    assert!(is_trusted(&home, &root), "the remotes are not part of the fingerprint");
    // Trusting again (the person said yes to the project as it is now) remembers the remotes anew.
    save_trust(&home, &root).unwrap();
    assert_eq!(names(remembered_remote_hosts(&home, &root)).len(), 3);
    assert!(remembered_remote_hosts(&home, &dir.join("other")).is_empty());
}

#[test]
fn a_record_from_before_the_remotes_still_trusts_and_remembers_no_remote() {
    let dir = TempDir::new("trust-remotes-old");
    let (home, root) = (dir.join("home"), dir.join("proj"));
    set_remotes(&root, &["https://github.com/o/r"]);
    std::fs::create_dir_all(&home).unwrap();
    let old = format!("projects:\n- path: {}\n  sha256: {}\n", root.display(), project_fingerprint(&root, &home));
    std::fs::write(home.join(TRUSTED_FILE), old).unwrap();
    assert!(is_trusted(&home, &root));
    assert!(remembered_remote_hosts(&home, &root).is_empty(), "missing field: no remotes remembered");
    // Nor does a first look remember them behind the user's back: the entry exists.
    assert!(remember_remote_hosts_once(&home, &root).unwrap().is_empty());
    save_trust(&home, &root).unwrap();
    assert_eq!(names(remembered_remote_hosts(&home, &root)), ["github.com"]);
}

#[test]
fn a_project_seen_for_the_first_time_has_its_remotes_remembered_and_nothing_trusted() {
    let dir = TempDir::new("trust-remotes-first");
    let (home, root) = (dir.join("home"), dir.join("proj"));
    set_remotes(&root, &["https://github.com/o/r"]);
    assert_eq!(names(remember_remote_hosts_once(&home, &root).unwrap()), ["github.com"]);
    assert!(!is_trusted(&home, &root), "remembering remotes trusts no config");
    set_remotes(&root, &["https://github.com/o/r", "https://attacker.example/x"]);
    assert_eq!(names(remember_remote_hosts_once(&home, &root).unwrap()), ["github.com"], "only the first time");
    // The entry survives another project's trust, and a later trust of its own.
    save_trust(&home, &dir.join("other")).unwrap();
    assert_eq!(names(remembered_remote_hosts(&home, &root)), ["github.com"]);
    let no_remotes = dir.join("plain");
    std::fs::create_dir_all(&no_remotes).unwrap();
    assert!(remember_remote_hosts_once(&home, &no_remotes).unwrap().is_empty());
    let text = std::fs::read_to_string(home.join(TRUSTED_FILE)).unwrap();
    assert!(text.contains(&format!("path: {}\n  sha256: ''\n  git_remotes: []", no_remotes.display())), "{text}");
}
