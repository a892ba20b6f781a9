//! Test support shared by the integration tests: a scripted fake model server that records and
//! validates every request, and temp project / MEWCODE_HOME directories.
#![allow(dead_code, unused_imports)]

pub mod fake_model;
pub mod mcp_servers;
pub mod project;
pub mod script;
pub mod skip;
pub mod tmux;
pub mod validate;

pub use fake_model::{FakeModel, RecordedRequest, Reply};
pub use project::{Provider, TempDir, TestEnv};
