//! Layer 2: the file sandbox. A path argument is allowed only when the file it names — after
//! `~`, `.`/`..` and every symlink are resolved the way the kernel would — is the project root
//! or beneath it (SPEC §5.2). The engine also lets a path resolve into a directory the user
//! added (`--add-dir`; `added_dir_holding` finds which one holds it).
//!
//! Invariant: the comparison is component-wise on fully resolved paths, so `/proj-evil` is not
//! inside `/proj`, a symlink pointing out is followed out, and a path that does not exist yet
//! resolves through its nearest existing ancestor (a new file under a symlinked directory lands
//! where the link points). Resolution walks one component at a time, like `realpath`: `..`
//! applies to the *resolved* parent (so `link/..` leaves through the link, as the kernel does),
//! and a dangling symlink is followed to where it would create its target. The root is
//! canonicalised here, so callers may pass any spelling of it. This is a check, not a
//! confinement: a symlink swapped in after the check (a race) is not seen; tools must still
//! open the returned path, never the raw one.

use crate::config::AddDir;
use std::fmt;
use std::io;
use std::path::{Component, Path, PathBuf};

/// Symlink hops followed before a path counts as a loop (Linux's own limit is 40).
const MAX_HOPS: usize = 40;

/// Why a path was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SandboxDenial {
    /// The path argument was empty.
    Empty,
    /// The path contains a NUL byte (the kernel would truncate it).
    Nul,
    /// `~` was used but no home directory is known, or `~user` was used.
    NoHome,
    /// The root itself cannot be resolved.
    BadRoot(String),
    /// Too many symlink hops (a loop).
    Loop,
    /// Resolution failed for another reason (permission denied, not a directory, …).
    Unresolvable(String),
    /// The resolved path is outside the project root.
    Outside(PathBuf),
}

impl fmt::Display for SandboxDenial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SandboxDenial::Empty => f.write_str("empty path"),
            SandboxDenial::Nul => f.write_str("path contains a NUL byte"),
            SandboxDenial::NoHome => f.write_str("cannot expand ~ here: use a path inside the project"),
            SandboxDenial::BadRoot(error) => write!(f, "project root cannot be resolved: {error}"),
            SandboxDenial::Loop => f.write_str("too many levels of symbolic links"),
            SandboxDenial::Unresolvable(error) => write!(f, "path cannot be resolved: {error}"),
            SandboxDenial::Outside(resolved) => {
                write!(f, "path resolves outside the project: {}", resolved.display())
            }
        }
    }
}

/// Resolves `raw` (relative to `root`, `~` expanded with `home`) and returns the resolved path
/// when it is `root` or beneath it.
pub(crate) fn check_path(root: &Path, raw: &str, home: Option<&Path>) -> Result<PathBuf, SandboxDenial> {
    if raw.is_empty() {
        return Err(SandboxDenial::Empty);
    }
    if raw.contains('\0') {
        return Err(SandboxDenial::Nul);
    }
    let root = std::fs::canonicalize(root).map_err(|error| SandboxDenial::BadRoot(error.to_string()))?;
    let joined = if raw == "~" || raw.starts_with("~/") {
        let home = home.ok_or(SandboxDenial::NoHome)?;
        home.join(raw.trim_start_matches('~').trim_start_matches('/'))
    } else if raw.starts_with('~') {
        return Err(SandboxDenial::NoHome);
    } else {
        root.join(raw)
    };
    let resolved = resolve(&joined)?;
    if is_inside(&root, &resolved) { Ok(resolved) } else { Err(SandboxDenial::Outside(resolved)) }
}

/// The sandbox's comparison: `resolved` (free of symlinks) is the canonical `root` or beneath
/// it, component-wise (so `/proj-evil` is not inside `/proj`).
pub(crate) fn is_inside(root: &Path, resolved: &Path) -> bool {
    resolved.starts_with(root)
}

/// The added directory (`--add-dir`) that holds `resolved` (free of symlinks), the deepest when
/// added directories nest: a writable one inside a read-only one decides its own files.
pub(crate) fn added_dir_holding<'a>(added: &'a [AddDir], resolved: &Path) -> Option<&'a AddDir> {
    added.iter().filter(|dir| is_inside(&dir.path, resolved)).max_by_key(|dir| dir.path.components().count())
}

/// Resolves an absolute path like `realpath -m`, but following dangling symlinks too.
pub(crate) fn resolve(path: &Path) -> Result<PathBuf, SandboxDenial> {
    let mut hops = 0;
    let mut resolved = PathBuf::from("/");
    walk(&mut resolved, path, &mut hops)?;
    Ok(resolved)
}

/// Applies `path`'s components to `resolved` (already free of symlinks).
fn walk(resolved: &mut PathBuf, path: &Path, hops: &mut usize) -> Result<(), SandboxDenial> {
    // Once a component is missing, everything after it is missing too: no more lookups.
    let mut missing = false;
    for component in path.components() {
        match component {
            Component::Prefix(_) => return Err(SandboxDenial::Unresolvable("unsupported path prefix".into())),
            Component::RootDir => {
                *resolved = PathBuf::from("/");
                missing = false;
            }
            Component::CurDir => {}
            Component::ParentDir => {
                resolved.pop();
                // `new/../link/x`: the tool creates `new`, so what follows must be looked up.
                missing = false;
            }
            Component::Normal(name) => {
                let candidate = resolved.join(name);
                if missing {
                    *resolved = candidate;
                    continue;
                }
                match std::fs::symlink_metadata(&candidate) {
                    Ok(meta) if meta.file_type().is_symlink() => {
                        *hops += 1;
                        if *hops > MAX_HOPS {
                            return Err(SandboxDenial::Loop);
                        }
                        let target = std::fs::read_link(&candidate).map_err(unresolvable)?;
                        // A relative target is relative to the link's directory (`resolved`).
                        walk(resolved, &target, hops)?;
                    }
                    Ok(_) => *resolved = candidate,
                    Err(error) if error.kind() == io::ErrorKind::NotFound => {
                        missing = true;
                        *resolved = candidate;
                    }
                    Err(error) => return Err(unresolvable(error)),
                }
            }
        }
    }
    Ok(())
}

fn unresolvable(error: io::Error) -> SandboxDenial {
    SandboxDenial::Unresolvable(error.to_string())
}

#[cfg(test)]
#[path = "sandbox_tests.rs"]
mod tests;
