//! Tests of the proxy as a whole: a decision that waits holds up only its own connection, the
//! decision log, the unix-socket listener, the connection cap, a panicking callback, and the drop
//! that stops the accept loops.

use super::test_support::{
    Origin, allow_all, echo_through, exchange, read_head_text, split_response, start, start_with,
};
use super::*;
use crate::test_dir::TempDir;
use crossbeam_channel::{Receiver, Sender, bounded};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::net::UnixStream;

/// A callback that, for `held`, reports it was asked and then waits for a verdict on a channel;
/// every other host is allowed at once.
fn held_decision(held: &'static str) -> (Decide, Receiver<()>, Sender<Verdict>) {
    // bounded(1): one held connection per test; the test reads the report before answering.
    let (asked_tx, asked_rx) = bounded(1);
    let (verdict_tx, verdict_rx) = bounded::<Verdict>(1);
    let decide: Decide = Arc::new(move |target: &Target| {
        if target.host != held {
            return Verdict::Allow;
        }
        asked_tx.send(()).unwrap();
        verdict_rx.recv().unwrap()
    });
    (decide, asked_rx, verdict_tx)
}

#[test]
fn a_decision_that_waits_holds_up_only_its_own_connection() {
    let origin = Origin::echo();
    let (decide, asked, verdict) = held_decision("waiting.example");
    let (_proxy, proxy) = start(decide);
    let mut waiting = TcpStream::connect(proxy).unwrap();
    waiting.write_all(b"CONNECT waiting.example:443 HTTP/1.1\r\n\r\n").unwrap();
    asked.recv().unwrap();
    // While that one waits for its answer, another connection is decided, tunnelled and done.
    let mut other = TcpStream::connect(proxy).unwrap();
    write!(other, "CONNECT 127.0.0.1:{} HTTP/1.1\r\n\r\n", origin.address.port()).unwrap();
    assert_eq!(read_head_text(&mut other), "HTTP/1.1 200 Connection established\r\n\r\n");
    assert_eq!(echo_through(other, b"meanwhile"), b"meanwhile");
    verdict.send(Verdict::Deny("the person said no".to_string())).unwrap();
    let mut answer = Vec::new();
    waiting.read_to_end(&mut answer).unwrap();
    let (status, _, body) = split_response(&answer);
    assert_eq!(
        (status, body.as_slice()),
        (403, &b"mewcode: network access to waiting.example denied: the person said no\n"[..])
    );
}

#[test]
fn the_decision_log_counts_each_verdict_by_host_and_port() {
    let origin = Origin::http(b"HTTP/1.1 204 No Content\r\n\r\n");
    let decide: Decide = Arc::new(|target: &Target| match target.host.as_str() {
        "denied.example" => Verdict::Deny("not listed".to_string()),
        _ => Verdict::Allow,
    });
    let (proxy_handle, proxy) = start(decide);
    let port = origin.address.port();
    let allowed = format!("GET http://127.0.0.1:{port}/ HTTP/1.1\r\n\r\n");
    for request in [allowed.as_str(), "GET http://Denied.Example/ HTTP/1.1\r\n\r\n", allowed.as_str()] {
        exchange(TcpStream::connect(proxy).unwrap(), request.as_bytes());
    }
    let decision = |host: &str, port, verdict, count| Decision { host: host.to_string(), port, verdict, count };
    assert_eq!(
        proxy_handle.decisions(),
        [
            decision("127.0.0.1", port, Verdict::Allow, 2),
            decision("denied.example", 80, Verdict::Deny("not listed".to_string()), 1),
        ]
    );
}

#[test]
fn the_unix_socket_listener_serves_http_and_socks5_like_tcp() {
    let dir = TempDir::new("netproxy-unix");
    let path = dir.join("proxy.sock");
    let listen = Listen { tcp: None, unix: Some(path.clone()) };
    let proxy = Proxy::start(listen.clone(), Limits { local_names: true, ..Limits::default() }, allow_all()).unwrap();
    assert_eq!(proxy.listening(), &listen);
    let origin = Origin::http(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    let request = format!("GET http://127.0.0.1:{}/unix HTTP/1.1\r\n\r\n", origin.address.port());
    let (status, _, body) = split_response(&exchange(UnixStream::connect(&path).unwrap(), request.as_bytes()));
    assert_eq!((status, body.as_slice()), (200, &b"ok"[..]));
    assert_eq!(origin.received()[0].head.start, "GET /unix HTTP/1.1");

    let echo = Origin::echo();
    let mut socks = UnixStream::connect(&path).unwrap();
    let mut request = vec![0x05, 0x01, 0x00, 0x05, 0x01, 0x00, 0x01, 127, 0, 0, 1];
    request.extend_from_slice(&echo.address.port().to_be_bytes());
    socks.write_all(&request).unwrap();
    let mut replies = [0; 12];
    socks.read_exact(&mut replies).unwrap();
    assert_eq!(replies[..4], [0x05, 0x00, 0x05, 0x00]);
    assert_eq!(echo_through(socks, b"through unix"), b"through unix");
}

#[test]
fn beyond_the_cap_a_connection_gets_503_until_a_place_frees() {
    let (decide, asked, verdict) = held_decision("held.example");
    let (_proxy, proxy) = start_with(Limits { max_connections: 1, local_names: true, ..Limits::default() }, decide);
    let mut held = TcpStream::connect(proxy).unwrap();
    held.write_all(b"CONNECT held.example:443 HTTP/1.1\r\n\r\n").unwrap();
    asked.recv().unwrap();
    let mut busy = Vec::new();
    TcpStream::connect(proxy).unwrap().read_to_end(&mut busy).unwrap();
    let (status, _, body) = split_response(&busy);
    assert_eq!(status, 503);
    assert_eq!(body, b"mewcode: the proxy has too many connections open; try again\n");
    verdict.send(Verdict::Deny("no".to_string())).unwrap();
    // The held connection's answer, then its end: its place is free once its thread has ended.
    // The proxy shuts its side before that thread ends (the client cannot see the moment), so
    // the next connections may still find the place taken: ask until one is served.
    held.read_to_end(&mut Vec::new()).unwrap();
    drop(held);
    let status = (0..)
        .map(|_| split_response(&exchange(TcpStream::connect(proxy).unwrap(), b"GET / HTTP/1.1\r\n\r\n")).0)
        .find(|&status| status != 503)
        .unwrap();
    assert_eq!(status, 400);
}

#[test]
fn a_callback_that_panics_is_a_denial() {
    let origin = Origin::echo();
    let (proxy_handle, proxy) = start(Arc::new(|_: &Target| panic!("the policy broke")));
    let request = format!("CONNECT 127.0.0.1:{} HTTP/1.1\r\n\r\n", origin.address.port());
    let (status, _, body) = split_response(&exchange(TcpStream::connect(proxy).unwrap(), request.as_bytes()));
    assert_eq!(status, 403);
    assert!(String::from_utf8(body).unwrap().ends_with("denied: the network policy failed while deciding\n"));
    assert_eq!(origin.accepted(), 0);
    assert_eq!(proxy_handle.decisions().len(), 1);
}

#[test]
fn dropping_the_proxy_stops_its_accept_loops_and_removes_its_socket() {
    let dir = TempDir::new("netproxy-drop");
    let path = dir.join("proxy.sock");
    let listen = Listen { tcp: Some("127.0.0.1:0".parse().unwrap()), unix: Some(path.clone()) };
    let proxy = Proxy::start(listen, Limits::default(), allow_all()).unwrap();
    let address = proxy.listening().tcp.unwrap();
    assert!(TcpStream::connect(address).is_ok() && UnixStream::connect(&path).is_ok());
    // The drop joins both loops: once it returns, their listeners are closed.
    drop(proxy);
    assert_eq!(TcpStream::connect(address).unwrap_err().kind(), std::io::ErrorKind::ConnectionRefused);
    assert!(!path.exists());
}

#[test]
fn a_proxy_that_listens_nowhere_serves_the_connections_it_is_handed() {
    let origin = Origin::echo();
    let limits = Limits { local_names: true, ..Limits::default() };
    let proxy = Proxy::start(Listen::default(), limits, allow_all()).unwrap();
    assert_eq!(proxy.listening(), &Listen::default());
    // A connection accepted elsewhere (as a command's bridge accepts one in its namespace).
    let elsewhere = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let mut client = TcpStream::connect(elsewhere.local_addr().unwrap()).unwrap();
    proxy.serve(elsewhere.accept().unwrap().0);
    let port = origin.address.port();
    client
        .write_all(format!("CONNECT localhost:{port} HTTP/1.1\r\nHost: localhost:{port}\r\n\r\n").as_bytes())
        .unwrap();
    assert!(read_head_text(&mut client).starts_with("HTTP/1.1 200"));
    assert_eq!(echo_through(client, b"through the bridge"), b"through the bridge");
    assert_eq!(proxy.decisions().len(), 1);
}

#[test]
fn a_proxy_needs_a_free_place() {
    let (_first, address) = start(allow_all());
    let taken = Listen { tcp: Some(address), unix: None };
    let busy = Proxy::start(taken, Limits::default(), allow_all()).err().unwrap();
    assert_eq!(busy.kind(), std::io::ErrorKind::AddrInUse);
}
