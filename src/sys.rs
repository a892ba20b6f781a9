//! The only home of `unsafe`: raw syscalls wrapped in small safe functions.
//!
//! Invariant: every `unsafe` block in the crate is in this file, each is one libc call with plain
//! integer arguments (no pointers cross the boundary), and its safety argument is written next to
//! it. Callers see ordinary functions returning `io::Result` or `bool`. Spawning a child in its
//! own process group does not need this file: `CommandExt::process_group(0)` is safe std.
#![allow(unsafe_code)]

use std::io;

/// Sends SIGKILL to every process in the process group `pgid`.
///
/// A group that no longer exists (ESRCH) is not an error: the goal, "nothing of it runs", holds.
/// `pgid` must be positive; 0 or negative would address our own group or every process we may
/// signal, so those are refused instead of passed to the kernel.
pub fn kill_process_group(pgid: u32) -> io::Result<()> {
    let Ok(pgid) = libc::pid_t::try_from(pgid) else {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "process group id out of range"));
    };
    if pgid <= 1 {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "refusing to signal process group <= 1"));
    }
    // SAFETY: killpg takes two integers and touches no memory of ours; pgid > 1 was checked above.
    let rc = unsafe { libc::killpg(pgid, libc::SIGKILL) };
    if rc == 0 {
        return Ok(());
    }
    let err = io::Error::last_os_error();
    if err.raw_os_error() == Some(libc::ESRCH) { Ok(()) } else { Err(err) }
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

/// True when the file descriptor refers to a terminal (front ends decide on colour and prompts).
pub fn is_tty(fd: i32) -> bool {
    // SAFETY: isatty takes an integer and touches no memory; an invalid fd just returns 0.
    unsafe { libc::isatty(fd) == 1 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_process_exists_and_absurd_pid_does_not() {
        assert!(process_exists(std::process::id()));
        assert!(!process_exists(0));
        assert!(!process_exists(u32::MAX));
    }

    #[test]
    fn kill_process_group_refuses_dangerous_ids() {
        assert!(kill_process_group(0).is_err());
        assert!(kill_process_group(1).is_err());
        assert!(kill_process_group(u32::MAX).is_err());
    }

    #[test]
    fn kill_process_group_of_a_dead_group_is_ok() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        assert!(kill_process_group(pid).is_ok());
    }

    #[test]
    fn kill_process_group_kills_a_child_in_its_own_group() {
        use std::os::unix::process::CommandExt;
        let mut child = std::process::Command::new("sleep").arg("30").process_group(0).spawn().unwrap();
        kill_process_group(child.id()).unwrap();
        let status = child.wait().unwrap();
        assert!(!status.success());
    }

    #[test]
    fn is_tty_is_false_for_an_invalid_descriptor() {
        assert!(!is_tty(-1));
    }
}
