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
#[path = "conversation_tests.rs"]
mod tests;
