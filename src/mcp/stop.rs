//! What a server's loss does: the hook (`lost::Lost`) that moves its slot from connected to
//! stopped, keeping its last stderr lines, and tells the news once.
//!
//! Invariant: only the slot's current client can stop it (a hook of a client that was since
//! reconnected or shut down does nothing), and the hook holds slot and client weakly (the client
//! owns the hook). The news goes to the updates sink when there is one (the REPL, which also
//! redraws its status line from it), else to the warning sink (`-p`, `mcp list`).

use super::client::Client;
use super::{McpError, Slot, SlotState, Update, UpdateSink, WarnSink, lost};
use crate::sync::lock;
use crate::warning::Warning;
use std::sync::{Arc, Weak};

/// Where a server's stop is told: the updates channel (the REPL), else the warning sink (`-p`).
pub(super) struct Report {
    pub updates: Option<UpdateSink>,
    pub warn: WarnSink,
}

/// The hook that moves `slot` from connected (with `client`) to stopped when its server goes
/// away by itself, and tells `report`. It holds both weakly (the client owns the hook), and does
/// nothing once the slot has moved on (reconnected, shut down).
pub(super) fn stop_hook(slot: &Arc<Slot>, client: &Arc<Client>, report: Report) -> lost::LostHook {
    let (slot, client): (Weak<Slot>, Weak<Client>) = (Arc::downgrade(slot), Arc::downgrade(client));
    Box::new(move |error: McpError| {
        let Some(slot) = slot.upgrade() else { return };
        let stderr = {
            let mut state = lock(&slot.state);
            let current = match &*state {
                SlotState::Connected { client: current, .. } => Arc::as_ptr(current),
                SlotState::Starting | SlotState::Failed { .. } | SlotState::Stopped { .. } => return,
            };
            if current != client.as_ptr() {
                return;
            }
            let SlotState::Connected { client, tools, .. } = std::mem::replace(&mut *state, SlotState::Starting) else {
                return;
            };
            let stderr = client.stderr_tail();
            *state = SlotState::Stopped { client, tools, error: error.to_string(), stderr: stderr.clone() };
            stderr
        };
        let name = &slot.config.name;
        let mut message = format!("stopped: {error}");
        if let Some(line) = stderr.last() {
            message.push_str(&format!(" (last stderr: {line})"));
        }
        message.push_str("; its tools are unavailable");
        match &report.updates {
            Some(updates) => {
                message.push_str(&format!(" until it is reconnected (/mcp reconnect {name})"));
                let warning = Warning::new(format!("mcp server {name}"), message);
                updates(Update { server: name.clone(), tools: None, warnings: vec![warning] });
            }
            None => (report.warn)(Warning::new(format!("mcp server {name}"), message)),
        }
    })
}
