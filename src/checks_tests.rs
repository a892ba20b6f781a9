//! Unit tests of `checks.rs`: which checks run for a written file, what a failing one reports,
//! and what a passing one does not, with real commands.

use super::*;
use crate::config::checks::Glob;
use crate::test_dir::TempDir;
use std::sync::Mutex;

fn check(pattern: &str, command: &str, timeout_s: u64) -> CheckConfig {
    let pattern = Glob::parse(pattern).unwrap();
    CheckConfig { pattern, command: command.to_string(), timeout_s, source: "test".to_string() }
}

fn checks_in(dir: &Path, checks: Vec<CheckConfig>) -> Checks {
    let path = std::env::var("PATH").unwrap_or_default();
    Checks::new(checks, dir.to_path_buf(), vec![("PATH".into(), path)], Arc::default())
}

#[test]
fn a_passing_check_adds_nothing_and_a_failing_one_reports_its_output() {
    let dir = TempDir::new("checks-run");
    dir.write("ok.py", "x = 1\n");
    let checks = checks_in(
        dir.path(),
        vec![
            check("**/*.py", "echo seen {file} >> log", 5),
            check("*.txt", "echo never >> log", 5),
            check("**/*.py", "echo 'bad thing in' {file} >&2; exit 3", 5),
            check("**/*.py", "true", 5),
        ],
    );
    let cancel = CancelToken::new();
    let report = checks.after_write(&dir.join("ok.py"), &cancel, None);
    assert_eq!(
        report,
        "\n\nCHECK FAILED: `echo 'bad thing in' ok.py >&2; exit 3` exited with code 3. The write itself succeeded; \
         fix what the check reports. Its output:\nbad thing in ok.py"
    );
    assert_eq!(std::fs::read_to_string(dir.join("log")).unwrap(), "seen ok.py\n", "in the root, in order");
    let passing = checks_in(dir.path(), vec![check("**/*.py", "exit 0", 5)]);
    assert_eq!(passing.after_write(&dir.join("ok.py"), &cancel, None), "");
}

#[test]
fn only_files_inside_the_project_are_checked() {
    let dir = TempDir::new("checks-outside");
    dir.mkdir("proj");
    let checks = checks_in(&dir.join("proj"), vec![check("**", "exit 1", 5)]);
    let cancel = CancelToken::new();
    assert_eq!(checks.after_write(&dir.join("elsewhere.py"), &cancel, None), "");
    assert_eq!(checks.after_write(&dir.join("proj"), &cancel, None), "");
    assert!(checks.after_write(&dir.join("proj/a/b.py"), &cancel, None).contains("exited with code 1"));
    assert_eq!(checks.relative(&dir.join("proj/a/b.py")).as_deref(), Some("a/b.py"));
    assert_eq!(checks.relative(&dir.join("proj")), None);
    assert_eq!(checks.relative(&dir.join("other")), None);
}

#[test]
fn a_check_that_hangs_is_killed_at_its_timeout_and_reported() {
    let dir = TempDir::new("checks-timeout");
    let checks = checks_in(dir.path(), vec![check("*", "echo started; sleep 30", 1)]);
    let started = std::time::Instant::now();
    let report = checks.after_write(&dir.join("a.rs"), &CancelToken::new(), None);
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(
        report,
        "\n\nCHECK FAILED: `echo started; sleep 30` timed out after 1 s and was killed. The write itself succeeded. \
         Its output:\nstarted"
    );
}

#[test]
fn a_cancelled_run_runs_no_check() {
    let dir = TempDir::new("checks-cancel");
    let checks = checks_in(dir.path(), vec![check("*", "touch ran", 5), check("*", "touch ran2", 5)]);
    let cancel = CancelToken::new();
    cancel.cancel();
    let report = checks.after_write(&dir.join("a.rs"), &cancel, None);
    assert_eq!(
        report,
        "\n\nCHECK FAILED: `touch ran` was cancelled by the user. The write itself succeeded. (no output)"
    );
    assert!(!dir.join("ran").exists() && !dir.join("ran2").exists());
}

#[test]
fn the_live_view_shows_each_check_and_its_output() {
    let dir = TempDir::new("checks-live");
    let checks = checks_in(dir.path(), vec![check("*", "echo one; echo two", 5)]);
    let lines = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&lines);
    let progress = Progress::new(move |line| crate::sync::lock(&seen).push(line.to_string()));
    assert_eq!(checks.after_write(&dir.join("a b.rs"), &CancelToken::new(), Some(&progress)), "");
    assert_eq!(*crate::sync::lock(&lines), ["check: echo one; echo two", "one", "two"]);
}

#[test]
fn a_check_that_rewrites_the_file_says_to_read_it_again() {
    let dir = TempDir::new("checks-rewrite");
    dir.write("a.py", "x=1\n");
    let checks = checks_in(dir.path(), vec![check("*.py", "printf 'x = 1\\n' > {file}", 5)]);
    let report = checks.after_write(&dir.join("a.py"), &CancelToken::new(), None);
    assert_eq!(report, "\n\nnote: a check changed a.py after the write; read it again before you edit it.");
}

#[test]
fn endings_map_to_failures() {
    use std::os::unix::process::ExitStatusExt;
    let exited = |raw: i32| Ending::Exited(std::process::ExitStatus::from_raw(raw));
    assert_eq!(judge(exited(0), 5), None);
    assert_eq!(judge(exited(1 << 8), 5), Some(Failure::Exit(1)));
    assert_eq!(judge(exited(9), 5), Some(Failure::Signal(9)));
    assert_eq!(judge(Ending::TimedOut, 7), Some(Failure::TimedOut(7)));
    assert_eq!(judge(Ending::Cancelled, 7), Some(Failure::Cancelled));
    let lost = judge(Ending::WaitFailed(std::io::Error::other("gone")), 7);
    assert_eq!(lost, Some(Failure::Lost("gone".to_string())));
}

#[test]
fn every_failure_reads_as_one() {
    let cases = [
        (
            Failure::Signal(9),
            "out\n",
            "`c` was killed by signal 9. The write itself succeeded; fix what the check reports. Its output:\nout",
        ),
        (
            Failure::Lost("gone".into()),
            "",
            "`c` was lost track of (gone) and killed. The write itself succeeded. (no output)",
        ),
        (
            Failure::NotStarted("denied by sandbox: x".into()),
            " \n",
            "`c` could not run: denied by sandbox: x. The write itself succeeded. (no output)",
        ),
    ];
    for (failure, output, expected) in cases {
        assert_eq!(render_failure("c", &failure, output), format!("\n\nCHECK FAILED: {expected}"));
    }
}
