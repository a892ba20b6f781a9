//! Tests of `head.rs`: heads read from bytes (bounds, line endings, what is malformed), request
//! lines and targets, host normalisation, hop-by-hop headers and body framing.

use super::*;
use std::io::Cursor;

fn read(bytes: &[u8]) -> Result<Option<Head>, HeadError> {
    read_head(&mut Cursor::new(bytes.to_vec()))
}

fn headers(fields: &[(&str, &str)]) -> Vec<Header> {
    fields.iter().map(|(name, value)| header(name, value)).collect()
}

#[test]
fn a_head_is_read_with_crlf_or_lf_endings_after_leading_empty_lines_and_leaves_the_body() {
    let mut stream =
        Cursor::new(b"\r\nGET http://a/ HTTP/1.1\r\nHost: a\nX-Empty:\r\nX-Pad:  v w \t\r\n\r\nbody".to_vec());
    let head = read_head(&mut stream).unwrap().unwrap();
    let expected = Head {
        start: "GET http://a/ HTTP/1.1".to_string(),
        headers: headers(&[("Host", "a"), ("X-Empty", ""), ("X-Pad", "v w")]),
    };
    assert_eq!(head, expected);
    let mut rest = String::new();
    stream.read_to_string(&mut rest).unwrap();
    assert_eq!(rest, "body");
}

#[test]
fn nothing_is_none_and_a_stream_ending_mid_head_is_truncated() {
    assert!(matches!(read(b""), Ok(None)));
    assert!(matches!(read(b"GET http://a/ HTTP/1.1\r\nHost: a\r\n"), Err(HeadError::Truncated)));
    assert!(matches!(read(b"GET http://a/ HT"), Err(HeadError::Truncated)));
}

#[test]
fn a_line_over_8_kib_or_a_head_over_64_kib_is_too_long_and_the_caps_themselves_fit() {
    let line = |length: usize| format!("X: {}\r\n", "v".repeat(length - 5));
    let fits = format!("GET http://a/ HTTP/1.1\r\n{}\r\n", line(MAX_LINE));
    assert!(read(fits.as_bytes()).unwrap().is_some());
    let long_line = format!("GET http://a/ HTTP/1.1\r\n{}\r\n", line(MAX_LINE + 1));
    assert!(matches!(read(long_line.as_bytes()), Err(HeadError::TooLong(why)) if why.contains("line")));
    let many = format!("GET http://a/ HTTP/1.1\r\n{}\r\n", line(1000).repeat(MAX_HEAD / 1000 + 1));
    assert!(matches!(read(many.as_bytes()), Err(HeadError::TooLong(why)) if why.contains("64 KiB")));
    let endless = "\r\n".repeat(MAX_HEAD);
    assert!(matches!(read(endless.as_bytes()), Err(HeadError::TooLong(_))));
}

#[test]
fn malformed_heads_say_why() {
    for (bytes, why) in [
        (&b"GET / HTTP/1.1\r\n folded\r\n\r\n"[..], "folded"),
        (b"GET / HTTP/1.1\r\nno colon\r\n\r\n", "without a colon"),
        (b"GET / HTTP/1.1\r\nBad Name: v\r\n\r\n", "bad header name"),
        (b"GET / HTTP/1.1\r\n: v\r\n\r\n", "bad header name"),
        (b"GET / HTTP/1.1\r\nX: a\x01b\r\n\r\n", "control bytes"),
        (b"GET /\xff HTTP/1.1\r\n\r\n", "not text"),
    ] {
        match read(bytes) {
            Err(HeadError::Malformed(message)) => assert!(message.contains(why), "{message} lacks {why}"),
            other => panic!("{bytes:?}: {other:?}"),
        }
    }
}

#[test]
fn request_lines_are_three_parts_of_http_1() {
    let line = parse_request_line("POST http://a/b HTTP/1.0").unwrap();
    let expected =
        RequestLine { method: "POST".to_string(), target: "http://a/b".to_string(), version: "HTTP/1.0".to_string() };
    assert_eq!(line, expected);
    for bad in ["GET http://a/", "GET  http://a/ HTTP/1.1", "GET http://a/ HTTP/2", "G(T http://a/ HTTP/1.1", "hello"] {
        assert!(parse_request_line(bad).is_err(), "{bad}");
    }
}

#[test]
fn absolute_urls_give_the_host_to_decide_on_and_the_origin_form() {
    let check = |url: &str, host: &str, port: u16, host_header: &str, path: &str| {
        let expected =
            Absolute { host: host.to_string(), port, host_header: host_header.to_string(), path: path.to_string() };
        assert_eq!(parse_absolute(url), Ok(expected), "{url}");
    };
    check("http://Example.COM./a/b?c=d#frag", "example.com", 80, "example.com", "/a/b?c=d");
    check("HTTP://example.com:8080", "example.com", 8080, "example.com:8080", "/");
    check("http://example.com?q", "example.com", 80, "example.com", "/?q");
    check("http://[::1]:81/x", "::1", 81, "[::1]:81", "/x");
    check("http://[0:0:0:0:0:0:0:1]/", "::1", 80, "[::1]", "/");
    check("http://10.0.0.1/", "10.0.0.1", 80, "10.0.0.1", "/");
    for (url, why) in [
        ("/relative", "absolute form"),
        ("https://example.com/", "CONNECT"),
        ("ftp://example.com/", "scheme"),
        ("http://user:pw@example.com/", "user info"),
        ("http://exa mple.com/", "not a host"),
        ("http:///path", "not a host"),
        ("http://example.com:0/", "bad port"),
        ("http://example.com:99999/", "bad port"),
        ("http://example.com:+80/", "bad port"),
        ("http://[::1/", "closing bracket"),
        ("http://::1/", "not a host"),
    ] {
        match parse_absolute(url) {
            Err(message) => assert!(message.contains(why), "{url}: {message} lacks {why}"),
            Ok(absolute) => panic!("{url}: {absolute:?}"),
        }
    }
}

#[test]
fn connect_authorities_need_a_port() {
    assert_eq!(parse_authority("GitHub.com:443", None), Ok(("github.com".to_string(), 443, true)));
    assert_eq!(parse_authority("[2001:DB8::1]:22", None), Ok(("2001:db8::1".to_string(), 22, true)));
    assert!(parse_authority("github.com", None).unwrap_err().contains("no port"));
    assert!(parse_authority("github.com:", None).unwrap_err().contains("no port"));
    assert!(parse_authority("[::1]x:22", None).unwrap_err().contains("bad authority"));
}

#[test]
fn hosts_are_lowercased_names_or_ip_literals() {
    for (raw, normal) in [
        ("Example.Com", "example.com"),
        ("example.com.", "example.com"),
        ("my_host-1.local", "my_host-1.local"),
        ("127.0.0.1", "127.0.0.1"),
        ("[::FFFF:127.0.0.1]", "::ffff:127.0.0.1"),
        ("::1", "::1"),
    ] {
        assert_eq!(normalize_host(raw).as_deref(), Ok(normal), "{raw}");
    }
    let long = format!("{}.com", "a".repeat(64));
    for bad in ["127.1", "2130706433", "0x7f.0.0.1", "127.0.0.01", "1.2.3.4.5", "256.0.0.1", "a.0x1"] {
        assert!(normalize_host(bad).unwrap_err().contains("dotted-quad"), "{bad}");
    }
    assert_eq!(normalize_host("1password.com").as_deref(), Ok("1password.com"));
    for bad in ["", ".", "a..b", "a/b", "a@b", "a b", "%61", "[::1", "[example.com]", "\u{e9}.com", long.as_str()] {
        assert!(normalize_host(bad).is_err(), "{bad}");
    }
}

#[test]
fn status_lines_give_their_code() {
    assert_eq!(parse_status("HTTP/1.1 200 OK"), Ok(200));
    assert_eq!(parse_status("HTTP/1.0 404"), Ok(404));
    for bad in ["HTTP/1.1 20 OK", "HTTP/2 200 OK", "ICY 200 OK", "HTTP/1.1 999 x", "HTTP/1.1"] {
        assert!(parse_status(bad).is_err(), "{bad}");
    }
}

#[test]
fn hop_by_hop_headers_and_those_connection_names_are_dropped_but_framing_stays() {
    let sent = headers(&[
        ("Host", "a"),
        ("Proxy-Connection", "keep-alive"),
        ("Proxy-Authorization", "Basic x"),
        ("Connection", "X-Secret, Content-Length, Keep-Alive"),
        ("Keep-Alive", "timeout=5"),
        ("TE", "trailers"),
        ("Upgrade", "websocket"),
        ("x-secret", "1"),
        ("Content-Length", "3"),
        ("Accept", "*/*"),
    ]);
    assert_eq!(end_to_end(&sent, &["host"]), headers(&[("Content-Length", "3"), ("Accept", "*/*")]));
}

#[test]
fn request_bodies_are_framed_by_length_or_chunks_and_ambiguity_is_refused() {
    assert_eq!(request_framing(&[]), Ok(Framing::Empty));
    assert_eq!(request_framing(&headers(&[("Content-Length", "12")])), Ok(Framing::Length(12)));
    assert_eq!(
        request_framing(&headers(&[("content-length", "5, 5"), ("Content-Length", "5")])),
        Ok(Framing::Length(5))
    );
    assert_eq!(request_framing(&headers(&[("Transfer-Encoding", "gzip, Chunked")])), Ok(Framing::Chunked));
    for (bad, why) in [
        (headers(&[("Content-Length", "5"), ("Transfer-Encoding", "chunked")]), "ambiguous"),
        (headers(&[("Content-Length", "5"), ("Content-Length", "6")]), "differing"),
        (headers(&[("Content-Length", "-1")]), "bad Content-Length"),
        (headers(&[("Content-Length", "+1")]), "bad Content-Length"),
        (headers(&[("Transfer-Encoding", "chunked, gzip")]), "not chunked"),
    ] {
        assert!(request_framing(&bad).unwrap_err().contains(why), "{bad:?}");
    }
}

#[test]
fn response_bodies_follow_rfc_9112() {
    let length = headers(&[("Content-Length", "7")]);
    let chunked = headers(&[("Transfer-Encoding", "chunked"), ("Content-Length", "7")]);
    assert_eq!(response_framing("GET", 200, &length), Ok(Framing::Length(7)));
    assert_eq!(response_framing("HEAD", 200, &length), Ok(Framing::Empty));
    assert_eq!(response_framing("GET", 204, &length), Ok(Framing::Empty));
    assert_eq!(response_framing("GET", 304, &length), Ok(Framing::Empty));
    assert_eq!(response_framing("GET", 100, &[]), Ok(Framing::Empty));
    assert_eq!(response_framing("GET", 200, &chunked), Ok(Framing::Chunked));
    assert_eq!(response_framing("GET", 200, &headers(&[("Transfer-Encoding", "gzip")])), Ok(Framing::UntilClose));
    assert_eq!(response_framing("GET", 200, &[]), Ok(Framing::UntilClose));
}

#[test]
fn a_head_renders_back_to_its_bytes() {
    let rendered = render_head("HTTP/1.1 200 OK", &headers(&[("A", "1"), ("B", "")]));
    assert_eq!(rendered, b"HTTP/1.1 200 OK\r\nA: 1\r\nB: \r\n\r\n");
}

#[test]
fn peer_bytes_are_shown_escaped_and_cut() {
    assert_eq!(shown(b"a\"b\x01\xff"), r#""a\"b\x01\xff""#);
    assert_eq!(shown("x".repeat(150).as_bytes()), format!("\"{}...\"", "x".repeat(100)));
}
