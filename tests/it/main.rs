//! The integration test binary: runs the real `mewcode` against temp projects and fake servers.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout, clippy::print_stderr)]

#[path = "../support/mod.rs"]
mod support;

mod cli;
mod harness;
mod print;
mod repl;
mod tidy;
