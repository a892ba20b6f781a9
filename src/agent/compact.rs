//! The agent's side of context management (SPEC §6): layer 1 and the automatic summary before
//! each request, emergency compaction after a prompt-too-long, the manual `/compact`, and the
//! usage anchor after each main response.
//!
//! Each step is a method of the `Run` (a `/compact` is a run of its own), so it reads the
//! conversation, the agent and the outbox from the run rather than from its arguments.
//!
//! Invariant: the decisions live in `context/`; this file only sequences them and reports them
//! as `Event::Compact` / `Event::Notice`. Every figure comes from the window (`Limits`), and every
//! estimate compared with one includes the system prompt and tools (`overhead`) when no usage
//! anchors it yet. The history is replaced in exactly one place
//! (`Conversation::install`), always with a history that is valid for both protocols; a failed or
//! cancelled compaction leaves the history untouched. Only automatic failures count toward the
//! breaker, and summary requests never move the anchor.

use super::event::CompactPhase;
use super::run::Run;
use super::{Agent, Conversation, Event, Failure, Running, Stop};
use crate::cancel::CancelToken;
use crate::context::summary::{self, SummaryError};
use crate::context::{self, Limits, Trigger};
use crate::mode::Mode;
use crate::msg::{Message, ToolDefinition, Usage};
use std::sync::Arc;

impl Agent {
    /// Compacts the conversation now (`/compact`): no layer 1, no threshold, no breaker. Sends
    /// the `Compact` phases, then `Done` (Completed, Failed or Cancelled); the conversation comes
    /// back from `Running::finish`, compacted or unchanged.
    pub fn compact(self: &Arc<Self>, conversation: Conversation, mode: Mode, cancel: CancelToken) -> Running {
        let agent = Arc::clone(self);
        self.spawn("agent-compact", conversation, cancel, move |conversation, outbox| {
            let stop = Run::new(&agent, conversation, mode, outbox).compact();
            Event::Done { stop, answer: String::new() }
        })
    }

    /// Tokens every request carries besides the messages: system prompt and tool definitions.
    fn overhead(&self, tools: &[ToolDefinition]) -> u64 {
        context::overhead_tokens(&self.system(), tools)
    }
}

impl Run<'_> {
    /// The manual compaction of `Agent::compact`, as a run of its own: how it ended.
    fn compact(mut self) -> Stop {
        let tools = self.agent.tools_for(self.mode);
        match self.summarize(Trigger::Manual, &tools) {
            Ok(()) => Stop::Completed,
            Err(_) if self.outbox.cancel.is_cancelled() => Stop::Cancelled,
            Err(_) => Stop::Failed,
        }
    }

    /// Before a request: layer 1, the estimate, and an automatic summary when it is due and the
    /// breaker is closed. A failed summary is reported and the request goes ahead. Returns false
    /// when the run was cancelled meanwhile.
    pub(super) fn manage_context(&mut self, tools: &[ToolDefinition]) -> bool {
        let agent = self.agent;
        let limits = agent.context.limits();
        // Count first, then offload, so the characters layer 1 removes were counted before.
        self.conversation.count_new_messages();
        self.offload(&limits);
        let state = &mut self.conversation.context;
        let estimate = state.estimate.with_overhead(agent.overhead(tools));
        // In a small window the compacted conversation may sit near the threshold: summarise again
        // only once it grew, not on every iteration.
        let first = std::mem::take(&mut state.compact_first) && agent.context.window > 0;
        if !first
            && (!context::should_summarize(estimate, &agent.context, &state.breaker)
                || !context::grew_since_compaction(estimate, state.compacted_at, &limits))
        {
            return true;
        }
        let result = self.summarize(Trigger::Auto, tools);
        if self.outbox.cancel.is_cancelled() {
            return false;
        }
        let breaker = &mut self.conversation.context.breaker;
        breaker.record(Trigger::Auto, result.is_ok());
        if breaker.is_open() {
            self.notice(format!(
                "automatic compaction failed {} times in a row and is off; /compact still works",
                context::BREAKER_LIMIT
            ));
        }
        true
    }

    /// After a prompt-too-long: layer 1, then a summary that ignores the breaker. Ok means the
    /// request may be retried; Err is the failure the run reports.
    pub(super) fn emergency_compact(&mut self, tools: &[ToolDefinition]) -> Result<(), Failure> {
        self.try_emergency_compact(tools).map_err(|reason| Failure::prompt_too_long(emergency_error(&reason)))
    }

    fn try_emergency_compact(&mut self, tools: &[ToolDefinition]) -> Result<(), String> {
        let agent = self.agent;
        if agent.context.window == 0 {
            return Err("context management is off for this agent".to_string());
        }
        let limits = agent.context.limits();
        self.conversation.count_new_messages();
        self.offload(&limits);
        self.summarize(Trigger::Emergency, tools).map_err(|err| err.to_string())?;
        let overhead = agent.overhead(tools);
        let estimate = self.conversation.context.estimate.with_overhead(overhead);
        if context::still_too_long(estimate, agent.context.window) {
            let latest = latest_user_tokens(self.conversation.history());
            return Err(limits.explain_no_fit(overhead, latest, Some(estimate)).unwrap_or_else(|| {
                format!(
                    "the conversation is still about {estimate} tokens after compaction and the context window is {}",
                    limits.window
                )
            }));
        }
        Ok(())
    }

    /// After a main response: its usage covers the request's messages and the reply about to be
    /// appended (`covered` messages in all).
    pub(super) fn record_usage(&mut self, covered: usize, usage: &Usage) {
        self.conversation.context.estimate.anchor(usage.total(), covered);
    }

    /// The max_tokens of the next main request: the configured cap, lowered so that input and
    /// output fit the window (a server such as vLLM refuses a prompt plus max_tokens over the
    /// model's length, and the default 8 192 is twice a 4 096 window).
    pub(super) fn reply_max_tokens(&mut self, tools: &[ToolDefinition]) -> u32 {
        let agent = self.agent;
        let configured = agent.toolbox.max_tokens;
        if agent.context.window == 0 {
            return configured;
        }
        self.conversation.count_new_messages();
        let estimate = self.conversation.context.estimate.with_overhead(agent.overhead(tools));
        agent.context.limits().reply_max_tokens(configured, estimate)
    }

    /// Layer 1 over the messages not yet settled; tells the user what moved to disk.
    fn offload(&mut self, limits: &Limits) {
        // Each conversation's results go to its own session's directory.
        let session_dir = self.agent.context.sessions_dir.as_ref().map(|dir| dir.join(self.conversation.session_id()));
        let (history, state) = self.conversation.history_and_context();
        let outcome = state.offload.run(history, session_dir.as_ref(), limits);
        state.estimate.shrink(outcome.chars_removed);
        if outcome.replaced > 0
            && let Some(dir) = session_dir
        {
            let dir = dir.path().join(context::offload::TOOL_RESULTS_DIR);
            self.notice(format!(
                "{} large tool result(s) saved to {}; the model sees a preview",
                outcome.replaced,
                dir.display()
            ));
        }
        for failure in outcome.failures {
            self.notice(failure);
        }
    }

    /// Layer 2: summarises the older part, rebuilds the history and resets the estimate. Sends
    /// Started, then Finished or Failed.
    fn summarize(&mut self, trigger: Trigger, tools: &[ToolDefinition]) -> Result<(), SummaryError> {
        self.emit(Event::Compact(CompactPhase::Started { trigger }));
        let agent = self.agent;
        let limits = agent.context.limits();
        let overhead = agent.overhead(tools);
        let snapshot = self.conversation.history().snapshot();
        self.conversation.context.estimate.update(&snapshot);
        let state = &mut self.conversation.context;
        let before_tokens = state.estimate.with_overhead(overhead);
        // The latest message is always kept: if it cannot fit, no summary can help (and saying
        // so beats "nothing to compact" for a one-message conversation).
        let result = match limits.explain_no_fit(overhead, latest_user_tokens(&snapshot), None) {
            Some(reason) => Err(SummaryError::DoesNotFit(reason)),
            None => match summary::plan_tail(&snapshot, &limits) {
                None => Err(SummaryError::TooShort),
                Some(tail) => {
                    let max_tokens = limits.summary_max_tokens(agent.toolbox.max_tokens);
                    let transcript_chars = limits.summary_transcript_chars(max_tokens);
                    let provider = agent.toolbox.provider.as_ref();
                    let older = &snapshot[..tail.start];
                    summary::summarize(provider, older, max_tokens, transcript_chars, &self.outbox.cancel)
                        .map(|text| (text, tail))
                }
            },
        };
        let (text, tail) = match result {
            Ok(done) => done,
            Err(err) => {
                self.emit(Event::Compact(CompactPhase::Failed { trigger, reason: err.to_string() }));
                return Err(err);
            }
        };
        let recent = self.conversation.reads.recent(summary::RECOVERY_FILES);
        let files = summary::load_recovery_files(&recent, &agent.settings.root, &limits);
        let attachment = summary::recovery_attachment(&files, tools);
        let rebuilt = summary::build_history(&text, &attachment, &summary::tail_messages(&snapshot, tail));
        drop(snapshot);
        // The one place compaction changes history; the session log gets a compact marker and
        // the new history, so a resume starts from the compacted conversation.
        let (history, notice) = self.conversation.install(rebuilt);
        if let Some(notice) = notice {
            self.notice(notice);
        }
        let state = &mut self.conversation.context;
        state.estimate.reset();
        state.offload.reset_scan();
        state.estimate.update(&history);
        let after_tokens = state.estimate.with_overhead(overhead);
        state.compacted_at = Some(after_tokens);
        self.emit(Event::Compact(CompactPhase::Finished { trigger, before_tokens, after_tokens, history }));
        Ok(())
    }
}

/// Tokens of the latest user message (what every compaction keeps verbatim).
fn latest_user_tokens(messages: &[Message]) -> u64 {
    let latest = messages.iter().rev().find(|message| message.role == crate::msg::Role::User);
    latest.map_or(0, |message| context::tokens_for_chars(context::message_chars(message)))
}

/// Maps the failure of an emergency compaction to what the run reports.
fn emergency_error(reason: &str) -> String {
    format!("the prompt is too long for the model and compaction could not make it fit: {reason}")
}

#[cfg(test)]
#[path = "compact_tests.rs"]
mod tests;
