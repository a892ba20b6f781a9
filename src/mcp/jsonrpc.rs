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
mod tests {
    use super::*;

    fn transcript(name: &str) -> String {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/transcripts").join(name);
        std::fs::read_to_string(path).unwrap()
    }

    #[test]
    fn the_stdio_transcript_routes_every_server_message() {
        let routed: Vec<Incoming> = transcript("mcp-stdio-server-to-client.jsonl")
            .lines()
            .flat_map(|line| parse_incoming(line).unwrap())
            .map(|incoming| match incoming {
                Incoming::Response { id, outcome: Ok(_) } => Incoming::Response { id, outcome: Ok(Value::Null) },
                other => other,
            })
            .collect();
        let ok = |id| Incoming::Response { id, outcome: Ok(Value::Null) };
        let notification = |method: &str| Incoming::Notification { method: method.to_string() };
        assert_eq!(
            routed,
            vec![
                ok(0),
                Incoming::ServerRequest {
                    method: "ping".into(),
                    reply: r#"{"jsonrpc":"2.0","id":"srv-1","result":{}}"#.into()
                },
                ok(1),
                Incoming::ServerRequest {
                    method: "roots/list".into(),
                    reply: r#"{"jsonrpc":"2.0","id":"srv-2","error":{"code":-32601,"message":"mewcode does not support roots/list"}}"#.into()
                },
                Incoming::Progress { token: 2 },
                ok(2),
                notification("notifications/message"),
                ok(3),
                Incoming::Response {
                    id: 4,
                    outcome: Err(McpError::Rpc { code: -32602, message: "Unknown tool: no_such_tool".into() })
                },
                notification("notifications/tools/list_changed"),
            ]
        );
    }

    #[test]
    fn odd_messages_are_ignored_or_rejected_not_fatal() {
        assert!(parse_incoming("Server started on stdio").is_err());
        let cases = [
            (r#"[{"jsonrpc":"2.0","id":3,"result":{}},{"jsonrpc":"2.0","method":"x"}]"#, 2),
            (r#"{"jsonrpc":"2.0","id":"abc","result":{}}"#, 1),
            (r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"bad"}}"#, 1),
            ("42", 1),
        ];
        for (text, count) in cases {
            assert_eq!(parse_incoming(text).unwrap().len(), count, "{text}");
        }
        assert!(matches!(classify(json!({"id": "abc", "result": {}})), Incoming::Ignored { .. }));
        assert!(matches!(
            classify(json!({"id": 5})),
            Incoming::Response { id: 5, outcome: Err(McpError::Protocol { .. }) }
        ));
    }

    #[test]
    fn requests_encode_as_single_lines_with_optional_params() {
        assert_eq!(encode_request(7, "tools/list", None), r#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#);
        assert_eq!(
            encode_notification("notifications/cancelled", Some(&json!({"requestId": 7, "reason": "a\nb"}))),
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"a\nb"}}"#
        );
    }

    fn deadline_in(timeout: Duration) -> Arc<Deadline> {
        let now = Instant::now();
        Arc::new(Deadline::new(timeout, now + timeout, now))
    }

    #[test]
    fn pending_matches_by_id_and_close_fails_everyone() {
        let pending = Pending::default();
        let far = deadline_in(Duration::from_secs(5));
        let first = pending.register(1, far.clone()).unwrap();
        let second = pending.register(2, far.clone()).unwrap();
        assert!(pending.resolve(2, Ok(json!("two"))));
        assert!(!pending.resolve(9, Ok(json!("late"))));
        assert_eq!(wait(&second, "x", &far, &CancelToken::new()), Ok(json!("two")));
        pending.close(McpError::Exited { detail: "gone".into() });
        assert_eq!(wait(&first, "x", &far, &CancelToken::new()), Err(McpError::Exited { detail: "gone".into() }));
        assert_eq!(pending.register(3, far).err(), Some(McpError::Exited { detail: "gone".into() }));
    }

    #[test]
    fn wait_times_out_and_honours_cancel() {
        let pending = Pending::default();
        let timeout = Duration::from_millis(20);
        let answer_rx = pending.register(1, deadline_in(timeout)).unwrap();
        let outcome = wait(&answer_rx, "tools/call", &deadline_in(timeout), &CancelToken::new());
        assert_eq!(outcome, Err(McpError::Timeout { method: "tools/call".into(), seconds: 0.02 }));
        let cancel = CancelToken::new();
        cancel.cancel();
        assert_eq!(wait(&answer_rx, "x", &deadline_in(Duration::from_secs(5)), &cancel), Err(McpError::Cancelled));
    }

    #[test]
    fn progress_notifications_are_told_apart_by_their_token() {
        let progress =
            |params: Value| classify(json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": params}));
        assert_eq!(progress(json!({"progressToken": 7, "progress": 1})), Incoming::Progress { token: 7 });
        let other = Incoming::Notification { method: "notifications/progress".into() };
        assert_eq!(progress(json!({"progressToken": "abc", "progress": 1})), other);
        assert_eq!(progress(json!({"progress": 1})), other);
        let message =
            classify(json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"progressToken": 7}}));
        assert_eq!(message, Incoming::Notification { method: "notifications/message".into() });
    }

    #[test]
    fn progress_moves_the_deadline_one_timeout_on_never_back_and_never_past_the_ceiling() {
        let start = Instant::now();
        let second = Duration::from_secs(1);
        let ceiling = start + second * PROGRESS_CEILING;
        // Progress half-way: one timeout from then.
        assert_eq!(extend_deadline(start + second, start + second / 2, second, ceiling), start + second * 3 / 2);
        // Progress that would move it earlier (the original deadline was later) changes nothing.
        assert_eq!(extend_deadline(start + second * 5, start, second, ceiling), start + second * 5);
        // Near the ceiling it stops there.
        assert_eq!(extend_deadline(start + second * 9, start + second * 19 / 2, second, ceiling), ceiling);
        let deadline = Deadline::new(second, start + second, start);
        assert_eq!(deadline.ceiling(), ceiling);
        deadline.progressed(start + second / 2);
        assert_eq!(deadline.at(), start + second * 3 / 2);
        // A later original deadline (a start-up budget) is its own ceiling.
        assert_eq!(Deadline::new(second, start + second * 60, start).ceiling(), start + second * 60);
    }

    #[test]
    fn progress_for_a_waiting_request_extends_its_wait() {
        let pending = Pending::default();
        let timeout = Duration::from_millis(300);
        let deadline = deadline_in(timeout);
        let answer_rx = pending.register(4, deadline.clone()).unwrap();
        let before = deadline.at();
        let later = Instant::now() + Duration::from_millis(100);
        assert!(pending.progress(4, later));
        assert!(!pending.progress(5, later));
        assert_eq!(deadline.at(), later + timeout);
        assert!(deadline.at() > before);
        assert!(pending.resolve(4, Ok(json!(1))));
        assert_eq!(wait(&answer_rx, "x", &deadline, &CancelToken::new()), Ok(json!(1)));
    }
}
