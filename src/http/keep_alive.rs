//! Keep-alive between exchanges: one idle ureq agent per client, whose pool holds the connection
//! of the last response that was read to its end, so consecutive requests to one server share
//! one TCP+TLS connection (model calls of a run, MCP calls of a server).
//!
//! Invariant: an agent comes back only through `put` or `end_drain`, from an exchange that ended
//! cleanly; a cancelled, failed or abandoned exchange shuts its agent down instead, so a
//! half-read response never lies on a pooled connection. At most one agent is kept.

use crate::sync::lock;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// A pool of one idle agent per client (see the module's invariant). `draining`
/// counts exchanges that completed and are reading the last bytes of their body: a new
/// exchange waits for those (at most `DRAIN_GRACE`) rather than opening a second connection
/// in the instant before the first one is handed back.
#[derive(Debug, Default)]
pub(crate) struct KeepAlive {
    state: Mutex<KeepAliveState>,
    changed: Condvar,
}

#[derive(Debug, Default)]
struct KeepAliveState {
    idle: Option<ureq::Agent>,
    draining: usize,
}

impl KeepAlive {
    /// The idle agent, waiting up to `grace` while an exchange that may hand one back finishes.
    pub(crate) fn take(&self, grace: Duration) -> Option<ureq::Agent> {
        let deadline = Instant::now() + grace;
        let mut state = lock(&self.state);
        loop {
            if let Some(agent) = state.idle.take() {
                return Some(agent);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if state.draining == 0 || left.is_zero() {
                return None;
            }
            state = match self.changed.wait_timeout(state, left) {
                Ok((state, _)) => state,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }

    /// Keeps `agent` for the next exchange unless one is kept already (then it is dropped,
    /// closing its connections: one connection per client is the point).
    pub(crate) fn put(&self, agent: ureq::Agent) {
        let mut state = lock(&self.state);
        if state.idle.is_none() {
            state.idle = Some(agent);
        }
        self.changed.notify_all();
    }

    /// An exchange finished and reads the rest of its body: `take` waits for its agent.
    pub(crate) fn begin_drain(&self) {
        lock(&self.state).draining += 1;
    }

    /// That exchange is over: its agent, when it may serve again, becomes the idle one.
    pub(crate) fn end_drain(&self, agent: Option<ureq::Agent>) {
        let mut state = lock(&self.state);
        state.draining = state.draining.saturating_sub(1);
        if let Some(agent) = agent
            && state.idle.is_none()
        {
            state.idle = Some(agent);
        }
        self.changed.notify_all();
    }
}
