//! Piped standard input for -p: the prompt itself (`-p -`, `-p` alone, or no -p) or text added
//! after the prompt (`cat main.rs | mewcode -p "explain this"`), read with a size cap and
//! refused when it is not text.
//!
//! Invariant: a stdin nobody writes to (an idle pipe inherited from a CI runner, /dev/null, a
//! closed descriptor) never makes `-p PROMPT` hang: the first byte is awaited at most
//! `FIRST_BYTE_WAIT`; once bytes flow (or the prompt itself comes from stdin) we read to the end.
//! The bytes-in parts (`read_capped`, `decode`, `compose`) touch no descriptor.

use std::io::Read;
use std::time::Duration;

/// How long `-p PROMPT` waits for the first byte of a pipe before going on without it. Producers
/// like `cat` or `git diff` write within milliseconds; a slower one can write to a file first.
pub(super) const FIRST_BYTE_WAIT: Duration = Duration::from_millis(500);

/// The hard cap on what is read from stdin, whatever the model's window.
const MAX_STDIN_BYTES: usize = 1 << 20;

/// Why piped input was refused.
#[derive(Debug)]
pub(super) enum StdinError {
    /// More than `cap` bytes: refused whole rather than cut silently.
    TooLarge { cap: usize, window: u64 },
    /// A NUL byte at this offset: binary data, not text.
    Binary { offset: usize },
    /// Not UTF-8 from this offset on.
    NotUtf8 { offset: usize },
    /// Reading failed.
    Io(std::io::Error),
}

impl std::fmt::Display for StdinError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StdinError::TooLarge { cap, window } => write!(
                f,
                "stdin: more than {cap} bytes, the cap for a context window of {window} tokens; \
                 pipe a smaller part, or name the file in the prompt and let the model read it"
            ),
            StdinError::Binary { offset } => write!(
                f,
                "stdin: binary input (a NUL byte at offset {offset}) is refused; pipe text, or name \
                 the file in the prompt"
            ),
            StdinError::NotUtf8 { offset } => {
                write!(f, "stdin: not UTF-8 text (invalid byte at offset {offset}); convert it first (iconv)")
            }
            StdinError::Io(err) => write!(f, "stdin: {err}"),
        }
    }
}

/// The byte cap for a model whose window holds `window` tokens: at most three quarters of the
/// window (at `context::CHARS_PER_TOKEN`), leaving room for the system prompt and the answer, and
/// never more than `MAX_STDIN_BYTES`.
fn cap_for_window(window: u64) -> usize {
    let bytes = (window as f64 * crate::context::CHARS_PER_TOKEN * 0.75) as u64;
    usize::try_from(bytes).unwrap_or(usize::MAX).min(MAX_STDIN_BYTES)
}

/// Reads everything, or fails as soon as more than `cap` bytes arrived (never holds more than
/// `cap + 1`).
pub(super) fn read_capped(reader: impl Read, cap: usize, window: u64) -> Result<Vec<u8>, StdinError> {
    let mut bytes = Vec::new();
    let limit = u64::try_from(cap).unwrap_or(u64::MAX).saturating_add(1);
    reader.take(limit).read_to_end(&mut bytes).map_err(StdinError::Io)?;
    if bytes.len() > cap {
        return Err(StdinError::TooLarge { cap, window });
    }
    Ok(bytes)
}

/// The bytes as text: refused when they hold a NUL byte or are not UTF-8.
pub(super) fn decode(bytes: Vec<u8>) -> Result<String, StdinError> {
    if let Some(offset) = bytes.iter().position(|byte| *byte == 0) {
        return Err(StdinError::Binary { offset });
    }
    String::from_utf8(bytes).map_err(|err| StdinError::NotUtf8 { offset: err.utf8_error().valid_up_to() })
}

/// The prompt, then the piped text between two marker lines, so the model can tell the user's
/// words from the data they piped. Empty (whitespace-only) input adds nothing.
pub(super) fn compose(prompt: &str, piped: &str) -> String {
    if piped.trim().is_empty() {
        return prompt.to_string();
    }
    let newline = if piped.ends_with('\n') { "" } else { "\n" };
    format!("{prompt}\n\n--- stdin ---\n{piped}{newline}--- end of stdin ---")
}

/// What stdin holds, read from the process's descriptor 0 (not a terminal: the caller checks).
/// `wait` bounds the wait for the first byte (`None`: wait as long as it takes, the prompt
/// itself comes from stdin). `Ok(None)` when nothing arrived in time.
pub(super) fn read_process_stdin(wait: Option<Duration>, window: u64) -> Result<Option<String>, StdinError> {
    if let Some(wait) = wait
        && !crate::sys::wait_readable(0, wait).map_err(StdinError::Io)?
    {
        return Ok(None);
    }
    let bytes = read_capped(std::io::stdin().lock(), cap_for_window(window), window)?;
    decode(bytes).map(Some)
}

#[cfg(test)]
#[path = "stdin_tests.rs"]
mod tests;
