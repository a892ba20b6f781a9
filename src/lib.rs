//! mewcode: a terminal AI coding agent. The library holds every layer; `main.rs` only maps the
//! outcome of `app::main` to an exit code. See ARCHITECTURE.md for the map and the layer rule.
//!
//! Every module is `pub(crate)`: the crate's external surface is the re-exports at the end of this
//! file and nothing else. So rustc sees the whole crate at once: `unreachable_pub` flags a `pub`
//! item that no other crate can reach (write `pub(crate)`, or less), and `dead_code` flags what
//! nothing calls (delete it; a test alone is no reason to keep product code).
#![warn(unreachable_pub)]

// L0 leaves
pub(crate) mod cancel;
pub(crate) mod clock;
pub(crate) mod diff;
pub(crate) mod digest;
pub(crate) mod fsx;
pub(crate) mod http;
pub(crate) mod image;
pub(crate) mod netproxy;
pub(crate) mod proc;
pub(crate) mod shell;
pub(crate) mod sse;
pub(crate) mod sync;
pub(crate) mod sys;
#[cfg(test)]
mod test_dir;
#[cfg(test)]
mod test_golden;
#[cfg(test)]
mod test_rng;
#[cfg(test)]
#[path = "../tests/support/tree.rs"]
mod test_tree;
pub(crate) mod text;
pub(crate) mod url;
// L1 vocabulary
pub(crate) mod command;
pub(crate) mod glyphs;
pub(crate) mod mode;
pub(crate) mod msg;
pub(crate) mod special_paths;
pub(crate) mod warning;
// L2 components
pub(crate) mod checkpoint;
pub(crate) mod checks;
pub(crate) mod config;
pub(crate) mod confine;
pub(crate) mod context;
pub(crate) mod hooks;
pub(crate) mod jobs;
pub(crate) mod llm;
pub(crate) mod mcp;
pub(crate) mod permission;
pub(crate) mod session;
pub(crate) mod tools;
// L3 agent
pub(crate) mod agent;
// L4 front ends
pub(crate) mod doctor;
pub(crate) mod headless;
pub(crate) mod mcp_cli;
pub(crate) mod repl;
// L5 wiring
pub(crate) mod app;
pub(crate) mod cli;
pub(crate) mod cli_help;
pub(crate) mod cli_suggest;

// The external surface, grouped by the crates of this package that drive it: the binary, the
// benchmarks, the red-team corpus and the integration suite. Each group re-exports whole items
// (a type brings its `pub` methods and fields) that its callers name; nothing here is for anyone
// else. A caller that needs one more item adds it to its group with its use, rather than a module
// turning `pub` again. Keep each group as small as its callers allow. Name items by the module
// that defines them, not through a module's own `pub use` list: `cargo fix` (unreachable_pub)
// narrows such a list whole when one of its names is unreachable.

/// The program: `main.rs` runs `main` and maps the returned `Exit` to an exit code.
pub use app::{Exit, main};

/// What the benchmarks (`examples/`, run by `make bench`) drive in-process, without the binary:
/// the agent loop with an instant provider, tool and gate (`batch_speedup`, `iteration_overhead`),
/// context management over a long history (`context_estimate`), the session log's writer, reader
/// and listing (`session_bench`), the REPL renderer and its markdown (`render_bench`,
/// `markdown_bench`), the SSE parser (`sse_bench`), the grep tool (`grep_bench`), a confined
/// `proc::run` (`sandbox_overhead`), checkpoints of a large repository (`checkpoint_bench`) and the
/// commands' network proxy with an allow-all decision (`proxy_runner`, driven by
/// `bench/proxy.bench.sh`).
pub mod bench {
    pub use crate::agent::conversation::Conversation;
    pub use crate::agent::event::Event;
    pub use crate::agent::gate::{Gate, Verdict};
    pub use crate::agent::toolbox::{Environment, Toolbox};
    pub use crate::agent::{Agent, FrontEnd, Settings};
    pub use crate::cancel::CancelToken;
    pub use crate::checkpoint::{Checkpoints, Coverage, stat_walk};
    pub use crate::checks::Checks;
    pub use crate::config::sandbox::{NetworkMode, SandboxConfig};
    pub use crate::confine::{Paths, Sandbox};
    pub use crate::context::offload::Offloader;
    pub use crate::context::{Breaker, ContextConfig, Estimate, should_summarize};
    pub use crate::hooks::Hooks;
    pub use crate::llm::{Completion, Provider, StopReason, StreamEvent};
    pub use crate::mode::Mode;
    pub use crate::msg::{History, Message, Request, ThinkingBlock, ToolCall, ToolResult};
    pub use crate::netproxy::{Decide, Limits, Listen, Proxy, Target, Verdict as ProxyVerdict};
    pub use crate::proc::{Job, run};
    pub use crate::repl::render::Renderer;
    pub use crate::session::owner::Owner;
    pub use crate::session::reader::load_log;
    pub use crate::session::record::{Meta, VERSION, render_message};
    pub use crate::session::writer::SessionWriter;
    pub use crate::session::{format_id, list_sessions, log_path, log_rel, sessions_dir, title_of};
    pub use crate::sse::SseParser;
    pub use crate::sys::landlock::abi_version as landlock_abi_version;
    pub use crate::tools::{GrepTool, ReadTracker, Registry, Tool, ToolContext, ToolOutput};

    /// Runs `script` with bash as a background job (unconfined) until it ends: the bytes of
    /// output its spool took in (`job_capture`).
    pub fn run_job_to_end(spools: std::path::PathBuf, script: &str) -> u64 {
        let jobs = crate::jobs::Jobs::new(spools);
        let mut command = std::process::Command::new("bash");
        command.arg("-c").arg(script);
        let network = crate::confine::Network::default();
        let sandbox = std::sync::Arc::new(Sandbox::off());
        let Ok(id) = jobs.start(script, command, None, network, sandbox) else { return 0 };
        let _ = jobs.wait(id);
        jobs.written(id).unwrap_or(0)
    }

    /// `sandbox` with the network policy of `config` (nobody to ask): under `allowlist` with the
    /// view, each command gets its network namespace, bridge and proxy (`sandbox_overhead`).
    pub fn with_network_policy(sandbox: Sandbox, config: &SandboxConfig) -> Sandbox {
        let policy = crate::permission::hosts::HostPolicy::new(config, Vec::new(), Vec::new(), "config.yaml");
        let gate = crate::permission::network::NetworkGate::new(policy, Vec::new(), None, "settings.local.yaml");
        sandbox.with_network(std::sync::Arc::new(gate))
    }
}

/// What the red-team corpus (`tests/redteam`) judges and runs: the permission engine with user
/// rules in every mode, MCP tools' read-only hints read as the client reads them, and, for the
/// differential runs under real bash, the shell reader and wrapper table the engine judges with
/// and the sandbox bash runs in.
pub mod redteam {
    pub use crate::command::wrappers::{program_name, unwrap_command};
    pub use crate::config::sandbox::SandboxConfig;
    pub use crate::confine::{Paths, Sandbox, Status};
    pub use crate::mcp::client::parse_read_only;
    pub use crate::mode::Mode;
    pub use crate::permission::rules::{Level, RuleSet, RuleTexts};
    pub use crate::permission::{CallInfo, Decision, Engine};
    pub use crate::shell::{ParsedCommand, parse_command};
    pub use crate::sys::child::spawn_setup;
    pub use crate::sys::{current_uid, kill_process_group};
}

/// What the integration suite (`tests/it`), which otherwise runs the real binary, reaches for
/// directly: the MCP client, transports and manager against real servers; session logs and trust
/// records it plants or reads back, and the mark of a local settings file mewcode wrote; and whether the kernel has Landlock or a process still
/// exists, to know what to expect.
pub mod integration {
    pub use crate::cancel::CancelToken;
    pub use crate::clock::to_local;
    pub use crate::config::trust::{is_trusted, save_trust};
    pub use crate::config::{McpServerConfig, McpTransport};
    pub use crate::mcp::client::{Client, Transport};
    pub use crate::mcp::http::HttpTransport;
    pub use crate::mcp::stdio::{SpawnEnv, StdioTransport};
    pub use crate::mcp::tool::{BLOCKED_DESCRIPTION, render_result};
    pub use crate::mcp::{Manager, McpError, ServerState, StartOptions, accept};
    pub use crate::msg::Message;
    pub use crate::session::owner::Owner;
    pub use crate::session::record::{Meta, render_message, render_meta};
    pub use crate::session::{format_id, now_s};
    pub use crate::sys::landlock::abi_version as landlock_abi_version;
    pub use crate::sys::{current_uid, process_exists};
    pub use crate::tools::{Registry, ToolContext, ToolOutput};
    pub use crate::warning::Warning;
}
