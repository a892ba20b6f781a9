//! Unit tests of `error.rs`: the size of a config error, which travels up to `main`.

use super::*;

#[test]
fn a_config_error_stays_small() {
    assert!(std::mem::size_of::<ConfigError>() <= 72);
}
