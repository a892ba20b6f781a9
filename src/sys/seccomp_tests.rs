//! Unit tests of `seccomp.rs`: the filter run on sample system calls (x86-64 only).
#![cfg(target_arch = "x86_64")]

use super::*;

const ARCH: u32 = 0xc000_003e;
const EPERM: u32 = RET_ERRNO | 1;

const OPEN: Policy = Policy { network: true, unix_sockets: true, metadata: true };

/// What the filter answers for one call, computed by interpreting the program: the tests' view of
/// the filter, and a check that the assembled jumps mean what the builder meant.
fn evaluate(program: &[Instruction], arch: u32, nr: u32, args_low: [u32; 6]) -> u32 {
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

fn answer(network: bool, nr: u32, arg0: u32, arg1: u32) -> u32 {
    let program = build_filter(Policy { network, unix_sockets: true, metadata: true }).unwrap();
    evaluate(&program, ARCH, nr, [arg0, arg1, 0, 0, 0, 0])
}

fn call(policy: Policy, nr: u32, args: [u32; 6]) -> u32 {
    evaluate(&build_filter(policy).unwrap(), ARCH, nr, args)
}

#[test]
fn no_call_sets_a_setuid_or_setgid_bit() {
    for (nr, mode_at) in [(90, 1), (91, 1), (268, 2), (452, 2), (85, 1), (133, 1), (259, 2)] {
        for (mode, expected) in
            [(0o4755, EPERM), (0o2755, EPERM), (0o6777, EPERM), (0o755, RET_ALLOW), (0o1777, RET_ALLOW)]
        {
            let mut args = [0; 6];
            args[mode_at] = mode;
            assert_eq!(call(OPEN, nr, args), expected, "nr {nr} mode {mode:o}");
        }
    }
    // open(path, O_CREAT|O_WRONLY, 04755) and openat(dir, path, O_CREAT, 02755) create one.
    assert_eq!(call(OPEN, 2, [0, 0o101, 0o4755, 0, 0, 0]), EPERM);
    assert_eq!(call(OPEN, 257, [0, 0, 0o100, 0o2755, 0, 0]), EPERM);
    assert_eq!(call(OPEN, 257, [0, 0, 0o20_200_002, 0o4700, 0, 0]), EPERM); // O_TMPFILE
    // Without O_CREAT the mode argument means nothing: a stray value is not a refusal.
    assert_eq!(call(OPEN, 2, [0, 0o2, 0o4755, 0, 0, 0]), RET_ALLOW);
    assert_eq!(call(OPEN, 257, [0, 0, 0o101, 0o644, 0, 0]), RET_ALLOW);
    assert_eq!(call(OPEN, 437, [0; 6]), RET_ERRNO | ENOSYS);
}

#[test]
fn without_the_view_owners_attributes_and_flags_cannot_change() {
    let landlock_only = Policy { network: true, unix_sockets: false, metadata: false };
    for nr in [92, 93, 94, 260, 188, 189, 190, 197, 198, 199, 463, 466] {
        assert_eq!(call(landlock_only, nr, [0; 6]), EPERM, "nr {nr}");
        assert_eq!(call(OPEN, nr, [0; 6]), RET_ALLOW, "nr {nr}");
    }
    for request in SET_FLAGS {
        assert_eq!(call(landlock_only, 16, [3, request, 0, 0, 0, 0]), EPERM, "{request:#x}");
        assert_eq!(call(OPEN, 16, [3, request, 0, 0, 0, 0]), RET_ALLOW, "{request:#x}");
    }
    // Reading flags, and the terminal refusal, are unchanged.
    assert_eq!(call(landlock_only, 16, [3, 0x8008_6601, 0, 0, 0, 0]), RET_ALLOW); // FS_IOC_GETFLAGS
    assert_eq!(call(landlock_only, 16, [0, TIOCSTI, 0, 0, 0, 0]), EPERM);
    // chmod and utimes stay: the project needs them, and seccomp cannot see where they land.
    assert_eq!(call(landlock_only, 90, [0, 0o755, 0, 0, 0, 0]), RET_ALLOW);
    assert_eq!(call(landlock_only, 280, [0; 6]), RET_ALLOW); // utimensat
}

#[test]
fn unix_sockets_are_refused_unless_allowed_and_socketpair_always_works() {
    let closed = Policy { network: true, unix_sockets: false, metadata: true };
    assert_eq!(call(closed, 41, [AF_UNIX, 1, 0, 0, 0, 0]), EPERM);
    assert_eq!(call(closed, 41, [2, 1, 0, 0, 0, 0]), RET_ALLOW);
    assert_eq!(call(closed, 53, [AF_UNIX, 1, 0, 0, 0, 0]), RET_ALLOW); // socketpair
    assert_eq!(call(closed, 425, [0; 6]), EPERM); // io_uring could open one
    let nothing = Policy { network: false, unix_sockets: false, metadata: true };
    assert_eq!(call(nothing, 41, [AF_UNIX, 1, 0, 0, 0, 0]), EPERM);
    assert_eq!(call(nothing, 41, [10, 1, 0, 0, 0, 0]), EPERM);
    assert_eq!(call(OPEN, 41, [AF_UNIX, 1, 0, 0, 0, 0]), RET_ALLOW);
    assert_eq!(call(OPEN, 425, [0; 6]), RET_ALLOW);
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
    let program = build_filter(OPEN).unwrap();
    assert_eq!(evaluate(&program, 0x4000_0003, 41, [0; 6]), EPERM); // i386
    assert_eq!(evaluate(&program, ARCH, X32_SYSCALL_BIT | 41, [2, 0, 0, 0, 0, 0]), EPERM);
    assert_eq!(evaluate(&program, ARCH, 0, [0; 6]), RET_ALLOW);
}
