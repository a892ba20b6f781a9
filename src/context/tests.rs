//! Unit tests of `context`: estimate, thresholds, breaker, resume; and the helpers all context tests share.

use super::offload::DirBeneath;
use super::*;
use crate::msg::{ToolCall, ToolResult};

/// SPEC's own figures (a 200 000-token window).
pub(super) fn spec() -> Limits {
    Limits::for_window(200_000)
}

pub(super) fn user(text: &str) -> Message {
    Message::user(text)
}

/// `dir` as its last component beneath its parent (what offload writes into, checked).
pub(super) fn beneath(dir: &std::path::Path) -> DirBeneath {
    let (base, name) = (dir.parent().unwrap(), dir.file_name().unwrap());
    DirBeneath { base: base.to_path_buf(), rel: name.into() }
}

/// An assistant message calling `read_file` once, with id `id`.
pub(super) fn call(id: &str) -> Message {
    let mut message = Message::assistant("");
    message.tool_calls = vec![ToolCall { id: id.into(), name: "read_file".into(), input: "{}".into() }];
    message
}

/// One tool message answering each `(id, size)` with `size` bytes.
pub(super) fn results(items: &[(&str, usize)]) -> Message {
    Message::tool_results(
        items
            .iter()
            .map(|(id, size)| ToolResult {
                tool_call_id: id.to_string(),
                content: "x".repeat(*size),
                is_error: false,
                images: Vec::new(),
            })
            .collect(),
    )
}

/// One tool message answering `id` with `size` bytes.
pub(super) fn result(id: &str, size: usize) -> Message {
    results(&[(id, size)])
}

#[test]
fn tokens_are_chars_over_three_and_a_half_rounded_up() {
    let cases = [(0, 0), (1, 1), (7, 2), (8, 3), (35, 10), (36, 11)];
    for (chars, tokens) in cases {
        assert_eq!(tokens_for_chars(chars), tokens, "{chars} chars");
    }
}

#[test]
fn estimate_is_anchor_plus_new_chars_and_counts_each_message_once() {
    let mut history = vec![user(&"a".repeat(70))];
    let mut estimate = Estimate::default();
    assert_eq!(estimate.update(&history), 20);
    assert_eq!(estimate.update(&history), 20, "nothing new, nothing added");
    estimate.anchor(1000, 2);
    history.push(Message::assistant("answer"));
    assert_eq!(estimate.update(&history), 1000, "the assistant reply is covered by the anchor");
    history.push(user(&"b".repeat(35)));
    assert_eq!(estimate.update(&history), 1010);
    history.push(user(&"c".repeat(7)));
    assert_eq!(estimate.update(&history), 1012);
    estimate.shrink(70);
    assert_eq!(estimate.tokens(), 992, "42 chars counted, 70 removed: 28 chars (8 tokens) below the anchor");
    estimate.anchor(0, 99);
    assert_eq!(estimate.tokens(), 992, "a zero usage keeps the old anchor");
}

#[test]
fn estimate_counts_again_when_the_history_shrank() {
    let mut estimate = Estimate::default();
    estimate.anchor(5000, 10);
    assert_eq!(estimate.update(&[user(&"a".repeat(35))]), 10);
}

#[test]
fn thresholds_take_the_lower_of_the_fixed_margin_and_compact_at() {
    let cases = [
        (200_000, None, Some(167_000)),
        (200_000, Some(0.5), Some(100_000)),
        (200_000, Some(0.95), Some(167_000)),
        // Below 104 000 tokens: window − window/6 − window/8, about 70.8 %.
        (30_000, None, Some(21_250)),
        (66_000, None, Some(46_750)),
        (70_000, None, Some(49_584)),
        (8_192, None, Some(5_803)),
        (4_096, None, Some(2_902)),
        (0, None, None),
        (128_000, Some(0.0), Some(95_000)),
    ];
    for (window, compact_at, expected) in cases {
        assert_eq!(auto_threshold(window, compact_at), expected, "{window} {compact_at:?}");
    }
    let config = ContextConfig { window: 200_000, ..ContextConfig::default() };
    assert!(!should_summarize(166_999, &config, &Breaker::default()));
    assert!(should_summarize(167_000, &config, &Breaker::default()));
    assert!(!should_summarize(1_000_000, &ContextConfig::default(), &Breaker::default()), "window 0: off");
    assert!(still_too_long(197_000, 200_000));
    assert!(!still_too_long(196_999, 200_000));
}

#[test]
fn breaker_opens_after_three_automatic_failures_and_ignores_the_others() {
    let mut breaker = Breaker::default();
    for _ in 0..2 {
        breaker.record(Trigger::Auto, false);
    }
    breaker.record(Trigger::Manual, false);
    breaker.record(Trigger::Emergency, true);
    assert!(!breaker.is_open());
    breaker.record(Trigger::Auto, false);
    assert!(breaker.is_open());
    breaker.record(Trigger::Manual, true);
    assert!(breaker.is_open(), "a manual success does not close it");
    let config = ContextConfig { window: 200_000, ..ContextConfig::default() };
    assert!(!should_summarize(199_000, &config, &breaker));
    let mut closed = Breaker::default();
    closed.record(Trigger::Auto, false);
    closed.record(Trigger::Auto, true);
    closed.record(Trigger::Auto, false);
    closed.record(Trigger::Auto, false);
    assert!(!closed.is_open(), "a success resets the count");
}

#[test]
fn resume_compacts_first_when_within_eight_thousand_of_the_window() {
    let history = vec![user(&"a".repeat(105_000))]; // 30 000 tokens
    assert!(should_compact_on_resume(&history, 37_999));
    assert!(!should_compact_on_resume(&history, 38_000));
    assert!(!should_compact_on_resume(&history, 0));
    // A small window keeps a quarter of itself free instead of 8 000 tokens (more than it has).
    let history = vec![user(&"a".repeat(10_500))]; // 3 000 tokens
    assert!(!should_compact_on_resume(&history, 4_096));
    assert!(should_compact_on_resume(&[user(&"a".repeat(10_780))], 4_096), "3 080 > 4 096 − 1 024");
}

#[test]
fn estimate_adds_system_and_tools_until_usage_anchors_it() {
    let system = crate::msg::System { stable: "s".repeat(35), environment: "e".repeat(35) };
    let tools = vec![crate::msg::ToolDefinition {
        name: "read_file".into(),
        description: "d".repeat(59),
        input_schema: serde_json::json!({}),
    }];
    assert_eq!(overhead_tokens(&system, &tools), 40, "(35 + 35 + 9 + 59 + 2) / 3.5");
    let mut estimate = Estimate::default();
    estimate.update(&[user(&"a".repeat(35))]);
    assert_eq!(estimate.with_overhead(40), 50);
    estimate.anchor(3_000, 1);
    assert_eq!(estimate.with_overhead(40), 3_000, "usage already counts the system prompt and tools");
}

#[test]
fn another_automatic_compaction_waits_until_the_conversation_grew() {
    let limits = Limits::for_window(4_096);
    assert!(grew_since_compaction(3_000, None, &limits), "no compaction yet");
    assert!(!grew_since_compaction(3_000, Some(2_900), &limits));
    assert!(grew_since_compaction(3_156, Some(2_900), &limits), "window/16 more");
}
