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

    /// `provider/model`: whose server a calibration's count came from.
    fn model_key(&self) -> String {
        let provider = &self.toolbox.provider;
        format!("{}/{}", provider.name(), provider.model())
    }
}

impl Run<'_> {
    /// The manual compaction of `Agent::compact`, as a run of its own: how it ended.
    fn compact(mut self) -> Stop {
        let tools = self.agent.tools_for(self.mode);
        let overhead = self.overhead(&tools);
        let result = match self.keepable(overhead, &tools) {
            Ok(tail) => self.summarize(Trigger::Manual, &tools, overhead, tail),
            Err(err) => self.compaction_failed(Trigger::Manual, err),
        };
        match result {
            Ok(()) => Stop::Completed,
            Err(_) if self.outbox.cancel.is_cancelled() => Stop::Cancelled,
            Err(_) => Stop::Failed,
        }
    }

    /// Tokens every request carries besides the messages (system prompt and tool definitions):
    /// the server's own count of them once one calibrated it, else their characters over 3.5.
    /// An anchored estimate already includes them; an unanchored one (before the first answer,
    /// after a compaction) must add them.
    pub(super) fn overhead(&self, tools: &[ToolDefinition]) -> u64 {
        let computed = context::overhead_tokens(&self.agent.system(), tools);
        self.conversation.context.calibration.fixed(&self.agent.model_key(), computed)
    }

    /// Learns from a server's prompt count for a request of `prompt_chars` characters (its
    /// fixed part included), so later estimates use what the server really reads.
    pub(super) fn calibrate(&mut self, reported: u64, prompt_chars: u64) {
        let key = self.agent.model_key();
        let messages = prompt_chars.saturating_sub(self.fixed_chars);
        self.conversation.context.calibration.learn(&key, reported, messages, self.fixed_chars);
    }

    /// Before a request: layer 1, the estimate, and an automatic summary when it is due, the
    /// breaker is closed and a summary can help (one that can only fail is not tried: the
    /// request goes as it is and the server decides). A failed summary is reported and the
    /// request goes ahead; a compaction that leaves the conversation over the whole window ends
    /// the run with what is too big rather than sending it.
    pub(super) fn manage_context(&mut self, tools: &[ToolDefinition]) -> Result<(), Stop> {
        let agent = self.agent;
        let limits = agent.context.limits();
        // Count first, then offload, so the characters layer 1 removes were counted before.
        self.conversation.count_new_messages();
        self.offload(&limits);
        let overhead = self.overhead(tools);
        let state = &mut self.conversation.context;
        let estimate = state.estimate.with_overhead(overhead);
        // In a small window the compacted conversation may sit near the threshold: summarise again
        // only once it grew, not on every iteration.
        let first = std::mem::take(&mut state.compact_first) && agent.context.window > 0;
        if !first
            && (!context::should_summarize(estimate, &agent.context, &state.breaker)
                || !context::grew_since_compaction(estimate, state.compacted_at, &limits))
        {
            return Ok(());
        }
        let Ok(tail) = self.keepable(overhead, tools) else { return Ok(()) };
        let latest = latest_user_tokens(self.conversation.history());
        let result = self.summarize(Trigger::Auto, tools, overhead, tail);
        if self.outbox.cancel.is_cancelled() {
            return Err(Stop::Cancelled);
        }
        let breaker = &mut self.conversation.context.breaker;
        breaker.record(Trigger::Auto, result.is_ok());
        if breaker.is_open() {
            self.notice(format!(
                "automatic compaction failed {} times in a row and is off; /compact still works",
                context::BREAKER_LIMIT
            ));
        }
        let after = self.conversation.context.estimate.with_overhead(overhead);
        if result.is_ok() && after >= limits.window {
            // Named by the latest message as it was before the summary joined it.
            let reason =
                limits.explain_no_fit(overhead, latest, Some(after)).unwrap_or_else(|| self.too_big(overhead, after));
            return Err(self.fail(Failure::prompt_too_long(reason)));
        }
        Ok(())
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
        let overhead = self.overhead(tools);
        let Ok(tail) = self.keepable(overhead, tools) else {
            // Nothing a summary could do: say what is too big, without asking for one.
            let estimate = self.conversation.context.estimate.with_overhead(overhead);
            return Err(self.too_big(overhead, estimate));
        };
        self.summarize(Trigger::Emergency, tools, overhead, tail).map_err(|err| err.to_string())?;
        let estimate = self.conversation.context.estimate.with_overhead(overhead);
        if context::still_too_long(estimate, agent.context.window) {
            return Err(self.too_big(overhead, estimate));
        }
        Ok(())
    }

    /// Why a conversation of about `estimate` tokens does not fit, naming its biggest part.
    fn too_big(&self, overhead: u64, estimate: u64) -> String {
        let limits = self.agent.context.limits();
        let history = self.conversation.history();
        let latest = latest_user_tokens(history);
        limits.explain_no_fit(overhead, latest, Some(estimate)).unwrap_or_else(|| {
            format!(
                "the conversation is about {estimate} tokens ({overhead} for the system prompt and tools) and the \
                 context window is {} tokens; {}",
                limits.window,
                biggest_message(history)
            )
        })
    }

    /// The part a compaction of this conversation would keep (`summary::plan_tail`), checked
    /// before anything is asked of the model; Err when no summary can help: the latest message
    /// (always kept) cannot fit, there is nothing older than the part kept, or what would be
    /// summarised is smaller than what a summary adds.
    fn keepable(&self, overhead: u64, tools: &[ToolDefinition]) -> Result<summary::Tail, SummaryError> {
        let limits = self.agent.context.limits();
        let history = self.conversation.history();
        if let Some(reason) = limits.explain_no_fit(overhead, latest_user_tokens(history), None) {
            return Err(SummaryError::DoesNotFit(reason));
        }
        let tail = summary::plan_tail(history, &limits).ok_or(SummaryError::TooShort)?;
        let older: u64 = history[..tail.start].iter().map(context::message_chars).sum();
        let added = summary::recovery_attachment(&[], tools).chars().count() as u64 + summary::MIN_SUMMARY_CHARS;
        if older <= added {
            return Err(SummaryError::NothingToGain { older: context::tokens_for_chars(older) });
        }
        Ok(tail)
    }

    /// Reports a compaction that failed (its `Failed` phase) and passes the failure on.
    fn compaction_failed(&self, trigger: Trigger, err: SummaryError) -> Result<(), SummaryError> {
        self.emit(Event::Compact(CompactPhase::Failed { trigger, reason: err.to_string() }));
        Err(err)
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
        let estimate = self.conversation.context.estimate.with_overhead(self.overhead(tools));
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

    /// Layer 2: summarises what is older than `tail` (`keepable`'s, for the fixed part of
    /// `overhead` tokens), rebuilds the history and resets the estimate. Sends Started, then
    /// Finished or Failed. The kept part is chosen before the summary is asked for, so that the
    /// result fits under the automatic threshold: the recovery files go first, then the tail down
    /// to the latest user message. A summary that would not make the conversation smaller is not
    /// installed.
    fn summarize(
        &mut self,
        trigger: Trigger,
        tools: &[ToolDefinition],
        overhead: u64,
        tail: summary::Tail,
    ) -> Result<(), SummaryError> {
        let agent = self.agent;
        let limits = agent.context.limits();
        let snapshot = self.conversation.history().snapshot();
        self.conversation.context.estimate.update(&snapshot);
        let before_tokens = self.conversation.context.estimate.with_overhead(overhead);
        self.emit(Event::Compact(CompactPhase::Started { trigger }));
        let latest_before = latest_user_tokens(&snapshot);
        let configured = limits.summary_max_tokens(agent.toolbox.max_tokens);
        // A file whose read stays in the tail is there verbatim: it is not read again.
        let root = &agent.settings.root;
        let in_tail = summary::files_read_in(&snapshot[tail.start..], root);
        let mut recent = self.conversation.reads.recent(summary::RECOVERY_FILES);
        recent.retain(|path| !in_tail.contains(path));
        let files = summary::load_recovery_files(&recent, root, &limits);
        let threshold = context::auto_threshold(limits.window, agent.context.compact_at).unwrap_or(u64::MAX);
        let room_under_threshold = threshold.saturating_sub(overhead);
        let plan = summary::plan_fit(&snapshot, tail, &limits, &files, tools, room_under_threshold, configured);
        // The summary gets what the window leaves beside the rest, with a quarter to spare for
        // the estimate's error: a summary that fills the window only moves the problem.
        let room = match limits.window {
            0 => u64::from(configured),
            window => window.saturating_sub(limits.emergency_floor + overhead + plan.kept_tokens).saturating_mul(3) / 4,
        };
        if room < summary::MIN_SUMMARY_TOKENS {
            let err = SummaryError::NoRoom { overhead, kept: plan.kept_tokens, window: limits.window };
            return self.compaction_failed(trigger, err);
        }
        let max_tokens = configured.min(room.try_into().unwrap_or(u32::MAX));
        let transcript_chars = limits.summary_transcript_chars(max_tokens);
        let provider = agent.toolbox.provider.as_ref();
        let older = &snapshot[..plan.tail.start];
        let made = summary::summarize(provider, older, max_tokens, transcript_chars, &self.outbox.cancel);
        let rebuilt = made.and_then(|made| {
            self.emit(Event::Usage { usage: made.usage, estimated: made.estimated, compaction: true });
            let tail = summary::tail_messages(&snapshot, plan.tail);
            let chars = |messages: &[Message]| messages.iter().map(context::message_chars).sum::<u64>();
            let before = chars(&snapshot);
            let mut rebuilt = summary::build_history(&made.text, &plan.attachment, &tail);
            if chars(&rebuilt) >= before {
                // The re-read files would make it bigger than it was: without them.
                rebuilt = summary::build_history(&made.text, &summary::recovery_attachment(&[], tools), &tail);
            }
            let after = chars(&rebuilt);
            if after >= before {
                return Err(SummaryError::WouldGrow {
                    before: context::tokens_for_chars(before),
                    after: context::tokens_for_chars(after),
                });
            }
            Ok((rebuilt, context::tokens_for_chars(made.text.chars().count() as u64)))
        });
        let (rebuilt, summary_tokens) = match rebuilt {
            Ok(done) => done,
            Err(err) => return self.compaction_failed(trigger, err),
        };
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
        if after_tokens >= threshold && after_tokens < limits.window {
            self.notice(format!(
                "the conversation is still about {after_tokens} tokens after compaction, over the {threshold} at which \
                 it compacts: the system prompt and tools take about {overhead}, the summary about {summary_tokens}, \
                 and what is kept verbatim about {} (the latest message alone about {latest_before})",
                plan.kept_tokens
            ));
        }
        Ok(())
    }
}

/// Tokens of the latest user message (what every compaction keeps verbatim).
fn latest_user_tokens(messages: &[Message]) -> u64 {
    let latest = messages.iter().rev().find(|message| message.role == crate::msg::Role::User);
    latest.map_or(0, |message| context::tokens_for_chars(context::message_chars(message)))
}

/// The largest message of a conversation, for the user: which one and its size.
fn biggest_message(messages: &[Message]) -> String {
    let latest_user = messages.iter().rposition(|message| message.role == crate::msg::Role::User);
    let biggest = messages.iter().enumerate().max_by_key(|(_, message)| context::message_chars(message));
    let Some((index, message)) = biggest else { return "the conversation is empty".to_string() };
    let tokens = context::tokens_for_chars(context::message_chars(message));
    let what = match message.role {
        _ if Some(index) == latest_user => "the latest message".to_string(),
        crate::msg::Role::User => format!("message {} (yours)", index + 1),
        crate::msg::Role::Assistant => format!("message {} (the model's)", index + 1),
        crate::msg::Role::Tool => {
            let names: Vec<&str> = message
                .tool_results
                .iter()
                .filter_map(|result| crate::msg::call_answered(messages, index, result))
                .map(|call| call.name.as_str())
                .collect();
            format!(
                "message {} (the result of {})",
                index + 1,
                if names.is_empty() { "a tool".to_string() } else { names.join(", ") }
            )
        }
    };
    format!("the biggest part is {what}, about {tokens} tokens")
}

/// Maps the failure of an emergency compaction to what the run reports.
fn emergency_error(reason: &str) -> String {
    format!("the prompt is too long for the model and compaction could not make it fit: {reason}")
}

#[cfg(test)]
#[path = "compact_tests.rs"]
mod tests;
