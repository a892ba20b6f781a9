//! The reminder of each request: plan mode's on its schedule, hook context when there is some.

use super::*;

#[test]
fn plan_reminder_is_full_on_1_5_9_and_short_otherwise() {
    let full: Vec<u32> = (1..=12).filter(|&i| build(Mode::Plan, i, &[]).as_deref() == Some(PLAN_FULL)).collect();
    assert_eq!(full, [1, 5, 9]);
    assert_eq!(build(Mode::Plan, 2, &[]).as_deref(), Some(PLAN_SHORT));
    assert_eq!(build(Mode::Default, 1, &[]), None);
    assert_eq!(build(Mode::Bypass, 5, &[]), None);
}

#[test]
fn hook_context_joins_the_reminder() {
    let context = ["lint is red".to_string()];
    let alone = build(Mode::Default, 3, &context).unwrap();
    assert_eq!(alone, "<system-reminder>\nContext added by the user's hooks:\nlint is red\n</system-reminder>");
    let with_plan = build(Mode::Plan, 1, &context).unwrap();
    assert!(with_plan.starts_with(PLAN_FULL) && with_plan.ends_with(&alone));
}
