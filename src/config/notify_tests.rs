//! Tests of `notify.rs`.

use super::*;

#[test]
fn every_choice_parses_and_writes_only_fixed_sequences() {
    assert_eq!(Notify::parse("Bell"), Some(Notify::Bell));
    assert_eq!(Notify::parse(" osc9 "), Some(Notify::Osc9));
    assert_eq!(Notify::parse("osc777"), Some(Notify::Osc777));
    assert_eq!(Notify::parse("none"), Some(Notify::Off));
    assert_eq!(Notify::parse("loud"), None);
    assert_eq!(Notify::default().sequence(true), "\x07");
    assert_eq!(Notify::Off.sequence(true), "");
    assert!(Notify::Osc9.sequence(true).starts_with("\x1b]9;"));
    assert!(Notify::Osc777.sequence(true).starts_with("\x1b]777;notify;"));
    assert_eq!(Notify::Osc9.sequence(false), "\x07", "a plain terminal gets the bell");
}
