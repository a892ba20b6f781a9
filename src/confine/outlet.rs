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

/// ssh's `ProxyCommand` for git over ssh, run by bash with the host and port as `$1` and `$2`:
/// `CONNECT` through the bridge (bash's `/dev/tcp`, so no `nc` is needed), the refusal's text on
/// stderr when the proxy says no, else the tunnel between stdin/stdout and the socket. Written
/// without single quotes: it travels in an environment variable through two shells.
const SSH_PROXY_SCRIPT: &str = r#"exec 3<>/dev/tcp/127.0.0.1/PORT || exit 1
printf "CONNECT %s:%s HTTP/1.1
Host: %s:%s

" "$1" "$2" "$1" "$2" >&3
IFS= read -r status <&3
while IFS= read -r line <&3 && [ ${#line} -gt 1 ]; do :; done
case $status in
  HTTP/1.?" 200"*) ;;
  *) cat <&3 >&2; exit 1 ;;
esac
cat <&3 &
exec cat >&3
"#;

/// The environment that points a command's HTTP, HTTPS and SOCKS clients, and git's ssh, at its
/// bridge; its own loopback (its test servers) is reached directly.
pub(crate) fn proxy_env() -> Vec<(String, String)> {
    let port = bridge::BRIDGE_PORT;
    let http = format!("http://127.0.0.1:{port}");
    let socks = format!("socks5h://127.0.0.1:{port}");
    let local = "localhost,127.0.0.1,::1".to_string();
    let mut env = Vec::new();
    for (name, value) in [("HTTP_PROXY", &http), ("HTTPS_PROXY", &http), ("ALL_PROXY", &socks), ("NO_PROXY", &local)] {
        env.push((name.to_string(), value.clone()));
        env.push((name.to_ascii_lowercase(), value.clone()));
    }
    // git runs GIT_SSH_COMMAND with sh (the single quotes keep the variable for ssh), ssh runs
    // the ProxyCommand with sh (which expands it), and bash runs the script.
    env.push(("MEWCODE_SSH_PROXY".to_string(), SSH_PROXY_SCRIPT.replace("PORT", &port.to_string())));
    let command = r#"ssh -o 'ProxyCommand=bash -c "$MEWCODE_SSH_PROXY" mewcode-ssh-proxy %h %p'"#;
    env.push(("GIT_SSH_COMMAND".to_string(), command.to_string()));
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
