//! The terminal outside the line editor: type-ahead mode while a turn runs, reading one key (for
//! approvals and `continue?`) without rustyline, the Ctrl-C presses the signal handler counts,
//! and the screen's size.
//!
//! Invariant: every mode change is undone by a guard's `Drop`, so no path — an early return, an
//! error, a panic unwinding — leaves the terminal without echo or in single-key mode. Keys are
//! read from a duplicate of stdin's descriptor (unbuffered), so no byte is held back in a buffer
//! the line editor cannot see. Ctrl-C stays a signal in both modes; `read_key` and `read_keys`
//! poll the interrupt counter every 100 ms.

use crate::sys::{self, TerminalMode};
use std::io::Read;
use std::os::fd::AsFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Ctrl-C presses, counted by the signal handler `app.rs` installs and polled by the REPL.
#[derive(Clone, Debug, Default)]
pub(crate) struct Interrupts {
    presses: Arc<AtomicU64>,
}

impl Interrupts {
    pub(crate) fn new() -> Interrupts {
        Interrupts::default()
    }

    /// Called from the signal handler: one more press. Only an atomic add, nothing else.
    pub(crate) fn press(&self) {
        self.presses.fetch_add(1, Ordering::SeqCst);
    }

    /// Presses so far; a change since the last look means "interrupt".
    pub(crate) fn count(&self) -> u64 {
        self.presses.load(Ordering::SeqCst)
    }
}

/// The terminal's size, read before each prompt (what wrapping and the session list fit into).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Screen {
    pub width: usize,
    pub height: usize,
}

impl Default for Screen {
    /// What is assumed when the terminal does not say.
    fn default() -> Screen {
        Screen { width: 80, height: 20 }
    }
}

/// Standard input's descriptor.
const STDIN: i32 = 0;

/// Restores the terminal mode it saved when dropped.
pub(super) struct ModeGuard {
    saved: Option<TerminalMode>,
}

impl ModeGuard {
    /// Type-ahead mode until the guard is dropped (nothing happens when stdin is no terminal):
    /// see `TerminalMode::typeahead`.
    pub(super) fn typeahead() -> ModeGuard {
        ModeGuard::switch(TerminalMode::typeahead)
    }

    /// The mode was changed (stdin is a terminal), so it will be restored.
    pub(super) fn is_active(&self) -> bool {
        self.saved.is_some()
    }

    fn switch(change: impl Fn(&TerminalMode) -> TerminalMode) -> ModeGuard {
        let Ok(saved) = sys::terminal_mode(STDIN) else { return ModeGuard { saved: None } };
        match sys::set_terminal_mode(STDIN, &change(&saved)) {
            Ok(()) => ModeGuard { saved: Some(saved) },
            Err(_) => ModeGuard { saved: None },
        }
    }
}

impl Drop for ModeGuard {
    fn drop(&mut self) {
        if let Some(saved) = &self.saved {
            let _ = sys::set_terminal_mode(STDIN, saved);
        }
    }
}

/// Stdin's bytes as they are typed, read without waiting (in a mode whose reads return at once:
/// `ModeGuard::typeahead`).
pub(super) struct TerminalInput {
    stdin: std::fs::File,
}

impl TerminalInput {
    /// A duplicate of stdin's descriptor; `None` when it cannot be made.
    pub(super) fn open() -> Option<TerminalInput> {
        let stdin = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
        Some(TerminalInput { stdin: std::fs::File::from(stdin) })
    }

    /// The bytes typed since the last read; `None` when there are none (or stdin is gone).
    pub(super) fn read_now(&mut self) -> Option<Vec<u8>> {
        let mut buffer = [0u8; 256];
        loop {
            match self.stdin.read(&mut buffer) {
                Ok(0) => return None,
                Ok(count) => return Some(buffer[..count].to_vec()),
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return None,
            }
        }
    }
}

/// What `read_key` got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Key {
    /// The first byte of the key pressed.
    Byte(u8),
    /// Ctrl-C (or a termination signal) arrived while waiting.
    Interrupted,
    /// Stdin is gone or is not a terminal.
    Closed,
}

/// Waits for one key press, discarding keys typed before the question was shown.
pub(super) fn read_key(interrupts: &Interrupts) -> Key {
    let _ = sys::discard_pending_input(STDIN);
    let mut first = Key::Closed;
    let end = read_keys(interrupts, |byte| {
        first = Key::Byte(byte);
        false
    });
    // The rest of a multi-byte key (an arrow's escape sequence) must not reach the next prompt.
    let _ = sys::discard_pending_input(STDIN);
    match end {
        Key::Byte(_) => first,
        Key::Interrupted | Key::Closed => end,
    }
}

/// Reads bytes one by one in single-key mode (no echo: the caller echoes what it accepts),
/// handing each to `take` until it returns false. Returns `Key::Byte` with the last byte when
/// `take` stopped, else why reading ended (Ctrl-C, or stdin gone / not a terminal).
pub(super) fn read_keys(interrupts: &Interrupts, mut take: impl FnMut(u8) -> bool) -> Key {
    let seen = interrupts.count();
    if sys::terminal_mode(STDIN).is_err() {
        return Key::Closed;
    }
    let _guard = ModeGuard::switch(TerminalMode::single_key);
    let Ok(stdin) = std::io::stdin().as_fd().try_clone_to_owned() else { return Key::Closed };
    let mut stdin = std::fs::File::from(stdin);
    let mut byte = [0u8; 1];
    loop {
        if interrupts.count() != seen {
            return Key::Interrupted;
        }
        match stdin.read(&mut byte) {
            Ok(1) if !take(byte[0]) => return Key::Byte(byte[0]),
            Ok(1) => {}
            // VTIME expired with nothing typed: look at the interrupt counter again.
            Ok(_) => {}
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return Key::Closed,
        }
    }
}

/// What `KeyReader::next` got.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Keys {
    /// The bytes of one or more keys (an arrow's whole escape sequence arrives in one read).
    Bytes(Vec<u8>),
    /// Ctrl-C (or a termination signal) arrived while waiting.
    Interrupted,
    /// Stdin is gone.
    Closed,
}

/// Single-key mode for as long as it lives, for the `/resume` picker: unlike `read_key`, keys
/// typed between two reads are kept (typing fast must not lose letters of the filter).
pub(super) struct KeyReader<'a> {
    _guard: ModeGuard,
    stdin: std::fs::File,
    interrupts: &'a Interrupts,
    seen: u64,
}

impl<'a> KeyReader<'a> {
    /// `None` when stdin is not a terminal. Keys typed before it opened are discarded.
    pub(super) fn open(interrupts: &'a Interrupts) -> Option<KeyReader<'a>> {
        let seen = interrupts.count();
        sys::terminal_mode(STDIN).ok()?;
        let guard = ModeGuard::switch(TerminalMode::single_key);
        let _ = sys::discard_pending_input(STDIN);
        let stdin = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
        Some(KeyReader { _guard: guard, stdin: std::fs::File::from(stdin), interrupts, seen })
    }

    /// Waits for the next keys.
    pub(super) fn wait(&mut self) -> Keys {
        let mut buffer = [0u8; 64];
        loop {
            if self.interrupts.count() != self.seen {
                return Keys::Interrupted;
            }
            match self.stdin.read(&mut buffer) {
                Ok(0) => {}
                Ok(count) => return Keys::Bytes(buffer[..count].to_vec()),
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return Keys::Closed,
            }
        }
    }
}

#[cfg(test)]
#[path = "terminal_tests.rs"]
mod tests;
