//! A scripted HTTP server for the transport's unit tests: each accepted connection gets the
//! next scripted reply, byte for byte, including replies that stall or cut the body.
//!
//! It is a plain `TcpListener` rather than tiny_http because these tests need to hold a
//! connection open without writing, and to close a socket in the middle of a chunked body —
//! tiny_http owns the socket and frames the response itself. Bound to 127.0.0.1:0; a test
//! waits on the recorded requests channel, never on sleeps.
//!
//! The LLM tests' fakes of what we do not own, all test-only (declared under `#[cfg(test)]`):
//! - `mod.rs` — the scripted server: one reply per connection, byte for byte, stalls and cuts
//! - `routes.rs` — the route server: fixed answers by method and path, for discovery and doctor
//! - `fixture.rs` — recorded transcripts split into SSE events and replayed through a decoder

pub(crate) mod fixture;
pub(crate) mod routes;

use crossbeam_channel::{Receiver, Sender};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// What the server does on one connection, in order.
pub(crate) enum Step {
    Write(Vec<u8>),
    /// Keep the connection open, silent, until the server is dropped.
    Stall,
    /// Read the client's next request on the same connection (recorded like the first): the
    /// client kept the connection alive.
    NextRequest,
}

pub(crate) type Reply = Vec<Step>;

/// A complete non-streaming response.
pub(crate) fn status(code: u16, headers: &[(&str, &str)], body: &str) -> Reply {
    let mut head = format!("HTTP/1.1 {code} Scripted\r\ncontent-length: {}\r\nconnection: close\r\n", body.len());
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    vec![Step::Write(format!("{head}\r\n{body}").into_bytes())]
}

/// A 200 event stream whose body ends when the connection closes.
pub(crate) fn sse(body: &str) -> Reply {
    vec![Step::Write(format!("{}{body}", sse_head(false)).into_bytes())]
}

/// A 200 event stream that sends `body` then goes silent with the connection open.
pub(crate) fn sse_stall(body: &str) -> Reply {
    vec![Step::Write(format!("{}{body}", sse_head(false)).into_bytes()), Step::Stall]
}

/// A complete response that leaves the connection open for the next request.
pub(crate) fn framed(code: u16, headers: &[(&str, &str)], body: &str) -> Vec<u8> {
    let mut head = format!("HTTP/1.1 {code} Scripted\r\ncontent-length: {}\r\n", body.len());
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    format!("{head}\r\n{body}").into_bytes()
}

/// A 200 event stream framed by `Content-Length`, after which the connection stays open.
pub(crate) fn sse_framed(body: &str) -> Vec<u8> {
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n";
    format!("{head}content-length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

/// A chunked 200 event stream cut after `body`: the connection closes without the final
/// zero-length chunk, which a client must see as a broken transfer.
pub(crate) fn sse_cut(body: &str) -> Reply {
    let chunk = format!("{:x}\r\n{body}\r\n", body.len());
    vec![Step::Write(format!("{}{chunk}", sse_head(true)).into_bytes())]
}

fn sse_head(chunked: bool) -> String {
    let framing = if chunked { "transfer-encoding: chunked\r\n" } else { "connection: close\r\n" };
    format!("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n{framing}\r\n")
}

/// The running server. Dropping it releases stalled connections and stops the thread.
pub(crate) struct ScriptedServer {
    pub base_url: String,
    /// Every request received, raw (request line, headers, body), in order.
    pub requests: Receiver<String>,
    address: std::net::SocketAddr,
    stopping: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ScriptedServer {
    pub(crate) fn start(replies: Vec<Reply>) -> ScriptedServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let (requests_tx, requests_rx) = crossbeam_channel::unbounded();
        let stopping = Arc::new(AtomicBool::new(false));
        let flag = stopping.clone();
        let thread = std::thread::Builder::new()
            .name("test-scripted-server".to_string())
            .spawn(move || serve(&listener, replies, &requests_tx, &flag))
            .unwrap();
        ScriptedServer {
            base_url: format!("http://{address}"),
            requests: requests_rx,
            address,
            stopping,
            thread: Some(thread),
        }
    }
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        self.stopping.store(true, Ordering::SeqCst);
        // Wake a thread blocked in accept; it sees the flag and returns, dropping held sockets.
        let _ = TcpStream::connect(self.address);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn serve(listener: &TcpListener, replies: Vec<Reply>, requests_tx: &Sender<String>, stopping: &AtomicBool) {
    let mut held = Vec::new();
    for reply in replies {
        let Ok((mut stream, _)) = listener.accept() else { return };
        if stopping.load(Ordering::SeqCst) {
            return;
        }
        match read_request(&mut stream) {
            Some(request) => {
                let _ = requests_tx.send(request);
            }
            None => return,
        }
        for step in reply {
            match step {
                Step::Write(bytes) => {
                    let _ = stream.write_all(&bytes);
                    let _ = stream.flush();
                }
                Step::Stall => {
                    held.push(stream.try_clone().unwrap());
                }
                Step::NextRequest => match read_request(&mut stream) {
                    Some(request) => {
                        let _ = requests_tx.send(request);
                    }
                    None => break,
                },
            }
        }
        drop(stream);
    }
    // Keep stalled connections open until the test drops the server.
    while !stopping.load(Ordering::SeqCst) {
        match listener.accept() {
            Ok(_) if stopping.load(Ordering::SeqCst) => break,
            Ok((extra, _)) => drop(extra), // a retry beyond the script: refuse by closing
            Err(_) => break,
        }
    }
    drop(held);
}

fn read_request(stream: &mut TcpStream) -> Option<String> {
    let mut bytes = Vec::new();
    let mut buffer = [0u8; 4096];
    let header_end = loop {
        if let Some(end) = bytes.windows(4).position(|window| window == b"\r\n\r\n") {
            break end + 4;
        }
        let read = stream.read(&mut buffer).ok()?;
        if read == 0 {
            return None;
        }
        bytes.extend_from_slice(&buffer[..read]);
    };
    let head = String::from_utf8_lossy(&bytes[..header_end]).to_ascii_lowercase();
    let length: usize = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or(0);
    while bytes.len() < header_end + length {
        let read = stream.read(&mut buffer).ok()?;
        if read == 0 {
            break;
        }
        bytes.extend_from_slice(&buffer[..read]);
    }
    Some(String::from_utf8_lossy(&bytes).into_owned())
}
