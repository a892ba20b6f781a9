//! A gate for the agent's tests: the mode matrix alone, without rules, sandbox or files.
//!
//! Invariant: it decides by the mode and what the tool declares (SPEC §5 layer 4) and nothing
//! else, and it persists nothing; the real gate is `EngineGate` (`gate.rs`).

use super::gate::{Gate, Verdict};
use crate::mode::Mode;
use crate::msg::ToolCall;
use crate::tools::{Tool, ToolKind};

/// The mode matrix alone (SPEC §5 layer 4): read-only → Allow; bypass → Allow; acceptEdits +
/// file write → Allow; everything else → Ask. The agent's tests run with it where
/// the rules do not matter.
pub(crate) struct ModeMatrix;

impl Gate for ModeMatrix {
    fn check(&self, mode: Mode, _call: &ToolCall, tool: &dyn Tool) -> Verdict {
        let file_write = tool.kind() == ToolKind::WritesPath;
        let rule_name = tool.rule_name();
        match (tool.permission_read_only(), mode) {
            (true, _) | (false, Mode::Bypass) => Verdict::Allow,
            (false, Mode::AcceptEdits) if file_write => Verdict::Allow,
            (false, _) => Verdict::Ask { reason: format!("{rule_name} changes things; mode {mode} asks first") },
        }
    }

    fn hook_may_allow(&self, _mode: Mode, _call: &ToolCall, _tool: &dyn Tool) -> bool {
        // Every Ask of the matrix is the mode's.
        true
    }
}
