//! A directory held open by descriptor, reached without following symbolic links, and the
//! `*at` calls that work inside it (`fsx::write_atomic` and the `fsx::*_beneath` helpers are the
//! users).
//!
//! Why: a path is looked up again by every path-based call, so a directory on the way that is
//! swapped for a symlink between two calls sends the second call somewhere else. Walking from `/`
//! with `O_NOFOLLOW` on every component and then naming files relative to the descriptor resolves
//! the path exactly once; a component that is a symlink at that moment makes the walk fail.
//!
//! Invariant: every name passed to the kernel here is one plain component (no `/`, not `.` or
//! `..`, no NUL), so no call below resolves a path of more than one step, and none follows a
//! symlink. This file decides nothing about which directory may be written.

use std::ffi::{CString, OsStr};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path};

/// What an entry of a directory is, seen without following a symlink.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Entry {
    /// Nothing by that name.
    Missing,
    /// A regular file with these permission bits (`st_mode & 0o7777`).
    RegularFile { permissions: u32 },
    /// Anything else: a symlink, a directory, a device, a socket, a fifo.
    Other,
}

/// True when opening a directory failed because a component was a symbolic link or not a
/// directory at all (what `Dir::open_no_symlinks` reports for a swapped component).
pub(crate) fn is_not_a_plain_directory(err: &io::Error) -> bool {
    matches!(err.raw_os_error(), Some(libc::ELOOP | libc::ENOTDIR))
}

/// An open directory (an `O_PATH` descriptor: it can name entries, not list them).
#[derive(Debug)]
pub(crate) struct Dir {
    fd: OwnedFd,
}

impl Dir {
    /// Opens the absolute path `path`, one component at a time from `/`, refusing a component
    /// that is a symbolic link (`ELOOP`) or not a directory (`ENOTDIR`). `path` must be free of
    /// `.` and `..` (a canonical path): they are refused rather than interpreted.
    pub(crate) fn open_no_symlinks(path: &Path) -> io::Result<Dir> {
        let mut components = path.components();
        if components.next() != Some(Component::RootDir) {
            return Err(invalid(format!("{} is not an absolute path", path.display())));
        }
        let root = c_name(OsStr::new("/"))?;
        let mut dir = Dir { fd: open_at(libc::AT_FDCWD, &root, libc::O_PATH | libc::O_DIRECTORY)? };
        for component in components {
            let Component::Normal(name) = component else {
                return Err(invalid(format!("{} is not a canonical path", path.display())));
            };
            let name = component_name(name)?;
            dir = Dir { fd: open_at(dir.fd.as_raw_fd(), &name, libc::O_PATH | libc::O_DIRECTORY | libc::O_NOFOLLOW)? };
        }
        Ok(dir)
    }

    /// Creates the regular file `name` here for writing; fails if anything by that name exists
    /// (a symlink included: it is not followed). Mode 0666 before the umask, like `File::create`.
    pub(crate) fn create_new(&self, name: &OsStr) -> io::Result<File> {
        let name = component_name(name)?;
        let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW;
        open_at(self.fd.as_raw_fd(), &name, flags).map(File::from)
    }

    /// Opens the file `name` here for reading and appending (a session log), never through a
    /// symbolic link: a link at the name fails with `ELOOP`. `create_new`: creates it (mode 0666
    /// before the umask), failing if anything by that name exists, a link included; otherwise
    /// it must exist. The caller checks what it opened (a directory or a fifo opens too).
    pub(crate) fn open_append(&self, name: &OsStr, create_new: bool) -> io::Result<File> {
        let name = component_name(name)?;
        let create = if create_new { libc::O_CREAT | libc::O_EXCL } else { 0 };
        open_at(self.fd.as_raw_fd(), &name, libc::O_RDWR | libc::O_APPEND | libc::O_NOFOLLOW | create).map(File::from)
    }

    /// What entry `name` is (a symlink is not followed).
    pub(crate) fn entry(&self, name: &OsStr) -> io::Result<Entry> {
        let name = component_name(name)?;
        // SAFETY: an all-zero `stat` is a valid value of this plain C struct; fstatat overwrites it.
        let mut stat: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: the descriptor is ours and open; `name` is a NUL-terminated string and `stat`
        // an exclusively borrowed local, both alive for the whole call, which keeps neither.
        let rc = unsafe { libc::fstatat(self.fd.as_raw_fd(), name.as_ptr(), &mut stat, libc::AT_SYMLINK_NOFOLLOW) };
        if rc == 0 {
            return Ok(match stat.st_mode & libc::S_IFMT {
                libc::S_IFREG => Entry::RegularFile { permissions: stat.st_mode & 0o7777 },
                _ => Entry::Other,
            });
        }
        let err = io::Error::last_os_error();
        if err.raw_os_error() == Some(libc::ENOENT) { Ok(Entry::Missing) } else { Err(err) }
    }

    /// Renames entry `from` to `to`, both in this directory (`to` is replaced if it exists; a
    /// symlink named `to` is replaced itself, never followed).
    pub(crate) fn rename(&self, from: &OsStr, to: &OsStr) -> io::Result<()> {
        let (from, to) = (component_name(from)?, component_name(to)?);
        let fd = self.fd.as_raw_fd();
        // SAFETY: the descriptor is ours and open; both names are NUL-terminated strings alive
        // for the whole call, which keeps neither.
        let rc = unsafe { libc::renameat(fd, from.as_ptr(), fd, to.as_ptr()) };
        if rc == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
    }

    /// Removes the entry `name` (not a directory) from this directory.
    pub(crate) fn remove_file(&self, name: &OsStr) -> io::Result<()> {
        let name = component_name(name)?;
        // SAFETY: the descriptor is ours and open; `name` is a NUL-terminated string alive for
        // the whole call, which keeps no pointer to it.
        let rc = unsafe { libc::unlinkat(self.fd.as_raw_fd(), name.as_ptr(), 0) };
        if rc == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
    }

    /// Removes the empty directory `name` from this directory (a symlink named `name` is not
    /// followed: removing it fails with `ENOTDIR`).
    pub(crate) fn remove_dir(&self, name: &OsStr) -> io::Result<()> {
        let name = component_name(name)?;
        // SAFETY: the descriptor is ours and open; `name` is a NUL-terminated string alive for
        // the whole call, which keeps no pointer to it.
        let rc = unsafe { libc::unlinkat(self.fd.as_raw_fd(), name.as_ptr(), libc::AT_REMOVEDIR) };
        if rc == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
    }

    /// Creates the symbolic link `name` here, pointing at `target` (stored as given, never
    /// resolved); fails if anything by that name exists.
    pub(crate) fn symlink(&self, target: &Path, name: &OsStr) -> io::Result<()> {
        let name = component_name(name)?;
        let target = c_name(target.as_os_str())?;
        // SAFETY: the descriptor is ours and open; both strings are NUL-terminated and alive for
        // the whole call, which keeps neither.
        let rc = unsafe { libc::symlinkat(target.as_ptr(), self.fd.as_raw_fd(), name.as_ptr()) };
        if rc == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
    }

    /// Flushes the directory itself (its entries) to disk. An `O_PATH` descriptor cannot be
    /// synced, so the same directory is opened for reading through `.` first.
    pub(crate) fn sync(&self) -> io::Result<()> {
        let dot = c_name(OsStr::new("."))?;
        let readable = open_at(self.fd.as_raw_fd(), &dot, libc::O_RDONLY | libc::O_DIRECTORY)?;
        File::from(readable).sync_all()
    }
}

/// One `openat` with `O_CLOEXEC` added (mode 0666 when creating).
fn open_at(dir_fd: RawFd, name: &CString, flags: libc::c_int) -> io::Result<OwnedFd> {
    // SAFETY: `name` is a NUL-terminated string alive for the whole call, which keeps no pointer
    // to it; `dir_fd` is AT_FDCWD or a descriptor we own; the mode is a plain integer.
    let raw = unsafe { libc::openat(dir_fd, name.as_ptr(), flags | libc::O_CLOEXEC, 0o666 as libc::c_uint) };
    if raw < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `raw` is a descriptor the kernel just gave us and nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(raw) })
}

/// `name` as a C string, if it is a single plain component.
fn component_name(name: &OsStr) -> io::Result<CString> {
    let bytes = name.as_bytes();
    if bytes.is_empty() || bytes == b"." || bytes == b".." || bytes.contains(&b'/') {
        return Err(invalid(format!("{:?} is not a single file name", name)));
    }
    c_name(name)
}

fn c_name(name: &OsStr) -> io::Result<CString> {
    CString::new(name.as_bytes()).map_err(|_| invalid(format!("{:?} contains a NUL byte", name)))
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

#[cfg(test)]
#[path = "dir_tests.rs"]
mod tests;
