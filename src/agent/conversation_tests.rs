//! A conversation's history and its session log change together, fresh, resumed or unsaved.

use super::*;
use crate::session::record::Meta;
use crate::session::{load_log, log_rel};
use crate::test_dir::TempDir;

/// A new log of session `id` in the project at `root`.
fn writer_in(root: &std::path::Path, id: &str) -> SessionWriter {
    let meta = Meta { version: 1, id: id.into(), created: 1, title: "t".into(), model: "m".into(), owner: None };
    SessionWriter::create(root, &log_rel(id), &meta).unwrap()
}

#[test]
fn the_history_and_the_log_change_together() {
    let temp = TempDir::new("conversation");
    let dir = temp.path();
    let mut fresh = Conversation::new("20261204-100000-aaaa");
    assert_eq!((fresh.session_id(), fresh.is_logged()), ("20261204-100000-aaaa", false));
    // An unlogged conversation keeps its messages in memory only, and says nothing.
    assert_eq!(fresh.push(Message::user("before the log")), None);
    fresh.start_log(writer_in(dir, "20261204-100000-bbbb"));
    assert_eq!((fresh.session_id(), fresh.is_logged()), ("20261204-100000-bbbb", true));
    fresh.push(Message::user("q"));
    assert_eq!(fresh.push(Message::assistant("logged")), None);
    let path = dir.join(log_rel("20261204-100000-bbbb"));
    let logged = vec![Message::user("q"), Message::assistant("logged")];
    assert_eq!(load_log(&path).unwrap().messages, logged, "what came after the log started");

    // A resumed conversation is its log's: same id, same messages, appends go to it.
    let reopened = SessionWriter::reopen(dir, &log_rel("20261204-100000-bbbb"), "20261204-100000-bbbb", "m").unwrap();
    let (mut resumed, unsaved) = Conversation::continuing("20261204-100000-bbbb", Ok(reopened), logged, false);
    assert!(unsaved.is_none());
    assert_eq!((resumed.session_id(), resumed.is_logged()), ("20261204-100000-bbbb", true));
    assert_eq!(resumed.history().last().map(|message| message.content.as_str()), Some("logged"));
    resumed.push(Message::user("next"));
    // After `/model`, the log's assistant records name the new model.
    resumed.set_model("the-other-model");
    resumed.push(Message::assistant("from the other model"));
    assert!(std::fs::read_to_string(&path).unwrap().contains("the-other-model"));
    let (installed, notice) = resumed.install(vec![Message::user("summary"), Message::assistant("ok")]);
    assert_eq!(notice, None);
    assert_eq!(*installed, resumed.history().to_vec());
    assert_eq!(load_log(&path).unwrap().messages, resumed.history().to_vec(), "the log starts from the compaction");

    // Text built piece by piece keeps no spare capacity once in the history (a 4 MB
    // history of tool results cost 1 MB more without this: `make bench`'s memory figures).
    let mut grown = Message::tool_results(vec![crate::msg::ToolResult {
        tool_call_id: "r".into(),
        content: String::with_capacity(4096) + "short",
        is_error: false,
        images: Vec::new(),
    }]);
    grown.content = String::with_capacity(512) + "text";
    resumed.push(grown);
    let kept = resumed.history().last().unwrap();
    assert_eq!((kept.content.capacity(), kept.tool_results[0].content.capacity()), (4, 5));

    // A log that could not be reopened: the same session and history, unsaved.
    let refused = SessionError::NotFound { id: "20261204-100000-cccc".into() };
    let (unsaved, why) = Conversation::continuing("20261204-100000-cccc", Err(refused), vec![Message::user("x")], true);
    assert_eq!((unsaved.session_id(), unsaved.is_logged()), ("20261204-100000-cccc", false));
    assert_eq!(unsaved.history().to_vec(), vec![Message::user("x")]);
    assert!(matches!(why, Some(SessionError::NotFound { .. })), "the reason comes back to be said");
    assert!(unsaved.context.compact_first, "a nearly full history is summarised first");

    // Tests and benchmarks start from a history: a session of their own, no log.
    let unlogged = Conversation::unlogged(vec![Message::user("x")]);
    assert!(!unlogged.is_logged() && !unlogged.session_id().is_empty());
}

/// A resumed session starts with nothing read: the files may have changed while it was closed,
/// so every file must be read again before it is written.
#[test]
fn a_resumed_conversation_has_read_nothing() {
    let temp = TempDir::new("conversation-reads");
    let file = temp.write("notes.txt", "notes\n");
    let before = Conversation::new("20261204-100000-dddd");
    crate::tools::reads::record_read(&before.reads, &file);
    assert!(before.reads.last_seen(&file).is_some());
    let refused = SessionError::NotFound { id: "20261204-100000-dddd".into() };
    let history = before.history().to_vec();
    let (resumed, _) = Conversation::continuing("20261204-100000-dddd", Err(refused), history, false);
    assert_eq!((resumed.reads.last_seen(&file), resumed.reads.recent(10)), (None, Vec::new()));
}
