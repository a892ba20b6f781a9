//! `ServerTools`: one connected server's tools as a `tools::ToolSource`. Listed at connect; after
//! the server sends `notifications/tools/list_changed`, listed again when the registry refreshes
//! (between turns), never in the middle of one. Each listing goes through pinning (`pin.rs`).
//!
//! Invariants: a failed re-listing keeps the previous tools (and warns); a listing whose accepted
//! definitions changed yields tools that refuse to run (the server's shared `tool::Block`), with the reason and
//! the command that accepts them, and is checked against the store again at each refresh, so a
//! `mewcode mcp accept` run meanwhile (from another shell) takes effect at the next turn; names
//! that cannot be tool names are skipped with a warning.

use super::client::{Client, ToolInfo};
use super::pin::{self, Verdict};
use super::tool::{Block, McpTool, full_name};
use super::{McpError, WarnSink};
use crate::cancel::CancelToken;
use crate::sync::lock;
use crate::tools::{Tool, ToolSource};
use crate::warning::Warning;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Where a server's accepted tool definitions are kept.
#[derive(Clone, Debug)]
pub(crate) struct PinPlace {
    /// The store file (`$MEWCODE_HOME/mcp-pins.json`).
    pub path: PathBuf,
    /// `pin::server_key` of the server.
    pub key: String,
}

/// The live tool list of one server.
pub(crate) struct ServerTools {
    server: String,
    client: Arc<Client>,
    timeout: Duration,
    pins: Option<PinPlace>,
    warn: WarnSink,
    /// Whether the server's `readOnlyHint` may spare a call the approval
    /// (`McpServerConfig::trust_hints`).
    hints_trusted: bool,
    current: Mutex<Vec<Arc<McpTool>>>,
    /// Why the server's tools must not run, shared with every tool object built here.
    block: Block,
    /// The last listing, kept to check a blocked one against the store again.
    listed: Mutex<Vec<ToolInfo>>,
}

impl ServerTools {
    /// The tools of `server` as listed in `infos` (at connect), and the warnings to show.
    pub(crate) fn new(
        server: &str,
        client: Arc<Client>,
        timeout: Duration,
        pins: Option<PinPlace>,
        warn: WarnSink,
        hints_trusted: bool,
        infos: Vec<ToolInfo>,
    ) -> (ServerTools, Vec<Warning>) {
        let source = ServerTools {
            server: server.to_string(),
            client,
            timeout,
            pins,
            warn,
            hints_trusted,
            current: Mutex::new(Vec::new()),
            listed: Mutex::new(Vec::new()),
            block: Block::default(),
        };
        let warnings = source.install(infos);
        (source, warnings)
    }

    /// The tools as of the last listing, in name order.
    pub(crate) fn current(&self) -> Vec<Arc<McpTool>> {
        lock(&self.current).clone()
    }

    /// Lists the tools again if the server said they changed; the warnings go to the sink.
    fn relist_if_changed(&self) {
        if !self.client.take_tools_changed() {
            return;
        }
        let deadline = Instant::now() + self.timeout;
        match self.client.list_tools(deadline, &CancelToken::new()) {
            Ok(infos) => {
                for warning in self.install(infos) {
                    (self.warn)(warning);
                }
            }
            // The server keeps the tools it had; if it is gone, their calls say so.
            Err(err) => (self.warn)(self.warning(format!("its tool list changed but listing it failed: {err}"))),
        }
    }

    /// While the tools are blocked: whether the user accepted the listing meanwhile (the warnings
    /// were shown when it was flagged, so none are repeated).
    fn recheck_if_blocked(&self) {
        let blocked = lock(&self.block).is_some();
        if blocked {
            let infos = lock(&self.listed).clone();
            let _ = self.install(infos);
        }
    }

    /// Makes `infos` the current listing; returns its warnings.
    fn install(&self, infos: Vec<ToolInfo>) -> Vec<Warning> {
        let (tools, warnings) = self.build(infos.clone());
        *lock(&self.current) = tools;
        *lock(&self.listed) = infos;
        warnings
    }

    /// Tools from a listing: valid names only, in name order, refusing to run when pinning
    /// flags them.
    fn build(&self, infos: Vec<ToolInfo>) -> (Vec<Arc<McpTool>>, Vec<Warning>) {
        let mut warnings = Vec::new();
        let blocked = self.pin_verdict(&infos, &mut warnings);
        *lock(&self.block) = blocked;
        let mut tools = Vec::new();
        for info in infos {
            match full_name(&self.server, &info.name) {
                Ok(name) => {
                    let tool = McpTool::new(name, &self.server, info, Arc::clone(&self.client), self.warn.clone());
                    let tool = tool.sharing_block(Arc::clone(&self.block)).with_hints_trusted(self.hints_trusted);
                    tools.push(Arc::new(tool));
                }
                Err(reason) => warnings.push(self.warning(format!("{reason}; tool skipped"))),
            }
        }
        tools.sort_by(|a, b| a.name().cmp(b.name()));
        (tools, warnings)
    }

    /// Applies pinning to a listing: records what is new, and returns why the tools must not run
    /// when accepted definitions changed (or the store cannot be read).
    fn pin_verdict(&self, infos: &[ToolInfo], warnings: &mut Vec<Warning>) -> Option<String> {
        let place = self.pins.as_ref()?;
        let accept = format!("mewcode mcp accept {}", self.server);
        let pinned = match pin::load_pin(&place.path, &place.key) {
            Ok(pinned) => pinned,
            Err(message) => {
                let reason = format!("its accepted tool definitions cannot be checked: {message}");
                warnings.push(self.warning(format!("{reason}; its tools will not run")));
                return Some(reason);
            }
        };
        let current = pin::fingerprint(infos);
        let record = |print: &pin::ServerPrint, warnings: &mut Vec<Warning>| {
            if let Err(message) = pin::save_pin(&place.path, &place.key, print) {
                warnings.push(self.warning(format!("cannot record its tool definitions: {message}")));
            }
        };
        match pin::check(pinned.as_ref(), &current) {
            Verdict::FirstSeen => {
                record(&current, warnings);
                None
            }
            Verdict::Same => None,
            Verdict::Added(names) => {
                record(&pin::merge(pinned.as_ref(), &current), warnings);
                warnings.push(self.warning(format!("new tools since last time: {}", names.join(", "))));
                None
            }
            Verdict::Changed(changes) => {
                let changed: Vec<String> = changes.iter().map(ToString::to_string).collect();
                let reason = format!(
                    "its tool definitions changed since you accepted them: {}; its tools will not run until you \
                     review the server and run `{accept}`",
                    changed.join(", ")
                );
                warnings.push(self.warning(reason.clone()));
                Some(reason)
            }
        }
    }

    fn warning(&self, message: String) -> Warning {
        Warning::new(format!("mcp server {}", self.server), message)
    }
}

impl ToolSource for ServerTools {
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.relist_if_changed();
        self.recheck_if_blocked();
        self.current().into_iter().map(|tool| tool as Arc<dyn Tool>).collect()
    }
}

/// Records `infos` as the accepted definitions at `place` (the `mcp accept` command).
pub(crate) fn accept(place: &PinPlace, infos: &[ToolInfo]) -> Result<(), McpError> {
    pin::save_pin(&place.path, &place.key, &pin::fingerprint(infos)).map_err(|message| McpError::Config { message })
}
