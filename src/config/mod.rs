//! Configuration: the three config levels merged by entry name, `${VAR}` expansion, defaults.
//!
//! Invariant: loading returns `(Config, Vec<Warning>)`; hard errors name the file and key path.
//! Levels, lowest first: user (`$MEWCODE_HOME/config.yaml`), project (`<root>/.mewcode.yaml`,
//! only when trusted), invocation (`--config FILE`). A same-name entry of a higher level replaces
//! the lower one whole. No environment is read here: variables come in through a lookup.
//!
//! - `mod.rs` — the resolved `Config` and its parts, loading and merging the levels, picking a provider
//! - `capability.rs` — what a provider's model can do and who said so: the window's source, vision
//! - `error.rs` — `ConfigError` and `FileContext`: the file being read and an error naming its key path
//! - `file.rs` — one config file (or `.mcp.json`) parsed into its entries, before any merge
//! - `value.rs` — typed reads of one YAML value, each naming its key path
//! - `servers.rs` — the MCP server entry types, and the `mcp_servers`/`mcpServers` entries of a
//!   file, a bad one skipped with a warning
//! - `edit.rs` — one file's MCP servers added or removed in its text (`mewcode mcp add|remove`)
//! - `host_edit.rs` — one host added to a file's `sandbox.allow_hosts`, in its text ("always")
//! - `request.rs` — a provider's `temperature`, `top_p`, `headers` and `extra_body`
//! - `sandbox.rs` — the `sandbox:` key, parsed and merged (a project may only tighten it)
//! - `hosts.rs` — `sandbox.allow_hosts` entries and the hosts commands reach: parsed and matched
//! - `git_remotes.rs` — the hosts of a repository's git remotes, read from its `.git/config`
//! - `hooks.rs` — the hook events mewcode fires and one configured hook command
//! - `notify.rs` — the `notify:` key: how a waiting approval calls the person (bell, OSC 9/777)
//! - `checks.rs` — the `checks:` key: commands run after a matching file is written, their globs
//! - `lean.rs` — `lean_below` and `lean_tools`: when requests are lean, and the optional tools they keep
//! - `price.rs` — what a model's tokens cost, for `/cost`
//! - `expand.rs` — `${VAR}` expansion over a parsed YAML tree
//! - `protocol.rs` — the two wire protocols: their environment variables, endpoints, default windows
//! - `add_dirs.rs` — `--add-dir` and `add_dirs:`: extra directories, parsed, resolved and judged
//! - `project.rs` — where the project root is, and the directories whose instruction files count
//! - `trust.rs` — the trust gate's memory: trusted roots and their files' fingerprints
//! - `skills.rs` — skills: the `SKILL.md` folders of the user and the project, found, read and checked
//! - tests: each `x.rs` has its `x_tests.rs`; `tests.rs` tests loading and merging

pub(crate) mod add_dirs;
pub(crate) mod capability;
pub(crate) mod checks;
pub(crate) mod edit;
pub(crate) mod error;
pub(crate) mod expand;
pub(crate) mod file;
pub(crate) mod git_remotes;
mod hooks;
pub(crate) mod host_edit;
pub(crate) mod hosts;
pub(crate) mod lean;
mod notify;
pub(crate) mod price;
pub(crate) mod project;
mod protocol;
pub(crate) mod request;
pub(crate) mod sandbox;
pub(crate) mod servers;
pub(crate) mod skills;
pub(crate) mod trust;
pub(crate) mod value;

pub(crate) use crate::url::is_loopback_url;
use crate::warning::Warning;
pub(crate) use add_dirs::AddDir;
pub(crate) use capability::{Vision, VisionSource, WindowSource};
pub(crate) use checks::CheckConfig;
pub(crate) use error::ConfigError;
use error::FileContext;
use expand::Lookup;
use file::{ConfigFile, ProviderEntry, parse_config_file};
pub(crate) use hooks::{HookConfig, HookEvent};
pub(crate) use notify::Notify;
pub(crate) use protocol::Protocol;
pub(crate) use request::RequestSettings;
pub(crate) use sandbox::{NetworkMode, SandboxConfig, SandboxLimits, SandboxMode};
pub use servers::{McpServerConfig, McpTransport};
use std::path::{Path, PathBuf};

/// Output cap per request when the config does not say.
const DEFAULT_MAX_TOKENS: u32 = 8192;
/// Idle read timeout (seconds without a byte) when the config does not say.
const DEFAULT_IDLE_TIMEOUT_S: u64 = 120;

/// One resolved provider entry: every default applied, `${VAR}` expanded.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ProviderConfig {
    pub name: String,
    pub protocol: Protocol,
    pub model: String,
    /// The key to send; empty for keyless (loopback) endpoints.
    pub api_key: String,
    /// Anthropic only: a gateway token sent as `Authorization: Bearer` when `api_key` is empty
    /// (`ANTHROPIC_AUTH_TOKEN`); empty otherwise.
    pub auth_token: String,
    /// Where the key comes from or should come from, for Auth errors and doctor: e.g.
    /// `providers[0].api_key in /home/u/.mewcode/config.yaml` or `the ANTHROPIC_API_KEY environment variable`.
    pub api_key_hint: String,
    /// Base URL, no trailing slash, never empty after resolution. Anthropic: without the version
    /// (requests go to `{base_url}/v1/messages`); OpenAI: with it (`{base_url}/chat/completions`).
    pub base_url: String,
    /// Context window in tokens (anthropic 200000, openai 128000 by default), never 0: a
    /// config's 0 (or none) is resolved to the protocol's default here, once.
    pub context_window: u64,
    /// Where `context_window` comes from: the config, the server (`llm::discovery`) or the
    /// protocol default.
    pub window_source: WindowSource,
    /// Whether the model accepts images as configured or discovered; None: the default (read
    /// it through `vision()`).
    pub vision: Option<Vision>,
    /// Output cap per request.
    pub max_tokens: u32,
    /// Anthropic extended thinking (budget 16000).
    pub thinking: bool,
    /// Extra CA bundle (PEM) for private CAs.
    pub ca_file: Option<PathBuf>,
    /// Idle read timeout in seconds (no byte received).
    pub idle_timeout_s: u64,
    /// OpenAI only: the name of the output-cap field (`max_tokens` or `max_completion_tokens`).
    pub max_tokens_field: String,
    /// OpenAI only: send `stream_options: {include_usage: true}` (retried once without on rejection).
    pub stream_options: bool,
    /// Fraction of the window at which automatic compaction starts, if lower than the default.
    pub compact_at: Option<f64>,
    /// OpenAI only: recover tool calls a model wrote as text in its answer (`text_tool_calls:
    /// auto`, the default) or leave such text alone (`off`).
    pub text_tool_calls: bool,
    /// `temperature`, `top_p`, extra `headers` and `extra_body` added to every request.
    pub request: RequestSettings,
    /// The file the entry came from (display form), or "probe" for a detected local server.
    pub source: String,
    /// The configured `price`, overriding the built-in table (`price::price_for`).
    pub price: Option<price::Price>,
}

impl ProviderConfig {
    /// An OpenAI-compatible server of one's own (vLLM, llama.cpp, Ollama, a gateway): the OpenAI
    /// protocol at any base URL but the public endpoint's. Only such a server is asked for its
    /// window or counted with its tokenizer, and only it may cut a prompt silently.
    pub(crate) fn is_own_openai_server(&self) -> bool {
        self.protocol == Protocol::OpenAi && self.base_url != Protocol::OpenAi.default_base_url()
    }

    /// A provider with every default of SPEC §1.2 applied: the protocol's public endpoint, window
    /// and key variable, no key. Callers set what differs.
    pub(crate) fn with_defaults(name: &str, protocol: Protocol, model: &str) -> ProviderConfig {
        ProviderConfig {
            name: name.to_string(),
            protocol,
            model: model.to_string(),
            api_key: String::new(),
            auth_token: String::new(),
            api_key_hint: format!("the {} environment variable", protocol.key_env_var()),
            base_url: protocol.default_base_url().to_string(),
            context_window: protocol.default_context_window(),
            window_source: WindowSource::Default,
            vision: None,
            max_tokens: DEFAULT_MAX_TOKENS,
            thinking: false,
            ca_file: None,
            idle_timeout_s: DEFAULT_IDLE_TIMEOUT_S,
            max_tokens_field: "max_tokens".to_string(),
            stream_options: true,
            compact_at: None,
            text_tool_calls: true,
            request: RequestSettings::default(),
            source: String::new(),
            price: None,
        }
    }

    /// True when the endpoint is on this machine (no key needed, never proxied).
    pub(crate) fn is_loopback(&self) -> bool {
        is_loopback_url(&self.base_url)
    }
}

/// Which config level a file belongs to, lowest precedence first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Level {
    User,
    Project,
    Invocation,
}

/// One config file mewcode looked for, for `doctor` and the trust prompt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SourceFile {
    pub level: Level,
    pub path: PathBuf,
    pub display: String,
    pub found: bool,
    /// False only for a project file the user has not trusted (its entries were ignored).
    pub applied: bool,
}

/// The merged configuration.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Config {
    /// Every provider, resolved, in merge order.
    pub providers: Vec<ProviderConfig>,
    /// `default_provider` from the highest level that sets it, with that file's display name.
    pub default_provider: Option<(String, String)>,
    /// The first provider of the highest level that declares any: the fallback choice.
    pub first_provider: Option<String>,
    /// MCP servers sorted by name.
    pub mcp_servers: Vec<McpServerConfig>,
    /// Hooks; a level that declares any hook for an event replaces lower levels' hooks for it.
    pub hooks: Vec<HookConfig>,
    /// The files looked at, lowest level first.
    pub sources: Vec<SourceFile>,
    /// What an untrusted project config would enable (empty when trusted or absent).
    pub untrusted_project: Vec<String>,
    /// How commands are confined (`sandbox:`).
    pub sandbox: SandboxConfig,
    /// `bypass_in_mode_cycle: true`: Shift-Tab may reach bypass in the REPL. Only the user's own
    /// files (`config.yaml`, `--config`) can set it; a project's is ignored with a warning, since a
    /// repository must not bring bypass one keystroke closer.
    pub bypass_in_mode_cycle: bool,
    /// `notify:`: how a waiting approval calls the person (the highest level that sets it).
    pub notify: Notify,
    /// `lean_below` / `lean_tools`: the highest level that sets each key.
    pub lean: lean::LeanConfig,
    /// `checks:` of every level, lowest first; a level's checks of a pattern replace the lower
    /// levels' checks of that pattern (`checks::merge_checks`).
    pub checks: Vec<CheckConfig>,
    /// `add_dirs:` of the user's own files (a project's are ignored), resolved; `--add-dir`
    /// entries are added by the caller (`add_dirs::push`).
    pub add_dirs: Vec<AddDir>,
}

/// Where to look and how.
pub(crate) struct LoadOptions<'a> {
    /// `$MEWCODE_HOME` (default `~/.mewcode`), resolved by the caller.
    pub home: &'a Path,
    /// The project root.
    pub root: &'a Path,
    /// `--config FILE`, if given.
    pub extra: Option<&'a Path>,
    /// Whether the project's own config may take effect (trust gate, SPEC §1.2).
    pub project_trusted: bool,
    /// Environment lookup for `${VAR}` and the API-key fallback.
    pub lookup: Lookup<'a>,
}

/// The user's config file name under `$MEWCODE_HOME`.
const USER_CONFIG: &str = "config.yaml";
/// The project config file name under the root.
const PROJECT_CONFIG: &str = ".mewcode.yaml";
/// The project's MCP servers in Claude Code's shape (`mcpServers`), under the root; read behind
/// the same trust gate as `.mewcode.yaml`, whose servers win on a shared name.
const PROJECT_MCP_JSON: &str = ".mcp.json";

/// Reads and merges the three config levels.
pub(crate) fn load_config(options: &LoadOptions) -> Result<(Config, Vec<Warning>), ConfigError> {
    let mut warnings = Vec::new();
    let mut config = Config::default();
    let mut files: Vec<(Level, String, PathBuf, ConfigFile)> = Vec::new();
    let mut candidates = vec![
        (Level::User, options.home.join(USER_CONFIG), options.home.join(USER_CONFIG).display().to_string()),
        (Level::Project, options.root.join(PROJECT_MCP_JSON), PROJECT_MCP_JSON.to_string()),
        (Level::Project, options.root.join(PROJECT_CONFIG), PROJECT_CONFIG.to_string()),
    ];
    if let Some(extra) = options.extra {
        candidates.push((Level::Invocation, extra.to_path_buf(), extra.display().to_string()));
    }
    for (level, path, display) in candidates {
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => Some(text),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound && level != Level::Invocation => None,
            Err(err) => return Err(ConfigError { file: display, key_path: String::new(), message: err.to_string() }),
        };
        let trusted = level != Level::Project || options.project_trusted;
        config.sources.push(SourceFile {
            level,
            path: path.clone(),
            display: display.clone(),
            found: text.is_some(),
            applied: text.is_some() && trusted,
        });
        let Some(text) = text else { continue };
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let mcp_json = display == PROJECT_MCP_JSON;
        if trusted {
            let ctx = FileContext { display: &display, dir: &dir, lookup: Some(options.lookup) };
            // `.mcp.json` is another tool's file too: a broken one loses its servers, not the run.
            let parsed = if mcp_json { file::parse_mcp_json(&text, &ctx) } else { parse_config_file(&text, &ctx) };
            let (file, file_warnings) = match parsed {
                Ok(parsed) => parsed,
                Err(err) if mcp_json => {
                    warnings.push(Warning::new(display, format!("{}; its servers are not started", err.message)));
                    continue;
                }
                Err(err) => return Err(err),
            };
            warnings.extend(file_warnings);
            if file.has_permissions && level != Level::Invocation {
                let message = "permissions: ignored here: permission rules go in settings.yaml (or a --config file)";
                warnings.push(Warning::new(display.clone(), message.to_string()));
            }
            files.push((level, display, dir, file));
        } else {
            let items = describe_untrusted(&text, &display, &dir, mcp_json);
            if !items.is_empty() {
                let message = format!(
                    "project config not trusted, so it is ignored: {} (trust the project in the REPL, or pass --trust)",
                    items.join(", ")
                );
                warnings.push(Warning::new(display, message));
            }
            config.untrusted_project.extend(items);
        }
    }
    merge(&mut config, files, options, &mut warnings)?;
    Ok((config, warnings))
}

/// Picks the provider to use: `--provider NAME`, else `default_provider`, else the first one.
/// Returns a warning when the chosen cloud provider has no key.
pub(crate) fn select_provider(
    config: &Config,
    requested: Option<&str>,
) -> Result<(ProviderConfig, Option<Warning>), String> {
    let names = || config.providers.iter().map(|provider| provider.name.as_str()).collect::<Vec<_>>().join(", ");
    let wanted = match (requested, &config.default_provider) {
        (Some(name), _) => name.to_string(),
        (None, Some((name, _))) => name.clone(),
        (None, None) => match &config.first_provider {
            Some(name) => name.clone(),
            None => return Err("no provider configured".to_string()),
        },
    };
    let Some(provider) = config.providers.iter().find(|provider| provider.name == wanted) else {
        let origin = match (requested, &config.default_provider) {
            (Some(_), _) => "--provider".to_string(),
            (None, Some((_, file))) => format!("{file}: default_provider"),
            (None, None) => "provider".to_string(),
        };
        return Err(format!("{origin}: no provider named {wanted:?} (configured: {})", names()));
    };
    let keyless = provider.api_key.is_empty() && provider.auth_token.is_empty();
    let warning = (keyless && !provider.is_loopback()).then(|| {
        Warning::new(format!("provider {}", provider.name), format!("no API key: set {}", provider.api_key_hint))
    });
    Ok((provider.clone(), warning))
}

fn merge(
    config: &mut Config,
    files: Vec<(Level, String, PathBuf, ConfigFile)>,
    options: &LoadOptions,
    warnings: &mut Vec<Warning>,
) -> Result<(), ConfigError> {
    let home = (options.lookup)("HOME").filter(|home| !home.is_empty()).map(PathBuf::from);
    for (level, display, dir, file) in files {
        if let Some(entry) = file.sandbox {
            sandbox::merge_sandbox(&mut config.sandbox, entry, level, &display, &dir, home.as_deref(), warnings);
        }
        match (file.bypass_in_mode_cycle, level) {
            (Some(true), Level::Project) => warnings.push(Warning::new(
                display.clone(),
                "bypass_in_mode_cycle is ignored in a project's config; only your own config.yaml can put bypass \
                 in the Shift-Tab cycle",
            )),
            (Some(allowed), Level::User | Level::Invocation) => config.bypass_in_mode_cycle = allowed,
            (Some(false) | None, _) => {}
        }
        if let Some(notify) = file.notify {
            config.notify = notify;
        }
        file.lean.apply(&mut config.lean);
        checks::merge_checks(&mut config.checks, file.checks);
        let places = add_dirs::Places { home: home.as_deref(), mewcode_home: options.home, root: options.root };
        add_dirs::merge(&mut config.add_dirs, &file.add_dirs, (level, &display, &dir), &places, warnings);
        if let Some(name) = file.default_provider.filter(|name| !name.is_empty()) {
            config.default_provider = Some((name, display.clone()));
        }
        if let Some(first) = file.providers.first() {
            config.first_provider = Some(first.name.clone());
        }
        for entry in file.providers {
            let resolved = resolve_provider(entry, &display, options.lookup);
            match config.providers.iter_mut().find(|existing| existing.name == resolved.name) {
                Some(existing) => *existing = resolved,
                None => config.providers.push(resolved),
            }
        }
        for mut server in file.mcp_servers {
            // A repository's server is believed about nothing (see `McpServerConfig::trust_hints`).
            server.trust_hints &= level != Level::Project;
            config.mcp_servers.retain(|existing| existing.name != server.name);
            config.mcp_servers.push(server);
        }
        let events: Vec<HookEvent> = file.hooks.iter().map(|hook| hook.event).collect();
        config.hooks.retain(|hook| !events.contains(&hook.event));
        // Only a project's hooks stay in the sandbox: the user's own run as the user.
        let confined = level == Level::Project;
        config.hooks.extend(file.hooks.into_iter().map(|hook| HookConfig { confined, ..hook }));
    }
    config.mcp_servers.sort_by(|a, b| a.name.cmp(&b.name));
    if let Some((name, file)) = &config.default_provider
        && !config.providers.iter().any(|provider| &provider.name == name)
    {
        let names: Vec<&str> = config.providers.iter().map(|provider| provider.name.as_str()).collect();
        let message = format!("no provider named {name:?} (configured: {})", names.join(", "));
        return Err(ConfigError { file: file.clone(), key_path: "default_provider".to_string(), message });
    }
    Ok(())
}

fn resolve_provider(entry: ProviderEntry, display: &str, lookup: Lookup) -> ProviderConfig {
    let protocol = entry.protocol;
    let key_var = protocol.key_env_var();
    let config_key = format!("providers[{}].api_key in {display}", entry.index);
    let (api_key, api_key_hint) = if entry.api_key.is_empty() {
        let from_env = lookup(key_var).unwrap_or_default();
        let hint = if from_env.is_empty() {
            format!("the {key_var} environment variable, or {config_key}")
        } else {
            format!("the {key_var} environment variable")
        };
        (from_env, hint)
    } else {
        (entry.api_key, config_key)
    };
    let token_var = protocol.token_env_var().filter(|_| api_key.is_empty());
    let auth_token = token_var.and_then(lookup).map(|token| token.trim().to_string()).unwrap_or_default();
    let api_key_hint = match token_var {
        Some(var) if !auth_token.is_empty() => format!("the {var} environment variable"),
        _ => api_key_hint,
    };
    let base_url = if entry.base_url.is_empty() {
        env_base_url(protocol, lookup).unwrap_or_else(|| protocol.default_base_url().to_string())
    } else {
        entry.base_url
    };
    let max_tokens_field = entry.max_tokens_field.unwrap_or_else(|| {
        if base_url.contains("://api.openai.com") { "max_completion_tokens" } else { "max_tokens" }.to_string()
    });
    ProviderConfig {
        name: entry.name,
        protocol,
        model: entry.model,
        api_key,
        auth_token,
        api_key_hint,
        context_window: if entry.context_window == 0 {
            protocol.default_context_window()
        } else {
            entry.context_window
        },
        window_source: if entry.context_window == 0 { WindowSource::Default } else { WindowSource::Configured },
        vision: Vision::configured(entry.vision),
        max_tokens: entry.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
        thinking: entry.thinking,
        ca_file: entry.ca_file,
        idle_timeout_s: entry.idle_timeout_s.unwrap_or(DEFAULT_IDLE_TIMEOUT_S),
        max_tokens_field,
        stream_options: entry.stream_options.unwrap_or(true),
        compact_at: entry.compact_at,
        text_tool_calls: entry.text_tool_calls.unwrap_or(true),
        request: entry.request,
        base_url,
        source: display.to_string(),
        price: entry.price,
    }
}

/// `ANTHROPIC_BASE_URL` / `OPENAI_BASE_URL` (else `OPENAI_API_BASE`) when set and not empty,
/// without a trailing slash.
pub(crate) fn env_base_url(protocol: Protocol, lookup: Lookup) -> Option<String> {
    env_base_url_from(protocol, lookup).map(|(_, url)| url)
}

/// [`env_base_url`] with the variable it came from.
pub(crate) fn env_base_url_from(protocol: Protocol, lookup: Lookup) -> Option<(&'static str, String)> {
    protocol.base_url_env_vars().iter().find_map(|&var| {
        lookup(var)
            .map(|url| url.trim().trim_end_matches('/').to_string())
            .filter(|url| !url.is_empty())
            .map(|url| (var, url))
    })
}

/// Lists what an untrusted project file declares, without expanding variables. A file that does
/// not parse is described as such (it would be an error once trusted).
fn describe_untrusted(text: &str, display: &str, dir: &Path, mcp_json: bool) -> Vec<String> {
    let ctx = FileContext { display, dir, lookup: None };
    let parsed = if mcp_json { file::parse_mcp_json(text, &ctx) } else { parse_config_file(text, &ctx) };
    match parsed {
        Ok((file, _)) => {
            let mut items = Vec::new();
            for provider in &file.providers {
                let url = if provider.base_url.is_empty() { "default endpoint" } else { &provider.base_url };
                items.push(format!("provider {} ({url})", provider.name));
            }
            for server in &file.mcp_servers {
                let what = match &server.transport {
                    McpTransport::Stdio { command, args, .. } => format!("{command} {}", args.join(" ")),
                    McpTransport::Http { url, .. } => url.clone(),
                };
                let origin = if mcp_json { format!(" from {display}") } else { String::new() };
                items.push(format!("MCP server {}{origin} ({})", server.name, what.trim()));
            }
            for hook in &file.hooks {
                items.push(format!("{} hook `{}`", hook.event.as_str(), hook.command));
            }
            for check in &file.checks {
                items.push(format!("check `{}` after writing {}", check.command, check.pattern.as_str()));
            }
            if let Some(sandbox) = &file.sandbox {
                if sandbox.mode == Some(SandboxMode::Required) {
                    items.push("sandbox mode required".to_string());
                }
                if let Some(mode @ (NetworkMode::Off | NetworkMode::Allowlist)) = sandbox.network {
                    items.push(format!("sandbox network {}", mode.as_str()));
                }
            }
            if file.default_provider.is_some() && items.is_empty() {
                items.push("default_provider".to_string());
            }
            items
        }
        Err(err) => vec![format!("a config that does not load ({err})")],
    }
}

#[cfg(test)]
mod tests;
