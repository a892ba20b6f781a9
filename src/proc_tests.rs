//! Unit tests of `proc.rs`: capped output, separate buffers and the timeout kill.

use super::*;

#[test]
fn capped_output_keeps_head_and_tail_across_pushes() {
    let mut output = CappedOutput::new(4, 4);
    for chunk in [&b"ab"[..], b"cdef", b"gh", b"ijklmnop", b"q"] {
        output.push(chunk);
    }
    assert_eq!(output.render(), "abcd\n... 9 bytes omitted ...\nnopq");
    let mut small = CappedOutput::new(4, 4);
    small.push(b"abcdef");
    assert_eq!(small.render(), "abcdef");
}

#[test]
fn separate_buffers_stdin_and_exit_code() {
    let mut command = Command::new("sh");
    command.arg("-c").arg("cat; echo oops >&2; exit 3");
    let cancel = CancelToken::new();
    let job = Job {
        command,
        stdin: Some(b"fed through stdin".to_vec()),
        timeout: Duration::from_secs(20),
        cancel: &cancel,
        merge_output: false,
        head_bytes: 1000,
        tail_bytes: 1000,
        label: "test",
        confinement: None,
        watch: None,
    };
    let finished = run(job).unwrap();
    assert_eq!((finished.stdout.as_str(), finished.stderr.as_str()), ("fed through stdin", "oops\n"));
    assert!(matches!(finished.ending, Ending::Exited(status) if status.code() == Some(3)));
}

#[test]
fn a_child_that_ignores_stdin_and_hangs_is_killed_at_the_timeout() {
    let mut command = Command::new("sh");
    command.arg("-c").arg("sleep 30");
    let cancel = CancelToken::new();
    let started = Instant::now();
    let job = Job {
        command,
        stdin: Some(vec![b'x'; 1 << 20]),
        timeout: Duration::from_millis(200),
        cancel: &cancel,
        merge_output: true,
        head_bytes: 10,
        tail_bytes: 10,
        label: "test",
        confinement: None,
        watch: None,
    };
    let finished = run(job).unwrap();
    assert!(matches!(finished.ending, Ending::TimedOut));
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[test]
fn a_finished_run_stays_small() {
    assert!(std::mem::size_of::<Finished>() <= 64);
}
