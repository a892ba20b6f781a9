//! The seccomp filter every confined command runs under, written by hand as classic BPF: no
//! keystroke injection into a terminal (TIOCSTI); no setuid or setgid bit set on any file (by
//! chmod, by creating a file with that mode, or by mknod), so nothing a command leaves behind
//! runs with another user's rights; no unix socket unless the user allowed some (the user's
//! tmux, ssh-agent, docker and D-Bus listen on them); when the network is off, no socket but
//! unix ones; and, whenever sockets are filtered, no io_uring (which would create sockets
//! behind the filter's back). `openat2`, whose mode the filter cannot read, answers ENOSYS, so
//! programs fall back to `openat`. Where no namespace view makes the rest of the machine
//! read-only, it also refuses what Landlock cannot see: changing an owner (the chown family),
//! extended attributes (file capabilities, ACLs) and inode flags (`chattr +i`).
//!
//! Invariant: the program is built in the parent (allocation is fine there) and only installed
//! in the child; a foreign architecture or, on x86_64, an x32 system call number is refused
//! with EPERM instead of being read with the wrong table. Everything else is allowed: this
//! filter narrows a few calls, the filesystem is Landlock's job.

/// One classic-BPF instruction (`struct sock_filter`).
pub(crate) type Instruction = libc::sock_filter;

const LOAD_WORD_ABS: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
const JUMP_EQ: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const JUMP_SET: u16 = 0x45; // BPF_JMP | BPF_JSET | BPF_K
const RETURN: u16 = 0x06; // BPF_RET | BPF_K

const RET_ALLOW: u32 = 0x7fff_0000;
const RET_ERRNO: u32 = 0x0005_0000;
/// `ENOSYS`: "this kernel has no such call", which makes callers of `openat2` use `openat`.
const ENOSYS: u32 = 38;

// `struct seccomp_data`: nr (int), arch (u32), instruction_pointer (u64), args[6] (u64 each).
// The low 32 bits of an argument come first (both supported architectures are little-endian).
const OFFSET_NR: u32 = 0;
const OFFSET_ARCH: u32 = 4;
const fn offset_arg_low(index: u32) -> u32 {
    16 + 8 * index
}

const TIOCSTI: u32 = 0x5412;
/// `FS_IOC_SETFLAGS` (64- and 32-bit spellings) and `FS_IOC_FSSETXATTR`: `chattr`'s ioctls.
const SET_FLAGS: [u32; 3] = [0x4008_6602, 0x4004_6602, 0x401c_5820];
const AF_UNIX: u32 = 1;
/// The setuid and setgid bits of a mode.
const SET_ID_BITS: u32 = 0o6000;
/// `O_CREAT` and `O_TMPFILE`'s own bit: an open that may create a file with a mode.
const CREATES: u32 = 0o100 | 0o20_000_000;
const X32_SYSCALL_BIT: u32 = 0x4000_0000;

/// The numbers of the calls the filter looks at, per architecture.
struct Table {
    audit_arch: u32,
    rejects_x32: bool,
    ioctl: u32,
    socket: u32,
    io_uring: [u32; 3],
    /// Calls that set a mode, with the index of the mode argument: chmod, fchmod, fchmodat,
    /// fchmodat2, creat, mknod, mknodat (those the architecture has).
    mode_setters: &'static [(u32, u32)],
    /// Opens that may create a file: (number, flags argument, mode argument).
    opens: &'static [(u32, u32, u32)],
    openat2: u32,
    /// The chown family and the calls that set or remove extended attributes.
    owners_and_attributes: &'static [u32],
}

#[cfg(target_arch = "x86_64")]
const TABLE: Option<Table> = Some(Table {
    audit_arch: 0xc000_003e,
    rejects_x32: true,
    ioctl: 16,
    socket: 41,
    io_uring: [425, 426, 427],
    mode_setters: &[(90, 1), (91, 1), (268, 2), (452, 2), (85, 1), (133, 1), (259, 2)],
    opens: &[(2, 1, 2), (257, 2, 3)],
    openat2: 437,
    owners_and_attributes: &[92, 93, 94, 260, 188, 189, 190, 197, 198, 199, 463, 466],
});
#[cfg(target_arch = "aarch64")]
const TABLE: Option<Table> = Some(Table {
    audit_arch: 0xc000_00b7,
    rejects_x32: false,
    ioctl: 29,
    socket: 198,
    io_uring: [425, 426, 427],
    mode_setters: &[(52, 1), (53, 2), (452, 2), (33, 2)],
    opens: &[(56, 2, 3)],
    openat2: 437,
    owners_and_attributes: &[55, 54, 5, 6, 7, 14, 15, 16, 463, 466],
});
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const TABLE: Option<Table> = None;

/// Where a jump goes, resolved to offsets when the program is assembled.
#[derive(Clone, Copy)]
enum Target {
    Next,
    Allow,
    Deny,
    NoSys,
    /// The instruction `n` places after this one (1 = the next).
    Skip(u8),
}

enum Op {
    Load(u32),
    JumpEq(u32, Target, Target),
    JumpSet(u32, Target, Target),
}

/// What the filter lets through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Policy {
    /// Internet (and every other non-unix) sockets.
    pub(crate) network: bool,
    /// Unix sockets (`socketpair` always works: it reaches nobody else).
    pub(crate) unix_sockets: bool,
    /// Owners, extended attributes and inode flags may change (inside the view, where only the
    /// project is writable); false without it, where they would change outside too.
    pub(crate) metadata: bool,
}

/// The filter for this architecture, or None where we have no syscall table (the caller says the
/// network cannot be turned off there).
pub(crate) fn build_filter(policy: Policy) -> Option<Vec<Instruction>> {
    let table = TABLE?;
    let mut ops =
        vec![Op::Load(OFFSET_ARCH), Op::JumpEq(table.audit_arch, Target::Next, Target::Deny), Op::Load(OFFSET_NR)];
    if table.rejects_x32 {
        ops.push(Op::JumpSet(X32_SYSCALL_BIT, Target::Deny, Target::Next));
    }
    // ioctl(fd, TIOCSTI, ...): the kernel reads the request as 32 bits, so the low word decides.
    let flag_ioctls: &[u32] = if policy.metadata { &[] } else { &SET_FLAGS };
    let past_ioctl = u8::try_from(3 + flag_ioctls.len()).unwrap_or(u8::MAX);
    ops.push(Op::JumpEq(table.ioctl, Target::Next, Target::Skip(past_ioctl)));
    ops.push(Op::Load(offset_arg_low(1)));
    for request in flag_ioctls {
        ops.push(Op::JumpEq(*request, Target::Deny, Target::Next));
    }
    ops.push(Op::JumpEq(TIOCSTI, Target::Deny, Target::Allow));
    if !policy.metadata {
        for &number in table.owners_and_attributes {
            ops.push(Op::JumpEq(number, Target::Deny, Target::Next));
        }
    }
    // A mode with the setuid or setgid bit, wherever a mode is given (only its low bits matter).
    for &(number, mode) in table.mode_setters {
        ops.push(Op::JumpEq(number, Target::Next, Target::Skip(3)));
        ops.push(Op::Load(offset_arg_low(mode)));
        ops.push(Op::JumpSet(SET_ID_BITS, Target::Deny, Target::Allow));
    }
    for &(number, flags, mode) in table.opens {
        ops.push(Op::JumpEq(number, Target::Next, Target::Skip(5)));
        ops.push(Op::Load(offset_arg_low(flags)));
        ops.push(Op::JumpSet(CREATES, Target::Next, Target::Allow));
        ops.push(Op::Load(offset_arg_low(mode)));
        ops.push(Op::JumpSet(SET_ID_BITS, Target::Deny, Target::Allow));
    }
    ops.push(Op::JumpEq(table.openat2, Target::NoSys, Target::Next));
    if !(policy.network && policy.unix_sockets) {
        let unix = if policy.unix_sockets { Target::Allow } else { Target::Deny };
        let other = if policy.network { Target::Allow } else { Target::Deny };
        ops.push(Op::JumpEq(table.socket, Target::Next, Target::Skip(3)));
        ops.push(Op::Load(offset_arg_low(0)));
        ops.push(Op::JumpEq(AF_UNIX, unix, other));
        for number in table.io_uring {
            ops.push(Op::JumpEq(number, Target::Deny, Target::Next));
        }
    }
    Some(assemble(&ops))
}

/// Lays the operations out followed by `return allow`, `return EPERM` and `return ENOSYS`,
/// resolving jumps.
fn assemble(ops: &[Op]) -> Vec<Instruction> {
    let allow_at = ops.len();
    let deny_at = allow_at + 1;
    let no_sys_at = allow_at + 2;
    let offset = |from: usize, target: Target| -> u8 {
        let to = match target {
            Target::Next => from + 1,
            Target::Allow => allow_at,
            Target::Deny => deny_at,
            Target::NoSys => no_sys_at,
            Target::Skip(places) => from + usize::from(places),
        };
        // Programs here are a few dozen instructions, so every offset fits a byte.
        u8::try_from(to - from - 1).unwrap_or(u8::MAX)
    };
    let mut program: Vec<Instruction> = ops
        .iter()
        .enumerate()
        .map(|(at, op)| match *op {
            Op::Load(offset_bytes) => Instruction { code: LOAD_WORD_ABS, jt: 0, jf: 0, k: offset_bytes },
            Op::JumpEq(value, yes, no) => {
                Instruction { code: JUMP_EQ, jt: offset(at, yes), jf: offset(at, no), k: value }
            }
            Op::JumpSet(bits, yes, no) => {
                Instruction { code: JUMP_SET, jt: offset(at, yes), jf: offset(at, no), k: bits }
            }
        })
        .collect();
    program.push(Instruction { code: RETURN, jt: 0, jf: 0, k: RET_ALLOW });
    program.push(Instruction { code: RETURN, jt: 0, jf: 0, k: RET_ERRNO | libc::EPERM as u32 });
    program.push(Instruction { code: RETURN, jt: 0, jf: 0, k: RET_ERRNO | ENOSYS });
    program
}

#[cfg(test)]
#[path = "seccomp_tests.rs"]
mod tests;
