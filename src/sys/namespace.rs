//! Linux namespaces for a command: a user namespace (so an unprivileged user may build a view),
//! a pid namespace (the command is pid 1 of a world with a fresh `/proc`, in which neither
//! mewcode, its reaper nor any other process of the user can be named), an IPC namespace, a
//! network namespace with only loopback when the network is off, and a mount namespace in which
//! the steps of a `View` — planned by `confine::view` in the parent — are carried out.
//!
//! Who does what (see `child`): the reaper calls `enter` (user, pid, IPC, network namespaces and
//! the id maps) before it forks the command; the command's process, pid 1 of the new namespace,
//! calls `build` (its own mount namespace, the steps, `/proc`, the working directory again).
//!
//! Invariant: like everything that runs after `fork`, the functions marked "child" only make
//! system calls on data prepared in the parent (`CString`s owned by the `View`) or on the stack:
//! no allocation, no lock. A step that fails ends the setup with the step, the path and the
//! error number, which the caller prints on the command's stderr: a half-built view never runs a
//! command. What it does not do: decide which paths go where (that is `confine::view`).

use std::ffi::{CStr, CString};
use std::io;

const OPEN_TREE_CLONE: libc::c_uint = 1;
const AT_RECURSIVE: libc::c_uint = 0x8000;
const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 0x4;
const MOUNT_ATTR_RDONLY: u64 = 0x1;
const MOUNT_ATTR_NOSUID: u64 = 0x2;
const MOUNT_ATTR_NODEV: u64 = 0x4;
/// Detached copies of mount trees a view may keep at once (writable roots, devices, sockets).
pub(crate) const SLOTS: usize = 64;

/// `struct mount_attr` of `mount_setattr(2)`.
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// One step of building the view, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// Keeps a detached copy of the mount tree at `path`, as it is now (read-write where the
    /// host's is), in slot `slot`, to put back after `/` became read-only.
    Keep {
        path: CString,
        slot: usize,
    },
    /// Every mount read-only, nosuid and nodev.
    FreezeAll,
    /// A fresh tmpfs at `path` with mount `options` (size, mode).
    Tmpfs {
        path: CString,
        options: CString,
        read_only: bool,
    },
    /// A directory (an existing one is fine).
    Mkdir {
        path: CString,
    },
    /// An empty file to mount a file on (an existing one is fine).
    Touch {
        path: CString,
    },
    Symlink {
        target: CString,
        path: CString,
    },
    /// Puts the copy kept in `slot` at `path`.
    Attach {
        slot: usize,
        path: CString,
    },
    /// Binds `path` over itself read-only (what is beneath it too).
    ReadOnly {
        path: CString,
    },
    /// Binds `path` over itself as it is (read-write): a mount point cannot be renamed or
    /// removed, so the directory holding a control path cannot be swapped for another.
    Pin {
        path: CString,
    },
    /// Covers the file at `path` with a read-only bind of `source` (the view's `/dev/null`).
    Blank {
        source: CString,
        path: CString,
    },
    /// A private devpts instance at `path`; a kernel that refuses it leaves the view without ptys.
    Devpts {
        path: CString,
    },
}

impl Step {
    /// The path the step is about.
    fn path(&self) -> &CStr {
        match self {
            Step::Keep { path, .. }
            | Step::Tmpfs { path, .. }
            | Step::Mkdir { path }
            | Step::Touch { path }
            | Step::Symlink { path, .. }
            | Step::Attach { path, .. }
            | Step::ReadOnly { path }
            | Step::Pin { path }
            | Step::Blank { path, .. }
            | Step::Devpts { path } => path,
            Step::FreezeAll => c"/",
        }
    }
}

/// What `build` and `enter` were asked to do, prepared in the parent.
#[derive(Debug)]
pub(crate) struct View {
    /// `CLONE_NEW*` flags for the reaper's `unshare` (user and pid always).
    pub(crate) namespaces: libc::c_int,
    /// `/proc/self/uid_map` and `gid_map` contents.
    pub(crate) uid_map: CString,
    pub(crate) gid_map: CString,
    pub(crate) steps: Vec<Step>,
    /// Where `/proc` goes (mounted fresh for the pid namespace).
    pub(crate) proc: CString,
    /// The session's user and network namespaces to join (`bridge::Keeper::namespaces`) instead
    /// of making new ones; the keeper holds them open for the session.
    pub(crate) join: Option<(std::os::fd::RawFd, std::os::fd::RawFd)>,
}

/// Why setting up failed: the step, the path it was about, the error number.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Failure {
    pub(crate) step: &'static str,
    /// A fixed file the step was about (`/proc/self/uid_map`).
    file: Option<&'static CStr>,
    /// The index of the failed step in `View::steps`, whose path is printed.
    at: Option<usize>,
    pub(crate) errno: i32,
}

impl Failure {
    fn now(step: &'static str) -> Failure {
        Failure { step, file: None, at: None, errno: errno() }
    }
}

fn errno() -> i32 {
    // SAFETY: reads the calling thread's errno location, always valid.
    unsafe { *libc::__errno_location() }
}

/// The namespace flags for a command: user, pid and IPC always; network when it is off.
pub(crate) fn namespaces(network: bool) -> libc::c_int {
    let mut flags = libc::CLONE_NEWUSER | libc::CLONE_NEWPID | libc::CLONE_NEWIPC;
    if !network {
        flags |= libc::CLONE_NEWNET;
    }
    flags
}

/// The view of the session's network keeper (`bridge::Keeper`): new user and network
/// namespaces with the id maps of `uid` and `gid`, and nothing else.
pub(crate) fn keeper_view(uid: u32, gid: u32) -> View {
    let (uid_map, gid_map) = id_maps(uid, gid);
    View {
        namespaces: libc::CLONE_NEWUSER | libc::CLONE_NEWNET,
        uid_map,
        gid_map,
        steps: Vec::new(),
        proc: c"/proc".to_owned(),
        join: None,
    }
}

/// The id maps: the user's own ids map to themselves, nothing else is mapped. A process that
/// entered the namespace itself may map only its own ids (even root: mapping more needs the map
/// written from outside); files of other owners show as `nobody`, and root inside loses its
/// override of their permissions, so other users' private files stay private even from root.
pub(crate) fn id_maps(uid: u32, gid: u32) -> (CString, CString) {
    let line = |id: u32| CString::new(format!("{id} {id} 1")).unwrap_or_default();
    (line(uid), line(gid))
}

/// Child (the reaper, single-threaded, before it forks the command): enters new user, pid, IPC
/// (and network) namespaces and writes the id maps, or joins the session's user and network
/// namespaces (`View::join`) and enters new pid and IPC ones. The caller's next child is pid 1.
///
/// # Safety
/// Call only in a forked, single-threaded child.
pub(crate) unsafe fn enter(view: &View) -> Result<(), Failure> {
    // SAFETY: unshare takes an integer; the writes use constant paths and the view's strings.
    unsafe {
        if let Some((user, net)) = view.join {
            // The session's namespaces: the id maps and loopback are the keeper's already.
            if libc::setns(user, libc::CLONE_NEWUSER) != 0 || libc::setns(net, libc::CLONE_NEWNET) != 0 {
                return Err(Failure::now("setns"));
            }
            let rest = view.namespaces & !(libc::CLONE_NEWUSER | libc::CLONE_NEWNET);
            if rest != 0 && libc::unshare(rest) != 0 {
                return Err(Failure::now("unshare"));
            }
            return Ok(());
        }
        if libc::unshare(view.namespaces) != 0 {
            return Err(Failure::now("unshare"));
        }
        // mewcode is not dumpable (its memory holds API keys), so its `/proc/self` files belong
        // to root and an unprivileged user could not write the maps: dumpable for these three
        // writes only, and only when not root. The command does not exist yet.
        let unprivileged = libc::geteuid() != 0;
        if unprivileged {
            libc::prctl(libc::PR_SET_DUMPABLE, 1 as libc::c_ulong, 0, 0, 0);
        }
        let written = write_file(c"/proc/self/setgroups", c"deny", true)
            .and_then(|()| write_file(c"/proc/self/uid_map", &view.uid_map, false))
            .and_then(|()| write_file(c"/proc/self/gid_map", &view.gid_map, false));
        if unprivileged {
            libc::prctl(libc::PR_SET_DUMPABLE, 0 as libc::c_ulong, 0, 0, 0);
        }
        written?;
        // Loopback comes up by itself in no kernel: a network namespace starts with `lo` down.
        if view.namespaces & libc::CLONE_NEWNET != 0 {
            let _ = super::bridge::loopback_up();
        }
    }
    Ok(())
}

/// Child (pid 1 of the new namespace): a mount namespace of its own, the view's steps, a fresh
/// `/proc`, and the working directory looked up again (it may now lie on another mount).
///
/// # Safety
/// Call only in a forked, single-threaded child that went through `enter`'s namespaces.
pub(crate) unsafe fn build(view: &View) -> Result<(), Failure> {
    // SAFETY (whole function): system calls on the view's strings and on stack buffers.
    unsafe {
        let mut cwd = [0u8; 4096];
        if libc::getcwd(cwd.as_mut_ptr().cast(), cwd.len()).is_null() {
            return Err(Failure::now("getcwd"));
        }
        if libc::unshare(libc::CLONE_NEWNS) != 0 {
            return Err(Failure::now("unshare mount namespace"));
        }
        let none = std::ptr::null::<libc::c_char>();
        if libc::mount(none, c"/".as_ptr(), none, libc::MS_REC | libc::MS_PRIVATE, std::ptr::null()) != 0 {
            return Err(Failure::now("make mounts private"));
        }
        let mut slots = [-1; SLOTS];
        let result = run_steps(&view.steps, &mut slots);
        for fd in slots {
            if fd >= 0 {
                libc::close(fd);
            }
        }
        result?;
        let flags = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
        if libc::mount(c"proc".as_ptr(), view.proc.as_ptr(), c"proc".as_ptr(), flags, std::ptr::null()) != 0 {
            return Err(Failure::now("mount /proc"));
        }
        if libc::chdir(cwd.as_ptr().cast()) != 0 {
            return Err(Failure::now("enter the working directory"));
        }
    }
    Ok(())
}

/// Runs the steps in order; the first failure stops them.
///
/// # Safety
/// Child only (see `build`).
unsafe fn run_steps(steps: &[Step], slots: &mut [libc::c_int; SLOTS]) -> Result<(), Failure> {
    for (at, step) in steps.iter().enumerate() {
        let fail = |step: &'static str, errno: i32| Failure { step, file: None, at: Some(at), errno };
        // SAFETY: each helper is a system call on the step's strings (owned by the view).
        unsafe {
            match step {
                Step::Keep { path, slot } => {
                    let fd = open_tree(path, OPEN_TREE_CLONE | AT_RECURSIVE).map_err(|errno| fail("keep", errno))?;
                    if let Some(place) = slots.get_mut(*slot) {
                        *place = fd;
                    } else {
                        libc::close(fd);
                    }
                }
                Step::FreezeAll => set_attributes(
                    libc::AT_FDCWD,
                    c"/",
                    AT_RECURSIVE,
                    MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
                )
                .map_err(|errno| fail("make / read-only", errno))?,
                Step::Tmpfs { path, options, read_only } => {
                    let mut flags = libc::MS_NOSUID | libc::MS_NODEV;
                    if *read_only {
                        flags |= libc::MS_RDONLY | libc::MS_NOEXEC;
                    }
                    let rc = libc::mount(
                        c"tmpfs".as_ptr(),
                        path.as_ptr(),
                        c"tmpfs".as_ptr(),
                        flags,
                        options.as_ptr().cast(),
                    );
                    if rc != 0 {
                        return Err(fail("mount a tmpfs", errno()));
                    }
                }
                Step::Mkdir { path } => {
                    if libc::mkdir(path.as_ptr(), 0o755) != 0 && errno() != libc::EEXIST {
                        return Err(fail("create a mount point", errno()));
                    }
                }
                Step::Touch { path } => {
                    let fd = libc::open(path.as_ptr(), libc::O_CREAT | libc::O_WRONLY | libc::O_CLOEXEC, 0o644);
                    if fd < 0 && errno() != libc::EEXIST {
                        // An existing file on a read-only mount is as good a mount point.
                        let mut stat: libc::stat = std::mem::zeroed();
                        if libc::lstat(path.as_ptr(), &mut stat) != 0 {
                            return Err(fail("create a file mount point", errno()));
                        }
                    } else if fd >= 0 {
                        libc::close(fd);
                    }
                }
                Step::Symlink { target, path } => {
                    if libc::symlink(target.as_ptr(), path.as_ptr()) != 0 && errno() != libc::EEXIST {
                        return Err(fail("create a link", errno()));
                    }
                }
                Step::Attach { slot, path } => {
                    let fd = slots.get(*slot).copied().unwrap_or(-1);
                    move_mount(fd, path).map_err(|errno| fail("attach a writable path", errno))?;
                    if let Some(place) = slots.get_mut(*slot) {
                        libc::close(fd);
                        *place = -1;
                    }
                }
                Step::ReadOnly { path } => {
                    let fd = open_tree(path, OPEN_TREE_CLONE | AT_RECURSIVE)
                        .map_err(|errno| fail("protect a control path", errno))?;
                    let result =
                        set_attributes(fd, c"", libc::AT_EMPTY_PATH as libc::c_uint | AT_RECURSIVE, MOUNT_ATTR_RDONLY)
                            .and_then(|()| move_mount(fd, path));
                    libc::close(fd);
                    result.map_err(|errno| fail("protect a control path", errno))?;
                }
                Step::Pin { path } => {
                    let fd = open_tree(path, OPEN_TREE_CLONE | AT_RECURSIVE)
                        .map_err(|errno| fail("pin a directory", errno))?;
                    let result = move_mount(fd, path);
                    libc::close(fd);
                    result.map_err(|errno| fail("pin a directory", errno))?;
                }
                Step::Blank { source, path } => {
                    let fd = open_tree(source, OPEN_TREE_CLONE).map_err(|errno| fail("hide a file", errno))?;
                    let result = set_attributes(fd, c"", libc::AT_EMPTY_PATH as libc::c_uint, MOUNT_ATTR_RDONLY)
                        .and_then(|()| move_mount(fd, path));
                    libc::close(fd);
                    result.map_err(|errno| fail("hide a file", errno))?;
                }
                Step::Devpts { path } => {
                    let options = c"newinstance,ptmxmode=0666,mode=0620";
                    let flags = libc::MS_NOSUID | libc::MS_NOEXEC;
                    // Optional: without it the view has no pseudo-terminals, nothing else changes.
                    libc::mount(c"devpts".as_ptr(), path.as_ptr(), c"devpts".as_ptr(), flags, options.as_ptr().cast());
                }
            }
        }
    }
    Ok(())
}

/// `open_tree(AT_FDCWD, path, flags | OPEN_TREE_CLOEXEC)`: a detached copy of a mount tree.
///
/// # Safety
/// A system call on a string owned by the caller.
unsafe fn open_tree(path: &CStr, flags: libc::c_uint) -> Result<libc::c_int, i32> {
    // SAFETY: the path is NUL-terminated and outlives the call.
    let fd = unsafe {
        libc::syscall(libc::SYS_open_tree, libc::AT_FDCWD, path.as_ptr(), flags | libc::O_CLOEXEC as libc::c_uint)
    };
    if fd < 0 { Err(errno()) } else { libc::c_int::try_from(fd).map_err(|_| libc::EBADF) }
}

/// `move_mount(fd, "", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH)`: attaches a detached tree.
///
/// # Safety
/// A system call on a descriptor and a string owned by the caller.
unsafe fn move_mount(fd: libc::c_int, path: &CStr) -> Result<(), i32> {
    // SAFETY: both strings are NUL-terminated and outlive the call.
    let rc = unsafe {
        libc::syscall(libc::SYS_move_mount, fd, c"".as_ptr(), libc::AT_FDCWD, path.as_ptr(), MOVE_MOUNT_F_EMPTY_PATH)
    };
    if rc == 0 { Ok(()) } else { Err(errno()) }
}

/// `mount_setattr(dirfd, path, flags, {attr_set: set})`.
///
/// # Safety
/// A system call on a string and a stack struct owned by the caller.
unsafe fn set_attributes(dirfd: libc::c_int, path: &CStr, flags: libc::c_uint, set: u64) -> Result<(), i32> {
    let attr = MountAttr { attr_set: set, attr_clr: 0, propagation: 0, userns_fd: 0 };
    // SAFETY: `attr` lives on the stack for the call and its exact size is passed.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            dirfd,
            path.as_ptr(),
            flags,
            &attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        )
    };
    if rc == 0 { Ok(()) } else { Err(errno()) }
}

/// Writes `text` to a `/proc` file. `optional`: a missing file (an old kernel has no
/// `setgroups`) is fine.
///
/// # Safety
/// Child only: open/write/close on the caller's strings.
unsafe fn write_file(path: &'static CStr, text: &CStr, optional: bool) -> Result<(), Failure> {
    // SAFETY: open/write/close on NUL-terminated strings that outlive the calls.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            if optional && errno() == libc::ENOENT {
                return Ok(());
            }
            return Err(Failure { step: "open", file: Some(path), at: None, errno: errno() });
        }
        let bytes = text.to_bytes();
        let written = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        let error = errno();
        libc::close(fd);
        if usize::try_from(written).ok() != Some(bytes.len()) {
            return Err(Failure { step: "write", file: Some(path), at: None, errno: error });
        }
    }
    Ok(())
}

/// Child: writes `mewcode sandbox: cannot STEP PATH (errno N)` on stderr, with no allocation.
///
/// # Safety
/// Child only.
pub(crate) unsafe fn report(failure: &Failure, view: &View) {
    let mut line = [0u8; 512];
    let mut length = 0;
    let mut push = |bytes: &[u8]| {
        for &byte in bytes {
            if length < line.len() - 1 {
                line[length] = byte;
                length += 1;
            }
        }
    };
    push(b"mewcode sandbox: cannot ");
    push(failure.step.as_bytes());
    let path = failure.at.and_then(|at| view.steps.get(at)).map(Step::path).or(failure.file);
    if let Some(path) = path {
        push(b" ");
        push(path.to_bytes());
    }
    push(b" (");
    push(errno_name(failure.errno));
    push(b")\n");
    // SAFETY: write from a stack buffer to stderr.
    unsafe {
        libc::write(2, line.as_ptr().cast(), length);
    }
}

/// The symbolic name of the errors a view's setup meets.
fn errno_name(errno: i32) -> &'static [u8] {
    match errno {
        libc::EPERM => b"EPERM: not permitted",
        libc::EACCES => b"EACCES: permission denied",
        libc::ENOENT => b"ENOENT: no such file or directory",
        libc::EINVAL => b"EINVAL: invalid argument",
        libc::ENOSYS => b"ENOSYS: the kernel lacks this call",
        libc::EROFS => b"EROFS: read-only file system",
        libc::ENOSPC => b"ENOSPC: too many namespaces or mounts",
        libc::EUSERS => b"EUSERS: too many nested user namespaces",
        libc::ENOTDIR => b"ENOTDIR: not a directory",
        libc::EBUSY => b"EBUSY: busy",
        _ => b"another error",
    }
}

/// What a trial in a throwaway process showed: every layer of the view works, or where it broke.
pub(crate) fn probe(view: &View) -> Result<(), String> {
    // SAFETY: fork; the child only makes system calls on `view` (prepared here, before the fork)
    // and exits; the parent waits for it.
    unsafe {
        let reaper = libc::fork();
        if reaper < 0 {
            return Err(format!("cannot fork: {}", io::Error::last_os_error()));
        }
        if reaper == 0 {
            libc::_exit(trial(view));
        }
        let mut status = 0;
        while libc::waitpid(reaper, &mut status, 0) < 0 {
            if errno() != libc::EINTR {
                return Err(format!("cannot wait for the trial: {}", io::Error::last_os_error()));
            }
        }
        let code = if libc::WIFEXITED(status) { libc::WEXITSTATUS(status) } else { 255 };
        match code {
            0 => Ok(()),
            _ => Err(trial_reason(code)),
        }
    }
}

/// The trial's exit codes: 10 + the step that failed, with the errno class in the low digit.
const TRIAL_STEPS: [&str; 4] = [
    "cannot create a user namespace",
    "cannot write the user namespace's id maps",
    "cannot mount in a new mount namespace",
    "cannot mount a fresh /proc",
];

fn trial_reason(code: i32) -> String {
    let step = usize::try_from(code / 10 - 1).ok().and_then(|index| TRIAL_STEPS.get(index));
    let cause = match code % 10 {
        1 => {
            " (not permitted: unprivileged user namespaces are turned off or restricted here, e.g. \
               kernel.unprivileged_userns_clone=0, user.max_user_namespaces=0 or an AppArmor \
               restriction such as kernel.apparmor_restrict_unprivileged_userns=1)"
        }
        2 => " (the kernel lacks the call: Linux 5.12 or later is needed)",
        3 => " (a limit on namespaces was reached)",
        _ => "",
    };
    match step {
        Some(step) => format!("{step}{cause}"),
        None => format!("the trial ended with code {code}"),
    }
}

/// The trial, in the forked child: the namespaces, then one more child (pid 1) that builds the
/// view and mounts `/proc`. Returns the exit code.
///
/// # Safety
/// Child only.
unsafe fn trial(view: &View) -> libc::c_int {
    let class = |errno: i32| match errno {
        libc::EPERM | libc::EACCES => 1,
        libc::ENOSYS | libc::EINVAL => 2,
        libc::ENOSPC | libc::EUSERS => 3,
        _ => 4,
    };
    // SAFETY: system calls only, on the view prepared before the fork.
    unsafe {
        if let Err(failure) = enter(view) {
            let step = if failure.step == "unshare" { 10 } else { 20 };
            return step + class(failure.errno);
        }
        let pid1 = libc::fork();
        if pid1 < 0 {
            return 10 + class(errno());
        }
        if pid1 == 0 {
            // The trial's own working directory may lie under a tmpfs it mounts.
            libc::chdir(c"/".as_ptr());
            let code = match build(view) {
                Ok(()) => 0,
                Err(failure) if failure.step == "mount /proc" => 40 + class(failure.errno),
                Err(failure) => 30 + class(failure.errno),
            };
            libc::_exit(code);
        }
        let mut status = 0;
        while libc::waitpid(pid1, &mut status, 0) < 0 {
            if errno() != libc::EINTR {
                return 255;
            }
        }
        if libc::WIFEXITED(status) { libc::WEXITSTATUS(status) } else { 255 }
    }
}

#[cfg(test)]
#[path = "namespace_tests.rs"]
mod tests;
