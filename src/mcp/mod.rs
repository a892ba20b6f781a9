//! The MCP client (SPEC §7): the manager that connects every configured server at start-up,
//! registers their tools as `mcp__<server>__<tool>`, reports their status, and shuts them down.
//!
//! Invariants:
//! - Failure isolation: servers connect concurrently, one named thread each (`mcp-connect-<name>`),
//!   each within its own budget (its `timeout_s`, else 30 s); a server that fails is reported as
//!   a warning and a `Failed` status and never blocks or breaks the others. `start` joins them
//!   (start-up takes as long as the slowest server, not the sum: `-p`, `mcp list`); `spawn`
//!   returns at once and reports each outcome as an `Update` (the REPL, usable at once; a turn
//!   uses the tools that are there). `reconnect` runs the same connect again for one server.
//!   Connect threads are joined by `wait` or `shutdown`, which cancels them first.
//! - Shutdown is concurrent with a 5 s deadline per server, after which children are killed;
//!   dropping the manager shuts down too, so no early return leaves a server running.
//! - Nothing here reads the process environment: the host environment, the log directory, the
//!   pin store and the network settings arrive as values in `StartOptions`.
//! - A server's tools reach the registry through its `source::ServerTools`, which lists them again
//!   after `notifications/tools/list_changed` when the registry refreshes (between turns), and
//!   applies tool-definition pinning (`pin`) to every listing.
//! - A connected server that goes away by itself (its process exits: the stdio reader's EOF; a
//!   request fails at the network level) moves to `Stopped` with its last stderr lines, the
//!   moment it is seen (`lost::Lost`), and is reported like a connect outcome (an `Update`, or a
//!   warning when nobody listens for updates). Its tools stay registered and answer every call
//!   at once with why; `reconnect` starts it again.
//!
//! Layout: `jsonrpc` (framing, routing, pending table) ← `client` (lifecycle over a `Transport`)
//! ← `stdio` / `http` (the transports) ; `tool` (the `tools::Tool` adapter and result rendering);
//! `source` (a server's live tool list) over `pin` (the pure pinning decision and its store).
//!
//! - `mod.rs` — the `Manager`: connect, status, reconnect, shutdown
//! - `error.rs` — `McpError`, every way talking to a server can fail
//! - `jsonrpc.rs` — JSON-RPC framing, routing of what a server sends, the pending table
//! - `lost.rs` — the one-time notice that a server went away by itself
//! - `stop.rs` — what a server's loss does to its slot: stopped, and the news told
//! - `client.rs` — the lifecycle over a `Transport`: initialize, tools/list, tools/call
//! - `stdio.rs` — the stdio transport: a child process, one message per line
//! - `http/` — the Streamable HTTP transport: one POST per message, JSON or SSE back
//! - `tool.rs` — one server tool as a `tools::Tool`, and result rendering
//! - `source.rs` — a server's live tool list as a `tools::ToolSource`
//! - `pin.rs` — tool-definition pinning: the pure verdict and its store on disk

pub(crate) mod client;
mod error;
pub(crate) mod http;
pub(crate) mod jsonrpc;
pub(crate) mod lost;
pub(crate) mod pin;
pub(crate) mod source;
pub(crate) mod stdio;
mod stop;
pub(crate) mod tool;

pub use error::McpError;

use crate::cancel::CancelToken;
use crate::config::{McpServerConfig, McpTransport};
use crate::http::net::NetEnv;
use crate::sync::lock;
use crate::tools::Registry;
use crate::warning::Warning;
use client::{Client, SessionInfo, Transport};
use source::{PinPlace, ServerTools};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

pub(crate) use stdio::SpawnEnv;

/// How long each server gets to end its session before its process is killed.
const SHUTDOWN_DEADLINE: Duration = Duration::from_secs(5);

/// Where `Manager::spawn`'s connect threads report each server's outcome. Called from those
/// threads; it must not block.
pub(crate) type UpdateSink = Arc<dyn Fn(Update) + Send + Sync>;

/// Where warnings raised after start-up go (a tool returned an image, ...): the front end shows
/// them. Called from tool worker threads.
pub(crate) type WarnSink = Arc<dyn Fn(Warning) + Send + Sync>;

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

/// Starting (the REPL does not wait), connected with its tools, failed to connect with why
/// (and its first stderr lines), or stopped after it had connected, with why (and its last
/// stderr lines).
#[derive(Clone, Debug, PartialEq)]
pub enum ServerState {
    Starting,
    Connected { session: SessionInfo, tools: Vec<ToolStatus> },
    Failed { error: String, stderr: Vec<String> },
    Stopped { error: String, stderr: Vec<String> },
}

/// One registered tool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolStatus {
    pub full_name: String,
    pub name: String,
    pub read_only: bool,
    pub description: String,
}

/// What a server's connect thread reports when it is done (`Manager::spawn`'s channel): the
/// front end shows it at once (the REPL, which does not wait for servers).
#[derive(Clone, Debug, PartialEq)]
pub struct Update {
    pub server: String,
    /// `Some(n)`: connected with `n` tools; `None`: failed (the reason is in `warnings`).
    pub tools: Option<usize>,
    /// The failure, skipped tools, pinning: what start-up would have put in the banner.
    pub warnings: Vec<Warning>,
}

/// How many servers are configured, connected and still starting, and which stopped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Progress {
    pub configured: usize,
    pub connected: usize,
    pub starting: usize,
    /// Servers that connected, then went away by itself, in name order.
    pub stopped: Vec<StoppedServer>,
}

/// A server that stopped by itself, as the status line names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct StoppedServer {
    pub name: String,
    /// Its last stderr line, else why it stopped (the server's text: neutralise it to show it).
    pub last_words: String,
}

/// The MCP servers of a run. Each server is a `Slot` whose state moves from starting to
/// connected or failed on its own `mcp-connect-<name>` thread; the registry holds the slots as
/// tool sources, so a server's tools join at the first refresh after it connected.
#[derive(Default)]
pub struct Manager {
    /// In name order.
    servers: Vec<Arc<Slot>>,
    /// For `reconnect` (None for a manager without servers).
    options: Option<StartOptions>,
    /// Where connect threads report (`spawn`); None when the caller waits (`start`).
    updates: Option<UpdateSink>,
    /// Every connect thread started, joined by `wait` and `shutdown`.
    connecting: Mutex<Vec<JoinHandle<Vec<Warning>>>>,
    /// Cancels connect threads still running at shutdown.
    cancel: CancelToken,
}

/// Reads the servers' progress without the manager (cloneable, for other threads).
#[derive(Clone, Default)]
pub struct Probe {
    servers: Vec<Arc<Slot>>,
}

impl Probe {
    /// How many servers are configured, connected and starting.
    pub(crate) fn progress(&self) -> Progress {
        let mut progress = Progress { configured: self.servers.len(), ..Progress::default() };
        for slot in &self.servers {
            match &*lock(&slot.state) {
                SlotState::Starting => progress.starting += 1,
                SlotState::Connected { .. } => progress.connected += 1,
                SlotState::Stopped { error, stderr, .. } => progress.stopped.push(StoppedServer {
                    name: slot.config.name.clone(),
                    last_words: stderr.last().unwrap_or(error).clone(),
                }),
                SlotState::Failed { .. } => {}
            }
        }
        progress
    }
}

/// One configured server and where it stands.
struct Slot {
    config: McpServerConfig,
    state: Mutex<SlotState>,
}

enum SlotState {
    Starting,
    Connected {
        session: SessionInfo,
        client: Arc<Client>,
        tools: Arc<ServerTools>,
    },
    Failed {
        error: String,
        stderr: Vec<String>,
    },
    /// It was connected, then went away by itself: `error` says how, `stderr` holds its last
    /// lines. The client stays for its tools (which refuse at once) and the final shutdown.
    Stopped {
        client: Arc<Client>,
        tools: Arc<ServerTools>,
        error: String,
        stderr: Vec<String>,
    },
}

impl crate::tools::ToolSource for Slot {
    /// A connected server's tools (listed again if they changed); a stopped server's too, so a
    /// call the model makes is answered with why it cannot run; none while starting or failed.
    fn tools(&self) -> Vec<Arc<dyn crate::tools::Tool>> {
        let tools = match &*lock(&self.state) {
            SlotState::Connected { tools, .. } | SlotState::Stopped { tools, .. } => Arc::clone(tools),
            SlotState::Starting | SlotState::Failed { .. } => return Vec::new(),
        };
        tools.tools()
    }
}

impl Manager {
    /// Connects every server in `configs` concurrently and waits for all of them (see the module
    /// invariants): `-p`, `mcp list`, `mcp call`, `doctor`. Returns the manager (servers in name
    /// order) and the warnings to show (failed servers, skipped tools).
    pub fn start(configs: &[McpServerConfig], options: &StartOptions) -> (Manager, Vec<Warning>) {
        let manager = Manager::spawn(configs, options, None);
        let warnings = manager.wait();
        (manager, warnings)
    }

    /// Starts connecting every server in `configs`, each on its own thread, and returns at once
    /// (the REPL). Each server's outcome is sent on `updates` when it is known; its tools join
    /// the registry at the next refresh.
    pub fn spawn(configs: &[McpServerConfig], options: &StartOptions, updates: Option<UpdateSink>) -> Manager {
        let mut configs: Vec<&McpServerConfig> = configs.iter().collect();
        configs.sort_by(|a, b| a.name.cmp(&b.name));
        let manager = Manager {
            servers: configs
                .into_iter()
                .map(|config| Arc::new(Slot { config: config.clone(), state: Mutex::new(SlotState::Starting) }))
                .collect(),
            options: Some(options.clone()),
            updates,
            connecting: Mutex::new(Vec::new()),
            cancel: CancelToken::new(),
        };
        for slot in &manager.servers {
            manager.start_connect(slot, None);
        }
        manager
    }

    /// Waits for every connect thread started so far; returns their warnings in name order.
    pub fn wait(&self) -> Vec<Warning> {
        let handles = std::mem::take(&mut *lock(&self.connecting));
        handles.into_iter().flat_map(|handle| handle.join().unwrap_or_default()).collect()
    }

    /// Disconnects server `name` (if it was connected) and connects it again in the background;
    /// its outcome arrives on the updates channel like at start-up. Refused while it is starting.
    pub fn reconnect(&self, name: &str) -> Result<(), String> {
        let Some(slot) = self.servers.iter().find(|slot| slot.config.name == name) else {
            let names: Vec<&str> = self.servers.iter().map(|slot| slot.config.name.as_str()).collect();
            return Err(format!("no MCP server named {name:?} (configured: {})", names.join(", ")));
        };
        let previous = {
            let mut state = lock(&slot.state);
            if matches!(*state, SlotState::Starting) {
                return Err(format!("mcp server {name} is still starting"));
            }
            std::mem::replace(&mut *state, SlotState::Starting)
        };
        let old_client = match previous {
            SlotState::Connected { client, .. } | SlotState::Stopped { client, .. } => Some(client),
            SlotState::Starting | SlotState::Failed { .. } => None,
        };
        self.start_connect(slot, old_client);
        Ok(())
    }

    /// Starts the connect thread of `slot`, which first ends `old_client`'s session (reconnect).
    fn start_connect(&self, slot: &Arc<Slot>, old_client: Option<Arc<Client>>) {
        let Some(options) = self.options.clone() else { return };
        let (thread_slot, updates, cancel) = (Arc::clone(slot), self.updates.clone(), self.cancel.clone());
        let run = move || {
            if let Some(client) = old_client {
                client.shutdown(Instant::now() + SHUTDOWN_DEADLINE);
            }
            let (state, warnings) = connect(&thread_slot.config, &options, &cancel);
            let (tools, client) = match &state {
                SlotState::Connected { tools, client, .. } => (Some(tools.current().len()), Some(Arc::clone(client))),
                SlotState::Starting | SlotState::Failed { .. } | SlotState::Stopped { .. } => (None, None),
            };
            *lock(&thread_slot.state) = state;
            if let Some(updates) = &updates {
                updates(Update { server: thread_slot.config.name.clone(), tools, warnings: warnings.clone() });
            }
            // After the connected news: a server that died meanwhile is reported stopped at once.
            if let Some(client) = client {
                let report = stop::Report { updates, warn: options.warn.clone() };
                client.on_lost(stop::stop_hook(&thread_slot, &client, report));
            }
            warnings
        };
        match std::thread::Builder::new().name(format!("mcp-connect-{}", slot.config.name)).spawn(run) {
            Ok(handle) => lock(&self.connecting).push(handle),
            Err(err) => {
                let (state, warnings) = failed(&slot.config, &McpError::Io { message: err.to_string() }, Vec::new());
                *lock(&slot.state) = state;
                if let Some(updates) = &self.updates {
                    updates(Update { server: slot.config.name.clone(), tools: None, warnings });
                }
            }
        }
    }

    /// Registers every configured server as a source of tools, in name order: a server's tools
    /// appear at the first refresh after it connected, and go when it is reconnected.
    pub fn register_tools(&self, registry: &mut Registry) {
        for slot in &self.servers {
            registry.register_source(Arc::clone(slot) as Arc<dyn crate::tools::ToolSource>);
        }
    }

    /// A handle that reads the servers' progress from any thread (the REPL's status line).
    pub fn probe(&self) -> Probe {
        Probe { servers: self.servers.clone() }
    }

    /// Every server's status (its tools as of the last listing), in name order.
    pub fn statuses(&self) -> Vec<ServerStatus> {
        self.servers
            .iter()
            .map(|slot| {
                let config = &slot.config;
                let state = match &*lock(&slot.state) {
                    SlotState::Starting => ServerState::Starting,
                    SlotState::Connected { session, tools, .. } => ServerState::Connected {
                        session: session.clone(),
                        tools: tools.current().iter().map(|tool| tool_status(tool)).collect(),
                    },
                    SlotState::Failed { error, stderr } => {
                        ServerState::Failed { error: error.clone(), stderr: stderr.clone() }
                    }
                    SlotState::Stopped { error, stderr, .. } => {
                        ServerState::Stopped { error: error.clone(), stderr: stderr.clone() }
                    }
                };
                ServerStatus {
                    name: config.name.clone(),
                    transport: transport_kind(&config.transport),
                    target: target_of(&config.transport),
                    state,
                    hints_trusted: config.trust_hints,
                    hints_note: config.hints_note(),
                }
            })
            .collect()
    }

    /// Why a connected server's tools refuse to run (pinning flagged it), if they do.
    pub fn blocked(&self, name: &str) -> Option<String> {
        let slot = self.servers.iter().find(|slot| slot.config.name == name)?;
        let tools = match &*lock(&slot.state) {
            SlotState::Connected { tools, .. } => Arc::clone(tools),
            SlotState::Starting | SlotState::Failed { .. } | SlotState::Stopped { .. } => return None,
        };
        tools.current().iter().find_map(|tool| tool.blocked_reason())
    }

    /// The client of a connected server.
    pub fn client(&self, name: &str) -> Option<Arc<Client>> {
        let slot = self.servers.iter().find(|slot| slot.config.name == name)?;
        match &*lock(&slot.state) {
            SlotState::Connected { client, .. } => Some(Arc::clone(client)),
            SlotState::Starting | SlotState::Failed { .. } | SlotState::Stopped { .. } => None,
        }
    }

    /// Stops connects still running (their budget ends at once), then ends every session
    /// concurrently; children still running after `SHUTDOWN_DEADLINE` are killed. Idempotent.
    pub fn shutdown(&mut self) {
        self.cancel.cancel();
        let _ = self.wait();
        let clients: Vec<(String, Arc<Client>)> = self
            .servers
            .iter()
            .filter_map(|slot| {
                let mut state = lock(&slot.state);
                let previous = std::mem::replace(
                    &mut *state,
                    SlotState::Failed { error: "shut down".to_string(), stderr: Vec::new() },
                );
                match previous {
                    SlotState::Connected { client, .. } | SlotState::Stopped { client, .. } => {
                        Some((slot.config.name.clone(), client))
                    }
                    SlotState::Starting | SlotState::Failed { .. } => None,
                }
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

/// Connects one server within its budget: spawn or reach it, handshake, list tools. `cancel`
/// ends the attempt early (shutdown).
fn connect(config: &McpServerConfig, options: &StartOptions, cancel: &CancelToken) -> (SlotState, Vec<Warning>) {
    let timeout = config.timeout_s.map_or(jsonrpc::DEFAULT_TIMEOUT, Duration::from_secs);
    let deadline = Instant::now() + timeout;
    let transport = match open_transport(config, options) {
        Ok(transport) => transport,
        Err(err) => return failed(config, &err, Vec::new()),
    };
    let client = Arc::new(Client::new(transport, timeout));
    let handshake = client.initialize(deadline, cancel).and_then(|session| {
        let tools = client.list_tools(deadline, cancel)?;
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
    (SlotState::Connected { session, client, tools: Arc::new(tools) }, warnings)
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

fn failed(config: &McpServerConfig, err: &McpError, stderr: Vec<String>) -> (SlotState, Vec<Warning>) {
    let mut message = format!("{err}; its tools are unavailable");
    if let Some(first) = stderr.first() {
        message.push_str(&format!(" (stderr: {first})"));
    }
    let warning = Warning::new(format!("mcp server {}", config.name), message);
    (SlotState::Failed { error: err.to_string(), stderr }, vec![warning])
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

#[cfg(test)]
mod tests;
