//! How a command's process starts: a session of its own (no controlling terminal), a reaper that
//! outlives it just long enough to kill everything it left behind, and, for the command itself,
//! the confinement (the namespace view, limits, no new privileges, Landlock, seccomp) installed
//! right before `exec`.
//!
//! The tree, for `bash -c CMD`:
//! ```text
//! mewcode ── reaper (forked by std's spawn; setsid; subreaper; never execs; with the view: joins
//!            │       the command's control groups, enters new user, pid and IPC namespaces, or
//!            │       joins the session's user and network namespaces (`bridge.rs`) and enters
//!            │       new pid and IPC ones)
//!            └── bash -c CMD (forked by the reaper; pid 1 of the new pid namespace; its own mount
//!                             namespace holds the view; confined; then its children ...)
//! ```
//! With the view, the command's pid namespace also ends everything in it when bash (its pid 1)
//! exits, and nothing inside can name the reaper or mewcode.
//! The reaper is a subreaper, so every descendant that outlives its parent (a daemon that
//! double-forked and called setsid) becomes its child. When bash ends, or when mewcode sends
//! the reaper SIGTERM (timeout, cancel), it kills every child it has, again and again, until it
//! has none, then exits with bash's status; if mewcode dies first, the parent-death signal
//! (SIGTERM) does the same. The reaper stays outside the command's Landlock domain, so (with
//! ABI 6) the command can neither signal it nor read its memory or environment.
//!
//! Invariant: the code after `fork` (everything in this file's closures) only makes system
//! calls: no allocation, no locks (the parent has other threads; a lock held by one of them at
//! fork time is never released in the child). It works on stack buffers only.

use super::seccomp::Instruction;
use std::io;
use std::os::unix::process::CommandExt;
use std::process::Command;

const PR_SET_PDEATHSIG: libc::c_int = 1;
const PR_SET_SECCOMP: libc::c_int = 22;
const PR_CAPBSET_DROP: libc::c_int = 24;
const PR_SET_CHILD_SUBREAPER: libc::c_int = 36;
const PR_SET_NO_NEW_PRIVS: libc::c_int = 38;
const SECCOMP_MODE_FILTER: libc::c_ulong = 2;
const CLOSE_RANGE_CLOEXEC: libc::c_uint = 1 << 2;

/// Capabilities a command running as root loses (from its bounding set, so `exec` cannot give
/// them back): reading other processes' memory, handles that bypass paths, mounts and the
/// kernel's own switches. Landlock already forbids most of what they allow; this is the belt.
const DROPPED_CAPABILITIES: [libc::c_ulong; 12] = [
    2,  // CAP_DAC_READ_SEARCH: open_by_handle_at reaches files by handle, not by path
    16, // CAP_SYS_MODULE
    17, // CAP_SYS_RAWIO
    19, // CAP_SYS_PTRACE: read the memory and environment of other processes
    21, // CAP_SYS_ADMIN: mount, TIOCSTI on any terminal, and much more
    22, // CAP_SYS_BOOT
    25, // CAP_SYS_TIME
    27, // CAP_MKNOD
    12, // CAP_NET_ADMIN
    38, // CAP_PERFMON
    39, // CAP_BPF
    40, // CAP_CHECKPOINT_RESTORE
];

/// The confinement of one command, prepared in the parent.
pub struct Confinement {
    /// A Landlock ruleset to enforce (the descriptor stays open while the `Command` lives).
    pub ruleset: Option<std::sync::Arc<super::landlock::Ruleset>>,
    /// A seccomp program to install.
    pub filter: Option<Vec<Instruction>>,
    /// The namespace view, with the Landlock layer built inside it (then `ruleset` is None).
    pub view: Option<Box<ViewSetup>>,
}

/// A command's namespaces and what it gets inside them.
#[derive(Debug)]
pub struct ViewSetup {
    pub(crate) view: super::namespace::View,
    pub(crate) landlock: Option<super::landlock::LatePlan>,
    pub(crate) limits: Limits,
    /// Control groups for the caps the rlimits cannot give (root's process count, memory).
    pub(crate) groups: Option<Groups>,
}

/// The control groups one command's reaper joins (before it forks the command, so everything
/// the command starts is counted); removed when dropped, once the command is over.
#[derive(Debug, Default)]
pub(crate) struct Groups {
    dirs: Vec<std::path::PathBuf>,
    procs: Vec<std::ffi::CString>,
}

impl Groups {
    pub(crate) fn add(&mut self, dir: std::path::PathBuf, procs: std::ffi::CString) {
        self.dirs.push(dir);
        self.procs.push(procs);
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.dirs.is_empty()
    }

    /// Child: moves the calling process into every group (`0` written to `cgroup.procs` means
    /// "me").
    ///
    /// # Safety
    /// Call only in a forked child: open/write/close on the prepared strings.
    unsafe fn join(&self) -> io::Result<()> {
        for procs in &self.procs {
            // SAFETY: open/write/close on a NUL-terminated string owned by `self`.
            unsafe {
                let fd = libc::open(procs.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
                if fd < 0 {
                    return Err(io::Error::last_os_error());
                }
                let written = libc::write(fd, b"0".as_ptr().cast(), 1);
                let error = io::Error::last_os_error();
                libc::close(fd);
                if written != 1 {
                    return Err(error);
                }
            }
        }
        Ok(())
    }
}

impl Drop for Groups {
    fn drop(&mut self) {
        // Empty once the reaper and everything under it are gone; a group still busy (a zombie
        // not yet reaped) is removed as stale at a later start.
        for dir in &self.dirs {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// Resource limits of one command (None: unlimited).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Limits {
    /// Processes (and threads) at once: `RLIMIT_NPROC`, counted per user namespace, so per command.
    pub processes: Option<u64>,
    /// Writable memory of each process: `RLIMIT_DATA` (what a process made writable, not what it
    /// only reserved: runtimes that reserve large address ranges, V8's or the JVM's, still start).
    pub memory: Option<u64>,
}

/// The exit code of a command whose view could not be built (its stderr says why).
const SETUP_FAILED: libc::c_int = 126;

/// Prepares `command` to start as described in the module doc: its own session and a reaper,
/// and `confinement` (None = unconfined, `sandbox: off`) applied to the command alone. The
/// caller must not also ask for a process group (the session is one).
pub fn spawn_setup(command: &mut Command, confinement: Option<Confinement>) {
    let hook = move || -> io::Result<()> {
        // SAFETY (whole closure): runs in the forked child before exec; every call below is a
        // plain system call on integers or on pointers to data owned by this closure or the stack.
        unsafe {
            let parent = libc::getppid();
            if libc::setsid() < 0 {
                return Err(io::Error::last_os_error());
            }
            // Nothing but stdin/stdout/stderr reaches the command: no stray descriptor (a terminal,
            // an MCP server's pipe) that mewcode opened without close-on-exec.
            libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, CLOSE_RANGE_CLOEXEC);
            if libc::prctl(PR_SET_CHILD_SUBREAPER, 1 as libc::c_ulong, 0, 0, 0) != 0 {
                return Err(io::Error::last_os_error());
            }
            let mut watched: libc::sigset_t = std::mem::zeroed();
            let mut previous: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut watched);
            libc::sigaddset(&mut watched, libc::SIGCHLD);
            libc::sigaddset(&mut watched, libc::SIGTERM);
            libc::signal(libc::SIGCHLD, libc::SIG_DFL);
            libc::sigprocmask(libc::SIG_BLOCK, &watched, &mut previous);
            // If mewcode dies (even by SIGKILL), the reaper hears SIGTERM and ends the command's
            // tree. The signal follows the spawning thread, which waits for us until we exit.
            libc::prctl(PR_SET_PDEATHSIG, libc::SIGTERM as libc::c_ulong, 0, 0, 0);
            if libc::getppid() != parent {
                // Already orphaned before the line above: stop at once (the signal stays pending).
                libc::kill(libc::getpid(), libc::SIGTERM);
            }
            let setup = confinement.as_ref().and_then(|confinement| confinement.view.as_deref());
            if let Some(groups) = setup.and_then(|setup| setup.groups.as_ref())
                && groups.join().is_err()
            {
                // The caps would not hold: better no command than an uncapped one.
                let message = b"mewcode sandbox: cannot join the command's control group\n";
                libc::write(2, message.as_ptr().cast(), message.len());
                libc::_exit(SETUP_FAILED);
            }
            if let Some(setup) = setup
                && let Err(failure) = super::namespace::enter(&setup.view)
            {
                super::namespace::report(&failure, &setup.view);
                libc::_exit(SETUP_FAILED);
            }
            let command_pid = libc::fork();
            if command_pid < 0 {
                return Err(io::Error::last_os_error());
            }
            if command_pid > 0 {
                reap(command_pid, &watched);
            }
            libc::sigprocmask(libc::SIG_SETMASK, &previous, std::ptr::null_mut());
            libc::prctl(PR_SET_CHILD_SUBREAPER, 0 as libc::c_ulong, 0, 0, 0);
            libc::prctl(PR_SET_PDEATHSIG, 0 as libc::c_ulong, 0, 0, 0);
            if let Some(setup) = setup {
                // pid 1 of the new pid namespace: the view, then the limits.
                if let Err(failure) = super::namespace::build(&setup.view) {
                    super::namespace::report(&failure, &setup.view);
                    libc::_exit(SETUP_FAILED);
                }
                set_limits(&setup.limits)?;
            }
            if let Some(confinement) = &confinement {
                confine(confinement)?;
            }
            Ok(())
        }
    };
    // SAFETY: the closure only makes async-signal-safe system calls (see the module invariant).
    unsafe {
        command.pre_exec(hook);
    }
}

/// Restricts the calling (single-threaded, about to exec) process.
///
/// # Safety
/// Call only in a forked child before exec.
unsafe fn confine(confinement: &Confinement) -> io::Result<()> {
    // SAFETY: prctl calls on integers; the seccomp program pointer refers to the Vec owned by the
    // closure, alive for the call; the kernel copies the program.
    unsafe {
        if libc::prctl(PR_SET_NO_NEW_PRIVS, 1 as libc::c_ulong, 0, 0, 0) != 0 {
            return Err(io::Error::last_os_error());
        }
        // Fails with EPERM when we are not root (nothing to drop then): ignored.
        for capability in DROPPED_CAPABILITIES {
            libc::prctl(PR_CAPBSET_DROP, capability, 0, 0, 0);
        }
        if let Some(ruleset) = &confinement.ruleset
            && libc::syscall(libc::SYS_landlock_restrict_self, ruleset.raw_fd(), 0u32) != 0
        {
            return Err(io::Error::last_os_error());
        }
        if let Some(plan) = confinement.view.as_ref().and_then(|setup| setup.landlock.as_ref())
            && let Err(errno) = plan.enforce()
        {
            return Err(io::Error::from_raw_os_error(errno));
        }
        if let Some(filter) = &confinement.filter {
            let program =
                libc::sock_fprog { len: u16::try_from(filter.len()).unwrap_or(0), filter: filter.as_ptr().cast_mut() };
            if libc::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program as *const libc::sock_fprog) != 0 {
                return Err(io::Error::last_os_error());
            }
        }
    }
    Ok(())
}

/// Sets the command's resource limits (soft and hard, so the command cannot raise them).
///
/// # Safety
/// Call only in a forked child before exec.
unsafe fn set_limits(limits: &Limits) -> io::Result<()> {
    for (resource, value) in [(libc::RLIMIT_NPROC, limits.processes), (libc::RLIMIT_DATA, limits.memory)] {
        let Some(value) = value else { continue };
        let limit = libc::rlimit { rlim_cur: value, rlim_max: value };
        // SAFETY: setrlimit reads a stack struct for the duration of the call.
        if unsafe { libc::setrlimit(resource, &limit) } != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// The reaper's life: wait for the command (or SIGTERM from mewcode), kill every remaining
/// descendant, exit with the command's status. Never returns.
///
/// # Safety
/// Call only in the forked reaper, with SIGCHLD and SIGTERM blocked (`watched`).
unsafe fn reap(command_pid: libc::pid_t, watched: &libc::sigset_t) -> ! {
    // SAFETY (whole function): system calls on integers and on pointers to stack values.
    unsafe {
        // Hold nothing: the output pipes must reach end of file when the tree is gone, and std's
        // exec-error pipe must close so that spawn() returns as soon as bash has started.
        if libc::syscall(libc::SYS_close_range, 0u32, u32::MAX, 0u32) != 0 {
            for fd in 0..1024 {
                libc::close(fd);
            }
        }
        let mut command_status: Option<libc::c_int> = None;
        let mut stop = false;
        while command_status.is_none() && !stop {
            let mut status = 0;
            loop {
                let pid = libc::waitpid(-1, &mut status, libc::WNOHANG);
                if pid <= 0 {
                    break;
                }
                if pid == command_pid {
                    command_status = Some(status);
                }
            }
            if command_status.is_some() {
                break;
            }
            let mut info: libc::siginfo_t = std::mem::zeroed();
            if libc::sigwaitinfo(watched, &mut info) == libc::SIGTERM {
                stop = true;
            }
        }
        // Kill what is left, round after round: killing a process hands its children to us.
        loop {
            kill_children();
            let mut status = 0;
            let pid = libc::waitpid(-1, &mut status, 0);
            if pid < 0 {
                if *libc::__errno_location() == libc::EINTR {
                    continue;
                }
                break; // ECHILD: nobody left
            }
            if pid == command_pid && command_status.is_none() {
                command_status = Some(status);
            }
        }
        match command_status {
            Some(status) if !stop && libc::WIFEXITED(status) => libc::_exit(libc::WEXITSTATUS(status)),
            Some(status) if !stop && libc::WIFSIGNALED(status) => {
                let signal = libc::WTERMSIG(status);
                libc::signal(signal, libc::SIG_DFL);
                let mut only: libc::sigset_t = std::mem::zeroed();
                libc::sigemptyset(&mut only);
                libc::sigaddset(&mut only, signal);
                libc::sigprocmask(libc::SIG_UNBLOCK, &only, std::ptr::null_mut());
                libc::kill(libc::getpid(), signal);
                libc::_exit(128 + signal)
            }
            _ => {
                libc::kill(libc::getpid(), libc::SIGKILL);
                libc::_exit(137)
            }
        }
    }
}

/// SIGKILL to every current child of the calling process, read from
/// `/proc/thread-self/children` (a space-separated list of pids) with a stack buffer.
///
/// # Safety
/// Async-signal-safe; call only in the reaper.
unsafe fn kill_children() {
    // SAFETY: open/read/close/kill on a constant path and a stack buffer.
    unsafe {
        let fd = libc::open(c"/proc/thread-self/children".as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return;
        }
        let mut buffer = [0u8; 4096];
        let mut pid: libc::pid_t = 0;
        loop {
            let read = libc::read(fd, buffer.as_mut_ptr().cast(), buffer.len());
            if read <= 0 {
                break;
            }
            for &byte in &buffer[..read as usize] {
                if byte.is_ascii_digit() {
                    pid = pid.saturating_mul(10).saturating_add(libc::pid_t::from(byte - b'0'));
                } else {
                    if pid > 1 {
                        libc::kill(pid, libc::SIGKILL);
                    }
                    pid = 0;
                }
            }
        }
        if pid > 1 {
            libc::kill(pid, libc::SIGKILL);
        }
        libc::close(fd);
    }
}
