//! What the agent-loop benchmarks (`batch_speedup`, `iteration_overhead`) share: a permission
//! gate that lets every call run, so they time the loop and not the permission engine.
//!
//! Invariant: only read-only tools run under it in the benchmarks, which the real engine allows
//! too, so the figures are those of the product's path. Not an example itself (cargo builds
//! only `examples/*.rs` and `examples/*/main.rs`).

use mewcode::bench::{Gate, Mode, Tool, ToolCall, Verdict};

/// Lets every call run and saves nothing.
pub struct AllowAll;

impl Gate for AllowAll {
    fn check(&self, _mode: Mode, _call: &ToolCall, _tool: &dyn Tool) -> Verdict {
        Verdict::Allow
    }
}
