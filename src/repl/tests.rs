//! Tests of the loop's own decision: what a Ctrl-C at the prompt means.

use super::*;

#[test]
fn ctrl_c_at_the_prompt_clears_warns_then_exits_within_two_seconds() {
    let start = Instant::now();
    assert_eq!(plan_prompt_interrupt(true, None, start), PromptInterrupt::ClearLine);
    assert_eq!(plan_prompt_interrupt(true, Some(start), start), PromptInterrupt::ClearLine);
    assert_eq!(plan_prompt_interrupt(false, None, start), PromptInterrupt::Warn);
    assert_eq!(plan_prompt_interrupt(false, Some(start), start + Duration::from_millis(1900)), PromptInterrupt::Exit);
    assert_eq!(plan_prompt_interrupt(false, Some(start), start + Duration::from_secs(3)), PromptInterrupt::Warn);
}
