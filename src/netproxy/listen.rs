//! The proxy's listeners (loopback TCP, a unix socket) and their accept loops: each connection on
//! a thread of its own, within the cap of concurrent connections, sent to SOCKS5 or HTTP by its
//! first byte; and how a loop is stopped.
//!
//! Invariant: an accept loop never waits on a client (the first byte is read on the connection's
//! thread) nor on a decision; it only accepts, counts and spawns. It ends when `Loops` is dropped:
//! the stop flag is set, then a connection to the listener's own address wakes its `accept`, and
//! the loop is joined.

use super::conn::{ClientReader, Conn};
use super::{Listen, Shared, http, socks};
use std::io::{self, BufRead, BufReader, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// The SOCKS5 version byte, the first byte a SOCKS5 client sends; no HTTP request starts with it.
const SOCKS5: u8 = 0x05;

/// The running accept loops of one proxy.
pub(super) struct Loops {
    stop: Arc<AtomicBool>,
    loops: Vec<(JoinHandle<()>, Wake)>,
    /// Connections live now, over every loop and `serve`, against the cap.
    live: Arc<AtomicUsize>,
}

/// How to wake a loop blocked in `accept`: connect to it.
enum Wake {
    Tcp(std::net::SocketAddr),
    Unix(PathBuf),
}

enum Listener {
    Tcp(TcpListener),
    Unix(UnixListener),
}

impl Loops {
    /// Binds every listener of `listen`, then starts their loops; the addresses actually bound.
    pub(super) fn spawn(listen: &Listen, shared: &Arc<Shared>) -> io::Result<(Loops, Listen)> {
        let mut bound = Vec::new();
        let mut listening = Listen::default();
        if let Some(address) = listen.tcp {
            let listener = TcpListener::bind(address)?;
            let local = listener.local_addr()?;
            listening.tcp = Some(local);
            bound.push((Listener::Tcp(listener), Wake::Tcp(local)));
        }
        if let Some(path) = &listen.unix {
            bound.push((Listener::Unix(UnixListener::bind(path)?), Wake::Unix(path.clone())));
            listening.unix = Some(path.clone());
        }
        let stop = Arc::new(AtomicBool::new(false));
        let live = Arc::new(AtomicUsize::new(0));
        let mut loops = Loops { stop: stop.clone(), loops: Vec::new(), live: live.clone() };
        for (listener, wake) in bound {
            let (stop, live, shared) = (stop.clone(), live.clone(), shared.clone());
            let name = match wake {
                Wake::Tcp(_) => "netproxy-accept-tcp",
                Wake::Unix(_) => "netproxy-accept-unix",
            };
            // On a failed spawn `loops` drops here, stopping the loops already started.
            let handle = thread::Builder::new()
                .name(name.to_string())
                .spawn(move || accept_loop(listener, &stop, &live, &shared))?;
            loops.loops.push((handle, wake));
        }
        Ok((loops, listening))
    }

    /// Serves a connection accepted elsewhere (a command's bridge passed it over), under the
    /// same cap as the loops' own.
    pub(super) fn serve(&self, conn: Conn, shared: &Arc<Shared>) {
        dispatch(conn, &self.live, shared);
    }
}

impl Drop for Loops {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        for (handle, wake) in self.loops.drain(..) {
            let woken = match &wake {
                Wake::Tcp(address) => TcpStream::connect(address).is_ok(),
                Wake::Unix(path) => UnixStream::connect(path).is_ok(),
            };
            // A loop that could not be woken (no file descriptor left) is left to end with the
            // process rather than hang the drop.
            if woken {
                let _ = handle.join();
            }
            if let Wake::Unix(path) = wake {
                let _ = std::fs::remove_file(path);
            }
        }
    }
}

fn accept_loop(listener: Listener, stop: &AtomicBool, live: &Arc<AtomicUsize>, shared: &Arc<Shared>) {
    loop {
        let accepted = match &listener {
            Listener::Tcp(listener) => listener.accept().map(|(stream, _)| {
                let _ = stream.set_nodelay(true);
                Conn::Tcp(stream)
            }),
            Listener::Unix(listener) => listener.accept().map(|(stream, _)| Conn::Unix(stream)),
        };
        if stop.load(Ordering::SeqCst) {
            return;
        }
        match accepted {
            Ok(conn) => dispatch(conn, live, shared),
            // Out of file descriptors, or a connection reset before it was accepted: the loop goes
            // on, after a pause so that a lasting failure does not spin a core.
            Err(_) => thread::sleep(Duration::from_millis(50)),
        }
    }
}

/// Starts `conn`'s thread, or answers 503 when the cap of live connections is reached.
fn dispatch(conn: Conn, live: &Arc<AtomicUsize>, shared: &Arc<Shared>) {
    let Some(slot) = Slot::take(live, shared.limits.max_connections) else {
        refuse_busy(&conn);
        return;
    };
    let shared = shared.clone();
    let spawned = thread::Builder::new().name("netproxy-conn".to_string()).spawn(move || {
        let _slot = slot;
        serve(conn, &shared);
    });
    // A failed spawn dropped its closure: the slot is freed and the connection closed.
    drop(spawned);
}

/// One place among the live connections, given back when the connection's thread ends.
struct Slot(Arc<AtomicUsize>);

impl Slot {
    fn take(live: &Arc<AtomicUsize>, max: usize) -> Option<Slot> {
        live.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |count| (count < max).then_some(count + 1)).ok()?;
        Some(Slot(live.clone()))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The answer beyond the cap: written on the accept loop's thread, so never waited for (a fresh
/// socket's send buffer takes it whole, and the socket is non-blocking anyway).
fn refuse_busy(conn: &Conn) {
    let body = "mewcode: the proxy has too many connections open; try again\n";
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    if conn.set_nonblocking().is_ok() {
        let _ = (&mut { conn }).write_all(response.as_bytes());
    }
    conn.shutdown(Shutdown::Write);
}

/// One connection: its header phase under the deadline, then SOCKS5 or HTTP by its first byte.
fn serve(conn: Conn, shared: &Shared) {
    let Ok(client) = conn.try_clone() else { return };
    let deadline = Instant::now() + shared.limits.head_timeout;
    let mut reader = BufReader::with_capacity(super::body::CHUNK, ClientReader::new(conn, deadline));
    let first = match reader.fill_buf() {
        Ok([]) | Err(_) => return,
        Ok([first, ..]) => *first,
    };
    if first == SOCKS5 {
        socks::serve(&mut reader, &client, shared);
    } else {
        http::serve(&mut reader, &client, shared);
    }
}
