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
use crate::checkpoint::{Checkpoints, Coverage};
use crate::context;
use crate::msg::{History, Message};
use crate::session::{self, Owner, SessionError, SessionWriter};
use crate::tools::ReadTracker;
use std::path::Path;
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
    /// The checkpoints of its session: opened by the first run of a logged conversation whose
    /// agent keeps them (`Settings::checkpoints`).
    checkpoints: Option<Attached>,
}

/// A session's checkpoints as a conversation holds them (shared with the REPL's `/rewind`).
#[derive(Clone)]
struct Attached(Arc<Checkpoints>);

impl std::fmt::Debug for Attached {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Checkpoints")
    }
}

/// A session opened again as the conversation that continues it, and what its front end tells
/// the person about it.
#[derive(Debug)]
pub(crate) struct Reopened {
    pub conversation: Conversation,
    /// Said first: the session was not created here, lines of its log did not parse.
    pub notes: Vec<String>,
    /// Why the log could not be reopened: the conversation goes on unsaved, in the same session.
    pub unsaved: Option<SessionError>,
    /// The session was idle long enough that files may have changed: for the person, and for the
    /// model with the next prompt (`session::with_note`).
    pub stale_note: Option<String>,
}

impl Conversation {
    /// Opens session `id` of `sessions_dir` as the conversation that continues it (SPEC §8): its
    /// repaired history, its log reopened for append, and a summary first when the history nearly
    /// fills `context_window`. The one way both front ends resume (`-p --continue`/`--resume ID`,
    /// the REPL's `/resume`). A session that cannot be found or read is the error; a log that
    /// cannot be reopened is `Reopened::unsaved`.
    pub(crate) fn reopen(
        sessions_dir: &Path,
        id: &str,
        model: &str,
        context_window: u64,
        owner: &Owner,
    ) -> Result<Reopened, SessionError> {
        let resumed = session::resume_session(sessions_dir, id, model, context_window, session::now_s(), owner)?;
        let notes = resumed.not_owned_note.into_iter().chain(resumed.damaged_note).collect();
        let (conversation, unsaved) =
            Conversation::continuing(id, resumed.writer, resumed.messages, resumed.needs_compaction);
        Ok(Reopened { conversation, notes, unsaved, stale_note: resumed.stale_note })
    }

    /// Creates this conversation's session log in `sessions_dir`, titled by `first_prompt` and
    /// marked as `owner`'s, and logs to it from now on. The one way both front ends start a
    /// session (`-p` before its run, the REPL at a conversation's first prompt); on an error the
    /// conversation goes on unsaved.
    pub(crate) fn create_log(
        &mut self,
        sessions_dir: &Path,
        first_prompt: &str,
        model: &str,
        owner: &Owner,
    ) -> Result<(), SessionError> {
        let log = session::create_session(sessions_dir, &self.session_id, first_prompt, model, owner)?;
        self.start_log(log);
        Ok(())
    }

    /// An empty conversation of session `session_id`, not logged (yet).
    pub fn new(session_id: impl Into<String>) -> Conversation {
        Conversation { session_id: session_id.into(), ..Conversation::default() }
    }

    /// The conversation that continues session `session_id` from `messages` (loaded from its
    /// log), appending to `log`, the log reopened for append. A log that could not be reopened (a
    /// symbolic link planted on the way, a file we may not write) leaves it unsaved in the same
    /// session, and the error comes back for the front end to say. `compact_first`: the history
    /// nearly fills the window, so it is summarised before the next run's first request (SPEC §8).
    fn continuing(
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
    fn start_log(&mut self, log: SessionWriter) {
        self.session_id = log.id().to_string();
        self.log = Some(log);
    }

    /// What the conversation has read of the files (shared: a front end that shows the model a
    /// file, as an `@` mention does, records it here as `read_file` would).
    pub(crate) fn reads(&self) -> crate::tools::ReadTracker {
        self.reads.clone()
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

    /// The session's checkpoints, once a run opened them.
    pub(crate) fn checkpoints(&self) -> Option<Arc<Checkpoints>> {
        self.checkpoints.as_ref().map(|attached| Arc::clone(&attached.0))
    }

    /// Opens the session's checkpoints over `coverage`, once, when the conversation is logged
    /// (they live beside its log and go when the session is pruned).
    pub(crate) fn open_checkpoints(&mut self, coverage: &Coverage) {
        if self.checkpoints.is_none() && self.log.is_some() {
            let checkpoints = Checkpoints::open(coverage.clone(), &self.session_id);
            self.checkpoints = Some(Attached(Arc::new(checkpoints)));
        }
    }

    /// Rewinds the conversation to its first `len` messages (the point before a turn's prompt):
    /// the log gets a compact marker and the kept messages, so a resume continues from here; the
    /// context estimate is counted again and the files read are forgotten (the model no longer
    /// remembers reading them). Returns the log's notice if it failed.
    pub(crate) fn rewind_to(&mut self, len: usize) -> Option<String> {
        let kept: Vec<Message> = self.history.iter().take(len).cloned().collect();
        let (snapshot, notice) = self.install(kept);
        self.context.estimate.reset();
        self.context.offload.reset_scan();
        self.context.estimate.update(&snapshot);
        self.context.compacted_at = None;
        self.meter = PromptMeter::default();
        self.reads = ReadTracker::new();
        notice
    }

    /// Where turn `prompt` began in the history: the index of its user message, looked for at
    /// `recorded` first (the length the history had when the turn began), then as the latest
    /// user message that starts with the prompt. None when the history no longer holds it (a
    /// compaction summarised it away).
    pub(crate) fn turn_start(&self, recorded: usize, prompt: &str) -> Option<usize> {
        let opens = |message: &Message| {
            message.role == crate::msg::Role::User
                && message.tool_results.is_empty()
                && message.content.starts_with(prompt.lines().next().unwrap_or(""))
        };
        if self.history.get(recorded).is_some_and(opens) {
            return Some(recorded);
        }
        self.history.iter().rposition(opens)
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
