//! Test support shared by the integration tests: a scripted fake model server that records and
//! validates every request, and temp project / MEWCODE_HOME directories.
#![allow(dead_code, unused_imports)]

pub mod confined;
pub mod fake_model;
pub mod mcp_servers;
pub mod project;
pub mod script;
pub mod skip;
pub mod snapshot;
pub mod tmux;
pub mod tree;
pub mod validate;
pub mod visible;

pub use fake_model::{FakeModel, RecordedRequest, Reply};
pub use project::{Provider, TempDir, TestEnv};

/// True for the `YYYYMMDD-HHMMSS-xxxx` shape of a session id, stated here independently of the
/// code that makes them.
pub fn is_session_id(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 20
        && bytes[..8].iter().all(u8::is_ascii_digit)
        && bytes[8] == b'-'
        && bytes[9..15].iter().all(u8::is_ascii_digit)
        && bytes[15] == b'-'
        && bytes[16..].iter().all(|b| b.is_ascii_hexdigit())
}

/// Host pids of running (not zombie) processes whose command line is exactly `argv`. Commands
/// run in their own pid namespace, so a pid they print (`$!`, `$$`) means nothing out here: tests
/// give a process a unique command line (`sleep 300.4711`) and look for it instead.
pub fn running_with_argv(argv: &[&str]) -> Vec<u32> {
    let wanted: Vec<u8> = argv.iter().flat_map(|arg| arg.bytes().chain(std::iter::once(0))).collect();
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|cmdline| cmdline == wanted))
        .filter(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            !stat.is_empty() && !stat.rsplit(')').next().unwrap_or("").trim_start().starts_with('Z')
        })
        .collect()
}

/// Waits (≤ `seconds`) until `argv` runs (`true`) or until it no longer runs (`false`).
pub fn await_running(argv: &[&str], running: bool, seconds: u64) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    while running_with_argv(argv).is_empty() == running {
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    true
}

/// Waits (≤ `seconds`) until `path` exists.
pub fn await_path(path: &std::path::Path, seconds: u64) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    while !path.exists() {
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    true
}
