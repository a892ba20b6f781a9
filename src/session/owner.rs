//! Which sessions this installation created: a per-install secret key in `$MEWCODE_HOME` and the
//! mark (an HMAC of the session id under that key) that `create_session` writes into each header.
//! The same key marks the one settings file mewcode writes inside the project
//! (`.mewcode/settings.local.yaml`, see `permission::store`): `file_mark` covers a file's path
//! and content, under a different message prefix, so neither kind of mark passes for the other.
//!
//! Why: sessions live inside the project, so a cloned repository can ship a session directory
//! with any id, header and file times it likes. `--continue` resumes "the most recent session"
//! without asking, and a planted history is a prompt injection the user never sees. Times and ids
//! are the attacker's to choose; the mark is not, because the key never leaves `$MEWCODE_HOME`
//! (and the command sandbox hides that directory).
//!
//! Invariant: without a key nothing is owned (a session is never trusted by default); the key file
//! is created once, whole, with mode 0600, and never overwritten. What this does not do: it does
//! not authenticate a log's content, only which installation created the session (a marked file's
//! content, by contrast, is covered whole).

use super::SessionError;
use crate::digest::hmac_sha256;
use std::fs;
use std::io::{self, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// The key file under `$MEWCODE_HOME`.
const KEY_FILE: &str = crate::fsx::USER_DIR_KEY;
/// Bytes of key material (64 hex digits in the file).
const KEY_BYTES: usize = 32;

/// This installation's key, or none when it could not be loaded (then no session is owned).
#[derive(Clone, PartialEq, Eq)]
pub struct Owner {
    key: Option<[u8; KEY_BYTES]>,
}

impl std::fmt::Debug for Owner {
    /// Never prints the key.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Owner {{ key: {} }}", if self.key.is_some() { "set" } else { "none" })
    }
}

impl Owner {
    /// An owner with this key.
    pub fn from_key(key: [u8; KEY_BYTES]) -> Owner {
        Owner { key: Some(key) }
    }

    /// No key: marks nothing and owns nothing.
    pub fn none() -> Owner {
        Owner { key: None }
    }

    /// The mark for session `id` (64 hex digits), or `None` without a key.
    pub fn mark(&self, id: &str) -> Option<String> {
        let key = self.key.as_ref()?;
        let message = format!("mewcode session {id}");
        Some(hmac_sha256(key, message.as_bytes()).iter().map(|byte| format!("{byte:02x}")).collect())
    }

    /// True when `mark` (from the header of the session in directory `id`) is ours for that id.
    /// The directory name is what gets resumed, so it is what the mark must cover: a header
    /// copied from another session does not carry over.
    pub(crate) fn owns(&self, id: &str, mark: Option<&str>) -> bool {
        match (self.mark(id), mark) {
            (Some(expected), Some(found)) => expected == found,
            (None, _) | (_, None) => false,
        }
    }

    /// The mark for a file this installation writes with exactly `content` at `path` (64 hex
    /// digits), or `None` without a key. The path is part of it: a marked file copied into
    /// another project, or to another name, is not marked there.
    pub fn file_mark(&self, path: &Path, content: &[u8]) -> Option<String> {
        let key = self.key.as_ref()?;
        // "file" is not "session ": a session id never makes a file's message, nor the reverse.
        // A path holds no NUL byte, so the path and the content cannot trade bytes either.
        let mut message = b"mewcode file\0".to_vec();
        message.extend_from_slice(path.as_os_str().as_encoded_bytes());
        message.push(0);
        message.extend_from_slice(content);
        Some(hmac_sha256(key, &message).iter().map(|byte| format!("{byte:02x}")).collect())
    }

    /// True when `mark` is this installation's for `content` at `path`.
    pub(crate) fn owns_file(&self, path: &Path, content: &[u8], mark: &str) -> bool {
        self.file_mark(path, content).is_some_and(|expected| expected == mark)
    }
}

/// Loads the key from `home`, creating it on first use.
pub(crate) fn load_owner(home: &Path) -> Result<Owner, SessionError> {
    let path = home.join(KEY_FILE);
    match fs::read_to_string(&path) {
        Ok(text) => parse_key(&text).map(Owner::from_key).ok_or_else(|| malformed(&path)),
        Err(err) if err.kind() == io::ErrorKind::NotFound => create_key(home, &path),
        Err(err) => Err(SessionError::io(&path, err)),
    }
}

/// A key file's content: 64 lowercase hex digits and an optional newline.
fn parse_key(text: &str) -> Option<[u8; KEY_BYTES]> {
    let hex = text.strip_suffix('\n').unwrap_or(text);
    if hex.len() != KEY_BYTES * 2 || !hex.bytes().all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte)) {
        return None;
    }
    let mut key = [0u8; KEY_BYTES];
    for (index, byte) in key.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&hex[index * 2..index * 2 + 2], 16).ok()?;
    }
    Some(key)
}

fn malformed(path: &Path) -> SessionError {
    let err = io::Error::new(io::ErrorKind::InvalidData, "not a session key (delete it and mewcode makes a new one)");
    SessionError::io(path, err)
}

/// Writes a fresh key to a private temporary file, then links it into place: `hard_link` fails
/// when the name exists, so two first runs racing agree on one key and nobody reads half a file.
fn create_key(home: &Path, path: &Path) -> Result<Owner, SessionError> {
    fs::create_dir_all(home).map_err(|err| SessionError::io(home, err))?;
    let mut key = [0u8; KEY_BYTES];
    fs::File::open("/dev/urandom")
        .and_then(|mut random| random.read_exact(&mut key))
        .map_err(|err| SessionError::io(Path::new("/dev/urandom"), err))?;
    let hex: String = key.iter().map(|byte| format!("{byte:02x}")).collect();
    let temp = home.join(format!(".{KEY_FILE}.tmp-{}", std::process::id()));
    let written = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&temp)
        .and_then(|mut file| file.write_all(format!("{hex}\n").as_bytes()).and_then(|()| file.sync_all()));
    let linked = written.and_then(|()| fs::hard_link(&temp, path));
    // The temporary name is ours alone; whether linking worked or not it has no further use.
    let _ = fs::remove_file(&temp);
    match linked {
        Ok(()) => Ok(Owner::from_key(key)),
        // Another run created it first: use theirs.
        Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {
            let text = fs::read_to_string(path).map_err(|err| SessionError::io(path, err))?;
            parse_key(&text).map(Owner::from_key).ok_or_else(|| malformed(path))
        }
        Err(err) => Err(SessionError::io(path, err)),
    }
}

#[cfg(test)]
#[path = "owner_tests.rs"]
mod tests;
