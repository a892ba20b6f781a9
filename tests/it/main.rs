//! The integration test binary: runs the real `mewcode` against temp projects and fake servers.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout, clippy::print_stderr)]

#[path = "../support/mod.rs"]
mod support;

mod agent;
mod attack_classes;
mod background_jobs;
mod checks;
mod cli;
mod confinement;
mod connections;
mod consoles;
mod context;
mod custom_commands;
mod discovery_memory;
mod env_gateways;
mod env_start;
mod errors;
mod habits;
mod harness;
mod home_dir;
mod hooks;
mod input_line;
mod instruction_imports;
mod lean_request;
mod llama_cpp_python;
mod llama_cpp_python_4k;
mod local_models;
mod markdown;
mod mcp;
mod mcp_config;
mod mcp_live;
mod mentions;
mod network_policy;
mod permissions;
mod permissions_command;
mod piped;
mod print;
mod print_vocabulary;
mod project;
mod read_before_write;
mod repl;
mod repl_edits;
mod rewind;
mod run_permissions;
mod sandbox;
mod script_errors;
mod search_path;
mod server_counts;
mod session;
mod skills;
mod small_window;
mod terminal;
mod tidy;
mod typeahead;
mod walk;
