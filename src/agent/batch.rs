//! Ordered batched execution of one turn's tool calls (SPEC §3).
//!
//! Invariant: results pair with call ids in the request order. A maximal run of consecutive
//! read-only calls is one batch: decisions first, in order; then every Start; then the allowed
//! calls concurrently (each into its own slot); then every End in order. A mutating call runs
//! alone. Denials are error results and never stop the batch. This is the only path a tool call
//! takes, for main agents and `task` sub-agents alike; its policy (gate, hooks) is the agent's
//! `Toolbox`, which a sub-agent shares with its parent. Execution is a method of the `Run`: the
//! hook trail, the outbox and the conversation's session are the run's.

use super::freshness::{Guarded, execute_guarded};
use super::gate::Always;
use super::run::Run;
use super::{Agent, Approval, ApprovalRequest, Event, FrontEnd, POLL, Verdict, preview};
use crate::checks::Checks;
use crate::msg::{ToolCall, ToolResult};
use crate::permission::RefusedBy;
use crate::permission::rules::Level;
use crate::tools::{LiveTail, Tool, ToolContext, ToolOutput};
use crossbeam_channel::{RecvTimeoutError, bounded};
use std::ops::Range;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Splits calls into batches: consecutive read-only calls together, every other call alone.
fn plan_batches(read_only: &[bool]) -> Vec<Range<usize>> {
    let mut batches = Vec::new();
    let mut start = 0;
    while start < read_only.len() {
        let mut end = start + 1;
        if read_only[start] {
            while end < read_only.len() && read_only[end] {
                end += 1;
            }
        }
        batches.push(start..end);
        start = end;
    }
    batches
}

/// Why a call did not run when a hook answered `continue: false` before it.
const NOT_RUN_AFTER_HOOK_STOP: &str = "not run, a hook stopped the run";

/// What phase 1 decided for one call.
enum CallPlan {
    /// Run it; `approved_by_user` is true when a person said yes at the prompt.
    Run { tool: Arc<dyn Tool>, approved_by_user: bool },
    /// Not run: `message` is the result; `by` says who refused it (None: nobody did, the call
    /// could not run, e.g. an unknown tool).
    Refused { by: Option<RefusedBy>, message: String },
}

impl CallPlan {
    fn refused(by: RefusedBy, reason: &str) -> CallPlan {
        CallPlan::Refused { by: Some(by), message: by.text(reason) }
    }
}

impl Run<'_> {
    /// Runs the calls; returns one result per call (in call order) and false when the run was
    /// cancelled part-way (the remaining calls then carry "cancelled" results).
    pub(super) fn execute_calls(&mut self, calls: &[ToolCall]) -> (Vec<ToolResult>, bool) {
        let registry = &self.agent.registry;
        // Unknown tools count as read-only here: they run nothing and only produce an error.
        let read_only: Vec<bool> =
            calls.iter().map(|call| registry.get(&call.name).is_none_or(|tool| tool.read_only())).collect();
        let mut outputs: Vec<Option<ToolOutput>> = vec![None; calls.len()];
        let mut completed = true;
        for batch in plan_batches(&read_only) {
            if self.outbox.cancel.is_cancelled() {
                completed = false;
                break;
            }
            if self.hooks.stop.is_some() {
                break;
            }
            let decisions: Vec<CallPlan> = batch.clone().map(|index| self.decide(&calls[index])).collect();
            // Whether each call runs, and who refused it if it does not.
            let marks: Vec<(bool, Option<RefusedBy>)> = decisions
                .iter()
                .map(|decision| match decision {
                    CallPlan::Refused { by, .. } => (false, *by),
                    CallPlan::Run { .. } => (true, None),
                })
                .collect();
            if decisions.iter().any(|decision| matches!(decision, CallPlan::Run { tool, .. } if !tool.read_only())) {
                self.checkpoint_before_change();
            }
            // Each call's output as it comes, for the front end's live view.
            let tails: Vec<LiveTail> = batch.clone().map(|_| LiveTail::new()).collect();
            completed &= self.announce(&calls[batch.clone()], &tails);
            let ctx = self.tool_context();
            let timed = run_batch(&calls[batch.clone()], decisions, &ctx, &self.agent.toolbox.checks, &tails);
            for (offset, Ran { output, elapsed, approved_by_user, change }) in timed.into_iter().enumerate() {
                let call = &calls[batch.start + offset];
                let (ran, refused_by) = marks[offset];
                if ran {
                    self.post_tool_use(call, &output);
                }
                let end = Event::ToolEnd {
                    id: call.id.clone(),
                    name: call.name.clone(),
                    preview: preview::result(&output.content),
                    output: output.content.clone(),
                    is_error: output.is_error,
                    refused_by,
                    elapsed,
                    approved_by_user,
                    change,
                };
                outputs[batch.start + offset] = Some(output);
                completed &= self.emit(end);
            }
            if !completed {
                break;
            }
        }
        let results = calls
            .iter()
            .zip(outputs)
            .map(|(call, output)| {
                let output = output.unwrap_or_else(|| match self.hooks.stop {
                    Some(_) => ToolOutput::error(RefusedBy::Hook.text(NOT_RUN_AFTER_HOOK_STOP)),
                    None => ToolOutput::error("cancelled by the user before this call ran"),
                });
                ToolResult {
                    tool_call_id: call.id.clone(),
                    content: output.content,
                    is_error: output.is_error,
                    images: output.images,
                }
            })
            .collect();
        (results, completed)
    }

    /// Before the first call of the turn that may change files: the state of everything the
    /// turn may change is recorded (once per turn; later calls cost nothing). A checkpoint that
    /// fails does not stop the work, but the person is told that this turn cannot be rewound.
    fn checkpoint_before_change(&self) {
        if let Some(checkpoints) = self.conversation.checkpoints()
            && let Err(problem) = checkpoints.before_change()
        {
            self.notice(format!("checkpoint failed: {problem}; this turn's changes cannot be rewound"));
        }
    }

    /// What every tool call of this run runs with.
    fn tool_context(&self) -> ToolContext {
        ToolContext {
            root: self.agent.settings.root.clone(),
            cancel: self.outbox.cancel.clone(),
            session_id: self.conversation.session_id().to_string(),
            reads: self.conversation.reads.clone(),
            approved_by_user: false,
            read_filter: self.agent.toolbox.gate.read_filter(),
            progress: None,
            ask_host: Some(self.outbox.host_asker()),
            image_refusal: self.agent.settings.image_refusal.clone(),
        }
    }

    /// The PostToolUse hooks of a call that ran: their feedback goes to the model with the next
    /// request, and the first `continue: false` stops the run after this batch.
    fn post_tool_use(&mut self, call: &ToolCall, output: &ToolOutput) {
        let agent = self.agent;
        let rule_name = agent.registry.get(&call.name).map_or(call.name.clone(), |tool| tool.rule_name().to_string());
        let outcome =
            agent.toolbox.hooks.post_tool_use(&rule_name, &call.input, &output.content, output.is_error, self.origin());
        if let Some(feedback) = self.report_hook(&outcome) {
            self.hooks.context.push(format!("PostToolUse hook on {} ({}): {feedback}", call.name, call.id));
        }
        if self.hooks.stop.is_none() {
            self.hooks.stop.clone_from(&outcome.stop);
        }
    }

    /// Phase 1 for one call: unknown tool, permission verdict, and the human's answer to an Ask.
    fn decide(&mut self, call: &ToolCall) -> CallPlan {
        let agent = self.agent;
        let mode = self.mode;
        // A tool the lean request left out (`task`) was not offered: as unknown as any other.
        let left_out = agent.is_lean() && agent.settings.lean.left_out().contains(&call.name.as_str());
        let Some(tool) = agent.registry.get(&call.name).filter(|_| !left_out) else {
            let offered: Vec<String> = agent.tools_for(mode).into_iter().map(|definition| definition.name).collect();
            let message = format!("unknown tool: {} (available: {})", call.name, offered.join(", "));
            return CallPlan::Refused { by: None, message };
        };
        if self.hooks.stop.is_some() {
            return CallPlan::refused(RefusedBy::Hook, NOT_RUN_AFTER_HOOK_STOP);
        }
        // Nothing happens here when no PreToolUse hook is configured.
        let outcome = agent.toolbox.hooks.pre_tool_use(tool.rule_name(), &call.input, self.origin());
        self.show_hook_notes(&outcome);
        if let Some(reason) = outcome.stop {
            let refusal = CallPlan::refused(RefusedBy::Hook, &super::hook_stopped(&reason));
            self.hooks.stop.get_or_insert(reason);
            return refusal;
        }
        if let Some(reason) = outcome.blocked {
            return CallPlan::refused(RefusedBy::Hook, &reason);
        }
        let hook_permission = outcome.permission;
        if let Some(refusal) = crate::permission::plan_mode_check(mode, &call.name, tool.read_only()) {
            return CallPlan::refused(RefusedBy::Approval, &refusal.reason);
        }
        let gate = &agent.toolbox.gate;
        let verdict = super::gate::with_hook(gate.check(mode, call, tool.as_ref()), hook_permission, || {
            gate.hook_may_allow(mode, call, tool.as_ref())
        });
        match verdict {
            Verdict::Allow => CallPlan::Run { tool, approved_by_user: false },
            Verdict::Deny { by, message } => CallPlan::Refused { by: Some(by), message },
            Verdict::Ask { reason } if agent.settings.front_end == FrontEnd::Headless => CallPlan::refused(
                RefusedBy::Approval,
                &format!("{reason}; {}", agent.way_to_allow(call, tool.as_ref())),
            ),
            // A write the guard would refuse is not put to a person: it could not run anyway.
            Verdict::Ask { .. }
                if let Some(message) = super::freshness::refusal(
                    tool.as_ref(),
                    &call.input,
                    &agent.settings.root,
                    &self.conversation.reads,
                ) =>
            {
                CallPlan::Refused { by: None, message }
            }
            Verdict::Ask { reason } => {
                let always = gate.always(mode, call, tool.as_ref());
                self.put_to_person(call, tool, &reason, always)
            }
        }
    }

    /// Puts a call the gate asks about to the person, and plans it by the answer: "always" does
    /// what `always` says (and the question said).
    fn put_to_person(&mut self, call: &ToolCall, tool: Arc<dyn Tool>, reason: &str, always: Always) -> CallPlan {
        let gate = &self.agent.toolbox.gate;
        match self.ask_human(call, tool.rule_name(), reason, always.clone()) {
            Approval::Once => CallPlan::Run { tool, approved_by_user: true },
            Approval::Always => {
                // The person is told what was saved and where: an "always" that widened more
                // than they thought should be easy to find and undo.
                let notice = match gate.remember(&always) {
                    Ok(Some(saved)) => Some(saved.describe()),
                    Ok(None) => None,
                    Err(problem) => Some(format!("could not save the rule: {problem}")),
                };
                if let Some(notice) = notice {
                    self.notice(notice);
                }
                CallPlan::Run { tool, approved_by_user: true }
            }
            Approval::Deny => CallPlan::refused(RefusedBy::User, &declined(&call.name, reason)),
            Approval::Redirect(instead) => CallPlan::refused(RefusedBy::User, &instead),
        }
    }

    /// Announces the calls of a batch before any of them runs; false when the front end is gone.
    fn announce(&self, calls: &[ToolCall], tails: &[LiveTail]) -> bool {
        let mut delivered = true;
        for (call, tail) in calls.iter().zip(tails) {
            let preview = preview::arguments(call);
            let start = Event::ToolStart {
                id: call.id.clone(),
                name: call.name.clone(),
                preview,
                input: call.input.clone(),
                live: tail.clone(),
            };
            delivered &= self.emit(start);
        }
        delivered
    }

    /// Asks the front end and waits for the answer or a cancel. A vanished front end is a "no".
    fn ask_human(&self, call: &ToolCall, rule_name: &str, reason: &str, always: Always) -> Approval {
        // Capacity 1: the front end can answer without blocking even if we already stopped waiting.
        let (respond_tx, respond_rx) = bounded(1);
        let request = ApprovalRequest {
            call: call.clone(),
            rule_name: rule_name.to_string(),
            reason: reason.to_string(),
            always,
            respond: respond_tx,
        };
        if !self.emit(Event::Approval(Box::new(request))) {
            return Approval::Deny;
        }
        let cancel = &self.outbox.cancel;
        loop {
            match respond_rx.recv_timeout(POLL) {
                Ok(answer) => return answer,
                Err(RecvTimeoutError::Timeout) if cancel.is_cancelled() => return Approval::Deny,
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Approval::Deny,
            }
        }
    }
}

impl Agent {
    /// What would let a call that needs approval run without a person to ask (`-p`): the mode
    /// that allows its class, the exact allow rule an "always" answer would save (as the flag
    /// of this run and in the settings files that would keep it); or that no mode does (an ask
    /// rule asks in bypass too).
    fn way_to_allow(&self, call: &ToolCall, tool: &dyn Tool) -> String {
        if !self.toolbox.gate.bypass_allows(call, tool) {
            return "no mode allows it: only a person can, or a change of the rule that asks".to_string();
        }
        let writes = tool.kind() == crate::tools::ToolKind::WritesPath;
        let mode = if writes { "--mode acceptEdits (or bypass)" } else { "--mode bypass" };
        match self.toolbox.gate.allowing_rules(call, tool).as_slice() {
            [] => format!("run with {mode}"),
            rules => format!(
                "run with {mode} or --allowedTools {}, or add the allow rule {} to {}",
                shell_quoted(&rules.join(",")),
                rules.join(" and "),
                self.allow_rule_files()
            ),
        }
    }

    /// The settings files an allow rule can be added to, nearest first (the project's would
    /// need trusting; the person's own file and this checkout's do not).
    fn allow_rule_files(&self) -> String {
        let book = self.toolbox.gate.rule_book();
        let paths: Vec<String> = [Level::Local, Level::User]
            .into_iter()
            .filter_map(|level| book.as_ref().and_then(|book| book.files().path(level)))
            .map(|path| path.display().to_string())
            .collect();
        if paths.is_empty() { crate::permission::store::LOCAL_SETTINGS.to_string() } else { paths.join(" or ") }
    }
}

/// `text` as one word of a POSIX shell: in single quotes, a quote inside closed and reopened.
fn shell_quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// One call of a batch as it ran (or was refused).
struct Ran {
    output: ToolOutput,
    elapsed: Duration,
    /// A person approved it at the prompt.
    approved_by_user: bool,
    /// What it changed (a writing tool's successful call).
    change: Option<Box<super::event::FileChange>>,
}

/// What the model reads when the person said no at the approval question: that a person
/// declined (not only the policy that asked), that nothing ran, and not to try it again.
fn declined(tool: &str, reason: &str) -> String {
    format!(
        "the user declined this {tool} call, so it did not run (it needed approval: {reason}); do not retry it \
         unchanged or another way: ask the user how to proceed"
    )
}

/// Runs the allowed calls of one batch: inline when there is one, concurrently otherwise. Every
/// call goes through the read-before-write guard (`freshness.rs`), and after each call that
/// wrote a file, the checks that match it run (the one place every successful change passes;
/// a refused or failed write runs none): a failing check's report follows the tool's result,
/// which stays what the write was.
fn run_batch(
    calls: &[ToolCall],
    decisions: Vec<CallPlan>,
    ctx: &ToolContext,
    checks: &Checks,
    tails: &[LiveTail],
) -> Vec<Ran> {
    let failed = |message: String| Ran {
        output: ToolOutput::error(message),
        elapsed: Duration::ZERO,
        approved_by_user: false,
        change: None,
    };
    let run_one = |call: &ToolCall, decision: CallPlan, tail: &LiveTail| -> Ran {
        match decision {
            CallPlan::Refused { message, .. } => failed(message),
            CallPlan::Run { tool, approved_by_user } => {
                let started = Instant::now();
                let ctx = ToolContext { approved_by_user, progress: Some(tail.progress()), ..ctx.clone() };
                let Guarded { mut output, change, written } = execute_guarded(tool.as_ref(), &call.input, &ctx);
                if let Some(path) = written {
                    output.content.push_str(&checks.after_write(&path, &ctx.cancel, ctx.progress.as_ref()));
                }
                Ran { output, elapsed: started.elapsed(), approved_by_user, change }
            }
        }
    };
    let runnable = decisions.iter().filter(|decision| matches!(decision, CallPlan::Run { .. })).count();
    if runnable <= 1 {
        return calls
            .iter()
            .zip(decisions)
            .zip(tails)
            .map(|((call, decision), tail)| run_one(call, decision, tail))
            .collect();
    }
    std::thread::scope(|scope| {
        let handles: Vec<_> = calls
            .iter()
            .zip(decisions)
            .zip(tails)
            .map(|((call, decision), tail)| {
                let run_one = &run_one;
                std::thread::Builder::new()
                    .name(format!("tool-{}", call.name))
                    .spawn_scoped(scope, move || run_one(call, decision, tail))
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| match handle {
                Ok(handle) => handle.join().unwrap_or_else(|_| failed("tool thread failed".to_string())),
                Err(err) => failed(format!("could not start a tool thread: {err}")),
            })
            .collect()
    })
}

#[cfg(test)]
#[path = "batch_tests.rs"]
mod tests;
