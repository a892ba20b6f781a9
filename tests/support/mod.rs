//! Test support shared by the integration tests: a scripted fake model server that records and
//! validates every request, and temp project / MEWCODE_HOME directories.
#![allow(dead_code, unused_imports)]

pub mod fake_model;
pub mod mcp_servers;
pub mod project;
pub mod script;
pub mod skip;
pub mod tmux;
pub mod tree;
pub mod validate;

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
