//! The `-p` front end: runs one task to completion and prints it as text, json or stream-json
//! (SPEC §1.1).
//!
//! Invariant: stdout carries only the result (text), the one JSON object (json) or one JSON
//! object per line (stream-json); tool activity and notices go to stderr in text mode and are
//! neutralised there, so a hostile tool output cannot drive the user's terminal.
//!
//! json and stream-json speak Claude Code's vocabulary beside mewcode's own fields: the final
//! object is `{"type":"result","subtype":…,"num_turns":…,"total_cost_usd":…}` with mewcode's
//! `stop_reason`, `iterations` and `usage`; stream-json opens with a `system`/`init` event (so a
//! killed run's session id is known) and ends with `done` then that `result` object.
//!
//! Text mode streams the answer as it arrives when stdout is a terminal (a failure is then said
//! on stderr after it, on a line of its own); to a pipe it prints the answer whole at the end.
#![expect(clippy::print_stderr, reason = "the -p front end: text mode's activity lines and notices go to stderr")]

use crate::agent::{Agent, Approval, CompactPhase, Conversation, Event, Failure, FailureKind, FileChange, Stop};
use crate::cancel::CancelToken;
use crate::config::price::Price;
use crate::glyphs::Glyphs;
use crate::mcp::{ServerState, ServerStatus};
use crate::mode::Mode;
use crate::msg::Usage;
use crate::permission::RefusedBy;
use crate::permission::network::HostAnswer;
use crate::text::neutralize;
use serde_json::json;
use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The three output formats of `-p`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    Text,
    Json,
    StreamJson,
}

/// How to print.
#[derive(Clone, Debug)]
pub(crate) struct Options {
    pub format: Format,
    /// No tool activity or notices on stderr (text mode).
    pub quiet: bool,
    /// Each tool's output in full on stderr (text mode), not only its first line.
    pub verbose: bool,
    /// stderr is a terminal and NO_COLOR is unset: dim the activity lines.
    pub color: bool,
    /// The locale's symbols, for the activity lines.
    pub glyphs: &'static Glyphs,
    /// stdout is a terminal: neutralise the final text too, and stream it as it arrives.
    pub stdout_is_terminal: bool,
    /// The session this run is logged in (`session_id` of the json formats); none when the log
    /// could not be created.
    pub session_id: Option<String>,
    /// Notices from before the run (a resumed session's notes, a log that cannot be written),
    /// shown first like the agent's own.
    pub notices: Vec<String>,
    /// The model (stream-json's `init`).
    pub model: String,
    /// The working directory (stream-json's `init`).
    pub cwd: String,
    /// The MCP servers as the run starts (stream-json's `init`).
    pub mcp_servers: Vec<ServerStatus>,
    /// The provider's price, when known (`total_cost_usd`).
    pub price: Option<Price>,
}

/// What the run produced, for the exit code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RunReport {
    pub stop: Stop,
    /// The error message when the run failed.
    pub error: Option<String>,
    /// What failed, when the run failed (`app` forgets a discovered window that was too big).
    pub kind: Option<FailureKind>,
}

/// Runs the agent on `prompt` in the conversation and prints as it goes. Returns when the run
/// is over.
pub(crate) fn run(
    agent: &Arc<Agent>,
    conversation: Conversation,
    prompt: crate::msg::Prompt,
    mode: Mode,
    cancel: CancelToken,
    options: Options,
) -> RunReport {
    let notices = options.notices.clone();
    let started = Instant::now();
    if options.format == Format::StreamJson {
        print_line(&init_json(agent, mode, &options));
    }
    let mut printer = Printer {
        options,
        usage: Usage::default(),
        usage_estimated: false,
        iterations: 0,
        error: None,
        inputs: Default::default(),
        denials: Vec::new(),
        api_time: Duration::ZERO,
        request_started: None,
        streamed: false,
        line_open: false,
    };
    for notice in notices {
        printer.event(Event::Notice(notice));
    }
    let running = agent.run(conversation, prompt, mode, cancel);
    let mut done = None;
    for event in running.events() {
        if let Event::Done { stop, answer } = &event {
            done = Some((*stop, answer.clone()));
        }
        printer.event(event);
    }
    // The worker ends right after Done (its conversation, logged as it went, is not needed here).
    drop(running.finish());
    // A channel that closed without Done means the run was interrupted before it could say so.
    let (stop, answer) = done.unwrap_or((Stop::Cancelled, String::new()));
    printer.finish(stop, &answer, started.elapsed());
    let kind = printer.error.as_ref().map(|failure| failure.kind);
    RunReport { stop, error: printer.error.map(|failure| failure.message), kind }
}

struct Printer {
    options: Options,
    usage: Usage,
    /// Some of `usage` was estimated from characters (the server sent none).
    usage_estimated: bool,
    iterations: u32,
    error: Option<Failure>,
    /// The arguments of each call by id, for `permission_denials`.
    inputs: std::collections::HashMap<String, serde_json::Value>,
    /// The refused calls, as the final json lists them.
    denials: Vec<serde_json::Value>,
    /// Time spent waiting for the model (`duration_api_ms`): from each request to its usage.
    api_time: Duration,
    /// When the request under way was sent (its `Iter` event), until its usage arrives.
    request_started: Option<Instant>,
    /// Some answer text went to the terminal as it arrived (text mode on a terminal).
    streamed: bool,
    /// The streamed text does not end with a newline: a stderr line must start a new one.
    line_open: bool,
}

impl Printer {
    fn event(&mut self, event: Event) {
        match event {
            Event::Iter(iteration) => {
                self.iterations = iteration;
                self.request_started = Some(Instant::now());
            }
            Event::Text(text) => {
                self.stream_text(&text);
                self.line(json!({"type": "text", "text": text}));
            }
            Event::Thinking(_) => {}
            Event::Restart { restart, max, reason } => {
                let message =
                    format!("connection lost ({reason}), retrying ({restart}/{max}); the partial answer is void");
                // The void part stays on the terminal; the retried answer starts on a line of its own.
                self.end_line();
                self.notice(&message);
                self.line(json!({"type": "restart", "attempt": restart, "max": max, "reason": reason}));
            }
            Event::Retry(notice) => {
                self.notice(&notice.describe());
                self.line(json!({
                    "type": "retry", "status": notice.status, "attempt": notice.attempt, "max": notice.max,
                    "delay_ms": notice.delay.as_millis() as u64, "reason": notice.reason
                }));
            }
            // The result carries the whole output; the live view (`live`) is the REPL's.
            Event::ToolStart { id, name, preview, input, .. } => {
                self.activity(&format!("{} {name} {preview}", self.options.glyphs.tool));
                // The arguments as an object when they are JSON (they should be), else as text.
                let input = serde_json::from_str::<serde_json::Value>(&input).unwrap_or(json!(input));
                self.inputs.insert(id.clone(), input.clone());
                self.line(json!({"type": "tool_start", "id": id, "name": name, "input": input, "preview": preview}));
            }
            Event::ToolEnd { id, name, preview, output, is_error, refused_by, elapsed, change, .. } => {
                let elapsed_ms = elapsed.as_millis() as u64;
                let mark = if is_error { self.options.glyphs.error } else { self.options.glyphs.result };
                // A refusal is said whole: its end names the rule or flag that would allow the call.
                let shown =
                    if refused_by.is_some() { output.trim_end().replace('\n', "\n    ") } else { preview.clone() };
                self.activity(&format!("  {mark} {shown}  ({elapsed_ms} ms)"));
                if self.options.verbose && output.lines().nth(1).is_some() {
                    let shown = crate::text::first_lines(&output, crate::text::VERBOSE_LINES);
                    self.activity(&format!("    {}", shown.replace('\n', "\n    ")));
                }
                if let Some(by) = refused_by {
                    let input = self.inputs.get(&id).cloned().unwrap_or(serde_json::Value::Null);
                    let denial = json!({"tool": name, "id": id, "input": input, "reason": output, "by": by.as_str()});
                    self.denials.push(denial);
                    if by == RefusedBy::Approval {
                        self.line(json!({"type": "approval_denied", "id": id, "name": name, "reason": output}));
                    }
                }
                let mut line = json!({
                    "type": "tool_end", "id": id, "name": name, "output": output, "preview": preview,
                    "is_error": is_error, "elapsed_ms": elapsed_ms
                });
                if let Some(change) = change {
                    // What a write or edit changed: the unified diff, and its figures.
                    line["diff"] = json!(change.diff);
                    line["change"] = change_json(&change);
                }
                self.line(line);
            }
            Event::Usage { usage, estimated, compaction } => {
                if let Some(started) = self.request_started.take() {
                    self.api_time += started.elapsed();
                }
                self.usage.add(&usage);
                self.usage_estimated |= estimated;
                let mut line = json!({"type": "usage", "usage": usage_json(&usage)});
                if estimated {
                    // The server sent no usage; these figures are counted from characters.
                    line["estimated"] = json!(true);
                }
                if compaction {
                    // A summary request's: counted in the totals, not the conversation's size.
                    line["compaction"] = json!(true);
                }
                self.line(line);
            }
            Event::Notice(text) => {
                // The cap is said once, by the stop line at the end (with the way on).
                if text != crate::agent::cap_notice(self.iterations) {
                    self.notice(&text);
                }
                self.line(json!({"type": "notice", "text": text}));
            }
            Event::Approval(request) => {
                // Nobody can answer in -p mode; an agent built for `FrontEnd::Headless` never asks.
                let _ = request.respond.send(Approval::Deny);
                self.line(json!({"type": "approval_denied", "id": request.call.id, "name": request.call.name, "reason": request.reason}));
            }
            Event::HostQuestion(request) => {
                // Nobody can answer in -p mode: refused, and listed with the setting that allows it.
                let _ = request.respond.send(HostAnswer::Unasked);
                let question = &request.question;
                let reason = format!("{} (nobody to ask in -p)", question.reason);
                let denial = json!({"tool": "Bash", "host": question.host, "port": question.port, "reason": reason, "by": "network"});
                self.denials.push(denial);
                self.notice(&format!("network: {reason}"));
                self.line(
                    json!({"type": "network_denied", "host": question.host, "port": question.port, "reason": reason}),
                );
            }
            Event::Compact(phase) => {
                self.notice(&phase.describe());
                self.line(compact_json(&phase));
            }
            Event::Error(failure) => {
                self.report(&failure);
                self.error = Some(failure);
            }
            Event::Done { .. } => {}
        }
    }

    fn finish(&mut self, stop: Stop, result: &str, elapsed: Duration) {
        let mut summary = json!({
            "type": "result",
            "subtype": subtype(stop),
            "result": result,
            "session_id": self.options.session_id,
            "stop_reason": stop.as_str(),
            "iterations": self.iterations,
            // Claude Code's name for the model requests of the run.
            "num_turns": self.iterations,
            "duration_ms": elapsed.as_millis() as u64,
            "duration_api_ms": self.api_time.as_millis() as u64,
            // From the provider's price (configured, else the built-in table); null when unknown.
            "total_cost_usd": self.options.price.map(|price| price.cost(&self.usage)),
            "usage": usage_json(&self.usage),
            "is_error": !matches!(stop, Stop::Completed),
            // Every call the permission system refused: what a script must allow to go further.
            "permission_denials": self.denials,
        });
        // Why the run failed, typed for scripts; a cancelled run has no Error event, so its
        // error is reported here (text mode says it in `stop_reason_line`).
        let failure = match (stop, &self.error) {
            (Stop::Failed, Some(failure)) => Some(failure.clone()),
            (Stop::Cancelled, _) => {
                let failure = Failure::cancelled();
                if self.options.format != Format::Text {
                    self.report(&failure);
                }
                Some(failure)
            }
            _ => None,
        };
        if let Some(failure) = &failure {
            summary["error"] = failure_json(failure);
        }
        if self.usage_estimated {
            // Some responses came without usage; their share was counted from characters.
            summary["usage_estimated"] = json!(true);
        }
        match self.options.format {
            // Only an answer goes to stdout (`ans=$(mewcode -p …)` must not capture a note as
            // one); why there is none goes to stderr, and the exit code says which (README).
            Format::Text if stop != Stop::Completed => {
                self.end_line();
                if let Some(reason) = self.stop_reason_line(stop) {
                    eprintln!("mewcode: {reason}");
                }
            }
            // The answer is on the terminal already: only its last line is ended.
            Format::Text if self.streamed => self.end_line(),
            Format::Text => {
                let text = if self.options.stdout_is_terminal { neutralize(result) } else { result.to_string() };
                let mut stdout = std::io::stdout().lock();
                // A closed pipe (`| head`) is not an error worth reporting.
                let _ = writeln!(stdout, "{text}").and_then(|()| stdout.flush());
            }
            Format::Json => print_line(&summary),
            Format::StreamJson => {
                // mewcode's `done` first (SPEC §1.1), then Claude Code's `result` last.
                let mut done = summary.clone();
                done["type"] = json!("done");
                print_line(&done);
                print_line(&summary);
            }
        }
    }

    /// Text mode on a terminal: the answer's text as it arrives (neutralised).
    fn stream_text(&mut self, text: &str) {
        if self.options.format != Format::Text || !self.options.stdout_is_terminal || text.is_empty() {
            return;
        }
        let mut stdout = std::io::stdout().lock();
        let _ = write!(stdout, "{}", neutralize(text)).and_then(|()| stdout.flush());
        self.streamed = true;
        self.line_open = !text.ends_with('\n');
    }

    /// Ends the streamed text's open line, so what follows (stderr, or the prompt) starts on its own.
    fn end_line(&mut self) {
        if self.line_open {
            let mut stdout = std::io::stdout().lock();
            let _ = writeln!(stdout).and_then(|()| stdout.flush());
            self.line_open = false;
        }
    }

    /// The stderr line for a run that ended without an answer (None: an error line was printed).
    fn stop_reason_line(&self, stop: Stop) -> Option<String> {
        match stop {
            Stop::Completed => None,
            Stop::IterationLimit => Some(format!(
                "stopped at the iteration cap ({} iterations); continue with `mewcode -c -p \"continue\"`, or raise \
                 --max-iterations",
                self.iterations
            )),
            Stop::UnknownTools => Some("stopped: the model kept calling tools that do not exist".to_string()),
            Stop::Cancelled => Some("cancelled before an answer".to_string()),
            Stop::Failed if self.error.is_some() => None,
            Stop::Failed => Some("the request failed".to_string()),
        }
    }

    /// A failure: its one line on stderr in every format (unless quiet), the `error` event in
    /// stream-json.
    fn report(&mut self, failure: &Failure) {
        self.end_line();
        if !self.options.quiet {
            eprintln!("mewcode: error: {}", neutralize(&failure.message));
        }
        let mut line = failure_json(failure);
        line["type"] = json!("error");
        self.line(line);
    }

    /// One stream-json line (other formats ignore it).
    fn line(&self, value: serde_json::Value) {
        if self.options.format == Format::StreamJson {
            print_line(&value);
        }
    }

    /// A tool activity line on stderr (text mode, unless quiet).
    fn activity(&mut self, text: &str) {
        if self.options.format == Format::Text && !self.options.quiet {
            self.end_line();
            let text = neutralize(text);
            if self.options.color { eprintln!("\x1b[2m{text}\x1b[0m") } else { eprintln!("{text}") }
        }
    }

    fn notice(&mut self, text: &str) {
        self.activity(&format!("mewcode: {text}"));
    }
}

fn print_line(value: &serde_json::Value) {
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{value}").and_then(|()| stdout.flush());
}

/// The `error` object of json and stream-json: `kind` (stable names: auth, rate_limit,
/// overloaded, prompt_too_long, server, request, network, protocol, cancelled, hook), `message`,
/// `fix` when known, `retryable`.
fn failure_json(failure: &Failure) -> serde_json::Value {
    let mut object = json!({
        "kind": failure.kind.as_str(),
        "message": failure.message,
        "retryable": failure.retryable,
    });
    if let Some(fix) = &failure.fix {
        object["fix"] = json!(fix);
    }
    object
}

/// The `change` object of a write's `tool_end`: the file, whether it was created, the lines added
/// and removed, and the `summary` that stands in for a diff (binary or large files).
fn change_json(change: &FileChange) -> serde_json::Value {
    let mut object = json!({
        "path": change.path,
        "created": change.created,
        "lines_added": change.lines_added,
        "lines_removed": change.lines_removed,
    });
    if let Some(summary) = &change.summary {
        object["summary"] = json!(summary);
    }
    object
}

fn usage_json(usage: &Usage) -> serde_json::Value {
    json!({
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cache_write": usage.cache_write,
        "cache_read": usage.cache_read,
    })
}

/// The stream-json object of a compaction phase (`{"type":"compact","phase":...}`).
fn compact_json(phase: &CompactPhase) -> serde_json::Value {
    match phase {
        CompactPhase::Started { trigger } => {
            json!({"type": "compact", "phase": "started", "trigger": trigger.as_str()})
        }
        CompactPhase::Finished { trigger, before_tokens, after_tokens, history } => json!({
            "type": "compact", "phase": "finished", "trigger": trigger.as_str(),
            "before_tokens": before_tokens, "after_tokens": after_tokens, "messages": history.len()
        }),
        CompactPhase::Failed { trigger, reason } => {
            json!({"type": "compact", "phase": "failed", "trigger": trigger.as_str(), "reason": reason})
        }
    }
}

/// Claude Code's `subtype` of the result: `success`, `error_max_turns` at the iteration cap,
/// `error_during_execution` for every other stop.
fn subtype(stop: Stop) -> &'static str {
    match stop {
        Stop::Completed => "success",
        Stop::IterationLimit => "error_max_turns",
        Stop::UnknownTools | Stop::Cancelled | Stop::Failed => "error_during_execution",
    }
}

/// stream-json's first line, Claude Code's `system`/`init`: the session (so a killed run can be
/// resumed), the model, the working directory, the tools offered in `mode`, the MCP servers and
/// the permission mode (Claude Code's names).
fn init_json(agent: &Agent, mode: Mode, options: &Options) -> serde_json::Value {
    let tools = agent.tools_for(mode);
    let tools: Vec<String> = tools.into_iter().map(|tool| tool.name).collect();
    let servers: Vec<serde_json::Value> = options
        .mcp_servers
        .iter()
        .map(|server| json!({"name": server.name, "status": server_status(&server.state)}))
        .collect();
    json!({
        "type": "system", "subtype": "init", "session_id": options.session_id, "model": options.model,
        "cwd": options.cwd, "tools": tools, "mcp_servers": servers, "permissionMode": permission_mode(mode)
    })
}

/// An MCP server's state in Claude Code's words (`stopped`: it connected, then went away).
fn server_status(state: &ServerState) -> &'static str {
    match state {
        ServerState::Starting => "pending",
        ServerState::Connected { .. } => "connected",
        ServerState::Failed { .. } => "failed",
        ServerState::Stopped { .. } => "stopped",
    }
}

/// A mode as Claude Code names it (`bypassPermissions` for mewcode's `bypass`).
fn permission_mode(mode: Mode) -> &'static str {
    match mode {
        Mode::Bypass => "bypassPermissions",
        Mode::Default | Mode::AcceptEdits | Mode::Plan => mode.as_str(),
    }
}

#[cfg(test)]
#[path = "headless_tests.rs"]
mod tests;
