//! Unit tests of `summary.rs`: tail, rebuilt history, extraction, drop schedule, request and recovery.

use super::*;
use crate::context::tests::{call, result, results, spec, user};
use crate::msg::{Message, Role};
use crate::test_dir::TempDir;

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
        let result = summarize(&provider, &messages, 100, usize::MAX, &crate::cancel::CancelToken::new());
        let seen = crate::sync::lock(&provider.seen).clone();
        let firsts: Vec<usize> =
            seen.iter().map(|text| (0..10).find(|turn| text.contains(&format!("<t{turn}>"))).unwrap_or(99)).collect();
        (result.map(|made| made.text).map_err(|err| err.to_string()), firsts)
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

#[test]
fn a_single_turn_too_long_for_the_summary_request_is_cut_in_half_until_it_fits() {
    // One user turn (a 3-message conversation): nothing to drop, so the transcript halves.
    let messages = vec![user("read it"), call("c"), results(&[("c", 8_000)])];
    let provider = TooLong { refusals: std::sync::Mutex::new(2), seen: std::sync::Mutex::new(Vec::new()) };
    let result = summarize(&provider, &messages, 100, 20_000, &crate::cancel::CancelToken::new());
    assert_eq!(result.map(|made| made.text).map_err(|err| err.to_string()), Ok("ok".to_string()));
    let sizes: Vec<usize> = crate::sync::lock(&provider.seen).iter().map(|text| text.len()).collect();
    assert_eq!(sizes.len(), 3);
    assert!(sizes[0] > sizes[1] && sizes[1] > sizes[2], "{sizes:?}");
    assert!(crate::sync::lock(&provider.seen).iter().all(|text| text.contains("read it")));
    let provider = TooLong { refusals: std::sync::Mutex::new(usize::MAX), seen: std::sync::Mutex::new(Vec::new()) };
    let result = summarize(&provider, &messages, 100, 20_000, &crate::cancel::CancelToken::new());
    assert!(matches!(result, Err(SummaryError::NothingLeft)));
    assert!(crate::sync::lock(&provider.seen).len() < 10, "halving ends at a few hundred bytes");
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
    let request = summary_request(&messages, max_tokens, chars);
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
    let files = load_recovery_files(&paths, dir, &Limits::for_window(4_096));
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].0, "c.txt");
    let expected = format!("{}\n… (cut at 512 tokens; read the file for the rest)", &"c.txt".repeat(3_000)[..1_792]);
    assert_eq!(files[0].1, expected);
    // 200 000 tokens: each whole (15 000 characters < 5 000 tokens).
    let files = load_recovery_files(&paths, dir, &Limits::for_window(200_000));
    assert_eq!(files.iter().map(|(path, _)| path.as_str()).collect::<Vec<_>>(), ["c.txt", "b.txt", "a.txt"]);
    assert!(files.iter().all(|(_, content)| content.len() == 15_000));
}

#[test]
fn a_summary_error_stays_small() {
    assert!(std::mem::size_of::<SummaryError>() <= 56);
}

#[test]
fn a_fit_drops_the_recovery_files_then_the_tail_to_stay_under_the_room() {
    let limits = Limits::for_window(8_192);
    let messages = vec![
        user(&"a".repeat(3_000)),
        Message::assistant("b".repeat(3_000)),
        user(&"c".repeat(700)),
        Message::assistant("d".repeat(700)),
        user("e"),
    ];
    let files = vec![("big.rs".to_string(), "f".repeat(3_500))];
    let planned = plan_tail(&messages, &limits).unwrap();
    // Room for everything: the planned tail and the files.
    let roomy = plan_fit(&messages, planned, &limits, &files, &[], 100_000, 512);
    assert_eq!(roomy.tail, planned);
    assert!(roomy.attachment.contains("big.rs"));
    let kept: u64 = tail_messages(&messages, planned).iter().map(message_chars).sum();
    assert_eq!(roomy.kept_tokens, tokens_for_chars(kept + roomy.attachment.chars().count() as u64));
    // Room for the tail only: the files go.
    // Exactly the room it needs is not enough: it must fit under it.
    let at_the_edge = plan_fit(&messages, planned, &limits, &files, &[], roomy.kept_tokens + 512, 512);
    assert!(!at_the_edge.attachment.contains("big.rs"));
    let no_files = plan_fit(&messages, planned, &limits, &files, &[], roomy.kept_tokens + 512 - 500, 512);
    assert_eq!(no_files.tail, planned);
    assert!(!no_files.attachment.contains("big.rs"));
    assert!(no_files.kept_tokens < roomy.kept_tokens);
    // Room for less: the tail shrinks to the latest user message.
    let tight = plan_fit(&messages, planned, &limits, &files, &[], 600, 512);
    assert!(tight.tail.start > planned.start, "{tight:?} vs {planned:?}");
    let kept = tail_messages(&messages, tight.tail);
    assert_eq!(kept.len(), 1, "only the latest user message: {kept:?}");
    assert_eq!(kept[0].content, "e");
    assert!(tight.kept_tokens < no_files.kept_tokens);
    // Nothing to summarise: no tail to plan a fit from.
    assert_eq!(plan_tail(&[user("only")], &limits), None);
}

#[test]
fn the_attachments_tool_list_cuts_a_long_description() {
    let tool = ToolDefinition {
        name: "mcp__docs__search".into(),
        description: "w".repeat(5_000),
        input_schema: serde_json::json!({"type": "object"}),
    };
    let attachment = recovery_attachment(&[], &[tool]);
    let line = attachment.lines().find(|line| line.starts_with("- mcp__docs__search: ")).unwrap();
    assert!(line.len() < 200 && line.ends_with("..."), "{line}");
}

#[test]
fn the_files_a_part_read_are_resolved_as_the_tool_resolves_them() {
    let root = std::path::Path::new("/project");
    let mut first = Message::assistant("");
    first.tool_calls = vec![
        crate::msg::ToolCall { id: "1".into(), name: "read_file".into(), input: r#"{"path":"src/../a.txt"}"#.into() },
        crate::msg::ToolCall { id: "2".into(), name: "grep".into(), input: r#"{"path":"b.txt"}"#.into() },
        crate::msg::ToolCall { id: "3".into(), name: "read_file".into(), input: "not json".into() },
    ];
    let mut second = Message::assistant("");
    second.tool_calls = vec![crate::msg::ToolCall {
        id: "4".into(),
        name: "read_file".into(),
        input: r#"{"path":"/etc/c.txt"}"#.into(),
    }];
    let read = files_read_in(&[first, user("x"), second], root);
    assert_eq!(read, [std::path::PathBuf::from("/project/a.txt"), std::path::PathBuf::from("/etc/c.txt")]);
}

#[test]
fn a_summary_request_carries_image_placeholders_never_images() {
    let image = crate::msg::Image {
        media_type: "image/png".into(),
        data: "iVBORw0KGgo=".into(),
        size_px: Some((2, 3)),
        source: "shot.png".into(),
    };
    let mut call = Message::assistant("");
    call.tool_calls = vec![crate::msg::ToolCall { id: "r".into(), name: "read_file".into(), input: "{}".into() }];
    let result = crate::msg::ToolResult {
        images: vec![image.clone()],
        ..crate::msg::ToolResult::text("r", "image: shot.png", false)
    };
    let messages = vec![
        Message::user_with_images("look", vec![image]),
        call,
        Message::tool_results(vec![result]),
        Message::assistant("red"),
    ];
    let request = summary_request(&messages, 1000, 10_000);
    assert!(request.messages.iter().all(|message| message.all_images().next().is_none()));
    let text = &request.messages[0].content;
    assert_eq!(text.matches("[image: shot.png, 8 B]").count(), 2, "{text}");
}

#[test]
fn an_image_counts_its_area_in_tokens_not_its_base64() {
    let image = crate::msg::Image {
        media_type: "image/png".into(),
        data: "A".repeat(400_000).into(),
        size_px: Some((200, 200)),
        source: "a.png".into(),
    };
    let message = Message::user_with_images("", vec![image]);
    assert_eq!(crate::context::message_chars(&message), (53.0 * crate::context::CHARS_PER_TOKEN) as u64);
}
