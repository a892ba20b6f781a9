//! One conversation: its history, its session (id and log), and what context management and
//! usage counting remember about it. The agent owns it for the length of a run (`Agent::run`
//! takes it and `Running::finish` gives it back); a front end holds it between runs.
//!
//! Invariant: only the agent appends to the history (`push`) or replaces it (`install`), and
//! every message it appends reaches the session log in the same call, so the log and the history
//! cannot drift apart. The context state and the prompt meter describe this history and no other
//! (a `/clear` or a resume is another `Conversation`), so nothing has to check which conversation
//! they were counted for; switching the agent (`/model`) keeps all of it.

use super::usage::PromptMeter;
use crate::context;
use crate::msg::{History, Message};
use crate::session::{SessionError, SessionWriter};
use crate::tools::ReadTracker;
use std::sync::Arc;

/// A conversation and everything kept for it between runs.
#[derive(Debug, Default)]
pub struct Conversation {
    history: History,
    /// The session it belongs to: hooks are told this id, offloaded tool results go to its
    /// directory, and its log (when there is one) is `<sessions>/<id>/conversation.jsonl`.
    session_id: String,
    /// The session log; none before a REPL conversation's first prompt, for sub-agents, and when
    /// it could not be created (the conversation then goes on unsaved).
    log: Option<SessionWriter>,
    /// Context management's memory: the estimate's anchor, the offload ledger, the breaker.
    pub(super) context: context::State,
    /// Characters of the requests so far, each message counted once.
    pub(super) meter: PromptMeter,
    /// The files read in this conversation, most recent last (compaction re-attaches them).
    pub(super) reads: ReadTracker,
}

impl Conversation {
    /// An empty conversation of session `session_id`, not logged (yet).
    pub fn new(session_id: impl Into<String>) -> Conversation {
        Conversation { session_id: session_id.into(), ..Conversation::default() }
    }

    /// The conversation that continues session `session_id` from `messages` (loaded from its
    /// log), appending to `log`, the log reopened for append. A log that could not be reopened (a
    /// symbolic link planted on the way, a file we may not write) leaves it unsaved in the same
    /// session, and the error comes back for the front end to say. `compact_first`: the history
    /// nearly fills the window, so it is summarised before the next run's first request (SPEC §8).
    pub(crate) fn continuing(
        session_id: &str,
        log: Result<SessionWriter, SessionError>,
        messages: Vec<Message>,
        compact_first: bool,
    ) -> (Conversation, Option<SessionError>) {
        let (log, unsaved) = match log {
            Ok(log) => (Some(log), None),
            Err(err) => (None, Some(err)),
        };
        let mut conversation = Conversation {
            history: messages.into(),
            session_id: session_id.to_string(),
            log,
            ..Conversation::default()
        };
        conversation.context.compact_first = compact_first;
        (conversation, unsaved)
    }

    /// A conversation that continues `messages` without a log, in a session of its own (tests and
    /// benchmarks start from a history this way).
    pub fn unlogged(messages: Vec<Message>) -> Conversation {
        Conversation { history: messages.into(), session_id: crate::session::new_id(), ..Conversation::default() }
    }

    /// Starts logging to `log`, created for this conversation before its first message (the
    /// REPL creates it at the first prompt, titled by it). Its id becomes the conversation's.
    pub(crate) fn start_log(&mut self, log: SessionWriter) {
        self.session_id = log.id().to_string();
        self.log = Some(log);
    }

    /// The messages so far.
    pub(crate) fn history(&self) -> &History {
        &self.history
    }

    /// The session this conversation belongs to.
    pub(crate) fn session_id(&self) -> &str {
        &self.session_id
    }

    /// True when the conversation is saved to a session log.
    pub(crate) fn is_logged(&self) -> bool {
        self.log.is_some()
    }

    /// The model later assistant records of the log are tagged with (REPL `/model`).
    pub(crate) fn set_model(&mut self, model: &str) {
        if let Some(log) = self.log.as_mut() {
            log.set_model(model);
        }
    }

    /// The answer of the last completed turn: the text of the last assistant message.
    pub(crate) fn last_answer(&self) -> Option<&str> {
        let last = self.history.iter().rev().find(|message| message.role == crate::msg::Role::Assistant);
        last.map(|message| message.content.as_str())
    }

    /// Appends a message to the history and the log; a notice when the log failed (the first
    /// time only: the writer says it once). The history keeps it without spare capacity.
    pub(super) fn push(&mut self, mut message: Message) -> Option<String> {
        message.shrink_to_fit();
        let notice = self.log.as_mut().and_then(|log| log.append(&message, crate::session::now_s()));
        self.history.push(message);
        notice
    }

    /// Replaces the history with a compacted one, writes the compaction to the log, and returns
    /// the installed snapshot with the log's notice if it failed.
    pub(super) fn install(&mut self, messages: Vec<Message>) -> (Arc<Vec<Message>>, Option<String>) {
        self.history.replace(messages);
        let snapshot = self.history.snapshot();
        let notice = self.log.as_mut().and_then(|log| log.append_compacted(&snapshot, crate::session::now_s()));
        (snapshot, notice)
    }

    /// Counts the messages appended since the last count into the context estimate.
    pub(super) fn count_new_messages(&mut self) {
        self.context.estimate.update(&self.history);
    }

    /// The history and the context state at once (layer 1 rewrites the one and records in the
    /// other).
    pub(super) fn history_and_context(&mut self) -> (&mut History, &mut context::State) {
        (&mut self.history, &mut self.context)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::record::Meta;
    use crate::session::{load_log, log_rel};

    /// A new log of session `id` in the project at `root`.
    fn writer_in(root: &std::path::Path, id: &str) -> SessionWriter {
        let meta = Meta { version: 1, id: id.into(), created: 1, title: "t".into(), model: "m".into(), owner: None };
        SessionWriter::create(root, &log_rel(id), &meta).unwrap()
    }

    #[test]
    fn the_history_and_the_log_change_together() {
        let dir = std::env::temp_dir().join(format!("mewcode-conversation-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut fresh = Conversation::new("20261204-100000-aaaa");
        assert_eq!((fresh.session_id(), fresh.is_logged()), ("20261204-100000-aaaa", false));
        // An unlogged conversation keeps its messages in memory only, and says nothing.
        assert_eq!(fresh.push(Message::user("before the log")), None);
        fresh.start_log(writer_in(&dir, "20261204-100000-bbbb"));
        assert_eq!((fresh.session_id(), fresh.is_logged()), ("20261204-100000-bbbb", true));
        fresh.push(Message::user("q"));
        assert_eq!(fresh.push(Message::assistant("logged")), None);
        let path = dir.join(log_rel("20261204-100000-bbbb"));
        let logged = vec![Message::user("q"), Message::assistant("logged")];
        assert_eq!(load_log(&path).unwrap().messages, logged, "what came after the log started");

        // A resumed conversation is its log's: same id, same messages, appends go to it.
        let reopened =
            SessionWriter::reopen(&dir, &log_rel("20261204-100000-bbbb"), "20261204-100000-bbbb", "m").unwrap();
        let (mut resumed, unsaved) = Conversation::continuing("20261204-100000-bbbb", Ok(reopened), logged, false);
        assert!(unsaved.is_none());
        assert_eq!((resumed.session_id(), resumed.is_logged()), ("20261204-100000-bbbb", true));
        assert_eq!(resumed.last_answer(), Some("logged"));
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
        }]);
        grown.content = String::with_capacity(512) + "text";
        resumed.push(grown);
        let kept = resumed.history().last().unwrap();
        assert_eq!((kept.content.capacity(), kept.tool_results[0].content.capacity()), (4, 5));

        // A log that could not be reopened: the same session and history, unsaved.
        let refused = SessionError::NotFound { id: "20261204-100000-cccc".into() };
        let (unsaved, why) =
            Conversation::continuing("20261204-100000-cccc", Err(refused), vec![Message::user("x")], true);
        assert_eq!((unsaved.session_id(), unsaved.is_logged()), ("20261204-100000-cccc", false));
        assert_eq!(unsaved.history().to_vec(), vec![Message::user("x")]);
        assert!(matches!(why, Some(SessionError::NotFound { .. })), "the reason comes back to be said");
        assert!(unsaved.context.compact_first, "a nearly full history is summarised first");

        // Tests and benchmarks start from a history: a session of their own, no log.
        let unlogged = Conversation::unlogged(vec![Message::user("x")]);
        assert!(!unlogged.is_logged() && !unlogged.session_id().is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
