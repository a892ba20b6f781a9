//! File-system helpers shared by the tools and the session code: atomic writes and lexical path
//! resolution.
//!
//! Invariant: `write_atomic` never leaves a half-written target. Readers see either the old
//! content or the new content, because the bytes go to a temporary file in the same directory,
//! are fsynced, and only then renamed over the target (rename is atomic within one file system).
//! Path helpers are pure: they never touch the disk, never resolve symlinks and never read the
//! environment (`~` is not expanded). Permission checks are not done here.

use std::fs;
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Resolves a path given by the model: absolute paths are kept, relative ones are joined to
/// `root`; the result is cleaned lexically (see `clean_path`).
pub fn resolve_path(root: &Path, raw: &str) -> PathBuf {
    let raw_path = Path::new(raw);
    if raw_path.is_absolute() { clean_path(raw_path) } else { clean_path(&root.join(raw_path)) }
}

/// Removes `.` components and folds `name/..` pairs without looking at the disk. A `..` that would
/// climb above the root of an absolute path stays at the root (as the kernel does); on a relative
/// path a leading `..` is kept. An empty result becomes `.`.
pub fn clean_path(path: &Path) -> PathBuf {
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
/// file). The parent directory must exist; callers that want it created call `create_dir_all`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let target = match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => fs::canonicalize(path)?,
        _ => path.to_path_buf(),
    };
    let existing_permissions = fs::metadata(&target).ok().map(|meta| meta.permissions());
    let dir = match target.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let temp_path = dir.join(temp_name(&target));
    let result = write_and_rename(&temp_path, &target, bytes, existing_permissions);
    if result.is_err() {
        // The temporary file is ours and useless now; failing to remove it changes nothing.
        let _ = fs::remove_file(&temp_path);
    }
    result?;
    if let Ok(dir_handle) = fs::File::open(&dir) {
        // Not every file system supports fsync on a directory; the data itself is already safe.
        let _ = dir_handle.sync_all();
    }
    Ok(())
}

fn write_and_rename(
    temp_path: &Path,
    target: &Path,
    bytes: &[u8],
    permissions: Option<fs::Permissions>,
) -> io::Result<()> {
    let mut file = fs::OpenOptions::new().write(true).create_new(true).open(temp_path)?;
    file.write_all(bytes)?;
    if let Some(permissions) = permissions {
        file.set_permissions(permissions)?;
    }
    file.sync_all()?;
    drop(file);
    fs::rename(temp_path, target)
}

/// A name no other writer uses: hidden, with our pid and a process-wide counter, so concurrent
/// writers (threads or processes) never share a temporary file.
fn temp_name(target: &Path) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let base = target.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
    format!(".{base}.mewcode-tmp-{}-{count}", std::process::id())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

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
    fn write_atomic_fails_cleanly_when_the_parent_is_missing() {
        let dir = temp_dir("missing");
        let target = dir.join("no/such/dir/file.txt");
        assert!(write_atomic(&target, b"x").is_err());
        fs::remove_dir_all(&dir).unwrap();
    }
}
