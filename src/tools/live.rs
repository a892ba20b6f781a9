//! A live view of a running tool's output: the tool hands over each line as it comes
//! (`Progress`), the front end reads the last few whenever it redraws (`LiveTail`).
//!
//! Invariant: bounded and never blocking: the tail keeps at most `LIVE_LINES` lines, a line is
//! added under a short lock, and nothing waits for the front end (a chatty command runs at its
//! own pace; the result still carries the whole output).

use crate::sync::lock;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// Lines a tail keeps.
const LIVE_LINES: usize = 8;

/// Where a tool that works for a while shows its output, line by line.
#[derive(Clone)]
pub struct Progress(Arc<dyn Fn(&str) + Send + Sync>);

impl Progress {
    /// A view that hands each line to `show`.
    pub(crate) fn new(show: impl Fn(&str) + Send + Sync + 'static) -> Progress {
        Progress(Arc::new(show))
    }

    /// One complete line of output (without its line ending).
    pub(crate) fn line(&self, line: &str) {
        (self.0)(line);
    }
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Progress")
    }
}

/// The last lines of one call's output, shared by the tool (writing) and the front end (reading).
#[derive(Clone, Debug, Default)]
pub struct LiveTail {
    state: Arc<Mutex<TailState>>,
}

#[derive(Debug, Default)]
struct TailState {
    lines: VecDeque<String>,
    /// Lines added so far: a change since the last look means "redraw".
    added: u64,
}

impl LiveTail {
    /// An empty tail.
    pub(crate) fn new() -> LiveTail {
        LiveTail::default()
    }

    /// The `Progress` that writes into this tail.
    pub(crate) fn progress(&self) -> Progress {
        let tail = self.clone();
        Progress::new(move |line| tail.push(line))
    }

    fn push(&self, line: &str) {
        let mut state = lock(&self.state);
        state.lines.push_back(line.to_string());
        if state.lines.len() > LIVE_LINES {
            state.lines.pop_front();
        }
        state.added += 1;
    }

    /// How many lines were added so far, and the last `count` of them (oldest first).
    pub(crate) fn last(&self, count: usize) -> (u64, Vec<String>) {
        let state = lock(&self.state);
        let skip = state.lines.len().saturating_sub(count);
        (state.added, state.lines.iter().skip(skip).cloned().collect())
    }
}

#[cfg(test)]
#[path = "live_tests.rs"]
mod tests;
