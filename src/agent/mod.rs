//! The ReAct loop: stream a model turn, run the tools it asks for, feed the results back, repeat.
//!
//! Invariant: every exit except a natural finish leaves the history ending with an assistant
//! message (`close`), and tool results are appended even when cancelled, so the next request is
//! always valid for both protocols. The loop runs on one worker thread that owns the
//! `Conversation` for the run, and talks to its front end only through a rendezvous channel of
//! `Event`s; the front end gets the conversation back when the run ends.
//!
//! - `mod.rs` — `Agent`, its `Settings` and `FrontEnd`, starting a run on its worker (`Running`),
//!   closing it, and the run's `Outbox`
//! - `run.rs` — `Run`, what one run carries, and its loop: submit, query, act
//! - `compact.rs` — context management as steps of the run, and the manual `/compact` run
//! - `batch.rs` — tool execution as a step of the run: batches, hooks, gate, approval
//! - `freshness.rs` — read before write: a file's write refused unless its content was seen
//! - `change.rs` — what a write or edit changed: its diff, or a summary
//! - `conversation.rs` — the history, its session log and what context management keeps for it
//! - `event.rs` — the closed `Event` enum front ends match, and the approval handshake
//! - `gate.rs` — the port to the permission system (`Gate`, `EngineGate`)
//! - `toolbox.rs` — model, gate, hooks and environment shared with sub-agents
//! - `subagent.rs` — the `task` tool: a read-only sub-agent run
//! - `prompt.rs` — the stable system prompt (full and lean), instruction files and the environment part
//! - `prompt_skills.rs` — the skills section of the stable prompt: names and descriptions, full and lean
//! - `lean.rs` — the lean request for small windows: when, and what it leaves out
//! - `imports.rs` — `@path` imports in instruction files: a project's from inside it, the user's own
//!   from the home directory and `$MEWCODE_HOME`, never a secret
//! - `reminder.rs` — the per-iteration reminder after the history
//! - `usage.rs` — estimated usage and the silent-truncation check
//! - `preview.rs` — one-line previews of arguments and results
//! - `test_gate.rs` — (tests) the mode matrix alone, as a gate; each `x.rs` has its `x_tests.rs`

mod batch;
mod change;
mod compact;
pub(crate) mod conversation;
pub(crate) mod event;
mod freshness;
pub(crate) mod gate;
mod imports;
mod lean;
mod preview;
pub(crate) mod prompt;
pub(crate) mod prompt_skills;
mod reminder;
mod run;
pub(crate) mod subagent;
pub(crate) mod toolbox;
pub(crate) mod usage;

#[cfg(test)]
mod test_gate;

use crate::cancel::CancelToken;
use crate::mode::Mode;
use crate::msg::{Message, Prompt, Role, System, ToolDefinition};
pub(crate) use crate::sync::lock;
use crate::tools::Registry;
pub(crate) use conversation::Conversation;
use crossbeam_channel::{Receiver, Sender, bounded};
pub(crate) use event::{
    Approval, ApprovalRequest, CompactPhase, Event, Failure, FailureKind, FileChange, HostRequest, Stop,
};
pub(crate) use gate::{EngineGate, Gate, Verdict};
pub(crate) use lean::{Lean, LeanWhen};
pub(crate) use preview::{arguments as call_preview, result as result_preview};
use std::path::PathBuf;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;
pub(crate) use toolbox::Toolbox;

/// The default iteration cap of a main run (SPEC §3); `--max-iterations` sets another.
pub(crate) const MAX_ITERATIONS: u32 = 25;
/// Consecutive all-unknown-tool iterations that stop a main run.
pub(crate) const UNKNOWN_TOOL_LIMIT: u32 = 3;

/// Limits and switches of one agent.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The project root tools work in.
    pub root: PathBuf,
    /// Iteration cap for one run.
    pub max_iterations: u32,
    /// Consecutive all-unknown-tool iterations that stop a run (sub-agents: 2).
    pub unknown_tool_limit: u32,
    /// Who answers an Ask: a person at the REPL; in -p mode and for sub-agents nobody, and an
    /// Ask becomes a "needs approval:" denial.
    pub front_end: FrontEnd,
    /// True when UserPromptSubmit and Stop hooks fire around a run: a main agent's turn. False
    /// for sub-agents, whose run is one tool call of the parent (its Pre/PostToolUse hooks fire
    /// around it); their own tool calls get Pre/PostToolUse all the same.
    pub turn_hooks: bool,
    /// What the checkpoints of this agent's conversations cover (SPEC: never lose the user's
    /// work): the state of these roots is recorded before the first change of every turn. None
    /// for sub-agents (read-only) and where no session is kept.
    pub checkpoints: Option<crate::checkpoint::Coverage>,
    /// When requests are lean (small windows) and what a lean one carries instead.
    pub lean: Lean,
    /// Why images do not go to this agent's model (`ProviderConfig::image_refusal`), or None
    /// when they do; tools see it on their context.
    pub image_refusal: Option<String>,
}

/// The front end an agent's runs report to, which decides what a call that needs approval
/// becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrontEnd {
    /// The REPL: a person answers each Ask at the prompt.
    Repl,
    /// `-p` and `task` sub-agents: nobody to ask, so an Ask is a refusal that names the mode or
    /// the allow rule that would let the call run.
    Headless,
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
    /// Context management's settings: window, thresholds, sessions directory (the state it
    /// keeps between runs is the conversation's).
    pub context: crate::context::ContextConfig,
}

/// A run in progress: its events, then the conversation back.
pub struct Running {
    events: Receiver<Event>,
    /// The worker, which gives the conversation back when it ends; the conversation itself when
    /// no worker could start.
    worker: Result<JoinHandle<Conversation>, Conversation>,
}

impl Running {
    /// The run's events, `Done` last. A channel that closes without `Done` is a run that was cut
    /// short (cancelled).
    pub fn events(&self) -> &Receiver<Event> {
        &self.events
    }

    /// Waits for the run to end and takes the conversation back, with everything the run added.
    /// A front end that leaves (the user quit while the run wound down) drops the `Running`
    /// instead: every message is already in the session log.
    pub fn finish(self) -> Conversation {
        match self.worker {
            // The worker catches panics of the loop, so a join error is not expected; if one
            // came, the conversation went with the thread.
            Ok(worker) => worker.join().unwrap_or_default(),
            Err(conversation) => conversation,
        }
    }
}

impl Agent {
    /// Starts one run (one user turn) on `prompt` on a worker thread, which owns `conversation`
    /// until the run ends (`Running::finish` gives it back): the agent appends the prompt to the
    /// conversation and its log (after the UserPromptSubmit hooks let it through), then
    /// everything the turn adds; front ends only submit and render. The event channel is
    /// rendezvous (`bounded(0)`): the agent never runs ahead of what the front end has taken.
    /// `Done` is the last event and carries the answer.
    pub fn run(
        self: &Arc<Self>,
        conversation: Conversation,
        prompt: impl Into<Prompt>,
        mode: Mode,
        cancel: CancelToken,
    ) -> Running {
        let agent = Arc::clone(self);
        let prompt = prompt.into();
        self.spawn("agent", conversation, cancel, move |conversation, outbox| {
            // Between turns, never within one: tool sources (MCP servers whose tool list
            // changed) are asked again here, so every batch of this turn sees one list.
            agent.registry.refresh();
            if agent.settings.turn_hooks {
                // A user turn (not a sub-agent's run inside one): today's date and git state.
                agent.toolbox.environment.refresh();
            }
            if let Some(coverage) = &agent.settings.checkpoints {
                conversation.open_checkpoints(coverage);
            }
            let (stop, answer) = run::Run::new(&agent, conversation, mode, outbox).turns(prompt);
            if let Some(notice) = close(conversation, stop) {
                outbox.notice(notice);
            }
            // The turn's after-state, also when it was cancelled or failed part-way: what it
            // changed is then known, and the hand changes of the next pause are told apart.
            if let Some(checkpoints) = conversation.checkpoints() {
                if let Err(problem) = checkpoints.end_turn() {
                    outbox.notice(format!("checkpoint after the turn failed: {problem}"));
                }
                // What the checkpoints do not cover (a writable root too big to record), once.
                for note in checkpoints.notes() {
                    outbox.notice(note);
                }
            }
            Event::Done { stop, answer }
        })
    }

    /// Runs `work` on a worker thread that owns `conversation`, then sends the event it returns
    /// (`Done`). A panic in `work` is a failed run: the conversation is closed and given back as
    /// for any failure, never lost with the thread.
    fn spawn(
        &self,
        name: &str,
        conversation: Conversation,
        cancel: CancelToken,
        work: impl FnOnce(&mut Conversation, &Outbox) -> Event + Send + 'static,
    ) -> Running {
        // Capacity 0: strong back-pressure, the user sees every event before the next happens.
        let (events_tx, events) = bounded(0);
        // The conversation goes to the worker only once it runs: if no thread can start, the
        // front end keeps it (and sees the channel close at once, a run that did not happen).
        let (handover_tx, handover) = bounded::<Conversation>(1);
        let spawned = std::thread::Builder::new().name(name.into()).spawn(move || {
            let mut conversation = handover.recv().unwrap_or_default();
            let questions = std::sync::Arc::new(std::sync::Mutex::new(Some(events_tx.clone())));
            let outbox = Outbox { events_tx, cancel, questions };
            let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(&mut conversation, &outbox)));
            let done = caught.unwrap_or_else(|_| {
                let failure = Failure::internal("the agent stopped on an internal error (a bug); the turn was closed");
                outbox.emit(Event::Error(failure));
                // No notice of a failing log here: the failure itself was just said.
                let _ = close(&mut conversation, Stop::Failed);
                Event::Done { stop: Stop::Failed, answer: String::new() }
            });
            outbox.emit(done);
            // A background job of this run may still ask about a host: nobody will answer now,
            // and the front end must see the channel close.
            *crate::sync::lock(&outbox.questions) = None;
            conversation
        });
        let worker = match spawned {
            Ok(worker) => {
                // The worker waits for it; it cannot be gone before it took it.
                let _ = handover_tx.send(conversation);
                Ok(worker)
            }
            Err(_) => Err(conversation),
        };
        Running { events, worker }
    }

    /// True when the next request is lean: decided from the window the agent has now.
    pub(crate) fn is_lean(&self) -> bool {
        self.settings.lean.applies(self.context.window)
    }

    /// The system prompt of every request: this agent's stable part (lean or full), the
    /// toolbox's environment.
    pub(crate) fn system(&self) -> System {
        let stable = if self.is_lean() { &self.settings.lean.prompt } else { &self.stable_prompt };
        System { stable: stable.clone(), environment: self.toolbox.environment.text() }
    }

    /// The tools offered in `mode` (plan: read-only only), in the lean or the full form.
    pub(crate) fn tools_for(&self, mode: Mode) -> Vec<ToolDefinition> {
        let read_only = mode == Mode::Plan;
        if self.is_lean() {
            self.registry.lean_definitions(read_only, &self.settings.lean.left_out())
        } else if read_only {
            self.registry.read_only_definitions()
        } else {
            self.registry.definitions()
        }
    }
}

/// How often blocking waits wake to look at the cancel token.
const POLL: Duration = Duration::from_millis(25);
/// How long a cancelled run still tries to deliver events (and waits for a silent provider).
const CANCEL_GRACE: Duration = Duration::from_millis(500);

/// Why a hook's `continue: false` stopped the run (after the `denied by hook:` prefix).
fn hook_stopped(reason: &str) -> String {
    format!("the run was stopped: {reason}")
}

/// What the conversation says of a turn the person cancelled.
const CANCELLED_NOTE: &str = "(cancelled by the user)";

/// The notice of a run stopped by the iteration cap of `max` iterations (the `-p` front end says
/// the cap in its own stop line instead, with the way on).
pub(crate) fn cap_notice(max: u32) -> String {
    format!("stopped: reached the limit of {max} iterations")
}

/// The assistant note that closes a run that ended with `stop`; none for a natural finish.
fn tail_note(stop: Stop) -> Option<&'static str> {
    match stop {
        Stop::Completed => None,
        Stop::Cancelled => Some(CANCELLED_NOTE),
        Stop::IterationLimit => Some("(stopped: iteration limit reached; send a message to continue)"),
        Stop::UnknownTools => Some("(stopped: repeated calls to tools that do not exist)"),
        Stop::Failed => Some("(the request failed; this turn was interrupted)"),
    }
}

/// Closes a run that ended with `stop`: after an abnormal stop the history must end with an
/// assistant message, appended and logged like any. Returns the log's notice if it failed.
fn close(conversation: &mut Conversation, stop: Stop) -> Option<String> {
    let note = tail_note(stop)?;
    let needed = conversation.history().last().is_some_and(|message| message.role != Role::Assistant);
    // An empty history is valid as it is (a prompt a hook blocked never entered it).
    if needed { conversation.push(Message::assistant(note)) } else { None }
}

/// The run's end of the event channel, with the run's cancel token: every step of a run sends
/// through it, so none has to carry the two apart.
pub(super) struct Outbox {
    events_tx: Sender<Event>,
    /// The run's cancel token: a cancelled run stops waiting for a front end that does not take
    /// its events, and its blocking steps look at it.
    pub(super) cancel: CancelToken,
    /// The way a command's question about a host reaches the front end, while the run lasts
    /// (None after): held by commands' proxies, which may outlive the run (background jobs).
    questions: std::sync::Arc<std::sync::Mutex<Option<Sender<Event>>>>,
}

impl Outbox {
    /// Sends one event, giving up when the receiver is gone, or when the run is cancelled and the
    /// receiver does not take the event within a short grace period. Returns false when it gave
    /// up.
    pub(super) fn emit(&self, event: Event) -> bool {
        let mut event = event;
        let mut waited_after_cancel = Duration::ZERO;
        loop {
            match self.events_tx.send_timeout(event, POLL) {
                Ok(()) => return true,
                Err(crossbeam_channel::SendTimeoutError::Disconnected(_)) => return false,
                Err(crossbeam_channel::SendTimeoutError::Timeout(back)) => {
                    event = back;
                    if self.cancel.is_cancelled() {
                        waited_after_cancel += POLL;
                        if waited_after_cancel >= CANCEL_GRACE {
                            return false;
                        }
                    }
                }
            }
        }
    }

    /// Something the user should know that is not part of the conversation.
    pub(super) fn notice(&self, text: String) {
        self.emit(Event::Notice(text));
    }

    /// How a command of this run asks the person about a host: an event, then the answer (or
    /// a cancel). After the run (a background job's later connection) nobody is asked.
    pub(super) fn host_asker(&self) -> crate::permission::network::HostAsk {
        use crate::permission::network::{HostAnswer, HostAsk};
        let (questions, cancel) = (std::sync::Arc::clone(&self.questions), self.cancel.clone());
        HostAsk::new(move |question| {
            let Some(events) = crate::sync::lock(&questions).clone() else { return HostAnswer::Unasked };
            // Capacity 1: the front end can answer without blocking even if we stopped waiting.
            let (respond, answer) = crossbeam_channel::bounded(1);
            let request = Event::HostQuestion(Box::new(HostRequest { question: question.clone(), respond }));
            if events.send_timeout(request, CANCEL_GRACE).is_err() {
                return HostAnswer::Unasked;
            }
            drop(events);
            loop {
                match answer.recv_timeout(POLL) {
                    Ok(answer) => return answer,
                    Err(crossbeam_channel::RecvTimeoutError::Timeout) if !cancel.is_cancelled() => {}
                    Err(_) => return HostAnswer::Unasked,
                }
            }
        })
    }
}

#[cfg(test)]
mod tests;
