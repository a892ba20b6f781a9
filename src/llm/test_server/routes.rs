//! A fake HTTP server that answers by method and path, for the tests of window discovery and of
//! doctor's endpoint probe: each route has a fixed status, content type and body, anything else
//! is a 404, and every request is recorded as `METHOD /path body`.
//!
//! Like the scripted server (`mod.rs`) it is a plain `TcpListener` on 127.0.0.1:0 (tiny_http stays in the
//! integration suite), with one thread per connection because discovery asks its endpoints at
//! once. Every answer closes its connection. A test reads the recorded requests, never sleeps.

use crossbeam_channel::{Receiver, Sender};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// One canned answer: method, path, status, content type, body.
#[derive(Clone)]
pub(crate) struct Route {
    pub method: &'static str,
    pub path: &'static str,
    pub status: u16,
    pub content_type: &'static str,
    pub body: String,
}

/// A JSON answer with status 200.
pub(crate) fn json(method: &'static str, path: &'static str, body: &str) -> Route {
    Route { method, path, status: 200, content_type: "application/json", body: body.to_string() }
}

/// An event-stream answer with status 200.
pub(crate) fn sse(method: &'static str, path: &'static str, body: &str) -> Route {
    Route { method, path, status: 200, content_type: "text/event-stream", body: body.to_string() }
}

/// The running server; dropping it stops the accept loop.
pub(crate) struct RouteServer {
    /// `http://127.0.0.1:PORT`
    pub root: String,
    requests: Receiver<String>,
    address: std::net::SocketAddr,
    stopping: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl RouteServer {
    pub(crate) fn start(routes: Vec<Route>) -> RouteServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let (requests_tx, requests_rx) = crossbeam_channel::unbounded();
        let stopping = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stopping);
        let thread = std::thread::Builder::new()
            .name("test-route-server".to_string())
            .spawn(move || {
                let routes = Arc::new(routes);
                let mut workers = Vec::new();
                for stream in listener.incoming() {
                    if flag.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { break };
                    let (routes, requests_tx) = (Arc::clone(&routes), requests_tx.clone());
                    workers.push(std::thread::spawn(move || answer(stream, &routes, &requests_tx)));
                }
                for worker in workers {
                    let _ = worker.join();
                }
            })
            .unwrap();
        RouteServer {
            root: format!("http://{address}"),
            requests: requests_rx,
            address,
            stopping,
            thread: Some(thread),
        }
    }

    /// Every request received so far.
    pub(crate) fn received(&self) -> Vec<String> {
        self.requests.try_iter().collect()
    }
}

impl Drop for RouteServer {
    fn drop(&mut self) {
        self.stopping.store(true, Ordering::SeqCst);
        // Wake the accept loop; it sees the flag and returns.
        let _ = TcpStream::connect(self.address);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn answer(mut stream: TcpStream, routes: &[Route], requests_tx: &Sender<String>) {
    let Some((method, path, body)) = read_request(&mut stream) else { return };
    let _ = requests_tx.send(format!("{method} {path} {body}").trim_end().to_string());
    let route = routes.iter().find(|route| route.method == method && route.path == path);
    let (status, content_type, body) = match route {
        Some(route) => (route.status, route.content_type, route.body.as_str()),
        None => (404, "application/json", r#"{"error":"not found"}"#),
    };
    let reply = format!(
        "HTTP/1.1 {status} Routed\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(reply.as_bytes());
    let _ = stream.flush();
}

/// Method, path and body of one request (the body by its content-length).
fn read_request(stream: &mut TcpStream) -> Option<(String, String, String)> {
    let mut bytes = Vec::new();
    let mut buffer = [0u8; 4096];
    let header_end = loop {
        if let Some(end) = bytes.windows(4).position(|window| window == b"\r\n\r\n") {
            break end + 4;
        }
        let count = stream.read(&mut buffer).ok().filter(|&count| count > 0)?;
        bytes.extend_from_slice(&buffer[..count]);
    };
    let head = String::from_utf8_lossy(&bytes[..header_end]).to_string();
    let length: usize = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.trim().eq_ignore_ascii_case("content-length").then(|| value.trim().parse().ok()).flatten()
        })
        .unwrap_or(0);
    while bytes.len() < header_end + length {
        let count = stream.read(&mut buffer).ok().filter(|&count| count > 0)?;
        bytes.extend_from_slice(&buffer[..count]);
    }
    let mut words = head.split_whitespace();
    let (method, path) = (words.next()?.to_string(), words.next()?.to_string());
    Some((method, path, String::from_utf8_lossy(&bytes[header_end..header_end + length]).to_string()))
}
