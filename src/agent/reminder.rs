//! The per-iteration reminder: guidance placed after the history, never in the stable system
//! prompt (which must stay byte-identical so the prompt cache hits).
//!
//! Invariant: pure; the plan reminder is in full on iteration 1 and every 4th after it.

use crate::mode::Mode;

/// Plan mode repeats its full reminder every this many iterations (1, 5, 9, ...).
const PLAN_REMINDER_INTERVAL: u32 = 4;

const PLAN_FULL: &str = "\
<system-reminder>
Plan mode is active. You may only use read-only tools (read_file, glob, grep, task): do not \
create, edit or delete files and do not run commands that change anything. Investigate the code \
as much as you need, then answer with a concrete, numbered plan: the files to change, what to \
change in each and why, and how to verify it. The user will switch modes to carry it out.
</system-reminder>";

const PLAN_SHORT: &str =
    "<system-reminder>Plan mode is still active: read-only tools only; finish with the plan.</system-reminder>";

/// The reminder for this iteration, if any: the plan-mode reminder and the text hooks added.
pub(super) fn build(mode: Mode, iteration: u32, hook_context: &[String]) -> Option<String> {
    let plan = match mode {
        Mode::Plan if (iteration.max(1) - 1).is_multiple_of(PLAN_REMINDER_INTERVAL) => Some(PLAN_FULL.to_string()),
        Mode::Plan => Some(PLAN_SHORT.to_string()),
        Mode::Default | Mode::AcceptEdits | Mode::Bypass => None,
    };
    let hooks = (!hook_context.is_empty()).then(|| {
        format!(
            "<system-reminder>\nContext added by the user's hooks:\n{}\n</system-reminder>",
            hook_context.join("\n")
        )
    });
    match (plan, hooks) {
        (Some(plan), Some(hooks)) => Some(format!("{plan}\n{hooks}")),
        (plan, hooks) => plan.or(hooks),
    }
}

#[cfg(test)]
#[path = "reminder_tests.rs"]
mod tests;
