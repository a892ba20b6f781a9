//! Per-iteration overhead of the agent loop outside the model call (SPEC §10: ≤ 1 ms with a
//! 10 000-message history). An in-process provider answers instantly with one read-only no-op
//! tool call, so each iteration's wall time is the loop's own work: building the request from the
//! history, the event channel, batching and appending results. Prints the median per-iteration
//! time over several runs of 24 iterations each, with a 10 000-message and a 10-message history.

#![expect(clippy::print_stdout, reason = "a benchmark prints its figures on stdout")]

mod support;

use crossbeam_channel::Receiver;
use mewcode::bench::{
    Agent, CancelToken, Checks, Completion, ContextConfig, Conversation, Environment, Event, FrontEnd, Hooks, Message,
    Mode, Provider, Registry, Request, Settings, StopReason, StreamEvent, Tool, ToolCall, ToolContext, ToolOutput,
    ToolResult, Toolbox,
};
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::AllowAll;

struct Instant_;

impl Provider for Instant_ {
    fn name(&self) -> &str {
        "instant"
    }
    fn model(&self) -> &str {
        "instant"
    }
    fn stream(&self, request: Request, _cancel: CancelToken) -> Receiver<StreamEvent> {
        let (tx, rx) = crossbeam_channel::unbounded();
        let id = format!("call_{}", request.messages.len());
        let _ = tx.send(StreamEvent::ToolCalls(vec![ToolCall { id, name: "noop".into(), input: "{}".into() }]));
        let _ = tx.send(StreamEvent::Done(Completion {
            stop_reason: StopReason::ToolUse,
            thinking: vec![],
            dropped_tool_calls: vec![],
        }));
        rx
    }
}

struct Noop;

impl Tool for Noop {
    fn name(&self) -> &str {
        "noop"
    }
    fn rule_name(&self) -> &str {
        "Noop"
    }
    fn description(&self) -> &str {
        "does nothing"
    }
    fn input_schema(&self) -> serde_json::Value {
        serde_json::json!({"type": "object"})
    }
    fn read_only(&self) -> bool {
        true
    }
    fn execute(&self, _input: &str, _ctx: &ToolContext) -> ToolOutput {
        ToolOutput::ok("ok")
    }
}

fn history(messages: usize) -> Vec<Message> {
    let mut history = vec![Message::user("start")];
    while history.len() < messages {
        let id = format!("h{}", history.len());
        let mut call = Message::assistant("Let me look at the next file in the module.");
        call.tool_calls =
            vec![ToolCall { id: id.clone(), name: "noop".into(), input: r#"{"path":"src/lib.rs"}"#.into() }];
        history.push(call);
        history.push(Message::tool_results(vec![ToolResult {
            tool_call_id: id,
            content: "     1\t//! A line of a file that was read earlier in the session.\n".repeat(4),
            is_error: false,
            images: Vec::new(),
        }]));
    }
    history
}

fn per_iteration(messages: usize) -> Duration {
    let mut registry = Registry::new();
    registry.register(Arc::new(Noop));
    let agent = Arc::new(Agent {
        toolbox: Arc::new(Toolbox {
            provider: Arc::new(Instant_),
            max_tokens: 1000,
            gate: Arc::new(AllowAll),
            hooks: Hooks::default(),
            checks: Checks::default(),
            environment: Environment::fixed("e"),
            silent_truncation: None,
        }),
        registry,
        stable_prompt: "s".into(),
        settings: Settings {
            root: std::env::temp_dir(),
            max_iterations: 24,
            unknown_tool_limit: 3,
            front_end: FrontEnd::Headless,
            turn_hooks: true,
            checkpoints: None,
            lean: Default::default(),
            image_refusal: None,
        },
        // A window no history here reaches: the estimate and layer 1 run, a summary never does.
        context: ContextConfig { window: u64::MAX / 2, compact_at: None, sessions_dir: None },
    });
    let conversation = Conversation::unlogged(history(messages));
    let started = Instant::now();
    // What earlier turns left, then this run's prompt.
    let running = agent.run(conversation, "go on".to_string(), Mode::Default, CancelToken::new());
    let mut iterations = 0u32;
    for event in running.events() {
        if let Event::Iter(n) = event {
            iterations = n;
        }
    }
    started.elapsed() / iterations
}

fn main() {
    for messages in [10, 10_000] {
        let mut samples: Vec<Duration> = (0..7).map(|_| per_iteration(messages)).collect();
        samples.sort();
        println!(
            "agent loop overhead per iteration, {messages:>6}-message history: median {:.1} µs (min {:.1}, max {:.1})",
            samples[3].as_secs_f64() * 1e6,
            samples[0].as_secs_f64() * 1e6,
            samples[6].as_secs_f64() * 1e6
        );
    }
}
