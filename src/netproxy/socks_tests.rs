//! Tests of `socks.rs` over loopback sockets: CONNECT by name, IPv4 and IPv6 address, and the
//! reply codes of a denial, an unreachable upstream and what is not offered.

use super::super::test_support::{Origin, allow_all, closed_port, deny, echo_through, start};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};

/// Negotiates no authentication and sends a CONNECT with `address` (type byte first); the reply's
/// code, and the stream to tunnel through when it is 0.
fn socks_connect(proxy: SocketAddr, address: &[u8], port: u16) -> (u8, TcpStream) {
    let mut stream = TcpStream::connect(proxy).unwrap();
    stream.write_all(&[0x05, 0x01, 0x00]).unwrap();
    let mut choice = [0; 2];
    stream.read_exact(&mut choice).unwrap();
    assert_eq!(choice, [0x05, 0x00]);
    let mut request = vec![0x05, 0x01, 0x00];
    request.extend_from_slice(address);
    request.extend_from_slice(&port.to_be_bytes());
    stream.write_all(&request).unwrap();
    let mut reply = [0; 4];
    stream.read_exact(&mut reply).unwrap();
    let address_length = if reply[3] == 0x04 { 16 } else { 4 };
    let mut bound = vec![0; address_length + 2];
    stream.read_exact(&mut bound).unwrap();
    assert_eq!((reply[0], reply[2]), (0x05, 0x00));
    (reply[1], stream)
}

fn domain(name: &str) -> Vec<u8> {
    let mut address = vec![0x03, name.len() as u8];
    address.extend_from_slice(name.as_bytes());
    address
}

#[test]
fn socks5_connects_to_a_domain_name_and_to_an_ipv4_address() {
    let origin = Origin::echo();
    let (proxy_handle, proxy) = start(allow_all());
    let port = origin.address.port();
    for address in [domain("LocalHost."), vec![0x01, 127, 0, 0, 1]] {
        let (code, stream) = socks_connect(proxy, &address, port);
        assert_eq!(code, 0x00);
        assert_eq!(echo_through(stream, b"SSH-2.0-git\r\n\x00\xff"), b"SSH-2.0-git\r\n\x00\xff");
    }
    assert_eq!(origin.accepted(), 2);
    let hosts: Vec<(String, u16)> =
        proxy_handle.decisions().into_iter().map(|decision| (decision.host, decision.port)).collect();
    assert_eq!(hosts, [("localhost".to_string(), port), ("127.0.0.1".to_string(), port)]);
}

#[test]
fn socks5_connects_to_an_ipv6_address() {
    // A machine without IPv6 loopback has nothing to connect to: the test has nothing to show.
    let Ok(listener) = TcpListener::bind("[::1]:0") else { return };
    let port = listener.local_addr().unwrap().port();
    let (proxy_handle, proxy) = start(allow_all());
    let mut address = vec![0x04];
    address.extend_from_slice(&std::net::Ipv6Addr::LOCALHOST.octets());
    let (code, mut stream) = socks_connect(proxy, &address, port);
    assert_eq!(code, 0x00);
    let (mut accepted, _) = listener.accept().unwrap();
    accepted.write_all(b"over v6").unwrap();
    drop(accepted);
    let mut received = Vec::new();
    stream.read_to_end(&mut received).unwrap();
    assert_eq!(received, b"over v6");
    assert_eq!(proxy_handle.decisions()[0].host, "::1");
}

#[test]
fn a_denied_target_gets_reply_2_and_the_origin_sees_nothing() {
    let origin = Origin::echo();
    let (_proxy, proxy) = start(deny("127.0.0.1", "not on the list"));
    let (code, _) = socks_connect(proxy, &[0x01, 127, 0, 0, 1], origin.address.port());
    assert_eq!(code, 0x02);
    assert_eq!(origin.accepted(), 0);
}

#[test]
fn an_upstream_that_refuses_gets_reply_5() {
    let (_proxy, proxy) = start(allow_all());
    let (code, _) = socks_connect(proxy, &[0x01, 127, 0, 0, 1], closed_port());
    assert_eq!(code, 0x05);
}

#[test]
fn a_bad_name_gets_reply_4_and_is_never_decided() {
    let (proxy_handle, proxy) = start(allow_all());
    let (code, _) = socks_connect(proxy, &domain("no such/host"), 22);
    assert_eq!(code, 0x04);
    assert!(proxy_handle.decisions().is_empty());
}

#[test]
fn what_is_not_offered_is_refused_with_its_code() {
    let (proxy_handle, proxy) = start(allow_all());
    // Username and password only: no acceptable method.
    let mut stream = TcpStream::connect(proxy).unwrap();
    stream.write_all(&[0x05, 0x01, 0x02]).unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    assert_eq!(answer, [0x05, 0xFF]);
    // BIND (command 2) to an IPv4 address: command not supported; address type 9 (of unknown
    // length, so nothing follows it): not supported.
    let bind = [0x05, 0x01, 0x00, 0x05, 0x02, 0x00, 0x01, 127, 0, 0, 1, 0, 22];
    let unknown_type = [0x05, 0x01, 0x00, 0x05, 0x01, 0x00, 0x09];
    for (request, code) in [(&bind[..], 0x07), (&unknown_type[..], 0x08)] {
        let mut stream = TcpStream::connect(proxy).unwrap();
        stream.write_all(request).unwrap();
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).unwrap();
        assert_eq!(answer[..4], [0x05, 0x00, 0x05, code]);
    }
    assert!(proxy_handle.decisions().is_empty());
}
