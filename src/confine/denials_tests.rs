//! Unit tests of `denials.rs`: which output lines are explained as sandbox denials, and how.

use super::*;

fn check(output: &str, expected: &[&str]) {
    let writable = vec![PathBuf::from("/p"), PathBuf::from("/tmp/mewcode-1")];
    let hidden = vec![PathBuf::from("/h/.ssh"), PathBuf::from("/dev")];
    let devices = vec![PathBuf::from("/dev/null")];
    let allowed = Allowed { writable: &writable, hidden: &hidden, devices: &devices, cwd: Path::new("/p/sub") };
    assert_eq!(explain(output, &allowed), expected, "{output}");
}

fn outside(paths: &str) -> String {
    format!(
        "denied by sandbox: write outside the project: {paths} (only the project and $TMPDIR are writable; sandbox.writable in the user's config adds paths)"
    )
}

#[test]
fn common_denial_messages_name_their_path() {
    check("bash: /etc/x: Permission denied\nexit", &[&outside("/etc/x")]);
    check("touch: cannot touch '/h/y': Permission denied", &[&outside("/h/y")]);
    check("rm: cannot remove '../../etc/passwd': Permission denied", &[&outside("/etc/passwd")]);
    check("PermissionError: [Errno 13] Permission denied: '/usr/lib/x.so'", &[&outside("/usr/lib/x.so")]);
    check(
        "cat: /h/.ssh/id_ed25519: Permission denied",
        &[
            "denied by sandbox: a protected secret store: /h/.ssh/id_ed25519 (sandbox.readable_secrets in the user's config lists the ones commands may read)",
        ],
    );
    check("bash: /dev/tty: No such device or address", &[]);
    check(
        "sh: 1: cannot create /dev/pts/0: Permission denied",
        &[
            "denied by sandbox: commands have no terminal: /dev/pts/0 (run it without a terminal, or ask the user to run it)",
        ],
    );
    check("mv: cannot move 'a' to '/srv/a': Operation not permitted", &[&outside("/srv/a")]);
    // An unbalanced quote or backtick before the path still leaves the path a word.
    check("error: `/etc/b: Permission denied", &[&outside("/etc/b")]);
    check("error: \"/etc/c: Permission denied", &[&outside("/etc/c")]);
    check("bash: ../../etc/d: Permission denied", &[&outside("/etc/d")]);
    check("bash: ./../../../etc/e: Permission denied", &[&outside("/etc/e")]);
    check("touch: cannot touch '/etc/my file': Permission denied", &[&outside("/etc/my file")]);
    check("error: 'Cannot write' here: Permission denied", &[]);
    let terminal = |path: &str| {
        format!(
            "denied by sandbox: commands have no terminal: {path} (run it without a terminal, or ask the user to run it)"
        )
    };
    for device in ["/dev/tty", "/dev/console", "/dev/tty1"] {
        check(&format!("cat: {device}: Permission denied"), &[&terminal(device)]);
    }
}

#[test]
fn kinds_are_grouped_in_order_of_appearance_and_paths_capped() {
    let output = "/etc/a: Permission denied\ncat: /h/.ssh/k: Permission denied\n/etc/b: Permission denied";
    let explained = explain_with_defaults(output);
    assert_eq!(explained.len(), 2);
    assert!(explained[0].starts_with("denied by sandbox: write outside the project: /etc/a, /etc/b ("));
    assert!(explained[1].starts_with("denied by sandbox: a protected secret store: /h/.ssh/k ("));
    let many: String = (0..9).map(|n| format!("/etc/{n}: Permission denied\n")).collect();
    check(&many, &[&outside("/etc/0, /etc/1, /etc/2, /etc/3, /etc/4 and 4 more")]);
}

fn explain_with_defaults(output: &str) -> Vec<String> {
    let writable = vec![PathBuf::from("/p")];
    let hidden = vec![PathBuf::from("/h/.ssh")];
    let allowed = Allowed { writable: &writable, hidden: &hidden, devices: &[], cwd: Path::new("/p") };
    explain(output, &allowed)
}

#[test]
fn only_output_that_reports_a_refusal_or_a_missing_file_may_be_explained() {
    assert!(may_explain("cat: /x: Permission denied") && may_explain("ls: /x: No such file or directory"));
    assert!(may_explain("touch: /x: Read-only file system") && may_explain("Operation not permitted"));
    assert!(!may_explain("all good\nexit 0"));
}

#[test]
fn a_missing_secret_is_explained_and_another_missing_file_is_not() {
    let explained = explain_with_defaults(
        "cat: /h/.ssh/id_rsa: No such file or directory\ncat: /etc/nope: No such file or directory",
    );
    assert_eq!(explained.len(), 1, "{explained:?}");
    assert!(explained[0].starts_with("denied by sandbox: a protected secret store: /h/.ssh/id_rsa"), "{explained:?}");
    assert!(explain_with_defaults("ls: cannot access '/p/x': No such file or directory").is_empty());
}

#[test]
fn allowed_paths_and_unrelated_lines_are_left_alone() {
    check("bash: /p/x: Permission denied", &[]);
    check("bash: /tmp/mewcode-1/x: Permission denied", &[]);
    check("bash: /dev/null: Permission denied", &[]);
    check("error: /etc/x not found", &[]);
    check("", &[]);
    check("/etc/a: Permission denied\n/etc/a: Permission denied", &[&outside("/etc/a")]);
}
