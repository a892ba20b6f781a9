//! Context management in small windows (a local model with 4 096 or 8 192 tokens), as data: the
//! scaled figures, the tail that shrinks to the latest user message, layer 1 below 50 000 bytes,
//! the summary request and recovery attachment cut to the window, and the "cannot fit" reasons.

use super::offload::{Disposition, Offloader};
use super::summary::{self, Tail, build_history, plan_tail, render_transcript, tail_messages};
use super::tests::{beneath, call, results, user};
use super::*;
use crate::msg::{Role, ToolResult};
use crate::test_dir::TempDir;

fn result(id: &str, size: usize) -> Message {
    results(&[(id, size)])
}

#[test]
fn figures_are_spec_at_200_000_and_fractions_of_a_small_window() {
    let spec = Limits {
        window: 200_000,
        summary_reserve: 20_000,
        safety_margin: 13_000,
        emergency_floor: 3_000,
        tail_keep_tokens: 10_000,
        tail_keep_messages: 5,
        tail_budget: 25_000,
        single_result_bytes: 50_000,
        aggregate_bytes: 200_000,
        preview_bytes: 2_048,
        summary_output: 25_000,
        recovery_total: 25_000,
        recovery_per_file: 5_000,
        resume_margin: 8_000,
        min_growth: 12_500,
    };
    assert_eq!(Limits::for_window(200_000), spec);
    let small = Limits {
        window: 4_096,
        summary_reserve: 682,
        safety_margin: 512,
        emergency_floor: 256,
        tail_keep_tokens: 204,
        tail_keep_messages: 1,
        tail_budget: 512,
        single_result_bytes: 3_584,
        aggregate_bytes: 7_168,
        preview_bytes: 896,
        summary_output: 512,
        recovery_total: 512,
        recovery_per_file: 512,
        resume_margin: 1_024,
        min_growth: 256,
    };
    assert_eq!(Limits::for_window(4_096), small);
    let eight = Limits::for_window(8_192);
    assert_eq!(
        (eight.summary_reserve, eight.safety_margin, eight.tail_budget, eight.single_result_bytes, eight.preview_bytes),
        (1_365, 1_024, 1_024, 7_168, 1_792)
    );
    // SPEC's 95 000 at OpenAI's default 128 000; about 70.8 % of any window under 104 000.
    let thresholds: Vec<Option<u64>> =
        [128_000, 8_192, 4_096].iter().map(|window| Limits::for_window(*window).auto_threshold(None)).collect();
    assert_eq!(thresholds, [Some(95_000), Some(5_803), Some(2_902)]);
    assert_eq!(Limits::for_window(4_096).auto_threshold(Some(0.5)), Some(2_048), "a lower compact_at wins");
    // An unknown window (sub-agents): SPEC's figures, no threshold.
    let unknown = Limits::for_window(0);
    assert_eq!(
        (unknown.auto_threshold(None), unknown.single_result_bytes, unknown.preview_bytes),
        (None, 50_000, 2_048)
    );
    assert_eq!(Limits::for_window(4_096).summary_max_tokens(8_192), 512);
    assert_eq!(Limits::for_window(200_000).summary_max_tokens(8_192), 8_192, "the configured cap stays");
    assert!(still_too_long(3_840, 4_096) && !still_too_long(3_839, 4_096));
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

#[test]
fn a_three_message_conversation_keeps_only_the_latest_user_message() {
    let limits = Limits::for_window(4_096);
    // A read whose result is over the tail budget: everything is summarised, the prompt restated.
    let messages = vec![user("read big.txt"), call("c1"), result("c1", 3_000)];
    let tail = plan_tail(&messages, &limits);
    assert_eq!(tail, Some(Tail { start: 3, restated: Some(0) }));
    let kept = tail_messages(&messages, Tail { start: 3, restated: Some(0) });
    let history = build_history("S", "ATT", &kept);
    assert_eq!(history.len(), 1);
    assert!(
        history[0].content.starts_with("[mewcode] The earlier part") && history[0].content.ends_with("read big.txt")
    );
    // A small result fits the tail, but keeping [call, result] would summarise nothing but the
    // restated prompt: the tail shrinks further so the compaction gains something.
    let messages = vec![user("read it"), call("c1"), result("c1", 100)];
    assert_eq!(plan_tail(&messages, &limits), Some(Tail { start: 3, restated: Some(0) }));
}

#[test]
fn tail_never_starts_between_a_call_and_its_results_and_keeps_a_final_answer() {
    let limits = Limits::for_window(8_192);
    // The big result of the first call is over the budget: the tail starts at the second call.
    let messages = vec![user("go"), call("x"), result("x", 6_000), call("y"), result("y", 10)];
    let tail = plan_tail(&messages, &limits).unwrap();
    assert_eq!(tail, Tail { start: 3, restated: Some(0) });
    let kept = tail_messages(&messages, tail);
    assert_eq!(kept.iter().map(|m| m.role).collect::<Vec<_>>(), [Role::User, Role::Assistant, Role::Tool]);
    // Between runs (manual /compact) the history ends with an answer: it is kept.
    let messages = vec![user("go"), call("x"), result("x", 6_000), Message::assistant("done")];
    assert_eq!(plan_tail(&messages, &limits), Some(Tail { start: 3, restated: Some(0) }));
    // Only the latest prompt and its answer: nothing to summarise.
    assert_eq!(plan_tail(&[user("hi"), Message::assistant("yo")], &limits), None);
    assert_eq!(plan_tail(&[user("hi")], &limits), None);
    assert_eq!(plan_tail(&[], &limits), None);
}

#[test]
fn large_windows_keep_the_spec_tail() {
    let limits = Limits::for_window(200_000);
    let big = "y".repeat(35_000); // 10 000 tokens
    let mut messages = vec![user("old"), Message::assistant(&big)];
    for _ in 0..5 {
        messages.push(user("small"));
    }
    assert_eq!(plan_tail(&messages, &limits), Some(Tail { start: 1, restated: None }));
}

#[test]
fn a_small_window_offloads_a_quarter_window_result_with_a_small_preview() {
    let temp = TempDir::new("small-offload");
    let dir = temp.join("session");
    let limits = Limits::for_window(4_096);
    let text: String = (1..=100).map(|n| format!("line {n:03} {}\n", "z".repeat(60))).collect();
    let mut history: crate::msg::History = vec![
        user("go"),
        call("big"),
        Message::tool_results(vec![
            ToolResult { tool_call_id: "big".into(), content: text.clone(), is_error: false },
            ToolResult { tool_call_id: "small".into(), content: "y".repeat(3_000), is_error: false },
        ]),
    ]
    .into();
    let outcome = Offloader::default().run(&mut history, Some(&beneath(&dir)), &limits);
    assert_eq!(outcome.replaced, 1, "7 000 bytes > 3 584; the 3 000 left fit the 7 168 aggregate");
    let preview = &history[2].tool_results[0].content;
    assert!(preview.starts_with(&format!("[content offloaded] original size: {} bytes", text.len())));
    assert!(preview.contains("line 001") && !preview.contains("line 020"), "896 bytes of head, not 20 lines");
    assert!(preview.contains("keep each part under 3584 bytes"), "{preview}");
    assert!(tokens_for_chars(preview.chars().count() as u64) < 4_096 / 8, "{} chars", preview.len());
    assert_eq!(std::fs::read_to_string(dir.join("tool-results").join("big")).unwrap(), text);
    assert_eq!(history[2].tool_results[1].content.len(), 3_000);
    let _ = std::fs::remove_dir_all(&dir);
    let mut offloader = Offloader::default();
    let mut spec_history: crate::msg::History = vec![user("go"), call("big"), result("big", 6_900)].into();
    offloader.run(&mut spec_history, Some(&beneath(&dir)), &Limits::for_window(200_000));
    assert_eq!(offloader.decision("big"), Some(&Disposition::Kept), "a large window keeps it");
}

#[test]
fn summary_request_fits_a_small_window_from_the_first_try() {
    let limits = Limits::for_window(4_096);
    let max_tokens = limits.summary_max_tokens(8_192);
    let chars = limits.summary_transcript_chars(max_tokens);
    let messages = vec![
        user("first prompt"),
        call("a"),
        result("a", 20_000),
        Message::assistant("w".repeat(3_000)),
        user("second prompt"),
        call("b"),
        result("b", 2_000),
    ];
    let request = summary::summary_request(&messages, max_tokens, chars);
    let text = &request.messages[0].content;
    let size = tokens_for_chars((text.chars().count() + request.system.stable.chars().count()) as u64);
    assert!(size + u64::from(max_tokens) + limits.safety_margin <= 4_096, "{size} + {max_tokens}");
    assert_eq!(request.max_tokens, 512);
    assert!(text.contains("must fit in 512 tokens"));
    assert!(text.contains("more bytes cut to fit the summary request"), "the 20 000-byte result keeps its head");
    assert!(text.contains("second prompt") && text.contains(&"x".repeat(2_000)), "the newest part is whole");
    // A transcript too long even after the cuts leaves out the oldest messages, saying so.
    let many: Vec<Message> = (0..10).map(|n| user(&format!("{n}").repeat(100))).collect();
    let transcript = render_transcript(&many, 500);
    let newest: String = (6..10).map(|n| format!("[user]\n{}\n\n", format!("{n}").repeat(100))).collect();
    assert_eq!(
        transcript,
        format!("[6 earlier message(s) left out: the model's context window cannot hold them]\n\n{newest}")
    );
}

#[test]
fn recovery_files_share_a_window_sized_budget() {
    let temp = TempDir::new("small-recovery");
    let dir = temp.path();
    let paths: Vec<std::path::PathBuf> = ["a.txt", "b.txt", "c.txt"]
        .iter()
        .map(|name| {
            let path = dir.join(name);
            std::fs::write(&path, name.repeat(3_000)).unwrap();
            path
        })
        .collect();
    // 4 096 tokens: 512 tokens (1 792 characters) of files in all, the most recent first.
    let files = summary::load_recovery_files(&paths, dir, &Limits::for_window(4_096));
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].0, "c.txt");
    let expected = format!("{}\n… (cut at 512 tokens; read the file for the rest)", &"c.txt".repeat(3_000)[..1_792]);
    assert_eq!(files[0].1, expected);
    // 200 000 tokens: each whole (15 000 characters < 5 000 tokens).
    let files = summary::load_recovery_files(&paths, dir, &Limits::for_window(200_000));
    assert_eq!(files.iter().map(|(path, _)| path.as_str()).collect::<Vec<_>>(), ["c.txt", "b.txt", "a.txt"]);
    assert!(files.iter().all(|(_, content)| content.len() == 15_000));
}

#[test]
fn a_conversation_that_cannot_fit_says_why_and_what_to_do() {
    let limits = Limits::for_window(4_096);
    assert_eq!(limits.explain_no_fit(2_000, 100, Some(3_000)), None);
    let overhead = limits.explain_no_fit(4_000, 10, None).unwrap();
    assert!(overhead.starts_with("the system prompt and tool definitions alone are about 4000 tokens and the context window is 4096 tokens: raise context_window"), "{overhead}");
    let latest = limits.explain_no_fit(2_000, 6_000, None).unwrap();
    assert!(
        latest.starts_with("the latest message alone is about 6000 tokens and the context window is 4096 tokens"),
        "{latest}"
    );
    assert!(latest.contains("llama.cpp -c") && latest.contains("save the text to a file"));
    let after = limits.explain_no_fit(2_000, 100, Some(3_900)).unwrap();
    assert!(after.starts_with("the conversation is still about 3900 tokens after compaction"), "{after}");
    assert_eq!(Limits::for_window(0).explain_no_fit(u64::MAX, u64::MAX, None), None);
}

#[test]
fn a_reply_cap_keeps_input_and_output_inside_the_window() {
    let small = Limits::for_window(4_096);
    assert_eq!(small.reply_max_tokens(8_192, 2_500), 1_084, "4 096 − 2 500 − 512");
    assert_eq!(small.reply_max_tokens(8_192, 4_000), 256, "never below window/16");
    assert_eq!(small.reply_max_tokens(500, 2_000), 500, "the configured cap wins when lower");
    assert_eq!(Limits::for_window(200_000).reply_max_tokens(8_192, 150_000), 8_192);
    assert_eq!(Limits::for_window(0).reply_max_tokens(8_192, 1_000_000), 8_192);
}
