//! mewcode: a terminal AI coding agent. The library holds every layer; `main.rs` only maps the
//! outcome of `app::main` to an exit code. See ARCHITECTURE.md for the map and the layer rule.
#![warn(unreachable_pub)]

// L0 leaves
pub mod cancel;
pub(crate) mod clock;
pub(crate) mod digest;
pub(crate) mod fsx;
pub mod proc;
pub mod sse;
pub(crate) mod sync;
pub mod sys;
#[cfg(test)]
mod test_golden;
#[cfg(test)]
mod test_rng;
pub(crate) mod text;
pub(crate) mod url;
// L1 vocabulary
pub mod mode;
pub mod msg;
pub mod warning;
// L2 components
pub mod config;
pub mod confine;
pub mod context;
pub mod hooks;
pub mod llm;
pub mod mcp;
pub mod permission;
pub mod session;
pub mod tools;
// L3 agent
pub mod agent;
// L4 front ends
pub(crate) mod doctor;
pub(crate) mod headless;
pub(crate) mod mcp_cli;
pub mod repl;
// L5 wiring
pub mod app;
pub mod cli;
