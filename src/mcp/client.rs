//! The MCP lifecycle over any transport: `initialize` with version negotiation,
//! `notifications/initialized`, paginated `tools/list`, and `tools/call`.
//!
//! Invariants: we offer our latest protocol version and continue with the server's answer only
//! if we support it; we declare no client capabilities (we implement none, and declaring `roots`
//! changes what some servers expose). Every request has a deadline; a request that times out is
//! cancelled with `notifications/cancelled` (never `initialize`). `tools/call` carries its id as
//! `_meta.progressToken`, so the server's progress notifications can push its deadline back
//! (`jsonrpc::Deadline`). A session the server forgot is re-initialised once and the request
//! retried. A request that fails because the server itself is gone (`lost::is_loss`) reports
//! the loss (`Lost`), so the manager shows the server stopped. Transports do the IO; this file
//! decides.

use super::McpError;
use super::jsonrpc::{encode_notification, encode_request};
use super::lost::{Lost, LostHook, is_loss};
use crate::cancel::CancelToken;
use crate::sync::lock;
use serde_json::{Value, json};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The protocol versions we speak, newest first; the first is what we offer.
const SUPPORTED_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26"];

/// The most `tools/list` pages we follow: a server looping on its cursor must not hang us.
const MAX_PAGES: usize = 100;

/// How a client moves messages; `stdio::StdioTransport` and `http::HttpTransport` implement it.
pub trait Transport: Send + Sync {
    /// Sends request `id` (`message` is its encoded JSON) and returns its `result`, or the error,
    /// by `deadline`. `timeout` is only for the error message.
    fn request(
        &self,
        id: u64,
        method: &str,
        message: &str,
        timeout: Duration,
        deadline: Instant,
        cancel: &CancelToken,
    ) -> Result<Value, McpError>;
    /// Sends a notification (no answer expected).
    fn notify(&self, message: &str) -> Result<(), McpError>;
    /// The protocol version was negotiated (HTTP sends it as `MCP-Protocol-Version` from now on).
    fn negotiated(&self, protocol_version: &str);
    /// Forgets the session before a re-initialisation (HTTP drops its session id).
    fn reset_session(&self);
    /// Ends the session and stops the server, giving up waiting at `deadline`.
    fn shutdown(&self, deadline: Instant);
    /// The first lines the server wrote to stderr (stdio), for error reports.
    fn stderr_head(&self) -> Vec<String>;
    /// The last lines the server wrote to stderr (stdio): why it stopped.
    fn stderr_tail(&self) -> Vec<String> {
        Vec::new()
    }
    /// Whether the server went away by itself; the stdio transport reports its process's exit
    /// there, the client a request that failed for good; `shutdown` silences it.
    fn lost(&self) -> &Lost;
    /// Whether the server sent `notifications/tools/list_changed` since the last call (which
    /// clears the flag).
    fn take_tools_changed(&self) -> bool;
    /// The server declared `tools.listChanged`: listen for what it sends outside any request
    /// (HTTP opens the standalone GET stream; stdio always reads everything).
    fn start_listening(&self) {}
}

/// What the server said about itself in `initialize`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SessionInfo {
    pub protocol_version: String,
    pub server_name: String,
    pub server_version: String,
    /// The server declared `capabilities.tools.listChanged: true`.
    pub tools_list_changed: bool,
}

/// One tool as the server lists it (its own name, before prefixing).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ToolInfo {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
    /// What `parse_read_only` made of the tool's `annotations`.
    pub read_only: bool,
}

/// A connected (or connecting) server.
pub struct Client {
    transport: Box<dyn Transport>,
    next_id: AtomicU64,
    timeout: Duration,
    /// The timeout of `initialize` and `tools/list` (the same as `timeout` unless set apart).
    handshake_timeout: Duration,
    /// Serialises re-initialisation so concurrent calls hitting an expired session re-initialise once.
    reinitialising: Mutex<()>,
}

impl Client {
    /// A client over `transport` with a per-request `timeout`.
    pub fn new(transport: Box<dyn Transport>, timeout: Duration) -> Client {
        Client {
            transport,
            next_id: AtomicU64::new(0),
            timeout,
            handshake_timeout: timeout,
            reinitialising: Mutex::new(()),
        }
    }

    /// The same client with its own timeout for `initialize` and `tools/list` (a slow-starting
    /// server in a test whose tool calls have a short timeout).
    pub fn with_handshake_timeout(mut self, timeout: Duration) -> Client {
        self.handshake_timeout = timeout;
        self
    }

    /// The handshake: `initialize`, version check, `notifications/initialized`.
    pub fn initialize(&self, deadline: Instant, cancel: &CancelToken) -> Result<SessionInfo, McpError> {
        let params = json!({
            "protocolVersion": SUPPORTED_VERSIONS[0],
            "capabilities": {},
            "clientInfo": {"name": "mewcode", "version": env!("CARGO_PKG_VERSION")},
        });
        let result = self.send("initialize", Some(&params), deadline, cancel, false)?;
        let info = parse_initialize(&result)?;
        self.transport.negotiated(&info.protocol_version);
        self.transport.notify(&encode_notification("notifications/initialized", None))?;
        if info.tools_list_changed {
            self.transport.start_listening();
        }
        Ok(info)
    }

    /// Every tool, following `nextCursor` page by page.
    pub(crate) fn list_tools(&self, deadline: Instant, cancel: &CancelToken) -> Result<Vec<ToolInfo>, McpError> {
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let params = cursor.as_ref().map(|cursor| json!({"cursor": cursor}));
            let result = self.request("tools/list", params.as_ref(), deadline, cancel, false)?;
            let (page, next) = parse_tools_page(&result)?;
            tools.extend(page);
            match next {
                Some(next) if Some(&next) != cursor.as_ref() => cursor = Some(next),
                Some(_) => return Err(McpError::Protocol { message: "tools/list repeated its cursor".to_string() }),
                None => return Ok(tools),
            }
        }
        Err(McpError::Protocol { message: format!("tools/list did not end after {MAX_PAGES} pages") })
    }

    /// Calls tool `name` (the server's own name) with `arguments`; returns the raw result.
    pub fn call_tool(&self, name: &str, arguments: Value, cancel: &CancelToken) -> Result<Value, McpError> {
        let params = json!({"name": name, "arguments": arguments});
        self.request("tools/call", Some(&params), Instant::now() + self.timeout, cancel, true)
    }

    /// Whether the server said its tool list changed since the last call (which clears it).
    pub(crate) fn take_tools_changed(&self) -> bool {
        self.transport.take_tools_changed()
    }

    /// The first lines of the server's stderr.
    pub(crate) fn stderr_head(&self) -> Vec<String> {
        self.transport.stderr_head()
    }

    /// The last lines of the server's stderr.
    pub(crate) fn stderr_tail(&self) -> Vec<String> {
        self.transport.stderr_tail()
    }

    /// Calls `hook` once if the server goes away by itself (at once if it already has); never
    /// after `shutdown`.
    pub(crate) fn on_lost(&self, hook: LostHook) {
        self.transport.lost().watch(hook);
    }

    /// Why the server went away by itself, if it did.
    pub(crate) fn lost_reason(&self) -> Option<McpError> {
        self.transport.lost().reason()
    }

    /// Ends the session; the server is stopped by `deadline` at the latest.
    pub fn shutdown(&self, deadline: Instant) {
        self.transport.shutdown(deadline);
    }

    /// A request after the handshake: a forgotten session is re-initialised once, then retried.
    fn request(
        &self,
        method: &str,
        params: Option<&Value>,
        deadline: Instant,
        cancel: &CancelToken,
        progress: bool,
    ) -> Result<Value, McpError> {
        let outcome = match self.send(method, params, deadline, cancel, progress) {
            Err(McpError::SessionExpired) => {
                let reinitialised = {
                    let _one_at_a_time = lock(&self.reinitialising);
                    self.transport.reset_session();
                    self.initialize(deadline, cancel)
                };
                reinitialised.and_then(|_| self.send(method, params, deadline, cancel, progress))
            }
            other => other,
        };
        if let Err(error) = &outcome
            && is_loss(error)
        {
            self.transport.lost().report(error.clone());
        }
        outcome
    }

    /// One request with a fresh id (with `progress`, also its progress token); a timeout is told
    /// to the server so it can stop working.
    fn send(
        &self,
        method: &str,
        params: Option<&Value>,
        deadline: Instant,
        cancel: &CancelToken,
        progress: bool,
    ) -> Result<Value, McpError> {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let message = match (progress, params) {
            (true, Some(Value::Object(params))) => {
                let mut params = params.clone();
                params.insert("_meta".to_string(), json!({"progressToken": id}));
                encode_request(id, method, Some(&Value::Object(params)))
            }
            _ => encode_request(id, method, params),
        };
        let timeout = if matches!(method, "initialize" | "tools/list") { self.handshake_timeout } else { self.timeout };
        let deadline = deadline.min(Instant::now() + timeout);
        let outcome = self.transport.request(id, method, &message, timeout, deadline, cancel);
        if let Err(McpError::Timeout { .. } | McpError::Cancelled) = &outcome
            && method != "initialize"
        {
            let reason = if cancel.is_cancelled() { "cancelled by the user" } else { "timed out" };
            let cancelled = json!({"requestId": id, "reason": reason});
            // Best effort: the server may already be gone, and the caller has its error.
            let _ = self.transport.notify(&encode_notification("notifications/cancelled", Some(&cancelled)));
        }
        outcome
    }
}

/// Checks the `initialize` result: a version we speak, and who the server is.
fn parse_initialize(result: &Value) -> Result<SessionInfo, McpError> {
    let version = result.get("protocolVersion").and_then(Value::as_str).unwrap_or("");
    if !SUPPORTED_VERSIONS.contains(&version) {
        return Err(McpError::Protocol {
            message: format!(
                "the server speaks protocol version {version:?}; mewcode supports {}",
                SUPPORTED_VERSIONS.join(", ")
            ),
        });
    }
    let server = result.get("serverInfo");
    let text = |key: &str| server.and_then(|info| info.get(key)).and_then(Value::as_str).unwrap_or("").to_string();
    let tools_list_changed = result.pointer("/capabilities/tools/listChanged") == Some(&Value::Bool(true));
    Ok(SessionInfo {
        protocol_version: version.to_string(),
        server_name: text("name"),
        server_version: text("version"),
        tools_list_changed,
    })
}

/// One `tools/list` page: its tools and the next cursor. A tool without a name is skipped; a
/// missing or null schema becomes the empty object schema (providers require one).
fn parse_tools_page(result: &Value) -> Result<(Vec<ToolInfo>, Option<String>), McpError> {
    let Some(tools) = result.get("tools").and_then(Value::as_array) else {
        return Err(McpError::Protocol { message: "tools/list answered without a tools array".to_string() });
    };
    let tools = tools
        .iter()
        .filter_map(|tool| {
            let name = tool.get("name").and_then(Value::as_str)?.to_string();
            let input_schema = match tool.get("inputSchema") {
                Some(schema @ Value::Object(_)) => schema.clone(),
                _ => json!({"type": "object", "properties": {}}),
            };
            Some(ToolInfo {
                name,
                description: tool.get("description").and_then(Value::as_str).unwrap_or("").to_string(),
                input_schema,
                read_only: parse_read_only(tool.get("annotations")),
            })
        })
        .collect();
    let next = result.get("nextCursor").and_then(Value::as_str).filter(|cursor| !cursor.is_empty());
    Ok((tools, next.map(str::to_string)))
}

/// The boolean hints of MCP's `ToolAnnotations`. Each must be a JSON boolean when present.
const BOOLEAN_HINTS: [&str; 4] = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"];

/// Whether a tool's `annotations` make it read-only, reading the hints as strictly as they allow.
///
/// Read-only means the permission engine may run the tool without asking (and the agent may batch
/// it with other reads), so every doubt falls to "not read-only": annotations that are absent or
/// not an object; any known hint that is present but not a boolean (a server that writes
/// `"readOnlyHint": "true"` or `null` is not speaking the schema, so none of its hints is
/// believed); and the contradiction `readOnlyHint: true` with `destructiveHint: true`, where the
/// destructive claim wins. `destructiveHint` absent is fine: the spec gives it meaning only when
/// `readOnlyHint` is false. `openWorldHint` does not change the answer (a read-only tool that
/// searches the web is not a contradiction; whether to believe a server at all is the user's
/// choice of servers), and `idempotentHint` says nothing about writes.
pub fn parse_read_only(annotations: Option<&Value>) -> bool {
    let Some(Value::Object(hints)) = annotations else { return false };
    if BOOLEAN_HINTS.iter().any(|hint| hints.get(*hint).is_some_and(|value| !value.is_boolean())) {
        return false;
    }
    hints.get("readOnlyHint") == Some(&Value::Bool(true)) && hints.get("destructiveHint") != Some(&Value::Bool(true))
}

#[cfg(test)]
#[path = "client_tests.rs"]
mod tests;
