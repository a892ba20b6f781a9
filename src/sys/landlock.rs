//! Landlock, the kernel's unprivileged access control: the ABI probe, the rights each ABI knows,
//! and a ruleset built in the parent (rules added from `O_PATH` descriptors).
//!
//! Invariant: nothing here restricts mewcode itself. A `Ruleset` is only a file descriptor; it is
//! enforced in a forked child by `child::spawn_setup` (`landlock_restrict_self` is per thread,
//! and the forked child has one thread). What to allow is decided by the caller (`confine/`).
//!
//! ABI history (the kernel's `Documentation/userspace-api/landlock.rst`): 1 (5.13) filesystem
//! rights; 2 (5.19) REFER, so a file may be renamed or linked into another directory (before it,
//! any such rename is denied); 3 (6.2) TRUNCATE; 4 (6.7) TCP bind/connect; 5 (6.10) IOCTL_DEV
//! (ioctl on device files); 6 (6.12) scopes: signals and abstract unix sockets stay within the
//! domain; 7 (6.15) audit logging flags only. Rights an ABI does not know are left unhandled
//! (allowed), so the best the kernel offers is used and nothing fails on an older one.

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

pub(crate) const ACCESS_FS_EXECUTE: u64 = 1 << 0;
const ACCESS_FS_WRITE_FILE: u64 = 1 << 1;
pub(crate) const ACCESS_FS_READ_FILE: u64 = 1 << 2;
pub(crate) const ACCESS_FS_READ_DIR: u64 = 1 << 3;
/// ABI 2: link or rename a file into another directory.
const ACCESS_FS_REFER: u64 = 1 << 13;
/// ABI 3: truncate (and open with O_TRUNC).
const ACCESS_FS_TRUNCATE: u64 = 1 << 14;
/// ABI 5: ioctl on character and block devices.
const ACCESS_FS_IOCTL_DEV: u64 = 1 << 15;
/// ABI 4: bind and connect TCP ports.
pub(crate) const ACCESS_NET_BIND_TCP: u64 = 1 << 0;
pub(crate) const ACCESS_NET_CONNECT_TCP: u64 = 1 << 1;
/// ABI 6: no connecting to abstract unix sockets created outside the domain.
pub(crate) const SCOPE_ABSTRACT_UNIX_SOCKET: u64 = 1 << 0;
/// ABI 6: no signals to processes outside the domain.
pub(crate) const SCOPE_SIGNAL: u64 = 1 << 1;

/// The rights that make sense on a file that is not a directory (a rule on a file with any
/// other right is rejected by the kernel).
const FILE_RIGHTS: u64 =
    ACCESS_FS_EXECUTE | ACCESS_FS_WRITE_FILE | ACCESS_FS_READ_FILE | ACCESS_FS_TRUNCATE | ACCESS_FS_IOCTL_DEV;

const CREATE_RULESET_VERSION: u32 = 1 << 0;
const RULE_PATH_BENEATH: libc::c_int = 1;

#[repr(C)]
#[derive(Debug)]
struct RulesetAttr {
    handled_access_fs: u64,
    handled_access_net: u64,
    scoped: u64,
}

#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

/// The filesystem rights ABI `abi` knows (0 when Landlock is absent).
pub(crate) fn fs_rights_for_abi(abi: u32) -> u64 {
    let mut rights = match abi {
        0 => return 0,
        // ABI 1's thirteen rights, bits 0 to 12: EXECUTE, WRITE_FILE, READ_FILE, READ_DIR,
        // REMOVE_DIR, REMOVE_FILE and MAKE_{CHAR,DIR,REG,SOCK,FIFO,BLOCK,SYM}.
        _ => (1 << 13) - 1,
    };
    if abi >= 2 {
        rights |= ACCESS_FS_REFER;
    }
    if abi >= 3 {
        rights |= ACCESS_FS_TRUNCATE;
    }
    if abi >= 5 {
        rights |= ACCESS_FS_IOCTL_DEV;
    }
    rights
}

/// The Landlock ABI version the running kernel offers, or the reason there is none.
pub fn abi_version() -> Result<u32, String> {
    // SAFETY: with a null attribute, size 0 and the VERSION flag, the call reads no memory and
    // only returns the ABI number (or -1 with errno).
    let rc = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<RulesetAttr>(),
            0usize,
            CREATE_RULESET_VERSION,
        )
    };
    if rc >= 1 {
        return u32::try_from(rc).map_err(|_| "Landlock reported an invalid ABI version".to_string());
    }
    let err = io::Error::last_os_error();
    Err(match err.raw_os_error() {
        Some(libc::ENOSYS) => "the kernel has no Landlock (Linux 5.13 or later built with it is needed)".to_string(),
        Some(libc::EOPNOTSUPP) => "Landlock is built into the kernel but disabled (boot option lsm=)".to_string(),
        _ => format!("Landlock is not usable: {err}"),
    })
}

/// A Landlock ruleset under construction (and, once built, ready to be enforced in children).
#[derive(Debug)]
pub struct Ruleset {
    fd: OwnedFd,
    handled_fs: u64,
}

impl Ruleset {
    /// A ruleset handling these rights: what it handles is denied unless a rule allows it.
    pub fn create(handled_fs: u64, handled_net: u64, scoped: u64) -> io::Result<Ruleset> {
        let attr = RulesetAttr { handled_access_fs: handled_fs, handled_access_net: handled_net, scoped };
        let raw = create_raw(&attr).map_err(io::Error::from_raw_os_error)?;
        // SAFETY: the kernel just returned this descriptor (close-on-exec) and nobody else owns it.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        Ok(Ruleset { fd, handled_fs })
    }

    /// The descriptor, for `child::spawn_setup`.
    pub(crate) fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// Allows `access` beneath `path` (or on it, for a file). The path is opened with `O_PATH`,
    /// following symlinks unless `follow` is false (then a symlink is refused: rules never
    /// reach through a link to its target). Rights the ruleset does not handle are dropped, and a
    /// file gets only file rights.
    pub fn allow(&self, path: &Path, access: u64, follow: bool) -> io::Result<()> {
        let c_path = CString::new(path.as_os_str().as_bytes())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path holds a NUL byte"))?;
        add_path_rule(self.fd.as_raw_fd(), &c_path, access & self.handled_fs, follow).map_err(|error| match error {
            RuleError::Link => io::Error::new(io::ErrorKind::InvalidInput, "a symlink is never a rule's target"),
            RuleError::Open(errno) | RuleError::Rule(errno) => io::Error::from_raw_os_error(errno),
        })
    }
}

/// Why a rule was not added.
enum RuleError {
    /// The path could not be opened (or inspected): the errno.
    Open(i32),
    /// The path is a symlink and links were not to be followed.
    Link,
    /// The kernel refused the rule: the errno.
    Rule(i32),
}

fn last_errno() -> i32 {
    io::Error::last_os_error().raw_os_error().unwrap_or(libc::EPERM)
}

/// `landlock_create_ruleset`: a new descriptor or the errno. System calls only, so a forked
/// child may call it (`LatePlan::enforce`) as well as the parent (`Ruleset::create`).
fn create_raw(attr: &RulesetAttr) -> Result<RawFd, i32> {
    // SAFETY: `attr` is a valid ruleset attribute borrowed for the call, its exact size is
    // passed, and the kernel only reads it during the call.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            attr as *const RulesetAttr,
            std::mem::size_of::<RulesetAttr>(),
            0u32,
        )
    };
    match RawFd::try_from(rc) {
        Ok(raw) if raw >= 0 => Ok(raw),
        _ => Err(last_errno()),
    }
}

/// Adds a path-beneath rule for `path` with `access` (already limited to the handled rights)
/// to `ruleset`: a file gets only file rights, a rule left with no right is not added, and with
/// `follow` false a symlink is refused. System calls only (no allocation), for the parent and
/// for a forked child alike.
fn add_path_rule(ruleset: RawFd, path: &CStr, access: u64, follow: bool) -> Result<(), RuleError> {
    let mut flags = libc::O_PATH | libc::O_CLOEXEC;
    if !follow {
        flags |= libc::O_NOFOLLOW;
    }
    // SAFETY: `path` is a NUL-terminated string that outlives the call.
    let fd = unsafe { libc::open(path.as_ptr(), flags) };
    if fd < 0 {
        return Err(RuleError::Open(last_errno()));
    }
    // SAFETY: an all-zero stat is a valid value of this plain C struct; fstat overwrites it, on a
    // descriptor we just opened.
    let mut stat: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `fd` is open and `stat` is a valid, exclusively borrowed struct.
    let result = if unsafe { libc::fstat(fd, &mut stat) } != 0 {
        Err(RuleError::Open(last_errno()))
    } else {
        let kind = stat.st_mode & libc::S_IFMT;
        let allowed = if kind == libc::S_IFDIR { access } else { access & FILE_RIGHTS };
        if kind == libc::S_IFLNK {
            Err(RuleError::Link)
        } else if allowed == 0 {
            Ok(())
        } else {
            let attr = PathBeneathAttr { allowed_access: allowed, parent_fd: fd };
            // SAFETY: `attr` is a valid packed path-beneath attribute on our stack and `fd` is
            // open for the duration of the call; the kernel copies what it needs.
            let rc = unsafe {
                libc::syscall(
                    libc::SYS_landlock_add_rule,
                    ruleset,
                    RULE_PATH_BENEATH,
                    &attr as *const PathBeneathAttr,
                    0u32,
                )
            };
            if rc == 0 { Ok(()) } else { Err(RuleError::Rule(last_errno())) }
        }
    };
    // SAFETY: closes the descriptor opened above, used by nothing else.
    unsafe { libc::close(fd) };
    result
}

/// A ruleset created and enforced in the command's own process after its namespace view is
/// built (the view's tmpfs mounts exist only there): everything readable, the listed paths
/// writable. Prepared in the parent; `enforce` only makes system calls.
#[derive(Debug)]
pub(crate) struct LatePlan {
    attr: RulesetAttr,
    rules: Vec<(CString, u64)>,
}

impl LatePlan {
    /// A plan handling every filesystem right of `abi`, `handled_net` and `scoped`, with `/`
    /// readable and executable.
    pub(crate) fn new(abi: u32, handled_net: u64, scoped: u64) -> LatePlan {
        let all = fs_rights_for_abi(abi);
        let attr = RulesetAttr { handled_access_fs: all, handled_access_net: handled_net, scoped };
        let mut plan = LatePlan { attr, rules: Vec::new() };
        plan.allow(Path::new("/"), ACCESS_FS_READ_FILE | ACCESS_FS_EXECUTE | ACCESS_FS_READ_DIR);
        plan
    }

    /// Allows every handled right beneath `path` (a file gets the file rights among them).
    pub(crate) fn allow_all(&mut self, path: &Path) {
        self.allow(path, self.attr.handled_access_fs);
    }

    fn allow(&mut self, path: &Path, access: u64) {
        if let Ok(c_path) = CString::new(path.as_os_str().as_bytes()) {
            self.rules.push((c_path, access & self.attr.handled_access_fs));
        }
    }

    /// Child: creates the ruleset, adds the rules whose paths exist in the view, and restricts
    /// the calling thread (no_new_privs must be set already). The error is an errno.
    ///
    /// # Safety
    /// Call only in a forked, single-threaded child before exec.
    pub(crate) unsafe fn enforce(&self) -> Result<(), i32> {
        let ruleset = create_raw(&self.attr)?;
        for (path, access) in &self.rules {
            match add_path_rule(ruleset, path, *access, true) {
                // Not in this view: nothing to allow.
                Ok(()) | Err(RuleError::Open(_) | RuleError::Link) => {}
                Err(RuleError::Rule(errno)) => {
                    // SAFETY: closes the ruleset descriptor created above.
                    unsafe { libc::close(ruleset) };
                    return Err(errno);
                }
            }
        }
        // SAFETY: restricts the calling (single-threaded) process with a ruleset we own, then
        // closes it.
        let rc = unsafe { libc::syscall(libc::SYS_landlock_restrict_self, ruleset, 0u32) };
        let error = last_errno();
        // SAFETY: as above.
        unsafe { libc::close(ruleset) };
        if rc != 0 { Err(error) } else { Ok(()) }
    }
}

#[cfg(test)]
#[path = "landlock_tests.rs"]
mod tests;
