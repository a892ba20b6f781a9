//! Unit tests of `warning.rs`: the size of a warning, which every loader returns in a list.

use super::*;

#[test]
fn a_warning_stays_small() {
    assert!(std::mem::size_of::<Warning>() <= 48);
}
