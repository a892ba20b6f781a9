//! Tests of `body.rs`: bodies relayed verbatim up to their end and no further, and bodies that end
//! early or are malformed.

use super::*;
use std::io::Cursor;

/// Relays a body from `bytes`: what was written, and what was left unread.
fn relay(bytes: &[u8], framing: Framing) -> io::Result<(Vec<u8>, Vec<u8>)> {
    let mut from = Cursor::new(bytes.to_vec());
    let mut to = Vec::new();
    relay_body(&mut from, &mut to, framing)?;
    let mut rest = Vec::new();
    from.read_to_end(&mut rest)?;
    Ok((to, rest))
}

#[test]
fn a_length_body_is_relayed_exactly_and_what_follows_is_left() {
    assert_eq!(relay(b"hello world", Framing::Length(5)).unwrap(), (b"hello".to_vec(), b" world".to_vec()));
    assert_eq!(relay(b"next", Framing::Empty).unwrap(), (Vec::new(), b"next".to_vec()));
    assert_eq!(relay(b"all of it", Framing::UntilClose).unwrap(), (b"all of it".to_vec(), Vec::new()));
}

#[test]
fn a_chunked_body_is_relayed_verbatim_with_extensions_and_trailers_up_to_its_end() {
    let body = b"5;name=value\r\nhello\r\nA \r\n0123456789\r\n0\r\nX-Trailer: 1\r\n\r\n";
    let mut bytes = body.to_vec();
    bytes.extend_from_slice(b"GET http://next/ HTTP/1.1\r\n");
    let (relayed, rest) = relay(&bytes, Framing::Chunked).unwrap();
    assert_eq!(relayed, body);
    assert_eq!(rest, b"GET http://next/ HTTP/1.1\r\n");
    let mut to = Vec::new();
    assert_eq!(relay_body(&mut Cursor::new(b"3\nabc\n0\n\n".to_vec()), &mut to, Framing::Chunked).unwrap(), 3);
    assert_eq!(to, b"3\nabc\n0\n\n");
}

#[test]
fn a_body_that_ends_early_is_an_error() {
    for (bytes, framing) in [
        (&b"abc"[..], Framing::Length(4)),
        (b"5\r\nabc", Framing::Chunked),
        (b"3\r\nabc\r\n", Framing::Chunked),
        (b"0\r\nX-Trailer: 1\r\n", Framing::Chunked),
    ] {
        let err = relay(bytes, framing).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof, "{bytes:?}: {err}");
    }
}

#[test]
fn a_malformed_chunked_body_is_an_error() {
    let long_line = format!("1{}\r\n", " ".repeat(MAX_LINE));
    let many_trailers = format!("0\r\n{}\r\n", "X: 1234567890\r\n".repeat(MAX_HEAD / 10));
    for bytes in [
        &b"x\r\n"[..],
        b"\r\n",
        b"-1\r\n",
        b"1234567890123456\r\n",
        b"3\r\nabcX\r\n0\r\n\r\n",
        long_line.as_bytes(),
        many_trailers.as_bytes(),
    ] {
        let err = relay(bytes, Framing::Chunked).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData, "{:?}: {err}", String::from_utf8_lossy(bytes));
    }
}

#[test]
fn bytes_move_between_sockets_buffered_ones_first_up_to_a_limit_or_the_end() {
    use std::os::unix::net::UnixStream;
    let (mut peer, socket) = UnixStream::pair().unwrap();
    let (to, mut receiver) = UnixStream::pair().unwrap();
    let (socket, to) = (Conn::Unix(socket), Conn::Unix(to));
    peer.write_all(b"held in the buffer|spliced|rest").unwrap();
    peer.shutdown(std::net::Shutdown::Write).unwrap();
    let mut from = BufReader::with_capacity(4, &socket);
    assert_eq!(from.fill_buf().unwrap(), b"held");
    // A limit within what the buffer holds: nothing is read from the socket.
    assert_eq!(move_between(&mut from, &socket, &to, Some(2)).unwrap(), 2);
    assert_eq!(move_between(&mut from, &socket, &to, Some(24)).unwrap(), 24);
    assert_eq!(move_between(&mut from, &socket, &to, None).unwrap(), 5);
    let err = move_between(&mut from, &socket, &to, Some(1)).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
    drop(to);
    let mut received = String::new();
    receiver.read_to_string(&mut received).unwrap();
    assert_eq!(received, "held in the buffer|spliced|rest");
}

#[test]
fn a_body_copied_to_the_client_is_verbatim_buffered_bytes_first_up_to_a_limit_or_the_end() {
    use std::os::unix::net::UnixStream;
    // Larger than the pump's largest buffer, so the buffer grows on the way and is reused full.
    let body: Vec<u8> = (0..3 * PUMP_MAX + 12345).map(|index| (index % 251) as u8).collect();
    let (mut peer, socket) = UnixStream::pair().unwrap();
    let (to, mut receiver) = UnixStream::pair().unwrap();
    let to = Conn::Unix(to);
    let sending = body.clone();
    let sender = std::thread::spawn(move || {
        peer.write_all(&sending).unwrap();
        peer.write_all(b"|after").unwrap();
        peer.shutdown(std::net::Shutdown::Write).unwrap();
    });
    let receiving = std::thread::spawn(move || {
        let mut received = Vec::new();
        receiver.read_to_end(&mut received).unwrap();
        received
    });
    let socket = Conn::Unix(socket);
    let mut from = BufReader::with_capacity(CHUNK, &socket);
    assert_eq!(from.fill_buf().unwrap()[0], 0, "some of the body is held in the reader's buffer");
    assert_eq!(copy_to_client(&mut from, &to, Some(body.len() as u64)).unwrap(), body.len() as u64);
    // What follows the body is not the body's: without a limit, everything up to the end.
    assert_eq!(copy_to_client(&mut from, &to, Some(1)).unwrap(), 1);
    assert_eq!(copy_to_client(&mut from, &to, None).unwrap(), 5);
    let early = copy_to_client(&mut from, &to, Some(1)).unwrap_err();
    assert_eq!(early.kind(), io::ErrorKind::UnexpectedEof);
    drop(to);
    sender.join().unwrap();
    let received = receiving.join().unwrap();
    let (copied, rest) = received.split_at(body.len());
    assert!(copied == body, "the copy changed the bytes");
    assert_eq!(rest, b"|after");
}

#[test]
fn a_pump_buffer_doubles_from_a_chunk_up_to_its_cap() {
    let mut buffer = vec![0; CHUNK];
    let mut sizes = Vec::new();
    for _ in 0..4 {
        grow(&mut buffer);
        sizes.push(buffer.len());
    }
    assert_eq!(sizes, [2 * CHUNK, PUMP_MAX, PUMP_MAX, PUMP_MAX]);
}
