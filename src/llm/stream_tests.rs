//! Unit tests of `stream.rs`: retries, restarts, timeouts, cancellation, and the error shapes of servers.

use super::*;
use crate::http::net::NetEnv;
use crate::llm::openai::OpenAiDecoder;
use crate::llm::test_server::{Reply, ScriptedServer, Step, sse, sse_cut, sse_framed, sse_stall, status};
use crate::llm::{Completion, StopReason};
use std::time::Instant;

/// `data: <text>` → Text; `END` or `[DONE]` → terminal; `ERR <message>` → an in-band overload.
#[derive(Default)]
struct FakeDecoder {
    had_output: bool,
}

impl Decoder for FakeDecoder {
    fn feed(&mut self, event: &SseEvent, out: &mut Vec<StreamEvent>) -> Result<bool, LlmError> {
        match event.data.as_str() {
            "END" | "[DONE]" => Ok(true),
            data if data.starts_with("ERR ") => {
                Err(LlmError::Overloaded { message: data[4..].to_string(), retry_after: None })
            }
            text => {
                self.had_output = true;
                out.push(StreamEvent::Text(text.to_string()));
                Ok(false)
            }
        }
    }

    fn finish(&mut self, saw_terminal: bool, out: &mut Vec<StreamEvent>) -> Result<(), LlmError> {
        if !saw_terminal {
            return Err(LlmError::Protocol { message: "stream ended without END".to_string() });
        }
        out.push(StreamEvent::Done(Completion {
            stop_reason: StopReason::EndTurn,
            thinking: Vec::new(),
            dropped_tool_calls: Vec::new(),
        }));
        Ok(())
    }

    fn has_output(&self) -> bool {
        self.had_output
    }
}

fn fast_policy() -> RetryPolicy {
    RetryPolicy { base_delay: Duration::from_millis(5), max_delay: Duration::from_millis(20), ..RetryPolicy::default() }
}

const BODY: &str = r#"{"stream":true,"stream_options":{"include_usage":true}}"#;

fn call(base_url: &str, fallback: Option<Fallback>) -> HttpCall {
    HttpCall {
        url: format!("{base_url}/v1/chat"),
        headers: vec![("x-api-key".to_string(), "secret".to_string())],
        body: Arc::new(BODY.as_bytes().to_vec()),
        fallback,
    }
}

fn start(base_url: &str, idle: Duration, fallback: Option<Fallback>, cancel: CancelToken) -> Receiver<StreamEvent> {
    start_with(&test_client(base_url, idle), base_url, fallback, cancel)
}

fn test_client(base_url: &str, idle: Duration) -> HttpClient {
    HttpClient::new(base_url, "the TEST_API_KEY environment variable", idle, &NetEnv::default(), &[]).expect("client")
}

/// A call on an existing client (clones share its kept-alive connection).
fn start_with(
    client: &HttpClient,
    base_url: &str,
    fallback: Option<Fallback>,
    cancel: CancelToken,
) -> Receiver<StreamEvent> {
    let decoder = || Box::new(FakeDecoder::default()) as Box<dyn Decoder>;
    spawn_stream("test", client.clone(), call(base_url, fallback), decoder, fast_policy(), cancel)
}

/// The events a consumer acts on (Retry notices, which only inform, are left out).
fn run(server: &ScriptedServer) -> Vec<StreamEvent> {
    run_with_retries(server).into_iter().filter(|event| !matches!(event, StreamEvent::Retry(_))).collect()
}

fn run_with_retries(server: &ScriptedServer) -> Vec<StreamEvent> {
    start(&server.base_url, Duration::from_secs(10), None, CancelToken::new()).iter().collect()
}

fn text(value: &str) -> StreamEvent {
    StreamEvent::Text(value.to_string())
}

fn done() -> StreamEvent {
    StreamEvent::Done(Completion {
        stop_reason: StopReason::EndTurn,
        thinking: Vec::new(),
        dropped_tool_calls: Vec::new(),
    })
}

/// What a consumer keeps: text since the last Restart.
fn final_text(events: &[StreamEvent]) -> String {
    let mut kept = String::new();
    for event in events {
        match event {
            StreamEvent::Text(delta) => kept.push_str(delta),
            StreamEvent::Restart { .. } => kept.clear(),
            _ => {}
        }
    }
    kept
}

fn restart_numbers(events: &[StreamEvent]) -> Vec<u32> {
    events
        .iter()
        .filter_map(|event| if let StreamEvent::Restart { restart, .. } = event { Some(*restart) } else { None })
        .collect()
}

fn terminal_error(events: &[StreamEvent]) -> LlmError {
    match events.last() {
        Some(StreamEvent::Error(error)) => error.clone(),
        other => panic!("expected a terminal error, got {other:?} in {events:?}"),
    }
}

#[test]
fn a_good_stream_forwards_text_then_done() {
    let server = ScriptedServer::start(vec![sse(": hello\n\ndata: Hel\n\ndata: lo\n\ndata: END\n\n")]);
    assert_eq!(run(&server), vec![text("Hel"), text("lo"), done()]);
    let request = server.requests.recv().unwrap();
    assert!(request.starts_with("POST /v1/chat HTTP/1.1"), "{request}");
    assert!(request.contains("x-api-key: secret"), "{request}");
    assert!(request.to_ascii_lowercase().contains("accept-encoding: identity"), "{request}");
    assert!(request.ends_with(r#"{"stream":true,"stream_options":{"include_usage":true}}"#), "{request}");
}

#[test]
fn auth_failure_is_not_retried_and_names_the_key() {
    let server = ScriptedServer::start(vec![status(401, &[], r#"{"error":{"message":"bad key"}}"#)]);
    let events = run(&server);
    assert_eq!(events.len(), 1);
    assert_eq!(
        terminal_error(&events),
        LlmError::Auth {
            status: 401,
            message: "bad key".to_string(),
            fix: "check the TEST_API_KEY environment variable".to_string()
        }
    );
    assert_eq!(server.requests.len(), 1);
}

#[test]
fn rate_limit_waits_for_retry_after_then_succeeds() {
    let server = ScriptedServer::start(vec![
        status(429, &[("retry-after-ms", "300")], r#"{"error":{"message":"slow down"}}"#),
        sse("data: ok\n\ndata: END\n\n"),
    ]);
    let started = Instant::now();
    let rate_limited =
        LlmError::RateLimited { message: "slow down".to_string(), retry_after: Some(Duration::from_millis(300)) };
    let notice = RetryNotice::new(&rate_limited, 2, 4, Duration::from_millis(300));
    assert_eq!(notice.describe(), "rate limited (429), retrying in 300 ms (attempt 2 of 4)");
    assert_eq!(run_with_retries(&server), vec![StreamEvent::Retry(notice), text("ok"), done()]);
    assert!(started.elapsed() >= Duration::from_millis(300), "{:?}", started.elapsed());
    assert_eq!(server.requests.len(), 2);
}

#[test]
fn retry_after_in_seconds_is_honoured() {
    let server =
        ScriptedServer::start(vec![status(429, &[("retry-after", "1")], "busy"), sse("data: ok\n\ndata: END\n\n")]);
    let started = Instant::now();
    let events = run_with_retries(&server);
    assert!(
        matches!(&events[..], [StreamEvent::Retry(RetryNotice { status: Some(429), delay, .. }), _, _] if *delay == Duration::from_secs(1)),
        "{events:?}"
    );
    assert_eq!(events[1..], [text("ok"), done()]);
    assert!(started.elapsed() >= Duration::from_secs(1));
}

#[test]
fn each_retry_before_output_is_announced_with_its_attempt_number() {
    let busy = || status(503, &[], r#"{"error":{"message":"busy"}}"#);
    let server = ScriptedServer::start(vec![busy(), busy(), busy(), busy()]);
    let events = run_with_retries(&server);
    let announced: Vec<(Option<u16>, u32, u32)> = events
        .iter()
        .filter_map(|event| match event {
            StreamEvent::Retry(notice) => Some((notice.status, notice.attempt, notice.max)),
            _ => None,
        })
        .collect();
    assert_eq!(announced, [(Some(503), 2, 4), (Some(503), 3, 4), (Some(503), 4, 4)]);
    assert!(matches!(terminal_error(&events), LlmError::Server { status: 503, .. }));
}

#[test]
fn a_500_with_a_validation_report_is_not_retried() {
    let body = r#"{"error":{"message":"[{'type': 'missing', 'loc': ('body', 'messages', 2, 'content'), 'msg': 'Field required'}]","type":"internal_server_error"}}"#;
    let server = ScriptedServer::start(vec![status(500, &[], body), sse("data: ok\n\ndata: END\n\n")]);
    let events = run_with_retries(&server);
    assert_eq!(events.len(), 1, "{events:?}");
    assert!(matches!(terminal_error(&events), LlmError::Request { status: 500, .. }), "{events:?}");
    assert_eq!(server.requests.len(), 1);
}

#[test]
fn overloaded_then_success_is_transparent() {
    let body = r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
    let server = ScriptedServer::start(vec![status(529, &[], body), sse("data: ok\n\ndata: END\n\n")]);
    assert_eq!(run(&server), vec![text("ok"), done()]);
}

#[test]
fn in_band_error_before_output_retries_without_restart() {
    let server = ScriptedServer::start(vec![sse("data: ERR busy\n\n"), sse("data: ok\n\ndata: END\n\n")]);
    assert_eq!(run(&server), vec![text("ok"), done()]);
}

#[test]
fn stream_ending_after_partial_text_restarts_and_keeps_only_the_second_attempt() {
    let server = ScriptedServer::start(vec![sse("data: partial \n\n"), sse("data: second\n\ndata: END\n\n")]);
    let events = run(&server);
    assert_eq!(restart_numbers(&events), vec![1]);
    assert_eq!(events.last(), Some(&done()));
    assert_eq!(final_text(&events), "second");
}

#[test]
fn a_connection_that_keeps_breaking_ends_in_error_after_two_restarts() {
    let server = ScriptedServer::start(vec![sse_cut("data: a\n\n"), sse_cut("data: a\n\n"), sse_cut("data: a\n\n")]);
    let events = run(&server);
    assert_eq!(restart_numbers(&events), vec![1, 2]);
    assert!(matches!(terminal_error(&events), LlmError::Network { .. } | LlmError::Protocol { .. }), "{events:?}");
    assert_eq!(server.requests.len(), 3);
}

#[test]
fn restarts_after_a_retry_are_numbered_against_their_own_budget() {
    // A 503, then two broken streams: the announcements never exceed what the policy allows
    // (before, the restarts carried the call's attempt number: "retrying (4/3)").
    let busy = status(503, &[], r#"{"error":{"message":"busy"}}"#);
    let server = ScriptedServer::start(vec![
        busy,
        sse_cut("data: a\n\n"),
        sse_cut("data: a\n\n"),
        sse("data: ok\n\ndata: END\n\n"),
    ]);
    let events = run(&server);
    let restarts: Vec<(u32, u32)> = events
        .iter()
        .filter_map(
            |event| if let StreamEvent::Restart { restart, max, .. } = event { Some((*restart, *max)) } else { None },
        )
        .collect();
    assert_eq!(restarts, [(1, 2), (2, 2)]);
    assert_eq!(final_text(&events), "ok");
}

#[test]
fn a_stream_without_terminal_event_is_never_accepted() {
    let server = ScriptedServer::start(vec![sse(""), sse(": only a comment\n\n"), sse("event: x\n\n"), sse("")]);
    let events = run(&server);
    assert_eq!(events.len(), 1, "{events:?}");
    assert!(matches!(terminal_error(&events), LlmError::Protocol { .. }));
    assert_eq!(server.requests.len(), 4);
}

#[test]
fn unterminated_done_counts_but_unterminated_json_is_a_truncation() {
    let server = ScriptedServer::start(vec![sse("data: hi\n\ndata: [DONE]")]);
    assert_eq!(run(&server), vec![text("hi"), done()]);
    let server = ScriptedServer::start(vec![sse("data: {\"a\":"), sse("data: ok\n\ndata: END\n\n")]);
    assert_eq!(run(&server), vec![text("ok"), done()]);
    assert_eq!(server.requests.len(), 2);
}

#[test]
fn a_stalled_stream_hits_the_idle_timeout_and_is_retried() {
    let server = ScriptedServer::start(vec![sse_stall("data: x\n\n"), sse("data: y\n\ndata: END\n\n")]);
    let events: Vec<_> = start(&server.base_url, Duration::from_millis(300), None, CancelToken::new()).iter().collect();
    assert_eq!(final_text(&events), "y");
    assert_eq!(events.last(), Some(&done()));
    match &events[1] {
        StreamEvent::Restart { restart: 1, max: 2, reason } => {
            assert!(reason.contains("no data from 127.0.0.1"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_refused_loopback_connection_fails_at_once_naming_the_url() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base_url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let events: Vec<_> = start(&base_url, Duration::from_secs(5), None, CancelToken::new()).iter().collect();
    // No local server is running there: retrying cannot help, so no retry is announced.
    assert_eq!(events.len(), 1, "{events:?}");
    let error = terminal_error(&events);
    assert!(matches!(error, LlmError::Refused { .. }), "{error:?}");
    assert!(error.to_string().contains(&base_url) && error.to_string().contains("refused"), "{error}");
}

#[test]
fn cancelling_a_stalled_stream_ends_promptly_with_cancelled() {
    let server = ScriptedServer::start(vec![sse_stall("data: x\n\n")]);
    let cancel = CancelToken::new();
    let events_rx = start(&server.base_url, Duration::from_secs(60), None, cancel.clone());
    assert_eq!(events_rx.recv().unwrap(), text("x"));
    let started = Instant::now();
    cancel.cancel();
    assert_eq!(events_rx.recv().unwrap(), StreamEvent::Error(LlmError::Cancelled));
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
    assert!(events_rx.recv().is_err(), "the sender is dropped after the terminal event");
}

#[test]
fn a_cleanly_finished_stream_leaves_its_connection_for_the_next_call() {
    // One connection serves both calls; a second connection would find the script used up and
    // be closed, so the second call could only fail.
    let server = ScriptedServer::start(vec![vec![
        Step::Write(sse_framed("data: one\n\ndata: END\n\n")),
        Step::NextRequest,
        Step::Write(sse_framed("data: two\n\ndata: END\n\n")),
    ]]);
    let client = test_client(&server.base_url, Duration::from_secs(10));
    let first: Vec<StreamEvent> = start_with(&client, &server.base_url, None, CancelToken::new()).iter().collect();
    assert_eq!(first, vec![text("one"), done()]);
    let second: Vec<StreamEvent> = start_with(&client, &server.base_url, None, CancelToken::new()).iter().collect();
    assert_eq!(second, vec![text("two"), done()]);
    assert_eq!(server.requests.try_iter().count(), 2);
}

#[test]
fn a_cancelled_stream_closes_its_connection_and_the_next_call_opens_a_fresh_one() {
    // The first response announces 1000 bytes and stalls after one event: a pooled connection
    // with the rest still to come would poison the next call. The second reply needs a new
    // connection (the script serves one reply per accepted connection).
    let cut = "data: x\n\n";
    let head = format!("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: 1000\r\n\r\n{cut}");
    let server = ScriptedServer::start(vec![
        vec![Step::Write(head.into_bytes()), Step::Stall],
        vec![Step::Write(sse_framed("data: fresh\n\ndata: END\n\n"))],
    ]);
    let client = test_client(&server.base_url, Duration::from_secs(60));
    let cancel = CancelToken::new();
    let events_rx = start_with(&client, &server.base_url, None, cancel.clone());
    assert_eq!(events_rx.recv().unwrap(), text("x"));
    let started = Instant::now();
    cancel.cancel();
    assert_eq!(events_rx.recv().unwrap(), StreamEvent::Error(LlmError::Cancelled));
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
    let next: Vec<StreamEvent> = start_with(&client, &server.base_url, None, CancelToken::new()).iter().collect();
    assert_eq!(next, vec![text("fresh"), done()]);
    assert_eq!(server.requests.try_iter().count(), 2);
}

#[test]
fn cancelling_during_backoff_ends_with_cancelled() {
    let server = ScriptedServer::start(vec![status(429, &[("retry-after", "30")], "busy")]);
    let cancel = CancelToken::new();
    let events_rx = start(&server.base_url, Duration::from_secs(5), None, cancel.clone());
    // The Retry notice is sent just before the wait starts.
    match events_rx.recv().unwrap() {
        StreamEvent::Retry(notice) => assert_eq!(notice.delay, Duration::from_secs(30)),
        other => panic!("{other:?}"),
    }
    let started = Instant::now();
    cancel.cancel();
    assert_eq!(events_rx.recv().unwrap(), StreamEvent::Error(LlmError::Cancelled));
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[test]
fn a_rejected_stream_options_switches_to_the_fallback_body_once() {
    let rejection = r#"{"error":{"message":"Unrecognized request argument supplied: stream_options","type":"invalid_request_error"}}"#;
    let server = ScriptedServer::start(vec![status(400, &[], rejection), sse("data: ok\n\ndata: END\n\n")]);
    let cut_at = BODY.find(r#","stream_options""#).unwrap();
    let fallback = Fallback { cut: cut_at..BODY.len() - 1, trigger: "stream_options".to_string() };
    let events: Vec<_> =
        start(&server.base_url, Duration::from_secs(5), Some(fallback.clone()), CancelToken::new()).iter().collect();
    assert_eq!(events, vec![text("ok"), done()]);
    let _first = server.requests.recv().unwrap();
    assert!(server.requests.recv().unwrap().ends_with("\r\n\r\n{\"stream\":true}"));
    // A 400 for another reason is not retried with the fallback.
    let server = ScriptedServer::start(vec![status(400, &[], r#"{"error":{"message":"bad tools"}}"#)]);
    let events: Vec<_> =
        start(&server.base_url, Duration::from_secs(5), Some(fallback), CancelToken::new()).iter().collect();
    assert!(matches!(terminal_error(&events), LlmError::Request { status: 400, .. }));
    assert_eq!(server.requests.len(), 1);
}

// Errors that servers report outside the JSON `data:` path of a 200 stream, through the real
// transport, SSE parser and OpenAI decoder against a scripted server: a non-standard `error:`
// field (old llama.cpp), `event: error`, a bare JSON body (`{"error"}` or FastAPI's `{"detail"}`)
// and plain text. Each must come out as the typed error its message implies (the one
// prompt-too-long table of `error.rs`), never as a malformed stream.

/// One attempt, no retries: each test sees the error of its one scripted reply.
fn single_attempt() -> RetryPolicy {
    RetryPolicy { max_attempts_before_output: 1, max_restarts_after_output: 0, ..RetryPolicy::default() }
}

/// The events a consumer sees for one scripted reply.
fn run_openai(reply: Reply) -> Vec<StreamEvent> {
    let server = ScriptedServer::start(vec![reply]);
    let client = HttpClient::new(
        &server.base_url,
        "the TEST_KEY environment variable",
        Duration::from_secs(10),
        &NetEnv::default(),
        &[],
    )
    .unwrap();
    let call = HttpCall {
        url: format!("{}/v1/chat/completions", server.base_url),
        headers: Vec::new(),
        body: Arc::new(b"{}".to_vec()),
        fallback: None,
    };
    let decoder = || Box::new(OpenAiDecoder::new(7)) as Box<dyn Decoder>;
    spawn_stream("local", client, call, decoder, single_attempt(), CancelToken::new()).iter().collect()
}

fn error_of(reply: Reply) -> LlmError {
    match run_openai(reply).pop() {
        Some(StreamEvent::Error(error)) => error,
        other => panic!("expected an error, got {other:?}"),
    }
}

fn prompt_too_long(message: &str) -> LlmError {
    LlmError::PromptTooLong { message: message.to_string() }
}

fn server_error(message: &str) -> LlmError {
    LlmError::Server { status: 500, message: message.to_string(), retry_after: None }
}

const LLAMA_OVERFLOW: &str = "the request exceeds the available context size, try increasing it";

#[test]
fn a_non_standard_error_field_is_the_error() {
    let body =
        format!("error: {{\"code\":400,\"message\":\"{LLAMA_OVERFLOW}\",\"type\":\"invalid_request_error\"}}\n\n");
    assert_eq!(error_of(sse(&body)), prompt_too_long(LLAMA_OVERFLOW));
}

#[test]
fn a_non_standard_error_field_then_done_is_the_error_not_a_malformed_stream() {
    // Old llama.cpp: the error in its own `error:` field, then a normal end.
    let body = format!(
        "error: {{\"code\":400,\"message\":\"{LLAMA_OVERFLOW}\",\"type\":\"invalid_request_error\"}}\n\ndata: [DONE]\n\n"
    );
    assert_eq!(error_of(sse(&body)), prompt_too_long(LLAMA_OVERFLOW));
}

#[test]
fn a_non_standard_error_field_after_partial_text_is_the_error() {
    let body =
        "data: {\"choices\":[{\"delta\":{\"content\":\"Here\"}}]}\n\nerror: {\"message\":\"slot unavailable\"}\n\n";
    let events = run_openai(sse(body));
    assert_eq!(
        events,
        vec![StreamEvent::Text("Here".to_string()), StreamEvent::Error(server_error("slot unavailable"))]
    );
}

#[test]
fn an_error_event_is_the_error_whatever_its_data() {
    let json = format!("event: error\ndata: {{\"message\":\"{LLAMA_OVERFLOW}\"}}\n\n");
    assert_eq!(error_of(sse(&json)), prompt_too_long(LLAMA_OVERFLOW));
    assert_eq!(error_of(sse("event: error\ndata: model worker crashed\n\n")), server_error("model worker crashed"));
}

#[test]
fn a_bare_json_error_body_with_status_200_is_the_error() {
    let json = [("content-type", "application/json")];
    let detail =
        r#"{"detail":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens."}"#;
    assert_eq!(
        error_of(status(200, &json, detail)),
        prompt_too_long("This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.")
    );
    let error = r#"{"error":{"message":"CUDA out of memory","type":"server_error"}}"#;
    assert_eq!(error_of(status(200, &json, error)), server_error("CUDA out of memory"));
}

#[test]
fn a_bare_json_error_body_labelled_as_an_event_stream_is_the_error() {
    let body = "{\n  \"error\": {\"message\": \"input length exceeds the context length\", \"code\": 400}\n}\n";
    assert_eq!(error_of(sse(body)), prompt_too_long("input length exceeds the context length"));
}

#[test]
fn plain_text_with_status_200_is_the_error() {
    let text = [("content-type", "text/plain; charset=utf-8")];
    assert_eq!(error_of(status(200, &text, "Internal Server Error\n")), server_error("Internal Server Error"));
    assert_eq!(
        error_of(status(200, &text, "Error: input length exceeds the context length (8192)")),
        prompt_too_long("Error: input length exceeds the context length (8192)")
    );
}

#[test]
fn a_complete_stream_with_stray_lines_is_still_complete() {
    let body = "ping: 1\ndata: {\"choices\":[{\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
    let events = run_openai(sse(body));
    assert_eq!(events.first(), Some(&StreamEvent::Text("ok".to_string())));
    assert!(matches!(events.last(), Some(StreamEvent::Done(_))), "{events:?}");
}

#[test]
fn data_that_is_words_not_json_is_the_error_but_broken_json_is_a_damaged_stream() {
    let words = "data: upstream connect error or disconnect/reset before headers\n\n";
    assert_eq!(error_of(sse(words)), server_error("upstream connect error or disconnect/reset before headers"));
    let detail = "data: {\"detail\":\"input length exceeds the context length\"}\n\n";
    assert_eq!(error_of(sse(detail)), prompt_too_long("input length exceeds the context length"));
    assert!(matches!(error_of(sse("data: {\"choices\":[\n\n")), LlmError::Protocol { .. }));
}
