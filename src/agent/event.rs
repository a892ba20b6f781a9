//! The closed set of events the agent sends its front end, and the approval handshake.
//!
//! Invariant: front ends match these exhaustively; `Done` is always the last event of a run and
//! is sent exactly once (unless the receiver is gone). `Notice` is UI-only and never enters history.

use crate::context::Trigger;
use crate::llm::{ErrorKind, LlmError, RetryNotice, error::is_retryable};
use crate::msg::{Message, ToolCall, Usage};
use crate::permission::network::{HostAnswer, HostQuestion};
use crossbeam_channel::Sender;
use std::sync::Arc;
use std::time::Duration;

/// One thing that happened during a run, in order.
#[derive(Debug)]
pub enum Event {
    /// Iteration `n` (1-based) begins.
    Iter(u32),
    /// A fragment of the answer text.
    Text(String),
    /// A fragment of reasoning, for display only.
    Thinking(String),
    /// The provider abandoned a broken attempt and starts again: drop the partial text shown
    /// since the last `Iter` (and mark it as abandoned). `restart` of `max` (the retry policy's
    /// restart budget): the numbers to show.
    Restart { restart: u32, max: u32, reason: String },
    /// A model request failed before any output and is sent again after a wait: show what
    /// happened and when (nothing to drop).
    Retry(RetryNotice),
    /// A tool call starts. `preview` is a one-line summary of its arguments, `input` the
    /// arguments as the model sent them (JSON text), `live` the last lines of its output while
    /// it runs (a command's; empty for tools that print nothing as they go).
    ToolStart { id: String, name: String, preview: String, input: String, live: crate::tools::LiveTail },
    /// A tool call ended. `preview` is the first line(s) of its result, `output` all of it.
    ToolEnd {
        id: String,
        name: String,
        preview: String,
        output: String,
        is_error: bool,
        /// Who refused the call, when it did not run because of a refusal (its `output` then
        /// starts with that refusal's prefix).
        refused_by: Option<crate::permission::RefusedBy>,
        elapsed: Duration,
        /// True when a person approved the call at the prompt (and so saw its diff there).
        approved_by_user: bool,
        /// What the call changed, when it was a successful call of a tool that writes the file at
        /// its `path` (`ToolKind::WritesPath`: write_file, edit_file). Boxed: most calls have none.
        change: Option<Box<FileChange>>,
    },
    /// Token usage of the last model response; `estimated` when the server sent none and the
    /// figures were estimated from characters (shown with a `~`). `compaction`: the response was
    /// a summary request's, which costs like any other but says nothing of the conversation's
    /// size.
    Usage { usage: Usage, estimated: bool, compaction: bool },
    /// Something the user should know that is not part of the conversation.
    Notice(String),
    /// A call needs the human's decision; answer on `respond` (capacity 1). Boxed: the request
    /// is the largest payload, and approvals are rare.
    Approval(Box<ApprovalRequest>),
    /// A command wants to reach a host the network policy asks about, and waits: answer on
    /// `respond` (capacity 1). A front end that cannot ask (`-p`) answers `Deny` and lists it.
    HostQuestion(Box<HostRequest>),
    /// A compaction started, finished or failed (SPEC §6).
    Compact(CompactPhase),
    /// The run failed (stream or infrastructure error, or a hook stopped it);
    /// `Done { stop: Stop::Failed, .. }` follows.
    Error(Failure),
    /// The run is over: why, and the answer — the last text the model wrote in this run (the
    /// final answer when `stop` is `Completed`, its last words otherwise; empty when it wrote
    /// none, or the run never reached it).
    Done { stop: Stop, answer: String },
}

/// What a successful write or edit did to its file, for the front ends to show: the REPL prints
/// the diff under the tool's line, stream-json's `tool_end` carries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileChange {
    /// The path as the tools show it (relative to the project root when inside it).
    pub path: String,
    /// The file did not exist before (or was not a regular file); otherwise it was overwritten.
    pub created: bool,
    /// Lines the change added.
    pub lines_added: usize,
    /// Lines the change removed.
    pub lines_removed: usize,
    /// The unified diff (`a/PATH` or `/dev/null`, `b/PATH`, 3 lines of context). A diff over
    /// about 256 KiB is cut at a line and ends with a line `… diff cut at 256 KiB: N more lines`.
    /// Empty when nothing changed, or when `summary` stands in for it.
    pub diff: String,
    /// One line in place of a diff, for a binary file or one too large to diff (over 1 MiB
    /// before or after): `binary file: 12 B → 14 B`.
    pub summary: Option<String>,
}

/// The lifecycle of one compaction: `Started`, then `Finished` or `Failed`.
#[derive(Debug)]
pub enum CompactPhase {
    /// A summary is being made (the model is asked; this takes a while).
    Started { trigger: Trigger },
    /// The history was replaced by `history` (summary + recovery attachment + recent tail).
    /// A session log appends its compact marker and then these messages.
    Finished { trigger: Trigger, before_tokens: u64, after_tokens: u64, history: Arc<Vec<Message>> },
    /// The compaction failed; the history is unchanged.
    Failed { trigger: Trigger, reason: String },
}

impl CompactPhase {
    /// One line for the user.
    pub(crate) fn describe(&self) -> String {
        match self {
            CompactPhase::Started { trigger } => format!("compacting the conversation ({})...", trigger.as_str()),
            CompactPhase::Finished { before_tokens, after_tokens, .. } => {
                format!("compacted the conversation: about {before_tokens} -> {after_tokens} tokens")
            }
            CompactPhase::Failed { trigger, reason } => format!("compaction ({}) failed: {reason}", trigger.as_str()),
        }
    }
}

/// Why a run failed, for people (`message`, one line) and scripts (`-p` json `error`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub kind: FailureKind,
    pub message: String,
    /// What to do about it, when known.
    pub fix: Option<String>,
    /// The same run may succeed if started again unchanged.
    pub retryable: bool,
}

/// What failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureKind {
    /// The model call (or a context limit it reported), by the typed error's kind.
    Llm(ErrorKind),
    /// A hook blocked the prompt or stopped the run.
    Hook,
    /// The agent itself failed (a bug): the turn was closed, the conversation kept.
    Internal,
}

impl FailureKind {
    /// The stable name scripts read (`auth`, `rate_limit`, …, `hook`).
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Llm(kind) => kind.as_str(),
            FailureKind::Hook => "hook",
            FailureKind::Internal => "internal",
        }
    }
}

impl Failure {
    /// A failed model call: kind, fix and retryability all come from the typed error.
    pub(crate) fn from_llm(error: &LlmError) -> Failure {
        Failure {
            kind: FailureKind::Llm(error.kind()),
            message: error.to_string(),
            fix: error.fix(),
            retryable: is_retryable(error),
        }
    }

    /// A prompt that cannot be made to fit (compaction failed, or the server cut it silently).
    pub fn prompt_too_long(message: String) -> Failure {
        Failure { kind: FailureKind::Llm(ErrorKind::PromptTooLong), message, fix: None, retryable: false }
    }

    /// A hook refused the prompt or stopped the run.
    pub fn hook(message: String) -> Failure {
        Failure { kind: FailureKind::Hook, message, fix: None, retryable: false }
    }

    /// The agent failed on a bug of its own (a panic in the loop).
    pub(crate) fn internal(message: &str) -> Failure {
        Failure { kind: FailureKind::Internal, message: message.to_string(), fix: None, retryable: false }
    }

    /// The user interrupted the run (there is no `Error` event for that; front ends that report
    /// failures uniformly use this).
    pub fn cancelled() -> Failure {
        Failure::from_llm(&LlmError::Cancelled)
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Why a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The model answered without asking for tools.
    Completed,
    /// The user interrupted.
    Cancelled,
    /// The iteration cap was reached.
    IterationLimit,
    /// Several consecutive iterations asked only for tools that do not exist.
    UnknownTools,
    /// A stream or infrastructure error ended the run.
    Failed,
}

impl Stop {
    /// The stable name used in `-p` JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            Stop::Completed => "completed",
            Stop::Cancelled => "cancelled",
            Stop::IterationLimit => "iteration_limit",
            Stop::UnknownTools => "unknown_tools",
            Stop::Failed => "error",
        }
    }
}

/// A request for the human's decision on one call.
#[derive(Debug)]
pub struct ApprovalRequest {
    pub call: ToolCall,
    /// The tool's friendly (rule) name, e.g. `Bash`.
    pub rule_name: String,
    /// Why the engine asks.
    pub reason: String,
    /// What answering "always" does for this call (the question says it).
    pub always: super::gate::Always,
    pub respond: Sender<Approval>,
}

/// A question about a host, from a command's connection (`permission::network`).
#[derive(Debug)]
pub struct HostRequest {
    pub question: HostQuestion,
    pub respond: Sender<HostAnswer>,
}

/// The human's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Approval {
    /// `y`: allow this call once.
    Once,
    /// `a`: allow it, and what the request's `always` says (save exact rules, or allow file
    /// edits for the session).
    Always,
    /// `n`: refuse.
    Deny,
    /// `t`: refuse, and tell the model what to do instead. The text (one line the person typed,
    /// never empty) becomes the refusal the model reads: `denied by user: <text>`.
    Redirect(String),
}

#[cfg(test)]
#[path = "event_tests.rs"]
mod tests;
