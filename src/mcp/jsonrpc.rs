//! The JSON-RPC 2.0 core both transports share: encoding our requests and notifications,
//! classifying what the server sends, answering its requests, and the table of pending requests
//! that matches responses to waiters by id.
//!
//! Invariant: every server message is either routed (a response to a waiter, a reply we must
//! send, a notification) or ignored with a reason; nothing the server sends can make us panic or
//! block the reader (each waiter's channel holds its one answer). We never send batches, but an
//! array from an old (2025-03-26) server is processed element by element. No IO here.

use super::McpError;
use crate::cancel::CancelToken;
use crate::sync::lock;
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The per-request timeout when the server's config does not set `timeout_s` (SPEC §7).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// JSON-RPC "method not found": our answer to server requests we do not implement.
pub const METHOD_NOT_FOUND: i64 = -32601;

/// One request as a line of JSON (no raw newlines: serde_json escapes them).
pub fn encode_request(id: u64, method: &str, params: Option<&Value>) -> String {
    let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
    if let Some(params) = params {
        message["params"] = params.clone();
    }
    message.to_string()
}

/// One notification (no id, never answered).
pub fn encode_notification(method: &str, params: Option<&Value>) -> String {
    let mut message = json!({"jsonrpc": "2.0", "method": method});
    if let Some(params) = params {
        message["params"] = params.clone();
    }
    message.to_string()
}

/// What one message from the server means for us.
#[derive(Clone, Debug, PartialEq)]
pub enum Incoming {
    /// The answer to our request `id`: its `result`, or its `error` as `McpError::Rpc`.
    Response { id: u64, outcome: Result<Value, McpError> },
    /// A request from the server; `reply` is our answer, to be sent as it is.
    ServerRequest { method: String, reply: String },
    /// A notification (`notifications/progress`, `.../message`, `.../tools/list_changed`...).
    Notification { method: String },
    /// Not something we can route (an id we never used, a malformed object); `reason` is logged.
    Ignored { reason: String },
}

/// Parses one message (a stdio line, an SSE event's data, an HTTP body). `Err` means the text is
/// not JSON at all (a server printing logs on stdout); the caller logs and skips it.
pub fn parse_incoming(text: &str) -> Result<Vec<Incoming>, String> {
    let value: Value = serde_json::from_str(text).map_err(|err| format!("not JSON ({err})"))?;
    Ok(match value {
        Value::Array(items) => items.into_iter().map(classify).collect(),
        single => vec![classify(single)],
    })
}

/// Classifies one JSON value.
pub fn classify(value: Value) -> Incoming {
    let Value::Object(object) = value else {
        return Incoming::Ignored { reason: "a message that is not a JSON object".to_string() };
    };
    let method = object.get("method").and_then(Value::as_str).map(str::to_string);
    let id = object.get("id").filter(|id| !id.is_null()).cloned();
    match (method, id) {
        (Some(method), Some(id)) => Incoming::ServerRequest { reply: reply_to_server_request(&id, &method), method },
        (Some(method), None) => Incoming::Notification { method },
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
pub fn reply_to_server_request(id: &Value, method: &str) -> String {
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
pub type Answer = Result<Value, McpError>;

/// Requests in flight, by id. The stdio reader thread resolves them; once the server is gone,
/// `close` fails every waiter and every later registration with the same error.
#[derive(Default)]
pub struct Pending {
    state: Mutex<PendingState>,
}

#[derive(Default)]
struct PendingState {
    waiters: HashMap<u64, Sender<Answer>>,
    closed: Option<McpError>,
}

impl Pending {
    /// Registers request `id` before it is sent, so a fast answer cannot be missed.
    pub fn register(&self, id: u64) -> Result<Receiver<Answer>, McpError> {
        let mut state = lock(&self.state);
        if let Some(error) = &state.closed {
            return Err(error.clone());
        }
        // Capacity 1: exactly one answer per request, so the reader's send never blocks.
        let (answer_tx, answer_rx) = crossbeam_channel::bounded(1);
        state.waiters.insert(id, answer_tx);
        Ok(answer_rx)
    }

    /// Hands `outcome` to the waiter of `id`; false when nobody waits (a late or unknown id).
    pub fn resolve(&self, id: u64, outcome: Answer) -> bool {
        let waiter = lock(&self.state).waiters.remove(&id);
        match waiter {
            // The waiter may have timed out and gone; a failed send is that normal case.
            Some(waiter) => waiter.try_send(outcome).is_ok(),
            None => false,
        }
    }

    /// Forgets `id` (timed out or cancelled): a late answer is then ignored.
    pub fn forget(&self, id: u64) {
        lock(&self.state).waiters.remove(&id);
    }

    /// Fails every waiter now and every registration from now on with `error`.
    pub fn close(&self, error: McpError) {
        let mut state = lock(&self.state);
        for (_, waiter) in state.waiters.drain() {
            let _ = waiter.try_send(Err(error.clone()));
        }
        state.closed.get_or_insert(error);
    }

    /// The error the table was closed with, if it was.
    pub fn closed(&self) -> Option<McpError> {
        lock(&self.state).closed.clone()
    }
}

/// Waits for one answer until `deadline`, waking every 50 ms to check `cancel`.
pub fn wait(
    answer_rx: &Receiver<Answer>,
    method: &str,
    timeout: Duration,
    deadline: Instant,
    cancel: &CancelToken,
) -> Answer {
    loop {
        if cancel.is_cancelled() {
            return Err(McpError::Cancelled);
        }
        let now = Instant::now();
        if now >= deadline {
            return Err(McpError::Timeout { method: method.to_string(), seconds: timeout.as_secs_f64() });
        }
        match answer_rx.recv_timeout((deadline - now).min(Duration::from_millis(50))) {
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
                notification("notifications/progress"),
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

    #[test]
    fn pending_matches_by_id_and_close_fails_everyone() {
        let pending = Pending::default();
        let first = pending.register(1).unwrap();
        let second = pending.register(2).unwrap();
        assert!(pending.resolve(2, Ok(json!("two"))));
        assert!(!pending.resolve(9, Ok(json!("late"))));
        let far = Instant::now() + Duration::from_secs(5);
        assert_eq!(wait(&second, "x", DEFAULT_TIMEOUT, far, &CancelToken::new()), Ok(json!("two")));
        pending.close(McpError::Exited { detail: "gone".into() });
        assert_eq!(
            wait(&first, "x", DEFAULT_TIMEOUT, far, &CancelToken::new()),
            Err(McpError::Exited { detail: "gone".into() })
        );
        assert_eq!(pending.register(3).err(), Some(McpError::Exited { detail: "gone".into() }));
    }

    #[test]
    fn wait_times_out_and_honours_cancel() {
        let pending = Pending::default();
        let answer_rx = pending.register(1).unwrap();
        let timeout = Duration::from_millis(20);
        let outcome = wait(&answer_rx, "tools/call", timeout, Instant::now() + timeout, &CancelToken::new());
        assert_eq!(outcome, Err(McpError::Timeout { method: "tools/call".into(), seconds: 0.02 }));
        let cancel = CancelToken::new();
        cancel.cancel();
        let far = Instant::now() + Duration::from_secs(5);
        assert_eq!(wait(&answer_rx, "x", timeout, far, &cancel), Err(McpError::Cancelled));
    }
}
