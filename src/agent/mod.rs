//! The ReAct loop: stream a model turn, run the tools it asks for, feed the results back, repeat.
//!
//! Invariant: every exit except a natural finish leaves the history ending with an assistant
//! message (`ensure_assistant_tail`), and tool results are appended even when cancelled, so the
//! next request is always valid for both protocols. The loop runs on one worker thread and talks
//! to its front end only through a rendezvous channel of `Event`s.

mod batch;
mod compact;
pub mod event;
pub mod gate;
mod preview;
pub mod prompt;
mod reminder;
pub mod subagent;
pub mod toolbox;
pub mod usage;

#[cfg(test)]
mod compact_tests;
#[cfg(test)]
mod subagent_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod usage_tests;

use crate::cancel::CancelToken;
use crate::hooks::HookOutcome;
use crate::llm::{LlmError, StreamEvent};
use crate::mode::Mode;
use crate::msg::{History, Message, Request, Role, System, ToolCall, Usage};
pub use crate::sync::lock;
use crate::tools::{ReadTracker, Registry};
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender, bounded};
pub use event::{Approval, ApprovalRequest, CompactPhase, Event, Failure, FailureKind, Stop};
pub use gate::{EngineGate, Gate, ModeMatrix, Verdict};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
pub use toolbox::Toolbox;

/// The default iteration cap of a main run (SPEC §3); `--max-iterations` sets another.
pub const MAX_ITERATIONS: u32 = 25;
/// Consecutive all-unknown-tool iterations that stop a main run.
pub const UNKNOWN_TOOL_LIMIT: u32 = 3;

/// The conversation history, shared between the worker and the front end (which reads it only
/// between runs).
pub type Conversation = Arc<Mutex<History>>;

/// Limits and switches of one agent.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The project root tools work in.
    pub root: PathBuf,
    /// Iteration cap for one run.
    pub max_iterations: u32,
    /// Consecutive all-unknown-tool iterations that stop a run (sub-agents: 2).
    pub unknown_tool_limit: u32,
    /// False in -p mode and for sub-agents: an Ask becomes a "needs approval:" denial.
    pub interactive: bool,
    /// True when UserPromptSubmit and Stop hooks fire around a run: a main agent's turn. False
    /// for sub-agents, whose run is one tool call of the parent (its Pre/PostToolUse hooks fire
    /// around it); their own tool calls get Pre/PostToolUse all the same.
    pub turn_hooks: bool,
    /// The files read during the session, most recent last (for compaction recovery).
    pub reads: ReadTracker,
    /// The session log every message pushed by the loop is appended to (none for sub-agents).
    pub log: crate::session::Recorder,
    /// Characters of the requests so far, counted once per message (for usage the server does
    /// not send and the truncation check); each agent has its own.
    pub prompt_meter: usage::PromptMeter,
}

/// A model, its tools, its permission gate and its system prompt.
pub struct Agent {
    /// The model, permission gate, hooks and environment; a sub-agent shares its parent's.
    pub toolbox: Arc<Toolbox>,
    /// The tools this agent offers (a sub-agent: the parent's read-only ones, without `task`).
    pub registry: Registry,
    /// The stable part of the system prompt (the environment part is the toolbox's).
    pub stable_prompt: String,
    pub settings: Settings,
    /// Context management: window, thresholds, session directory and the state between runs.
    pub context: crate::context::Context,
}

impl Agent {
    /// Starts one run (one user turn) on a worker thread. The returned channel is rendezvous
    /// (`bounded(0)`): the agent never runs ahead of what the front end has taken. `Done` is the
    /// last event; a front end that sees the channel close without it treats the run as cancelled.
    pub fn run(self: &Arc<Self>, conversation: Conversation, mode: Mode, cancel: CancelToken) -> Receiver<Event> {
        // Capacity 0: strong back-pressure, the user sees every event before the next happens.
        let (events_tx, events_rx) = bounded(0);
        let agent = Arc::clone(self);
        // If the thread cannot start, the closure (and the sender) is dropped: the front end sees
        // the channel close at once, which it treats as a run that did not happen.
        let _ = std::thread::Builder::new().name("agent".into()).spawn(move || {
            let stop = agent.run_loop(&conversation, mode, &cancel, &events_tx);
            emit(&cancel, &events_tx, Event::Done(stop));
        });
        events_rx
    }

    fn run_loop(&self, conversation: &Conversation, mode: Mode, cancel: &CancelToken, tx: &Sender<Event>) -> Stop {
        let mut unknown_run = 0;
        // Text hooks add for the model, delivered in the next request's reminder.
        let mut hook_context: Vec<String> = Vec::new();
        let hooks = &self.toolbox.hooks;
        if self.settings.turn_hooks && !hooks.is_empty_for(crate::config::HookEvent::UserPromptSubmit) {
            let prompt = lock(conversation).last().filter(|m| m.role == Role::User).map(|m| m.content.clone());
            if let Some(prompt) = prompt {
                let outcome = hooks.user_prompt_submit(&prompt, cancel);
                let blocked = report_hook(&outcome, cancel, tx, &mut hook_context);
                // `continue: false` wins over a block, as in Claude Code.
                let refusal = match (&outcome.stop, blocked) {
                    (Some(reason), _) => Some(format!("denied by hook: the run was stopped: {reason}")),
                    (None, Some(reason)) => Some(format!("denied by hook: the prompt was blocked: {reason}")),
                    (None, None) => None,
                };
                if let Some(message) = refusal {
                    // The prompt never reaches the model: take it back out so the history stays valid.
                    let mut history = lock(conversation);
                    let mut messages = history.to_vec();
                    messages.pop();
                    history.replace(messages);
                    emit(cancel, tx, Event::Error(Failure::hook(message)));
                    return Stop::Failed;
                }
            }
        }
        let mut stop_hook_blocked = false;
        // What each request carries, counted for usage the server does not send and for the
        // truncation check: the fixed part once per run, the messages incrementally.
        let fixed_chars = usage::fixed_chars(&self.system(), &self.tools_for(mode));
        for iteration in 1..=self.settings.max_iterations {
            if !emit(cancel, tx, Event::Iter(iteration)) || cancel.is_cancelled() {
                return self.finish(conversation, Stop::Cancelled);
            }
            let tools = self.tools_for(mode);
            if !self.manage_context(conversation, &tools, cancel, tx) {
                return self.finish(conversation, Stop::Cancelled);
            }
            let reminder = reminder::build(mode, iteration, &std::mem::take(&mut hook_context));
            let mut emergency_tried = false;
            let (turn, covered, prompt_chars) = loop {
                // Before the literal: its `lock(conversation)` temporary lives to the end of it.
                let max_tokens = self.reply_max_tokens(conversation, &tools);
                let request = Request {
                    system: self.system(),
                    messages: lock(conversation).snapshot(),
                    tools: tools.clone(),
                    reminder: reminder.clone(),
                    max_tokens,
                };
                // The response's usage covers the request's messages and the reply appended next.
                let covered = request.messages.len() + 1;
                let reminder_chars = request.reminder.as_deref().map_or(0, |text| text.chars().count() as u64);
                let prompt_chars = fixed_chars
                    + reminder_chars
                    + self.settings.prompt_meter.message_chars(conversation, &request.messages);
                match self.stream_turn(request, cancel, tx) {
                    Ok(turn) => break (turn, covered, prompt_chars),
                    Err(LlmError::Cancelled) => return self.finish(conversation, Stop::Cancelled),
                    // Once per iteration: compact, then retry the same request on the new history
                    // (not for an agent without a window: a sub-agent reports the error as is).
                    Err(err)
                        if compact::is_prompt_too_long(&err) && !emergency_tried && self.context.config.window > 0 =>
                    {
                        emergency_tried = true;
                        if let Err(reason) = self.emergency_compact(conversation, &tools, cancel, tx) {
                            if cancel.is_cancelled() {
                                return self.finish(conversation, Stop::Cancelled);
                            }
                            emit(cancel, tx, Event::Error(Failure::prompt_too_long(compact::emergency_error(&reason))));
                            return self.finish(conversation, Stop::Failed);
                        }
                    }
                    Err(err) => {
                        emit(cancel, tx, Event::Error(Failure::from_llm(&err)));
                        return self.finish(conversation, Stop::Failed);
                    }
                }
            };
            let turn_usage = if usage::is_missing(&turn.usage) {
                // No usage from the server: estimate it, so the anchor and the figures move.
                let estimate = usage::estimate_usage(prompt_chars, turn.output_chars);
                emit(cancel, tx, Event::Usage { usage: estimate, estimated: true });
                estimate
            } else {
                let estimated = crate::context::tokens_for_chars(prompt_chars);
                let reported = usage::reported_prompt(&turn.usage);
                let cut = self.toolbox.silent_truncation.and_then(|floor| {
                    usage::check_truncation(reported, estimated).filter(|cut| cut.estimated >= floor)
                });
                if let Some(truncation) = cut {
                    emit(
                        cancel,
                        tx,
                        Event::Error(Failure::prompt_too_long(truncation.message(self.toolbox.provider.name()))),
                    );
                    return self.finish(conversation, Stop::Failed);
                }
                turn.usage
            };
            self.record_usage(conversation, covered, &turn_usage);
            if !turn.dropped_tool_calls.is_empty() {
                let names = turn.dropped_tool_calls.join(", ");
                emit(
                    cancel,
                    tx,
                    Event::Notice(format!("the output limit cut off a tool call ({names}); it was not run")),
                );
            }
            if turn.calls.is_empty() {
                let text = if turn.text.trim().is_empty() { "(task complete)".to_string() } else { turn.text };
                let mut message = Message::assistant(text);
                message.thinking = turn.thinking;
                self.push(conversation, cancel, tx, message);
                if turn.dropped_tool_calls.is_empty() {
                    if !self.settings.turn_hooks || hooks.is_empty_for(crate::config::HookEvent::Stop) {
                        return Stop::Completed;
                    }
                    let outcome = hooks.stop(stop_hook_blocked, cancel);
                    let blocked = report_hook(&outcome, cancel, tx, &mut hook_context);
                    // `continue: false` lets the run end even when a hook asked to go on.
                    let (Some(reason), None) = (blocked, &outcome.stop) else {
                        return Stop::Completed;
                    };
                    // A Stop hook that exits 2 sends the model back to work with its reason.
                    stop_hook_blocked = true;
                    self.push(conversation, cancel, tx, Message::user(format!("[Stop hook] {reason}")));
                    continue;
                }
                // The model meant to act but its call was truncated: tell it and go on, rather
                // than ending the task on a half-written call it never saw fail.
                self.push(
                    conversation,
                    cancel,
                    tx,
                    Message::user(format!(
                        "[mewcode] Your tool call ({}) was cut off by the output token limit and was not run. \
                     Retry it in smaller pieces (for example, write a large file in several edits).",
                        turn.dropped_tool_calls.join(", ")
                    )),
                );
                continue;
            }
            let all_unknown = turn.calls.iter().all(|call| self.registry.get(&call.name).is_none());
            unknown_run = if all_unknown { unknown_run + 1 } else { 0 };
            let mut message = Message::assistant(turn.text);
            message.tool_calls = turn.calls.clone();
            message.thinking = turn.thinking;
            self.push(conversation, cancel, tx, message);
            let mut hook_stop = None;
            let (results, completed) =
                self.execute_calls(&turn.calls, mode, cancel, tx, &mut hook_context, &mut hook_stop);
            self.push(conversation, cancel, tx, Message::tool_results(results));
            if !completed || cancel.is_cancelled() {
                return self.finish(conversation, Stop::Cancelled);
            }
            if let Some(reason) = hook_stop {
                // A tool hook answered `continue: false`: the run ends here.
                emit(cancel, tx, Event::Error(Failure::hook(format!("denied by hook: the run was stopped: {reason}"))));
                return self.finish(conversation, Stop::Failed);
            }
            if unknown_run >= self.settings.unknown_tool_limit {
                let notice =
                    format!("stopped: the model asked only for tools that do not exist {unknown_run} times in a row");
                emit(cancel, tx, Event::Notice(notice));
                return self.finish(conversation, Stop::UnknownTools);
            }
        }
        let notice = format!("stopped: reached the limit of {} iterations", self.settings.max_iterations);
        emit(cancel, tx, Event::Notice(notice));
        self.finish(conversation, Stop::IterationLimit)
    }

    /// The system prompt of every request: this agent's stable part, the toolbox's environment.
    fn system(&self) -> System {
        System { stable: self.stable_prompt.clone(), environment: self.toolbox.environment.clone() }
    }

    /// Appends a message to the conversation, then (outside the conversation lock) to the session
    /// log; a log failure is shown once as a notice and the run goes on.
    fn push(&self, conversation: &Conversation, cancel: &CancelToken, tx: &Sender<Event>, message: Message) {
        lock(conversation).push(message.clone());
        if let Some(notice) = self.settings.log.append(&message) {
            emit(cancel, tx, Event::Notice(notice));
        }
    }

    /// Ends an abnormal run: the history must end with an assistant message, logged like any.
    fn finish(&self, conversation: &Conversation, stop: Stop) -> Stop {
        let before = lock(conversation).len();
        let stop = finish(conversation, stop);
        let tail = lock(conversation).get(before..).map(<[Message]>::to_vec).unwrap_or_default();
        for message in &tail {
            // No channel to report on here: a failure first met on this note goes unreported (the
            // push before it would have met it already in all but a freshly broken disk).
            let _ = self.settings.log.append(message);
        }
        stop
    }

    /// Streams one model turn, forwarding text to the front end; returns the completed attempt.
    fn stream_turn(&self, request: Request, cancel: &CancelToken, tx: &Sender<Event>) -> Result<Turn, LlmError> {
        let stream = self.toolbox.provider.stream(request, cancel.clone());
        let mut turn = Turn::default();
        let mut silent_since_cancel = Duration::ZERO;
        loop {
            let event = match stream.recv_timeout(POLL) {
                Ok(event) => event,
                Err(RecvTimeoutError::Timeout) => {
                    // The provider promises a prompt Error(Cancelled); this only guards a
                    // provider that breaks that promise.
                    if cancel.is_cancelled() {
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
                    if !emit(cancel, tx, Event::Text(delta)) {
                        return Err(LlmError::Cancelled);
                    }
                }
                StreamEvent::Thinking(delta) => {
                    turn.output_chars += delta.chars().count() as u64;
                    if !emit(cancel, tx, Event::Thinking(delta)) {
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
                    emit(cancel, tx, Event::Usage { usage, estimated: false });
                }
                StreamEvent::Restart { attempt, reason } => {
                    turn = Turn::default();
                    emit(cancel, tx, Event::Restart { attempt, reason });
                }
                StreamEvent::Retry(notice) => {
                    emit(cancel, tx, Event::Retry(notice));
                }
                StreamEvent::Done(completion) => {
                    turn.thinking = completion.thinking;
                    turn.dropped_tool_calls = completion.dropped_tool_calls;
                    return Ok(turn);
                }
                StreamEvent::Error(err) => return Err(err),
            }
        }
    }
}

/// How often blocking waits wake to look at the cancel token.
const POLL: Duration = Duration::from_millis(25);
/// How long a cancelled run still tries to deliver events (and waits for a silent provider).
const CANCEL_GRACE: Duration = Duration::from_millis(500);

/// One completed model turn.
#[derive(Default)]
struct Turn {
    text: String,
    calls: Vec<ToolCall>,
    thinking: Vec<crate::msg::ThinkingBlock>,
    usage: Usage,
    /// Characters of everything the model produced (text, reasoning, tool calls), for an
    /// estimate when the server sends no usage.
    output_chars: u64,
    dropped_tool_calls: Vec<String>,
}

/// Shows a hook outcome's warnings, keeps its context for the next request, and returns the
/// block reason if a hook blocked.
fn report_hook(
    outcome: &HookOutcome,
    cancel: &CancelToken,
    tx: &Sender<Event>,
    context: &mut Vec<String>,
) -> Option<String> {
    for warning in &outcome.warnings {
        emit(cancel, tx, Event::Notice(format!("hook warning: {warning}")));
    }
    for message in &outcome.messages {
        emit(cancel, tx, Event::Notice(format!("hook: {message}")));
    }
    context.extend(outcome.context.iter().cloned());
    outcome.blocked.clone()
}

/// Ends an abnormal run: the history must end with an assistant message.
fn finish(conversation: &Conversation, stop: Stop) -> Stop {
    let note = match stop {
        Stop::Completed => return stop,
        Stop::Cancelled => "(cancelled by the user)",
        Stop::IterationLimit => "(stopped: iteration limit reached; send a message to continue)",
        Stop::UnknownTools => "(stopped: repeated calls to tools that do not exist)",
        Stop::Failed => "(the request failed; this turn was interrupted)",
    };
    ensure_assistant_tail(&mut lock(conversation), note);
    stop
}

/// Appends an assistant message with `note` unless the history already ends with one.
pub fn ensure_assistant_tail(messages: &mut History, note: &str) {
    if messages.last().is_none_or(|message| message.role != Role::Assistant) {
        messages.push(Message::assistant(note));
    }
}

/// Sends one event, giving up when the receiver is gone, or when the run is cancelled and the
/// receiver does not take the event within a short grace period. Returns false when it gave up.
pub fn emit(cancel: &CancelToken, tx: &Sender<Event>, event: Event) -> bool {
    let mut event = event;
    let mut waited_after_cancel = Duration::ZERO;
    loop {
        match tx.send_timeout(event, POLL) {
            Ok(()) => return true,
            Err(crossbeam_channel::SendTimeoutError::Disconnected(_)) => return false,
            Err(crossbeam_channel::SendTimeoutError::Timeout(back)) => {
                event = back;
                if cancel.is_cancelled() {
                    waited_after_cancel += POLL;
                    if waited_after_cancel >= CANCEL_GRACE {
                        return false;
                    }
                }
            }
        }
    }
}
