//! Unit tests of `mcp/mod.rs`: the size of the errors and states that travel to the front ends.

use super::{McpError, ServerState};

#[test]
fn errors_and_server_states_stay_small() {
    assert!(std::mem::size_of::<McpError>() <= 48, "{}", std::mem::size_of::<McpError>());
    assert!(std::mem::size_of::<ServerState>() <= 104, "{}", std::mem::size_of::<ServerState>());
}
