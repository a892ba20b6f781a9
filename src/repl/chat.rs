//! What the REPL keeps between prompts (`Chat`): the conversation on screen, the provider and
//! agent it talks to, the permission mode, and the token accounting the status line and `/cost`
//! show.
//!
//! Invariant: the conversation is lent to a run, never replaced by a stand-in: a turn takes it
//! out of its `Option` and gives it back when the run ends, so `None` only ever means "a run
//! holds it" (or kept it because the user quit while it wound down, and the REPL is ending).
//! This file changes no terminal state and prints nothing.

use super::cost::Spent;
use super::setup::Setup;
use super::status_line::StatusFigures;
use super::terminal::Screen;
use super::typeahead::Kept;
use crate::agent::{Agent, Conversation};
use crate::config::ProviderConfig;
use crate::config::price::price_for;
use crate::mode::Mode;
use crate::msg::Usage;
use std::sync::Arc;

/// The state of the chat on screen: provider, agent, conversation, mode and token accounting.
pub(crate) struct Chat {
    pub provider: ProviderConfig,
    pub agent: Arc<Agent>,
    /// The conversation on screen: its history, session log and context state; `None` while a
    /// run holds it (see the file's invariant).
    pub conversation: Option<Conversation>,
    pub mode: Mode,
    /// Everything used this session (since start-up, the last `/clear` or `/resume`).
    pub usage: Usage,
    /// Some of `usage` was estimated from characters (the server sent none).
    pub usage_estimated: bool,
    /// What the sessions this process left before (by `/clear` or `/resume`) used, with their
    /// cost at the prices of the time: `/cost` adds it up to the process total.
    pub earlier: Spent,
    /// The last response's prompt + output: how full the context window is.
    pub context_used: u64,
    /// `context_used` is an estimate (no usage from the server, or counted after a compaction).
    pub context_estimated: bool,
    /// A note for the model to add to the next prompt (a resumed session's stale-files note).
    pub note: Option<String>,
    /// Text put in the next input line for the person to edit or send (the prompt of the turn a
    /// `/rewind` went back to).
    pub draft: Option<String>,
    /// Messages typed and sent with Enter while a turn ran: the next prompt, in order.
    pub queued: Vec<String>,
    /// The session list was just shown: a bare number on the next line picks one.
    pub picking: bool,
    /// The terminal's size when the last input was read.
    pub screen: Screen,
}

impl Chat {
    /// The chat at start-up: the provider and agent of `setup`, a new conversation.
    pub(super) fn start(setup: &Setup, screen: Screen) -> Chat {
        Chat {
            provider: setup.provider.clone(),
            agent: Arc::clone(&setup.agent),
            conversation: Some(Conversation::new(crate::session::new_id())),
            mode: setup.mode,
            usage: Usage::default(),
            usage_estimated: false,
            earlier: Spent::default(),
            context_used: 0,
            context_estimated: false,
            note: None,
            draft: None,
            queued: Vec::new(),
            picking: false,
            screen,
        }
    }

    /// What the status line shows.
    pub(super) fn status_figures(&self) -> StatusFigures {
        StatusFigures {
            provider: self.provider.name.clone(),
            model: self.provider.model.clone(),
            context_used: self.context_used,
            context_window: self.provider.context_window,
            session: self.usage,
            context_estimated: self.context_estimated,
            session_estimated: self.usage_estimated,
        }
    }

    /// Adds `text` to the note the model reads with the next prompt (after any note already
    /// waiting there).
    pub(super) fn add_note(&mut self, text: &str) {
        self.note = Some(match self.note.take() {
            Some(earlier) => format!("{earlier} {text}"),
            None => text.to_string(),
        });
    }

    /// Keeps what was typed during a turn: lines sent with Enter are queued and the rest is the
    /// next input line's start — unless the turn was stopped, when all of it is put in the input
    /// line to edit (nothing is sent that the person did not see the answer to).
    pub(super) fn keep_typed(&mut self, kept: Kept, stopped: bool) {
        if stopped {
            let lines: Vec<String> = self.queued.drain(..).chain(self.draft.take()).chain(kept.into_draft()).collect();
            self.draft = (!lines.is_empty()).then(|| lines.join("\n"));
        } else {
            self.queued.extend(kept.queued);
            self.draft = match (self.draft.take(), kept.draft) {
                (Some(earlier), Some(draft)) => Some(format!("{earlier}\n{draft}")),
                (earlier, draft) => draft.or(earlier),
            };
        }
    }

    /// The queued messages as the next prompt (one message: they were meant to be read
    /// together), or None.
    pub(super) fn take_queued(&mut self) -> Option<String> {
        (!self.queued.is_empty()).then(|| self.queued.drain(..).collect::<Vec<_>>().join("\n"))
    }

    /// The checkpoints of the conversation on screen, opened when no run has yet (a resumed
    /// session before its first prompt); None between a run's start and end, or when the
    /// conversation is not saved (checkpoints live beside its log).
    pub(super) fn checkpoints(&mut self) -> Option<Arc<crate::checkpoint::Checkpoints>> {
        let coverage = self.agent.settings.checkpoints.clone()?;
        let conversation = self.conversation.as_mut()?;
        conversation.open_checkpoints(&coverage);
        conversation.checkpoints()
    }

    /// `/clear`: a new conversation (its log is created at the first prompt); the agent stays.
    pub(super) fn clear(&mut self) {
        self.conversation = Some(Conversation::new(crate::session::new_id()));
        self.context_used = 0;
        self.note = None;
        self.start_accounting();
    }

    /// The session changes (`/clear`, `/resume`): its usage joins `earlier` and counting starts
    /// again, so `/cost` and the status line speak of the session on screen.
    pub(crate) fn start_accounting(&mut self) {
        if self.usage.total() > 0 {
            let cost = price_for(self.provider.price, &self.provider.model).map(|price| price.cost(&self.usage));
            self.earlier.add(&self.usage, self.usage_estimated, cost);
        }
        self.usage = Usage::default();
        self.usage_estimated = false;
    }
}
