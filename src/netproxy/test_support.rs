//! Test helpers for the proxy: a proxy on a loopback port, callbacks, loopback origins that count
//! the connections they accept (an echo server, an HTTP server that records each request), and
//! a client that sends bytes and reads the answer to its end.
//!
//! Invariant: every server binds port 0 and is stopped (its accept loop joined) when dropped;
//! nothing waits by sleeping: a test waits for bytes, EOF or a channel.

use super::body::relay_body;
use super::head::{Head, read_head, request_framing};
use super::{Decide, Limits, Listen, Proxy, Target, Verdict};
use std::io::{BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};

/// A proxy on 127.0.0.1, port 0, with the default limits.
pub(super) fn start(decide: Decide) -> (Proxy, SocketAddr) {
    // The origins are on this machine and some are reached by `localhost`.
    start_with(Limits { local_names: true, ..Limits::default() }, decide)
}

pub(super) fn start_with(limits: Limits, decide: Decide) -> (Proxy, SocketAddr) {
    let listen = Listen { tcp: Some("127.0.0.1:0".parse().unwrap()), unix: None };
    let proxy = Proxy::start(listen, limits, decide).unwrap();
    let address = proxy.listening().tcp.unwrap();
    (proxy, address)
}

pub(super) fn allow_all() -> Decide {
    Arc::new(|_: &Target| Verdict::Allow)
}

/// Allows every host but `denied`, refused with `reason`.
pub(super) fn deny(denied: &'static str, reason: &'static str) -> Decide {
    Arc::new(
        move |target: &Target| {
            if target.host == denied { Verdict::Deny(reason.to_string()) } else { Verdict::Allow }
        },
    )
}

/// One request as an HTTP origin received it: its head, and its body's bytes as sent (chunk
/// framing included).
#[derive(Debug)]
pub(super) struct Received {
    pub(super) head: Head,
    pub(super) body: Vec<u8>,
}

impl Received {
    /// The values of the header `name`, in order.
    pub(super) fn header(&self, name: &str) -> Vec<String> {
        let fields = self.head.headers.iter().filter(|header| header.name.eq_ignore_ascii_case(name));
        fields.map(|header| String::from_utf8_lossy(&header.value).into_owned()).collect()
    }
}

/// A loopback server that counts its connections and runs a handler on each (own thread).
pub(super) struct Origin {
    pub(super) address: SocketAddr,
    accepted: Arc<AtomicUsize>,
    received: Arc<Mutex<Vec<Received>>>,
    stop: Arc<AtomicBool>,
    accept_loop: Option<JoinHandle<()>>,
}

impl Origin {
    /// Echoes every byte back until the client ends its sending, then ends its own.
    pub(super) fn echo() -> Origin {
        Origin::serve(|stream, _| {
            let mut reader = stream.try_clone().unwrap();
            let mut writer = stream;
            let _ = std::io::copy(&mut reader, &mut writer);
            let _ = writer.shutdown(Shutdown::Write);
        })
    }

    /// Reads one request (head and framed body), records it, answers `response` and closes.
    pub(super) fn http(response: &'static [u8]) -> Origin {
        Origin::serve(move |stream, received| {
            let mut writer = stream.try_clone().unwrap();
            let mut reader = BufReader::new(stream);
            let Ok(Some(head)) = read_head(&mut reader) else { return };
            let mut body = Vec::new();
            let Ok(framing) = request_framing(&head.headers) else { return };
            if relay_body(&mut reader, &mut body, framing).is_ok() {
                received.lock().unwrap().push(Received { head, body });
                let _ = writer.write_all(response);
            }
        })
    }

    /// A server running `handle` on each connection.
    pub(super) fn serve(handle: impl Fn(TcpStream, &Mutex<Vec<Received>>) + Send + Sync + 'static) -> Origin {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let accepted = Arc::new(AtomicUsize::new(0));
        let received = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let handle = Arc::new(handle);
        let (count, records, stopping) = (accepted.clone(), received.clone(), stop.clone());
        let accept_loop = thread::spawn(move || {
            for stream in listener.incoming() {
                if stopping.load(Ordering::SeqCst) {
                    return;
                }
                count.fetch_add(1, Ordering::SeqCst);
                let (handle, records) = (handle.clone(), records.clone());
                thread::spawn(move || handle(stream.unwrap(), &records));
            }
        });
        Origin { address, accepted, received, stop, accept_loop: Some(accept_loop) }
    }

    /// The connections accepted so far.
    pub(super) fn accepted(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }

    /// The requests received so far (HTTP origins), taken.
    pub(super) fn received(&self) -> Vec<Received> {
        std::mem::take(&mut *self.received.lock().unwrap())
    }
}

impl Drop for Origin {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.address);
        if let Some(accept_loop) = self.accept_loop.take() {
            accept_loop.join().unwrap();
        }
    }
}

/// A port nothing listens on (bound, then closed).
pub(super) fn closed_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Sends `request` and reads until the proxy closes.
pub(super) fn exchange(stream: impl Read + Write, request: &[u8]) -> Vec<u8> {
    let mut stream = stream;
    stream.write_all(request).unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    answer
}

/// A stream whose sending can be ended alone.
pub(super) trait HalfClose: Read + Write {
    fn end_sending(&self);
}

impl HalfClose for TcpStream {
    fn end_sending(&self) {
        self.shutdown(Shutdown::Write).unwrap();
    }
}

impl HalfClose for std::os::unix::net::UnixStream {
    fn end_sending(&self) {
        self.shutdown(Shutdown::Write).unwrap();
    }
}

/// Sends `bytes` through a tunnel to an echo server, ends the sending, reads the echo to its end.
pub(super) fn echo_through(stream: impl HalfClose, bytes: &[u8]) -> Vec<u8> {
    let mut stream = stream;
    stream.write_all(bytes).unwrap();
    stream.end_sending();
    let mut echoed = Vec::new();
    stream.read_to_end(&mut echoed).unwrap();
    echoed
}

/// An HTTP answer's status code, head (as text) and body.
pub(super) fn split_response(answer: &[u8]) -> (u16, String, Vec<u8>) {
    let end = answer.windows(4).position(|window| window == b"\r\n\r\n").expect("a complete head") + 4;
    let head = String::from_utf8(answer[..end].to_vec()).unwrap();
    let status = head[9..12].parse().unwrap();
    (status, head, answer[end..].to_vec())
}

/// Reads a head (up to its empty line, byte by byte so nothing after it is consumed).
pub(super) fn read_head_text(stream: &mut impl Read) -> String {
    let mut head = Vec::new();
    let mut byte = [0];
    while !head.ends_with(b"\r\n\r\n") {
        stream.read_exact(&mut byte).unwrap();
        head.push(byte[0]);
    }
    String::from_utf8(head).unwrap()
}
