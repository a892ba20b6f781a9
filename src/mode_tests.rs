//! Unit tests of `mode.rs`: the Shift-Tab cycle and the modes' names.

use super::*;

/// The modes Shift-Tab visits from `start` until it comes back.
fn cycle(start: Mode, bypass_in_cycle: bool) -> Vec<Mode> {
    let mut seen = vec![start];
    let mut mode = start.next(bypass_in_cycle);
    while mode != start && seen.len() < 10 {
        seen.push(mode);
        mode = mode.next(bypass_in_cycle);
    }
    seen
}

#[test]
fn shift_tab_never_reaches_bypass_unless_it_is_in_the_cycle() {
    use Mode::*;
    assert_eq!(cycle(Default, false), vec![Default, AcceptEdits, Plan]);
    assert_eq!(cycle(Plan, false), vec![Plan, Default, AcceptEdits]);
    assert_eq!(cycle(Default, true), vec![Default, AcceptEdits, Plan, Bypass]);
    assert_eq!(cycle(Bypass, true), vec![Bypass, Default, AcceptEdits, Plan]);
    // Set by `/mode bypass` in a session without it in the cycle: one press leaves it, and it
    // does not come back.
    assert_eq!(Bypass.next(false), Default);
    assert_eq!(cycle(Bypass.next(false), false), vec![Default, AcceptEdits, Plan]);
}

#[test]
fn bypass_is_shown_in_capitals() {
    assert_eq!(Mode::Bypass.shown(), "BYPASS");
    assert_eq!(Mode::AcceptEdits.shown(), "acceptEdits");
    for mode in [Mode::Default, Mode::AcceptEdits, Mode::Plan, Mode::Bypass] {
        assert_eq!(Mode::parse(mode.as_str()), Some(mode));
    }
}
