//! `Lost`: the one-time notice that a connected server went away by itself — its process
//! exited (the stdio reader saw EOF on its stdout) or its HTTP session failed at the network
//! level — as opposed to being shut down by mewcode.
//!
//! Invariant: the hook hears about a loss at most once, also when the loss came before the hook
//! was set (it is then called at once); after `silence` (mewcode is stopping the server itself)
//! nothing is reported any more. The hook is called with no lock held, on whichever thread saw
//! the loss, so it must not block.

use super::McpError;
use crate::sync::lock;
use std::sync::Mutex;

/// Who hears about the loss (the manager's slot of the server).
pub(crate) type LostHook = Box<dyn FnOnce(McpError) + Send>;

/// Whether, and why, a server was lost; shared by a transport and its client.
#[derive(Default)]
pub struct Lost {
    state: Mutex<State>,
}

#[derive(Default)]
enum State {
    /// Running, with the hook to call when it is lost (None before `watch`).
    #[default]
    Running,
    Watched(LostHook),
    /// Lost, and why (the hook, if any, was called).
    Gone(McpError),
    /// mewcode stops it: whatever follows is no loss.
    Silenced,
}

impl Lost {
    /// Calls `hook` when the server is lost; at once when it already was. A second `watch`
    /// replaces the first hook.
    pub(crate) fn watch(&self, hook: LostHook) {
        let mut state = lock(&self.state);
        match &*state {
            State::Gone(error) => {
                let error = error.clone();
                drop(state);
                hook(error);
            }
            State::Running | State::Watched(_) => *state = State::Watched(hook),
            State::Silenced => {}
        }
    }

    /// The server was lost because of `error`; only the first report counts.
    pub(crate) fn report(&self, error: McpError) {
        let mut state = lock(&self.state);
        let previous = std::mem::replace(&mut *state, State::Gone(error.clone()));
        match previous {
            State::Running => {}
            State::Watched(hook) => {
                drop(state);
                hook(error);
            }
            // Keep the first reason, and keep quiet after a silence.
            previous @ (State::Gone(_) | State::Silenced) => *state = previous,
        }
    }

    /// Why the server was lost, if it was.
    pub(crate) fn reason(&self) -> Option<McpError> {
        match &*lock(&self.state) {
            State::Gone(error) => Some(error.clone()),
            State::Running | State::Watched(_) | State::Silenced => None,
        }
    }

    /// mewcode is stopping the server: no loss is reported from now on.
    pub(crate) fn silence(&self) {
        let mut state = lock(&self.state);
        if !matches!(*state, State::Gone(_)) {
            *state = State::Silenced;
        }
    }
}

/// Whether a failed request means the server itself is gone (its process exited, its pipes or
/// its network connection broke), rather than that one call failed (a JSON-RPC error, a
/// timeout, a bad answer, an HTTP error status).
pub(crate) fn is_loss(error: &McpError) -> bool {
    match error {
        McpError::Exited { .. } | McpError::Io { .. } | McpError::Network { .. } => true,
        McpError::Spawn { .. }
        | McpError::Timeout { .. }
        | McpError::Cancelled
        | McpError::Rpc { .. }
        | McpError::Protocol { .. }
        | McpError::Http { .. }
        | McpError::SessionExpired
        | McpError::Config { .. } => false,
    }
}

#[cfg(test)]
#[path = "lost_tests.rs"]
mod tests;
