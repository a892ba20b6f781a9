//! The words of `-p`'s Claude Code vocabulary: subtypes, permission modes, MCP statuses.

use super::*;

#[test]
fn only_a_natural_finish_is_success_and_only_the_cap_is_max_turns() {
    let stops = [Stop::Completed, Stop::IterationLimit, Stop::UnknownTools, Stop::Cancelled, Stop::Failed];
    let subtypes: Vec<&str> = stops.into_iter().map(subtype).collect();
    assert_eq!(
        subtypes,
        ["success", "error_max_turns", "error_during_execution", "error_during_execution", "error_during_execution"]
    );
}

#[test]
fn modes_take_claude_codes_names() {
    let modes = [Mode::Default, Mode::AcceptEdits, Mode::Plan, Mode::Bypass];
    let names: Vec<&str> = modes.into_iter().map(permission_mode).collect();
    assert_eq!(names, ["default", "acceptEdits", "plan", "bypassPermissions"]);
}

#[test]
fn server_states_take_claude_codes_names() {
    let failed = ServerState::Failed { error: "spawn failed".into(), stderr: Vec::new() };
    let stopped = ServerState::Stopped { error: "exited".into(), stderr: Vec::new() };
    let names: Vec<&str> = [ServerState::Starting, failed, stopped].iter().map(server_status).collect();
    assert_eq!(names, ["pending", "failed", "stopped"]);
}
