//! One config file: YAML text in, validated entries out, every error naming the key path.
//!
//! Invariant: pure (text and a variable lookup in, values out). A bad provider or unreadable
//! YAML is an error; a bad MCP server or hook entry is skipped with a warning; unknown keys are
//! warnings (they are usually typos). Nothing here applies defaults that depend on other files.

use super::error::{ConfigError, FileContext, error};
use super::expand::expand_tree;
use super::request::{RequestSettings, parse_request_settings};
use super::servers::parse_mcp_servers;
use super::value::{describe, join, kind, opt_bool, opt_f64, opt_string, opt_u64, scalar_text, warn_unknown_keys};
use super::{HookConfig, HookEvent, McpServerConfig, Protocol};
use crate::warning::Warning;
use serde_yaml::{Mapping, Value};
use std::collections::BTreeSet;
use std::path::PathBuf;

/// A provider entry as written in one file (defaults not applied yet).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ProviderEntry {
    /// Position in the file's `providers` list, for key paths in later messages.
    pub index: usize,
    pub name: String,
    pub protocol: Protocol,
    pub model: String,
    pub api_key: String,
    pub base_url: String,
    pub context_window: u64,
    pub max_tokens: Option<u32>,
    pub thinking: bool,
    pub ca_file: Option<PathBuf>,
    pub idle_timeout_s: Option<u64>,
    pub max_tokens_field: Option<String>,
    pub stream_options: Option<bool>,
    pub compact_at: Option<f64>,
    /// `text_tool_calls: auto|off`, as a switch (None = not set).
    pub text_tool_calls: Option<bool>,
    /// `temperature`, `top_p`, `headers`, `extra_body`.
    pub request: RequestSettings,
    /// `price: {input, output[, cache_write, cache_read]}`, USD per million tokens (`/cost`).
    pub price: Option<super::price::Price>,
    /// `vision: true|false`: the model accepts images (None = not set: discovered or default).
    pub vision: Option<bool>,
}

/// Everything one file declares.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ConfigFile {
    pub default_provider: Option<String>,
    pub providers: Vec<ProviderEntry>,
    pub mcp_servers: Vec<McpServerConfig>,
    pub hooks: Vec<HookConfig>,
    /// The `sandbox:` key, when the file has it.
    pub sandbox: Option<super::sandbox::SandboxEntry>,
    /// `bypass_in_mode_cycle:`, when the file has it.
    pub bypass_in_mode_cycle: Option<bool>,
    /// `notify:`, when the file has it.
    pub notify: Option<super::Notify>,
    /// The file has a `permissions:` block (its rules are read by `permission::store`, and
    /// apply only from a `--config` file).
    pub has_permissions: bool,
    /// `lean_below:` and `lean_tools:`, as far as the file sets them.
    pub lean: super::lean::LeanEntry,
    /// `checks:`, in file order.
    pub checks: Vec<super::checks::CheckConfig>,
    /// `add_dirs:` as written (`DIR`, `DIR:ro`), resolved against `dir` when merged.
    pub add_dirs: Vec<String>,
}

const TOP_KEYS: &[&str] = &[
    "default_provider",
    "providers",
    "mcp_servers",
    "mcpServers",
    "hooks",
    "sandbox",
    "bypass_in_mode_cycle",
    "notify",
    "permissions",
    "lean_below",
    "lean_tools",
    "checks",
    "add_dirs",
];
const PROVIDER_KEYS: &[&str] = &[
    "name",
    "protocol",
    "model",
    "api_key",
    "base_url",
    "context_window",
    "max_tokens",
    "thinking",
    "ca_file",
    "idle_timeout_s",
    "max_tokens_field",
    "stream_options",
    "compact_at",
    "text_tool_calls",
    "temperature",
    "top_p",
    "headers",
    "extra_body",
    "price",
    "vision",
];
/// The keys MCP servers are listed under: mewcode's own, and the `mcpServers` of Claude Code,
/// Claude Desktop and `.mcp.json`, so a block pasted from their docs works as it is. A name in
/// both: `mcp_servers` wins.
const SERVER_KEYS: [&str; 2] = ["mcpServers", "mcp_servers"];

/// Parses and validates one config file's text.
pub(crate) fn parse_config_file(text: &str, ctx: &FileContext) -> Result<(ConfigFile, Vec<Warning>), ConfigError> {
    let mut warnings = Vec::new();
    let mut root: Value = match serde_yaml::from_str(text) {
        Ok(value) => value,
        Err(err) => return Err(error(ctx, "", format!("invalid YAML: {err}"))),
    };
    expand(&mut root, ctx, &mut warnings);
    let map = match root {
        Value::Null => return Ok((ConfigFile::default(), warnings)),
        Value::Mapping(map) => map,
        _ => return Err(error(ctx, "", "expected a mapping at the top level".to_string())),
    };
    warn_unknown_keys(&map, TOP_KEYS, "", ctx, &mut warnings);
    let mut file = ConfigFile {
        default_provider: opt_string(&map, "default_provider", "", ctx)?,
        bypass_in_mode_cycle: opt_bool(&map, "bypass_in_mode_cycle", "", ctx)?,
        notify: match opt_string(&map, "notify", "", ctx)? {
            Some(name) => Some(super::Notify::parse(&name).ok_or_else(|| {
                error(ctx, "notify", format!("unknown value {name:?}; expected {}", super::Notify::CHOICES))
            })?),
            None => None,
        },
        has_permissions: map.contains_key("permissions"),
        lean: super::lean::parse_lean(&map, ctx)?,
        checks: super::checks::parse_checks(&map, ctx, &mut warnings)?,
        add_dirs: super::add_dirs::parse_add_dirs(&map, ctx)?,
        ..ConfigFile::default()
    };
    match map.get("providers") {
        None | Some(Value::Null) => {}
        Some(Value::Sequence(items)) => {
            for (index, item) in items.iter().enumerate() {
                let entry = parse_provider(item, index, ctx, &mut warnings)?;
                if file.providers.iter().any(|existing| existing.name == entry.name) {
                    let message = format!("duplicate provider name {:?}", entry.name);
                    return Err(error(ctx, &format!("providers[{index}].name"), message));
                }
                file.providers.push(entry);
            }
        }
        Some(other) => return Err(error(ctx, "providers", format!("expected a list, got {}", kind(other)))),
    }
    for key in SERVER_KEYS {
        parse_mcp_servers(&map, key, ctx, &mut file.mcp_servers, &mut warnings);
    }
    match map.get("hooks") {
        None | Some(Value::Null) => {}
        Some(Value::Mapping(events)) => {
            for (event, groups) in events {
                parse_hook_event(&scalar_text(event), groups, ctx, &mut file.hooks, &mut warnings);
            }
        }
        Some(other) => {
            let message =
                format!("hooks: expected a mapping of event name to matcher groups, got {}; ignored", kind(other));
            warnings.push(Warning::new(ctx.display, message));
        }
    }
    if let Some(value) = map.get("sandbox") {
        file.sandbox = Some(super::sandbox::parse_sandbox(value, ctx.display, &mut warnings)?);
    }
    Ok((file, warnings))
}

/// A project's `.mcp.json` (Claude Code's shape: `{"mcpServers": {name: {...}}}`). Only its
/// servers are read; any other key belongs to another tool and is left alone. `${VAR}` expands
/// as in a YAML file (when the lookup allows it).
pub(crate) fn parse_mcp_json(text: &str, ctx: &FileContext) -> Result<(ConfigFile, Vec<Warning>), ConfigError> {
    let mut warnings = Vec::new();
    let json: serde_json::Value =
        serde_json::from_str(text).map_err(|err| error(ctx, "", format!("invalid JSON: {err}")))?;
    let mut root = serde_yaml::to_value(json).map_err(|err| error(ctx, "", format!("invalid JSON: {err}")))?;
    expand(&mut root, ctx, &mut warnings);
    let Value::Mapping(map) = root else {
        return Err(error(ctx, "", "expected an object with mcpServers at the top level".to_string()));
    };
    let mut file = ConfigFile::default();
    parse_mcp_servers(&map, "mcpServers", ctx, &mut file.mcp_servers, &mut warnings);
    Ok((file, warnings))
}

/// `${VAR}` expansion of a whole file, when its context allows it; undefined names are one warning.
fn expand(root: &mut Value, ctx: &FileContext, warnings: &mut Vec<Warning>) {
    let Some(lookup) = ctx.lookup else { return };
    let mut undefined = BTreeSet::new();
    expand_tree(root, lookup, &mut undefined);
    if !undefined.is_empty() {
        let names: Vec<&str> = undefined.iter().map(String::as_str).collect();
        warnings.push(Warning::new(
            ctx.display,
            format!("undefined environment variables expanded to empty strings: {}", names.join(", ")),
        ));
    }
}

fn parse_provider(
    item: &Value,
    index: usize,
    ctx: &FileContext,
    warnings: &mut Vec<Warning>,
) -> Result<ProviderEntry, ConfigError> {
    let path = format!("providers[{index}]");
    let Value::Mapping(map) = item else {
        return Err(error(ctx, &path, format!("expected a mapping, got {}", kind(item))));
    };
    warn_unknown_keys(map, PROVIDER_KEYS, &path, ctx, warnings);
    let name = opt_string(map, "name", &path, ctx)?.unwrap_or_default();
    if name.trim().is_empty() {
        return Err(error(ctx, &format!("{path}.name"), "missing provider name".to_string()));
    }
    let protocol = match opt_string(map, "protocol", &path, ctx)?.as_deref() {
        Some("anthropic") => Protocol::Anthropic,
        Some("openai") => Protocol::OpenAi,
        Some(other) => {
            let message = format!("expected anthropic|openai, got {other:?}");
            return Err(error(ctx, &format!("{path}.protocol"), message));
        }
        None => return Err(error(ctx, &format!("{path}.protocol"), "missing; expected anthropic|openai".to_string())),
    };
    let model = opt_string(map, "model", &path, ctx)?.unwrap_or_default();
    if model.trim().is_empty() {
        let message = "missing model (there is no default model; name one, e.g. model: claude-sonnet-4-5)";
        return Err(error(ctx, &format!("{path}.model"), message.to_string()));
    }
    let base_url = opt_string(map, "base_url", &path, ctx)?;
    if base_url.as_deref().is_some_and(|url| url.trim().is_empty()) {
        // Usually `base_url: ${VAR}` with VAR unset: falling back to the public endpoint would
        // send the key and the code somewhere the user did not choose.
        let message = "empty (an unset ${VAR}?); remove the key to use the protocol's public endpoint".to_string();
        return Err(error(ctx, &format!("{path}.base_url"), message));
    }
    let base_url = base_url.unwrap_or_default();
    if !(base_url.is_empty() || base_url.starts_with("http://") || base_url.starts_with("https://")) {
        let message = format!("expected an http:// or https:// URL, got {base_url:?}");
        return Err(error(ctx, &format!("{path}.base_url"), message));
    }
    let max_tokens = opt_u64(map, "max_tokens", &path, ctx)?;
    let max_tokens = match max_tokens {
        Some(0) => return Err(error(ctx, &format!("{path}.max_tokens"), "must be greater than 0".to_string())),
        Some(value) => Some(
            u32::try_from(value)
                .map_err(|_| error(ctx, &format!("{path}.max_tokens"), format!("{value} is too large")))?,
        ),
        None => None,
    };
    let idle_timeout_s = opt_u64(map, "idle_timeout_s", &path, ctx)?;
    if idle_timeout_s == Some(0) {
        return Err(error(ctx, &format!("{path}.idle_timeout_s"), "must be greater than 0".to_string()));
    }
    let max_tokens_field = opt_string(map, "max_tokens_field", &path, ctx)?;
    if let Some(field) = &max_tokens_field
        && field != "max_tokens"
        && field != "max_completion_tokens"
    {
        let message = format!("expected max_tokens|max_completion_tokens, got {field:?}");
        return Err(error(ctx, &format!("{path}.max_tokens_field"), message));
    }
    let compact_at = opt_f64(map, "compact_at", &path, ctx)?;
    if let Some(fraction) = compact_at
        && !(fraction > 0.0 && fraction <= 1.0)
    {
        let message = format!("expected a fraction of the window in (0, 1], got {fraction}");
        return Err(error(ctx, &format!("{path}.compact_at"), message));
    }
    let thinking = opt_bool(map, "thinking", &path, ctx)?.unwrap_or(false);
    if thinking && protocol == Protocol::OpenAi {
        warnings
            .push(Warning::new(ctx.display, format!("{path}.thinking: only the anthropic protocol has it; ignored")));
    }
    let text_tool_calls = match opt_string(map, "text_tool_calls", &path, ctx)?.as_deref() {
        None => None,
        Some("auto") => Some(true),
        Some("off") => Some(false),
        Some(other) => {
            let message = format!("expected auto|off, got {other:?}");
            return Err(error(ctx, &format!("{path}.text_tool_calls"), message));
        }
    };
    if text_tool_calls.is_some() && protocol == Protocol::Anthropic {
        let message = format!("{path}.text_tool_calls: only the openai protocol has it; ignored");
        warnings.push(Warning::new(ctx.display, message));
    }
    let ca_file =
        opt_string(map, "ca_file", &path, ctx)?.filter(|file| !file.is_empty()).map(|file| ctx.dir.join(file));
    Ok(ProviderEntry {
        index,
        name,
        protocol,
        model,
        api_key: opt_string(map, "api_key", &path, ctx)?.unwrap_or_default(),
        base_url: base_url.trim_end_matches('/').to_string(),
        context_window: opt_u64(map, "context_window", &path, ctx)?.unwrap_or(0),
        max_tokens,
        thinking: thinking && protocol == Protocol::Anthropic,
        ca_file,
        idle_timeout_s,
        max_tokens_field,
        stream_options: opt_bool(map, "stream_options", &path, ctx)?,
        compact_at,
        text_tool_calls,
        request: parse_request_settings(map, &path, ctx)?,
        price: parse_price(map, &path, ctx)?,
        vision: opt_bool(map, "vision", &path, ctx)?,
    })
}

/// `price: {input: 3.0, output: 15.0, cache_write: 3.75, cache_read: 0.3}`: USD per million
/// tokens; `input` and `output` are required, the cache rates default from `input`.
fn parse_price(map: &Mapping, path: &str, ctx: &FileContext) -> Result<Option<super::price::Price>, ConfigError> {
    let path = join(path, "price");
    let price = match map.get("price") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Mapping(price)) => price,
        Some(other) => {
            let message = format!("expected {{input: N, output: N}} in USD per million tokens, got {}", kind(other));
            return Err(error(ctx, &path, message));
        }
    };
    for key in price.keys() {
        let known = ["input", "output", "cache_write", "cache_read"];
        if !key.as_str().is_some_and(|key| known.contains(&key)) {
            let message = format!("unknown key {}; expected {}", describe(key), known.join(", "));
            return Err(error(ctx, &path, message));
        }
    }
    let rate = |key: &str| -> Result<Option<f64>, ConfigError> {
        match opt_f64(price, key, &path, ctx)? {
            Some(value) if !(value >= 0.0 && value.is_finite()) => {
                Err(error(ctx, &join(&path, key), format!("expected a price >= 0, got {value}")))
            }
            value => Ok(value),
        }
    };
    let required = |key: &str| -> Result<f64, ConfigError> {
        rate(key)?.ok_or_else(|| error(ctx, &join(&path, key), "missing (USD per million tokens)".to_string()))
    };
    let mut resolved = super::price::Price::new(required("input")?, required("output")?);
    if let Some(value) = rate("cache_write")? {
        resolved.cache_write = value;
    }
    if let Some(value) = rate("cache_read")? {
        resolved.cache_read = value;
    }
    Ok(Some(resolved))
}

/// Claude Code's hook layout: `EVENT: [{matcher: "Bash", hooks: [{type: command, command, timeout}]}]`.
fn parse_hook_event(
    event_name: &str,
    groups: &Value,
    ctx: &FileContext,
    hooks: &mut Vec<HookConfig>,
    warnings: &mut Vec<Warning>,
) {
    let mut warn = |message: String| warnings.push(Warning::new(ctx.display, format!("hooks.{event_name}{message}")));
    let Some(event) = HookEvent::parse(event_name) else {
        warn(": unknown hook event; expected PreToolUse, PostToolUse, UserPromptSubmit or Stop; ignored".to_string());
        return;
    };
    let Value::Sequence(groups) = groups else {
        warn(format!(": expected a list of matcher groups, got {}; ignored", kind(groups)));
        return;
    };
    for (group_index, group) in groups.iter().enumerate() {
        let Value::Mapping(group) = group else {
            warn(format!("[{group_index}]: expected a mapping; ignored"));
            continue;
        };
        let matcher = match group.get("matcher") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(matcher)) => matcher.clone(),
            Some(other) => {
                warn(format!("[{group_index}].matcher: expected a string, got {}; group ignored", kind(other)));
                continue;
            }
        };
        let Some(Value::Sequence(commands)) = group.get("hooks") else {
            warn(format!("[{group_index}].hooks: expected a list of commands; group ignored"));
            continue;
        };
        for (command_index, command) in commands.iter().enumerate() {
            let at = format!("[{group_index}].hooks[{command_index}]");
            let Value::Mapping(command) = command else {
                warn(format!("{at}: expected a mapping; ignored"));
                continue;
            };
            match command.get("type") {
                None | Some(Value::Null) => {}
                Some(Value::String(kind)) if kind == "command" => {}
                Some(_) => {
                    warn(format!("{at}.type: only type: command is supported; ignored"));
                    continue;
                }
            }
            let Some(Value::String(text)) = command.get("command").filter(|value| value.as_str() != Some("")) else {
                warn(format!("{at}.command: missing; ignored"));
                continue;
            };
            let timeout_s = match command.get("timeout") {
                None | Some(Value::Null) => None,
                Some(value) => match value.as_u64().filter(|&seconds| seconds > 0) {
                    Some(seconds) => Some(seconds),
                    None => {
                        warn(format!("{at}.timeout: expected seconds > 0; ignored"));
                        continue;
                    }
                },
            };
            let (matcher, command, source) = (matcher.clone(), text.clone(), ctx.display.to_string());
            hooks.push(HookConfig { event, matcher, command, timeout_s, source, confined: true });
        }
    }
}
