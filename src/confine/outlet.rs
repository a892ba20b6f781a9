//! A command's one way out under the network policy: a proxy of its own that listens nowhere,
//! fed the connections the command's bridge accepts inside its network namespace
//! (`sys::bridge`), each decided by the session's `NetworkGate` before anything leaves.
//!
//! Invariant: the receiving thread ends when the bridge's channel ends (the bridge died with the
//! command and mewcode's copy of its end was dropped with the spawned `Command`); the proxy's
//! connection threads end with their clients. Nothing here outlives the command for long, and
//! nothing a command sends reaches the outside without a verdict.

use crate::netproxy::{Decide, Limits, Listen, Proxy};
use crate::sys::bridge;
use std::io;
use std::os::fd::OwnedFd;
use std::sync::Arc;

/// The environment that points a command's HTTP, HTTPS and SOCKS clients at its bridge; its own
/// loopback (its test servers) is reached directly.
pub(crate) fn proxy_env() -> Vec<(String, String)> {
    let http = format!("http://127.0.0.1:{}", bridge::BRIDGE_PORT);
    let socks = format!("socks5h://127.0.0.1:{}", bridge::BRIDGE_PORT);
    let local = "localhost,127.0.0.1,::1".to_string();
    let mut env = Vec::new();
    for (name, value) in [("HTTP_PROXY", &http), ("HTTPS_PROXY", &http), ("ALL_PROXY", &socks), ("NO_PROXY", &local)] {
        env.push((name.to_string(), value.clone()));
        env.push((name.to_ascii_lowercase(), value.clone()));
    }
    env
}

/// Opens the way out for one command: the bridge's end of the channel (for `ViewSetup::bridge`)
/// and the thread that serves what arrives with a proxy deciding by `decide`.
pub(crate) fn open(decide: Decide) -> io::Result<OwnedFd> {
    let (ours, theirs) = bridge::channel()?;
    let proxy = Proxy::start(Listen::default(), Limits::default(), decide)?;
    let proxy = Arc::new(proxy);
    std::thread::Builder::new().name("net-outlet".to_string()).spawn(move || {
        while let Ok(Some(connection)) = bridge::receive(&ours) {
            proxy.serve(std::net::TcpStream::from(connection));
        }
    })?;
    Ok(theirs)
}
