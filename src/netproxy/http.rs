//! The HTTP side of the proxy: `CONNECT host:port` (200, then a tunnel) and absolute-form requests
//! (`GET http://host/path`, forwarded in origin-form, the response streamed back), and the
//! proxy's own answers: 400 for what is not a proxy request, 403 with the callback's reason, 502
//! when the upstream cannot be reached or answers nonsense, 408 for a head too slow to arrive.
//!
//! Invariant: the callback is asked only about a request that parsed whole (its head, its target
//! and its body's framing), and the upstream is connected only after `Allow`. One request per
//! client connection: the origin and the client both get `Connection: close`, hop-by-hop headers
//! are dropped, the origin's `Host` is the URL's authority (the one decided on), and the body is
//! relayed on its own thread while the response comes back (so `Expect: 100-continue` and early
//! answers work).

use super::body::{CHUNK, copy_to_client, move_between, relay_body};
use super::conn::{ClientReader, Conn};
use super::head::{
    Framing, HeadError, Header, RequestLine, end_to_end, header, parse_absolute, parse_authority, parse_request_line,
    parse_status, read_head, render_head, request_framing, response_framing,
};
use super::{Kind, Shared, Target, Verdict, relay};
use std::io::{self, BufReader, Read, Write};
use std::net::Shutdown;
use std::thread;
use std::time::{Duration, Instant};

type Client = BufReader<ClientReader>;

/// How long the proxy keeps reading (and discarding) a refused client's request before closing,
/// so that closing with unread bytes does not reset the connection before the answer is read.
const LINGER: Duration = Duration::from_secs(2);
/// At most this much of a refused request is read and discarded.
const LINGER_BYTES: u64 = 1024 * 1024;

/// Serves one HTTP connection whose first byte is waiting in `reader`.
pub(super) fn serve(reader: &mut Client, client: &Conn, shared: &Shared) {
    let head = match read_head(reader) {
        Ok(Some(head)) => head,
        Ok(None) | Err(HeadError::Truncated) => return,
        Err(HeadError::Io(err)) if is_timeout(&err) => {
            return refuse(reader, client, 408, "mewcode: the request did not arrive in time\n");
        }
        Err(HeadError::Io(_)) => return,
        Err(err @ (HeadError::TooLong(_) | HeadError::Malformed(_))) => return bad_request(reader, client, &err),
    };
    let line = match parse_request_line(&head.start) {
        Ok(line) => line,
        Err(why) => return bad_request(reader, client, &why),
    };
    if line.method == "CONNECT" {
        match parse_authority(&line.target, None) {
            Ok((host, port, _)) => connect(reader, client, shared, Target { host, port, kind: Kind::Connect }),
            Err(why) => bad_request(reader, client, &why),
        }
    } else {
        forward(reader, client, shared, &line, &head.headers);
    }
}

fn connect(reader: &mut Client, client: &Conn, shared: &Shared, target: Target) {
    let Some(upstream) = open(reader, client, shared, &target) else { return };
    if (&mut { client }).write_all(b"HTTP/1.1 200 Connection established\r\n\r\n").is_ok() {
        relay::tunnel(reader, client, &upstream);
    }
}

fn forward(reader: &mut Client, client: &Conn, shared: &Shared, line: &RequestLine, headers: &[Header]) {
    let (absolute, framing) = match parse_absolute(&line.target).and_then(|a| Ok((a, request_framing(headers)?))) {
        Ok(parsed) => parsed,
        Err(why) => return bad_request(reader, client, &why),
    };
    let target = Target { host: absolute.host.clone(), port: absolute.port, kind: Kind::Http };
    let Some(upstream) = open(reader, client, shared, &target) else { return };
    let mut forwarded = vec![header("Host", &absolute.host_header)];
    forwarded.extend(end_to_end(headers, &["host"]));
    forwarded.push(header("Connection", "close"));
    let head = render_head(&format!("{} {} {}", line.method, absolute.path, line.version), &forwarded);
    if (&mut { &upstream }).write_all(&head).is_err() {
        let body =
            format!("mewcode: {}:{} closed the connection before the request was sent\n", target.host, target.port);
        return refuse(reader, client, 502, &body);
    }
    if matches!(framing, Framing::Empty) {
        // No body to send alongside the response (most requests): no thread for one.
        respond(&upstream, client, &line.method, &target);
        client.shutdown(Shutdown::Both);
        upstream.shutdown(Shutdown::Both);
        return;
    }
    thread::scope(|scope| {
        let request_body = thread::Builder::new().name("netproxy-body".to_string()).spawn_scoped(scope, || {
            let sent = match framing {
                Framing::Length(length) => move_between(reader, client, &upstream, Some(length)),
                Framing::Empty | Framing::Chunked | Framing::UntilClose => {
                    relay_body(reader, &mut { &upstream }, framing)
                }
            };
            if sent.is_err() {
                // The client went away mid-body: the origin would wait for the rest forever.
                upstream.shutdown(Shutdown::Both);
            }
        });
        if request_body.is_ok() {
            respond(&upstream, client, &line.method, &target);
        }
        // The exchange is over: a body relay still waiting on the client stops with it.
        client.shutdown(Shutdown::Both);
        upstream.shutdown(Shutdown::Both);
    });
}

/// After the head: the decision, then the upstream connection. `None` when the client was
/// answered instead (403, 502) or went away.
fn open(reader: &mut Client, client: &Conn, shared: &Shared, target: &Target) -> Option<Conn> {
    // The decision may take as long as the person answering it; the client is not read meanwhile.
    reader.get_mut().set_deadline(None).ok()?;
    let at = match shared.decider.ask(target) {
        Verdict::Deny(reason) => {
            refuse(reader, client, 403, &format!("mewcode: network access to {} denied: {reason}\n", target.host));
            return None;
        }
        Verdict::Allow => None,
        Verdict::AllowAt(address) => Some(address),
    };
    match relay::connect(&target.host, target.port, at, &shared.limits) {
        Ok(upstream) => Some(Conn::Tcp(upstream)),
        Err(why) => {
            refuse(reader, client, 502, &format!("mewcode: cannot reach {}:{}: {why}\n", target.host, target.port));
            None
        }
    }
}

/// Streams the origin's response (interim 1xx heads, then the final one and its body) to the
/// client, without hop-by-hop headers; 502 if the origin's answer is not a response at all.
fn respond(upstream: &Conn, client: &Conn, method: &str, target: &Target) {
    let mut from = BufReader::with_capacity(CHUNK, upstream);
    let mut to = client;
    let mut sent = false;
    loop {
        let parsed = match read_head(&mut from) {
            Ok(Some(head)) => Ok(head),
            Ok(None) => Err("it closed the connection without a response".to_string()),
            Err(err) => Err(err.to_string()),
        }
        .and_then(|head| {
            let status = parse_status(&head.start)?;
            Ok((response_framing(method, status, &head.headers)?, status, head))
        });
        let (framing, status, head) = match parsed {
            Ok(parsed) => parsed,
            Err(why) if !sent => {
                let body = format!("mewcode: {}:{} sent no valid response: {why}\n", target.host, target.port);
                return answer(client, 502, &body);
            }
            Err(_) => return,
        };
        let mut headers = end_to_end(&head.headers, &[]);
        let interim = status < 200 && status != 101;
        if !interim {
            headers.push(header("Connection", "close"));
        }
        if to.write_all(&render_head(&head.start, &headers)).is_err() {
            return;
        }
        sent = true;
        if !interim {
            let _ = match framing {
                Framing::Length(length) => copy_to_client(&mut from, client, Some(length)),
                Framing::UntilClose => copy_to_client(&mut from, client, None),
                Framing::Empty | Framing::Chunked => relay_body(&mut from, &mut to, framing),
            };
            return;
        }
    }
}

fn bad_request(reader: &mut Client, client: &Conn, why: &dyn std::fmt::Display) {
    refuse(reader, client, 400, &format!("mewcode: not a request this proxy serves: {why}\n"));
}

/// Answers `status` with `body`, then closes after reading what the client still sends (bounded).
fn refuse(reader: &mut Client, client: &Conn, status: u16, body: &str) {
    answer(client, status, body);
    if reader.get_mut().set_deadline(Some(Instant::now() + LINGER)).is_ok() {
        let _ = io::copy(&mut reader.by_ref().take(LINGER_BYTES), &mut io::sink());
    }
}

/// Writes the proxy's own response and shuts the sending side.
fn answer(client: &Conn, status: u16, body: &str) {
    let reason = match status {
        400 => "Bad Request",
        403 => "Forbidden",
        408 => "Request Timeout",
        _ => "Bad Gateway",
    };
    let response = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = (&mut { client }).write_all(response.as_bytes());
    client.shutdown(Shutdown::Write);
}

/// A read that hit its deadline: `WouldBlock` is how a socket's read timeout reports it on Unix.
fn is_timeout(err: &io::Error) -> bool {
    matches!(err.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut)
}

#[cfg(test)]
#[path = "http_tests.rs"]
mod tests;
