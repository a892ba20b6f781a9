//! mewcode's own proxy for commands (issue 32): HTTP `CONNECT`, absolute-form HTTP requests and
//! SOCKS5 on the same listeners (loopback TCP and/or a unix socket, or none: connections a
//! command's bridge accepted in its namespace are handed over with `Proxy::serve`), each target
//! decided by a callback before anything reaches it.
//!
//! Invariant: no upstream connection, and no name resolution, before the callback said `Allow`
//! for exactly that host and port; every connection has its own thread, so a decision that waits
//! for the person (the REPL asks while the command waits) holds up only that connection. Bytes of
//! a tunnel are relayed unmodified (TLS is never decrypted). Not here: which hosts are allowed
//! (the network policy's callback), nor the namespace that leaves commands no other way out.
//!
//! Files:
//! - `listen.rs` — the listeners and their accept loops, the connection cap (503 beyond it), the
//!   first byte that tells SOCKS5 from HTTP, and the wake-up that stops a loop on drop
//! - `conn.rs` — one socket, TCP or unix, and the deadline of a client's header phase
//! - `decide.rs` — the callback asked once per connection (a panic is a denial) and its log
//! - `head.rs` — request and response heads: bounded reading, parsing, targets, hop-by-hop
//!   headers, body framing (pure, bytes in and values out)
//! - `body.rs` — a body relayed verbatim as its framing says (length, chunked, until close), and
//!   bytes moved between two sockets: copied toward the client, inside the kernel (`splice`)
//!   toward the upstream
//! - `http.rs` — `CONNECT` and absolute-form requests, and the proxy's own answers (400, 403, 502)
//! - `socks.rs` — SOCKS5 (RFC 1928): no authentication, `CONNECT` to a name, IPv4 or IPv6
//! - `relay.rs` — the upstream connection made after `Allow` and the two-way tunnel
//!
//! HTTP requests are one per client connection: the request goes to the origin with
//! `Connection: close` and so does the response to the client, which then opens a new connection
//! (and is asked about by host again: the callback's own memory makes that cheap).

mod body;
mod conn;
mod decide;
mod head;
mod http;
mod listen;
mod relay;
mod socks;

#[cfg(test)]
mod test_support;
#[cfg(test)]
mod tests;

use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// The decision a connection waits for: called on the connection's own thread, it may block for
/// as long as it likes (the person answering a question).
pub type Decide = Arc<dyn Fn(&Target) -> Verdict + Send + Sync>;

/// Where the proxy listens: a TCP address (give port 0 for any free port; meant for loopback) and/or
/// a unix socket path (the way out of a command's network namespace). At least one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Listen {
    pub tcp: Option<SocketAddr>,
    pub unix: Option<PathBuf>,
}

/// The proxy's bounds against slow or too many clients.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The whole header phase (request line and headers, or the SOCKS5 greeting and request)
    /// must arrive within this: a slow-loris client is cut off.
    pub head_timeout: Duration,
    /// Connections handled at once (tunnels included); one more is answered 503 and closed.
    pub max_connections: usize,
    /// How long connecting to an allowed upstream may take before the client gets 502.
    pub connect_timeout: Duration,
    /// Whether a name may lead to this machine or its link (`relay::is_local_address`): never
    /// for commands (DNS rebinding onto the user's own services); tests reach their local
    /// origins by `localhost`.
    pub local_names: bool,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            head_timeout: Duration::from_secs(30),
            max_connections: 256,
            connect_timeout: Duration::from_secs(30),
            local_names: false,
        }
    }
}

/// What a client asked to reach.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Target {
    /// A name lowercased without its trailing dot, or an IP literal as given (IPv6 without
    /// brackets, in its canonical form). Never resolved before the verdict.
    pub host: String,
    pub port: u16,
    pub kind: Kind,
}

/// The protocol a target was asked for by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// HTTP `CONNECT host:port` (TLS, or anything a client tunnels).
    Connect,
    /// An absolute-form HTTP request (`GET http://host/...`), forwarded in origin-form.
    Http,
    /// A SOCKS5 `CONNECT` (git over ssh and other raw TCP through `ALL_PROXY=socks5h://...`).
    Socks,
}

/// The callback's answer for one target.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Verdict {
    Allow,
    /// Allowed, at this address instead of what the name resolves to: a host the user pinned to
    /// a local mirror (`MEWCODE_RESOLVE`, as curl's `--resolve`), which the guard against names
    /// leading to this machine does not apply to.
    AllowAt(SocketAddr),
    /// Refused; the reason (which should say how to allow the host) reaches an HTTP client in the
    /// 403's body. A SOCKS5 client only learns "not allowed by ruleset" (reply 0x02).
    Deny(String),
}

/// One line of the decision log: how many connections got this verdict for this host and port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub host: String,
    pub port: u16,
    pub verdict: Verdict,
    pub count: u64,
}

/// A running proxy. Dropping it stops its accept loops (joined) and removes its unix socket;
/// connections already accepted finish on their own threads (a tunnel ends when either side
/// closes, a header phase within `Limits::head_timeout`).
pub struct Proxy {
    listening: Listen,
    shared: Arc<Shared>,
    /// The accept loops (their drop stops them) and the cap every connection counts against.
    loops: listen::Loops,
}

/// What every connection's thread shares: the callback with its log, and the limits.
struct Shared {
    decider: decide::Decider,
    limits: Limits,
}

impl Proxy {
    /// Binds every address of `listen` and starts one accept loop per listener. With neither
    /// address it listens nowhere and serves only what `serve` hands it (the commands' bridges).
    pub fn start(listen: Listen, limits: Limits, decide: Decide) -> io::Result<Proxy> {
        let shared = Arc::new(Shared { decider: decide::Decider::new(decide), limits });
        let (loops, listening) = listen::Loops::spawn(&listen, &shared)?;
        Ok(Proxy { listening, shared, loops })
    }

    /// Serves a client connection accepted elsewhere: a command's bridge accepted it inside the
    /// command's network namespace and passed it over (`sys::bridge`).
    pub fn serve(&self, stream: std::net::TcpStream) {
        let _ = stream.set_nodelay(true);
        self.loops.serve(conn::Conn::Tcp(stream), &self.shared);
    }

    /// The addresses actually bound: the TCP port chosen when 0 was asked, the unix socket path.
    pub fn listening(&self) -> &Listen {
        &self.listening
    }

    /// Every verdict so far, by host, port and verdict, in the order they first happened.
    pub fn decisions(&self) -> Vec<Decision> {
        self.shared.decider.log()
    }
}
