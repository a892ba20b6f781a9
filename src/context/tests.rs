//! Context management decisions as data: the estimate, thresholds, breaker, layer-1 plans and
//! ledger, id sanitising, tail selection, summary extraction and the drop schedule.

use super::offload::{DirBeneath, Disposition, Offloader, plan_offload, render_preview, sanitize_id};
use super::summary::{build_history, extract_summary, next_drop, select_tail_start, user_turn_starts};
use crate::test_dir::TempDir;

/// SPEC's own figures (a 200 000-token window).
fn spec() -> Limits {
    Limits::for_window(200_000)
}
use super::*;
use crate::msg::{History, Role, ToolCall, ToolResult};

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
            .map(|(id, size)| ToolResult { tool_call_id: id.to_string(), content: "x".repeat(*size), is_error: false })
            .collect(),
    )
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
fn offload_plan_spills_big_results_and_the_largest_until_the_message_fits() {
    let cases: [(&[usize], &[bool]); 5] = [
        (&[10, 50_000], &[false, false]),
        (&[50_001, 10], &[true, false]),
        (&[90_000, 90_000, 30_000], &[true, true, false]),
        (&[45_000, 45_000, 45_000, 45_000, 45_000], &[true, false, false, false, false]),
        (&[], &[]),
    ];
    for (sizes, expected) in cases {
        assert_eq!(plan_offload(sizes, &spec()), expected, "{sizes:?}");
    }
}

#[test]
fn ids_are_sanitised_so_they_cannot_leave_the_directory() {
    assert_eq!(sanitize_id("toolu_01AbC-9"), "toolu_01AbC-9");
    for hostile in ["../../etc/passwd", "a/b", "..", "", "x\0y", "é"] {
        let name = sanitize_id(hostile);
        assert!(name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'), "{hostile:?} -> {name}");
        assert!(!name.is_empty() && name != "." && name != "..");
    }
    assert_ne!(sanitize_id("a/b"), sanitize_id("a_b"), "distinct ids stay distinct");
    assert!(sanitize_id(&"a".repeat(500)).len() < 100);
}

#[test]
fn preview_shows_size_path_head_and_the_read_it_sentence() {
    let original: String = (1..=30).map(|n| format!("line {n}\n")).collect();
    let preview = render_preview(&original, std::path::Path::new("/s/tool-results/id"), &spec());
    assert!(preview.starts_with(&format!("[content offloaded] original size: {} bytes\n", original.len())));
    assert!(preview.contains("[saved to] /s/tool-results/id\n"));
    assert!(preview.contains("line 20\n") && !preview.contains("line 21"));
    assert!(preview.contains("read it with read_file"));
    let wide = render_preview(&"é".repeat(5000), std::path::Path::new("/p"), &spec());
    assert!(wide.len() < 2048 + 500);
}

#[test]
fn ledger_makes_decisions_final_and_a_failed_write_is_retried() {
    let temp = TempDir::new("offload");
    let dir = temp.path();
    let mut history: History =
        vec![user("go"), call("big"), results(&[("big", 60_000), ("small", 10)]), Message::assistant("ok")].into();
    let mut offloader = Offloader::default();
    // No directory: nothing is decided for the big one; the small one is kept.
    let outcome = offloader.run(&mut history, None, &spec());
    assert_eq!(outcome.replaced, 0);
    assert_eq!(offloader.decision("big"), None);
    assert_eq!(offloader.decision("small"), Some(&Disposition::Kept));
    // A directory that cannot be created (a file is in the way): skip, retried later.
    let blocked = dir.join("blocked");
    std::fs::write(&blocked, "file").unwrap();
    let outcome = offloader.run(&mut history, Some(&beneath(&blocked)), &spec());
    assert_eq!(outcome.failures.len(), 1);
    assert_eq!(offloader.decision("big"), None);
    let session = dir.join("session");
    let outcome = offloader.run(&mut history, Some(&beneath(&session)), &spec());
    assert_eq!(outcome.replaced, 1);
    assert!(outcome.chars_removed > 55_000);
    let saved = session.join("tool-results").join("big");
    assert_eq!(std::fs::read_to_string(&saved).unwrap().len(), 60_000);
    assert!(history[2].tool_results[0].content.starts_with("[content offloaded]"));
    assert_eq!(history[2].tool_results[1].content, "x".repeat(10));
    // A history rebuilt with the original content (a compaction tail, a resume) gets the same
    // preview back from the ledger, without a new decision.
    let mut rebuilt: History = vec![call("big"), results(&[("big", 60_000)])].into();
    offloader.reset_scan();
    let outcome = offloader.run(&mut rebuilt, None, &spec());
    assert_eq!(outcome.replaced, 1);
    assert_eq!(rebuilt[1].tool_results[0].content, history[2].tool_results[0].content);
}

#[test]
fn tail_keeps_ten_thousand_tokens_and_five_messages_without_splitting_a_tool_round() {
    let big = "y".repeat(35_000); // 10 000 tokens
    // Five small messages at the end: the token floor pulls in more.
    let mut messages = vec![user("old"), Message::assistant(&big)];
    for _ in 0..5 {
        messages.push(user("small"));
    }
    assert_eq!(select_tail_start(&messages, &spec()), 1);
    // One huge message at the end: the message floor pulls in five.
    let mut messages: Vec<Message> = (0..8).map(|n| user(&format!("m{n}"))).collect();
    messages.push(user(&big));
    assert_eq!(select_tail_start(&messages, &spec()), 4);
    // The cut would land on tool results: it moves back to the call.
    let messages = vec![
        user("start"),
        Message::assistant(&big),
        call("a"),
        results(&[("a", 10)]),
        call("b"),
        results(&[("b", 10)]),
        call("c"),
        results(&[("c", 10)]),
    ];
    let start = select_tail_start(&messages, &spec());
    assert_eq!(start, 1);
    let messages = vec![
        user("s"),
        call("a"),
        results(&[("a", 40_000)]),
        call("b"),
        results(&[("b", 10)]),
        user("u"),
        Message::assistant("v"),
    ];
    let start = select_tail_start(&messages, &spec());
    assert_ne!(messages[start].role, Role::Tool);
    assert_eq!(start, 1);
    assert_eq!(select_tail_start(&[user("only")], &spec()), 0);
}

#[test]
fn rebuilt_history_starts_with_one_user_message_and_alternates() {
    let tail = vec![Message::assistant("a"), user("u")];
    let history = build_history("S", "ATT", &tail);
    assert_eq!(history.iter().map(|m| m.role).collect::<Vec<_>>(), [Role::User, Role::Assistant, Role::User]);
    assert!(history[0].content.contains("S\n\nATT"));
    let history = build_history("S", "ATT", &[user("next"), Message::assistant("a")]);
    assert_eq!(history.len(), 2);
    assert!(history[0].content.ends_with("---\n\nnext"));
    assert_eq!(build_history("S", "A", &[]).len(), 1);
}

#[test]
fn summary_is_extracted_from_its_tags_with_the_raw_text_as_fallback() {
    let cases = [
        ("<analysis>x</analysis>\n<summary>\n## 1 A\n</summary>", "## 1 A"),
        ("no tags at all ", "no tags at all"),
        ("<summary>unclosed", "unclosed"),
        ("<summary>draft</summary> <summary>final</summary>", "final"),
    ];
    for (raw, expected) in cases {
        assert_eq!(extract_summary(raw), expected, "{raw}");
    }
}

#[test]
fn prompt_too_long_drops_one_group_three_times_then_a_fifth() {
    let schedule: Vec<usize> = [(0, 50), (1, 49), (2, 48), (3, 47), (4, 37), (5, 3)]
        .iter()
        .map(|(attempt, groups)| next_drop(*attempt, *groups))
        .collect();
    assert_eq!(schedule, [1, 1, 1, 10, 8, 1]);
    let messages = vec![Message::assistant("pre"), user("a"), call("x"), results(&[("x", 1)]), user("b")];
    assert_eq!(user_turn_starts(&messages), [0, 1, 4]);
    assert_eq!(user_turn_starts(&[]), Vec::<usize>::new());
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

/// A provider that answers prompt-too-long a given number of times, recording each request's
/// transcript, then answers with a summary.
struct TooLong {
    refusals: std::sync::Mutex<usize>,
    seen: std::sync::Mutex<Vec<String>>,
}

impl crate::llm::Provider for TooLong {
    fn name(&self) -> &str {
        "too-long"
    }
    fn model(&self) -> &str {
        "m"
    }
    fn stream(
        &self,
        request: crate::msg::Request,
        _cancel: crate::cancel::CancelToken,
    ) -> crossbeam_channel::Receiver<crate::llm::StreamEvent> {
        use crate::llm::{Completion, LlmError, StopReason, StreamEvent};
        crate::sync::lock(&self.seen).push(request.messages[0].content.clone());
        let (tx, rx) = crossbeam_channel::unbounded();
        let mut refusals = crate::sync::lock(&self.refusals);
        if *refusals > 0 {
            *refusals -= 1;
            let _ = tx.send(StreamEvent::Error(LlmError::PromptTooLong { message: "too long".into() }));
        } else {
            let _ = tx.send(StreamEvent::Text("<summary>ok</summary>".into()));
            let _ = tx.send(StreamEvent::Done(Completion {
                stop_reason: StopReason::EndTurn,
                thinking: Vec::new(),
                dropped_tool_calls: Vec::new(),
            }));
        }
        rx
    }
}

#[test]
fn summary_request_drops_the_oldest_turns_until_it_fits_or_nothing_is_left() {
    // Ten user turns: t0 … t9, each a user message and an answer.
    let messages: Vec<Message> =
        (0..10).flat_map(|turn| [user(&format!("<t{turn}>")), Message::assistant("answer")]).collect();
    let first_turn_sent = |refusals: usize| {
        let provider = TooLong { refusals: std::sync::Mutex::new(refusals), seen: std::sync::Mutex::new(Vec::new()) };
        let result = summary::summarize(&provider, &messages, 100, usize::MAX, &crate::cancel::CancelToken::new());
        let seen = crate::sync::lock(&provider.seen).clone();
        let firsts: Vec<usize> =
            seen.iter().map(|text| (0..10).find(|turn| text.contains(&format!("<t{turn}>"))).unwrap_or(99)).collect();
        (result.map_err(|err| err.to_string()), firsts)
    };
    // One turn at a time three times, then 20 % of the 7 left (2), then 20 % of 5 (1).
    assert_eq!(first_turn_sent(5), (Ok("ok".to_string()), vec![0, 1, 2, 3, 5, 6]));
    let (result, firsts) = first_turn_sent(usize::MAX);
    assert_eq!(
        result,
        Err("the summary request is too long even with every turn dropped and the last one cut short".to_string())
    );
    assert_eq!(firsts, [0, 1, 2, 3, 5, 6, 7, 8, 9]);
}

#[cfg(unix)]
#[test]
fn offload_never_writes_through_a_planted_symlink() {
    let temp = TempDir::new("offload-link");
    let dir = temp.path();
    let results_dir = dir.join("session").join("tool-results");
    std::fs::create_dir_all(&results_dir).unwrap();
    let victim = dir.join("victim.txt");
    std::fs::write(&victim, "precious").unwrap();
    std::os::unix::fs::symlink(&victim, results_dir.join("big")).unwrap();
    let mut history: History = vec![user("go"), call("big"), results(&[("big", 60_000)])].into();
    let outcome = Offloader::default().run(&mut history, Some(&beneath(&dir.join("session"))), &spec());
    assert_eq!(outcome.replaced, 1);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    assert_eq!(std::fs::read_to_string(results_dir.join("big")).unwrap().len(), 60_000);
}

#[cfg(unix)]
#[test]
fn offload_never_saves_through_a_linked_directory_and_the_result_stays_in_the_conversation() {
    let temp = TempDir::new("offload-linked-dir");
    let dir = temp.path();
    let (project, outside) = (dir.join("project"), dir.join("outside"));
    std::fs::create_dir_all(&outside).unwrap();
    let session = DirBeneath { base: project.clone(), rel: ".mewcode/sessions/20260101-000000-abcd".into() };
    let planted = [".mewcode", ".mewcode/sessions", ".mewcode/sessions/20260101-000000-abcd"];
    let planted = planted.iter().map(std::path::PathBuf::from).chain([session.rel.join("tool-results")]);
    for link in planted {
        let _ = std::fs::remove_dir_all(project.join(".mewcode"));
        std::fs::create_dir_all(project.join(&link).parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&outside, project.join(&link)).unwrap();
        let mut history: History = vec![user("go"), call("big"), results(&[("big", 60_000)])].into();
        let mut offloader = Offloader::default();
        let outcome = offloader.run(&mut history, Some(&session), &spec());
        assert_eq!(outcome.replaced, 0, "{}", link.display());
        assert_eq!(outcome.failures.len(), 1);
        let expected =
            format!("{} is a symbolic link; mewcode does not write through it", project.join(&link).display());
        assert!(outcome.failures[0].contains(&expected), "{}", outcome.failures[0]);
        assert_eq!(history[2].tool_results[0].content.len(), 60_000, "the model still gets the whole result");
        assert_eq!(offloader.decision("big"), None, "nothing decided: retried once the directory is a real one");
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0, "{}", link.display());
        // The link replaced by a real directory: the next pass saves it.
        std::fs::remove_file(project.join(&link)).unwrap();
        let outcome = offloader.run(&mut history, Some(&session), &spec());
        assert_eq!(outcome.replaced, 1, "{:?}", outcome.failures);
        assert!(project.join(&session.rel).join("tool-results/big").is_file());
    }
}

#[test]
fn a_single_turn_too_long_for_the_summary_request_is_cut_in_half_until_it_fits() {
    // One user turn (a 3-message conversation): nothing to drop, so the transcript halves.
    let messages = vec![user("read it"), call("c"), results(&[("c", 8_000)])];
    let provider = TooLong { refusals: std::sync::Mutex::new(2), seen: std::sync::Mutex::new(Vec::new()) };
    let result = summary::summarize(&provider, &messages, 100, 20_000, &crate::cancel::CancelToken::new());
    assert_eq!(result.map_err(|err| err.to_string()), Ok("ok".to_string()));
    let sizes: Vec<usize> = crate::sync::lock(&provider.seen).iter().map(|text| text.len()).collect();
    assert_eq!(sizes.len(), 3);
    assert!(sizes[0] > sizes[1] && sizes[1] > sizes[2], "{sizes:?}");
    assert!(crate::sync::lock(&provider.seen).iter().all(|text| text.contains("read it")));
    let provider = TooLong { refusals: std::sync::Mutex::new(usize::MAX), seen: std::sync::Mutex::new(Vec::new()) };
    let result = summary::summarize(&provider, &messages, 100, 20_000, &crate::cancel::CancelToken::new());
    assert!(matches!(result, Err(summary::SummaryError::NothingLeft)));
    assert!(crate::sync::lock(&provider.seen).len() < 10, "halving ends at a few hundred bytes");
}
