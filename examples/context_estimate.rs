//! Per-iteration cost of context management with a 10 000-message history (SPEC §6 and §10):
//! the estimate and layer 1 must cost O(new messages), not O(history). Each measured iteration
//! appends one tool round (an assistant call and its result) and runs what the agent runs before
//! a request: `Estimate::update`, the layer-1 pass and the threshold check. Prints the median
//! over 1 000 iterations for a 10 000- and a 100 000-message history (the two should match), and
//! the one-time first pass a new agent makes over an existing history.

#![expect(clippy::print_stdout, reason = "a benchmark prints its figures on stdout")]

use mewcode::bench::{
    Breaker, ContextConfig, Estimate, History, Message, Offloader, ToolCall, ToolResult, should_summarize,
};
use std::time::{Duration, Instant};

fn round(id: usize) -> [Message; 2] {
    let id = format!("call_{id}");
    let mut call = Message::assistant("Let me look at the next file in the module.");
    call.tool_calls =
        vec![ToolCall { id: id.clone(), name: "read_file".into(), input: r#"{"path":"src/lib.rs"}"#.into() }];
    let result = Message::tool_results(vec![ToolResult {
        tool_call_id: id,
        content: "     1\t//! A line of a file that was read earlier in the session.\n".repeat(4),
        is_error: false,
        images: Vec::new(),
    }]);
    [call, result]
}

/// (the one-time first pass, the median of the following iterations)
fn median_iteration(messages: usize) -> (Duration, Duration) {
    let mut history = History::new();
    history.push(Message::user("start"));
    while history.len() < messages {
        for message in round(history.len()) {
            history.push(message);
        }
    }
    let config = ContextConfig { window: u64::MAX / 2, compact_at: None, sessions_dir: None };
    let mut estimate = Estimate::default();
    let mut offloader = Offloader::default();
    let breaker = Breaker::default();
    // The first pass counts the whole history once (a new agent or a replaced history).
    let first = Instant::now();
    estimate.update(&history);
    offloader.run(&mut history, None, &config.limits());
    let first = first.elapsed();
    let mut times = Vec::new();
    for _ in 0..1000 {
        for message in round(history.len()) {
            history.push(message);
        }
        let started = Instant::now();
        estimate.update(&history);
        let outcome = offloader.run(&mut history, None, &config.limits());
        estimate.shrink(outcome.chars_removed);
        let due = should_summarize(estimate.tokens(), &config, &breaker);
        times.push(started.elapsed());
        assert!(!due);
    }
    times.sort();
    (first, times[times.len() / 2])
}

fn main() {
    for messages in [10_000, 100_000] {
        let (first, median) = median_iteration(messages);
        println!(
            "context management, {messages:>6} messages: {:>6.2} µs per iteration (median); first pass over the whole history {:>7.2} ms (once per agent and conversation)",
            median.as_secs_f64() * 1e6,
            first.as_secs_f64() * 1e3
        );
    }
}
