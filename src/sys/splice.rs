//! `splice(2)` through a pipe: bytes moved from one socket to another inside the kernel, without
//! a copy to user space and back (the commands' proxy relays downloads this way).
//!
//! Invariant: each `unsafe` is one libc call on descriptors the caller borrows for its duration;
//! no memory of ours is passed. A pipe that still holds bytes is never reused for other bytes: a
//! move whose writing side fails gives the pipe up with the error.

use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};

/// What a pipe is asked to hold (1 MiB, the usual `/proc/sys/fs/pipe-max-size`).
const PIPE_BYTES: libc::c_int = 1024 * 1024;

/// The pipe a splice goes through.
pub(crate) struct Pipe {
    read: OwnedFd,
    write: OwnedFd,
}

impl Pipe {
    pub(crate) fn new() -> io::Result<Pipe> {
        let mut fds = [0; 2];
        // SAFETY: `fds` is an exclusively borrowed array of the two ints pipe2 writes.
        let rc = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: pipe2 succeeded: both descriptors are open and owned by nobody else.
        let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        // A larger pipe moves more per call (the default holds 64 KiB); refused above the
        // system's limit for unprivileged users, which is fine: the default still works.
        // SAFETY: fcntl on a descriptor we own, with an integer argument.
        let _ = unsafe { libc::fcntl(write.as_raw_fd(), libc::F_SETPIPE_SZ, PIPE_BYTES) };
        Ok(Pipe { read, write })
    }

    /// Moves up to `max` bytes from `from` to `to` (blocking on both); 0 at `from`'s end of file.
    /// An error of the first step (`from` into the pipe) left the pipe empty: `InvalidInput`
    /// there means these descriptors cannot be spliced, and the caller may copy instead.
    pub(crate) fn transfer(&self, from: BorrowedFd<'_>, to: BorrowedFd<'_>, max: usize) -> io::Result<usize> {
        let moved = splice(from, self.write.as_fd(), max)?;
        let mut left = moved;
        while left > 0 {
            match splice(self.read.as_fd(), to, left) {
                Ok(0) => return Err(io::Error::new(io::ErrorKind::WriteZero, "splice wrote nothing")),
                Ok(written) => left -= written,
                Err(err) => return Err(err),
            }
        }
        Ok(moved)
    }
}

fn splice(from: BorrowedFd<'_>, to: BorrowedFd<'_>, max: usize) -> io::Result<usize> {
    loop {
        // SAFETY: two borrowed, open descriptors; null offsets (both are streams, not files) and
        // plain integers: splice touches no memory of ours.
        let rc = unsafe {
            libc::splice(
                from.as_raw_fd(),
                std::ptr::null_mut(),
                to.as_raw_fd(),
                std::ptr::null_mut(),
                max,
                libc::SPLICE_F_MOVE,
            )
        };
        if rc >= 0 {
            return Ok(rc as usize);
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

#[cfg(test)]
#[path = "splice_tests.rs"]
mod tests;
