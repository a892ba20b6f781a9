//! mewcode: a terminal AI coding agent. The library holds every layer; `main.rs` only maps the
//! outcome of `app::main` to an exit code. See ARCHITECTURE.md for the map and the layer rule.

pub mod cancel;
pub mod config;
pub mod llm;
pub mod mode;
pub mod msg;
pub mod permission;
pub mod sse;
pub mod tools;
