//! Unit tests of `offload.rs`: the plan, ids, the preview, the ledger, planted links and small windows.

use super::*;
use crate::context::tests::{beneath, call, result, results, spec, user};
use crate::context::{Limits, tokens_for_chars};
use crate::msg::{History, Message, ToolResult};
use crate::test_dir::TempDir;

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
fn a_small_window_offloads_a_quarter_window_result_with_a_small_preview() {
    let temp = TempDir::new("small-offload");
    let dir = temp.join("session");
    let limits = Limits::for_window(4_096);
    let text: String = (1..=100).map(|n| format!("line {n:03} {}\n", "z".repeat(60))).collect();
    let mut history: crate::msg::History = vec![
        user("go"),
        call("big"),
        Message::tool_results(vec![
            ToolResult { tool_call_id: "big".into(), content: text.clone(), is_error: false, images: Vec::new() },
            ToolResult {
                tool_call_id: "small".into(),
                content: "y".repeat(3_000),
                is_error: false,
                images: Vec::new(),
            },
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
