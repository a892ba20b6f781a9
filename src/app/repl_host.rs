//! The REPL's host: what `repl::Host` asks of the program — agents for `/model`, a provider's
//! context window, the MCP servers' status and reconnection — answered with the wiring of the
//! run that started the REPL.
//!
//! Invariant: an agent built here for `/model` gets the same wiring (hooks, permission gate,
//! sandbox, MCP servers) as the REPL's first one, through the same `build_agent`. This file
//! holds references only: it starts nothing and owns nothing.

use super::Launch;
use super::setup::{forget_window, remembered_window, resolve_window_cached};
use super::wiring::{Wiring, build_agent};
use crate::agent::{Agent, FrontEnd};
use crate::config::{self, ProviderConfig};
use crate::{mcp_cli, repl};
use std::sync::Arc;

/// The references the REPL's requests are answered with.
pub(super) struct ReplHost<'a> {
    pub launch: &'a Launch,
    pub wiring: &'a Wiring<'a>,
}

impl repl::Host for ReplHost<'_> {
    fn connect(&self, provider: &ProviderConfig) -> Result<Arc<Agent>, String> {
        build_agent(self.launch, provider, self.wiring, FrontEnd::Repl)
            .map_err(|exit| exit.message().unwrap_or_else(|| "cannot connect to the provider".to_string()))
    }

    fn discover(&self, provider: &mut ProviderConfig) -> Option<String> {
        let (notice, failure) = resolve_window_cached(provider, self.launch);
        match (notice, failure) {
            (Some(notice), Some(failure)) => Some(format!("{notice}; {failure}")),
            (notice, failure) => notice.or(failure.map(|failure| failure.to_string())),
        }
    }

    fn forget_window(&self, provider: &ProviderConfig) -> Option<String> {
        match forget_window(provider, self.launch) {
            Ok(true) => Some(format!(
                "the context window remembered for {} was too big: the next start asks the server again",
                provider.model
            )),
            Ok(false) => None,
            Err(warning) => Some(warning.to_string()),
        }
    }

    fn remembered_window(&self, provider: &ProviderConfig) -> Option<String> {
        remembered_window(provider, self.launch)
    }

    fn mcp_status(&self) -> String {
        mcp_cli::render_list_text(&self.wiring.mcp.statuses())
    }

    fn network_status(&self) -> Vec<String> {
        self.wiring.guard.sandbox.network_lines().unwrap_or_default()
    }

    fn added_dirs(&self) -> Vec<String> {
        self.wiring.add_dirs.iter().map(config::AddDir::describe).collect()
    }

    fn jobs_status(&self) -> Vec<String> {
        self.wiring.guard.jobs.list()
    }

    fn mcp_reconnect(&self, name: &str) -> Result<(), String> {
        self.wiring.mcp.reconnect(name)
    }
}
