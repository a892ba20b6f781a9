//! The view of the machine a command sees, planned as data (the steps `sys::namespace::build`
//! carries out in the command's own mount namespace):
//! - everything read-only, nosuid and nodev, so every write *and* every change of mode, owner,
//!   times, extended attributes or flags outside fails with EROFS whatever the program;
//! - private, size-capped tmpfs at `/tmp`, `/var/tmp`, `/run` and `/var/run` (the sockets of the
//!   user's tmux, ssh-agent, D-Bus and docker live there), and a minimal `/dev`: the five data
//!   devices, a private `/dev/shm` and `/dev/pts`, no terminal, no disk;
//! - the writable roots (the project, the session's `$TMPDIR`, the configured paths) put back
//!   read-write, from copies kept before the freeze;
//! - inside them, the control paths (git hooks and config, `.mewcode/`, `.husky/`, AGENTS.md …)
//!   bound read-only over themselves, and every directory between a root and a control path
//!   (`.git`, a subdirectory holding an AGENTS.md) pinned — bound over itself as it is — so it
//!   cannot be renamed away and replaced by one holding other hooks or instructions;
//! - the hidden paths (secret stores, `$MEWCODE_HOME`, other users' homes, and every other mount
//!   of the same files) covered by an empty read-only directory or a read-only `/dev/null`.
//!
//! Invariant: pure — paths and a lookup of what each path is in, steps out. The order is the
//! guarantee: copies are kept before the freeze, tmpfs mounts come before what is attached under
//! them, control paths and hidden paths come last so nothing later uncovers them. A hidden path
//! that holds a writable root or an allowed socket is not hidden (the user chose to work there);
//! a path under a fresh tmpfs needs no hiding (it is not in the view at all).

use crate::sys::namespace::{SLOTS, Step};
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// The device nodes of the view's `/dev`, bound from the host's.
pub(crate) const DEVICES: [&str; 5] = ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"];
/// Directories replaced by a private tmpfs (when they are real directories, not links).
const PRIVATE: [&str; 4] = ["/run", "/tmp", "/var/run", "/var/tmp"];
/// The links every `/dev` has.
const DEV_LINKS: [(&str, &str); 5] = [
    ("/proc/self/fd", "/dev/fd"),
    ("/proc/self/fd/0", "/dev/stdin"),
    ("/proc/self/fd/1", "/dev/stdout"),
    ("/proc/self/fd/2", "/dev/stderr"),
    ("pts/ptmx", "/dev/ptmx"),
];

/// What a path is on the host (`lstat`), as the plan needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Dir,
    /// Anything else that is not a link: a file, a socket, a device.
    File,
    Link,
}

/// Sizes of the private tmpfs mounts, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Sizes {
    pub tmp: u64,
    pub shm: u64,
}

/// What the view is made from: absolute, canonical paths.
#[derive(Debug, Default)]
pub(super) struct Inputs {
    /// Read-write: the project root, the session's temp dir, configured paths.
    pub writable: Vec<PathBuf>,
    /// Read-only inside a writable root.
    pub control: Vec<PathBuf>,
    /// Not visible.
    pub hidden: Vec<PathBuf>,
    /// Unix sockets the user allowed, bound into the view where a private tmpfs covers them.
    pub sockets: Vec<PathBuf>,
    /// Files the system needs that live under a private directory (the target of a
    /// `/etc/resolv.conf` link into `/run`, as systemd-resolved makes it): bound in read-only.
    pub system_files: Vec<PathBuf>,
}

/// The plan: the steps, and what is writable in the view (for the Landlock layer built after it).
#[derive(Debug)]
pub(super) struct Plan {
    pub steps: Vec<Step>,
    /// Directories writable in the view: the roots, the private tmpfs mounts, `/dev/pts`.
    pub writable: Vec<PathBuf>,
    /// Files writable in the view: the devices.
    pub devices: Vec<PathBuf>,
}

/// Plans the view. `kind` answers what a path is on the host, None when it does not exist.
pub(super) fn plan(inputs: &Inputs, sizes: Sizes, kind: &dyn Fn(&Path) -> Option<Kind>) -> Result<Plan, String> {
    let is_dir = |path: &str| kind(Path::new(path)) == Some(Kind::Dir);
    let mut private: Vec<PathBuf> = PRIVATE.iter().filter(|path| is_dir(path)).map(PathBuf::from).collect();
    let dev = is_dir("/dev");
    let mut covers = private.clone();
    if dev {
        covers.push(PathBuf::from("/dev"));
    }
    let roots = outermost(&inputs.writable);
    // A socket is bound only where a private tmpfs would hide it; elsewhere it is in the view.
    let sockets: Vec<&PathBuf> = inputs
        .sockets
        .iter()
        .filter(|socket| matches!(cover(socket, &covers, &roots), Some(Cover::Tmpfs(_))))
        .collect();
    let devices: Vec<PathBuf> =
        if dev { DEVICES.iter().map(PathBuf::from).filter(|path| kind(path).is_some()).collect() } else { Vec::new() };

    let mut steps = Vec::new();
    let mut slot = 0;
    let mut keep = |path: &Path, steps: &mut Vec<Step>| -> Result<usize, String> {
        if slot >= SLOTS {
            return Err(format!("too many writable paths and sockets (at most {SLOTS})"));
        }
        steps.push(Step::Keep { path: c_path(path)?, slot });
        slot += 1;
        Ok(slot - 1)
    };
    let attached_roots: Vec<(usize, &PathBuf)> =
        roots.iter().map(|root| Ok((keep(root, &mut steps)?, root))).collect::<Result<_, String>>()?;
    let kept_devices: Vec<(usize, &PathBuf)> =
        devices.iter().map(|device| Ok((keep(device, &mut steps)?, device))).collect::<Result<_, String>>()?;
    let kept_sockets: Vec<(usize, &PathBuf)> =
        sockets.iter().map(|socket| Ok((keep(socket, &mut steps)?, *socket))).collect::<Result<_, String>>()?;
    let system_files: Vec<&PathBuf> = inputs
        .system_files
        .iter()
        .filter(|file| matches!(cover(file, &covers, &roots), Some(Cover::Tmpfs(_))))
        .collect();
    let kept_files: Vec<(usize, &PathBuf)> =
        system_files.iter().map(|file| Ok((keep(file, &mut steps)?, *file))).collect::<Result<_, String>>()?;
    steps.push(Step::FreezeAll);

    if dev {
        steps.push(tmpfs("/dev", "mode=0755,size=65536"));
        for (slot, device) in kept_devices {
            steps.push(Step::Touch { path: c_path(device)? });
            steps.push(Step::Attach { slot, path: c_path(device)? });
        }
        for (target, link) in DEV_LINKS {
            steps.push(Step::Symlink { target: c_str(target)?, path: c_str(link)? });
        }
        steps.push(Step::Mkdir { path: c_str("/dev/pts")? });
        steps.push(Step::Devpts { path: c_str("/dev/pts")? });
        steps.push(Step::Mkdir { path: c_str("/dev/shm")? });
        steps.push(tmpfs("/dev/shm", &format!("mode=1777,size={}", sizes.shm)));
    }
    private.sort_by_key(|path| path.components().count());
    for point in &private {
        steps.push(tmpfs(&point.to_string_lossy(), &format!("mode=1777,size={}", sizes.tmp)));
    }
    for (slot, root) in attached_roots {
        mount_point(root, Kind::Dir, &covers, &roots, &mut steps)?;
        steps.push(Step::Attach { slot, path: c_path(root)? });
    }
    for (slot, socket) in kept_sockets {
        mount_point(socket, Kind::File, &covers, &roots, &mut steps)?;
        steps.push(Step::Attach { slot, path: c_path(socket)? });
    }
    for (slot, file) in kept_files {
        mount_point(file, Kind::File, &covers, &roots, &mut steps)?;
        steps.push(Step::Attach { slot, path: c_path(file)? });
        steps.push(Step::ReadOnly { path: c_path(file)? });
    }
    let controls: Vec<(&PathBuf, &Path)> = inputs
        .control
        .iter()
        .filter(|path| kind(path).is_some())
        .filter_map(|path| match cover(path, &covers, &roots) {
            Some(Cover::Root(root)) => Some((path, root)),
            _ => None,
        })
        .collect();
    let mut pins: Vec<&Path> = controls
        .iter()
        .flat_map(|(path, root)| path.ancestors().skip(1).take_while(move |ancestor| ancestor != root))
        .collect();
    pins.sort_by_key(|path| (path.components().count(), path.to_path_buf()));
    pins.dedup();
    for pin in pins {
        steps.push(Step::Pin { path: c_path(pin)? });
    }
    for (path, _) in controls {
        steps.push(Step::ReadOnly { path: c_path(path)? });
    }
    for path in &inputs.hidden {
        let holds_something = roots.iter().chain(inputs.sockets.iter()).any(|inner| inner.starts_with(path));
        let visible = !matches!(cover(path, &covers, &roots), Some(Cover::Tmpfs(_)));
        if holds_something || !visible {
            continue;
        }
        match kind(path) {
            Some(Kind::Dir) => {
                steps.push(Step::Tmpfs { path: c_path(path)?, options: c_str("mode=0555,size=4096")?, read_only: true })
            }
            Some(Kind::File) if dev => steps.push(Step::Blank { source: c_str("/dev/null")?, path: c_path(path)? }),
            // A link is decided at its target (hidden too if it is a secret); a missing path
            // cannot appear: everything outside the writable roots is read-only.
            _ => {}
        }
    }
    let mut writable: Vec<PathBuf> = roots.clone();
    writable.extend(private);
    if dev {
        writable.extend([PathBuf::from("/dev/pts"), PathBuf::from("/dev/shm")]);
    }
    Ok(Plan { steps, writable, devices })
}

/// What covers a path in the view: the deepest private tmpfs or writable root at or above it.
#[derive(Debug, PartialEq, Eq)]
enum Cover<'a> {
    Tmpfs(&'a Path),
    Root(&'a Path),
}

fn cover<'a>(path: &Path, tmpfs: &'a [PathBuf], roots: &'a [PathBuf]) -> Option<Cover<'a>> {
    let deepest_tmpfs = tmpfs.iter().filter(|point| path.starts_with(point)).max_by_key(|p| p.components().count());
    let deepest_root = roots.iter().filter(|root| path.starts_with(root)).max_by_key(|p| p.components().count());
    match (deepest_tmpfs, deepest_root) {
        (Some(point), Some(root)) if root.starts_with(point) => Some(Cover::Root(root)),
        (Some(point), _) => Some(Cover::Tmpfs(point)),
        (None, Some(root)) => Some(Cover::Root(root)),
        (None, None) => None,
    }
}

/// The directories (and, for a file, the empty file) to create so that `path` can be mounted
/// on when it lies under a fresh tmpfs; nothing when it exists in the view already.
fn mount_point(
    path: &Path,
    kind: Kind,
    tmpfs: &[PathBuf],
    roots: &[PathBuf],
    steps: &mut Vec<Step>,
) -> Result<(), String> {
    let parent_cover = path.parent().and_then(|parent| cover(parent, tmpfs, roots));
    let Some(Cover::Tmpfs(point)) = parent_cover else { return Ok(()) };
    let below: Vec<&Path> = path.ancestors().skip(1).take_while(|ancestor| *ancestor != point).collect();
    for dir in below.iter().rev() {
        steps.push(Step::Mkdir { path: c_path(dir)? });
    }
    steps.push(match kind {
        Kind::Dir => Step::Mkdir { path: c_path(path)? },
        _ => Step::Touch { path: c_path(path)? },
    });
    Ok(())
}

/// The paths not inside another one of the list, sorted shallow first.
fn outermost(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut sorted = paths.to_vec();
    sorted.sort_by_key(|path| path.components().count());
    let mut kept: Vec<PathBuf> = Vec::new();
    for path in sorted {
        if !kept.iter().any(|outer| path.starts_with(outer)) {
            kept.push(path);
        }
    }
    kept
}

fn tmpfs(path: &str, options: &str) -> Step {
    Step::Tmpfs {
        path: CString::new(path).unwrap_or_default(),
        options: CString::new(options).unwrap_or_default(),
        read_only: false,
    }
}

fn c_str(text: &str) -> Result<CString, String> {
    CString::new(text).map_err(|_| format!("a path holds a NUL byte: {text:?}"))
}

fn c_path(path: &Path) -> Result<CString, String> {
    CString::new(path.as_os_str().as_bytes()).map_err(|_| format!("a path holds a NUL byte: {}", path.display()))
}

#[cfg(test)]
#[path = "view_tests.rs"]
mod tests;
