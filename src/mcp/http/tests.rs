//! The HTTP transport against a scripted server: headers, JSON and SSE answers, priming events,
//! lenient notification acknowledgements, session expiry, resumption, and DELETE at shutdown.

use super::*;
use crate::llm::test_server::{ScriptedServer, Step, framed, sse, sse_cut, sse_stall, status};
use crate::mcp::client::Client;
use serde_json::json;

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#;

fn client_for(server: &ScriptedServer, headers: &[(&str, &str)]) -> Client {
    let headers: Vec<(String, String)> =
        headers.iter().map(|(name, value)| (name.to_string(), value.to_string())).collect();
    let url = format!("{}/mcp", server.base_url);
    let transport = HttpTransport::new(&url, &headers, None, &NetEnv::default()).unwrap();
    Client::new(Box::new(transport), Duration::from_secs(5))
}

fn far() -> Instant {
    Instant::now() + Duration::from_secs(5)
}

fn requests(server: &ScriptedServer, count: usize) -> Vec<String> {
    (0..count).map(|_| server.requests.recv_timeout(Duration::from_secs(5)).unwrap().to_ascii_lowercase()).collect()
}

#[test]
fn a_session_runs_over_json_and_sse_answers_with_the_right_headers() {
    let tools_stream = "id: prime-1\nretry: 100\ndata: \n\n: keep-alive\n\n\
        event: message\nid: e2\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1}}\n\n\
        event: message\nid: e3\ndata: {\"result\":{\"tools\":[{\"name\":\"t\"}]},\"jsonrpc\":\"2.0\",\"id\":1}\n\n";
    let server = ScriptedServer::start(vec![
        status(200, &[("content-type", "application/json"), ("mcp-session-id", "sess-1")], INIT),
        // A JSON content type on an empty 202, as some servers send.
        status(202, &[("content-type", "application/json")], ""),
        sse(tools_stream),
        status(200, &[], ""),
    ]);
    let client = client_for(&server, &[("Authorization", "Bearer tok")]);
    let cancel = CancelToken::new();
    client.initialize(far(), &cancel).unwrap();
    let tools = client.list_tools(far(), &cancel).unwrap();
    assert_eq!(tools.iter().map(|tool| tool.name.as_str()).collect::<Vec<_>>(), vec!["t"]);
    client.shutdown(far());
    let seen = requests(&server, 4);
    for request in &seen[..3] {
        assert!(request.starts_with("post /mcp "), "{request}");
        assert!(request.contains("accept: application/json, text/event-stream\r\n"), "{request}");
        assert!(request.contains("authorization: bearer tok\r\n"), "{request}");
    }
    assert!(!seen[0].contains("mcp-session-id") && !seen[0].contains("mcp-protocol-version"));
    for request in &seen[1..] {
        assert!(request.contains("mcp-session-id: sess-1\r\n"), "{request}");
        assert!(request.contains("mcp-protocol-version: 2025-11-25\r\n"), "{request}");
    }
    assert!(seen[1].ends_with(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#));
    assert!(seen[3].starts_with("delete /mcp "), "{}", seen[3]);
}

#[test]
fn json_answers_and_acknowledgements_share_one_kept_alive_connection() {
    // One connection answers all three messages; a second connection would find the script
    // used up and be closed.
    let json = [("content-type", "application/json")];
    let tools = r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t"}]}}"#;
    let server = ScriptedServer::start(vec![vec![
        Step::Write(framed(200, &[("content-type", "application/json"), ("mcp-session-id", "s1")], INIT)),
        Step::NextRequest,
        Step::Write(framed(202, &[], "")),
        Step::NextRequest,
        Step::Write(framed(200, &json, tools)),
    ]]);
    let client = client_for(&server, &[]);
    let cancel = CancelToken::new();
    client.initialize(far(), &cancel).unwrap();
    let listed = client.list_tools(far(), &cancel).unwrap();
    assert_eq!(listed.iter().map(|tool| tool.name.as_str()).collect::<Vec<_>>(), vec!["t"]);
    assert_eq!(requests(&server, 3).len(), 3);
}

#[test]
fn an_expired_session_reinitialises_without_the_old_id() {
    let call_answer = r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"ok"}]}}"#;
    let server = ScriptedServer::start(vec![
        status(200, &[("content-type", "application/json"), ("mcp-session-id", "old")], INIT),
        status(202, &[], ""),
        status(404, &[], "session not found"),
        status(
            200,
            &[("content-type", "application/json"), ("mcp-session-id", "new")],
            &INIT.replace("\"id\":0", "\"id\":2"),
        ),
        status(204, &[], ""),
        status(200, &[("content-type", "application/json")], call_answer),
    ]);
    let client = client_for(&server, &[]);
    client.initialize(far(), &CancelToken::new()).unwrap();
    let result = client.call_tool("t", json!({}), &CancelToken::new()).unwrap();
    assert_eq!(result["content"][0]["text"], "ok");
    let seen = requests(&server, 6);
    assert!(seen[2].contains("mcp-session-id: old"));
    assert!(!seen[3].contains("mcp-session-id") && seen[3].contains("\"method\":\"initialize\""));
    assert!(seen[5].contains("mcp-session-id: new") && seen[5].contains("\"method\":\"tools/call\""));
}

#[test]
fn session_gone_covers_the_real_servers_answers() {
    let cases = [
        (404, true, "", true),
        (404, false, "", false),
        (400, true, "", true),
        (400, true, "Bad Request: No valid session ID provided", true),
        (
            400,
            true,
            r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":3}"#,
            true,
        ),
        (400, true, r#"{"jsonrpc":"2.0","error":{"code":-32602,"message":"invalid params"},"id":3}"#, false),
        (400, false, "", false),
        (500, true, "", false),
    ];
    for (status, had_session, body, expected) in cases {
        assert_eq!(session_gone(status, had_session, body), expected, "{status} {had_session} {body}");
    }
}

#[test]
fn a_dropped_stream_is_resumed_with_last_event_id() {
    let server = ScriptedServer::start(vec![
        status(200, &[("content-type", "application/json"), ("mcp-session-id", "s")], INIT),
        status(202, &[], ""),
        sse_cut("id: ev-7\nretry: 10\ndata: \n\n"),
        sse("id: ev-8\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n\n"),
    ]);
    let client = client_for(&server, &[]);
    client.initialize(far(), &CancelToken::new()).unwrap();
    assert_eq!(client.call_tool("t", json!({}), &CancelToken::new()), Ok(json!({"content": []})));
    let seen = requests(&server, 4);
    assert!(seen[3].starts_with("get /mcp "), "{}", seen[3]);
    assert!(seen[3].contains("last-event-id: ev-7\r\n") && seen[3].contains("accept: text/event-stream\r\n"));
}

#[test]
fn a_stream_closed_gracefully_is_resumed_again_and_again_after_the_retry_delay() {
    let progress = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}"#;
    let server = ScriptedServer::start(vec![
        status(200, &[("content-type", "application/json"), ("mcp-session-id", "s")], INIT),
        status(202, &[], ""),
        // The POST's stream: a priming event with an id and a retry, then a clean end of stream.
        sse("id: ev-1\nretry: 200\ndata: \n\n"),
        // The first GET brings one event and closes as well.
        sse(&format!("id: ev-2\ndata: {progress}\n\n")),
        sse("id: ev-3\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n\n"),
    ]);
    let client = client_for(&server, &[]);
    client.initialize(far(), &CancelToken::new()).unwrap();
    let started = Instant::now();
    assert_eq!(client.call_tool("t", json!({}), &CancelToken::new()), Ok(json!({"content": []})));
    // Two waits of the server's retry: delay, each before a GET.
    assert!(started.elapsed() >= Duration::from_millis(400), "{:?}", started.elapsed());
    let seen = requests(&server, 5);
    for (request, last) in [(&seen[3], "ev-1"), (&seen[4], "ev-2")] {
        assert!(request.starts_with("get /mcp "), "{request}");
        assert!(request.contains(&format!("last-event-id: {last}\r\n")), "{request}");
        assert!(request.contains("mcp-session-id: s\r\n") && request.contains("accept: text/event-stream\r\n"));
    }
}

#[test]
fn resumed_streams_that_bring_nothing_end_the_request() {
    let mut replies = vec![status(200, &[("content-type", "application/json")], INIT), status(202, &[], "")];
    replies.push(sse("id: ev-1\nretry: 0\ndata: \n\n"));
    replies.extend((0..MAX_EMPTY_RESUMES).map(|_| sse("")));
    let server = ScriptedServer::start(replies);
    let client = client_for(&server, &[]);
    client.initialize(far(), &CancelToken::new()).unwrap();
    let err = client.call_tool("t", json!({}), &CancelToken::new()).unwrap_err();
    assert!(
        matches!(&err, McpError::Protocol { message } if message == "the event stream ended before the response to tools/call"),
        "{err}"
    );
    // initialize, initialized, the POST, then exactly MAX_EMPTY_RESUMES GETs.
    assert_eq!(requests(&server, 3 + MAX_EMPTY_RESUMES).len(), 3 + MAX_EMPTY_RESUMES);
    assert!(server.requests.try_recv().is_err(), "one GET too many");
}

#[test]
fn a_stream_without_ids_that_drops_is_a_protocol_error() {
    let server = ScriptedServer::start(vec![
        status(200, &[("content-type", "application/json")], INIT),
        status(202, &[], ""),
        sse_cut("data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n"),
    ]);
    let client = client_for(&server, &[]);
    client.initialize(far(), &CancelToken::new()).unwrap();
    let err = client.call_tool("t", json!({}), &CancelToken::new()).unwrap_err();
    assert!(
        matches!(&err, McpError::Protocol { message } if message.ends_with("before the response to tools/call")),
        "{err}"
    );
}

#[test]
fn server_requests_on_a_stream_are_answered_by_post() {
    let server = ScriptedServer::start(vec![
        status(200, &[("content-type", "application/json")], INIT),
        status(202, &[], ""),
        sse("data: {\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":\"ping\"}\n\n\
             data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n\n"),
        status(202, &[], ""),
    ]);
    let client = client_for(&server, &[]);
    client.initialize(far(), &CancelToken::new()).unwrap();
    client.call_tool("t", json!({}), &CancelToken::new()).unwrap();
    let seen = requests(&server, 4);
    assert!(seen[3].ends_with(r#"{"jsonrpc":"2.0","id":"srv-1","result":{}}"#), "{}", seen[3]);
}

#[test]
fn http_errors_name_the_status_and_the_rpc_message() {
    let server = ScriptedServer::start(vec![
        status(401, &[("www-authenticate", "Bearer")], "missing token"),
        status(
            500,
            &[("content-type", "application/json")],
            r#"{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal server error"},"id":null}"#,
        ),
    ]);
    let client = client_for(&server, &[]);
    let err = client.initialize(far(), &CancelToken::new()).unwrap_err();
    assert_eq!(err, McpError::Http { status: 401, message: "missing token".into() });
    assert!(err.to_string().contains("needs credentials"));
    let err = client.initialize(far(), &CancelToken::new()).unwrap_err();
    assert_eq!(err, McpError::Http { status: 500, message: "Internal server error".into() });
}

#[test]
fn both_sdks_stream_framings_from_the_transcripts_yield_the_response() {
    for (name, expected) in [
        ("mcp-streamable-http-tools-call.sse", "src/lib.rs:12: // TODO: handle CRLF\nsrc/sse.rs:40: // TODO: BOM"),
        ("mcp-streamable-http-tools-call-ts.sse", "{\"matches\":2}"),
    ] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/transcripts").join(name);
        let body = std::fs::read_to_string(path).unwrap();
        let server = ScriptedServer::start(vec![sse(&body)]);
        let transport = HttpTransport::new(&format!("{}/mcp", server.base_url), &[], None, &NetEnv::default()).unwrap();
        let message = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search_code"}}"#;
        let result =
            transport.request(7, "tools/call", message, Duration::from_secs(5), far(), &CancelToken::new()).unwrap();
        let rendered = crate::mcp::tool::render_result(&result, None);
        assert!(rendered.text.starts_with(expected), "{name}: {}", rendered.text);
    }
}

#[test]
fn cancelling_a_stalled_call_returns_at_once() {
    let server = ScriptedServer::start(vec![sse_stall(": ping\n\n")]);
    let transport = HttpTransport::new(&format!("{}/mcp", server.base_url), &[], None, &NetEnv::default()).unwrap();
    let cancel = CancelToken::new();
    let canceller = cancel.clone();
    let started = Instant::now();
    // Borrowed, so the stalled connection stays open until after the call returned.
    let requests = &server.requests;
    let outcome = std::thread::scope(|scope| {
        scope.spawn(move || {
            // Waits for the request to be in flight (the server recorded it), then cancels.
            let _ = requests.recv_timeout(Duration::from_secs(5));
            canceller.cancel();
        });
        let message = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#;
        transport.request(
            1,
            "tools/call",
            message,
            Duration::from_secs(30),
            Instant::now() + Duration::from_secs(30),
            &cancel,
        )
    });
    assert_eq!(outcome, Err(McpError::Cancelled));
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
}

#[test]
fn a_server_that_is_gone_is_reported_lost_by_the_call_that_finds_out() {
    // A port nothing listens on: bound, then released.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let transport = HttpTransport::new(&format!("http://127.0.0.1:{port}/mcp"), &[], None, &NetEnv::default()).unwrap();
    let client = Client::new(Box::new(transport), Duration::from_secs(5));
    let (heard_tx, heard_rx) = crossbeam_channel::unbounded();
    client.on_lost(Box::new(move |error| {
        let _ = heard_tx.send(error);
    }));
    let refused = McpError::Network { message: "connection to 127.0.0.1 refused; is the server running?".into() };
    assert_eq!(client.call_tool("echo", json!({}), &CancelToken::new()), Err(refused.clone()));
    assert_eq!(heard_rx.try_recv(), Ok(refused.clone()));
    assert_eq!(client.lost_reason(), Some(refused));
}
