//! One socket of the proxy, TCP or unix (the client's side may be either, an upstream is TCP), and
//! the client's reading half with the deadline of its header phase.
//!
//! Invariant: while a deadline is set, no read waits past it (each read's timeout is what is left
//! of it), so a client that trickles its header phase byte by byte is cut off all the same.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

/// A connected stream socket, read and written through shared references (as `&TcpStream` is), so
/// the two directions of a tunnel run on two threads without a lock.
pub(super) enum Conn {
    Tcp(TcpStream),
    Unix(UnixStream),
}

impl Conn {
    /// Another handle on the same socket (its writing half, while a buffered reader owns this one).
    pub(super) fn try_clone(&self) -> io::Result<Conn> {
        match self {
            Conn::Tcp(stream) => stream.try_clone().map(Conn::Tcp),
            Conn::Unix(stream) => stream.try_clone().map(Conn::Unix),
        }
    }

    /// Shuts one or both directions; a socket the peer already reset has nothing left to shut.
    pub(super) fn shutdown(&self, how: Shutdown) {
        let _ = match self {
            Conn::Tcp(stream) => stream.shutdown(how),
            Conn::Unix(stream) => stream.shutdown(how),
        };
    }

    /// Makes reads and writes fail rather than wait (for an answer that must never block).
    pub(super) fn set_nonblocking(&self) -> io::Result<()> {
        match self {
            Conn::Tcp(stream) => stream.set_nonblocking(true),
            Conn::Unix(stream) => stream.set_nonblocking(true),
        }
    }

    fn set_read_timeout(&self, timeout: Option<Duration>) -> io::Result<()> {
        match self {
            Conn::Tcp(stream) => stream.set_read_timeout(timeout),
            Conn::Unix(stream) => stream.set_read_timeout(timeout),
        }
    }
}

impl AsFd for Conn {
    fn as_fd(&self) -> BorrowedFd<'_> {
        match self {
            Conn::Tcp(stream) => stream.as_fd(),
            Conn::Unix(stream) => stream.as_fd(),
        }
    }
}

impl Read for &Conn {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Conn::Tcp(stream) => (&*stream).read(buf),
            Conn::Unix(stream) => (&*stream).read(buf),
        }
    }
}

impl Write for &Conn {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Conn::Tcp(stream) => (&*stream).write(buf),
            Conn::Unix(stream) => (&*stream).write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The client's reading half: reads time out at the deadline while one is set.
pub(super) struct ClientReader {
    conn: Conn,
    deadline: Option<Instant>,
}

impl ClientReader {
    /// Reads from `conn`, all of them done by `deadline`.
    pub(super) fn new(conn: Conn, deadline: Instant) -> ClientReader {
        ClientReader { conn, deadline: Some(deadline) }
    }

    /// A new deadline for the reads to come, or none: they wait as long as the peer takes.
    pub(super) fn set_deadline(&mut self, deadline: Option<Instant>) -> io::Result<()> {
        self.deadline = deadline;
        if deadline.is_none() {
            self.conn.set_read_timeout(None)?;
        }
        Ok(())
    }
}

impl Read for ClientReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(deadline) = self.deadline {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(io::Error::new(io::ErrorKind::TimedOut, "the request took too long to arrive"));
            }
            self.conn.set_read_timeout(Some(left))?;
        }
        (&self.conn).read(buf)
    }
}
