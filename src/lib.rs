//! mewcode: a terminal AI coding agent. The library holds every layer; `main.rs` only maps the
//! outcome of `app::main` to an exit code. See ARCHITECTURE.md for the map and the layer rule.

pub mod cancel;
pub mod config;
pub mod fsx;
pub mod llm;
pub mod msg;
pub mod sse;
pub mod sys;
pub mod tools;
