//! The Streamable HTTP transport (2025-03-26 .. 2025-11-25): every client message is one POST;
//! the answer is one JSON body or an SSE stream (our own parser) carrying the response.
//!
//! Invariants:
//! - Every POST sends `Accept: application/json, text/event-stream` (Python servers answer 406
//!   otherwise), the configured headers, and `Mcp-Session-Id` / `MCP-Protocol-Version` once the
//!   server issued / we negotiated them.
//! - Real-server quirks are accepted, not fought: any 2xx (202, 200, 204, a JSON content type on
//!   an empty body) acknowledges a notification; SSE priming events (an id, empty data) and
//!   comments are skipped; 404 with a session id, or 400 with a session id and no JSON-RPC body
//!   (or one that complains about the session), is `SessionExpired` and the client
//!   re-initialises.
//! - Resumption: a stream that ends (gracefully or not) before the response is resumed with GET +
//!   `Last-Event-ID` after the server's `retry:` delay (capped at `MAX_RETRY`), again and again
//!   until the response or the deadline, as long as each resumed stream brings something; a
//!   stream without any event id cannot be resumed and fails the request.
//! - A server that declares `tools.listChanged` gets a listener thread on its standalone GET
//!   stream (`listener.rs`), resumed like a response stream; a stream that cannot be opened
//!   again because the server is gone reports the loss (`Lost`) at once.
//! - Every exchange owns a ureq agent while it runs and a scoped watcher thread
//!   (`mcp-http-cancel`) that shuts that agent down when the caller's cancel token fires or the
//!   request's deadline passes, so an interrupted or timed-out call returns at once. The deadline
//!   moves with progress notifications (`jsonrpc::Deadline`); ureq's global timeout is only its
//!   ceiling.
//! - Keep-alive: between exchanges the endpoint keeps one idle agent (`http::keep_alive`),
//!   handed back only by an exchange that succeeded and was not shut down; its pool holds the
//!   connection when the answer was read to its end (JSON bodies, acknowledgements). An SSE
//!   answer is left once its response arrived, so ureq closes that connection rather than pool
//!   it half-read.
//!
//! - `mod.rs` — `HttpTransport` and its `Endpoint`: POST, event streams and their resumption,
//!   routing, the cancel watcher, shutdown
//! - `listener.rs` — the thread on the standalone GET stream
//! - `tests.rs` — the transport against scripted servers

mod listener;

use super::McpError;
use super::client::Transport;
use super::jsonrpc::{Deadline, Incoming, TOOLS_LIST_CHANGED, parse_incoming};
use super::lost::Lost;
use crate::cancel::CancelToken;
use crate::http::agent_config::{AgentConfig, agent_config};
use crate::http::keep_alive::KeepAlive;
use crate::http::net::NetEnv;
use crate::http::read_capped;
use crate::http::roots::read_ca_files;
use crate::sse::SseReader;
use crate::sync::lock;
use crate::url::host_of;
use crossbeam_channel::RecvTimeoutError;
use serde_json::Value;
use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The most of a JSON response or error body we read.
const MAX_BODY_BYTES: u64 = 16 * 1024 * 1024;
/// After this many resumed streams in a row that ended without bringing a single event, the
/// request is given up (a server that keeps closing at once must not spin until the deadline).
const MAX_EMPTY_RESUMES: usize = 5;
/// The reconnection delay when the server set no `retry:`.
const DEFAULT_RETRY: Duration = Duration::from_millis(500);
/// The shortest `retry:` we honour: `retry: 0` must not turn into a busy loop of GETs.
const MIN_RETRY: Duration = Duration::from_millis(10);
/// The longest `retry:` we honour: a server asking for minutes gets this.
const MAX_RETRY: Duration = Duration::from_secs(10);
/// How long shutdown waits for the listener thread to end.
const LISTENER_JOIN: Duration = Duration::from_secs(1);
/// How long a notification (or our reply to a server request) may take.
const NOTIFY_TIMEOUT: Duration = Duration::from_secs(10);
/// The DELETE at shutdown waits at most this long.
const DELETE_TIMEOUT: Duration = Duration::from_secs(2);

type Body = Box<dyn Read + Send>;

/// A Streamable HTTP server, our session with it, and the listener of its standalone stream.
pub struct HttpTransport {
    endpoint: Arc<Endpoint>,
    /// Whether `start_listening` may open the standalone GET stream (the manager's servers do;
    /// the scripted servers of the unit tests answer only what they were told to expect).
    listen: bool,
    listener: Mutex<Option<listener::Listener>>,
}

/// The server endpoint and our session with it: everything an exchange needs, shared with the
/// listener thread.
struct Endpoint {
    url: String,
    headers: Vec<(String, String)>,
    config: AgentConfig,
    /// The idle agent between exchanges (see the keep-alive invariant).
    keep_alive: KeepAlive,
    host: String,
    state: Mutex<SessionState>,
    /// Set when `notifications/tools/list_changed` arrives on a stream, taken by the client.
    tools_changed: AtomicBool,
    /// Told when the server is gone: by the client when a request fails at the network level,
    /// by the listener when its stream cannot be opened again.
    lost: Lost,
}

/// One request in flight: what `post` and `read_stream` need to route its stream.
struct Exchange<'a> {
    id: u64,
    method: &'a str,
    deadline: &'a Deadline,
    cancel: &'a CancelToken,
}

#[derive(Default)]
struct SessionState {
    session_id: Option<String>,
    protocol_version: Option<String>,
}

impl HttpTransport {
    /// A transport for `url` with configured `headers` (already `${VAR}`-expanded), an optional
    /// private CA file, and the proxy settings of `net`. Reads the CA file; connects to nothing.
    pub fn new(
        url: &str,
        headers: &[(String, String)],
        ca_file: Option<&Path>,
        net: &NetEnv,
    ) -> Result<HttpTransport, McpError> {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(McpError::Config { message: format!("url {url:?} must start with http:// or https://") });
        }
        let ca_files: Vec<&Path> = net.ssl_cert_file.as_deref().into_iter().chain(ca_file).collect();
        let roots = read_ca_files(&ca_files).map_err(|message| McpError::Config { message })?;
        // The per-request deadline is enforced by the caller (and a cancel watcher), not per read.
        let (config, _) = agent_config(url, net, &roots, None).map_err(|message| McpError::Config { message })?;
        let endpoint = Endpoint {
            url: url.to_string(),
            headers: headers.to_vec(),
            config,
            keep_alive: KeepAlive::default(),
            host: host_of(url),
            state: Mutex::new(SessionState::default()),
            tools_changed: AtomicBool::new(false),
            lost: Lost::default(),
        };
        Ok(HttpTransport { endpoint: Arc::new(endpoint), listen: false, listener: Mutex::new(None) })
    }

    /// The same transport, allowed to keep the server's standalone GET stream open once the
    /// server declares `tools.listChanged` (see `listen`).
    pub(crate) fn with_listener(mut self) -> HttpTransport {
        self.listen = true;
        self
    }
}

impl Endpoint {
    /// The session headers to send now, and whether a session id is among them.
    fn session_headers(&self) -> (Vec<(&'static str, String)>, bool) {
        let state = lock(&self.state);
        let mut headers = Vec::new();
        if let Some(version) = &state.protocol_version {
            headers.push(("mcp-protocol-version", version.clone()));
        }
        if let Some(session) = &state.session_id {
            headers.push(("mcp-session-id", session.clone()));
        }
        let has_session = state.session_id.is_some();
        (headers, has_session)
    }

    /// POSTs one message. For a request (`expect`) returns its result; for a notification or a
    /// reply returns `Value::Null` on any 2xx. `bound` is the hard limit given to ureq.
    fn post(
        &self,
        agent: &ureq::Agent,
        message: &str,
        expect: Option<&Exchange<'_>>,
        bound: Instant,
    ) -> Result<Value, McpError> {
        let method = expect.map_or("a notification", |exchange| exchange.method);
        let remaining = bound.saturating_duration_since(Instant::now());
        let mut request = agent
            .post(&self.url)
            .config()
            .timeout_global(Some(remaining.max(Duration::from_millis(1))))
            .build()
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        for (name, value) in &self.headers {
            request = request.header(name.as_str(), value.as_str());
        }
        let (session_headers, had_session) = self.session_headers();
        for (name, value) in session_headers {
            request = request.header(name, value);
        }
        let response = request.send(message).map_err(|err| self.map_error(err, method, remaining))?;
        let status = response.status().as_u16();
        let header =
            |name: &str| response.headers().get(name).and_then(|value| value.to_str().ok()).map(str::to_string);
        let content_type = header("content-type").unwrap_or_default().to_ascii_lowercase();
        if let Some(session) = header("mcp-session-id") {
            lock(&self.state).session_id.get_or_insert(session);
        }
        let body: Body = Box::new(response.into_body().into_reader());
        if !(200..300).contains(&status) {
            let text = read_capped(body, 64 * 1024);
            if session_gone(status, had_session, &text) {
                return Err(McpError::SessionExpired);
            }
            return Err(McpError::Http { status, message: describe_error_body(&text) });
        }
        let Some(exchange) = expect else {
            return Ok(Value::Null);
        };
        if content_type.starts_with("text/event-stream") {
            return self.read_stream(agent, SseReader::new(body), exchange, bound);
        }
        let text = read_capped(body, MAX_BODY_BYTES);
        match self.route(&text, exchange) {
            Some(outcome) => outcome,
            None => Err(McpError::Protocol {
                message: format!("{} answered {method} with HTTP {status} but no response to it", self.host),
            }),
        }
    }

    /// Reads an event stream until the response, resuming a stream that ends before it.
    fn read_stream(
        &self,
        agent: &ureq::Agent,
        mut events: SseReader<Body>,
        exchange: &Exchange<'_>,
        bound: Instant,
    ) -> Result<Value, McpError> {
        let method = exchange.method;
        let mut last_event_id: Option<String> = None;
        let mut retry = DEFAULT_RETRY;
        let mut empty_resumes = 0;
        let mut got_event = false;
        loop {
            let failure = match events.next_event() {
                Ok(Some(event)) => {
                    got_event = true;
                    last_event_id = event.id.clone().or(last_event_id);
                    if let Some(retry_ms) = event.retry_ms {
                        retry = Duration::from_millis(retry_ms).clamp(MIN_RETRY, MAX_RETRY);
                    }
                    // Priming events (an id and empty data) only set the resumption point.
                    if event.data.trim().is_empty() {
                        continue;
                    }
                    match self.route(&event.data, exchange) {
                        Some(outcome) => return outcome,
                        None => continue,
                    }
                }
                Ok(None) => "the event stream ended".to_string(),
                Err(err) => err.to_string(),
            };
            empty_resumes = if got_event { 0 } else { empty_resumes + 1 };
            got_event = false;
            let Some(last) = last_event_id.clone().filter(|_| empty_resumes < MAX_EMPTY_RESUMES) else {
                return Err(McpError::Protocol { message: format!("{failure} before the response to {method}") });
            };
            let remaining = exchange.deadline.at().saturating_duration_since(Instant::now());
            if remaining.is_zero() || !exchange.cancel.sleep(retry.min(remaining)) {
                return Err(McpError::Timeout { method: method.to_string(), seconds: 0.0 });
            }
            events = self.resume(agent, &last, method, bound)?;
        }
    }

    /// GET with `Last-Event-ID`: the server replays what followed that event.
    fn resume(
        &self,
        agent: &ureq::Agent,
        last_event_id: &str,
        method: &str,
        bound: Instant,
    ) -> Result<SseReader<Body>, McpError> {
        let remaining = bound.saturating_duration_since(Instant::now());
        let mut request = agent
            .get(&self.url)
            .config()
            .timeout_global(Some(remaining.max(Duration::from_millis(1))))
            .build()
            .header("accept", "text/event-stream")
            .header("last-event-id", last_event_id);
        for (name, value) in &self.headers {
            request = request.header(name.as_str(), value.as_str());
        }
        for (name, value) in self.session_headers().0 {
            request = request.header(name, value);
        }
        let response = request.call().map_err(|err| self.map_error(err, method, remaining))?;
        let status = response.status().as_u16();
        let body: Body = Box::new(response.into_body().into_reader());
        if !(200..300).contains(&status) {
            let text = read_capped(body, 64 * 1024);
            return Err(McpError::Http {
                status,
                message: format!("resuming the event stream failed: {}", describe_error_body(&text)),
            });
        }
        Ok(SseReader::new(body))
    }

    /// Routes one JSON payload: our response ends the wait, its progress moves the deadline, a
    /// changed tool list is flagged, server requests are answered.
    fn route(&self, text: &str, exchange: &Exchange<'_>) -> Option<Result<Value, McpError>> {
        let Ok(messages) = parse_incoming(text) else { return None };
        let mut found = None;
        for message in messages {
            match message {
                Incoming::Response { id, outcome } if id == exchange.id => found = Some(outcome),
                Incoming::Progress { token } if token == exchange.id => exchange.deadline.progressed(Instant::now()),
                Incoming::Notification { method } if method == TOOLS_LIST_CHANGED => {
                    self.tools_changed.store(true, Ordering::SeqCst);
                }
                Incoming::Response { .. }
                | Incoming::Progress { .. }
                | Incoming::Notification { .. }
                | Incoming::Ignored { .. } => {}
                Incoming::ServerRequest { reply, .. } => {
                    // Best effort: the server decides what an unanswered request means.
                    let _ = self.notify(&reply);
                }
            }
        }
        found
    }

    /// POSTs a notification or a reply; any 2xx acknowledges it.
    fn notify(&self, message: &str) -> Result<(), McpError> {
        let agent = self.agent();
        let outcome = self.post(&agent, message, None, Instant::now() + NOTIFY_TIMEOUT).map(|_| ());
        if outcome.is_ok() {
            self.keep_alive.put(agent);
        }
        outcome
    }

    /// The kept idle agent, or a new one (never waits: exchanges here do not overlap by design).
    fn agent(&self) -> ureq::Agent {
        self.keep_alive.take(Duration::ZERO).unwrap_or_else(|| self.config.new_agent())
    }

    /// The one mapping from ureq's errors, naming the host.
    fn map_error(&self, error: ureq::Error, method: &str, timeout: Duration) -> McpError {
        let host = &self.host;
        let timed_out = McpError::Timeout { method: method.to_string(), seconds: timeout.as_secs_f64() };
        match error {
            ureq::Error::Timeout(ureq::Timeout::Connect | ureq::Timeout::Resolve) => {
                McpError::Network { message: format!("connecting to {host} timed out") }
            }
            ureq::Error::Timeout(_) => timed_out,
            ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => timed_out,
            ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
                McpError::Network { message: format!("connection to {host} refused; is the server running?") }
            }
            ureq::Error::HostNotFound => McpError::Network { message: format!("cannot resolve {host}") },
            ureq::Error::BadUri(uri) => McpError::Config { message: format!("invalid URL {uri}") },
            other => McpError::Network { message: format!("talking to {host}: {other}") },
        }
    }
}

impl Transport for HttpTransport {
    fn request(
        &self,
        id: u64,
        method: &str,
        message: &str,
        timeout: Duration,
        deadline: Instant,
        cancel: &CancelToken,
    ) -> Result<Value, McpError> {
        let deadline = Deadline::new(timeout, deadline, Instant::now());
        let exchange = Exchange { id, method, deadline: &deadline, cancel };
        let agent = self.endpoint.agent();
        let timed_out = AtomicBool::new(false);
        let shut_down = AtomicBool::new(false);
        let outcome = std::thread::scope(|scope| {
            // Never sent on: dropping the sender is what tells the watcher the exchange is over.
            let (done_tx, done_rx) = crossbeam_channel::bounded::<()>(0);
            let watched = agent.clone();
            let (deadline, timed_out, shut_down) = (&deadline, &timed_out, &shut_down);
            let watcher =
                std::thread::Builder::new().name("mcp-http-cancel".to_string()).spawn_scoped(scope, move || {
                    let shut = || {
                        shut_down.store(true, Ordering::SeqCst);
                        watched.shutdown();
                    };
                    loop {
                        match done_rx.recv_timeout(Duration::from_millis(25)) {
                            Err(RecvTimeoutError::Timeout) if cancel.is_cancelled() => return shut(),
                            Err(RecvTimeoutError::Timeout) if Instant::now() >= deadline.at() => {
                                timed_out.store(true, Ordering::SeqCst);
                                return shut();
                            }
                            Err(RecvTimeoutError::Timeout) => {}
                            Ok(()) | Err(RecvTimeoutError::Disconnected) => return,
                        }
                    }
                });
            let outcome = self.endpoint.post(&agent, message, Some(&exchange), deadline.ceiling());
            drop(done_tx);
            if let Ok(watcher) = watcher {
                let _ = watcher.join();
            }
            outcome
        });
        // The watcher has ended: an agent it did not shut down, after a success, serves the next
        // exchange (a shut-down agent would refuse every later connection).
        if outcome.is_ok() && !shut_down.load(Ordering::SeqCst) {
            self.endpoint.keep_alive.put(agent);
        }
        match outcome {
            Err(_) if cancel.is_cancelled() => Err(McpError::Cancelled),
            Err(_) if timed_out.load(Ordering::SeqCst) => {
                Err(McpError::Timeout { method: method.to_string(), seconds: timeout.as_secs_f64() })
            }
            Err(McpError::Timeout { method, .. }) => Err(McpError::Timeout { method, seconds: timeout.as_secs_f64() }),
            other => other,
        }
    }

    fn notify(&self, message: &str) -> Result<(), McpError> {
        self.endpoint.notify(message)
    }

    fn negotiated(&self, protocol_version: &str) {
        lock(&self.endpoint.state).protocol_version = Some(protocol_version.to_string());
    }

    fn reset_session(&self) {
        *lock(&self.endpoint.state) = SessionState::default();
    }

    fn shutdown(&self, deadline: Instant) {
        self.endpoint.lost.silence();
        self.stop_listening((Instant::now() + LISTENER_JOIN).min(deadline));
        let (session_headers, has_session) = self.endpoint.session_headers();
        if !has_session {
            return;
        }
        let remaining = deadline.saturating_duration_since(Instant::now()).min(DELETE_TIMEOUT);
        let agent = self.endpoint.agent();
        let mut request = agent
            .delete(&self.endpoint.url)
            .config()
            .timeout_global(Some(remaining.max(Duration::from_millis(1))))
            .build();
        for (name, value) in &self.endpoint.headers {
            request = request.header(name.as_str(), value.as_str());
        }
        for (name, value) in session_headers {
            request = request.header(name, value);
        }
        // 405 (not supported) or a gone server are fine: we are leaving either way.
        let _ = request.call();
        *lock(&self.endpoint.state) = SessionState::default();
    }

    fn stderr_head(&self) -> Vec<String> {
        Vec::new()
    }

    fn lost(&self) -> &Lost {
        &self.endpoint.lost
    }

    fn take_tools_changed(&self) -> bool {
        self.endpoint.tools_changed.swap(false, Ordering::SeqCst)
    }

    fn start_listening(&self) {
        if !self.listen {
            return;
        }
        self.spawn_listener();
    }
}

/// Whether an error status means "your session is gone": 404 with a session id (the spec), or
/// 400 with a session id and a body that is not a JSON-RPC message or complains about the
/// session (what the TypeScript and Python SDK servers actually send).
fn session_gone(status: u16, had_session: bool, body: &str) -> bool {
    if !had_session {
        return false;
    }
    match status {
        404 => true,
        400 => match serde_json::from_str::<Value>(body) {
            Ok(value) if value.get("jsonrpc").is_some() => value
                .pointer("/error/message")
                .and_then(Value::as_str)
                .is_some_and(|message| message.to_ascii_lowercase().contains("session")),
            Ok(_) | Err(_) => true,
        },
        _ => false,
    }
}

/// An error body as one short line: a JSON-RPC error's message, else the text.
fn describe_error_body(text: &str) -> String {
    let message = serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|value| value.pointer("/error/message").and_then(Value::as_str).map(str::to_string))
        .unwrap_or_else(|| text.trim().to_string());
    let message: String = message.chars().take(300).collect();
    if message.is_empty() { "(empty body)".to_string() } else { message }
}

#[cfg(test)]
mod tests;
