//! A scripted fake model server on tiny_http: replays SSE bodies byte for byte (optionally in
//! small chunks with pauses, cut short, or stalled) or answers with an error status, and records
//! and validates every request.
//!
//! Bound to 127.0.0.1 port 0. Each request is answered on its own thread so a stalled stream
//! never blocks the client's retry; replies are taken from the queue in arrival order.
//! `Sse` replies close the connection after the body (`Connection: close`, as many local servers
//! do); `kept_alive` ones send a `Content-Length` and keep it open for the next request, like
//! the hosted APIs, and `connections` counts the client's connections.

use super::validate;
use crossbeam_channel::Receiver;
use std::collections::VecDeque;
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// One scripted answer.
pub enum Reply {
    /// 200 text/event-stream with `body` replayed exactly; with `chunk` set, written `chunk`
    /// bytes at a time with `pause` between writes (to exercise split reads).
    Sse { body: Vec<u8>, chunk: Option<usize>, pause: Duration },
    /// 200 with `body` written, then the connection is held open without another byte until
    /// `release` fires or is dropped (a stalled server).
    Stall { body: Vec<u8>, release: Receiver<()> },
    /// 200 text/event-stream with a `Content-Length`: the connection stays open afterwards.
    SseKeepAlive { body: Vec<u8> },
    /// Any status with a body (JSON error bodies) and extra headers such as retry-after.
    Status { status: u16, body: String, headers: Vec<(String, String)> },
    /// A reply built from the request it answers (e.g. usage that matches the request's size).
    Respond(Box<dyn FnOnce(&RecordedRequest) -> Reply + Send>),
}

impl Reply {
    /// A fixture from `fixtures/transcripts/`, replayed in one piece.
    pub fn fixture(name: &str) -> Reply {
        Reply::Sse { body: fixture_bytes(name), chunk: None, pause: Duration::ZERO }
    }

    /// A fixture replayed `chunk` bytes at a time with `pause` between writes.
    pub fn fixture_chunked(name: &str, chunk: usize, pause: Duration) -> Reply {
        Reply::Sse { body: fixture_bytes(name), chunk: Some(chunk), pause }
    }

    /// An SSE body given as text.
    pub fn sse(body: &str) -> Reply {
        Reply::Sse { body: body.as_bytes().to_vec(), chunk: None, pause: Duration::ZERO }
    }

    /// A reply built from the request it answers.
    pub fn respond(build: impl FnOnce(&RecordedRequest) -> Reply + Send + 'static) -> Reply {
        Reply::Respond(Box::new(build))
    }

    /// An error status with a JSON body.
    pub fn status(status: u16, body: &str) -> Reply {
        Reply::Status { status, body: body.to_string(), headers: Vec::new() }
    }

    /// The same SSE body framed with a `Content-Length`, so the connection can serve the next
    /// request (`Sse` replies only; others are returned as they are).
    pub fn kept_alive(self) -> Reply {
        match self {
            Reply::Sse { body, .. } => Reply::SseKeepAlive { body },
            other => other,
        }
    }

    /// Adds a response header (for `Status` replies).
    pub fn with_header(mut self, name: &str, value: &str) -> Reply {
        if let Reply::Status { headers, .. } = &mut self {
            headers.push((name.to_string(), value.to_string()));
        }
        self
    }
}

/// The bytes of `fixtures/transcripts/<name>`.
pub fn fixture_bytes(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/transcripts").join(name);
    std::fs::read(&path).unwrap_or_else(|err| panic!("fixture {}: {err}", path.display()))
}

/// One request as the server saw it.
#[derive(Clone, Debug)]
pub struct RecordedRequest {
    pub method: String,
    pub path: String,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
    pub body: String,
    pub json: Option<serde_json::Value>,
    /// The client's address: one per connection it opened.
    pub remote: Option<std::net::SocketAddr>,
}

impl RecordedRequest {
    /// The first header called `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers.iter().find(|(key, _)| *key == name).map(|(_, value)| value.as_str())
    }

    /// The body as JSON (every model request is; panics with the body otherwise).
    pub fn body_json(&self) -> &serde_json::Value {
        self.json.as_ref().unwrap_or_else(|| panic!("not a JSON body: {}", self.body))
    }

    /// The `messages` array (both protocols).
    pub fn messages(&self) -> Vec<serde_json::Value> {
        self.body_json()["messages"].as_array().cloned().unwrap_or_default()
    }

    /// The text of every tool result the request carries, in order, whichever the protocol:
    /// OpenAI `role: tool` messages, Anthropic `tool_result` blocks.
    pub fn tool_results(&self) -> Vec<String> {
        let text = |value: &serde_json::Value| match value {
            serde_json::Value::String(text) => text.clone(),
            serde_json::Value::Array(blocks) => {
                blocks.iter().filter_map(|block| block["text"].as_str()).collect::<Vec<_>>().join("")
            }
            _ => String::new(),
        };
        let mut results = Vec::new();
        for message in self.messages() {
            if message["role"] == "tool" {
                results.push(text(&message["content"]));
            }
            for block in message["content"].as_array().into_iter().flatten() {
                if block["type"] == "tool_result" {
                    results.push(text(&block["content"]));
                }
            }
        }
        results
    }
}

struct Shared {
    queue: Mutex<VecDeque<Reply>>,
    requests: Mutex<Vec<RecordedRequest>>,
    /// Signalled after each recorded model request (`wait_for_requests`).
    arrived: std::sync::Condvar,
    violations: Mutex<Vec<String>>,
    /// Answers to requests that are not model calls (GETs such as `/v1/models` and discovery's
    /// `/props`, Ollama's `POST /api/show`, the tokenizers' `POST /tokenize` and
    /// `/extras/tokenize/count`), by method and path; they never consume the reply
    /// queue. Anything else is a 404.
    routes: Mutex<Vec<(String, String, u16, String)>>,
    side_requests: Mutex<Vec<RecordedRequest>>,
}

/// The running server. Dropping it stops the accept loop.
pub struct FakeModel {
    server: Arc<tiny_http::Server>,
    shared: Arc<Shared>,
    accept: Option<JoinHandle<()>>,
    port: u16,
}

impl FakeModel {
    /// Starts a server on 127.0.0.1 with a free port and an empty script.
    pub fn start() -> FakeModel {
        let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").expect("bind fake model"));
        let port = server.server_addr().to_ip().expect("ip listener").port();
        let shared = Arc::new(Shared {
            queue: Mutex::new(VecDeque::new()),
            requests: Mutex::new(Vec::new()),
            arrived: std::sync::Condvar::new(),
            violations: Mutex::new(Vec::new()),
            routes: Mutex::new(Vec::new()),
            side_requests: Mutex::new(Vec::new()),
        });
        let accept = {
            let (server, shared) = (server.clone(), shared.clone());
            std::thread::Builder::new()
                .name("fake-model-accept".into())
                .spawn(move || accept_loop(&server, &shared))
                .expect("spawn accept loop")
        };
        FakeModel { server, shared, accept: Some(accept), port }
    }

    /// Queues the next reply.
    pub fn push(&self, reply: Reply) -> &FakeModel {
        self.shared.queue.lock().expect("queue").push_back(reply);
        self
    }

    /// Answers every `method path` request that is not a model call with `status` and the JSON
    /// `body` (the models list, llama.cpp's `/props`...), however often it is asked. A path routed
    /// several times answers with each in turn, the last one from then on.
    pub fn route(&self, method: &str, path: &str, status: u16, body: &str) -> &FakeModel {
        let route = (method.to_string(), path.to_string(), status, body.to_string());
        self.shared.routes.lock().expect("routes").push(route);
        self
    }

    /// Requests that were not model calls (models lists, discovery probes), in order.
    pub fn side_requests(&self) -> Vec<RecordedRequest> {
        self.shared.side_requests.lock().expect("side requests").clone()
    }

    /// `http://127.0.0.1:PORT` (no trailing slash, no version path).
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.requests.lock().expect("requests").clone()
    }

    /// Blocks until `count` model requests have arrived (woken by each one, no polling); panics
    /// naming `what` after 30 s.
    pub fn wait_for_requests(&self, count: usize, what: &str) {
        let requests = self.shared.requests.lock().expect("requests");
        let limit = Duration::from_secs(30);
        let (requests, _) = self
            .shared
            .arrived
            .wait_timeout_while(requests, limit, |requests| requests.len() < count)
            .expect("requests");
        assert!(requests.len() >= count, "{what}: only {} of {count} requests arrived in 30 s", requests.len());
    }

    /// Protocol violations found in the requests (invalid alternation, unanswered tool calls...).
    pub fn violations(&self) -> Vec<String> {
        self.shared.violations.lock().expect("violations").clone()
    }

    /// How many connections the client opened for its model calls (distinct client addresses).
    pub fn connections(&self) -> usize {
        let requests = self.requests();
        let mut remotes: Vec<_> = requests.iter().filter_map(|request| request.remote).collect();
        remotes.sort();
        remotes.dedup();
        remotes.len()
    }

    /// Replies still queued (a test that expects them all used checks this is 0).
    pub fn remaining(&self) -> usize {
        self.shared.queue.lock().expect("queue").len()
    }
}

impl Drop for FakeModel {
    fn drop(&mut self) {
        self.server.unblock();
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
        let violations = self.violations();
        if !violations.is_empty() && !std::thread::panicking() {
            panic!("the fake model received invalid requests:\n{}", violations.join("\n"));
        }
    }
}

fn accept_loop(server: &tiny_http::Server, shared: &Arc<Shared>) {
    let mut workers = Vec::new();
    while let Ok(mut request) = server.recv() {
        let mut body = String::new();
        let _ = request.as_reader().read_to_string(&mut body);
        let recorded = RecordedRequest {
            method: request.method().as_str().to_string(),
            path: request.url().to_string(),
            headers: request
                .headers()
                .iter()
                .map(|header| (header.field.as_str().as_str().to_ascii_lowercase(), header.value.as_str().to_string()))
                .collect(),
            json: serde_json::from_str(&body).ok(),
            body,
            remote: request.remote_addr().copied(),
        };
        // Only model calls take scripted replies; the rest (models lists, window discovery) is
        // answered from the routes so it never eats a reply meant for the model.
        let path = recorded.path.split('?').next().unwrap_or("");
        let model_call = recorded.method == "POST"
            && !path.ends_with("/api/show")
            && !path.ends_with("/tokenize")
            && !path.ends_with("/tokenize/count");
        if !model_call {
            let route = {
                let mut routes = shared.routes.lock().expect("routes");
                let matches = |(method, route_path, _, _): &(String, String, u16, String)| {
                    *method == recorded.method && route_path == path
                };
                let first = routes.iter().position(matches);
                let more = first.is_some_and(|first| routes[first + 1..].iter().any(matches));
                match first {
                    Some(first) if more => Some(routes.remove(first)),
                    Some(first) => Some(routes[first].clone()),
                    None => None,
                }
                .map(|(_, _, status, body)| (status, body))
            };
            shared.side_requests.lock().expect("side requests").push(recorded);
            let (status, body) = route.unwrap_or((404, r#"{"error":"not found"}"#.to_string()));
            let mut response = tiny_http::Response::from_string(body).with_status_code(status);
            if let Ok(header) = tiny_http::Header::from_bytes("Content-Type", "application/json") {
                response.add_header(header);
            }
            let _ = request.respond(response);
            continue;
        }
        if let Err(problem) = validate::check_request(&recorded) {
            let index = shared.requests.lock().expect("requests").len();
            shared
                .violations
                .lock()
                .expect("violations")
                .push(format!("request {index} ({}): {problem}", recorded.path));
        }
        let reply = match shared.queue.lock().expect("queue").pop_front() {
            Some(Reply::Respond(build)) => Some(build(&recorded)),
            reply => reply,
        };
        shared.requests.lock().expect("requests").push(recorded);
        shared.arrived.notify_all();
        let worker = std::thread::Builder::new().name("fake-model-reply".into()).spawn(move || answer(request, reply));
        if let Ok(worker) = worker {
            workers.push(worker);
        }
    }
    for worker in workers {
        let _ = worker.join();
    }
}

fn answer(request: tiny_http::Request, reply: Option<Reply>) {
    let reply = reply.unwrap_or_else(|| {
        Reply::status(
            500,
            r#"{"type":"error","error":{"type":"api_error","message":"fake model: no scripted reply left"}}"#,
        )
    });
    match reply {
        Reply::Status { status, body, headers } => {
            let mut response = tiny_http::Response::from_string(body).with_status_code(status);
            let content_type = tiny_http::Header::from_bytes("Content-Type", "application/json");
            if let Ok(header) = content_type {
                response.add_header(header);
            }
            for (name, value) in headers {
                if let Ok(header) = tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()) {
                    response.add_header(header);
                }
            }
            let _ = request.respond(response);
        }
        Reply::Sse { body, chunk, pause } => {
            let mut writer = request.into_writer();
            if write_head(&mut writer).is_err() {
                return;
            }
            let size = chunk.unwrap_or(body.len().max(1));
            for piece in body.chunks(size) {
                if writer.write_all(piece).and_then(|()| writer.flush()).is_err() {
                    return;
                }
                if !pause.is_zero() {
                    std::thread::sleep(pause);
                }
            }
        }
        Reply::SseKeepAlive { body } => {
            let mut response = tiny_http::Response::from_data(body);
            if let Ok(header) = tiny_http::Header::from_bytes("Content-Type", "text/event-stream") {
                response.add_header(header);
            }
            let _ = request.respond(response);
        }
        Reply::Stall { body, release } => {
            let mut writer = request.into_writer();
            if write_head(&mut writer).is_err() || writer.write_all(&body).and_then(|()| writer.flush()).is_err() {
                return;
            }
            let _ = release.recv();
        }
        // Resolved in the accept loop, before the reply is answered.
        Reply::Respond(_) => {}
    }
}

/// The raw head of a streamed response: no length, so the body runs until the connection closes.
fn write_head(writer: &mut Box<dyn Write + Send>) -> std::io::Result<()> {
    writer.write_all(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n",
    )?;
    writer.flush()
}
