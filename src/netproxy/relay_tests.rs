//! Tests of `relay.rs`: the tunnel's half-close in each direction, over socket pairs, and a
//! refused upstream.

use super::*;
use std::io::Write;
use std::net::TcpListener;
use std::os::unix::net::UnixStream;

/// A tunnel between two socket pairs, on its own thread: the client's end and the upstream's end.
fn tunnel_between() -> (UnixStream, UnixStream, thread::JoinHandle<()>) {
    let (client_end, proxy_client) = UnixStream::pair().unwrap();
    let (proxy_upstream, upstream_end) = UnixStream::pair().unwrap();
    let running = thread::spawn(move || {
        let client = Conn::Unix(proxy_client);
        let upstream = Conn::Unix(proxy_upstream);
        tunnel(&mut BufReader::new(&client), &client, &upstream);
    });
    (client_end, upstream_end, running)
}

#[test]
fn the_client_ending_its_request_half_closes_the_upstream_which_still_answers() {
    let (mut client, mut upstream, running) = tunnel_between();
    client.write_all(b"request").unwrap();
    client.shutdown(Shutdown::Write).unwrap();
    let mut request = Vec::new();
    upstream.read_to_end(&mut request).unwrap();
    assert_eq!(request, b"request");
    upstream.write_all(b"answer after EOF").unwrap();
    drop(upstream);
    let mut answer = Vec::new();
    client.read_to_end(&mut answer).unwrap();
    assert_eq!(answer, b"answer after EOF");
    running.join().unwrap();
}

#[test]
fn the_upstream_ending_first_half_closes_the_client_which_may_still_send() {
    let (mut client, mut upstream, running) = tunnel_between();
    upstream.write_all(b"banner").unwrap();
    upstream.shutdown(Shutdown::Write).unwrap();
    let mut banner = Vec::new();
    client.read_to_end(&mut banner).unwrap();
    assert_eq!(banner, b"banner");
    client.write_all(b"late words").unwrap();
    drop(client);
    let mut late = Vec::new();
    upstream.read_to_end(&mut late).unwrap();
    assert_eq!(late, b"late words");
    running.join().unwrap();
}

#[test]
fn a_refused_port_is_refused_and_a_name_without_address_has_none() {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let refused = connect("127.0.0.1", port, Duration::from_secs(5)).unwrap_err();
    assert!(matches!(refused, Unreachable::Refused(_)), "{refused:?}");
    assert_eq!(refused.to_string(), format!("127.0.0.1 port {port} refused the connection"));
    // A name that cannot be resolved: `.invalid` is reserved (RFC 6761) and a resolver answers
    // from its own knowledge; a resolver that cannot be reached also fails the resolution.
    let nowhere = connect("nowhere.invalid", 80, Duration::from_secs(5)).unwrap_err();
    assert!(matches!(nowhere, Unreachable::NoAddress(_)), "{nowhere:?}");
}
