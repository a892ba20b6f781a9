//! The agent's port to the permission system: one decision per call, and persistence of
//! "always" answers. The loop does not know which layers exist behind it.
//!
//! Invariant: a `Deny` message already starts with the stable refusal prefix of SPEC §1.1, so it
//! can be fed back to the model as it is.

use crate::mode::Mode;
use crate::msg::ToolCall;

/// What the gate decided for one call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Allow,
    /// Ask the human; in -p mode this becomes a "needs approval:" denial.
    Ask {
        reason: String,
    },
    /// Refused; `message` starts with its layer's prefix (`denied by sandbox: ...`).
    Deny {
        message: String,
    },
}

/// The permission system as the agent sees it.
pub trait Gate: Send + Sync {
    /// Decides one call. `rule_name` is the tool's friendly name; `read_only` its class.
    fn check(&self, mode: Mode, call: &ToolCall, rule_name: &str, read_only: bool) -> Verdict;
    /// Persists an exact allow rule for this call ("always"). Returns a message on failure.
    fn remember(&self, call: &ToolCall, rule_name: &str) -> Result<(), String>;
}

/// The mode matrix alone (SPEC §5 layer 4): read-only → Allow; bypass → Allow; acceptEdits +
/// file write → Allow; everything else → Ask. Used where no rules are configured and in tests.
pub struct ModeMatrix;

impl Gate for ModeMatrix {
    fn check(&self, mode: Mode, _call: &ToolCall, rule_name: &str, read_only: bool) -> Verdict {
        let file_write = matches!(rule_name, "Write" | "Edit");
        match (read_only, mode) {
            (true, _) | (false, Mode::Bypass) => Verdict::Allow,
            (false, Mode::AcceptEdits) if file_write => Verdict::Allow,
            (false, _) => Verdict::Ask { reason: format!("{rule_name} changes things; mode {mode} asks first") },
        }
    }

    fn remember(&self, _call: &ToolCall, _rule_name: &str) -> Result<(), String> {
        Ok(())
    }
}
