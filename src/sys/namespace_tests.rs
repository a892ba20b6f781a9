//! Unit tests of `namespace.rs`: id maps, the network namespace and the trial codes.

use super::*;

#[test]
fn each_user_maps_only_its_own_ids() {
    assert_eq!(id_maps(0, 0), (c"0 0 1".to_owned(), c"0 0 1".to_owned()));
    assert_eq!(id_maps(1000, 100), (c"1000 1000 1".to_owned(), c"100 100 1".to_owned()));
}

#[test]
fn the_network_namespace_comes_only_with_the_network_off() {
    let base = libc::CLONE_NEWUSER | libc::CLONE_NEWPID | libc::CLONE_NEWIPC;
    assert_eq!(namespaces(true), base);
    assert_eq!(namespaces(false), base | libc::CLONE_NEWNET);
}

#[test]
fn trial_codes_name_the_step_and_the_cause() {
    assert!(trial_reason(11).starts_with("cannot create a user namespace (not permitted"));
    assert!(trial_reason(22).starts_with("cannot write the user namespace's id maps (the kernel lacks"));
    assert!(trial_reason(33).starts_with("cannot mount in a new mount namespace (a limit"));
    assert_eq!(trial_reason(44), "cannot mount a fresh /proc");
    assert_eq!(trial_reason(255), "the trial ended with code 255");
}

#[test]
fn a_setup_failure_stays_small() {
    assert!(std::mem::size_of::<Failure>() <= 56);
}
