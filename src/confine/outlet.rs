//! The commands' network namespace of this session (`sys::bridge::Keeper`) and its ways out: each
//! command (or background job) gets a port on that namespace's loopback for as long as it runs,
//! served by a proxy of its own that decides by the session's `NetworkGate`.
//!
//! Invariant: a port is routed to exactly one command's proxy from the keeper's answer until the
//! command's `Lease` is dropped; a connection to a port with no route is closed unserved. One
//! `net-outlet` thread reads everything the keeper says; it ends when the keeper is gone. Nothing
//! a command sends reaches the outside without a verdict of the proxy its port leads to.

use crate::netproxy::{Decide, Limits, Listen, Proxy};
use crate::permission::network::CommandNet;
use crate::sync::lock;
use crate::sys::bridge::{self, ADDRESS_IN_USE, FIRST_PORT, Keeper, MAX_PORTS, Said};
use crate::sys::namespace::View;
use std::collections::HashMap;
use std::io;
use std::os::fd::RawFd;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long the keeper may take to answer a request to listen.
const ANSWER: Duration = Duration::from_secs(5);

/// ssh's `ProxyCommand` for git over ssh, run by bash with the host and port as `$1` and `$2`:
/// `CONNECT` through the command's port (bash's `/dev/tcp`, so no `nc` is needed), the refusal's
/// text on stderr when the proxy says no, else the tunnel between stdin/stdout and the socket.
/// Written without single quotes: it travels in an environment variable through two shells.
const SSH_PROXY_SCRIPT: &str = r#"exec 3<>/dev/tcp/127.0.0.1/PORT || exit 1
printf "CONNECT %s:%s HTTP/1.1\r\nHost: %s:%s\r\n\r\n" "$1" "$2" "$1" "$2" >&3
IFS= read -r status <&3
while IFS= read -r line <&3 && [ ${#line} -gt 1 ]; do :; done
case $status in
  HTTP/1.?" 200"*) ;;
  *) cat <&3 >&2; exit 1 ;;
esac
cat <&3 &
exec cat >&3
"#;

/// What one command runs with besides its confinement: what its connections were refused (for
/// its result) and, under the network policy, its way out (hold it until the command ends).
#[derive(Debug, Default)]
pub(crate) struct Network {
    pub(crate) notes: CommandNet,
    pub(super) lease: Option<Lease>,
}

impl Network {
    /// The proxy variables that lead the command to its way out (none without one).
    pub(crate) fn env(&self) -> Vec<(String, String)> {
        self.lease.as_ref().map(Lease::env).unwrap_or_default()
    }
}

/// The session's namespace, its keeper and the routes from ports to commands' proxies.
pub(crate) struct Outlets {
    keeper: Keeper,
    routes: Arc<Mutex<HashMap<u16, Arc<Proxy>>>>,
    /// The keeper's answers to `listen`, from the reading thread.
    answers: Mutex<crossbeam_channel::Receiver<Said>>,
}

impl std::fmt::Debug for Outlets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Outlets").field("keeper", &self.keeper).finish_non_exhaustive()
    }
}

/// One command's way out: its port, routed to its proxy until this is dropped.
#[derive(Debug)]
pub(crate) struct Lease {
    port: u16,
    outlets: Arc<Outlets>,
}

impl Outlets {
    /// Starts the keeper with `view` (user and network namespaces, the id maps) and the thread
    /// that reads what it says.
    pub(crate) fn start(view: View) -> io::Result<Arc<Outlets>> {
        let keeper = Keeper::start(view)?;
        let channel = keeper.reader()?;
        let routes: Arc<Mutex<HashMap<u16, Arc<Proxy>>>> = Arc::default();
        let (answer_tx, answer_rx) = crossbeam_channel::unbounded();
        let reader_routes = Arc::clone(&routes);
        std::thread::Builder::new().name("net-outlet".to_string()).spawn(move || {
            while let Ok(Some((said, mut fds))) = bridge::receive(&channel) {
                match said {
                    Said::Accepted(port) => {
                        let proxy = lock(&reader_routes).get(&port).cloned();
                        if let (Some(proxy), Some(fd)) = (proxy, fds.pop()) {
                            proxy.serve(std::net::TcpStream::from(fd));
                        }
                    }
                    Said::Listening(_) | Said::Refused(..) => {
                        let _ = answer_tx.send(said);
                    }
                    Said::Ready => {}
                }
            }
        })?;
        Ok(Arc::new(Outlets { keeper, routes, answers: Mutex::new(answer_rx) }))
    }

    /// The namespaces every command of the session joins: (user, network).
    pub(crate) fn namespaces(&self) -> (RawFd, RawFd) {
        self.keeper.namespaces()
    }

    /// A port for one command, served by a proxy deciding by `decide`.
    pub(crate) fn open(self: &Arc<Self>, decide: Decide) -> io::Result<Lease> {
        let proxy = Arc::new(Proxy::start(Listen::default(), Limits::default(), decide)?);
        // One request at a time, so that each answer is the request's.
        let answers = lock(&self.answers);
        // Ports a command's own server holds in the namespace: skipped.
        let mut taken = Vec::new();
        while taken.len() < MAX_PORTS {
            let Some(port) = self.free_port(&taken) else { break };
            // Routed first: a connection may arrive as soon as the keeper listens.
            lock(&self.routes).insert(port, Arc::clone(&proxy));
            self.keeper.listen(port)?;
            let answer = answers.recv_timeout(ANSWER);
            if let Ok(Said::Listening(answered)) = answer
                && answered == port
            {
                return Ok(Lease { port, outlets: Arc::clone(self) });
            }
            lock(&self.routes).remove(&port);
            match answer {
                Ok(Said::Refused(answered, ADDRESS_IN_USE)) if answered == port => taken.push(port),
                Ok(Said::Refused(_, errno)) => return Err(io::Error::from_raw_os_error(errno)),
                _ => return Err(io::Error::other("the network keeper did not answer")),
            }
        }
        Err(io::Error::other(format!("more than {MAX_PORTS} commands reach the network at once")))
    }

    /// A port no command holds and not found `taken` by a command's own server.
    fn free_port(&self, taken: &[u16]) -> Option<u16> {
        let routes = lock(&self.routes);
        (FIRST_PORT..FIRST_PORT.saturating_add(1000)).find(|port| !routes.contains_key(port) && !taken.contains(port))
    }
}

impl Lease {
    /// The environment that points the command's HTTP, HTTPS and SOCKS clients, and git's ssh,
    /// at its port; its own loopback (its test servers, a background job's) is reached directly.
    pub(crate) fn env(&self) -> Vec<(String, String)> {
        let port = self.port;
        let http = format!("http://127.0.0.1:{port}");
        let socks = format!("socks5h://127.0.0.1:{port}");
        let local = "localhost,127.0.0.1,::1".to_string();
        let mut env = Vec::new();
        for (name, value) in
            [("HTTP_PROXY", &http), ("HTTPS_PROXY", &http), ("ALL_PROXY", &socks), ("NO_PROXY", &local)]
        {
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
}

impl Drop for Lease {
    fn drop(&mut self) {
        lock(&self.outlets.routes).remove(&self.port);
        let _ = self.outlets.keeper.close(self.port);
    }
}
