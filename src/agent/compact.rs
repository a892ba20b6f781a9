//! The agent's side of context management (SPEC §6): layer 1 and the automatic summary before
//! each request, emergency compaction after a prompt-too-long, the manual `/compact`, and the
//! usage anchor after each main response.
//!
//! Invariant: the decisions live in `context/`; this file only sequences them and reports them
//! as `Event::Compact` / `Event::Notice`. Every figure comes from the window (`Limits`), and every
//! estimate compared with one includes the system prompt and tools (`overhead`) when no usage
//! anchors it yet. The history is replaced in exactly one place
//! (`Conversation::install`), always with a history that is valid for both protocols; a failed or
//! cancelled compaction leaves the history untouched. Only automatic failures count toward the
//! breaker, and summary requests never move the anchor.

use super::event::CompactPhase;
use super::{Agent, Conversation, Event, Running, Stop, emit};
use crate::cancel::CancelToken;
use crate::context::summary::{self, SummaryError};
use crate::context::{self, Limits, Trigger};
use crate::llm::LlmError;
use crate::mode::Mode;
use crate::msg::{Message, ToolDefinition, Usage};
use crossbeam_channel::Sender;
use std::sync::Arc;

impl Agent {
    /// Compacts the conversation now (`/compact`): no layer 1, no threshold, no breaker. Sends
    /// the `Compact` phases, then `Done` (Completed, Failed or Cancelled); the conversation comes
    /// back from `Running::finish`, compacted or unchanged.
    pub fn compact(self: &Arc<Self>, conversation: Conversation, mode: Mode, cancel: CancelToken) -> Running {
        let agent = Arc::clone(self);
        self.spawn("agent-compact", conversation, cancel, move |conversation, cancel, tx| {
            let tools = agent.tools_for(mode);
            let stop = match agent.summarize_into(conversation, Trigger::Manual, &tools, cancel, tx) {
                Ok(()) => Stop::Completed,
                Err(_) if cancel.is_cancelled() => Stop::Cancelled,
                Err(_) => Stop::Failed,
            };
            Event::Done { stop, answer: String::new() }
        })
    }

    /// The tools offered in `mode` (plan: read-only only).
    pub(super) fn tools_for(&self, mode: Mode) -> Vec<ToolDefinition> {
        if mode == Mode::Plan { self.registry.read_only_definitions() } else { self.registry.definitions() }
    }

    /// Before a request: layer 1, the estimate, and an automatic summary when it is due and the
    /// breaker is closed. A failed summary is reported and the request goes ahead. Returns false
    /// when the run was cancelled meanwhile.
    pub(super) fn manage_context(
        &self,
        conversation: &mut Conversation,
        tools: &[ToolDefinition],
        cancel: &CancelToken,
        tx: &Sender<Event>,
    ) -> bool {
        let limits = self.context.limits();
        // Count first, then offload, so the characters layer 1 removes were counted before.
        conversation.count_new_messages();
        self.offload(conversation, &limits, cancel, tx);
        let state = &mut conversation.context;
        let estimate = state.estimate.with_overhead(self.overhead(tools));
        // In a small window the compacted conversation may sit near the threshold: summarise again
        // only once it grew, not on every iteration.
        let first = std::mem::take(&mut state.compact_first) && self.context.window > 0;
        if !first
            && (!context::should_summarize(estimate, &self.context, &state.breaker)
                || !context::grew_since_compaction(estimate, state.compacted_at, &limits))
        {
            return true;
        }
        let result = self.summarize_into(conversation, Trigger::Auto, tools, cancel, tx);
        if cancel.is_cancelled() {
            return false;
        }
        let breaker = &mut conversation.context.breaker;
        breaker.record(Trigger::Auto, result.is_ok());
        if breaker.is_open() {
            emit(
                cancel,
                tx,
                Event::Notice(format!(
                    "automatic compaction failed {} times in a row and is off; /compact still works",
                    context::BREAKER_LIMIT
                )),
            );
        }
        true
    }

    /// After a prompt-too-long: layer 1, then a summary that ignores the breaker. Ok means the
    /// request may be retried; Err says why not.
    pub(super) fn emergency_compact(
        &self,
        conversation: &mut Conversation,
        tools: &[ToolDefinition],
        cancel: &CancelToken,
        tx: &Sender<Event>,
    ) -> Result<(), String> {
        if self.context.window == 0 {
            return Err("context management is off for this agent".to_string());
        }
        let limits = self.context.limits();
        conversation.count_new_messages();
        self.offload(conversation, &limits, cancel, tx);
        self.summarize_into(conversation, Trigger::Emergency, tools, cancel, tx).map_err(|err| err.to_string())?;
        let overhead = self.overhead(tools);
        let estimate = conversation.context.estimate.with_overhead(overhead);
        if context::still_too_long(estimate, self.context.window) {
            let latest = latest_user_tokens(conversation.history());
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
    pub(super) fn record_usage(&self, conversation: &mut Conversation, covered: usize, usage: &Usage) {
        conversation.context.estimate.anchor(usage.total(), covered);
    }

    /// The max_tokens of the next main request: the configured cap, lowered so that input and
    /// output fit the window (a server such as vLLM refuses a prompt plus max_tokens over the
    /// model's length, and the default 8 192 is twice a 4 096 window).
    pub(super) fn reply_max_tokens(&self, conversation: &mut Conversation, tools: &[ToolDefinition]) -> u32 {
        let configured = self.toolbox.max_tokens;
        if self.context.window == 0 {
            return configured;
        }
        conversation.count_new_messages();
        let estimate = conversation.context.estimate.with_overhead(self.overhead(tools));
        self.context.limits().reply_max_tokens(configured, estimate)
    }

    /// Tokens every request carries besides the messages: system prompt and tool definitions.
    fn overhead(&self, tools: &[ToolDefinition]) -> u64 {
        context::overhead_tokens(&self.system(), tools)
    }

    /// Layer 1 over the messages not yet settled; tells the user what moved to disk.
    fn offload(&self, conversation: &mut Conversation, limits: &Limits, cancel: &CancelToken, tx: &Sender<Event>) {
        // Each conversation's results go to its own session's directory.
        let session_dir = self.context.sessions_dir.as_ref().map(|dir| dir.join(conversation.session_id()));
        let (history, state) = conversation.history_and_context();
        let outcome = state.offload.run(history, session_dir.as_ref(), limits);
        state.estimate.shrink(outcome.chars_removed);
        if outcome.replaced > 0
            && let Some(dir) = session_dir
        {
            let dir = dir.path().join(context::offload::TOOL_RESULTS_DIR);
            let notice = format!(
                "{} large tool result(s) saved to {}; the model sees a preview",
                outcome.replaced,
                dir.display()
            );
            emit(cancel, tx, Event::Notice(notice));
        }
        for failure in outcome.failures {
            emit(cancel, tx, Event::Notice(failure));
        }
    }

    /// Layer 2: summarises the older part, rebuilds the history and resets the estimate. Sends
    /// Started, then Finished or Failed.
    fn summarize_into(
        &self,
        conversation: &mut Conversation,
        trigger: Trigger,
        tools: &[ToolDefinition],
        cancel: &CancelToken,
        tx: &Sender<Event>,
    ) -> Result<(), SummaryError> {
        emit(cancel, tx, Event::Compact(CompactPhase::Started { trigger }));
        let limits = self.context.limits();
        let overhead = self.overhead(tools);
        let snapshot = conversation.history().snapshot();
        conversation.context.estimate.update(&snapshot);
        let state = &mut conversation.context;
        let before_tokens = state.estimate.with_overhead(overhead);
        // The latest message is always kept: if it cannot fit, no summary can help (and saying
        // so beats "nothing to compact" for a one-message conversation).
        let result = match limits.explain_no_fit(overhead, latest_user_tokens(&snapshot), None) {
            Some(reason) => Err(SummaryError::DoesNotFit(reason)),
            None => match summary::plan_tail(&snapshot, &limits) {
                None => Err(SummaryError::TooShort),
                Some(tail) => {
                    let max_tokens = limits.summary_max_tokens(self.toolbox.max_tokens);
                    let transcript_chars = limits.summary_transcript_chars(max_tokens);
                    let provider = self.toolbox.provider.as_ref();
                    summary::summarize(provider, &snapshot[..tail.start], max_tokens, transcript_chars, cancel)
                        .map(|text| (text, tail))
                }
            },
        };
        let (text, tail) = match result {
            Ok(done) => done,
            Err(err) => {
                emit(cancel, tx, Event::Compact(CompactPhase::Failed { trigger, reason: err.to_string() }));
                return Err(err);
            }
        };
        let recent = conversation.reads.recent(summary::RECOVERY_FILES);
        let files = summary::load_recovery_files(&recent, &self.settings.root, &limits);
        let attachment = summary::recovery_attachment(&files, tools);
        let rebuilt = summary::build_history(&text, &attachment, &summary::tail_messages(&snapshot, tail));
        drop(snapshot);
        // The one place compaction changes history; the session log gets a compact marker and
        // the new history, so a resume starts from the compacted conversation.
        let (history, notice) = conversation.install(rebuilt);
        if let Some(notice) = notice {
            emit(cancel, tx, Event::Notice(notice));
        }
        let state = &mut conversation.context;
        state.estimate.reset();
        state.offload.reset_scan();
        state.estimate.update(&history);
        let after_tokens = state.estimate.with_overhead(overhead);
        state.compacted_at = Some(after_tokens);
        emit(cancel, tx, Event::Compact(CompactPhase::Finished { trigger, before_tokens, after_tokens, history }));
        Ok(())
    }
}

/// Tokens of the latest user message (what every compaction keeps verbatim).
fn latest_user_tokens(messages: &[Message]) -> u64 {
    let latest = messages.iter().rev().find(|message| message.role == crate::msg::Role::User);
    latest.map_or(0, |message| context::tokens_for_chars(context::message_chars(message)))
}

/// Maps the failure of an emergency compaction to what the run reports.
pub(super) fn emergency_error(reason: &str) -> String {
    format!("the prompt is too long for the model and compaction could not make it fit: {reason}")
}

/// True when a stream error calls for an emergency compaction.
pub(super) fn is_prompt_too_long(err: &LlmError) -> bool {
    matches!(err, LlmError::PromptTooLong { .. })
}
