//! The lifecycle over a scripted transport: what we send, in order, for each server answer.

use super::*;
use std::collections::VecDeque;
use std::sync::Arc;

/// Answers requests from a script and records every message and transport call.
#[derive(Default)]
struct Scripted {
    answers: Mutex<VecDeque<Result<Value, McpError>>>,
    log: Arc<Mutex<Vec<String>>>,
    lost: Lost,
}

impl Transport for Scripted {
    fn request(
        &self,
        _id: u64,
        _method: &str,
        message: &str,
        _timeout: Duration,
        _deadline: Instant,
        _cancel: &CancelToken,
    ) -> Result<Value, McpError> {
        lock(&self.log).push(message.to_string());
        lock(&self.answers).pop_front().unwrap_or(Err(McpError::Protocol { message: "script ended".into() }))
    }
    fn notify(&self, message: &str) -> Result<(), McpError> {
        lock(&self.log).push(message.to_string());
        Ok(())
    }
    fn negotiated(&self, protocol_version: &str) {
        lock(&self.log).push(format!("negotiated {protocol_version}"));
    }
    fn reset_session(&self) {
        lock(&self.log).push("reset".to_string());
    }
    fn shutdown(&self, _deadline: Instant) {}
    fn stderr_head(&self) -> Vec<String> {
        Vec::new()
    }
    fn lost(&self) -> &Lost {
        &self.lost
    }
    fn take_tools_changed(&self) -> bool {
        false
    }
    fn start_listening(&self) {
        lock(&self.log).push("listen".to_string());
    }
}

fn client(answers: Vec<Result<Value, McpError>>) -> (Client, Arc<Mutex<Vec<String>>>) {
    let transport = Scripted { answers: Mutex::new(answers.into()), log: Arc::default(), lost: Lost::default() };
    let log = transport.log.clone();
    (Client::new(Box::new(transport), Duration::from_secs(5)), log)
}

fn init_result(version: &str) -> Result<Value, McpError> {
    Ok(
        json!({"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": {"name": "fx", "version": "1.2"}}),
    )
}

fn far() -> Instant {
    Instant::now() + Duration::from_secs(5)
}

#[test]
fn initialize_offers_the_latest_version_declares_nothing_and_accepts_an_older_answer() {
    let (client, log) = client(vec![init_result("2025-06-18")]);
    let info = client.initialize(far(), &CancelToken::new()).unwrap();
    assert_eq!(
        info,
        SessionInfo {
            protocol_version: "2025-06-18".into(),
            server_name: "fx".into(),
            server_version: "1.2".into(),
            tools_list_changed: false,
        }
    );
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(
        *lock(&log),
        vec![
            format!(
                r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"mewcode","version":"{version}"}}}}}}"#
            ),
            "negotiated 2025-06-18".to_string(),
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
        ]
    );
}

#[test]
fn an_unsupported_version_is_refused_by_name() {
    for version in ["2025-03-26", "2025-11-25"] {
        assert!(client(vec![init_result(version)]).0.initialize(far(), &CancelToken::new()).is_ok());
    }
    let (client, log) = client(vec![init_result("2024-11-05")]);
    let err = client.initialize(far(), &CancelToken::new()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "protocol error: the server speaks protocol version \"2024-11-05\"; mewcode supports 2025-11-25, 2025-06-18, 2025-03-26"
    );
    assert_eq!(lock(&log).len(), 1, "no initialized notification after a refusal");
}

#[test]
fn tools_list_follows_next_cursor_and_reads_hints() {
    let (client, log) = client(vec![
        Ok(
            json!({"tools": [{"name": "a", "annotations": {"readOnlyHint": true}, "inputSchema": {"type": "object"}}], "nextCursor": "p2"}),
        ),
        Ok(
            json!({"tools": [{"name": "b", "annotations": {"readOnlyHint": "yes"}}, {"description": "no name"}], "nextCursor": "p3"}),
        ),
        Ok(json!({"tools": [{"name": "c", "description": "C", "inputSchema": null}], "nextCursor": ""})),
    ]);
    let tools = client.list_tools(far(), &CancelToken::new()).unwrap();
    let summary: Vec<(&str, bool, &Value)> =
        tools.iter().map(|tool| (tool.name.as_str(), tool.read_only, &tool.input_schema)).collect();
    let empty = json!({"type": "object", "properties": {}});
    assert_eq!(summary, vec![("a", true, &json!({"type": "object"})), ("b", false, &empty), ("c", false, &empty)]);
    assert_eq!(
        *lock(&log),
        vec![
            r#"{"jsonrpc":"2.0","id":0,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"p2"}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"p3"}}"#,
        ]
    );
}

#[test]
fn a_repeated_cursor_is_an_error_not_a_loop() {
    let page = Ok(json!({"tools": [], "nextCursor": "same"}));
    let (client, _) = client(vec![page.clone(), page]);
    assert!(matches!(client.list_tools(far(), &CancelToken::new()), Err(McpError::Protocol { .. })));
}

#[test]
fn an_expired_session_is_reinitialised_once_and_the_call_retried() {
    let (client, log) =
        client(vec![Err(McpError::SessionExpired), init_result("2025-11-25"), Ok(json!({"content": []}))]);
    let result = client.call_tool("echo", json!({"text": "x"}), &CancelToken::new()).unwrap();
    assert_eq!(result, json!({"content": []}));
    let log = lock(&log);
    let kinds: Vec<&str> = log.iter().map(|line| if line.starts_with('{') { "msg" } else { line.as_str() }).collect();
    assert_eq!(kinds, vec!["msg", "reset", "msg", "negotiated 2025-11-25", "msg", "msg"]);
    assert!(log[2].contains(r#""method":"initialize""#));
    assert!(log[5].contains(r#""method":"tools/call""#) && log[5].contains(r#""id":2"#));
}

#[test]
fn a_server_that_declares_tools_list_changed_is_listened_to_after_the_handshake() {
    let declared = json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {"listChanged": true}}});
    let (client, log) = client(vec![Ok(declared)]);
    assert!(client.initialize(far(), &CancelToken::new()).unwrap().tools_list_changed);
    let log = lock(&log);
    assert_eq!(log[log.len() - 2..], [r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, "listen"]);
    drop(log);
    let (silent, silent_log) = super::tests::client(vec![init_result("2025-11-25")]);
    assert!(!silent.initialize(far(), &CancelToken::new()).unwrap().tools_list_changed);
    assert!(!lock(&silent_log).contains(&"listen".to_string()));
}

#[test]
fn tool_calls_carry_their_id_as_progress_token_and_other_requests_do_not() {
    let (client, log) = client(vec![Ok(json!({"tools": []})), Ok(json!({"content": []}))]);
    client.list_tools(far(), &CancelToken::new()).unwrap();
    client.call_tool("echo", json!({"text": "x"}), &CancelToken::new()).unwrap();
    assert_eq!(
        *lock(&log),
        vec![
            r#"{"jsonrpc":"2.0","id":0,"method":"tools/list"}"#.to_string(),
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"_meta":{"progressToken":1}}}"#.to_string(),
        ]
    );
}

#[test]
fn a_timed_out_call_is_cancelled_on_the_server_but_initialize_never_is() {
    let timeout = || Err(McpError::Timeout { method: "x".into(), seconds: 1.0 });
    let (client, log) = client(vec![timeout(), timeout()]);
    assert!(client.call_tool("slow", json!({}), &CancelToken::new()).is_err());
    assert_eq!(
        lock(&log)[1],
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":0,"reason":"timed out"}}"#
    );
    assert!(client.initialize(far(), &CancelToken::new()).is_err());
    assert_eq!(lock(&log).len(), 3, "no cancellation for initialize");
}

#[test]
fn read_only_needs_a_clean_read_only_hint_and_no_destructive_one() {
    let cases = [
        (json!({"readOnlyHint": true}), true),
        (json!({"readOnlyHint": true, "destructiveHint": false}), true),
        (json!({"readOnlyHint": true, "openWorldHint": false}), true),
        (json!({"readOnlyHint": true, "openWorldHint": true, "idempotentHint": true}), true),
        (json!({"readOnlyHint": true, "title": "Read", "futureHint": "anything"}), true),
        // Contradictory hints take the strictest reading.
        (json!({"readOnlyHint": true, "destructiveHint": true}), false),
        (json!({"readOnlyHint": true, "destructiveHint": true, "openWorldHint": false}), false),
        (json!({"readOnlyHint": false}), false),
        (json!({"readOnlyHint": false, "destructiveHint": false}), false),
        (json!({"destructiveHint": false}), false),
        (json!({}), false),
        // Malformed hints: none of the server's hints is believed.
        (json!({"readOnlyHint": "true"}), false),
        (json!({"readOnlyHint": 1}), false),
        (json!({"readOnlyHint": null}), false),
        (json!({"readOnlyHint": true, "destructiveHint": "false"}), false),
        (json!({"readOnlyHint": true, "destructiveHint": null}), false),
        (json!({"readOnlyHint": true, "destructiveHint": 0}), false),
        (json!({"readOnlyHint": true, "idempotentHint": "yes"}), false),
        (json!({"readOnlyHint": true, "openWorldHint": []}), false),
        (json!({"readOnlyHint": true, "openWorldHint": {}}), false),
        // Annotations that are not an object.
        (json!([{"readOnlyHint": true}]), false),
        (json!("readOnlyHint"), false),
        (json!(true), false),
        (Value::Null, false),
    ];
    for (annotations, expected) in cases {
        assert_eq!(parse_read_only(Some(&annotations)), expected, "{annotations}");
    }
    assert!(!parse_read_only(None));
}

#[test]
fn a_listed_tool_with_contradictory_hints_is_not_read_only() {
    let page = json!({"tools": [
        {"name": "rm", "annotations": {"readOnlyHint": true, "destructiveHint": true}},
        {"name": "cat", "annotations": {"readOnlyHint": true, "destructiveHint": false}},
        {"name": "odd", "annotations": {"readOnlyHint": true, "openWorldHint": "no"}},
    ]});
    let (tools, _) = parse_tools_page(&page).unwrap();
    let summary: Vec<(&str, bool)> = tools.iter().map(|tool| (tool.name.as_str(), tool.read_only)).collect();
    assert_eq!(summary, vec![("rm", false), ("cat", true), ("odd", false)]);
}

#[test]
fn a_call_that_fails_because_the_server_is_gone_reports_the_loss_once_and_a_failed_call_does_not() {
    let refused = McpError::Network { message: "connection to h refused; is the server running?".into() };
    let (client, _) = client(vec![
        Err(McpError::Rpc { code: -32602, message: "bad params".into() }),
        Err(refused.clone()),
        Err(refused.clone()),
    ]);
    let heard = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&heard);
    client.on_lost(Box::new(move |error| lock(&sink).push(error)));
    let cancel = CancelToken::new();
    assert!(client.call_tool("echo", json!({}), &cancel).is_err());
    assert_eq!(client.lost_reason(), None, "a JSON-RPC error is one call's failure");
    assert_eq!(client.call_tool("echo", json!({}), &cancel), Err(refused.clone()));
    assert_eq!(client.call_tool("echo", json!({}), &cancel), Err(refused.clone()));
    assert_eq!(*lock(&heard), vec![refused.clone()]);
    assert_eq!(client.lost_reason(), Some(refused));
}
