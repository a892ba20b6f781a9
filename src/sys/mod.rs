//! The only home of `unsafe`: process-group signals, process probes, raw terminal (termios)
//! calls, (in `child`, `landlock`, `seccomp`) how a command's process is started and confined,
//! (in `dir`) directories opened without following symlinks, and (in `splice`) bytes moved
//! between sockets inside the kernel, each wrapped in small safe functions.
//!
//! Invariant: every `unsafe` block in the crate is under `sys/`; here each is one libc call whose
//! pointer arguments are references to locals or to values we own, and its safety argument is
//! written next to it. Callers see ordinary functions returning `io::Result` or plain values.
//! This file decides nothing: what to kill and which terminal mode to use is the caller's business.
//!
//! - `mod.rs` — signals, process and id probes, readiness waits, the terminal (termios, its
//!   width), the UTC offset
//! - `child.rs` — how a command's process starts: its session, its reaper, its confinement
//! - `bridge.rs` — the way out of a command's network namespace: a port there, passed to the proxy
//! - `namespace.rs` — the namespaces and mounts that build a command's view
//! - `landlock.rs` — Landlock: the ABI probe, the rights per ABI, rulesets
//! - `seccomp.rs` — the hand-written BPF filter every confined command runs under
//! - `dir.rs` — a directory held by descriptor, reached and used without following links
//! - `splice.rs` — bytes moved between sockets inside the kernel (`splice` through a pipe)
//! - tests: each `x.rs` has its `x_tests.rs` (`child.rs` is exercised through `proc` and `confine`);
//!   `tests.rs` tests `mod.rs`
#![expect(
    unsafe_code,
    reason = "sys/ is the one home of unsafe (the crate denies it elsewhere): libc calls, each wrapped in a safe function"
)]

use std::io;

pub(crate) mod bridge;
pub(crate) mod child;
pub(crate) mod dir;
pub(crate) mod landlock;
pub(crate) mod namespace;
pub(crate) mod seccomp;
pub(crate) mod splice;

/// The write end of the pipe the termination handler writes the signal's number to (-1: none).
static TERMINATION_PIPE: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(-1);

extern "C" fn on_termination_signal(signal: libc::c_int) {
    let fd = TERMINATION_PIPE.load(std::sync::atomic::Ordering::Relaxed);
    if fd >= 0 {
        let byte = signal as u8;
        // SAFETY: write(2) is async-signal-safe; it reads one byte of the handler's stack.
        unsafe {
            libc::write(fd, (&byte as *const u8).cast(), 1);
        }
    }
}

/// Runs `then(signal)` on a thread of its own each time SIGTERM or SIGHUP arrives (their default
/// would end the process on the spot, the terminal left as it was and nothing said). The handler
/// only writes the signal's number to a pipe; `then` may do anything, exit included. Call once.
pub(crate) fn on_termination(then: impl Fn(i32) + Send + 'static) -> io::Result<()> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2 writes two descriptors into the stack array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let [read_end, write_end] = fds;
    TERMINATION_PIPE.store(write_end, std::sync::atomic::Ordering::Relaxed);
    std::thread::Builder::new().name("termination".to_string()).spawn(move || {
        let mut byte = 0u8;
        loop {
            // SAFETY: read(2) into a stack byte from the pipe this thread owns.
            let read = unsafe { libc::read(read_end, (&mut byte as *mut u8).cast(), 1) };
            if read == 1 {
                then(i32::from(byte));
            } else if read == 0 || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
                return;
            }
        }
    })?;
    for signal in [libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: sigaction with a zeroed struct whose handler is an extern "C" fn that only
        // makes an async-signal-safe write.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_termination_signal as *const () as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            if libc::sigaction(signal, &action, std::ptr::null_mut()) != 0 {
                return Err(io::Error::last_os_error());
            }
        }
    }
    Ok(())
}

/// Sends SIGKILL to every process in the process group `pgid`.
///
/// A group that no longer exists (ESRCH) is not an error: the goal, "nothing of it runs", holds.
/// `pgid` must be positive; 0 or negative would address our own group or every process we may
/// signal, so those are refused instead of passed to the kernel.
pub fn kill_process_group(pgid: u32) -> io::Result<()> {
    let pgid = signal_target(pgid)?;
    // SAFETY: killpg takes two integers and touches no memory of ours; pgid > 1 was checked.
    signal_result(unsafe { libc::killpg(pgid, libc::SIGKILL) })
}

/// Sends SIGTERM to one process (a command's reaper, which then ends the command's whole tree).
/// A process that is already gone is not an error; ids 0 and 1 are refused.
pub(crate) fn terminate(pid: u32) -> io::Result<()> {
    let pid = signal_target(pid)?;
    // SAFETY: kill takes two integers and touches no memory of ours; pid > 1 was checked.
    signal_result(unsafe { libc::kill(pid, libc::SIGTERM) })
}

/// A process (group) id we may signal: representable and above 1 (0, 1 and negative ids address
/// our own group, init or every process).
fn signal_target(id: u32) -> io::Result<libc::pid_t> {
    match libc::pid_t::try_from(id) {
        Ok(id) if id > 1 => Ok(id),
        _ => Err(io::Error::new(io::ErrorKind::InvalidInput, format!("refusing to signal process (group) {id}"))),
    }
}

/// A signal call's return code as a result; a target already gone (ESRCH) is success.
fn signal_result(rc: libc::c_int) -> io::Result<()> {
    if rc == 0 {
        return Ok(());
    }
    let err = io::Error::last_os_error();
    if err.raw_os_error() == Some(libc::ESRCH) { Ok(()) } else { Err(err) }
}

/// Makes mewcode non-dumpable: no core file, and a process of the same user without
/// CAP_SYS_PTRACE cannot read our memory or environment through /proc (the API keys live there).
pub(crate) fn make_non_dumpable() -> io::Result<()> {
    // SAFETY: prctl with integer arguments only.
    let rc = unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0 as libc::c_ulong, 0, 0, 0) };
    if rc == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
}

/// Our real user id (files we create belong to it).
pub fn current_uid() -> u32 {
    // SAFETY: getuid takes nothing, touches no memory and cannot fail.
    unsafe { libc::getuid() }
}

/// Our real group id.
pub(crate) fn current_gid() -> u32 {
    // SAFETY: getgid takes nothing, touches no memory and cannot fail.
    unsafe { libc::getgid() }
}

/// True when a process with this pid exists (it may be a zombie not yet reaped).
///
/// Uses `kill(pid, 0)`, which checks existence and permission without sending anything. EPERM
/// means the process exists but belongs to someone else, so it counts as alive.
pub fn process_exists(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if pid <= 0 {
        return false;
    }
    // SAFETY: kill with signal 0 takes two integers, touches no memory and sends no signal.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == 0 || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Waits up to `timeout` for `fd` to have something to read: bytes, end of file or a hang-up
/// (all `true`: a read will not block). `false` when nothing arrived in time, and also when `fd`
/// is not open at all (POLLNVAL: there is nothing to wait for).
pub(crate) fn wait_readable(fd: i32, timeout: std::time::Duration) -> io::Result<bool> {
    let mut pollfd = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
    let millis = libc::c_int::try_from(timeout.as_millis()).unwrap_or(libc::c_int::MAX);
    loop {
        // SAFETY: `pollfd` is one valid, exclusively borrowed pollfd; the count says 1.
        let rc = unsafe { libc::poll(&mut pollfd, 1, millis) };
        if rc >= 0 {
            return Ok(rc > 0 && pollfd.revents & libc::POLLNVAL == 0);
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

/// A saved terminal mode (a `termios`), to change and to restore later.
#[derive(Clone, Copy)]
pub(crate) struct TerminalMode {
    termios: libc::termios,
}

impl TerminalMode {
    /// The mode for reading one key: no line buffering and no echo, but signals kept (Ctrl-C
    /// still raises SIGINT, so an interrupt handler sees it), and `read` returns after at most
    /// 100 ms with nothing, so the reader can poll for an interrupt.
    pub(crate) fn single_key(&self) -> TerminalMode {
        let mut termios = self.termios;
        termios.c_lflag &= !(libc::ICANON | libc::ECHO);
        termios.c_lflag |= libc::ISIG;
        termios.c_cc[libc::VMIN] = 0;
        termios.c_cc[libc::VTIME] = 1;
        TerminalMode { termios }
    }

    /// The mode while the agent works: keys typed meanwhile are read as they come (no line
    /// buffering) and not echoed (they would scribble over the streamed answer); Enter stays a
    /// carriage return (no CR→NL), so it differs from Ctrl-J; signals kept; reads never wait.
    pub(crate) fn typeahead(&self) -> TerminalMode {
        let mut termios = self.termios;
        termios.c_lflag &= !(libc::ICANON | libc::ECHO);
        termios.c_lflag |= libc::ISIG;
        termios.c_iflag &= !libc::ICRNL;
        termios.c_cc[libc::VMIN] = 0;
        termios.c_cc[libc::VTIME] = 0;
        TerminalMode { termios }
    }
}

/// The current mode of the terminal on `fd`; an error when `fd` is not a terminal.
pub(crate) fn terminal_mode(fd: i32) -> io::Result<TerminalMode> {
    // SAFETY: an all-zero termios is a valid value of this plain C struct; tcgetattr overwrites it.
    let mut termios: libc::termios = unsafe { std::mem::zeroed() };
    // SAFETY: `termios` is a valid, exclusively borrowed termios for the duration of the call.
    let rc = unsafe { libc::tcgetattr(fd, &mut termios) };
    if rc == 0 { Ok(TerminalMode { termios }) } else { Err(io::Error::last_os_error()) }
}

/// Sets the mode of the terminal on `fd` at once.
pub(crate) fn set_terminal_mode(fd: i32, mode: &TerminalMode) -> io::Result<()> {
    // SAFETY: `mode.termios` is a valid termios borrowed for the duration of the call.
    let rc = unsafe { libc::tcsetattr(fd, libc::TCSANOW, &mode.termios) };
    if rc == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
}

/// Throws away input typed but not yet read on the terminal `fd` (keys pressed while output was
/// streaming must not answer the next question).
pub(crate) fn discard_pending_input(fd: i32) -> io::Result<()> {
    // SAFETY: tcflush takes two integers and touches no memory of ours.
    let rc = unsafe { libc::tcflush(fd, libc::TCIFLUSH) };
    if rc == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
}

/// The width in columns of the terminal on `fd` as the kernel has it now (it follows window
/// resizes); None when `fd` is not a terminal or reports no size.
pub(crate) fn terminal_columns(fd: i32) -> Option<usize> {
    let mut size = libc::winsize { ws_row: 0, ws_col: 0, ws_xpixel: 0, ws_ypixel: 0 };
    // SAFETY: TIOCGWINSZ writes one winsize into `size`, a valid, exclusively borrowed local.
    let rc = unsafe { libc::ioctl(fd, libc::TIOCGWINSZ, &mut size) };
    (rc == 0 && size.ws_col > 0).then(|| usize::from(size.ws_col))
}

/// The local time zone's offset from UTC, in seconds, at the instant `epoch_s` (seconds since
/// 1970). Session ids are written in local time (SPEC §8); when the zone cannot be read the
/// offset is 0, so ids fall back to UTC rather than failing.
pub(crate) fn local_utc_offset_s(epoch_s: i64) -> i64 {
    // Out of time_t's range (32-bit targets only) reads the zone at 1970: a close enough offset.
    let time = libc::time_t::try_from(epoch_s).unwrap_or(0);
    // SAFETY: an all-zero `tm` is a valid value of this plain C struct (integers and a pointer
    // that may be null); localtime_r only writes into it.
    let mut broken_down: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers are references to locals that outlive the call; localtime_r is the
    // re-entrant variant and keeps no pointer to either after returning.
    let result = unsafe { libc::localtime_r(&time, &mut broken_down) };
    if result.is_null() { 0 } else { broken_down.tm_gmtoff }
}

#[cfg(test)]
mod tests;
