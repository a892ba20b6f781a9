//! Unit tests of `sys`: process probes and group signals, and a descriptor that is not a terminal.

use super::*;

#[test]
fn own_process_exists_and_absurd_pid_does_not() {
    assert!(process_exists(std::process::id()));
    assert!(!process_exists(0));
    assert!(!process_exists(u32::MAX));
}

#[test]
fn terminate_refuses_dangerous_ids_and_a_gone_process_is_fine() {
    assert!(terminate(0).is_err());
    assert!(terminate(1).is_err());
    assert!(terminate(u32::MAX).is_err());
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    assert!(terminate(pid).is_ok());
    let mut sleeper = std::process::Command::new("sleep").arg("30").spawn().unwrap();
    terminate(sleeper.id()).unwrap();
    assert!(!sleeper.wait().unwrap().success());
}

#[test]
fn kill_process_group_refuses_dangerous_ids() {
    assert!(kill_process_group(0).is_err());
    assert!(kill_process_group(1).is_err());
    assert!(kill_process_group(u32::MAX).is_err());
}

#[test]
fn kill_process_group_of_a_dead_group_is_ok() {
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    assert!(kill_process_group(pid).is_ok());
}

#[test]
fn kill_process_group_kills_a_child_in_its_own_group() {
    use std::os::unix::process::CommandExt;
    let mut child = std::process::Command::new("sleep").arg("30").process_group(0).spawn().unwrap();
    kill_process_group(child.id()).unwrap();
    let status = child.wait().unwrap();
    assert!(!status.success());
}

#[test]
fn a_descriptor_that_is_not_a_terminal_is_an_error() {
    assert!(terminal_mode(-1).is_err());
    let file = std::fs::File::open("/dev/null").unwrap();
    use std::os::fd::AsRawFd;
    assert!(terminal_mode(file.as_raw_fd()).is_err());
    assert!(discard_pending_input(-1).is_err());
    assert_eq!(terminal_columns(-1), None);
    assert_eq!(terminal_columns(file.as_raw_fd()), None);
}
