//! The object store: the content of every file a checkpoint recorded, by SHA-256, under
//! `<project>/.mewcode/checkpoints/objects/ab/cdef…` (the first two hex digits fan the objects
//! out over 256 directories).
//!
//! Invariant: an object's name is the hash of its content, and a reader never trusts the name:
//! `get` hashes what it read and refuses a mismatch, so a damaged or planted object can make a
//! restore fail but never write wrong bytes. Objects are written once (an existing one with the
//! right size and mode is nothing to write), whole (temporary file, then rename, never through a
//! link: `fsx::put_beneath`) and read-only (mode 0400: git records only 0644 and 0755, so an
//! object a repository ships under that name is not taken for ours and is replaced).
//!
//! Objects are not fsynced one by one: a checkpoint of a large repository stores thousands of
//! them, and an fsync each would cost seconds. A kill never tears one (the rename is atomic);
//! after a power loss an object may be lost, and a restore of that file then fails, said by
//! name, while the others are restored (`get` checks every byte).

use crate::digest::sha256;
use std::fmt;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// mewcode's directory in a project.
pub(crate) const MEWCODE_DIR: &str = ".mewcode";
/// The checkpoints' directory (objects and the stat cache), relative to the project.
pub(crate) const STORE_REL: &str = ".mewcode/checkpoints";
/// The objects' directory, relative to the project.
pub(crate) const OBJECTS_REL: &str = ".mewcode/checkpoints/objects";
/// The mode of every object: read-only, the owner's only (contents may be anything the
/// repository holds).
const OBJECT_MODE: u32 = 0o400;

/// A SHA-256 digest: the name of an object.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Digest(pub [u8; 32]);

impl Digest {
    /// The digest of `bytes`.
    pub(crate) fn of(bytes: &[u8]) -> Digest {
        Digest(sha256(bytes))
    }

    /// 64 lowercase hex digits.
    pub(crate) fn to_hex(self) -> String {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut hex = String::with_capacity(64);
        for byte in self.0 {
            hex.push(char::from(DIGITS[usize::from(byte >> 4)]));
            hex.push(char::from(DIGITS[usize::from(byte & 0xf)]));
        }
        hex
    }

    /// The digest written as 64 hex digits (either case), or None.
    pub(crate) fn parse_hex(text: &str) -> Option<Digest> {
        if text.len() != 64 || !text.is_ascii() {
            return None;
        }
        let mut bytes = [0u8; 32];
        for (index, byte) in bytes.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&text[index * 2..index * 2 + 2], 16).ok()?;
        }
        Some(Digest(bytes))
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl serde::Serialize for Digest {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_hex())
    }
}

impl<'de> serde::Deserialize<'de> for Digest {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Digest, D::Error> {
        let text = String::deserialize(deserializer)?;
        Digest::parse_hex(&text).ok_or_else(|| serde::de::Error::custom("expected 64 hex digits"))
    }
}

/// The object store of one project.
#[derive(Clone, Debug)]
pub(crate) struct Store {
    /// The project root (absolute, canonical): everything is written beneath it.
    project: PathBuf,
}

impl Store {
    pub(crate) fn new(project: &Path) -> Store {
        Store { project: project.to_path_buf() }
    }

    /// Object `digest` relative to the project.
    fn object_rel(digest: Digest) -> PathBuf {
        let hex = digest.to_hex();
        Path::new(OBJECTS_REL).join(&hex[..2]).join(&hex[2..])
    }

    /// Object `digest`'s path.
    pub(crate) fn object_path(&self, digest: Digest) -> PathBuf {
        self.project.join(Store::object_rel(digest))
    }

    /// Makes `<project>/.mewcode` with mewcode's `.gitignore` (once per scan: cheap, and a
    /// `.mewcode` made by something else since still gets it).
    pub(crate) fn prepare(&self) -> Result<(), String> {
        crate::fsx::ensure_gitignored_dir(&self.project, Path::new(MEWCODE_DIR))
            .map_err(|err| format!("cannot prepare {}: {err}", self.project.join(MEWCODE_DIR).display()))
    }

    /// True when object `digest` is stored: a regular file (not a link) of `size` bytes with the
    /// objects' mode.
    pub(crate) fn has(&self, digest: Digest, size: u64) -> bool {
        std::fs::symlink_metadata(self.object_path(digest)).is_ok_and(|meta| is_object(&meta, size))
    }

    /// Stores `bytes` (whose digest is `digest`) unless it is stored already.
    pub(crate) fn put(&self, digest: Digest, bytes: &[u8]) -> Result<(), String> {
        if self.has(digest, bytes.len() as u64) {
            return Ok(());
        }
        let content = crate::fsx::Content::File { bytes, mode: OBJECT_MODE };
        crate::fsx::put_beneath(&self.project, &Store::object_rel(digest), content, false)
            .map_err(|err| format!("cannot store a checkpoint object: {err}"))
    }

    /// The content of object `digest`, checked against its name.
    pub(crate) fn get(&self, digest: Digest) -> Result<Vec<u8>, String> {
        let path = self.object_path(digest);
        let bytes = read_no_follow(&path).map_err(|err| {
            format!("the checkpoint object {} cannot be read ({err}); this file cannot be restored", path.display())
        })?;
        if Digest::of(&bytes) != digest {
            return Err(format!(
                "the checkpoint object {} is damaged (its content does not match its name); this file cannot be \
                 restored",
                path.display()
            ));
        }
        Ok(bytes)
    }
}

/// What `Store::has` accepts.
fn is_object(meta: &std::fs::Metadata, size: u64) -> bool {
    meta.file_type().is_file() && meta.len() == size && meta.permissions().mode() & 0o777 == OBJECT_MODE
}

/// Reads the regular file at `path`; a link there is refused, not followed.
fn read_no_follow(path: &Path) -> io::Result<Vec<u8>> {
    let meta = std::fs::symlink_metadata(path)?;
    if !meta.file_type().is_file() {
        return Err(io::Error::other("not a regular file"));
    }
    std::fs::read(path)
}

#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;
