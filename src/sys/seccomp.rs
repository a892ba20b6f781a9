//! The seccomp filter every confined command runs under, written by hand as classic BPF: no
//! keystroke injection into a terminal (TIOCSTI), and, when the network is off, no socket but
//! unix ones and no io_uring (which would create sockets behind the filter's back).
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

// `struct seccomp_data`: nr (int), arch (u32), instruction_pointer (u64), args[6] (u64 each).
// The low 32 bits of an argument come first (both supported architectures are little-endian).
const OFFSET_NR: u32 = 0;
const OFFSET_ARCH: u32 = 4;
const fn offset_arg_low(index: u32) -> u32 {
    16 + 8 * index
}

const TIOCSTI: u32 = 0x5412;
const AF_UNIX: u32 = 1;
const X32_SYSCALL_BIT: u32 = 0x4000_0000;

/// The numbers of the calls the filter looks at, per architecture.
struct Table {
    audit_arch: u32,
    rejects_x32: bool,
    ioctl: u32,
    socket: u32,
    io_uring: [u32; 3],
}

#[cfg(target_arch = "x86_64")]
const TABLE: Option<Table> =
    Some(Table { audit_arch: 0xc000_003e, rejects_x32: true, ioctl: 16, socket: 41, io_uring: [425, 426, 427] });
#[cfg(target_arch = "aarch64")]
const TABLE: Option<Table> =
    Some(Table { audit_arch: 0xc000_00b7, rejects_x32: false, ioctl: 29, socket: 198, io_uring: [425, 426, 427] });
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const TABLE: Option<Table> = None;

/// Where a jump goes, resolved to offsets when the program is assembled.
#[derive(Clone, Copy)]
enum Target {
    Next,
    Allow,
    Deny,
    /// The instruction `n` places after this one (1 = the next).
    Skip(u8),
}

enum Op {
    Load(u32),
    JumpEq(u32, Target, Target),
    JumpSet(u32, Target, Target),
}

/// The filter for this architecture, or None where we have no syscall table (the caller says the
/// network cannot be turned off there).
pub(crate) fn build_filter(network: bool) -> Option<Vec<Instruction>> {
    let table = TABLE?;
    let mut ops =
        vec![Op::Load(OFFSET_ARCH), Op::JumpEq(table.audit_arch, Target::Next, Target::Deny), Op::Load(OFFSET_NR)];
    if table.rejects_x32 {
        ops.push(Op::JumpSet(X32_SYSCALL_BIT, Target::Deny, Target::Next));
    }
    // ioctl(fd, TIOCSTI, ...): the kernel reads the request as 32 bits, so the low word decides.
    ops.push(Op::JumpEq(table.ioctl, Target::Next, Target::Skip(3)));
    ops.push(Op::Load(offset_arg_low(1)));
    ops.push(Op::JumpEq(TIOCSTI, Target::Deny, Target::Allow));
    if !network {
        ops.push(Op::JumpEq(table.socket, Target::Next, Target::Skip(3)));
        ops.push(Op::Load(offset_arg_low(0)));
        ops.push(Op::JumpEq(AF_UNIX, Target::Allow, Target::Deny));
        for number in table.io_uring {
            ops.push(Op::JumpEq(number, Target::Deny, Target::Next));
        }
    }
    Some(assemble(&ops))
}

/// Lays the operations out followed by `return allow` and `return EPERM`, resolving jumps.
fn assemble(ops: &[Op]) -> Vec<Instruction> {
    let allow_at = ops.len();
    let deny_at = allow_at + 1;
    let offset = |from: usize, target: Target| -> u8 {
        let to = match target {
            Target::Next => from + 1,
            Target::Allow => allow_at,
            Target::Deny => deny_at,
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
    program
}

/// What the filter answers for one call, computed by interpreting the program (tests, and a
/// check that the assembled jumps mean what the builder meant).
#[cfg(test)]
pub(crate) fn evaluate(program: &[Instruction], arch: u32, nr: u32, args_low: [u32; 6]) -> u32 {
    let mut accumulator = 0u32;
    let mut pc = 0usize;
    while let Some(instruction) = program.get(pc) {
        match instruction.code {
            LOAD_WORD_ABS => {
                accumulator = match instruction.k {
                    OFFSET_NR => nr,
                    OFFSET_ARCH => arch,
                    other => args_low[((other - 16) / 8) as usize],
                };
                pc += 1;
            }
            JUMP_EQ | JUMP_SET => {
                let taken = if instruction.code == JUMP_EQ {
                    accumulator == instruction.k
                } else {
                    accumulator & instruction.k != 0
                };
                pc += 1 + usize::from(if taken { instruction.jt } else { instruction.jf });
            }
            RETURN => return instruction.k,
            other => panic!("unknown opcode {other:#x}"),
        }
    }
    panic!("fell off the end of the program")
}

#[cfg(test)]
#[cfg(target_arch = "x86_64")]
mod tests {
    use super::*;

    const ARCH: u32 = 0xc000_003e;
    const EPERM: u32 = RET_ERRNO | 1;

    fn answer(network: bool, nr: u32, arg0: u32, arg1: u32) -> u32 {
        let program = build_filter(network).unwrap();
        evaluate(&program, ARCH, nr, [arg0, arg1, 0, 0, 0, 0])
    }

    #[test]
    fn tiocsti_is_refused_and_other_ioctls_pass() {
        for network in [true, false] {
            assert_eq!(answer(network, 16, 0, TIOCSTI), EPERM);
            assert_eq!(answer(network, 16, 0, 0x5401), RET_ALLOW); // TCGETS
            assert_eq!(answer(network, 16, TIOCSTI, 0), RET_ALLOW); // fd number, not the request
        }
    }

    #[test]
    fn network_off_allows_only_unix_sockets_and_no_io_uring() {
        assert_eq!(answer(false, 41, AF_UNIX, 1), RET_ALLOW);
        for family in [2, 10, 16, 17] {
            assert_eq!(answer(false, 41, family, 1), EPERM, "family {family}");
            assert_eq!(answer(true, 41, family, 1), RET_ALLOW, "family {family}");
        }
        for nr in [425, 426, 427] {
            assert_eq!(answer(false, nr, 0, 0), EPERM);
            assert_eq!(answer(true, nr, 0, 0), RET_ALLOW);
        }
        // Neighbours of the watched numbers are untouched.
        for nr in [0, 1, 15, 17, 40, 42, 424, 428] {
            assert_eq!(answer(false, nr, 2, TIOCSTI), RET_ALLOW, "nr {nr}");
        }
    }

    #[test]
    fn foreign_architectures_and_x32_numbers_are_refused() {
        let program = build_filter(true).unwrap();
        assert_eq!(evaluate(&program, 0x4000_0003, 41, [0; 6]), EPERM); // i386
        assert_eq!(evaluate(&program, ARCH, X32_SYSCALL_BIT | 41, [2, 0, 0, 0, 0, 0]), EPERM);
        assert_eq!(evaluate(&program, ARCH, 0, [0; 6]), RET_ALLOW);
    }
}
