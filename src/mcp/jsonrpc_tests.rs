//! Unit tests of `jsonrpc.rs`: encoding, routing, pending requests, deadlines and progress.

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

#[test]
fn an_incoming_message_stays_small() {
    // Every line a server sends becomes one, routed by the reader thread.
    assert!(std::mem::size_of::<Incoming>() <= 80, "{}", std::mem::size_of::<Incoming>());
}
