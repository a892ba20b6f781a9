//! Tests of `bridge.rs`: a command in a network namespace of its own reaches the outside only
//! through the bridge's port, and what it sends there arrives at mewcode as a connection.

use super::*;
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

#[test]
fn a_connection_to_the_bridge_port_inside_the_namespace_arrives_here_as_a_descriptor() {
    let (ours, theirs) = channel().unwrap();
    let theirs_fd = theirs.as_raw_fd();
    let mut command = Command::new("bash");
    command
        .arg("-c")
        .arg(format!("exec 3<>/dev/tcp/127.0.0.1/{BRIDGE_PORT} && printf hi >&3 && cat <&3"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: the hook makes system calls only (unshare, and `start`'s own).
    unsafe {
        command.pre_exec(move || {
            if libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNET) != 0 {
                return Err(io::Error::last_os_error());
            }
            loopback_up()?;
            start(theirs_fd, BRIDGE_PORT)
        });
    }
    let child = match command.spawn() {
        Ok(child) => child,
        // A kernel without unprivileged user namespaces has nothing to show here.
        Err(err) if err.raw_os_error() == Some(libc::EPERM) => return,
        Err(err) => panic!("spawn: {err}"),
    };
    drop(theirs);
    let connection = receive(&ours).unwrap().expect("one connection");
    let mut stream = std::net::TcpStream::from(connection);
    let mut hello = [0u8; 2];
    stream.read_exact(&mut hello).unwrap();
    assert_eq!(&hello, b"hi");
    stream.write_all(b"back").unwrap();
    stream.shutdown(std::net::Shutdown::Write).unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout), "back", "{}", String::from_utf8_lossy(&output.stderr));
    // The command is gone, and so is the bridge: the channel ends.
    assert!(receive(&ours).unwrap().is_none());
}

#[test]
fn inside_the_namespace_nothing_else_is_reachable() {
    // The host's loopback is another namespace's: a server here is not there.
    let server = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = server.local_addr().unwrap().port();
    let (_ours, theirs) = channel().unwrap();
    let theirs_fd = theirs.as_raw_fd();
    let mut command = Command::new("bash");
    command.arg("-c").arg(format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo reached")).stdin(Stdio::null());
    // SAFETY: as above.
    unsafe {
        command.pre_exec(move || {
            if libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNET) != 0 {
                return Err(io::Error::last_os_error());
            }
            loopback_up()?;
            start(theirs_fd, BRIDGE_PORT)
        });
    }
    let output = match command.output() {
        Ok(output) => output,
        Err(err) if err.raw_os_error() == Some(libc::EPERM) => return,
        Err(err) => panic!("spawn: {err}"),
    };
    assert!(!String::from_utf8_lossy(&output.stdout).contains("reached"));
    assert!(!output.status.success());
}
