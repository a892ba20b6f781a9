//! Tests of `bridge.rs`: the session's keeper makes its namespaces, listens on request, and what a
//! process that joined them sends to such a port arrives here as a descriptor with the port;
//! nothing else outside is reachable from in there.

use super::*;
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

/// A keeper, or None (said) where the kernel refuses unprivileged user namespaces.
fn keeper() -> Option<Keeper> {
    let view = super::super::namespace::keeper_view(super::super::current_uid(), super::super::current_gid());
    match Keeper::start(view) {
        Ok(keeper) => Some(keeper),
        Err(err) => {
            eprintln!("no user namespaces here: {err}");
            None
        }
    }
}

/// `bash -c script` inside the keeper's namespaces.
fn joined(keeper: &Keeper, script: &str) -> Command {
    let (user, net) = keeper.namespaces();
    let mut command = Command::new("bash");
    command.arg("-c").arg(script).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    // SAFETY: the hook makes two system calls on descriptors the keeper holds open.
    unsafe {
        command.pre_exec(move || {
            if libc::setns(user, libc::CLONE_NEWUSER) != 0 || libc::setns(net, libc::CLONE_NEWNET) != 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
    command
}

fn said(keeper: &Keeper) -> (Said, Vec<OwnedFd>) {
    receive(&keeper.channel).unwrap().expect("the keeper said something")
}

#[test]
fn a_connection_to_a_port_the_keeper_listens_on_arrives_here_with_its_port() {
    let Some(keeper) = keeper() else { return };
    let port = FIRST_PORT + 7;
    keeper.listen(port).unwrap();
    assert_eq!(said(&keeper).0, Said::Listening(port));
    let child =
        joined(&keeper, &format!("exec 3<>/dev/tcp/127.0.0.1/{port} && printf hi >&3 && cat <&3")).spawn().unwrap();
    let (what, mut fds) = said(&keeper);
    assert_eq!(what, Said::Accepted(port));
    let mut stream = std::net::TcpStream::from(fds.pop().unwrap());
    let mut hello = [0u8; 2];
    stream.read_exact(&mut hello).unwrap();
    assert_eq!(&hello, b"hi");
    stream.write_all(b"back").unwrap();
    stream.shutdown(std::net::Shutdown::Write).unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout), "back", "{}", String::from_utf8_lossy(&output.stderr));
    // Closed: the port leads nowhere any more.
    keeper.close(port).unwrap();
    let output = joined(&keeper, &format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo reached")).output().unwrap();
    assert!(!String::from_utf8_lossy(&output.stdout).contains("reached"));
}

#[test]
fn a_port_taken_in_the_namespace_is_refused_and_the_hosts_loopback_is_not_there() {
    let Some(keeper) = keeper() else { return };
    // A server a command started on a port, then the keeper asked for the same port.
    let port = FIRST_PORT + 9;
    let mut server = joined(&keeper, &format!("exec python3 -c 'import socket, sys; s = socket.socket(); s.bind((\"127.0.0.1\", {port})); s.listen(); print(\"up\", flush=True); sys.stdin.read()'"))
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let mut up = [0u8; 3];
    server.stdout.as_mut().unwrap().read_exact(&mut up).unwrap();
    keeper.listen(port).unwrap();
    assert_eq!(said(&keeper).0, Said::Refused(port, ADDRESS_IN_USE));
    drop(server.stdin.take());
    let _ = server.wait();
    // The host's loopback is another namespace's: a server here is not there.
    let host = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let host_port = host.local_addr().unwrap().port();
    let output = joined(&keeper, &format!("exec 3<>/dev/tcp/127.0.0.1/{host_port} && echo reached")).output().unwrap();
    assert!(!String::from_utf8_lossy(&output.stdout).contains("reached"));
    assert!(!output.status.success());
}

#[test]
fn dropping_the_keeper_ends_its_channel() {
    let Some(keeper) = keeper() else { return };
    let reader = keeper.reader().unwrap();
    drop(keeper);
    assert!(receive(&reader).unwrap().is_none());
}
