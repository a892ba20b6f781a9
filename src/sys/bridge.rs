//! The session's network namespace for commands: one keeper process, forked once, holds a user
//! and a network namespace with only loopback, which every command of the session joins (so a
//! background job's server is reachable by the next command, and no command pays for a
//! namespace of its own). It is also the namespace's only way out: on request it listens on a
//! port of that loopback for one command, and hands each connection accepted there to mewcode
//! as a descriptor with its port; mewcode's proxy for that command serves it. Nothing is relayed
//! here and no buffer is kept.
//!
//! Invariant: the keeper makes system calls only, on stack values (it is forked from a threaded
//! process and never execs, see `child.rs`). It dies with mewcode (the parent-death signal, from
//! the thread that waits for it for the whole session) and when its channel closes. Messages on
//! the channel are 8 bytes: kind, 0, the port (big-endian), an error number (little-endian).

use super::namespace::View;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// The first port the keeper listens on for a command; each command at once gets its own.
pub(crate) const FIRST_PORT: u16 = 3128;
/// Commands (and background jobs) with a way out at once.
pub(crate) const MAX_PORTS: usize = 64;
/// The error number of a port already taken (by a server a command started there).
pub(crate) const ADDRESS_IN_USE: i32 = libc::EADDRINUSE;

/// What the keeper says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Said {
    /// The namespaces exist; their descriptors (user, network) came with it.
    Ready,
    /// Listening on the port asked for.
    Listening(u16),
    /// Could not listen on the port (the error number).
    Refused(u16, i32),
    /// A connection to the port; its descriptor came with it.
    Accepted(u16),
}

/// The keeper as mewcode holds it: the channel and the namespaces to join.
#[derive(Debug)]
pub(crate) struct Keeper {
    channel: OwnedFd,
    user: OwnedFd,
    net: OwnedFd,
}

impl Keeper {
    /// Forks the keeper from a thread of its own (which waits for it), the namespaces built as
    /// `view` says (its `namespaces` must be user and network), and waits until it is ready.
    pub(crate) fn start(view: View) -> io::Result<Keeper> {
        let (ours, theirs) = channel()?;
        let (started_tx, started_rx) = std::sync::mpsc::channel::<io::Result<()>>();
        std::thread::Builder::new().name("net-keeper".to_string()).spawn(move || {
            // SAFETY: the child only makes system calls on `view` and `theirs` (prepared before
            // the fork) and never returns; the parent waits for it below.
            let pid = unsafe { libc::fork() };
            if pid == 0 {
                // SAFETY: in the forked child, as `keep` requires.
                unsafe { keep(theirs.as_raw_fd(), &view) }
            }
            drop(theirs);
            if pid < 0 {
                let _ = started_tx.send(Err(io::Error::last_os_error()));
                return;
            }
            let _ = started_tx.send(Ok(()));
            // Held for the session: the keeper's parent-death signal follows this thread.
            let mut status = 0;
            // SAFETY: waitpid on our own child with a stack status.
            while unsafe { libc::waitpid(pid, &mut status, 0) } < 0
                && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted
            {}
        })?;
        started_rx.recv().map_err(|_| io::Error::other("the keeper's thread ended"))??;
        match receive(&ours)? {
            Some((Said::Ready, mut fds)) if fds.len() == 2 => {
                let net = fds.pop().ok_or_else(|| io::Error::other("no network namespace"))?;
                let user = fds.pop().ok_or_else(|| io::Error::other("no user namespace"))?;
                Ok(Keeper { channel: ours, user, net })
            }
            _ => Err(io::Error::other("the network namespace could not be made")),
        }
    }

    /// The namespaces a command joins: (user, network).
    pub(crate) fn namespaces(&self) -> (RawFd, RawFd) {
        (self.user.as_raw_fd(), self.net.as_raw_fd())
    }

    /// Asks the keeper to listen on `port` (the answer comes through `receive`).
    pub(crate) fn listen(&self, port: u16) -> io::Result<()> {
        send_message(self.channel.as_raw_fd(), message(b'L', port, 0), None)
    }

    /// Asks the keeper to stop listening on `port`.
    pub(crate) fn close(&self, port: u16) -> io::Result<()> {
        send_message(self.channel.as_raw_fd(), message(b'C', port, 0), None)
    }

    /// A second descriptor of the channel, for the thread that reads what the keeper says
    /// (`receive`); it reaches the end when the keeper is dropped.
    pub(crate) fn reader(&self) -> io::Result<OwnedFd> {
        self.channel.try_clone()
    }
}

impl Drop for Keeper {
    fn drop(&mut self) {
        // Ends the channel for every descriptor of it: the keeper exits, the reader stops.
        // SAFETY: shutdown on a descriptor we own.
        unsafe {
            libc::shutdown(self.channel.as_raw_fd(), libc::SHUT_RDWR);
        }
    }
}

fn message(kind: u8, port: u16, errno: i32) -> [u8; 8] {
    let [high, low] = port.to_be_bytes();
    let [e0, e1, e2, e3] = errno.to_le_bytes();
    [kind, 0, high, low, e0, e1, e2, e3]
}

/// The two ends of a channel: (mewcode's, the keeper's). Close-on-exec both: the keeper never
/// execs, and no command may inherit either.
pub(crate) fn channel() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: socketpair writes two descriptors into the stack array.
    let result =
        unsafe { libc::socketpair(libc::AF_UNIX, libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC, 0, fds.as_mut_ptr()) };
    if result != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and are owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// One message from `channel` and the descriptors that came with it (at most two); None at the
/// end. A message of an unknown kind is skipped.
pub(crate) fn receive(channel: &OwnedFd) -> io::Result<Option<(Said, Vec<OwnedFd>)>> {
    loop {
        let mut bytes = [0u8; 8];
        let mut control = [0u64; 6];
        let mut iov = libc::iovec { iov_base: bytes.as_mut_ptr().cast(), iov_len: bytes.len() };
        // SAFETY: msghdr points at the stack iovec and control buffer for the call's duration.
        let mut header: libc::msghdr = unsafe { std::mem::zeroed() };
        header.msg_iov = &mut iov;
        header.msg_iovlen = 1;
        header.msg_control = control.as_mut_ptr().cast();
        header.msg_controllen = std::mem::size_of_val(&control);
        // SAFETY: as above; the kernel writes at most msg_controllen bytes of control data.
        let received = unsafe { libc::recvmsg(channel.as_raw_fd(), &mut header, libc::MSG_CMSG_CLOEXEC) };
        if received < 0 {
            let error = io::Error::last_os_error();
            if error.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(error);
        }
        if received == 0 {
            return Ok(None);
        }
        let mut fds = Vec::new();
        // SAFETY: the CMSG macros walk the control data the kernel wrote into `control`, bounded
        // by msg_controllen; each descriptor it passed is ours from now on.
        unsafe {
            let mut cmsg = libc::CMSG_FIRSTHDR(&header);
            while !cmsg.is_null() {
                if (*cmsg).cmsg_level == libc::SOL_SOCKET && (*cmsg).cmsg_type == libc::SCM_RIGHTS {
                    let data = libc::CMSG_DATA(cmsg).cast::<libc::c_int>();
                    let count =
                        ((*cmsg).cmsg_len as usize - libc::CMSG_LEN(0) as usize) / std::mem::size_of::<libc::c_int>();
                    for index in 0..count {
                        fds.push(OwnedFd::from_raw_fd(std::ptr::read_unaligned(data.add(index))));
                    }
                }
                cmsg = libc::CMSG_NXTHDR(&header, cmsg);
            }
        }
        let port = u16::from_be_bytes([bytes[2], bytes[3]]);
        let errno = i32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
        let said = match bytes[0] {
            b'R' => Said::Ready,
            b'O' => Said::Listening(port),
            b'E' => Said::Refused(port, errno),
            b'A' => Said::Accepted(port),
            _ => continue,
        };
        return Ok(Some((said, fds)));
    }
}

/// Sends `bytes`, with `fds` (SCM_RIGHTS) when given. Async-signal-safe: stack buffers only.
fn send_message(channel: RawFd, bytes: [u8; 8], fds: Option<&[RawFd]>) -> io::Result<()> {
    let mut bytes = bytes;
    let mut control = [0u64; 6];
    let mut iov = libc::iovec { iov_base: bytes.as_mut_ptr().cast(), iov_len: bytes.len() };
    // SAFETY: msghdr, iovec and control buffer are stack values alive for the call; the CMSG
    // macros only compute addresses inside `control` (room for two descriptors).
    unsafe {
        let mut header: libc::msghdr = std::mem::zeroed();
        header.msg_iov = &mut iov;
        header.msg_iovlen = 1;
        if let Some(fds) = fds.filter(|fds| !fds.is_empty() && fds.len() <= 2) {
            let size = std::mem::size_of_val(fds) as u32;
            header.msg_control = control.as_mut_ptr().cast();
            header.msg_controllen = libc::CMSG_SPACE(size) as _;
            let cmsg = libc::CMSG_FIRSTHDR(&header);
            (*cmsg).cmsg_level = libc::SOL_SOCKET;
            (*cmsg).cmsg_type = libc::SCM_RIGHTS;
            (*cmsg).cmsg_len = libc::CMSG_LEN(size) as _;
            let data = libc::CMSG_DATA(cmsg).cast::<libc::c_int>();
            for (index, fd) in fds.iter().enumerate() {
                std::ptr::write_unaligned(data.add(index), *fd);
            }
        }
        loop {
            if libc::sendmsg(channel, &header, libc::MSG_NOSIGNAL) >= 0 {
                return Ok(());
            }
            let error = io::Error::last_os_error();
            if error.kind() != io::ErrorKind::Interrupted {
                return Err(error);
            }
        }
    }
}

/// Brings `lo` up in a fresh network namespace (SIOCSIFFLAGS on a datagram socket): the keeper's
/// listeners and the commands' own servers live there.
///
/// # Safety
/// Child only: socket/ioctl/close on a stack struct.
pub(crate) unsafe fn loopback_up() -> io::Result<()> {
    // SAFETY: `ifreq` is a plain C struct on the stack, zeroed then filled; the ioctls read and
    // write only it.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let mut request: libc::ifreq = std::mem::zeroed();
        for (place, byte) in request.ifr_name.iter_mut().zip(b"lo\0") {
            *place = *byte as libc::c_char;
        }
        let mut result = libc::ioctl(fd, libc::SIOCGIFFLAGS, &mut request);
        if result == 0 {
            request.ifr_ifru.ifru_flags |= (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
            result = libc::ioctl(fd, libc::SIOCSIFFLAGS, &request);
        }
        let error = io::Error::last_os_error();
        libc::close(fd);
        if result != 0 {
            return Err(error);
        }
        Ok(())
    }
}

/// The keeper's life: the namespaces, the ready message with their descriptors, then listeners
/// opened and closed on request and each accepted connection passed on, until the channel ends.
///
/// # Safety
/// Call only in the forked child; never returns.
unsafe fn keep(channel: RawFd, view: &View) -> ! {
    // SAFETY (whole function): system calls on integers, on `view`'s prepared strings and on
    // stack values.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0);
        // Nothing but the channel: no pipe or terminal of mewcode's stays open in here.
        let channel = libc::fcntl(channel, libc::F_DUPFD_CLOEXEC, 1000);
        if channel < 0 {
            libc::_exit(1);
        }
        libc::syscall(libc::SYS_close_range, 0u32, (channel - 1) as u32, 0u32);
        libc::syscall(libc::SYS_close_range, (channel + 1) as u32, u32::MAX, 0u32);
        if super::namespace::enter(view).is_err() {
            libc::_exit(1);
        }
        let user = libc::open(c"/proc/self/ns/user".as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
        let net = libc::open(c"/proc/self/ns/net".as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
        if user < 0 || net < 0 || send_message(channel, message(b'R', 0, 0), Some(&[user, net])).is_err() {
            libc::_exit(1);
        }
        libc::close(user);
        libc::close(net);
        let mut ports = [0u16; MAX_PORTS];
        let mut listeners = [-1 as libc::c_int; MAX_PORTS];
        loop {
            let mut polls = [libc::pollfd { fd: -1, events: libc::POLLIN, revents: 0 }; MAX_PORTS + 1];
            polls[0].fd = channel;
            for (poll, listener) in polls[1..].iter_mut().zip(listeners) {
                poll.fd = listener;
            }
            if libc::poll(polls.as_mut_ptr(), polls.len() as libc::nfds_t, -1) < 0 {
                if *libc::__errno_location() == libc::EINTR {
                    continue;
                }
                libc::_exit(1);
            }
            if polls[0].revents != 0 {
                let mut bytes = [0u8; 8];
                let read = libc::recv(channel, bytes.as_mut_ptr().cast(), bytes.len(), 0);
                if read == 0 || (read < 0 && *libc::__errno_location() != libc::EINTR) {
                    libc::_exit(0);
                }
                let port = u16::from_be_bytes([bytes[2], bytes[3]]);
                match bytes[0] {
                    b'L' => {
                        let answer = match listen_on(port) {
                            Ok(listener) => match listeners.iter().position(|fd| *fd < 0) {
                                Some(slot) => {
                                    listeners[slot] = listener;
                                    ports[slot] = port;
                                    message(b'O', port, 0)
                                }
                                None => {
                                    libc::close(listener);
                                    message(b'E', port, libc::EMFILE)
                                }
                            },
                            Err(errno) => message(b'E', port, errno),
                        };
                        let _ = send_message(channel, answer, None);
                    }
                    b'C' => {
                        for slot in 0..MAX_PORTS {
                            if listeners[slot] >= 0 && ports[slot] == port {
                                libc::close(listeners[slot]);
                                listeners[slot] = -1;
                            }
                        }
                    }
                    _ => {}
                }
                continue;
            }
            for (slot, poll) in polls[1..].iter().enumerate() {
                if poll.revents & libc::POLLIN == 0 || listeners[slot] < 0 {
                    continue;
                }
                let connection =
                    libc::accept4(listeners[slot], std::ptr::null_mut(), std::ptr::null_mut(), libc::SOCK_CLOEXEC);
                if connection < 0 {
                    continue;
                }
                let sent = send_message(channel, message(b'A', ports[slot], 0), Some(&[connection]));
                libc::close(connection);
                if sent.is_err() {
                    libc::_exit(0);
                }
            }
        }
    }
}

/// A listener on `127.0.0.1:port` in the calling process's network namespace, or the error number.
///
/// # Safety
/// Post-fork: socket/setsockopt/bind/listen on stack values.
unsafe fn listen_on(port: u16) -> Result<libc::c_int, i32> {
    // SAFETY: as the function's contract says.
    unsafe {
        let listener = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
        if listener < 0 {
            return Err(*libc::__errno_location());
        }
        let address = libc::sockaddr_in {
            sin_family: libc::AF_INET as libc::sa_family_t,
            sin_port: port.to_be(),
            sin_addr: libc::in_addr { s_addr: u32::from_be_bytes([127, 0, 0, 1]).to_be() },
            sin_zero: [0; 8],
        };
        let length = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
        if libc::bind(listener, (&address as *const libc::sockaddr_in).cast(), length) != 0
            || libc::listen(listener, 128) != 0
        {
            let errno = *libc::__errno_location();
            libc::close(listener);
            return Err(errno);
        }
        Ok(listener)
    }
}

#[cfg(test)]
#[path = "bridge_tests.rs"]
mod tests;
