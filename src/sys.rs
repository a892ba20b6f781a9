//! The only home of `unsafe`: raw terminal (termios) calls wrapped in small safe functions.
//!
//! Invariant: every `unsafe` block in the crate is in this file, each is one libc call whose
//! pointer argument is a reference to a local or to a `TerminalMode` we own, and its safety
//! argument is written next to it. Callers see ordinary functions returning `io::Result`. This
//! file decides nothing: which mode to use and when to restore it is the front end's business.
#![allow(unsafe_code)]

use std::io;

/// A saved terminal mode (a `termios`), to change and to restore later.
#[derive(Clone, Copy)]
pub struct TerminalMode {
    termios: libc::termios,
}

impl TerminalMode {
    /// The mode for reading one key: no line buffering and no echo, but signals kept (Ctrl-C
    /// still raises SIGINT, so an interrupt handler sees it), and `read` returns after at most
    /// 100 ms with nothing, so the reader can poll for an interrupt.
    pub fn single_key(&self) -> TerminalMode {
        let mut termios = self.termios;
        termios.c_lflag &= !(libc::ICANON | libc::ECHO);
        termios.c_lflag |= libc::ISIG;
        termios.c_cc[libc::VMIN] = 0;
        termios.c_cc[libc::VTIME] = 1;
        TerminalMode { termios }
    }

    /// The mode while the agent works: like this one, without echo, so keys typed meanwhile do
    /// not scribble over the streamed answer.
    pub fn without_echo(&self) -> TerminalMode {
        let mut termios = self.termios;
        termios.c_lflag &= !libc::ECHO;
        TerminalMode { termios }
    }
}

/// The current mode of the terminal on `fd`; an error when `fd` is not a terminal.
pub fn terminal_mode(fd: i32) -> io::Result<TerminalMode> {
    // SAFETY: an all-zero termios is a valid value of this plain C struct; tcgetattr overwrites it.
    let mut termios: libc::termios = unsafe { std::mem::zeroed() };
    // SAFETY: `termios` is a valid, exclusively borrowed termios for the duration of the call.
    let rc = unsafe { libc::tcgetattr(fd, &mut termios) };
    if rc == 0 { Ok(TerminalMode { termios }) } else { Err(io::Error::last_os_error()) }
}

/// Sets the mode of the terminal on `fd` at once.
pub fn set_terminal_mode(fd: i32, mode: &TerminalMode) -> io::Result<()> {
    // SAFETY: `mode.termios` is a valid termios borrowed for the duration of the call.
    let rc = unsafe { libc::tcsetattr(fd, libc::TCSANOW, &mode.termios) };
    if rc == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
}

/// Throws away input typed but not yet read on the terminal `fd` (keys pressed while output was
/// streaming must not answer the next question).
pub fn discard_pending_input(fd: i32) -> io::Result<()> {
    // SAFETY: tcflush takes two integers and touches no memory of ours.
    let rc = unsafe { libc::tcflush(fd, libc::TCIFLUSH) };
    if rc == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_descriptor_that_is_not_a_terminal_is_an_error() {
        assert!(terminal_mode(-1).is_err());
        let file = std::fs::File::open("/dev/null").unwrap();
        use std::os::fd::AsRawFd;
        assert!(terminal_mode(file.as_raw_fd()).is_err());
        assert!(discard_pending_input(-1).is_err());
    }
}
