//! The suggestions of unknown flags and misspelt commands.

use super::*;

#[test]
fn edit_distance_counts_insertions_deletions_and_changes() {
    assert_eq!(distance("doctor", "doctor"), 0);
    assert_eq!(distance("doctor", "doctr"), 1);
    assert_eq!(distance("doctor", "dcotor"), 2);
    assert_eq!(distance("", "abc"), 3);
    assert_eq!(distance("kitten", "sitting"), 3);
    assert_eq!(near_subcommand("sesions"), Some("sessions"));
    assert_eq!(near_subcommand("fix it"), None);
    assert_eq!(near_subcommand("refactor"), None);
}
