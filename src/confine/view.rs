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
mod tests {
    use super::*;

    const SIZES: Sizes = Sizes { tmp: 100, shm: 50 };

    /// A host with the usual top-level directories, `/var/run` a link, and `extra` paths.
    fn host(extra: &'static [(&'static str, Kind)]) -> impl Fn(&Path) -> Option<Kind> {
        move |path: &Path| {
            let text = path.to_str().unwrap();
            if let Some((_, kind)) = extra.iter().find(|(name, _)| *name == text) {
                return Some(*kind);
            }
            match text {
                "/run" | "/tmp" | "/var/tmp" | "/dev" => Some(Kind::Dir),
                "/var/run" => Some(Kind::Link),
                _ if text.starts_with("/dev/") => Some(Kind::File),
                _ => None,
            }
        }
    }

    fn rendered(plan: &Plan) -> Vec<String> {
        let text = |c: &CString| c.to_str().unwrap().to_string();
        plan.steps
            .iter()
            .map(|step| match step {
                Step::Keep { path, slot } => format!("keep {} #{slot}", text(path)),
                Step::FreezeAll => "freeze".to_string(),
                Step::Tmpfs { path, options, read_only } => {
                    format!("tmpfs {} {}{}", text(path), text(options), if *read_only { " ro" } else { "" })
                }
                Step::Mkdir { path } => format!("mkdir {}", text(path)),
                Step::Touch { path } => format!("touch {}", text(path)),
                Step::Symlink { target, path } => format!("link {} -> {}", text(path), text(target)),
                Step::Attach { slot, path } => format!("attach #{slot} {}", text(path)),
                Step::ReadOnly { path } => format!("ro {}", text(path)),
                Step::Pin { path } => format!("pin {}", text(path)),
                Step::Blank { source, path } => format!("blank {} with {}", text(path), text(source)),
                Step::Devpts { path } => format!("devpts {}", text(path)),
            })
            .collect()
    }

    fn paths(list: &[&str]) -> Vec<PathBuf> {
        list.iter().map(PathBuf::from).collect()
    }

    #[test]
    fn a_project_in_home_with_secrets_and_a_control_path() {
        let inputs = Inputs {
            writable: paths(&["/home/u/p", "/home/u/p/sub", "/tmp/mewcode-tmp-1-2"]),
            control: paths(&["/home/u/p/.git/hooks", "/home/u/p/AGENTS.md", "/home/u/p/pkg/a/CLAUDE.md"]),
            hidden: paths(&["/home/u/.ssh", "/home/u/.netrc", "/home/v", "/tmp/x/.ssh", "/home/u"]),
            sockets: Vec::new(),
            system_files: Vec::new(),
        };
        let host = host(&[
            ("/home/u/.ssh", Kind::Dir),
            ("/home/u/.netrc", Kind::File),
            ("/home/v", Kind::Dir),
            ("/home/u/p/.git/hooks", Kind::Dir),
            ("/home/u/p/AGENTS.md", Kind::File),
            ("/home/u/p/pkg/a/CLAUDE.md", Kind::File),
        ]);
        let plan = plan(&inputs, SIZES, &host).unwrap();
        let steps = rendered(&plan);
        let expected: Vec<String> = [
            "keep /tmp/mewcode-tmp-1-2 #0",
            "keep /home/u/p #1",
            "keep /dev/null #2",
            "keep /dev/zero #3",
            "keep /dev/full #4",
            "keep /dev/random #5",
            "keep /dev/urandom #6",
            "freeze",
            "tmpfs /dev mode=0755,size=65536",
            "touch /dev/null",
            "attach #2 /dev/null",
            "touch /dev/zero",
            "attach #3 /dev/zero",
            "touch /dev/full",
            "attach #4 /dev/full",
            "touch /dev/random",
            "attach #5 /dev/random",
            "touch /dev/urandom",
            "attach #6 /dev/urandom",
            "link /dev/fd -> /proc/self/fd",
            "link /dev/stdin -> /proc/self/fd/0",
            "link /dev/stdout -> /proc/self/fd/1",
            "link /dev/stderr -> /proc/self/fd/2",
            "link /dev/ptmx -> pts/ptmx",
            "mkdir /dev/pts",
            "devpts /dev/pts",
            "mkdir /dev/shm",
            "tmpfs /dev/shm mode=1777,size=50",
            "tmpfs /run mode=1777,size=100",
            "tmpfs /tmp mode=1777,size=100",
            "tmpfs /var/tmp mode=1777,size=100",
            "mkdir /tmp/mewcode-tmp-1-2",
            "attach #0 /tmp/mewcode-tmp-1-2",
            "attach #1 /home/u/p",
            "pin /home/u/p/.git",
            "pin /home/u/p/pkg",
            "pin /home/u/p/pkg/a",
            "ro /home/u/p/.git/hooks",
            "ro /home/u/p/AGENTS.md",
            "ro /home/u/p/pkg/a/CLAUDE.md",
            // /home/u holds the project: not hidden; /tmp/x/.ssh is under the fresh /tmp.
            "tmpfs /home/u/.ssh mode=0555,size=4096 ro",
            "blank /home/u/.netrc with /dev/null",
            "tmpfs /home/v mode=0555,size=4096 ro",
        ]
        .iter()
        .map(|line| line.to_string())
        .collect();
        assert_eq!(steps, expected);
        assert_eq!(
            plan.writable,
            paths(&["/tmp/mewcode-tmp-1-2", "/home/u/p", "/run", "/tmp", "/var/tmp", "/dev/pts", "/dev/shm"])
        );
        assert_eq!(plan.devices.len(), 5);
    }

    #[test]
    fn a_project_under_tmp_gets_its_directories_made_and_a_socket_there_is_bound() {
        let inputs = Inputs {
            writable: paths(&["/tmp/t/a/project"]),
            control: paths(&["/tmp/t/a/project/.mewcode", "/tmp/t/a/project/missing"]),
            hidden: paths(&["/tmp/t/a/project/.ssh"]),
            sockets: paths(&["/run/user/1/bus", "/srv/sock"]),
            system_files: Vec::new(),
        };
        let host = host(&[("/tmp/t/a/project/.mewcode", Kind::Dir), ("/tmp/t/a/project/.ssh", Kind::Dir)]);
        let steps = rendered(&plan(&inputs, SIZES, &host).unwrap());
        let after =
            |line: &str| steps.iter().position(|step| step == line).unwrap_or_else(|| panic!("{line}: {steps:?}"));
        assert!(after("keep /run/user/1/bus #6") < after("freeze"));
        assert!(!steps.iter().any(|step| step.contains("/srv/sock")), "not under a tmpfs: in the view already");
        let order = [
            "tmpfs /tmp mode=1777,size=100",
            "mkdir /tmp/t",
            "mkdir /tmp/t/a",
            "mkdir /tmp/t/a/project",
            "attach #0 /tmp/t/a/project",
            "mkdir /run/user",
            "mkdir /run/user/1",
            "touch /run/user/1/bus",
            "attach #6 /run/user/1/bus",
            "ro /tmp/t/a/project/.mewcode",
            "tmpfs /tmp/t/a/project/.ssh mode=0555,size=4096 ro",
        ];
        let positions: Vec<usize> = order.iter().map(|line| after(line)).collect();
        assert!(positions.windows(2).all(|pair| pair[0] < pair[1]), "{steps:?}");
        assert!(!steps.iter().any(|step| step.contains("missing")));
    }

    #[test]
    fn the_resolver_file_under_run_is_bound_in_read_only_and_one_elsewhere_is_left_alone() {
        let inputs = Inputs {
            writable: paths(&["/p"]),
            system_files: paths(&["/run/systemd/resolve/stub-resolv.conf", "/etc/resolv.conf"]),
            ..Inputs::default()
        };
        let steps = rendered(&plan(&inputs, SIZES, &host(&[])).unwrap());
        let at = |line: &str| steps.iter().position(|step| step == line).unwrap_or_else(|| panic!("{line}: {steps:?}"));
        let order = [
            "keep /run/systemd/resolve/stub-resolv.conf #6",
            "freeze",
            "tmpfs /run mode=1777,size=100",
            "mkdir /run/systemd",
            "mkdir /run/systemd/resolve",
            "touch /run/systemd/resolve/stub-resolv.conf",
            "attach #6 /run/systemd/resolve/stub-resolv.conf",
            "ro /run/systemd/resolve/stub-resolv.conf",
        ];
        let positions: Vec<usize> = order.iter().map(|line| at(line)).collect();
        assert!(positions.windows(2).all(|pair| pair[0] < pair[1]), "{steps:?}");
        assert!(!steps.iter().any(|step| step.contains("/etc/resolv.conf")), "in the view already: {steps:?}");
    }

    #[test]
    fn a_hidden_path_holding_a_root_or_a_socket_stays_and_links_are_not_followed() {
        let inputs = Inputs {
            writable: paths(&["/home/u/.config/tool/work"]),
            control: Vec::new(),
            hidden: paths(&["/home/u/.config/tool", "/home/u/.gnupg", "/home/u/.link"]),
            sockets: paths(&["/home/u/.gnupg/S.gpg-agent"]),
            system_files: Vec::new(),
        };
        let host =
            host(&[("/home/u/.config/tool", Kind::Dir), ("/home/u/.gnupg", Kind::Dir), ("/home/u/.link", Kind::Link)]);
        let steps = rendered(&plan(&inputs, SIZES, &host).unwrap());
        assert!(
            !steps
                .iter()
                .any(|step| step.contains(".config/tool ") || step.contains(".gnupg") || step.contains(".link"))
        );
    }

    #[test]
    fn without_a_dev_directory_there_are_no_devices_and_files_are_not_blanked() {
        let host = |path: &Path| match path.to_str().unwrap() {
            "/tmp" => Some(Kind::Dir),
            "/home/u/.netrc" => Some(Kind::File),
            _ => None,
        };
        // A hidden file needs the view's /dev/null to cover it: without /dev it stays as it is.
        let inputs = Inputs { writable: paths(&["/p"]), hidden: paths(&["/home/u/.netrc"]), ..Inputs::default() };
        let plan = plan(&inputs, SIZES, &host).unwrap();
        let steps = rendered(&plan);
        assert_eq!(steps, ["keep /p #0", "freeze", "tmpfs /tmp mode=1777,size=100", "attach #0 /p"]);
        assert!(plan.devices.is_empty());
    }

    #[test]
    fn too_many_writable_paths_is_an_error_not_a_partial_view() {
        let writable: Vec<PathBuf> = (0..SLOTS).map(|index| PathBuf::from(format!("/w{index}"))).collect();
        let inputs = Inputs { writable, ..Inputs::default() };
        assert!(plan(&inputs, SIZES, &host(&[])).unwrap_err().contains("too many"));
    }

    #[test]
    fn covers_pick_the_deepest_and_a_root_under_a_tmpfs_wins() {
        let tmpfs = paths(&["/tmp", "/dev"]);
        let roots = paths(&["/tmp/p", "/home/u/p"]);
        assert_eq!(cover(Path::new("/tmp/p/x"), &tmpfs, &roots), Some(Cover::Root(Path::new("/tmp/p"))));
        assert_eq!(cover(Path::new("/tmp/q"), &tmpfs, &roots), Some(Cover::Tmpfs(Path::new("/tmp"))));
        assert_eq!(cover(Path::new("/home/u/p"), &tmpfs, &roots), Some(Cover::Root(Path::new("/home/u/p"))));
        assert_eq!(cover(Path::new("/home/u"), &tmpfs, &roots), None);
        // A root above a private tmpfs does not reach into it: the tmpfs is deeper.
        let everything = paths(&["/"]);
        assert_eq!(cover(Path::new("/tmp/q"), &tmpfs, &everything), Some(Cover::Tmpfs(Path::new("/tmp"))));
        assert_eq!(cover(Path::new("/srv/q"), &tmpfs, &everything), Some(Cover::Root(Path::new("/"))));
        assert_eq!(outermost(&paths(&["/a/b", "/a", "/c", "/a/b/c"])), paths(&["/a", "/c"]));
    }
}
