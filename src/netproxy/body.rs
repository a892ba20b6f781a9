//! A message body relayed verbatim, as its framing says: so many bytes, chunks up to the last one
//! and its trailers, or everything until the sender closes; the byte pump; and bytes moved from
//! socket to socket, toward the client through a buffer, toward the upstream inside the kernel
//! (`splice`), which tunnels and plain bodies use.
//!
//! Invariant: the bytes written are exactly the bytes read (chunk lines and trailers included), and
//! a relay reads nothing past the end of its body: what follows belongs to nobody. Chunk lines and
//! trailers are bounded like head lines; a body that ends early is an error, not a short success.
//!
//! Why two ways (measured with `bench/proxy.bench.sh`, issue 32): toward the client, the reader is
//! a command on this machine. Spliced bytes reach it in the sender's own pages, held (and gone cold
//! in the cache) across every buffer on the way, and the sender cannot reuse them; the same bytes
//! copied into the proxy's socket reach it in pages the kernel recycles while they are still in
//! the cache. The command's reading then costs about half the CPU, and a 100 MB download is a
//! quarter to a third faster although the proxy copies twice. Toward the upstream, the reader is a
//! network card: splicing spares the proxy both copies and costs nobody a read.

use super::conn::Conn;
use super::head::{Framing, MAX_HEAD, MAX_LINE};
use crate::sys::splice::Pipe;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::fd::AsFd;

/// How much one read of a relay asks for at first (and the capacity of the proxy's buffered
/// readers, so a read of a relay bypasses their buffer once it is empty).
pub(super) const CHUNK: usize = 256 * 1024;

/// What a pump's read asks for at most: its buffer doubles from `CHUNK` up to this while reads fill
/// it (a download), so a small body never costs the large buffer. Fewer, larger reads and writes;
/// the bench's 100 MB download goes faster with 1 MiB than with 256 KiB.
const PUMP_MAX: usize = 1024 * 1024;

/// How much one splice asks to move (what the kernel's pipe holds at most, usually).
const SPLICE_BYTES: u64 = 1024 * 1024;

/// Relays one body from `from` to `to`; the body's length in bytes (chunked: its data only).
pub(super) fn relay_body(from: &mut impl BufRead, to: &mut impl Write, framing: Framing) -> io::Result<u64> {
    match framing {
        Framing::Empty => Ok(0),
        Framing::Length(length) => exactly(from, to, length),
        Framing::UntilClose => pump(from, to),
        Framing::Chunked => chunked(from, to),
    }
}

/// Copies until `from` ends; the number of bytes copied.
pub(super) fn pump(from: &mut impl Read, to: &mut impl Write) -> io::Result<u64> {
    let mut buffer = vec![0; CHUNK];
    let mut total = 0;
    loop {
        let read = match from.read(&mut buffer) {
            Ok(0) => return Ok(total),
            Ok(read) => read,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        to.write_all(&buffer[..read])?;
        total += read as u64;
        if read == buffer.len() {
            grow(&mut buffer);
        }
    }
}

/// Doubles a full pump buffer, up to `PUMP_MAX`.
fn grow(buffer: &mut Vec<u8>) {
    let size = (buffer.len() * 2).min(PUMP_MAX);
    buffer.resize(size, 0);
}

/// Copies the body read through `from` (a buffered reader of a socket) to the client's socket `to`,
/// up to `limit` bytes (fewer is an error) or, without one, until the sender ends. A copy, not a
/// splice: see the module's doc for why toward the client.
pub(super) fn copy_to_client(from: &mut impl BufRead, to: &Conn, limit: Option<u64>) -> io::Result<u64> {
    copy_rest(from, to, limit, 0)
}

/// Moves bytes from the socket `socket` read through `from` to the socket `to` (the upstream):
/// first what `from` holds already, then inside the kernel (`splice`, no copy through user space),
/// up to `limit` bytes (fewer is an error) or, without one, until `socket` ends. Where the kernel
/// cannot splice these sockets, the bytes are copied.
pub(super) fn move_between<R: Read>(
    from: &mut BufReader<R>,
    socket: &Conn,
    to: &Conn,
    limit: Option<u64>,
) -> io::Result<u64> {
    let held = from.buffer();
    let first = limit.map_or(held.len(), |limit| held.len().min(usize::try_from(limit).unwrap_or(usize::MAX)));
    (&mut { to }).write_all(&held[..first])?;
    from.consume(first);
    let mut total = first as u64;
    let Ok(pipe) = Pipe::new() else { return copy_rest(from, to, limit, total) };
    loop {
        let want = limit.map_or(SPLICE_BYTES, |limit| (limit - total).min(SPLICE_BYTES));
        if want == 0 {
            return Ok(total);
        }
        match pipe.transfer(socket.as_fd(), to.as_fd(), want as usize) {
            Ok(0) => return limit.map_or(Ok(total), |limit| Err(ended_early(total, limit))),
            Ok(moved) => total += moved as u64,
            Err(err) if err.kind() == io::ErrorKind::InvalidInput => return copy_rest(from, to, limit, total),
            Err(err) => return Err(err),
        }
    }
}

/// `move_between`'s fallback: the rest copied through user space.
fn copy_rest(from: &mut impl BufRead, to: &Conn, limit: Option<u64>, done: u64) -> io::Result<u64> {
    let rest = match limit {
        Some(limit) => exactly(from, &mut { to }, limit - done)?,
        None => pump(from, &mut { to })?,
    };
    Ok(done + rest)
}

fn ended_early(copied: u64, length: u64) -> io::Error {
    io::Error::new(io::ErrorKind::UnexpectedEof, format!("the body ended after {copied} of {length} bytes"))
}

fn exactly(from: &mut impl BufRead, to: &mut impl Write, length: u64) -> io::Result<u64> {
    let copied = pump(&mut from.take(length), to)?;
    if copied < length {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("the body ended after {copied} of {length} bytes"),
        ));
    }
    Ok(copied)
}

fn chunked(from: &mut impl BufRead, to: &mut impl Write) -> io::Result<u64> {
    let mut total = 0;
    loop {
        let line = read_line(from)?;
        to.write_all(&line)?;
        let size = chunk_size(&line)?;
        if size == 0 {
            break;
        }
        exactly(from, to, size)?;
        let ending = read_line(from)?;
        if ending != b"\r\n" && ending != b"\n" {
            return Err(invalid("a chunk's data is not followed by a line ending"));
        }
        to.write_all(&ending)?;
        total += size;
    }
    // The trailer section: header lines up to an empty one, bounded like a head.
    let mut trailers = 0;
    loop {
        let line = read_line(from)?;
        to.write_all(&line)?;
        trailers += line.len();
        if line == b"\r\n" || line == b"\n" {
            return Ok(total);
        }
        if trailers > MAX_HEAD {
            return Err(invalid("the trailers of a chunked body are over 64 KiB"));
        }
    }
}

/// One line with its ending, at most `MAX_LINE` bytes.
fn read_line(from: &mut impl BufRead) -> io::Result<Vec<u8>> {
    let mut line = Vec::new();
    from.take(MAX_LINE as u64).read_until(b'\n', &mut line)?;
    if line.last() == Some(&b'\n') {
        return Ok(line);
    }
    if line.len() == MAX_LINE {
        return Err(invalid("a line of a chunked body is over 8 KiB"));
    }
    Err(io::Error::new(io::ErrorKind::UnexpectedEof, "a chunked body ended before its last chunk"))
}

/// The size of a chunk line `hex[;extensions]\r\n`.
fn chunk_size(line: &[u8]) -> io::Result<u64> {
    let text = std::str::from_utf8(line).map_err(|_| invalid("a chunk size line that is not text"))?;
    let digits = text.split(';').next().unwrap_or("").trim_matches([' ', '\t', '\r', '\n']);
    let valid = !digits.is_empty() && digits.len() <= 15 && digits.bytes().all(|byte| byte.is_ascii_hexdigit());
    match u64::from_str_radix(digits, 16) {
        Ok(size) if valid => Ok(size),
        _ => Err(invalid("a bad chunk size")),
    }
}

fn invalid(why: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, why.to_string())
}

#[cfg(test)]
#[path = "body_tests.rs"]
mod tests;
