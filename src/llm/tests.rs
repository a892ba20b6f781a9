//! Unit tests of `llm/mod.rs`: the size of the stream's events, so a fat new variant is a decision.

use super::{Completion, StreamEvent};

#[test]
fn stream_events_stay_small() {
    // Every delta of every answer is one of these, sent through a channel.
    assert!(std::mem::size_of::<StreamEvent>() <= 80, "{}", std::mem::size_of::<StreamEvent>());
    assert!(std::mem::size_of::<Completion>() <= 72, "{}", std::mem::size_of::<Completion>());
}
