//! The MCP client (SPEC §7): the manager that connects every configured server at start-up,
//! registers their tools as `mcp__<server>__<tool>`, reports their status, and shuts them down.
//!
//! Invariants:
//! - Failure isolation: servers connect concurrently, one named thread each (`mcp-connect-<name>`,
//!   joined before `start` returns), each within its own budget (its `timeout_s`, else 30 s); a
//!   server that fails is reported as a warning and a `Failed` status and never blocks or breaks
//!   the others, so start-up takes as long as the slowest server, not the sum.
//! - Shutdown is concurrent with a 5 s deadline per server, after which children are killed;
//!   dropping the manager shuts down too, so no early return leaves a server running.
//! - Nothing here reads the process environment: the host environment, the log directory, the
//!   pin store and the network settings arrive as values in `StartOptions`.
//! - A server's tools reach the registry through its `source::ServerTools`, which lists them again
//!   after `notifications/tools/list_changed` when the registry refreshes (between turns), and
//!   applies tool-definition pinning (`pin`) to every listing.
//!
//! Layout: `jsonrpc` (framing, routing, pending table) ← `client` (lifecycle over a `Transport`)
//! ← `stdio` / `http` (the transports) ; `tool` (the `tools::Tool` adapter and result rendering);
//! `source` (a server's live tool list) over `pin` (the pure pinning decision and its store).

pub mod client;
mod error;
pub mod http;
pub mod jsonrpc;
pub mod pin;
pub mod source;
pub mod stdio;
pub mod tool;

pub use error::McpError;

use crate::cancel::CancelToken;
use crate::config::{McpServerConfig, McpTransport};
use crate::llm::net::NetEnv;
use crate::tools::Registry;
use crate::warning::Warning;
use client::{Client, SessionInfo, Transport};
use source::{PinPlace, ServerTools};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use stdio::SpawnEnv;

/// How long each server gets to end its session before its process is killed.
pub const SHUTDOWN_DEADLINE: Duration = Duration::from_secs(5);

/// Where warnings raised after start-up go (a tool returned an image, ...): the front end shows
/// them. Called from tool worker threads.
pub type WarnSink = Arc<dyn Fn(Warning) + Send + Sync>;

/// Everything `Manager::start` needs from the outside world, as values.
#[derive(Clone)]
pub struct StartOptions {
    pub spawn: SpawnEnv,
    pub net: NetEnv,
    pub warn: WarnSink,
    /// The pin store (`$MEWCODE_HOME/mcp-pins.json`); None turns pinning off.
    pub pins: Option<PathBuf>,
}

/// One server as `mcp list` and `/mcp` show it.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerStatus {
    pub name: String,
    /// `stdio` or `http`.
    pub transport: &'static str,
    /// The command line or the URL.
    pub target: String,
    pub state: ServerState,
    /// Whether its `readOnlyHint`s may spare calls the approval, and why (`McpServerConfig::hints_note`).
    pub hints_trusted: bool,
    pub hints_note: String,
}

/// Connected with its tools, or failed with why.
#[derive(Clone, Debug, PartialEq)]
pub enum ServerState {
    Connected { session: SessionInfo, tools: Vec<ToolStatus> },
    Failed { error: String, stderr: Vec<String> },
}

/// One registered tool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolStatus {
    pub full_name: String,
    pub name: String,
    pub read_only: bool,
    pub description: String,
}

/// The connected servers of a run.
#[derive(Default)]
pub struct Manager {
    servers: Vec<Server>,
}

struct Server {
    status: ServerStatus,
    client: Option<Arc<Client>>,
    tools: Option<Arc<ServerTools>>,
}

impl Manager {
    /// Connects every server in `configs` concurrently (see the module invariants). Returns the
    /// manager (servers in name order) and the warnings to show (failed servers, skipped tools).
    pub fn start(configs: &[McpServerConfig], options: &StartOptions) -> (Manager, Vec<Warning>) {
        let outcomes: Vec<(Server, Vec<Warning>)> = std::thread::scope(|scope| {
            let handles: Vec<_> = configs
                .iter()
                .map(|config| {
                    let thread = std::thread::Builder::new()
                        .name(format!("mcp-connect-{}", config.name))
                        .spawn_scoped(scope, move || connect(config, options));
                    (config, thread)
                })
                .collect();
            handles
                .into_iter()
                .map(|(config, thread)| {
                    match thread.map_err(|err| err.to_string()).and_then(|handle| {
                        handle.join().map_err(|_| "its connect thread panicked (a bug in mewcode)".to_string())
                    }) {
                        Ok(outcome) => outcome,
                        Err(message) => failed(config, &McpError::Io { message }, Vec::new()),
                    }
                })
                .collect()
        });
        let mut outcomes = outcomes;
        outcomes.sort_by(|(a, _), (b, _)| a.status.name.cmp(&b.status.name));
        let mut warnings = Vec::new();
        let mut servers = Vec::new();
        for (server, server_warnings) in outcomes {
            servers.push(server);
            warnings.extend(server_warnings);
        }
        (Manager { servers }, warnings)
    }

    /// Registers every connected server's tools, servers and tools in name order, as sources the
    /// registry asks again at each refresh.
    pub fn register_tools(&self, registry: &mut Registry) {
        for tools in self.servers.iter().filter_map(|server| server.tools.as_ref()) {
            registry.register_source(Arc::clone(tools) as Arc<dyn crate::tools::ToolSource>);
        }
    }

    /// Every server's status (its tools as of the last listing), in name order.
    pub fn statuses(&self) -> Vec<ServerStatus> {
        self.servers
            .iter()
            .map(|server| {
                let mut status = server.status.clone();
                if let (ServerState::Connected { tools, .. }, Some(live)) = (&mut status.state, &server.tools) {
                    *tools = live.current().iter().map(|tool| tool_status(tool)).collect();
                }
                status
            })
            .collect()
    }

    /// Why a connected server's tools refuse to run (pinning flagged it), if they do.
    pub fn blocked(&self, name: &str) -> Option<String> {
        let server = self.servers.iter().find(|server| server.status.name == name)?;
        let current = server.tools.as_ref()?.current();
        current.iter().find_map(|tool| tool.blocked_reason())
    }

    /// The client of a connected server.
    pub fn client(&self, name: &str) -> Option<Arc<Client>> {
        self.servers.iter().find(|server| server.status.name == name).and_then(|server| server.client.clone())
    }

    /// Ends every session concurrently; children still running after `SHUTDOWN_DEADLINE` are
    /// killed. Idempotent.
    pub fn shutdown(&mut self) {
        let clients: Vec<(String, Arc<Client>)> = self
            .servers
            .iter_mut()
            .filter_map(|server| {
                server.tools = None;
                server.client.take().map(|client| (server.status.name.clone(), client))
            })
            .collect();
        let deadline = Instant::now() + SHUTDOWN_DEADLINE;
        std::thread::scope(|scope| {
            for (name, client) in &clients {
                let spawned =
                    std::thread::Builder::new().name(format!("mcp-close-{name}")).spawn_scoped(scope, move || {
                        client.shutdown(deadline);
                    });
                if spawned.is_err() {
                    client.shutdown(deadline);
                }
            }
        });
    }
}

impl Drop for Manager {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Connects one server within its budget: spawn or reach it, handshake, list tools.
fn connect(config: &McpServerConfig, options: &StartOptions) -> (Server, Vec<Warning>) {
    let timeout = config.timeout_s.map_or(jsonrpc::DEFAULT_TIMEOUT, Duration::from_secs);
    let deadline = Instant::now() + timeout;
    let cancel = CancelToken::new();
    let transport = match open_transport(config, options) {
        Ok(transport) => transport,
        Err(err) => return failed(config, &err, Vec::new()),
    };
    let client = Arc::new(Client::new(transport, timeout));
    let handshake = client.initialize(deadline, &cancel).and_then(|session| {
        let tools = client.list_tools(deadline, &cancel)?;
        Ok((session, tools))
    });
    let (session, infos) = match handshake {
        Ok(done) => done,
        Err(err) => {
            // A failed server is stopped at once; its stderr explains the failure.
            client.shutdown(Instant::now());
            return failed(config, &err, client.stderr_head());
        }
    };
    let pins = options
        .pins
        .as_ref()
        .map(|path| PinPlace { path: path.clone(), key: pin::server_key(&config.name, &target_of(&config.transport)) });
    let (tools, warnings) = ServerTools::new(
        &config.name,
        Arc::clone(&client),
        timeout,
        pins,
        options.warn.clone(),
        config.trust_hints,
        infos,
    );
    let status = ServerStatus {
        name: config.name.clone(),
        transport: transport_kind(&config.transport),
        target: target_of(&config.transport),
        state: ServerState::Connected { session, tools: Vec::new() },
        hints_trusted: config.trust_hints,
        hints_note: config.hints_note(),
    };
    (Server { status, client: Some(client), tools: Some(Arc::new(tools)) }, warnings)
}

fn tool_status(tool: &tool::McpTool) -> ToolStatus {
    use crate::tools::Tool;
    ToolStatus {
        full_name: tool.name().to_string(),
        name: tool.tool_name().to_string(),
        read_only: tool.read_only(),
        description: tool.description().to_string(),
    }
}

/// `mewcode mcp accept NAME`: connects `config`, lists its tools and records them as accepted.
/// Returns how many tools were accepted.
pub fn accept(config: &McpServerConfig, options: &StartOptions) -> Result<usize, McpError> {
    let Some(path) = &options.pins else {
        return Err(McpError::Config { message: "tool-definition pinning is off".to_string() });
    };
    let timeout = config.timeout_s.map_or(jsonrpc::DEFAULT_TIMEOUT, Duration::from_secs);
    let deadline = Instant::now() + timeout;
    let cancel = CancelToken::new();
    let client = Client::new(open_transport(config, options)?, timeout);
    let listed = client.initialize(deadline, &cancel).and_then(|_| client.list_tools(deadline, &cancel));
    client.shutdown(Instant::now() + SHUTDOWN_DEADLINE);
    let infos = listed?;
    let place = PinPlace { path: path.clone(), key: pin::server_key(&config.name, &target_of(&config.transport)) };
    source::accept(&place, &infos)?;
    Ok(infos.len())
}

/// Spawns or reaches the server of `config` (no handshake yet).
fn open_transport(config: &McpServerConfig, options: &StartOptions) -> Result<Box<dyn Transport>, McpError> {
    Ok(match &config.transport {
        McpTransport::Stdio { command, args, env } => {
            Box::new(stdio::StdioTransport::spawn(&config.name, command, args, env, &options.spawn)?)
        }
        McpTransport::Http { url, headers, ca_file } => {
            Box::new(http::HttpTransport::new(url, headers, ca_file.as_deref(), &options.net)?.with_listener())
        }
    })
}

fn failed(config: &McpServerConfig, err: &McpError, stderr: Vec<String>) -> (Server, Vec<Warning>) {
    let mut message = format!("{err}; its tools are unavailable");
    if let Some(first) = stderr.first() {
        message.push_str(&format!(" (stderr: {first})"));
    }
    let warning = Warning::new(format!("mcp server {}", config.name), message);
    let status = ServerStatus {
        name: config.name.clone(),
        transport: transport_kind(&config.transport),
        target: target_of(&config.transport),
        state: ServerState::Failed { error: err.to_string(), stderr },
        hints_trusted: config.trust_hints,
        hints_note: config.hints_note(),
    };
    (Server { status, client: None, tools: None }, vec![warning])
}

fn transport_kind(transport: &McpTransport) -> &'static str {
    match transport {
        McpTransport::Stdio { .. } => "stdio",
        McpTransport::Http { .. } => "http",
    }
}

fn target_of(transport: &McpTransport) -> String {
    match transport {
        McpTransport::Stdio { command, args, .. } => {
            std::iter::once(command.as_str()).chain(args.iter().map(String::as_str)).collect::<Vec<_>>().join(" ")
        }
        McpTransport::Http { url, .. } => url.clone(),
    }
}
