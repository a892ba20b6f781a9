//! The `lean_below:` and `lean_tools:` keys: below which context window a request is lean (short
//! system prompt, short tool definitions, optional tools left out) and which optional tools it
//! keeps all the same.
//!
//! Invariant: a bad value is an error naming the key; a tool name that is not an optional tool
//! is refused with the list of those that are, so a typo never silently keeps a tool out.

use super::error::{ConfigError, FileContext, error};
use super::value::{describe, kind, opt_u64};
use serde_yaml::{Mapping, Value};

/// The window (tokens) below which requests are lean unless the config says otherwise: a 4k or
/// 8k local model pays about 1 900 tokens for the full system prompt and tools on every turn.
const DEFAULT_LEAN_BELOW: u64 = 16_384;

/// The tools a lean request leaves out unless `lean_tools` names them. The `task` sub-agent
/// costs a definition on every turn and a second conversation in a window that has no room for
/// one; `job` (background jobs) a definition, and bash's `run_in_background` goes with it.
/// (`agent::subagent` and `tools::job` define them; config cannot name those layers, tests tie
/// them.)
pub(crate) const OPTIONAL_TOOLS: &[&str] = &["task", "job"];

/// The resolved lean settings (the highest level that sets each key wins).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LeanConfig {
    /// Requests to a window below this many tokens are lean; 0: never.
    pub below: u64,
    /// Optional tools kept in lean requests.
    pub tools: Vec<String>,
}

impl Default for LeanConfig {
    fn default() -> LeanConfig {
        LeanConfig { below: DEFAULT_LEAN_BELOW, tools: Vec::new() }
    }
}

/// The two keys as one file writes them (None: not set there).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct LeanEntry {
    pub below: Option<u64>,
    pub tools: Option<Vec<String>>,
}

impl LeanEntry {
    /// Applies this file's keys over the lower levels' settings.
    pub(crate) fn apply(self, config: &mut LeanConfig) {
        if let Some(below) = self.below {
            config.below = below;
        }
        if let Some(tools) = self.tools {
            config.tools = tools;
        }
    }
}

/// Reads `lean_below: N` (tokens, 0 = never) and `lean_tools: [task]` from a file's top level.
pub(crate) fn parse_lean(map: &Mapping, ctx: &FileContext) -> Result<LeanEntry, ConfigError> {
    let below = opt_u64(map, "lean_below", "", ctx)?;
    let tools = match map.get("lean_tools") {
        None | Some(Value::Null) => None,
        Some(Value::Sequence(items)) => {
            let mut tools = Vec::new();
            for (index, item) in items.iter().enumerate() {
                let name = item.as_str().map(str::trim).unwrap_or_default();
                if !OPTIONAL_TOOLS.contains(&name) {
                    let message = format!(
                        "{} is not an optional tool; the tools a lean request may leave out are: {}",
                        describe(item),
                        OPTIONAL_TOOLS.join(", ")
                    );
                    return Err(error(ctx, &format!("lean_tools[{index}]"), message));
                }
                tools.push(name.to_string());
            }
            Some(tools)
        }
        Some(other) => {
            let message = format!("expected a list of tool names such as [task], got {}", kind(other));
            return Err(error(ctx, "lean_tools", message));
        }
    };
    Ok(LeanEntry { below, tools })
}

#[cfg(test)]
#[path = "lean_tests.rs"]
mod tests;
