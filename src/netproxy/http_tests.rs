//! Tests of `http.rs` over loopback sockets: CONNECT tunnels, requests forwarded in origin-form,
//! denials the origin never sees, unreachable upstreams, malformed and slow requests.

use super::super::test_support::{
    Origin, allow_all, closed_port, deny, exchange, read_head_text, split_response, start, start_with,
};
use super::super::{Limits, Target, Verdict};
use crate::test_rng::XorShift;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

const OK: &[u8] =
    b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\n\r\nhello";

#[test]
fn connect_relays_a_mebibyte_of_random_bytes_unmodified_both_ways() {
    let origin = Origin::echo();
    let (_proxy, proxy) = start(allow_all());
    let mut client = TcpStream::connect(proxy).unwrap();
    write!(client, "CONNECT 127.0.0.1:{} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", origin.address.port()).unwrap();
    assert_eq!(read_head_text(&mut client), "HTTP/1.1 200 Connection established\r\n\r\n");
    let seed = 0x5eed_0032;
    println!("seed {seed:#x}");
    let mut rng = XorShift(seed);
    let sent: Vec<u8> = (0..1024 * 1024).map(|_| rng.next() as u8).collect();
    let mut writer = client.try_clone().unwrap();
    let to_send = sent.clone();
    let sender = thread::spawn(move || {
        writer.write_all(&to_send).unwrap();
        // Half-close: the echo server sees EOF through the tunnel, and ends its side in turn.
        writer.shutdown(Shutdown::Write).unwrap();
    });
    let mut echoed = Vec::new();
    client.read_to_end(&mut echoed).unwrap();
    sender.join().unwrap();
    assert!(echoed == sent, "the tunnel changed the bytes ({} echoed of {})", echoed.len(), sent.len());
    assert_eq!(origin.accepted(), 1);
}

#[test]
fn a_get_reaches_the_origin_in_origin_form_without_the_proxy_headers() {
    let origin = Origin::http(OK);
    let (_proxy, proxy) = start(allow_all());
    let request = format!(
        "GET http://LOCALHOST.:{}/path?q=1#fragment HTTP/1.1\r\nHost: elsewhere.example\r\nProxy-Connection: \
         keep-alive\r\nProxy-Authorization: Basic c2VjcmV0\r\nConnection: keep-alive, X-Hop\r\nX-Hop: 1\r\nUser-Agent: \
         test\r\n\r\n",
        origin.address.port()
    );
    let answer = exchange(TcpStream::connect(proxy).unwrap(), request.as_bytes());
    let (status, head, body) = split_response(&answer);
    assert_eq!((status, body.as_slice()), (200, &b"hello"[..]));
    assert!(head.contains("\r\nConnection: close\r\n"), "{head}");
    assert!(!head.contains("keep-alive") && !head.contains("Keep-Alive"), "{head}");
    let received = origin.received();
    let [request] = received.as_slice() else { panic!("{received:?}") };
    assert_eq!(request.head.start, "GET /path?q=1 HTTP/1.1");
    let names: Vec<&str> = request.head.headers.iter().map(|header| header.name.as_str()).collect();
    assert_eq!(names, ["Host", "User-Agent", "Connection"]);
    assert_eq!(request.header("Host"), [format!("localhost:{}", origin.address.port())]);
    assert_eq!(request.header("Connection"), ["close"]);
}

#[test]
fn posts_with_a_length_or_chunked_body_reach_the_origin_whole() {
    let origin = Origin::http(OK);
    let (_proxy, proxy) = start(allow_all());
    let port = origin.address.port();
    let length = format!("POST http://127.0.0.1:{port}/a HTTP/1.1\r\nContent-Length: 11\r\n\r\nhello world");
    let chunked = format!(
        "POST http://127.0.0.1:{port}/b HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;x=y\r\n \
         world\r\n0\r\nX-Sum: 1\r\n\r\n"
    );
    for request in [&length, &chunked] {
        let (status, _, body) = split_response(&exchange(TcpStream::connect(proxy).unwrap(), request.as_bytes()));
        assert_eq!((status, body.as_slice()), (200, &b"hello"[..]));
    }
    let received = origin.received();
    assert_eq!(received.len(), 2);
    assert_eq!(received[0].head.start, "POST /a HTTP/1.1");
    assert_eq!(received[0].body, b"hello world");
    assert_eq!(received[1].head.start, "POST /b HTTP/1.1");
    assert_eq!(received[1].header("Transfer-Encoding"), ["chunked"]);
    assert_eq!(received[1].body, b"5\r\nhello\r\n6;x=y\r\n world\r\n0\r\nX-Sum: 1\r\n\r\n");
}

#[test]
fn a_response_of_several_mebibytes_reaches_the_client_verbatim_by_length_or_until_close() {
    static BODY: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    let body = BODY.get_or_init(|| {
        let mut rng = XorShift(0x5eed_0b0d);
        (0..3 * 1024 * 1024 + 7).map(|_| rng.next() as u8).collect()
    });
    for length in [true, false] {
        let origin = Origin::serve(move |stream, _| {
            let mut stream = stream;
            read_head_text(&mut stream);
            let framing = if length { format!("Content-Length: {}\r\n", body.len()) } else { String::new() };
            write!(stream, "HTTP/1.1 200 OK\r\n{framing}\r\n").unwrap();
            stream.write_all(body).unwrap();
        });
        let (_proxy, proxy) = start(allow_all());
        let client = TcpStream::connect(proxy).unwrap();
        let request = format!("GET http://127.0.0.1:{}/big HTTP/1.1\r\n\r\n", origin.address.port());
        let (status, _, received) = split_response(&exchange(client, request.as_bytes()));
        assert_eq!(status, 200);
        assert!(received == *body, "the body changed on the way ({} of {} bytes)", received.len(), body.len());
    }
}

#[test]
fn expect_100_continue_gets_the_interim_response_before_the_body_is_sent() {
    let origin = Origin::serve(|stream, _| {
        let mut stream = stream;
        let head = read_head_text(&mut stream);
        assert!(head.contains("Expect: 100-continue"), "{head}");
        stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n").unwrap();
        let mut body = [0; 4];
        stream.read_exact(&mut body).unwrap();
        assert_eq!(&body, b"data");
        stream.write_all(b"HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n").unwrap();
    });
    let (_proxy, proxy) = start(allow_all());
    let mut client = TcpStream::connect(proxy).unwrap();
    let port = origin.address.port();
    write!(client, "PUT http://127.0.0.1:{port}/ HTTP/1.1\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
        .unwrap();
    assert_eq!(read_head_text(&mut client), "HTTP/1.1 100 Continue\r\n\r\n");
    let answer = exchange(client, b"data");
    assert!(answer.starts_with(b"HTTP/1.1 201 Created\r\n"), "{}", String::from_utf8_lossy(&answer));
}

#[test]
fn a_denied_host_gets_403_with_the_reason_and_the_origin_sees_nothing() {
    let origin = Origin::http(OK);
    let reason = "add it to sandbox.allow_hosts to allow it";
    let (proxy_handle, proxy) = start(deny("127.0.0.1", reason));
    let port = origin.address.port();
    for request in [
        format!("GET http://127.0.0.1:{port}/ HTTP/1.1\r\n\r\n"),
        format!("POST http://127.0.0.1:{port}/ HTTP/1.1\r\nContent-Length: 5\r\n\r\nabcde"),
        format!("CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\n"),
    ] {
        let (status, head, body) = split_response(&exchange(TcpStream::connect(proxy).unwrap(), request.as_bytes()));
        assert_eq!(status, 403, "{head}");
        assert_eq!(
            String::from_utf8(body).unwrap(),
            format!("mewcode: network access to 127.0.0.1 denied: {reason}\n")
        );
    }
    assert_eq!(origin.accepted(), 0);
    let decisions = proxy_handle.decisions();
    assert_eq!(decisions.iter().map(|decision| decision.count).sum::<u64>(), 3);
}

#[test]
fn an_unreachable_upstream_gives_502_with_the_reason() {
    let (_proxy, proxy) = start(allow_all());
    let port = closed_port();
    for request in
        [format!("GET http://127.0.0.1:{port}/ HTTP/1.1\r\n\r\n"), format!("CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\n")]
    {
        let (status, _, body) = split_response(&exchange(TcpStream::connect(proxy).unwrap(), request.as_bytes()));
        assert_eq!(status, 502);
        let body = String::from_utf8(body).unwrap();
        assert_eq!(
            body,
            format!("mewcode: cannot reach 127.0.0.1:{port}: 127.0.0.1 port {port} refused the connection\n")
        );
    }
}

#[test]
fn an_origin_that_answers_nonsense_gives_502() {
    let origin = Origin::serve(|stream, _| {
        let mut stream = stream;
        read_head_text(&mut stream);
        stream.write_all(b"SSH-2.0-OpenSSH_9.6\r\n\r\n").unwrap();
    });
    let (_proxy, proxy) = start(allow_all());
    let request = format!("GET http://127.0.0.1:{}/ HTTP/1.1\r\n\r\n", origin.address.port());
    let (status, _, body) = split_response(&exchange(TcpStream::connect(proxy).unwrap(), request.as_bytes()));
    assert_eq!(status, 502);
    assert!(String::from_utf8(body).unwrap().contains("sent no valid response: not an HTTP/1.x status line"));
}

#[test]
fn malformed_requests_get_400_and_are_never_decided() {
    let decided: Arc<dyn Fn(&Target) -> Verdict + Send + Sync> =
        Arc::new(|target: &Target| panic!("asked about {target:?}"));
    let (_proxy, proxy) = start(decided);
    let long_head = format!("GET http://a/ HTTP/1.1\r\n{}\r\n", "X-Pad: 0123456789abcdef\r\n".repeat(3000));
    for (request, why) in [
        ("hello\r\n\r\n", "not a request line"),
        ("GET /relative HTTP/1.1\r\nHost: a\r\n\r\n", "absolute form"),
        ("GET https://a/ HTTP/1.1\r\n\r\n", "CONNECT"),
        ("CONNECT a HTTP/1.1\r\n\r\n", "no port"),
        ("CONNECT a b:1 HTTP/1.1\r\n\r\n", "not a request line"),
        ("GET http://a/ HTTP/1.1\r\nbad header\r\n\r\n", "without a colon"),
        ("POST http://a/ HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", "ambiguous"),
        (long_head.as_str(), "64 KiB"),
        ("\u{16}\u{3}\u{1}\0\u{5}\r\n\r\n", "not text"),
    ] {
        let (status, _, body) = split_response(&exchange(TcpStream::connect(proxy).unwrap(), request.as_bytes()));
        let body = String::from_utf8(body).unwrap();
        assert_eq!(status, 400, "{request:?}");
        assert!(body.starts_with("mewcode: not a request this proxy serves: ") && body.contains(why), "{body}");
    }
}

#[test]
fn a_head_too_slow_to_arrive_gets_408_at_the_deadline() {
    let limits = Limits { head_timeout: Duration::from_millis(300), ..Limits::default() };
    let (_proxy, proxy) = start_with(limits, allow_all());
    let mut client = TcpStream::connect(proxy).unwrap();
    // Part of a head and then nothing: the proxy answers when the deadline passes.
    client.write_all(b"GET http://a/ HTTP/1.1\r\nHost: a\r\n").unwrap();
    let mut answer = Vec::new();
    client.read_to_end(&mut answer).unwrap();
    let (status, _, body) = split_response(&answer);
    assert_eq!((status, body.as_slice()), (408, &b"mewcode: the request did not arrive in time\n"[..]));
}
