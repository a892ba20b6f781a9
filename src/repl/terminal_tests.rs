//! Tests of the terminal's shared state: the Ctrl-C counter.

use super::*;

#[test]
fn interrupts_count_presses_across_clones() {
    let interrupts = Interrupts::new();
    let handler = interrupts.clone();
    handler.press();
    handler.press();
    assert_eq!(interrupts.count(), 2);
}
