//! Tests of `relay.rs`: the tunnel's half-close in each direction, over socket pairs, and a
//! refused upstream.

use super::*;
use std::io::Write;
use std::net::TcpListener;
use std::os::unix::net::UnixStream;
use std::time::Duration;

/// Limits as commands get them (names never reach this machine), with a 5 s connect.
fn limits() -> crate::netproxy::Limits {
    crate::netproxy::Limits { connect_timeout: Duration::from_secs(5), ..crate::netproxy::Limits::default() }
}

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
    let refused = connect("127.0.0.1", port, None, &limits()).unwrap_err();
    assert!(matches!(refused, Unreachable::Refused(_)), "{refused:?}");
    assert_eq!(refused.to_string(), format!("127.0.0.1 port {port} refused the connection"));
    // A name that cannot be resolved: `.invalid` is reserved (RFC 6761) and a resolver answers
    // from its own knowledge; a resolver that cannot be reached also fails the resolution.
    let nowhere = connect("nowhere.invalid", 80, None, &limits()).unwrap_err();
    assert!(matches!(nowhere, Unreachable::NoAddress(_)), "{nowhere:?}");
}

#[test]
fn a_name_never_leads_to_this_machine_or_its_link() {
    use std::net::IpAddr;
    let local = [
        "127.0.0.1",
        "127.9.9.9",
        "0.0.0.0",
        "169.254.169.254",
        "::1",
        "::",
        "fe80::1",
        "::ffff:127.0.0.1",
        "::ffff:169.254.169.254",
    ];
    for address in local {
        assert!(is_local_address(address.parse::<IpAddr>().unwrap()), "{address}");
    }
    for address in ["10.0.0.1", "192.168.1.1", "93.184.216.34", "2606:4700::1111", "::ffff:10.0.0.1", "fec0::1"] {
        assert!(!is_local_address(address.parse::<IpAddr>().unwrap()), "{address}");
    }
    // `localhost` is a name: refused, naming the address; the literal still connects (the
    // policy decides about literals).
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let refused = connect("localhost", port, None, &limits()).unwrap_err().to_string();
    assert!(refused.contains("localhost resolves to") && refused.contains("never connected there"), "{refused}");
    assert!(connect("127.0.0.1", port, None, &limits()).is_ok());
    let tests = crate::netproxy::Limits { local_names: true, ..limits() };
    assert!(connect("localhost", port, None, &tests).is_ok(), "the tests' own switch");
    // A name the user pinned to an address (MEWCODE_RESOLVE) goes there, local or not, without
    // being resolved.
    let pinned = Some(std::net::SocketAddr::from(([127, 0, 0, 1], port)));
    assert!(connect("registry.npmjs.org", 443, pinned, &limits()).is_ok());
    assert!(connect("nowhere.invalid", 80, pinned, &limits()).is_ok());
}
