//! The ReAct loop: stream a model turn, run the tools it asks for, feed the results back, repeat.
//!
//! Invariant: every exit except a natural finish leaves the history ending with an assistant
//! message (`ensure_assistant_tail`), and tool results are appended even when cancelled, so the
//! next request is always valid for both protocols. The loop runs on one worker thread and talks
//! to its front end only through a rendezvous channel of `Event`s.

mod batch;
mod compact;
pub(crate) mod event;
pub(crate) mod gate;
mod preview;
pub(crate) mod prompt;
mod reminder;
mod run;
pub(crate) mod subagent;
pub(crate) mod toolbox;
pub(crate) mod usage;

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
use crate::mode::Mode;
use crate::msg::{History, Message, Role, System};
pub(crate) use crate::sync::lock;
use crate::tools::{ReadTracker, Registry};
use crossbeam_channel::{Receiver, Sender, bounded};
pub(crate) use event::{Approval, ApprovalRequest, CompactPhase, Event, Failure, Stop};
pub(crate) use gate::{EngineGate, Gate, Verdict};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
pub(crate) use toolbox::Toolbox;

/// The default iteration cap of a main run (SPEC §3); `--max-iterations` sets another.
pub(crate) const MAX_ITERATIONS: u32 = 25;
/// Consecutive all-unknown-tool iterations that stop a main run.
pub(crate) const UNKNOWN_TOOL_LIMIT: u32 = 3;

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
    /// Starts one run (one user turn) on `prompt` on a worker thread: the agent appends the
    /// prompt to the conversation and its log (after the UserPromptSubmit hooks let it through),
    /// then everything the turn adds; front ends only submit and render. The returned channel
    /// is rendezvous (`bounded(0)`): the agent never runs ahead of what the front end has taken.
    /// `Done` is the last event; a front end that sees the channel close without it treats the
    /// run as cancelled.
    pub fn run(
        self: &Arc<Self>,
        conversation: Conversation,
        prompt: String,
        mode: Mode,
        cancel: CancelToken,
    ) -> Receiver<Event> {
        // Capacity 0: strong back-pressure, the user sees every event before the next happens.
        let (events_tx, events_rx) = bounded(0);
        let agent = Arc::clone(self);
        // If the thread cannot start, the closure (and the sender) is dropped: the front end sees
        // the channel close at once, which it treats as a run that did not happen.
        let _ = std::thread::Builder::new().name("agent".into()).spawn(move || {
            // Between turns, never within one: tool sources (MCP servers whose tool list
            // changed) are asked again here, so every batch of this turn sees one list.
            agent.registry.refresh();
            if agent.settings.turn_hooks {
                // A user turn (not a sub-agent's run inside one): today's date and git state.
                agent.toolbox.environment.refresh();
            }
            let stop = agent.run_loop(&conversation, prompt, mode, &cancel, &events_tx);
            emit(&cancel, &events_tx, Event::Done(stop));
        });
        events_rx
    }

    fn run_loop(
        &self,
        conversation: &Conversation,
        prompt: String,
        mode: Mode,
        cancel: &CancelToken,
        tx: &Sender<Event>,
    ) -> Stop {
        let stop = run::Run::new(self, conversation, mode, cancel, tx).turns(prompt);
        self.finish(conversation, stop)
    }

    /// The system prompt of every request: this agent's stable part, the toolbox's environment.
    fn system(&self) -> System {
        System { stable: self.stable_prompt.clone(), environment: self.toolbox.environment.text() }
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
}

/// How often blocking waits wake to look at the cancel token.
const POLL: Duration = Duration::from_millis(25);
/// How long a cancelled run still tries to deliver events (and waits for a silent provider).
const CANCEL_GRACE: Duration = Duration::from_millis(500);

/// Shows a hook outcome's warnings, keeps its context for the next request, and returns the
/// block reason if a hook blocked.
fn report_hook(
    outcome: &HookOutcome,
    cancel: &CancelToken,
    tx: &Sender<Event>,
    context: &mut Vec<String>,
) -> Option<String> {
    show_hook_notes(outcome, cancel, tx);
    context.extend(outcome.context.iter().cloned());
    outcome.blocked.clone()
}

/// A hook outcome's warnings and messages, as notices for the person.
fn show_hook_notes(outcome: &HookOutcome, cancel: &CancelToken, tx: &Sender<Event>) {
    for warning in &outcome.warnings {
        emit(cancel, tx, Event::Notice(format!("hook warning: {warning}")));
    }
    for message in &outcome.messages {
        emit(cancel, tx, Event::Notice(format!("hook: {message}")));
    }
}

/// Why a hook's `continue: false` stopped the run (after the `denied by hook:` prefix).
fn hook_stopped(reason: &str) -> String {
    format!("the run was stopped: {reason}")
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

/// Appends an assistant message with `note` unless the history is empty or already ends with one.
fn ensure_assistant_tail(messages: &mut History, note: &str) {
    // An empty history is valid as it is (a prompt a hook blocked was taken back out).
    if messages.last().is_some_and(|message| message.role != Role::Assistant) {
        messages.push(Message::assistant(note));
    }
}

/// Sends one event, giving up when the receiver is gone, or when the run is cancelled and the
/// receiver does not take the event within a short grace period. Returns false when it gave up.
pub(crate) fn emit(cancel: &CancelToken, tx: &Sender<Event>, event: Event) -> bool {
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
