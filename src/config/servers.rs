//! The MCP servers of a config file: the entry types, and the `mcp_servers` and `mcpServers`
//! entries (stdio or http), checked one by one.
//!
//! Invariant: a bad server entry never fails the file: it is skipped with a warning naming its
//! key path, and the other servers load. A later entry of the same name replaces an earlier one.

use super::error::FileContext;
use super::value::{describe, kind, scalar_text, warn_unknown_keys};
use super::{PROJECT_CONFIG, PROJECT_MCP_JSON};
use crate::warning::Warning;
use serde_yaml::{Mapping, Value};
use std::path::PathBuf;

/// An MCP server entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct McpServerConfig {
    pub name: String,
    pub transport: McpTransport,
    /// Per-request timeout override in seconds (default 30).
    pub timeout_s: Option<u64>,
    /// The file it came from (display form).
    pub source: String,
    /// Whether its tools' `readOnlyHint` may let a call skip the approval. A server's hints are
    /// its own claims (the MCP spec: untrusted unless the server is trusted), so only servers of
    /// the user's own config (`$MEWCODE_HOME/config.yaml`, `--config`) are believed, unless
    /// they say `trust_hints: false`; a repository's server (`.mewcode.yaml`, `.mcp.json`)
    /// never is. Hints still decide which calls may run concurrently.
    pub trust_hints: bool,
}

impl McpServerConfig {
    /// Whose word its tools' `readOnlyHint`s are, for `/mcp` and `mcp list`.
    pub(crate) fn hints_note(&self) -> String {
        if self.trust_hints {
            "trusted (your own config): read-only tools run without asking".to_string()
        } else if self.source == PROJECT_CONFIG || self.source == PROJECT_MCP_JSON {
            format!("not trusted (the project's {}): every call asks", self.source)
        } else {
            "not trusted (trust_hints: false): every call asks".to_string()
        }
    }
}

/// How to reach an MCP server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum McpTransport {
    Stdio { command: String, args: Vec<String>, env: Vec<(String, String)> },
    Http { url: String, headers: Vec<(String, String)>, ca_file: Option<PathBuf> },
}

const STDIO_KEYS: &[&str] = &["type", "command", "args", "env", "timeout_s", "trust_hints"];
const HTTP_KEYS: &[&str] = &["type", "url", "headers", "ca_file", "timeout_s", "trust_hints"];

/// The servers under `key` (`mcp_servers` or `mcpServers`), each replacing an earlier one of the
/// same name; a bad entry is skipped with a warning naming its key path.
pub(super) fn parse_mcp_servers(
    map: &Mapping,
    key: &str,
    ctx: &FileContext,
    servers: &mut Vec<McpServerConfig>,
    warnings: &mut Vec<Warning>,
) {
    match map.get(key) {
        None | Some(Value::Null) => {}
        Some(Value::Mapping(entries)) => {
            for (name, entry) in entries {
                let name = scalar_text(name);
                match parse_mcp_server(&name, entry, &format!("{key}.{name}"), ctx, warnings) {
                    Ok(server) => {
                        servers.retain(|existing| existing.name != server.name);
                        servers.push(server);
                    }
                    Err(message) => {
                        warnings.push(Warning::new(ctx.display, format!("{key}.{name}: {message}; server skipped")))
                    }
                }
            }
        }
        Some(other) => {
            let message = format!("{key}: expected a mapping of name to server, got {}; ignored", kind(other));
            warnings.push(Warning::new(ctx.display, message));
        }
    }
}

/// An MCP server entry; `Err` is the reason it is skipped. `type` may be left out, as Claude
/// Code's and Claude Desktop's blocks do: a `command` means stdio, a `url` means http.
/// `streamable-http` is another spelling of `http` (the transport's name in the MCP spec).
fn parse_mcp_server(
    name: &str,
    entry: &Value,
    path: &str,
    ctx: &FileContext,
    warnings: &mut Vec<Warning>,
) -> Result<McpServerConfig, String> {
    let Value::Mapping(map) = entry else { return Err(format!("expected a mapping, got {}", kind(entry))) };
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        return Err(format!("server name {name:?} must be made of letters, digits, '_' and '-'"));
    }
    let text = |key: &str| -> Result<Option<String>, String> {
        match map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(other) => Err(format!("{key}: expected a string, got {}", kind(other))),
        }
    };
    let timeout_s = match map.get("timeout_s") {
        None | Some(Value::Null) => None,
        Some(Value::Number(number)) => {
            Some(number.as_u64().filter(|&n| n > 0).ok_or("timeout_s: expected seconds > 0")?)
        }
        Some(other) => return Err(format!("timeout_s: expected a number, got {}", kind(other))),
    };
    let trust_hints = match map.get("trust_hints") {
        None | Some(Value::Null) => true,
        Some(Value::Bool(flag)) => *flag,
        Some(other) => return Err(format!("trust_hints: expected true or false, got {}", describe(other))),
    };
    let kind_of_server = match text("type")?.as_deref() {
        Some(kind) => kind.to_string(),
        None => match (map.contains_key("command"), map.contains_key("url")) {
            (true, false) => "stdio".to_string(),
            (false, true) => "http".to_string(),
            (true, true) => return Err("type: missing, and both command and url are given; say stdio or http".into()),
            (false, false) => return Err("needs a command (a stdio server) or a url (an http server)".to_string()),
        },
    };
    let transport = match kind_of_server.as_str() {
        "stdio" => {
            warn_unknown_keys(map, STDIO_KEYS, path, ctx, warnings);
            let command =
                text("command")?.filter(|command| !command.trim().is_empty()).ok_or("stdio needs a command")?;
            McpTransport::Stdio {
                command,
                args: string_list(map.get("args"), "args")?,
                env: string_map(map.get("env"), "env")?,
            }
        }
        "http" | "streamable-http" => {
            warn_unknown_keys(map, HTTP_KEYS, path, ctx, warnings);
            let url = text("url")?.filter(|url| !url.trim().is_empty()).ok_or("http needs a url")?;
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(format!("url: expected an http:// or https:// URL, got {url:?}"));
            }
            let ca_file = text("ca_file")?.filter(|file| !file.is_empty()).map(|file| ctx.dir.join(file));
            McpTransport::Http { url, headers: string_map(map.get("headers"), "headers")?, ca_file }
        }
        "sse" => {
            return Err("type: sse (the old HTTP+SSE transport) is not supported; use the server's Streamable \
                        HTTP endpoint (often /mcp) with type: http"
                .to_string());
        }
        other => return Err(format!("type: expected stdio|http (or streamable-http), got {other:?}")),
    };
    Ok(McpServerConfig { name: name.to_string(), transport, timeout_s, source: ctx.display.to_string(), trust_hints })
}

fn string_list(value: Option<&Value>, key: &str) -> Result<Vec<String>, String> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Sequence(items)) => items
            .iter()
            .enumerate()
            .map(|(index, item)| match item {
                Value::String(_) | Value::Number(_) | Value::Bool(_) => Ok(scalar_text(item)),
                other => Err(format!("{key}[{index}]: expected a string, got {}", kind(other))),
            })
            .collect(),
        Some(other) => Err(format!("{key}: expected a list of strings, got {}", kind(other))),
    }
}

fn string_map(value: Option<&Value>, key: &str) -> Result<Vec<(String, String)>, String> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Mapping(map)) => map
            .iter()
            .map(|(name, item)| match item {
                Value::String(_) | Value::Number(_) | Value::Bool(_) => Ok((scalar_text(name), scalar_text(item))),
                other => Err(format!("{key}.{}: expected a string, got {}", scalar_text(name), kind(other))),
            })
            .collect(),
        Some(other) => Err(format!("{key}: expected a mapping of strings, got {}", kind(other))),
    }
}
