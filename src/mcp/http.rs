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
//!   re-initialises; a stream that drops before the response is resumed with GET +
//!   `Last-Event-ID` after the server's `retry:` delay.
//! - Every exchange gets its own ureq agent and a scoped watcher thread (`mcp-http-cancel`) that
//!   shuts that agent down when the caller's cancel token fires, so an interrupted call returns at
//!   once. The request deadline is ureq's global timeout.

use super::McpError;
use super::client::Transport;
use super::jsonrpc::{Incoming, parse_incoming};
use crate::cancel::CancelToken;
use crate::llm::http::{agent_config, read_ca_files};
use crate::llm::net::{NetEnv, host_of};
use crate::sse::SseReader;
use crate::sync::lock;
use crossbeam_channel::RecvTimeoutError;
use serde_json::Value;
use std::io::Read;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The most of a JSON response or error body we read.
const MAX_BODY_BYTES: u64 = 16 * 1024 * 1024;
/// How often a dropped event stream is resumed before the request is given up.
const MAX_RESUMES: usize = 3;
/// The reconnection delay when the server set no `retry:`.
const DEFAULT_RETRY: Duration = Duration::from_millis(500);
/// The DELETE at shutdown waits at most this long.
const DELETE_TIMEOUT: Duration = Duration::from_secs(2);

type Body = Box<dyn Read + Send>;

/// A Streamable HTTP server endpoint and our session with it.
pub struct HttpTransport {
    url: String,
    headers: Vec<(String, String)>,
    config: crate::llm::http::AgentConfig,
    host: String,
    state: Mutex<SessionState>,
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
        Ok(HttpTransport {
            url: url.to_string(),
            headers: headers.to_vec(),
            config,
            host: host_of(url),
            state: Mutex::new(SessionState::default()),
        })
    }

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

    /// POSTs one message. For a request (`expect` = its id) returns its result; for a
    /// notification or a reply returns `Value::Null` on any 2xx.
    fn post(
        &self,
        agent: &ureq::Agent,
        message: &str,
        expect: Option<(u64, &str)>,
        deadline: Instant,
    ) -> Result<Value, McpError> {
        let method = expect.map_or("a notification", |(_, method)| method);
        let remaining = deadline.saturating_duration_since(Instant::now());
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
        let Some((id, method)) = expect else {
            return Ok(Value::Null);
        };
        if content_type.starts_with("text/event-stream") {
            return self.read_stream(agent, SseReader::new(body), id, method, deadline);
        }
        let text = read_capped(body, MAX_BODY_BYTES);
        match self.route(&text, id) {
            Some(outcome) => outcome,
            None => Err(McpError::Protocol {
                message: format!("{} answered {method} with HTTP {status} but no response to it", self.host),
            }),
        }
    }

    /// Reads an event stream until the response to `id`, resuming a dropped stream.
    fn read_stream(
        &self,
        agent: &ureq::Agent,
        mut events: SseReader<Body>,
        id: u64,
        method: &str,
        deadline: Instant,
    ) -> Result<Value, McpError> {
        let mut last_event_id: Option<String> = None;
        let mut retry = DEFAULT_RETRY;
        let mut resumes = 0;
        loop {
            let failure = match events.next_event() {
                Ok(Some(event)) => {
                    last_event_id = event.id.clone().or(last_event_id);
                    if let Some(retry_ms) = event.retry_ms {
                        retry = Duration::from_millis(retry_ms);
                    }
                    // Priming events (an id and empty data) only set the resumption point.
                    if event.data.trim().is_empty() {
                        continue;
                    }
                    match self.route(&event.data, id) {
                        Some(outcome) => return outcome,
                        None => continue,
                    }
                }
                Ok(None) => "the event stream ended".to_string(),
                Err(err) => err.to_string(),
            };
            let remaining = deadline.saturating_duration_since(Instant::now());
            if remaining.is_zero() {
                return Err(McpError::Timeout { method: method.to_string(), seconds: 0.0 });
            }
            let Some(last) = last_event_id.clone().filter(|_| resumes < MAX_RESUMES) else {
                return Err(McpError::Protocol { message: format!("{failure} before the response to {method}") });
            };
            resumes += 1;
            std::thread::sleep(retry.min(remaining));
            events = self.resume(agent, &last, method, deadline)?;
        }
    }

    /// GET with `Last-Event-ID`: the server replays what followed that event.
    fn resume(
        &self,
        agent: &ureq::Agent,
        last_event_id: &str,
        method: &str,
        deadline: Instant,
    ) -> Result<SseReader<Body>, McpError> {
        let remaining = deadline.saturating_duration_since(Instant::now());
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

    /// Routes one JSON payload: our response ends the wait; server requests are answered.
    fn route(&self, text: &str, id: u64) -> Option<Result<Value, McpError>> {
        let Ok(messages) = parse_incoming(text) else { return None };
        let mut found = None;
        for message in messages {
            match message {
                Incoming::Response { id: answered, outcome } if answered == id => found = Some(outcome),
                Incoming::Response { .. } | Incoming::Notification { .. } | Incoming::Ignored { .. } => {}
                Incoming::ServerRequest { reply, .. } => {
                    // Best effort: the server decides what an unanswered request means.
                    let _ = self.notify(&reply);
                }
            }
        }
        found
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
        let agent = self.config.new_agent();
        let outcome = std::thread::scope(|scope| {
            // Never sent on: dropping the sender is what tells the watcher the exchange is over.
            let (done_tx, done_rx) = crossbeam_channel::bounded::<()>(0);
            let watched = agent.clone();
            let watcher =
                std::thread::Builder::new().name("mcp-http-cancel".to_string()).spawn_scoped(scope, move || {
                    loop {
                        match done_rx.recv_timeout(Duration::from_millis(50)) {
                            Err(RecvTimeoutError::Timeout) if cancel.is_cancelled() => return watched.shutdown(),
                            Err(RecvTimeoutError::Timeout) => {}
                            Ok(()) | Err(RecvTimeoutError::Disconnected) => return,
                        }
                    }
                });
            let outcome = self.post(&agent, message, Some((id, method)), deadline);
            drop(done_tx);
            if let Ok(watcher) = watcher {
                let _ = watcher.join();
            }
            outcome
        });
        match outcome {
            Err(_) if cancel.is_cancelled() => Err(McpError::Cancelled),
            Err(McpError::Timeout { method, .. }) => Err(McpError::Timeout { method, seconds: timeout.as_secs_f64() }),
            other => other,
        }
    }

    fn notify(&self, message: &str) -> Result<(), McpError> {
        let agent = self.config.new_agent();
        self.post(&agent, message, None, Instant::now() + Duration::from_secs(10)).map(|_| ())
    }

    fn negotiated(&self, protocol_version: &str) {
        lock(&self.state).protocol_version = Some(protocol_version.to_string());
    }

    fn reset_session(&self) {
        *lock(&self.state) = SessionState::default();
    }

    fn shutdown(&self, deadline: Instant) {
        let (session_headers, has_session) = self.session_headers();
        if !has_session {
            return;
        }
        let remaining = deadline.saturating_duration_since(Instant::now()).min(DELETE_TIMEOUT);
        let agent = self.config.new_agent();
        let mut request =
            agent.delete(&self.url).config().timeout_global(Some(remaining.max(Duration::from_millis(1)))).build();
        for (name, value) in &self.headers {
            request = request.header(name.as_str(), value.as_str());
        }
        for (name, value) in session_headers {
            request = request.header(name, value);
        }
        // 405 (not supported) or a gone server are fine: we are leaving either way.
        let _ = request.call();
        *lock(&self.state) = SessionState::default();
    }

    fn stderr_head(&self) -> Vec<String> {
        Vec::new()
    }
}

/// Whether an error status means "your session is gone": 404 with a session id (the spec), or
/// 400 with a session id and a body that is not a JSON-RPC message or complains about the
/// session (what the TypeScript and Python SDK servers actually send).
pub fn session_gone(status: u16, had_session: bool, body: &str) -> bool {
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

fn read_capped(body: Body, limit: u64) -> String {
    let mut bytes = Vec::new();
    // A body that fails half-way still carries a useful message in what did arrive.
    let _ = body.take(limit).read_to_end(&mut bytes);
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests;
