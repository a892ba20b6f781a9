//! The JSON-RPC 2.0 core both transports share: encoding our requests and notifications,
//! classifying what the server sends, answering its requests, and the table of pending requests
//! that matches responses to waiters by id.
//!
//! Invariant: every server message is either routed (a response to a waiter, a reply we must
//! send, a notification) or ignored with a reason; nothing the server sends can make us panic or
//! block the reader (each waiter's channel holds its one answer). We never send batches, but an
//! array from an old (2025-03-26) server is processed element by element. No IO here.
//!
//! Progress: we send our request id as the `progressToken` of `tools/call`; each
//! `notifications/progress` for it pushes the request's `Deadline` back by one timeout, up to
//! `PROGRESS_CEILING` timeouts in all (the spec asks for a maximum whatever the progress).

use super::McpError;
use crate::cancel::CancelToken;
use crate::sync::lock;
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The per-request timeout when the server's config does not set `timeout_s` (SPEC §7).
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// JSON-RPC "method not found": our answer to server requests we do not implement.
const METHOD_NOT_FOUND: i64 = -32601;

/// The notification after which the client lists the server's tools again.
pub(crate) const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";

/// How many timeouts a request may last in all when progress keeps coming: a tool that reports
/// progress forever must still end.
const PROGRESS_CEILING: u32 = 10;

/// One request as a line of JSON (no raw newlines: serde_json escapes them).
pub(crate) fn encode_request(id: u64, method: &str, params: Option<&Value>) -> String {
    let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
    if let Some(params) = params {
        message["params"] = params.clone();
    }
    message.to_string()
}

/// One notification (no id, never answered).
pub(crate) fn encode_notification(method: &str, params: Option<&Value>) -> String {
    let mut message = json!({"jsonrpc": "2.0", "method": method});
    if let Some(params) = params {
        message["params"] = params.clone();
    }
    message.to_string()
}

/// What one message from the server means for us.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Incoming {
    /// The answer to our request `id`: its `result`, or its `error` as `McpError::Rpc`.
    Response { id: u64, outcome: Result<Value, McpError> },
    /// A request from the server; `reply` is our answer, to be sent as it is.
    ServerRequest { method: String, reply: String },
    /// `notifications/progress` for a token we may have sent (our request ids are the tokens).
    Progress { token: u64 },
    /// Any other notification (`.../message`, `.../tools/list_changed`, a progress notification
    /// with a token we never send...).
    Notification { method: String },
    /// Not something we can route (an id we never used, a malformed object); `reason` is logged.
    Ignored { reason: String },
}

/// Parses one message (a stdio line, an SSE event's data, an HTTP body). `Err` means the text is
/// not JSON at all (a server printing logs on stdout); the caller logs and skips it.
pub(crate) fn parse_incoming(text: &str) -> Result<Vec<Incoming>, String> {
    let value: Value = serde_json::from_str(text).map_err(|err| format!("not JSON ({err})"))?;
    Ok(match value {
        Value::Array(items) => items.into_iter().map(classify).collect(),
        single => vec![classify(single)],
    })
}

/// Classifies one JSON value.
pub(crate) fn classify(value: Value) -> Incoming {
    let Value::Object(object) = value else {
        return Incoming::Ignored { reason: "a message that is not a JSON object".to_string() };
    };
    let method = object.get("method").and_then(Value::as_str).map(str::to_string);
    let id = object.get("id").filter(|id| !id.is_null()).cloned();
    match (method, id) {
        (Some(method), Some(id)) => Incoming::ServerRequest { reply: reply_to_server_request(&id, &method), method },
        (Some(method), None) => {
            let token = object.get("params").and_then(|params| params.get("progressToken")).and_then(Value::as_u64);
            match token {
                Some(token) if method == "notifications/progress" => Incoming::Progress { token },
                Some(_) | None => Incoming::Notification { method },
            }
        }
        (None, Some(id)) => match id.as_u64() {
            Some(id) => Incoming::Response { id, outcome: response_outcome(&object) },
            None => Incoming::Ignored { reason: format!("a response to id {id}, which we never sent") },
        },
        (None, None) => match object.get("error") {
            // A 2025 HTTP server answers a malformed request with an id-less error object.
            Some(error) => Incoming::Ignored { reason: format!("an error without an id: {}", error_message(error)) },
            None => Incoming::Ignored { reason: "a message with neither method nor id".to_string() },
        },
    }
}

/// Our answer to a server request: `ping` gets `{}`; everything else (`roots/list`,
/// `sampling/createMessage`, `elicitation/create`, ...) is "method not found", since we declare
/// none of those capabilities. Answering instead of ignoring keeps the server from waiting.
fn reply_to_server_request(id: &Value, method: &str) -> String {
    let reply = match method {
        "ping" => json!({"jsonrpc": "2.0", "id": id, "result": {}}),
        other => json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": {"code": METHOD_NOT_FOUND, "message": format!("mewcode does not support {other}")},
        }),
    };
    reply.to_string()
}

fn response_outcome(object: &serde_json::Map<String, Value>) -> Result<Value, McpError> {
    if let Some(error) = object.get("error").filter(|error| !error.is_null()) {
        let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
        return Err(McpError::Rpc { code, message: error_message(error) });
    }
    match object.get("result") {
        Some(result) => Ok(result.clone()),
        None => Err(McpError::Protocol { message: "a response with neither result nor error".to_string() }),
    }
}

fn error_message(error: &Value) -> String {
    match error.get("message").and_then(Value::as_str) {
        Some(message) => message.to_string(),
        None => error.to_string(),
    }
}

/// One waiter's answer.
pub(crate) type Answer = Result<Value, McpError>;

/// Requests in flight, by id. The stdio reader thread resolves them; once the server is gone,
/// `close` fails every waiter and every later registration with the same error.
#[derive(Default)]
pub(crate) struct Pending {
    state: Mutex<PendingState>,
}

#[derive(Default)]
struct PendingState {
    waiters: HashMap<u64, Waiter>,
    closed: Option<McpError>,
}

struct Waiter {
    answer_tx: Sender<Answer>,
    deadline: Arc<Deadline>,
}

impl Pending {
    /// Registers request `id` before it is sent, so a fast answer cannot be missed; progress
    /// notifications for `id` push `deadline` back.
    pub(crate) fn register(&self, id: u64, deadline: Arc<Deadline>) -> Result<Receiver<Answer>, McpError> {
        let mut state = lock(&self.state);
        if let Some(error) = &state.closed {
            return Err(error.clone());
        }
        // Capacity 1: exactly one answer per request, so the reader's send never blocks.
        let (answer_tx, answer_rx) = crossbeam_channel::bounded(1);
        state.waiters.insert(id, Waiter { answer_tx, deadline });
        Ok(answer_rx)
    }

    /// Hands `outcome` to the waiter of `id`; false when nobody waits (a late or unknown id).
    pub(crate) fn resolve(&self, id: u64, outcome: Answer) -> bool {
        let waiter = lock(&self.state).waiters.remove(&id);
        match waiter {
            // The waiter may have timed out and gone; a failed send is that normal case.
            Some(waiter) => waiter.answer_tx.try_send(outcome).is_ok(),
            None => false,
        }
    }

    /// Progress on request `token` at `now`: its deadline moves back. False for an unknown token.
    pub(crate) fn progress(&self, token: u64, now: Instant) -> bool {
        let deadline = lock(&self.state).waiters.get(&token).map(|waiter| Arc::clone(&waiter.deadline));
        deadline.map(|deadline| deadline.progressed(now)).is_some()
    }

    /// Forgets `id` (timed out or cancelled): a late answer is then ignored.
    pub(crate) fn forget(&self, id: u64) {
        lock(&self.state).waiters.remove(&id);
    }

    /// Fails every waiter now and every registration from now on with `error`.
    pub(crate) fn close(&self, error: McpError) {
        let mut state = lock(&self.state);
        for (_, waiter) in state.waiters.drain() {
            let _ = waiter.answer_tx.try_send(Err(error.clone()));
        }
        state.closed.get_or_insert(error);
    }

    /// The error the table was closed with, if it was.
    pub(crate) fn closed(&self) -> Option<McpError> {
        lock(&self.state).closed.clone()
    }
}

/// A request's deadline: fixed when it is sent, pushed back by each progress notification to
/// one `timeout` after it, never past the ceiling (`PROGRESS_CEILING` timeouts after sending, or
/// the original deadline when that is later). Shared by the waiter and whoever sees the progress
/// (the stdio reader, the HTTP stream reader).
#[derive(Debug)]
pub(crate) struct Deadline {
    timeout: Duration,
    ceiling: Instant,
    current: Mutex<Instant>,
}

impl Deadline {
    /// The deadline of a request sent at `now` that must end by `deadline` unless it progresses.
    pub(crate) fn new(timeout: Duration, deadline: Instant, now: Instant) -> Deadline {
        let ceiling = deadline.max(now + timeout * PROGRESS_CEILING);
        Deadline { timeout, ceiling, current: Mutex::new(deadline) }
    }

    /// The request progressed at `now`.
    pub(crate) fn progressed(&self, now: Instant) {
        let mut current = lock(&self.current);
        *current = extend_deadline(*current, now, self.timeout, self.ceiling);
    }

    /// When the request times out as things stand.
    pub(crate) fn at(&self) -> Instant {
        *lock(&self.current)
    }

    /// The latest the request can ever last (for transports that need one bound up front).
    pub(crate) fn ceiling(&self) -> Instant {
        self.ceiling
    }

    /// The configured per-request timeout (for the error message).
    pub(crate) fn timeout(&self) -> Duration {
        self.timeout
    }
}

/// The deadline after progress at `now`: one `timeout` from now, never earlier than it was and
/// never past `ceiling`.
fn extend_deadline(current: Instant, now: Instant, timeout: Duration, ceiling: Instant) -> Instant {
    current.max((now + timeout).min(ceiling))
}

/// Waits for one answer until the (movable) `deadline`, waking every 50 ms to check `cancel`.
pub(crate) fn wait(answer_rx: &Receiver<Answer>, method: &str, deadline: &Deadline, cancel: &CancelToken) -> Answer {
    loop {
        if cancel.is_cancelled() {
            return Err(McpError::Cancelled);
        }
        let now = Instant::now();
        let until = deadline.at();
        if now >= until {
            return Err(McpError::Timeout { method: method.to_string(), seconds: deadline.timeout().as_secs_f64() });
        }
        match answer_rx.recv_timeout((until - now).min(Duration::from_millis(50))) {
            Ok(answer) => return answer,
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                return Err(McpError::Exited { detail: "its connection closed".to_string() });
            }
        }
    }
}

#[cfg(test)]
#[path = "jsonrpc_tests.rs"]
mod tests;
