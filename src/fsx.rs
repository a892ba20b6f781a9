//! File-system helpers shared by the tools and the session code: atomic writes, lexical path
//! resolution, and mewcode's own directories beneath the project (`create_dirs_beneath` and the
//! `*_beneath` functions that write there).
//!
//! Invariant: nothing mewcode writes for itself under `<root>/.mewcode` (session logs, offloaded
//! results, settings, its `.gitignore`) goes through a symbolic link. A repository can ship any
//! of those names as a link pointing anywhere, so every directory mewcode owns is checked (never
//! a link, never a file) and then walked without following links, and files are opened relative
//! to the directory so reached, with `O_NOFOLLOW`.
//!
//! Invariant: `write_atomic` never leaves a half-written target. Readers see either the old
//! content or the new content, because the bytes go to a temporary file in the same directory,
//! are fsynced, and only then renamed over the target (rename is atomic within one file system).
//! Its destination is resolved once: after that, a symlink swapped into the path cannot move the
//! write to another directory (the directory is held open, reached without following symlinks).
//! Path helpers are pure: they never touch the disk, never resolve symlinks and never read the
//! environment (`~` is not expanded). Permission checks are not done here; `write_atomic_beneath`
//! only re-asserts, at write time, the root the file tools' sandbox already checked.

use crate::sys::dir::{Dir, Entry, is_not_a_plain_directory};
use std::ffi::{OsStr, OsString};
use std::fs::{self, File};
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Resolves a path given by the model: absolute paths are kept, relative ones are joined to
/// `root`; the result is cleaned lexically (see `clean_path`).
pub(crate) fn resolve_path(root: &Path, raw: &str) -> PathBuf {
    let raw_path = Path::new(raw);
    if raw_path.is_absolute() { clean_path(raw_path) } else { clean_path(&root.join(raw_path)) }
}

/// Removes `.` components and folds `name/..` pairs without looking at the disk. A `..` that would
/// climb above the root of an absolute path stays at the root (as the kernel does); on a relative
/// path a leading `..` is kept. An empty result becomes `.`.
pub(crate) fn clean_path(path: &Path) -> PathBuf {
    let mut parts: Vec<Component<'_>> = Vec::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => match parts.last() {
                Some(Component::Normal(_)) => {
                    parts.pop();
                }
                Some(Component::RootDir) | Some(Component::Prefix(_)) => {}
                Some(Component::ParentDir) | Some(Component::CurDir) | None => parts.push(component),
            },
            Component::Normal(_) | Component::RootDir | Component::Prefix(_) => parts.push(component),
        }
    }
    if parts.is_empty() {
        return PathBuf::from(".");
    }
    parts.iter().collect()
}

/// Writes `bytes` to `path` atomically: temporary file in the same directory, fsync, rename, then
/// a best-effort fsync of the directory so the rename itself survives a crash.
///
/// An existing file keeps its permission bits. When `path` is a symlink, the file it points to is
/// replaced and the link is kept (renaming over the link would silently turn it into a regular
/// file); a dangling link is an error. The parent directory must exist; callers that want it
/// created call `create_dir_all`.
///
/// The destination is resolved once, at the start (the link at `path`, and every symlink on the
/// way to its directory, as the permission check before the call resolved them). The directory is
/// then opened component by component from `/` without following symlinks, and the temporary
/// file, the rename and the clean-up all name entries of that open directory. So a directory on
/// the way that is swapped for a symlink after the resolution makes the write fail (nothing is
/// written anywhere); one swapped after the directory was opened does not move the write (it
/// lands in the directory that was opened, wherever that now is); and a symlink planted at the
/// final name is replaced, never followed.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_observed(path, None, bytes, &mut |_| {})
}

/// The `.gitignore` mewcode keeps in `<root>/.mewcode/`: everything it writes there by itself
/// (sessions — conversations hold whatever the model read, keys included —, offloaded tool
/// results, `settings.local.yaml`, this file) stays out of `git status`; `settings.yaml`, the
/// team's shared permission rules, stays committable.
pub(crate) const MEWCODE_DIR_GITIGNORE: &str = "\
# Written by mewcode: what it keeps here by itself (sessions, which hold whatever the model read,
# offloaded tool results, settings.local.yaml) stays out of git. settings.yaml holds the team's
# shared permission rules: commit that one.
*
!settings.yaml
";

/// The installation's key file (`session::owner`), which only a `$MEWCODE_HOME` holds.
pub(crate) const USER_DIR_KEY: &str = "session-key";

/// Creates mewcode's directory `base/rel` (`<root>/.mewcode`) as `create_dirs_beneath` does, never
/// through a link, and, when it holds no `.gitignore`, writes `MEWCODE_DIR_GITIGNORE` there. An
/// existing `.gitignore` (the user's or the repository's own) is left alone, and nothing is
/// written through a link planted at the name (`create_new` refuses any existing entry, dangling
/// links included).
///
/// A directory holding `USER_DIR_KEY` is a `$MEWCODE_HOME` (the user's own directory, which a
/// project at `~` shares as its `.mewcode`): it gets no `.gitignore`, which would hide the user's
/// config from a dotfiles repository. A repository shipping that name only gains what shipping its
/// own `.gitignore` already gives it.
pub(crate) fn ensure_gitignored_dir(base: &Path, rel: &Path) -> io::Result<()> {
    let dir = open_dir_beneath(base, rel)?;
    if base.join(rel).join(USER_DIR_KEY).is_file() {
        return Ok(());
    }
    match dir.create_new(OsStr::new(".gitignore")) {
        Ok(mut file) => file.write_all(MEWCODE_DIR_GITIGNORE.as_bytes()),
        Err(err) if err.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(err) => Err(err),
    }
}

/// Creates the directory `base/rel` one component at a time and returns its path.
///
/// `base` (the project root) may be reached through symbolic links: it is the user's. The
/// directories of `rel` are mewcode's own (`.mewcode/sessions/<id>`, say), and a repository can
/// ship any of them as a link pointing anywhere. So every one that exists must be a real
/// directory, seen without following a link (`symlink_metadata`): a link, dangling or not, or a
/// file is an error naming it. One that is missing is made with `create_dir`; if another process
/// made it first (`AlreadyExists`), what it made is checked the same way, not trusted. `rel` must
/// be plain names: an absolute path, `.` or `..` is refused.
///
/// This checks, then uses a path: a directory swapped for a link in between can still make one
/// `create_dir` land elsewhere (an empty directory, nothing more). Files are never opened by
/// such a path: the `*_beneath` writers open the directory again from `/` without following
/// links, and name the file relative to it, so no byte follows a swap.
pub(crate) fn create_dirs_beneath(base: &Path, rel: &Path) -> io::Result<PathBuf> {
    walk_beneath(base, rel, true)
}

/// `create_dirs_beneath` without creating: Ok when every directory of `rel` that exists beneath
/// `base` is a real one (a missing one ends the walk), else its error. For code that only reads
/// or removes what mewcode keeps there, such as the cleanup of old sessions.
pub(crate) fn check_dirs_beneath(base: &Path, rel: &Path) -> io::Result<()> {
    walk_beneath(base, rel, false).map(|_| ())
}

fn walk_beneath(base: &Path, rel: &Path, create: bool) -> io::Result<PathBuf> {
    let mut path = base.to_path_buf();
    for component in rel.components() {
        let Component::Normal(name) = component else {
            let message = format!("{} is not a plain relative path (no `/`, `.` or `..` at its start)", rel.display());
            return Err(io::Error::new(io::ErrorKind::InvalidInput, message));
        };
        path.push(name);
        match fs::symlink_metadata(&path) {
            Ok(meta) => check_real_dir(&path, &meta)?,
            Err(err) if err.kind() == io::ErrorKind::NotFound && !create => return Ok(path),
            Err(err) if err.kind() == io::ErrorKind::NotFound => match fs::create_dir(&path) {
                Ok(()) => {}
                // Someone made it between our look and our create: it must pass the same check.
                Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {
                    let meta = fs::symlink_metadata(&path).map_err(|err| with_path(&path, err))?;
                    check_real_dir(&path, &meta)?;
                }
                Err(err) => return Err(with_path(&path, err)),
            },
            Err(err) => return Err(with_path(&path, err)),
        }
    }
    Ok(path)
}

/// Opens the file `base/rel` for reading and appending (a session log): created new, with its
/// directories (`create_new`), or existing. Never through a symbolic link: not one of `rel`'s
/// directories (created or checked by `create_dirs_beneath`, then walked with `O_NOFOLLOW`, the
/// file named relative to the directory so reached) and not one at the file's own name (on
/// reopen, append mode would follow it). What opens must be a regular file with no other hard
/// link: a second name elsewhere would receive the same bytes.
pub(crate) fn open_append_beneath(base: &Path, rel: &Path, create_new: bool) -> io::Result<File> {
    let (dir_rel, name) = split_file(rel)?;
    let path = base.join(rel);
    let dir = open_dir_beneath(base, dir_rel)?;
    let file = dir.open_append(name, create_new).map_err(|err| refusal_at(&path, err))?;
    let meta = file.metadata().map_err(|err| with_path(&path, err))?;
    if !meta.file_type().is_file() {
        return Err(io::Error::other(format!(
            "{} is not a regular file; mewcode does not write to it",
            path.display()
        )));
    }
    if meta.nlink() > 1 {
        let message = format!("{} has another hard link; mewcode does not write through it", path.display());
        return Err(io::Error::other(message));
    }
    if create_new {
        // The new directory entry must survive a crash too (not every file system syncs one).
        let _ = dir.sync();
    }
    Ok(file)
}

/// Writes `bytes` to the file `base/rel`, created anew with its directories, never through a
/// symbolic link (as `open_append_beneath`), and returns its path. Whatever is at the name
/// already (a leftover of an earlier failed attempt, a planted link) is removed first: a link
/// itself, never what it points to. A write that fails removes the file it created.
pub(crate) fn write_new_beneath(base: &Path, rel: &Path, bytes: &[u8]) -> io::Result<PathBuf> {
    let (dir_rel, name) = split_file(rel)?;
    let path = base.join(rel);
    let dir = open_dir_beneath(base, dir_rel)?;
    // Nothing there is the common case; anything that stays (a directory) fails `create_new`.
    let _ = dir.remove_file(name);
    let mut file = dir.create_new(name).map_err(|err| refusal_at(&path, err))?;
    if let Err(err) = file.write_all(bytes) {
        drop(file);
        let _ = dir.remove_file(name);
        return Err(with_path(&path, err));
    }
    Ok(path)
}

/// What `put_beneath` puts at a name.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Content<'a> {
    /// A regular file with these bytes and permission bits (`mode & 0o7777`).
    File { bytes: &'a [u8], mode: u32 },
    /// A symbolic link to `target`, stored as given (never resolved).
    Link { target: &'a Path },
}

/// Puts `content` at `root/rel` with one rename, for the files mewcode keeps (checkpoint
/// objects) and those it puts back (a rewind). `root` is absolute and canonical (its own links
/// make the call fail); the directories of `rel` are created beneath it as `create_dirs_beneath`
/// does, and then walked from `/` without following a link, so nothing is written through a link
/// planted on the way, even one pointing inside `root`. Whatever sits at the name (a file, a
/// link: the link itself, never what it points to) is replaced whole; a directory there is not
/// (an error). `durable`: the file is fsynced before the rename and the directory after, as
/// `write_atomic` does; without it a crash still never leaves a torn file (the rename is atomic),
/// but power loss may lose the file.
pub(crate) fn put_beneath(root: &Path, rel: &Path, content: Content<'_>, durable: bool) -> io::Result<()> {
    let (dir_rel, name) = split_file(rel)?;
    let path = root.join(rel);
    create_dirs_beneath(root, dir_rel)?;
    let dir = Dir::open_no_symlinks(&root.join(dir_rel)).map_err(|err| with_path(&path, err))?;
    let temp = OsString::from(temp_name(name));
    let result = match content {
        Content::File { bytes, mode } => write_temp(&dir, &temp, bytes, mode, durable),
        Content::Link { target } => dir.symlink(target, &temp),
    }
    .and_then(|()| dir.rename(&temp, name));
    if let Err(err) = result {
        // The temporary entry is ours and useless now; failing to remove it changes nothing.
        let _ = dir.remove_file(&temp);
        return Err(with_path(&path, err));
    }
    if durable {
        let _ = dir.sync();
    }
    Ok(())
}

fn write_temp(dir: &Dir, temp: &OsStr, bytes: &[u8], mode: u32, durable: bool) -> io::Result<()> {
    let mut file = dir.create_new(temp)?;
    file.write_all(bytes)?;
    file.set_permissions(fs::Permissions::from_mode(mode & 0o7777))?;
    if durable {
        file.sync_all()?;
    }
    Ok(())
}

/// Removes the file or link `root/rel` (a link itself, never what it points to), reaching its
/// directory from `/` without following a link (`root` absolute and canonical, as for
/// `put_beneath`). Nothing there, or a directory on the way missing, is success: it is gone.
pub(crate) fn remove_beneath(root: &Path, rel: &Path) -> io::Result<()> {
    remove_entry_beneath(root, rel, false)
}

/// Removes the directory `root/rel` when it is empty, as `remove_beneath` reaches it; one that
/// holds anything (or is a link) stays and is an error.
pub(crate) fn remove_empty_dir_beneath(root: &Path, rel: &Path) -> io::Result<()> {
    remove_entry_beneath(root, rel, true)
}

fn remove_entry_beneath(root: &Path, rel: &Path, is_dir: bool) -> io::Result<()> {
    let (dir_rel, name) = split_file(rel)?;
    let path = root.join(rel);
    let dir = match Dir::open_no_symlinks(&root.join(dir_rel)) {
        Ok(dir) => dir,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(err) => return Err(with_path(&path, err)),
    };
    let removed = if is_dir { dir.remove_dir(name) } else { dir.remove_file(name) };
    match removed {
        Err(err) if err.kind() != io::ErrorKind::NotFound => Err(with_path(&path, err)),
        Ok(()) | Err(_) => Ok(()),
    }
}

/// `create_dirs_beneath`, then that directory held open, walked from `/` without following a
/// link (`base` resolved first: its own links are the user's). A link that appeared on the way
/// since the check makes this fail: nothing is written.
fn open_dir_beneath(base: &Path, rel: &Path) -> io::Result<Dir> {
    let path = create_dirs_beneath(base, rel)?;
    let resolved = fs::canonicalize(base).map_err(|err| with_path(base, err))?.join(rel);
    Dir::open_no_symlinks(&resolved).map_err(|err| {
        if !is_not_a_plain_directory(&err) {
            return with_path(&path, err);
        }
        let message = format!(
            "{}: a directory on the way was replaced (by a symbolic link or a file) after it was checked; \
             mewcode does not write through it",
            path.display()
        );
        io::Error::new(err.kind(), message)
    })
}

/// A directory mewcode owns must be one, not a link to one.
fn check_real_dir(path: &Path, meta: &fs::Metadata) -> io::Result<()> {
    if meta.file_type().is_symlink() {
        return Err(symlink_refusal(path));
    }
    if !meta.is_dir() {
        let message = format!("{} is not a directory; mewcode keeps its own files there", path.display());
        return Err(io::Error::new(io::ErrorKind::NotADirectory, message));
    }
    Ok(())
}

fn symlink_refusal(path: &Path) -> io::Error {
    io::Error::other(format!("{} is a symbolic link; mewcode does not write through it", path.display()))
}

/// An open of `path` failed: when a link sits at the name, say so (`O_NOFOLLOW` reports a
/// number, `create_new` "exists"); otherwise the error with the path.
fn refusal_at(path: &Path, err: io::Error) -> io::Error {
    if fs::symlink_metadata(path).is_ok_and(|meta| meta.file_type().is_symlink()) {
        return symlink_refusal(path);
    }
    with_path(path, err)
}

fn with_path(path: &Path, err: io::Error) -> io::Error {
    io::Error::new(err.kind(), format!("{}: {err}", path.display()))
}

/// `rel`'s directory part and file name.
fn split_file(rel: &Path) -> io::Result<(&Path, &OsStr)> {
    match (rel.parent(), rel.file_name()) {
        (Some(dir), Some(name)) => Ok((dir, name)),
        _ => Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{} names no file", rel.display()))),
    }
}

/// `write_atomic` for a file that must lie in `root` (absolute, canonical) or beneath it, as the
/// file tools' sandbox demands: the destination, resolved once here, is checked against `root`
/// before anything is written. This closes the window between the permission check and the
/// write (which includes the wait for the user's approval): a directory on the way, or the link
/// at the name, that is swapped to point outside after the check makes the write fail.
pub(crate) fn write_atomic_beneath(root: &Path, path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_observed(path, Some(root), bytes, &mut |_| {})
}

/// The points inside `write_atomic` where another process could change the file system; the
/// tests play that process here, without timing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// The destination directory and name are resolved; the directory is not open yet.
    Resolved,
    /// The directory is open; nothing is written yet.
    Opened,
}

fn write_atomic_observed(
    path: &Path,
    root: Option<&Path>,
    bytes: &[u8],
    observe: &mut dyn FnMut(Step),
) -> io::Result<()> {
    let (dir_path, name) = resolve_destination(path)?;
    if let Some(root) = root
        && !dir_path.starts_with(root)
    {
        let message = format!(
            "{} resolves to {}, outside {} (a symbolic link changed since the path was checked?); nothing was written",
            path.display(),
            dir_path.join(&name).display(),
            root.display()
        );
        return Err(io::Error::new(io::ErrorKind::PermissionDenied, message));
    }
    observe(Step::Resolved);
    let dir = Dir::open_no_symlinks(&dir_path).map_err(|err| {
        if !is_not_a_plain_directory(&err) {
            return err;
        }
        let message = format!(
            "{}: a directory on the way was replaced (by a symbolic link or a file) after the path was resolved; \
             nothing was written",
            dir_path.display()
        );
        io::Error::new(err.kind(), message)
    })?;
    observe(Step::Opened);
    // Only a regular file's mode is carried over: whatever else sits at the name now (a symlink
    // planted since the check, say) is replaced by the rename, and its mode means nothing.
    let permissions = match dir.entry(&name)? {
        Entry::RegularFile { permissions } => Some(fs::Permissions::from_mode(permissions)),
        Entry::Missing | Entry::Other => None,
    };
    let temp = OsString::from(temp_name(&name));
    let result = write_and_rename(&dir, &temp, &name, bytes, permissions);
    if result.is_err() {
        // The temporary file is ours and useless now; failing to remove it changes nothing.
        let _ = dir.remove_file(&temp);
    }
    result?;
    // Not every file system supports fsync on a directory; the data itself is already safe.
    let _ = dir.sync();
    Ok(())
}

/// The directory (absolute, free of symlinks) and the file name that a write to `path` replaces:
/// `path` itself, or the file a symlink at `path` points to.
fn resolve_destination(path: &Path) -> io::Result<(PathBuf, OsString)> {
    let target = match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => fs::canonicalize(path)?,
        _ => path.to_path_buf(),
    };
    let Some(name) = target.file_name() else {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{} names no file", path.display())));
    };
    let parent = match target.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    Ok((fs::canonicalize(parent)?, name.to_os_string()))
}

fn write_and_rename(
    dir: &Dir,
    temp: &OsStr,
    name: &OsStr,
    bytes: &[u8],
    permissions: Option<fs::Permissions>,
) -> io::Result<()> {
    let mut file = dir.create_new(temp)?;
    file.write_all(bytes)?;
    if let Some(permissions) = permissions {
        file.set_permissions(permissions)?;
    }
    file.sync_all()?;
    drop(file);
    dir.rename(temp, name)
}

/// A name no other writer uses: hidden, with our pid and a process-wide counter, so concurrent
/// writers (threads or processes) never share a temporary file.
fn temp_name(name: &OsStr) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!(".{}.mewcode-tmp-{}-{count}", name.to_string_lossy(), std::process::id())
}

/// True the first time a folder is met, and records it in `seen` (by where its links lead): a
/// folder reached twice (a link, the same path listed twice, mewcode started in `~`) is read
/// once. A folder that cannot be resolved is new (its read says why).
pub(crate) fn first_visit(seen: &mut Vec<PathBuf>, dir: &Path) -> bool {
    match std::fs::canonicalize(dir) {
        Ok(real) if seen.contains(&real) => false,
        Ok(real) => {
            seen.push(real);
            true
        }
        Err(_) => true,
    }
}

/// A small text file a user or a project wrote for mewcode (a slash command, a skill): at most
/// `max_bytes`, UTF-8, and, when `inside` is given (a project's), resolving inside that root so
/// a link cannot bring in a file from elsewhere. Errors are the end of a warning ("cannot read
/// it: ...", "it is larger than N KB", ...); `what` names the files in the link's ("commands").
pub(crate) fn read_own_text(path: &Path, inside: Option<&Path>, max_bytes: u64, what: &str) -> Result<String, String> {
    let real = fs::canonicalize(path).map_err(|err| format!("cannot read it: {err}"))?;
    if inside.is_some_and(|root| !real.starts_with(root)) {
        return Err(format!("it leads outside the project (a link); a project's {what} must be its own files"));
    }
    let file = File::open(path).map_err(|err| format!("cannot read it: {err}"))?;
    let mut bytes = Vec::new();
    io::Read::read_to_end(&mut io::Read::take(file, max_bytes + 1), &mut bytes)
        .map_err(|err| format!("cannot read it: {err}"))?;
    if bytes.len() as u64 > max_bytes {
        return Err(format!("it is larger than {} KB", max_bytes / 1024));
    }
    String::from_utf8(bytes).map_err(|_| "it is not UTF-8 text".to_string())
}

/// How a path is shown to the model: relative to the root when inside it (shorter, and accepted
/// back by every tool), absolute otherwise.
pub(crate) fn display_path(root: &Path, path: &Path) -> String {
    match path.strip_prefix(root) {
        Ok(relative) if !relative.as_os_str().is_empty() => relative.to_string_lossy().into_owned(),
        Ok(_) => ".".to_string(),
        Err(_) => path.to_string_lossy().into_owned(),
    }
}

#[cfg(test)]
#[path = "fsx_tests.rs"]
mod tests;
