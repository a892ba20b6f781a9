//! After `Allow`: the upstream connection (the name resolved only now) and the two-way tunnel
//! between it and the client.
//!
//! Invariant: a tunnel relays bytes unmodified (toward the upstream inside the kernel where it can,
//! `splice`; toward the client copied, `body.rs` says why); when one side ends its sending, the
//! other side's sending is shut (half-close), so a protocol that signals with EOF (a request body,
//! ssh's channel close) still works, and the tunnel ends once both directions have; an error on
//! either side shuts both sockets, so neither direction's thread is left waiting.

use super::body::{copy_to_client, move_between};
use super::conn::Conn;
use std::fmt;
use std::io::{self, BufReader, Read};
use std::net::{IpAddr, Shutdown, SocketAddr, TcpStream, ToSocketAddrs};
use std::thread;

/// Why an allowed upstream could not be reached.
#[derive(Debug)]
pub(super) enum Unreachable {
    /// The name has no address (or resolving it failed).
    NoAddress(String),
    /// Every address refused the connection.
    Refused(String),
    /// Timed out, no route, or another failure.
    Failed(String),
}

impl fmt::Display for Unreachable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unreachable::NoAddress(why) | Unreachable::Refused(why) | Unreachable::Failed(why) => write!(f, "{why}"),
        }
    }
}

/// True for an address a name must never lead to: this machine (loopback, unspecified) and
/// the link-local range (cloud metadata services live at 169.254.169.254), in either family and
/// IPv4-mapped. A policy allows names; a name that resolves here is DNS rebinding onto the
/// user's own services, which only an allowed address literal may reach.
fn is_local_address(address: IpAddr) -> bool {
    let v4 = match address {
        IpAddr::V4(v4) => Some(v4),
        IpAddr::V6(v6) => v6.to_ipv4_mapped(),
    };
    match (v4, address) {
        (Some(v4), _) => v4.is_loopback() || v4.is_unspecified() || v4.is_link_local(),
        (None, IpAddr::V6(v6)) => v6.is_loopback() || v6.is_unspecified() || (v6.segments()[0] & 0xffc0) == 0xfe80,
        (None, IpAddr::V4(_)) => false,
    }
}

/// Connects to `host:port` (or to `at`, the address the decision pinned it to), trying each of
/// its addresses within `limits.connect_timeout` each. A name (not an address literal) never
/// connects to a local address (`is_local_address`) unless `limits.local_names` or pinned there.
pub(super) fn connect(
    host: &str,
    port: u16,
    at: Option<SocketAddr>,
    limits: &super::Limits,
) -> Result<TcpStream, Unreachable> {
    let timeout = limits.connect_timeout;
    let resolved = match at {
        Some(address) => Ok(vec![address]),
        None => (host, port).to_socket_addrs().map(Iterator::collect),
    };
    let mut addresses: Vec<SocketAddr> = match resolved {
        Ok(addresses) => addresses,
        Err(err) => return Err(Unreachable::NoAddress(format!("cannot resolve {host}: {err}"))),
    };
    if !limits.local_names && at.is_none() && host.parse::<IpAddr>().is_err() {
        let local: Vec<SocketAddr> =
            addresses.iter().copied().filter(|address| is_local_address(address.ip())).collect();
        addresses.retain(|address| !is_local_address(address.ip()));
        if addresses.is_empty()
            && let Some(first) = local.first()
        {
            return Err(Unreachable::Failed(format!(
                "{host} resolves to {}, an address of this machine or its link: a name is never connected there \
                 (allow the address itself in sandbox.allow_hosts if that is meant)",
                first.ip()
            )));
        }
    }
    let mut last = None;
    for address in &addresses {
        match TcpStream::connect_timeout(address, timeout) {
            Ok(stream) => {
                // Heads and bodies are written separately: Nagle would hold the second write for
                // the peer's delayed ACK (40 ms a request).
                let _ = stream.set_nodelay(true);
                return Ok(stream);
            }
            Err(err) => last = Some(err),
        }
    }
    match last {
        None => Err(Unreachable::NoAddress(format!("{host} has no address"))),
        Some(err) if err.kind() == io::ErrorKind::ConnectionRefused => {
            Err(Unreachable::Refused(format!("{host} port {port} refused the connection")))
        }
        Some(err) => Err(Unreachable::Failed(format!("cannot connect to {host} port {port}: {err}"))),
    }
}

/// Relays `client_in` (the client's socket `client` read through a buffer that may hold bytes
/// it sent past its head) to `upstream`, and `upstream` to `client`, until both directions end.
pub(super) fn tunnel<R: Read + Send>(client_in: &mut BufReader<R>, client: &Conn, upstream: &Conn) {
    thread::scope(|scope| {
        let back = thread::Builder::new().name("netproxy-tunnel".to_string()).spawn_scoped(scope, || {
            let moved = copy_to_client(&mut BufReader::with_capacity(0, upstream), client, None);
            end(moved, upstream, client);
        });
        if back.is_err() {
            abort(client, upstream);
            return;
        }
        end(move_between(client_in, client, upstream, None), client, upstream);
    });
}

/// After one direction's relay from `from` to `to`: shuts `to`'s sending (the peer reads EOF), or
/// on an error both sockets.
fn end(moved: io::Result<u64>, from: &Conn, to: &Conn) {
    match moved {
        Ok(_) => to.shutdown(Shutdown::Write),
        Err(_) => abort(to, from),
    }
}

fn abort(one: &Conn, other: &Conn) {
    one.shutdown(Shutdown::Both);
    other.shutdown(Shutdown::Both);
}

#[cfg(test)]
#[path = "relay_tests.rs"]
mod tests;
