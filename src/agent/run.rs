//! One run of the loop (one user turn): `query` the model, `act` on its turn, until a step ends
//! the run with a `Stop`.
//!
//! Invariant: every early exit is an `Err(Stop)` that `Agent::run` sees once; abnormal stops are
//! closed there with an assistant tail (`close`), so no step has to remember to. What one run
//! carries (agent, the conversation it owns, mode, the outbox of events with the cancel token,
//! hook context, counters) lives in `Run`, so no step threads it through its arguments: context
//! management (`compact.rs`) and tool execution (`batch.rs`) are methods of the run too.

use super::{Agent, CANCEL_GRACE, Conversation, Event, Failure, Outbox, POLL, Stop, reminder, usage};
use crate::hooks::HookOutcome;
use crate::llm::{LlmError, StopReason, StreamEvent};
use crate::mode::Mode;
use crate::msg::{Message, Prompt, Request, ToolDefinition, Usage};
use crate::permission::RefusedBy;
use crossbeam_channel::RecvTimeoutError;
use std::time::Duration;

/// What one run carries from step to step.
pub(super) struct Run<'a> {
    pub(super) agent: &'a Agent,
    pub(super) conversation: &'a mut Conversation,
    pub(super) mode: Mode,
    /// Where the run's events go, and its cancel token.
    pub(super) outbox: &'a Outbox,
    /// What hooks said for the model (delivered in the next request's reminder) and whether
    /// a tool hook stopped the run.
    pub(super) hooks: HookTrail,
    /// Consecutive iterations that asked only for tools that do not exist.
    unknown_run: u32,
    /// A Stop hook already sent the model back to work in this run.
    stop_hook_blocked: bool,
    /// The last turn paused (Anthropic `pause_turn`): the next request resends the history as
    /// it is, ending with that turn, so the model continues it.
    paused: bool,
    /// Characters every request carries besides the messages (system prompt and tools).
    pub(super) fixed_chars: u64,
    /// The last text the model wrote in this run (`Done`'s answer).
    answer: String,
    /// The text a cancelled response had streamed so far: kept in the conversation.
    cut_text: std::cell::RefCell<String>,
}

/// One completed model turn.
#[derive(Default)]
pub(super) struct Turn {
    pub(super) text: String,
    pub(super) calls: Vec<crate::msg::ToolCall>,
    pub(super) thinking: Vec<crate::msg::ThinkingBlock>,
    pub(super) usage: Usage,
    /// Characters of everything the model produced (text, reasoning, tool calls), for an
    /// estimate when the server sends no usage.
    pub(super) output_chars: u64,
    pub(super) dropped_tool_calls: Vec<String>,
    /// The server paused the turn (Anthropic `pause_turn`) before it was finished.
    pub(super) paused: bool,
}

/// A request sent and the turn it got back.
struct Exchange {
    turn: Turn,
    /// Messages the response's usage covers: the request's and the reply appended next.
    covered: usize,
    /// Characters of the whole request, for an estimate when the server sends none.
    prompt_chars: u64,
    /// What the request carried besides the fixed part, for the server's tokenizer when it
    /// sends no usage.
    messages: std::sync::Arc<Vec<Message>>,
    reminder: Option<String>,
}

impl<'a> Run<'a> {
    pub(super) fn new(agent: &'a Agent, conversation: &'a mut Conversation, mode: Mode, outbox: &'a Outbox) -> Run<'a> {
        let fixed_chars = usage::fixed_chars(&agent.system(), &agent.tools_for(mode));
        Run {
            agent,
            conversation,
            mode,
            outbox,
            hooks: HookTrail::default(),
            unknown_run: 0,
            stop_hook_blocked: false,
            paused: false,
            fixed_chars,
            answer: String::new(),
            cut_text: std::cell::RefCell::default(),
        }
    }

    /// The loop: the prompt (through its hooks into the conversation), then query and act until
    /// a step stops the run or the iteration cap does. Returns why it stopped and the answer.
    pub(super) fn turns(mut self, prompt: Prompt) -> (Stop, String) {
        let steps = self.submit(prompt).and_then(|()| {
            for iteration in 1..=self.agent.settings.max_iterations {
                let turn = self.query(iteration)?;
                self.act(turn)?;
            }
            Ok(())
        });
        let stop = match steps {
            Ok(()) => {
                self.notice(super::cap_notice(self.agent.settings.max_iterations));
                Stop::IterationLimit
            }
            Err(stop) => stop,
        };
        // The answer the person saw begin stays in the conversation, marked as cut, so the
        // model knows what it had said when the next prompt refers to it.
        let cut = self.cut_text.take();
        if stop == Stop::Cancelled && !cut.trim().is_empty() {
            self.push(Message::assistant(format!("{}\n\n{}", cut.trim_end(), super::CANCELLED_NOTE)));
        }
        (stop, self.answer)
    }

    /// The prompt that starts the run: the UserPromptSubmit hooks (main agents only) may block
    /// it, and then it never enters the conversation; otherwise it is appended and logged.
    fn submit(&mut self, prompt: Prompt) -> Result<(), Stop> {
        if self.agent.settings.turn_hooks {
            let outcome = self.agent.toolbox.hooks.user_prompt_submit(&prompt.text, self.origin());
            let blocked = self.report_hook(&outcome);
            // `continue: false` wins over a block, as in Claude Code.
            let refusal = match (&outcome.stop, blocked) {
                (Some(reason), _) => Some(super::hook_stopped(reason)),
                (None, Some(reason)) => Some(format!("the prompt was blocked: {reason}")),
                (None, None) => None,
            };
            if let Some(refusal) = refusal {
                return Err(self.fail(Failure::hook(RefusedBy::Hook.text(&refusal))));
            }
        }
        if let Some(checkpoints) = self.conversation.checkpoints() {
            checkpoints.begin_turn(&prompt.text, self.conversation.history().len());
        }
        self.push(Message::user_with_images(prompt.text, prompt.images));
        Ok(())
    }

    /// One model turn: context management, the request (compacting once and sending it again
    /// when the prompt is too long), and the usage it cost.
    fn query(&mut self, iteration: u32) -> Result<Turn, Stop> {
        if !self.emit(Event::Iter(iteration)) || self.outbox.cancel.is_cancelled() {
            return Err(Stop::Cancelled);
        }
        let tools = self.agent.tools_for(self.mode);
        self.manage_context(&tools)?;
        // A paused turn is resent as it is; a reminder would open a user message after it.
        let reminder = if std::mem::take(&mut self.paused) {
            None
        } else {
            reminder::build(self.mode, iteration, &std::mem::take(&mut self.hooks.context))
        };
        let exchange = self.exchange(&tools, reminder)?;
        let usage = self.account(&exchange)?;
        self.record_usage(exchange.covered, &usage);
        Ok(exchange.turn)
    }

    /// Sends the request; after a prompt-too-long, compacts once and sends it again.
    fn exchange(&mut self, tools: &[ToolDefinition], reminder: Option<String>) -> Result<Exchange, Stop> {
        let mut emergency_tried = false;
        loop {
            let max_tokens = self.reply_max_tokens(tools);
            let request = Request {
                system: self.agent.system(),
                messages: self.conversation.history().snapshot(),
                tools: tools.to_vec(),
                reminder: reminder.clone(),
                max_tokens,
            };
            let covered = request.messages.len() + 1;
            let sent = (std::sync::Arc::clone(&request.messages), request.reminder.clone());
            let reminder_chars = request.reminder.as_deref().map_or(0, |text| text.chars().count() as u64);
            let prompt_chars =
                self.fixed_chars + reminder_chars + self.conversation.meter.message_chars(&request.messages);
            let err = match self.stream(request) {
                Ok(turn) => {
                    let (messages, reminder) = sent;
                    return Ok(Exchange { turn, covered, prompt_chars, messages, reminder });
                }
                Err(err) => err,
            };
            if let LlmError::PromptTooLong { message } = &err
                && let Some(reported) = crate::context::calibration::prompt_tokens_in_error(message)
            {
                // The server said how long it counted the prompt: later estimates use that.
                self.calibrate(reported, prompt_chars);
            }
            let can_compact = matches!(err, LlmError::PromptTooLong { .. }) && self.agent.context.window > 0;
            match err {
                LlmError::Cancelled => return Err(Stop::Cancelled),
                // Once per iteration (not for an agent without a window: a sub-agent reports the
                // error as is).
                _ if can_compact && !emergency_tried => {
                    emergency_tried = true;
                    if let Err(failure) = self.emergency_compact(tools) {
                        return Err(self.fail_unless_cancelled(failure));
                    }
                }
                err => return Err(self.fail(Failure::from_llm(&err))),
            }
        }
    }

    /// The usage of an exchange: the server's, checked for a silently cut prompt, or an
    /// estimate when it sent none.
    fn account(&mut self, exchange: &Exchange) -> Result<Usage, Stop> {
        let turn = &exchange.turn;
        if usage::is_missing(&turn.usage) {
            // No usage from the server: estimate it, so the anchor and the figures move — by
            // the server's own tokenizer where it offers one, else by characters.
            let mut estimate = usage::estimate_usage(exchange.prompt_chars, turn.output_chars);
            let text = || {
                let tools = self.agent.tools_for(self.mode);
                usage::request_text(&self.agent.system(), &exchange.messages, &tools, exchange.reminder.as_deref())
            };
            if let Some(counted) = self.agent.toolbox.provider.count_tokens(&text) {
                estimate.input_tokens = counted;
            }
            self.emit(Event::Usage { usage: estimate, estimated: true, compaction: false });
            return Ok(estimate);
        }
        // The messages alone: a cut prompt loses messages, while a chat template that drops the
        // tool definitions (llama-cpp-python's) only makes the fixed part smaller than its
        // characters, which must not pass for a cut.
        let estimated = crate::context::tokens_for_chars(exchange.prompt_chars.saturating_sub(self.fixed_chars));
        let reported = usage::reported_prompt(&turn.usage);
        let toolbox = &self.agent.toolbox;
        let cut = toolbox
            .silent_truncation
            .and_then(|floor| usage::check_truncation(reported, estimated).filter(|cut| cut.estimated >= floor));
        match cut {
            Some(truncation) => Err(self.fail(Failure::prompt_too_long(truncation.message(toolbox.provider.name())))),
            None => {
                self.calibrate(reported, exchange.prompt_chars);
                Ok(turn.usage)
            }
        }
    }

    /// Acts on a turn: an answer ends the run (unless the model's call was cut off or a Stop
    /// hook sends it back to work); tool calls run and their results go back to the model.
    fn act(&mut self, turn: Turn) -> Result<(), Stop> {
        if !turn.dropped_tool_calls.is_empty() {
            let names = turn.dropped_tool_calls.join(", ");
            self.notice(format!("the output limit cut off a tool call ({names}); it was not run"));
        }
        if turn.calls.is_empty() && turn.paused {
            self.resume(turn);
            return Ok(());
        }
        if turn.calls.is_empty() {
            return self.answer(turn);
        }
        let all_unknown = turn.calls.iter().all(|call| self.agent.registry.get(&call.name).is_none());
        self.unknown_run = if all_unknown { self.unknown_run + 1 } else { 0 };
        let calls = turn.calls.clone();
        self.keep_words(&turn.text);
        let mut message = Message::assistant(turn.text);
        message.tool_calls = turn.calls;
        message.thinking = turn.thinking;
        self.push(message);
        let (results, completed) = self.execute_calls(&calls);
        self.push(Message::tool_results(results));
        if !completed || self.outbox.cancel.is_cancelled() {
            return Err(Stop::Cancelled);
        }
        if let Some(reason) = self.hooks.stop.take() {
            // A tool hook answered `continue: false`: the run ends here.
            return Err(self.fail(Failure::hook(RefusedBy::Hook.text(&super::hook_stopped(&reason)))));
        }
        if self.unknown_run >= self.agent.settings.unknown_tool_limit {
            let times = self.unknown_run;
            self.notice(format!("stopped: the model asked only for tools that do not exist {times} times in a row"));
            return Err(Stop::UnknownTools);
        }
        Ok(())
    }

    /// A turn the server paused (a long server-side tool loop): it is not an answer. What it said
    /// so far is kept and the next iteration resends the conversation as it is, as the API asks.
    fn resume(&mut self, turn: Turn) {
        self.paused = true;
        self.keep_words(&turn.text);
        if turn.text.trim().is_empty() && turn.thinking.is_empty() {
            // Nothing to keep (an empty assistant message is invalid): the request is resent.
            return;
        }
        let mut message = Message::assistant(turn.text);
        message.thinking = turn.thinking;
        self.push(message);
    }

    /// A turn without tool calls: the answer, then the Stop hooks.
    fn answer(&mut self, turn: Turn) -> Result<(), Stop> {
        let text = if turn.text.trim().is_empty() { "(task complete)".to_string() } else { turn.text };
        self.answer.clone_from(&text);
        let mut message = Message::assistant(text);
        message.thinking = turn.thinking;
        self.push(message);
        if !turn.dropped_tool_calls.is_empty() {
            // The model meant to act but its call was truncated: tell it and go on, rather than
            // ending the task on a half-written call it never saw fail.
            self.push(Message::user(format!(
                "[mewcode] Your tool call ({}) was cut off by the output token limit and was not run. \
                 Retry it in smaller pieces (for example, write a large file in several edits).",
                turn.dropped_tool_calls.join(", ")
            )));
            return Ok(());
        }
        if !self.agent.settings.turn_hooks {
            return Err(Stop::Completed);
        }
        let outcome = self.agent.toolbox.hooks.stop(self.stop_hook_blocked, self.origin());
        let blocked = self.report_hook(&outcome);
        // `continue: false` lets the run end even when a hook asked to go on.
        let (Some(reason), None) = (blocked, &outcome.stop) else { return Err(Stop::Completed) };
        // A Stop hook that exits 2 sends the model back to work with its reason.
        self.stop_hook_blocked = true;
        self.push(Message::user(format!("[Stop hook] {reason}")));
        Ok(())
    }

    /// Shows a hook outcome's warnings, keeps its context for the next request, and returns
    /// the block reason if a hook blocked.
    pub(super) fn report_hook(&mut self, outcome: &HookOutcome) -> Option<String> {
        self.show_hook_notes(outcome);
        self.hooks.context.extend(outcome.context.iter().cloned());
        outcome.blocked.clone()
    }

    /// A hook outcome's warnings and messages, as notices for the person.
    pub(super) fn show_hook_notes(&self, outcome: &HookOutcome) {
        for warning in &outcome.warnings {
            self.notice(format!("hook warning: {warning}"));
        }
        for message in &outcome.messages {
            self.notice(format!("hook: {message}"));
        }
    }

    /// Appends a message to the conversation and its session log; a log failure is shown once
    /// as a notice and the run goes on.
    fn push(&mut self, message: Message) {
        if let Some(notice) = self.conversation.push(message) {
            self.notice(notice);
        }
    }

    /// Keeps what the model just wrote as the run's answer so far (when it wrote something).
    fn keep_words(&mut self, text: &str) {
        if !text.trim().is_empty() {
            self.answer = text.to_string();
        }
    }

    /// Who hooks are told the events come from: this conversation's session, this run.
    pub(super) fn origin(&self) -> crate::hooks::Origin<'_> {
        crate::hooks::Origin { session_id: self.conversation.session_id(), cancel: &self.outbox.cancel }
    }

    /// Sends an event; false when the front end is gone or the run was cancelled meanwhile.
    pub(super) fn emit(&self, event: Event) -> bool {
        self.outbox.emit(event)
    }

    pub(super) fn notice(&self, text: String) {
        self.outbox.notice(text);
    }

    /// Reports a failure; the run stops as Failed.
    pub(super) fn fail(&self, failure: Failure) -> Stop {
        self.emit(Event::Error(failure));
        Stop::Failed
    }

    /// A step that failed because the run was cancelled is a cancel, not a failure.
    fn fail_unless_cancelled(&self, failure: Failure) -> Stop {
        if self.outbox.cancel.is_cancelled() { Stop::Cancelled } else { self.fail(failure) }
    }

    /// Streams one model turn, forwarding text to the front end; returns the completed attempt.
    /// A cancelled attempt's text is kept in `cut_text`.
    fn stream(&self, request: Request) -> Result<Turn, LlmError> {
        let mut turn = Turn::default();
        let streamed = self.receive(request, &mut turn);
        if matches!(streamed, Err(LlmError::Cancelled)) {
            *self.cut_text.borrow_mut() = std::mem::take(&mut turn.text);
        }
        streamed.map(|()| turn)
    }

    /// The events of one model turn, gathered into `turn` and forwarded to the front end.
    fn receive(&self, request: Request, turn: &mut Turn) -> Result<(), LlmError> {
        let stream = self.agent.toolbox.provider.stream(request, self.outbox.cancel.clone());
        let mut silent_since_cancel = Duration::ZERO;
        loop {
            let event = match stream.recv_timeout(POLL) {
                Ok(event) => event,
                Err(RecvTimeoutError::Timeout) => {
                    // The provider promises a prompt Error(Cancelled); this only guards a
                    // provider that breaks that promise.
                    if self.outbox.cancel.is_cancelled() {
                        silent_since_cancel += POLL;
                        if silent_since_cancel >= CANCEL_GRACE {
                            return Err(LlmError::Cancelled);
                        }
                    }
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(LlmError::Protocol { message: "the provider stopped without finishing".to_string() });
                }
            };
            match event {
                StreamEvent::Text(delta) => {
                    turn.output_chars += delta.chars().count() as u64;
                    turn.text.push_str(&delta);
                    if !self.emit(Event::Text(delta)) {
                        return Err(LlmError::Cancelled);
                    }
                }
                StreamEvent::Thinking(delta) => {
                    turn.output_chars += delta.chars().count() as u64;
                    if !self.emit(Event::Thinking(delta)) {
                        return Err(LlmError::Cancelled);
                    }
                }
                StreamEvent::ToolCalls(calls) => {
                    turn.output_chars += calls
                        .iter()
                        .map(|call| (call.name.chars().count() + call.input.chars().count()) as u64)
                        .sum::<u64>();
                    turn.calls.extend(calls);
                }
                StreamEvent::Usage(usage) => {
                    turn.usage = usage;
                    self.emit(Event::Usage { usage, estimated: false, compaction: false });
                }
                StreamEvent::Restart { restart, max, reason } => {
                    *turn = Turn::default();
                    self.emit(Event::Restart { restart, max, reason });
                }
                StreamEvent::Retry(notice) => {
                    self.emit(Event::Retry(notice));
                }
                StreamEvent::Done(completion) => {
                    turn.thinking = completion.thinking;
                    turn.dropped_tool_calls = completion.dropped_tool_calls;
                    turn.paused = completion.stop_reason == StopReason::PauseTurn;
                    return Ok(());
                }
                StreamEvent::Error(err) => return Err(err),
            }
        }
    }
}

/// What the hooks of a run said that outlives the call they fired for.
#[derive(Debug, Default)]
pub(super) struct HookTrail {
    /// Text for the model, delivered in the next request's reminder.
    pub(super) context: Vec<String>,
    /// The first `continue: false` of a tool hook: the run ends after this batch.
    pub(super) stop: Option<String>,
}
