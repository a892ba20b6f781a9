//! Tests that cannot run on this machine say so where the run's summary shows it: libtest has no
//! "skipped" outcome (an early return prints `ok`), so each skip is also a line in the file
//! `$MEWCODE_SKIP_LOG` names, which `make test` empties before the run and prints after it.
//! Shared by the integration tests and, through `#[path]`, the unit tests that need the kernel.

use std::io::Write;

/// Records that the current test did not run, and why. Under `CI=true` a skip of something CI
/// installs is a failure instead (`required_in_ci`): a missing dependency must not pass as `ok`.
pub(crate) fn skip(reason: &str, required_in_ci: bool) {
    let test = std::thread::current().name().unwrap_or("(unnamed test)").to_string();
    if required_in_ci && std::env::var("CI").is_ok_and(|value| value == "true") {
        panic!("{test}: cannot run under CI: {reason}");
    }
    eprintln!("{test}: skipped: {reason}");
    let Some(log) = std::env::var_os("MEWCODE_SKIP_LOG") else { return };
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log)
        .and_then(|mut file| file.write_all(format!("{test}: {reason}\n").as_bytes()));
    if let Err(err) = written {
        panic!("{test}: skipped ({reason}), and the skip could not be recorded in {}: {err}", log.display());
    }
}
