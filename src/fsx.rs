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

/// Creates mewcode's directory `base/rel` (`<root>/.mewcode`) as `create_dirs_beneath` does, never
/// through a link, and, when it holds no `.gitignore`, writes `MEWCODE_DIR_GITIGNORE` there. An
/// existing `.gitignore` (the user's or the repository's own) is left alone, and nothing is
/// written through a link planted at the name (`create_new` refuses any existing entry, dangling
/// links included).
pub(crate) fn ensure_gitignored_dir(base: &Path, rel: &Path) -> io::Result<()> {
    let dir = open_dir_beneath(base, rel)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_tree::files_under;

    fn temp_dir(tag: &str) -> PathBuf {
        static N: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "mewcode-fsx-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn the_mewcode_dir_gets_its_gitignore_once_and_never_through_a_link() {
        let base = temp_dir("gitignore");
        let project = base.join("project");
        fs::create_dir_all(&project).unwrap();
        let dir = project.join(".mewcode");
        ensure_gitignored_dir(&project, Path::new(".mewcode")).unwrap();
        assert_eq!(fs::read_to_string(dir.join(".gitignore")).unwrap(), MEWCODE_DIR_GITIGNORE);
        // The user's own (or the repository's) file stays as it is.
        fs::write(dir.join(".gitignore"), "mine\n").unwrap();
        ensure_gitignored_dir(&project, Path::new(".mewcode")).unwrap();
        assert_eq!(fs::read_to_string(dir.join(".gitignore")).unwrap(), "mine\n");
        // A dangling link at the name is not followed.
        fs::remove_file(dir.join(".gitignore")).unwrap();
        std::os::unix::fs::symlink(base.join("victim"), dir.join(".gitignore")).unwrap();
        ensure_gitignored_dir(&project, Path::new(".mewcode")).unwrap();
        assert!(!base.join("victim").exists());
        // `.mewcode` itself as a link out: refused, nothing written where it points.
        fs::remove_dir_all(&dir).unwrap();
        fs::create_dir_all(base.join("outside")).unwrap();
        std::os::unix::fs::symlink(base.join("outside"), &dir).unwrap();
        let err = ensure_gitignored_dir(&project, Path::new(".mewcode")).unwrap_err();
        assert!(err.to_string().contains("is a symbolic link; mewcode does not write through it"), "{err}");
        assert_eq!(fs::read_dir(base.join("outside")).unwrap().count(), 0);
        let _ = fs::remove_dir_all(&base);
    }

    /// A project (reached through a link, as a user's checkout may be) and, beside it, an
    /// `outside` directory holding `keep.txt`: where a planted link wants mewcode's writes.
    fn project_with_outside(tag: &str) -> (PathBuf, PathBuf, PathBuf) {
        let base = fs::canonicalize(temp_dir(tag)).unwrap();
        fs::create_dir_all(base.join("real-project")).unwrap();
        std::os::unix::fs::symlink(base.join("real-project"), base.join("project")).unwrap();
        fs::create_dir_all(base.join("outside")).unwrap();
        fs::write(base.join("outside/keep.txt"), "keep").unwrap();
        (base.clone(), base.join("project"), base.join("outside"))
    }

    fn outside_untouched(outside: &Path) {
        let names: Vec<_> = fs::read_dir(outside).unwrap().map(|entry| entry.unwrap().file_name()).collect();
        assert_eq!(names, vec![OsString::from("keep.txt")]);
        assert_eq!(fs::read_to_string(outside.join("keep.txt")).unwrap(), "keep");
    }

    #[test]
    fn mewcode_dirs_are_created_beneath_the_root_and_every_planted_link_or_file_on_the_way_is_refused() {
        let (base, project, outside) = project_with_outside("beneath");
        let rel = Path::new(".mewcode/sessions/20260101-000000-abcd/tool-results");
        // The root itself is reached through a link: that is the user's business, allowed.
        assert_eq!(create_dirs_beneath(&project, rel).unwrap(), project.join(rel));
        assert!(fs::symlink_metadata(project.join(rel)).unwrap().is_dir());
        assert_eq!(create_dirs_beneath(&project, rel).unwrap(), project.join(rel), "existing directories pass");
        // Each of mewcode's own components in turn as a link out (and as a dangling link).
        for planted in
            [".mewcode", ".mewcode/sessions", ".mewcode/sessions/20260101-000000-abcd", rel.to_str().unwrap()]
        {
            let _ = fs::remove_dir_all(project.join(".mewcode"));
            fs::create_dir_all(project.join(planted).parent().unwrap()).unwrap();
            for target in [outside.clone(), base.join("nowhere")] {
                std::os::unix::fs::symlink(&target, project.join(planted)).unwrap();
                let err = create_dirs_beneath(&project, &rel.join("more")).unwrap_err();
                let expected = format!(
                    "{} is a symbolic link; mewcode does not write through it",
                    project.join(planted).display()
                );
                assert_eq!(err.to_string(), expected);
                fs::remove_file(project.join(planted)).unwrap();
            }
            // A file in its place.
            fs::write(project.join(planted), "x").unwrap();
            let err = create_dirs_beneath(&project, rel).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::NotADirectory, "{planted}: {err}");
            assert!(err.to_string().contains(&project.join(planted).display().to_string()), "{err}");
            fs::remove_file(project.join(planted)).unwrap();
        }
        outside_untouched(&outside);
        assert!(!base.join("nowhere").exists());
        // Checking alone creates nothing and finds the same links.
        let _ = fs::remove_dir_all(project.join(".mewcode"));
        check_dirs_beneath(&project, rel).unwrap();
        assert!(!project.join(".mewcode").exists());
        std::os::unix::fs::symlink(&outside, project.join(".mewcode")).unwrap();
        assert!(check_dirs_beneath(&project, rel).unwrap_err().to_string().contains(".mewcode is a symbolic link"));
        fs::remove_file(project.join(".mewcode")).unwrap();
        for not_plain in ["/etc", "../outside", "a/../../outside", "./a"] {
            let err = create_dirs_beneath(&project, Path::new(not_plain)).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{not_plain}: {err}");
        }
        outside_untouched(&outside);
        let _ = fs::remove_dir_all(&base);
    }

    #[test]
    fn a_log_is_created_and_reopened_for_append_never_through_a_link_or_a_second_hard_link() {
        let (base, project, outside) = project_with_outside("append-beneath");
        let rel = Path::new(".mewcode/sessions/s/conversation.jsonl");
        open_append_beneath(&project, rel, true).unwrap().write_all(b"one\n").unwrap();
        assert!(open_append_beneath(&project, rel, true).is_err(), "create never reuses a file");
        open_append_beneath(&project, rel, false).unwrap().write_all(b"two\n").unwrap();
        assert_eq!(fs::read_to_string(project.join(rel)).unwrap(), "one\ntwo\n");
        // A link at the log's name, to an existing file outside: neither mode writes through it.
        fs::remove_file(project.join(rel)).unwrap();
        std::os::unix::fs::symlink(outside.join("keep.txt"), project.join(rel)).unwrap();
        for create_new in [false, true] {
            let err = open_append_beneath(&project, rel, create_new).unwrap_err();
            assert!(err.to_string().contains("is a symbolic link; mewcode does not write through it"), "{err}");
        }
        // A hard link to a file elsewhere receives the same bytes: refused too.
        fs::remove_file(project.join(rel)).unwrap();
        fs::hard_link(outside.join("keep.txt"), project.join(rel)).unwrap();
        let err = open_append_beneath(&project, rel, false).unwrap_err();
        assert!(err.to_string().contains("has another hard link"), "{err}");
        fs::remove_file(project.join(rel)).unwrap();
        // A directory on the way as a link: refused before anything is opened or created.
        fs::remove_dir_all(project.join(".mewcode/sessions/s")).unwrap();
        std::os::unix::fs::symlink(&outside, project.join(".mewcode/sessions/s")).unwrap();
        for create_new in [false, true] {
            let err = open_append_beneath(&project, rel, create_new).unwrap_err();
            assert!(err.to_string().contains("sessions/s is a symbolic link"), "{err}");
        }
        outside_untouched(&outside);
        let _ = fs::remove_dir_all(&base);
    }

    #[test]
    fn a_new_file_beneath_replaces_a_planted_link_or_leftover_and_never_writes_through_a_linked_directory() {
        let (base, project, outside) = project_with_outside("new-beneath");
        let rel = Path::new(".mewcode/results/big");
        assert_eq!(write_new_beneath(&project, rel, b"first").unwrap(), project.join(rel));
        assert_eq!(write_new_beneath(&project, rel, b"second").unwrap(), project.join(rel), "a leftover is replaced");
        fs::remove_file(project.join(rel)).unwrap();
        std::os::unix::fs::symlink(outside.join("keep.txt"), project.join(rel)).unwrap();
        write_new_beneath(&project, rel, b"third").unwrap();
        assert!(fs::symlink_metadata(project.join(rel)).unwrap().is_file(), "the link itself was replaced");
        assert_eq!(fs::read_to_string(project.join(rel)).unwrap(), "third");
        fs::remove_dir_all(project.join(".mewcode/results")).unwrap();
        std::os::unix::fs::symlink(&outside, project.join(".mewcode/results")).unwrap();
        let err = write_new_beneath(&project, rel, b"payload").unwrap_err();
        assert!(err.to_string().contains("results is a symbolic link"), "{err}");
        outside_untouched(&outside);
        let _ = fs::remove_dir_all(&base);
    }

    #[test]
    fn clean_path_folds_dots_lexically() {
        let cases = [
            ("/a/b/../c", "/a/c"),
            ("/a/./b/", "/a/b"),
            ("/../..", "/"),
            ("a/../..", ".."),
            ("a/..", "."),
            ("./x//y", "x/y"),
            ("/a/b/../../..", "/"),
        ];
        for (input, expected) in cases {
            assert_eq!(clean_path(Path::new(input)), PathBuf::from(expected), "input {input}");
        }
    }

    #[test]
    fn resolve_path_joins_relative_and_keeps_absolute() {
        let root = Path::new("/proj");
        assert_eq!(resolve_path(root, "src/main.rs"), PathBuf::from("/proj/src/main.rs"));
        assert_eq!(resolve_path(root, "../etc/passwd"), PathBuf::from("/etc/passwd"));
        assert_eq!(resolve_path(root, "/tmp/x/../y"), PathBuf::from("/tmp/y"));
        assert_eq!(resolve_path(root, "."), PathBuf::from("/proj"));
        assert_eq!(resolve_path(root, ""), PathBuf::from("/proj"));
    }

    #[test]
    fn write_atomic_creates_and_replaces_without_leftovers() {
        let dir = temp_dir("write");
        let target = dir.join("file.txt");
        write_atomic(&target, b"one").unwrap();
        write_atomic(&target, b"two").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"two");
        let names: Vec<_> = fs::read_dir(&dir).unwrap().map(|entry| entry.unwrap().file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from("file.txt")]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn write_atomic_keeps_permissions_of_the_existing_file() {
        let dir = temp_dir("perm");
        let target = dir.join("script.sh");
        fs::write(&target, "old").unwrap();
        fs::set_permissions(&target, fs::Permissions::from_mode(0o751)).unwrap();
        write_atomic(&target, b"new").unwrap();
        assert_eq!(fs::metadata(&target).unwrap().permissions().mode() & 0o777, 0o751);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn write_atomic_through_a_symlink_keeps_the_link() {
        let dir = temp_dir("link");
        let real = dir.join("real.txt");
        let link = dir.join("link.txt");
        fs::write(&real, "old").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(fs::read(&real).unwrap(), b"new");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn write_atomic_refuses_a_dangling_symlink() {
        let dir = temp_dir("dangling");
        let link = dir.join("link.txt");
        std::os::unix::fs::symlink(dir.join("nowhere/new.txt"), &link).unwrap();
        assert!(write_atomic(&link, b"x").is_err());
        assert!(!dir.join("nowhere").exists());
        fs::remove_dir_all(&dir).unwrap();
    }

    /// A project with `sub/file.txt` (content "old") and, beside it, an `outside` directory with
    /// `secret.txt`, the place an attacker wants the write to land.
    struct Race {
        base: PathBuf,
        project: PathBuf,
        outside: PathBuf,
    }

    impl Race {
        fn new(tag: &str) -> Race {
            let base = fs::canonicalize(temp_dir(tag)).unwrap();
            let (project, outside) = (base.join("project"), base.join("outside"));
            fs::create_dir_all(project.join("sub")).unwrap();
            fs::create_dir_all(&outside).unwrap();
            fs::write(project.join("sub/file.txt"), "old").unwrap();
            fs::write(outside.join("secret.txt"), "secret").unwrap();
            Race { base, project, outside }
        }

        /// Moves directory `dir` aside (to `<dir>-moved`, returned) and puts a symlink to
        /// `outside` in its place: the swap an attacker races against the write.
        fn swap_for_symlink(&self, dir: &Path) -> PathBuf {
            let moved = PathBuf::from(format!("{}-moved", dir.display()));
            fs::rename(dir, &moved).unwrap();
            std::os::unix::fs::symlink(&self.outside, dir).unwrap();
            moved
        }

        fn outside_untouched(&self) {
            let secret = self.outside.join("secret.txt");
            assert_eq!(files_under(&self.outside), vec![(secret, b"secret".to_vec())]);
        }
    }

    impl Drop for Race {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.base);
        }
    }

    #[test]
    fn a_directory_swapped_for_a_symlink_after_resolution_is_refused_and_nothing_is_written() {
        // The file's parent, then its grandparent (the project directory itself).
        for (swapped, file_in_moved) in [("project/sub", "file.txt"), ("project", "sub/file.txt")] {
            let race = Race::new("race-resolved");
            let swapped = race.base.join(swapped);
            let mut moved = None;
            let result = write_atomic_observed(&race.project.join("sub/file.txt"), None, b"payload", &mut |step| {
                if step == Step::Resolved {
                    moved = Some(race.swap_for_symlink(&swapped));
                }
            });
            let err = result.unwrap_err().to_string();
            assert!(err.contains("was replaced") && err.contains("nothing was written"), "{err}");
            race.outside_untouched();
            let moved = moved.unwrap();
            let original = moved.join(file_in_moved);
            assert_eq!(files_under(&moved), vec![(original, b"old".to_vec())], "unchanged, no temporary file");
        }
    }

    #[test]
    fn a_directory_swapped_after_it_was_opened_does_not_move_the_write() {
        let race = Race::new("race-opened");
        let mut moved = None;
        write_atomic_observed(&race.project.join("sub/file.txt"), None, b"payload", &mut |step| {
            if step == Step::Opened {
                moved = Some(race.swap_for_symlink(&race.project.join("sub")));
            }
        })
        .unwrap();
        race.outside_untouched();
        let written = moved.unwrap().join("file.txt");
        assert_eq!(fs::read_to_string(written).unwrap(), "payload", "in the directory that was opened");
    }

    #[test]
    fn a_symlink_planted_at_the_file_name_after_resolution_is_replaced_not_followed() {
        for step_of_swap in [Step::Resolved, Step::Opened] {
            let race = Race::new("race-leaf");
            let target = race.project.join("sub/file.txt");
            write_atomic_observed(&target, None, b"payload", &mut |step| {
                if step == step_of_swap {
                    fs::remove_file(&target).unwrap();
                    std::os::unix::fs::symlink(race.outside.join("secret.txt"), &target).unwrap();
                }
            })
            .unwrap();
            race.outside_untouched();
            let meta = fs::symlink_metadata(&target).unwrap();
            assert!(meta.file_type().is_file(), "{step_of_swap:?}: the planted link was replaced by the file");
            assert_eq!(fs::read_to_string(&target).unwrap(), "payload");
            // A link's mode (0777) is not carried over to the new file.
            assert_ne!(meta.permissions().mode() & 0o777, 0o777);
        }
    }

    #[test]
    fn a_swap_between_the_permission_check_and_the_call_is_caught_beneath_the_root() {
        // The check saw `sub/` inside the project; by the time the write comes (after the user
        // approved it, say) `sub` points outside, and so does the link at another name.
        let race = Race::new("race-before-call");
        let target = race.project.join("sub/file.txt");
        let moved = race.swap_for_symlink(&race.project.join("sub"));
        let err = write_atomic_beneath(&race.project, &target, b"payload").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::PermissionDenied, "{err}");
        assert!(err.to_string().contains("outside") && err.to_string().contains("nothing was written"), "{err}");
        std::os::unix::fs::symlink(race.outside.join("secret.txt"), race.project.join("link.txt")).unwrap();
        assert!(write_atomic_beneath(&race.project, &race.project.join("link.txt"), b"payload").is_err());
        race.outside_untouched();
        assert_eq!(fs::read_to_string(moved.join("file.txt")).unwrap(), "old");
        // The same swap after resolution is the walk's to catch, with the root given too.
        let race = Race::new("race-beneath-resolved");
        let target = race.project.join("sub/file.txt");
        let result = write_atomic_observed(&target, Some(&race.project), b"payload", &mut |step| {
            if step == Step::Resolved {
                race.swap_for_symlink(&race.project.join("sub"));
            }
        });
        assert!(result.unwrap_err().to_string().contains("was replaced"));
        race.outside_untouched();
    }

    #[test]
    fn beneath_the_root_allows_the_root_itself_its_subdirectories_and_links_inside_it() {
        let race = Race::new("beneath");
        let root = &race.project;
        fs::create_dir_all(root.join("real")).unwrap();
        std::os::unix::fs::symlink(root.join("real"), root.join("alias")).unwrap();
        std::os::unix::fs::symlink(root.join("real/target.txt"), root.join("link.txt")).unwrap();
        fs::write(root.join("real/target.txt"), "old").unwrap();
        write_atomic_beneath(root, &root.join("top.txt"), b"top").unwrap();
        write_atomic_beneath(root, &root.join("sub/file.txt"), b"sub").unwrap();
        write_atomic_beneath(root, &root.join("alias/new.txt"), b"aliased").unwrap();
        write_atomic_beneath(root, &root.join("link.txt"), b"linked").unwrap();
        let read = |rel: &str| fs::read_to_string(root.join(rel)).unwrap();
        assert_eq!(
            [read("top.txt"), read("sub/file.txt"), read("real/new.txt"), read("real/target.txt")],
            ["top", "sub", "aliased", "linked"]
        );
        // A sibling that merely shares the root's name as a prefix is outside.
        let sibling = race.base.join("project-evil");
        fs::create_dir_all(&sibling).unwrap();
        assert!(write_atomic_beneath(root, &sibling.join("x.txt"), b"x").is_err());
        assert!(!sibling.join("x.txt").exists());
    }

    #[test]
    fn write_atomic_through_a_symlinked_directory_resolved_before_the_call_still_works() {
        // A link the permission check saw and followed (here: into the project's own `real/`).
        let race = Race::new("linked-dir");
        fs::create_dir_all(race.project.join("real")).unwrap();
        std::os::unix::fs::symlink(race.project.join("real"), race.project.join("alias")).unwrap();
        write_atomic(&race.project.join("alias/new.txt"), b"via alias").unwrap();
        assert_eq!(fs::read_to_string(race.project.join("real/new.txt")).unwrap(), "via alias");
        assert!(fs::symlink_metadata(race.project.join("alias")).unwrap().file_type().is_symlink());
    }

    #[test]
    fn temporary_names_are_hidden_named_after_the_file_and_never_repeat() {
        let (first, second) = (temp_name(OsStr::new("a.rs")), temp_name(OsStr::new("a.rs")));
        let prefix = format!(".a.rs.mewcode-tmp-{}-", std::process::id());
        assert!(first.starts_with(&prefix) && second.starts_with(&prefix), "{first} {second}");
        assert_ne!(first, second, "two writers of one file in one process must not share a temporary file");
    }

    #[test]
    fn a_bare_file_name_resolves_to_the_current_directory() {
        let here = fs::canonicalize(".").unwrap();
        assert_eq!(resolve_destination(Path::new("x.txt")).unwrap(), (here.clone(), OsString::from("x.txt")));
        assert_eq!(resolve_destination(Path::new("./x.txt")).unwrap(), (here, OsString::from("x.txt")));
        assert_eq!(resolve_destination(Path::new("/")).unwrap_err().kind(), io::ErrorKind::InvalidInput);
    }

    #[test]
    fn write_atomic_fails_cleanly_when_the_parent_is_missing() {
        let dir = temp_dir("missing");
        let target = dir.join("no/such/dir/file.txt");
        assert!(write_atomic(&target, b"x").is_err());
        fs::remove_dir_all(&dir).unwrap();
    }
}
