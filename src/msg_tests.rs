//! Unit tests of `msg.rs`: the size of the message types every layer passes around.

use super::*;

#[test]
fn message_types_stay_small() {
    // A message is copied into the history, the session log and every request: a fat new field
    // or variant must be a decision, not an accident.
    assert!(std::mem::size_of::<Message>() <= 104);
    assert!(std::mem::size_of::<ToolCall>() <= 72);
    assert!(std::mem::size_of::<ToolResult>() <= 56);
    assert!(std::mem::size_of::<ThinkingBlock>() <= 48);
}
