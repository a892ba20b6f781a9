//! The only way out of a command's network namespace under the network policy (issue 32):
//! inside the namespace, loopback brought up and a listener on a fixed port (a fresh namespace
//! has every port free, so the proxy variables can be set before the fork); a bridge process
//! that hands each connection accepted there, as a descriptor, to mewcode's proxy over a
//! socketpair made before the spawn. The proxy then serves it like any client: nothing is
//! relayed here and no buffer is kept.
//!
//! Invariant: `start` and everything it calls run in a forked child before exec: system calls
//! only, on stack values (see `child.rs`). The bridge process never execs and dies with its
//! parent (the parent-death signal), and the command's reaper kills it when the command is done.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// The port the bridge listens on inside every command's network namespace.
pub(crate) const BRIDGE_PORT: u16 = 3128;

/// The two ends of a bridge's channel: (mewcode's, the bridge's). Close-on-exec both: the
/// bridge never execs, and the command must not inherit either.
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

/// mewcode's side: the next connection the bridge accepted; None once the bridge is gone.
pub(crate) fn receive(channel: &OwnedFd) -> io::Result<Option<OwnedFd>> {
    let mut byte = [0u8; 1];
    let mut control = [0u64; 4];
    loop {
        let mut iov = libc::iovec { iov_base: byte.as_mut_ptr().cast(), iov_len: 1 };
        // SAFETY: msghdr points at the stack iovec and control buffer for the call's duration.
        let mut message: libc::msghdr = unsafe { std::mem::zeroed() };
        message.msg_iov = &mut iov;
        message.msg_iovlen = 1;
        message.msg_control = control.as_mut_ptr().cast();
        message.msg_controllen = std::mem::size_of_val(&control);
        // SAFETY: as above; the kernel writes at most msg_controllen bytes of control data.
        let received = unsafe { libc::recvmsg(channel.as_raw_fd(), &mut message, libc::MSG_CMSG_CLOEXEC) };
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
        // SAFETY: CMSG_FIRSTHDR reads the msghdr filled in above; the header and its data lie in
        // `control`, which the kernel bounded by msg_controllen.
        unsafe {
            let header = libc::CMSG_FIRSTHDR(&message);
            if !header.is_null() && (*header).cmsg_level == libc::SOL_SOCKET && (*header).cmsg_type == libc::SCM_RIGHTS
            {
                let fd = std::ptr::read_unaligned(libc::CMSG_DATA(header).cast::<libc::c_int>());
                return Ok(Some(OwnedFd::from_raw_fd(fd)));
            }
        }
        // A message without a descriptor: nothing to serve, wait for the next.
    }
}

/// Brings `lo` up in a fresh network namespace (SIOCSIFFLAGS on a datagram socket); a command
/// that cannot reach 127.0.0.1 would fail tests that start their own servers, and the network
/// bridge listens there.
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

/// In the forked child, inside the command's new network namespace with loopback up
/// (`loopback_up`): a listener on `127.0.0.1:port`, and the bridge process forked to
/// pass what it accepts over `channel`.
///
/// # Safety
/// Call only in a forked, single-threaded child before exec.
pub(crate) unsafe fn start(channel: RawFd, port: u16) -> io::Result<()> {
    // SAFETY (whole function): system calls on integers and on stack values.
    unsafe {
        let listener = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
        if listener < 0 {
            return Err(io::Error::last_os_error());
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
            return Err(io::Error::last_os_error());
        }
        let bridge = libc::fork();
        if bridge < 0 {
            return Err(io::Error::last_os_error());
        }
        if bridge == 0 {
            serve(listener, channel);
        }
        libc::close(listener);
        Ok(())
    }
}

/// The bridge process: accept, pass the descriptor, close it, until the channel's other end is
/// gone. Never returns.
///
/// # Safety
/// Post-fork, in the bridge process only.
unsafe fn serve(listener: RawFd, channel: RawFd) -> ! {
    // SAFETY: system calls on integers and stack values.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0);
        // Keep the two descriptors and nothing else: the command's output pipes must reach end
        // of file when the command is done, whatever the bridge is doing. Fresh numbers first,
        // so that neither copy can land on the other.
        let listener = libc::fcntl(listener, libc::F_DUPFD, 1000);
        let channel = libc::fcntl(channel, libc::F_DUPFD, 1000);
        if listener < 0 || channel < 0 {
            libc::_exit(1);
        }
        let (low, high) = (listener.min(channel) as u32, listener.max(channel) as u32);
        libc::syscall(libc::SYS_close_range, 0u32, low - 1, 0u32);
        if high > low + 1 {
            libc::syscall(libc::SYS_close_range, low + 1, high - 1, 0u32);
        }
        libc::syscall(libc::SYS_close_range, high + 1, u32::MAX, 0u32);
        loop {
            let connection = libc::accept4(listener, std::ptr::null_mut(), std::ptr::null_mut(), libc::SOCK_CLOEXEC);
            if connection < 0 {
                if *libc::__errno_location() == libc::EINTR {
                    continue;
                }
                libc::_exit(1);
            }
            let sent = send(channel, connection);
            libc::close(connection);
            if !sent {
                libc::_exit(0);
            }
        }
    }
}

/// Passes `fd` over `channel` (SCM_RIGHTS); false when the other end is gone.
///
/// # Safety
/// Post-fork: sendmsg on stack buffers.
unsafe fn send(channel: RawFd, fd: RawFd) -> bool {
    // SAFETY: msghdr, iovec and control buffer are stack values alive for the call; the CMSG
    // macros only compute addresses inside `control`.
    unsafe {
        let mut byte = [0u8; 1];
        let mut control = [0u64; 4];
        let mut iov = libc::iovec { iov_base: byte.as_mut_ptr().cast(), iov_len: 1 };
        let mut message: libc::msghdr = std::mem::zeroed();
        message.msg_iov = &mut iov;
        message.msg_iovlen = 1;
        message.msg_control = control.as_mut_ptr().cast();
        message.msg_controllen = libc::CMSG_SPACE(std::mem::size_of::<libc::c_int>() as u32) as _;
        let header = libc::CMSG_FIRSTHDR(&message);
        (*header).cmsg_level = libc::SOL_SOCKET;
        (*header).cmsg_type = libc::SCM_RIGHTS;
        (*header).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<libc::c_int>() as u32) as _;
        std::ptr::write_unaligned(libc::CMSG_DATA(header).cast::<libc::c_int>(), fd);
        loop {
            let sent = libc::sendmsg(channel, &message, libc::MSG_NOSIGNAL);
            if sent >= 0 {
                return true;
            }
            if *libc::__errno_location() != libc::EINTR {
                return false;
            }
        }
    }
}

#[cfg(test)]
#[path = "bridge_tests.rs"]
mod tests;
