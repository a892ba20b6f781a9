//! Batch speedup of read-only tools (SPEC §10: five 100 ms read-only tools in one batch take
//! ≤ 1.3 × 100 ms). Measures, side by side, five 100 ms read-only calls asked for in ONE model
//! turn (one concurrent batch) and the same five calls asked for in five turns (the serial
//! baseline), timing from the first ToolStart to the last ToolEnd. Prints medians and the ratio.

#![expect(
    clippy::print_stdout,
    clippy::unwrap_used,
    reason = "a benchmark prints its figures, and a failed measurement may panic"
)]

mod support;

use crossbeam_channel::Receiver;
use mewcode::bench::{
    Agent, CancelToken, Checks, Completion, ContextConfig, Conversation, Environment, Event, FrontEnd, Hooks, Mode,
    Provider, Registry, Request, Settings, StopReason, StreamEvent, Tool, ToolCall, ToolContext, ToolOutput, Toolbox,
};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use support::AllowAll;

/// Asks for `per_turn` sleep calls per turn until five have been asked for, then finishes.
struct Script {
    per_turn: usize,
    asked: AtomicUsize,
}

impl Provider for Script {
    fn name(&self) -> &str {
        "script"
    }
    fn model(&self) -> &str {
        "script"
    }
    fn stream(&self, _request: Request, _cancel: CancelToken) -> Receiver<StreamEvent> {
        let (tx, rx) = crossbeam_channel::unbounded();
        let asked = self.asked.fetch_add(self.per_turn, Ordering::SeqCst);
        if asked < 5 {
            let calls = (asked..asked + self.per_turn)
                .map(|index| ToolCall { id: format!("c{index}"), name: "sleep".into(), input: "{}".into() })
                .collect();
            let _ = tx.send(StreamEvent::ToolCalls(calls));
        } else {
            let _ = tx.send(StreamEvent::Text("done".into()));
        }
        let stop = if asked < 5 { StopReason::ToolUse } else { StopReason::EndTurn };
        let _ =
            tx.send(StreamEvent::Done(Completion { stop_reason: stop, thinking: vec![], dropped_tool_calls: vec![] }));
        rx
    }
}

struct Sleep;

impl Tool for Sleep {
    fn name(&self) -> &str {
        "sleep"
    }
    fn rule_name(&self) -> &str {
        "Sleep"
    }
    fn description(&self) -> &str {
        "sleeps 100 ms"
    }
    fn input_schema(&self) -> serde_json::Value {
        serde_json::json!({"type": "object"})
    }
    fn read_only(&self) -> bool {
        true
    }
    fn execute(&self, _input: &str, _ctx: &ToolContext) -> ToolOutput {
        std::thread::sleep(Duration::from_millis(100));
        ToolOutput::ok("slept")
    }
}

/// Wall time from the first ToolStart to the last ToolEnd.
fn tool_phase(per_turn: usize) -> Duration {
    let mut registry = Registry::new();
    registry.register(Arc::new(Sleep));
    let agent = Arc::new(Agent {
        toolbox: Arc::new(Toolbox {
            provider: Arc::new(Script { per_turn, asked: AtomicUsize::new(0) }),
            max_tokens: 100,
            gate: Arc::new(AllowAll),
            hooks: Hooks::default(),
            checks: Checks::default(),
            environment: Environment::fixed(""),
            silent_truncation: None,
        }),
        registry,
        stable_prompt: String::new(),
        settings: Settings {
            root: std::env::temp_dir(),
            max_iterations: 25,
            unknown_tool_limit: 3,
            front_end: FrontEnd::Headless,
            turn_hooks: true,
            checkpoints: None,
            lean: Default::default(),
            image_refusal: None,
        },
        context: ContextConfig::default(),
    });
    let running = agent.run(Conversation::default(), "go".to_string(), Mode::Default, CancelToken::new());
    let (mut first, mut last) = (None, None);
    for event in running.events() {
        match event {
            Event::ToolStart { .. } => {
                first.get_or_insert_with(Instant::now);
            }
            Event::ToolEnd { .. } => last = Some(Instant::now()),
            _ => {}
        }
    }
    last.unwrap() - first.unwrap()
}

fn main() {
    let median = |per_turn: usize| {
        let mut samples: Vec<Duration> = (0..5).map(|_| tool_phase(per_turn)).collect();
        samples.sort();
        samples[2]
    };
    let batch = median(5);
    let serial = median(1);
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "five 100 ms read-only tools: one batch {:.1} ms ({:.2} x 100 ms), serial baseline {:.1} ms, speedup {:.2}x",
        ms(batch),
        ms(batch) / 100.0,
        ms(serial),
        ms(serial) / ms(batch)
    );
}
