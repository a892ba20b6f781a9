//! The size of the events a run sends: every one crosses the rendezvous channel by value.

use super::*;

#[test]
fn an_event_stays_small_so_a_fat_new_variant_is_a_decision() {
    // 136 bytes today; box the payload of a new variant that would grow it.
    assert!(std::mem::size_of::<Event>() <= 136, "{}", std::mem::size_of::<Event>());
}
