//! Choosing the provider: the configured one, else a local server found by the probe, else
//! the setup guide.
//!
//! Invariant: the probe never takes more than its 300 ms budget.
#![expect(clippy::print_stderr, reason = "the setup guide goes to stderr when no model is configured")]

use super::{Env, Exit, Launch};
use crate::config;
use crate::config::{Config, Protocol, ProviderConfig, WindowSource};
use crate::http::net::NetEnv;
use crate::llm::discovery;
use crate::llm::probe;
use crate::llm::probe::DEFAULT_PROBE_PORTS;
use crate::llm::window_cache::{self, WindowCache};
use crate::warning::Warning;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The provider to use: the configured choice, else a local server found by the probe, else
/// the setup guide (exit 2).
pub(super) fn choose_provider(
    launch: &Launch,
    config: &Config,
    warnings: &mut Vec<Warning>,
) -> Result<ProviderConfig, Exit> {
    let Launch { options, env, .. } = launch;
    if config.providers.is_empty() {
        if let Some(mut provider) = env_provider(launch)? {
            if options.provider.is_none() && both_protocols_set(env) {
                let message = format!(
                    "no provider configured and both ANTHROPIC_* and OPENAI_* variables are set; using {} \
                     from {} (--provider anthropic|openai chooses)",
                    provider.name, provider.source
                );
                warnings.push(Warning::new("", message));
            }
            discover_window(&mut provider, launch, warnings);
            return Ok(provider);
        }
        if let Some(name) = &options.provider {
            return Err(Exit::Config(format!("--provider: no provider named {name:?} (none configured)")));
        }
        let ports = probe_ports(env);
        let Some(server) = probe::probe_local(&ports, PROBE_BUDGET) else {
            let user_config = config.sources.first().map(|s| s.path.clone()).unwrap_or_default();
            eprint!("{}", setup_guide(&user_config, &ports));
            return Err(Exit::Config("no model provider configured and no local server answered".to_string()));
        };
        let model = options.model.clone().unwrap_or_else(|| server.models[0].clone());
        warnings.push(Warning::new(
            "",
            format!(
                "no provider configured; using the local {} server at {} with model {model}",
                server.kind, server.base_url
            ),
        ));
        let mut provider = local_provider(&server.kind, &server.base_url, &model);
        discover_window(&mut provider, launch, warnings);
        return Ok(provider);
    }
    let (mut provider, warning) = config::select_provider(config, options.provider.as_deref()).map_err(Exit::Config)?;
    warnings.extend(warning);
    // flag > environment > files: MEWCODE_MODEL is mewcode's own, so it may replace a file's
    // model; ANTHROPIC_MODEL/OPENAI_MODEL are other tools' too and only name an implicit one.
    let env_model = env.get("MEWCODE_MODEL").filter(|model| !model.trim().is_empty());
    if let Some(model) = options.model.clone().or(env_model) {
        provider.model = model;
    }
    discover_window(&mut provider, launch, warnings);
    Ok(provider)
}

/// With no provider configured, one built from the variables users already export for other
/// tools: `ANTHROPIC_API_KEY` (or a gateway's `ANTHROPIC_AUTH_TOKEN`)/`ANTHROPIC_BASE_URL`,
/// `OPENAI_API_KEY`/`OPENAI_BASE_URL` (or `OPENAI_API_BASE`). When both protocols' variables
/// are set, the one with a base URL wins (an endpoint is a
/// deliberate choice; a key is often left over from another tool), then Anthropic;
/// `--provider anthropic|openai` picks explicitly. The model is `--model`, else
/// `MEWCODE_MODEL`, else `ANTHROPIC_MODEL`/`OPENAI_MODEL`, else the server's `/models` list
/// when it lists exactly one.
pub(super) fn env_provider(launch: &Launch) -> Result<Option<ProviderConfig>, Exit> {
    let Launch { options, env, .. } = launch;
    let set = |name: &str| env.get(name).filter(|value| !value.trim().is_empty());
    let lookup = |name: &str| env.get(name);
    let available: Vec<Protocol> =
        [Protocol::Anthropic, Protocol::OpenAi].into_iter().filter(|protocol| protocol_set(*protocol, env)).collect();
    let protocol = match &options.provider {
        Some(name) => match available.iter().find(|protocol| protocol.as_str() == name) {
            Some(protocol) => *protocol,
            None if available.is_empty() => return Ok(None),
            None => {
                let names: Vec<&str> = available.iter().map(|protocol| protocol.as_str()).collect();
                let message = format!(
                    "--provider: no provider named {name:?} (none configured; from the environment: {})",
                    names.join(", ")
                );
                return Err(Exit::Config(message));
            }
        },
        None => {
            let with_url = available.iter().find(|protocol| config::env_base_url(**protocol, &lookup).is_some());
            match with_url.or(available.first()) {
                Some(protocol) => *protocol,
                None => return Ok(None),
            }
        }
    };
    let base_url = config::env_base_url_from(protocol, &lookup);
    let api_key = set(protocol.key_env_var()).unwrap_or_default();
    let token = protocol.token_env_var().filter(|_| api_key.is_empty()).and_then(|var| Some((var, set(var)?)));
    let key_var = token.as_ref().map_or(protocol.key_env_var(), |(var, _)| var);
    let source = match &base_url {
        Some((var, _)) => format!("the {var} environment variable"),
        None => format!("the {key_var} environment variable"),
    };
    let mut provider = ProviderConfig {
        api_key_hint: format!("the {key_var} environment variable"),
        base_url: base_url.map_or_else(|| protocol.default_base_url().to_string(), |(_, url)| url),
        source,
        api_key,
        auth_token: token.map(|(_, token)| token.trim().to_string()).unwrap_or_default(),
        ..ProviderConfig::with_defaults(protocol.as_str(), protocol, "")
    };
    if provider.base_url.contains("://api.openai.com") {
        provider.max_tokens_field = "max_completion_tokens".to_string();
    }
    let named = options.model.clone().or_else(|| set("MEWCODE_MODEL")).or_else(|| set(protocol.model_env_var()));
    provider.model = match named {
        Some(model) => model,
        None => model_from_server(&provider, env)?,
    };
    Ok(Some(provider))
}

fn both_protocols_set(env: &Env) -> bool {
    [Protocol::Anthropic, Protocol::OpenAi].into_iter().all(|protocol| protocol_set(protocol, env))
}

/// Whether any of a protocol's variables (key, token, base URL) is set and not empty.
fn protocol_set(protocol: Protocol, env: &Env) -> bool {
    std::iter::once(protocol.key_env_var())
        .chain(protocol.token_env_var())
        .chain(protocol.base_url_env_vars().iter().copied())
        .any(|name| env.get(name).is_some_and(|value| !value.trim().is_empty()))
}

/// The one model a server lists; an error naming them when it lists none or several.
fn model_from_server(provider: &ProviderConfig, env: &Env) -> Result<String, Exit> {
    let net = NetEnv::from_vars(env.pairs());
    let hint = format!("pass --model or set MEWCODE_MODEL (or {})", provider.protocol.model_env_var());
    let models = discovery::list_models(provider, &net, discovery::DISCOVERY_BUDGET).map_err(|err| {
        Exit::Config(format!("no model named for {} and its models list failed ({err}); {hint}", provider.base_url))
    })?;
    match models.as_slice() {
        [model] => Ok(model.clone()),
        [] => Err(Exit::Config(format!("no model named and {} lists no models; {hint}", provider.base_url))),
        several => Err(Exit::Config(format!(
            "no model named and {} lists several: {}; {hint}",
            provider.base_url,
            several.join(", ")
        ))),
    }
}

/// Asks an OpenAI-protocol server for its window when the config leaves it at 0 (bounded by
/// `DISCOVERY_BUDGET`, and not at all when `$MEWCODE_HOME/discovery.json` remembers a fresh
/// answer); a window nobody reported stays the default, with a warning saying so the first
/// time per endpoint.
pub(super) fn discover_window(provider: &mut ProviderConfig, launch: &Launch, warnings: &mut Vec<Warning>) {
    let (notice, failure) = resolve_window_cached(provider, launch);
    if let Some(notice) = notice {
        warnings.push(Warning::new(format!("provider {}", provider.name), notice));
    }
    warnings.extend(failure);
}

/// `discovery::resolve_window` with the cache of `$MEWCODE_HOME`, saved when it changed; the
/// notice for the user, and a warning when the cache could not be written.
pub(super) fn resolve_window_cached(
    provider: &mut ProviderConfig,
    launch: &Launch,
) -> (Option<String>, Option<Warning>) {
    let net = NetEnv::from_vars(launch.env.pairs());
    let home = &launch.workspace.home;
    let mut cache = WindowCache::load(home);
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |elapsed| elapsed.as_secs());
    let notice = discovery::resolve_window(provider, &net, discovery::DISCOVERY_BUDGET, &mut cache, now);
    let saved = std::fs::create_dir_all(home).and_then(|()| cache.save());
    let failure = saved.err().map(|err| {
        let path = home.join(window_cache::FILE_NAME);
        Warning::new("", format!("cannot remember the context window in {}: {err}", path.display()))
    });
    (notice, failure)
}

/// Drops the remembered window of `provider` (a request failed for the window), so the next
/// start asks the server again: whether there was one, or a warning when the cache could not be
/// written.
pub(super) fn forget_window(provider: &ProviderConfig, launch: &Launch) -> Result<bool, Warning> {
    let home = &launch.workspace.home;
    let mut cache = WindowCache::load(home);
    if !cache.forget(&provider.base_url, &provider.model) {
        return Ok(false);
    }
    cache.save().map(|()| true).map_err(|err| {
        let path = home.join(window_cache::FILE_NAME);
        Warning::new("", format!("cannot forget the context window in {}: {err}", path.display()))
    })
}

/// What discovery remembers for `provider` (the window, where it came from, its age and the
/// file), for `/status`; `None` when its window is configured or it is not asked for at all.
pub(super) fn remembered_window(provider: &ProviderConfig, launch: &Launch) -> Option<String> {
    let discovered = matches!(provider.window_source, WindowSource::Discovered { .. });
    if !discovered && !discovery::wants_discovery(provider) {
        return None;
    }
    let home = &launch.workspace.home;
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |elapsed| elapsed.as_secs());
    let path = home.join(window_cache::FILE_NAME);
    Some(match WindowCache::load(home).fresh(&provider.base_url, &provider.model, now) {
        Some(entry) => format!("{} ({})", entry.describe(now), path.display()),
        None => "nothing remembered (the next start asks the server)".to_string(),
    })
}

/// The total time the local probe may take (SPEC §1.2).
pub(super) const PROBE_BUDGET: Duration = Duration::from_millis(300);

/// The probe ports: Ollama's, vLLM's, llama.cpp's and LM Studio's, or
/// `MEWCODE_PROBE_PORTS=port,port` (tests use free ports).
pub(super) fn probe_ports(env: &Env) -> Vec<(u16, String)> {
    match env.get("MEWCODE_PROBE_PORTS") {
        Some(list) => list
            .split(',')
            .filter_map(|port| port.trim().parse().ok())
            .enumerate()
            .map(|(index, port)| (port, DEFAULT_PROBE_PORTS.get(index).map_or("local", |(_, kind)| kind).to_string()))
            .collect(),
        None => DEFAULT_PROBE_PORTS.iter().map(|(port, kind)| (*port, kind.to_string())).collect(),
    }
}

pub(super) fn local_provider(kind: &str, base_url: &str, model: &str) -> ProviderConfig {
    ProviderConfig {
        api_key_hint: "no key needed for a local server".to_string(),
        base_url: base_url.to_string(),
        source: "probe".to_string(),
        ..ProviderConfig::with_defaults(kind, Protocol::OpenAi, model)
    }
}

/// "ollama (127.0.0.1:11434), vllm (127.0.0.1:8000)": every server the probe asked.
fn tried(ports: &[(u16, String)]) -> String {
    let each: Vec<String> = ports.iter().map(|(port, kind)| format!("{kind} (127.0.0.1:{port})")).collect();
    if each.is_empty() { "none (MEWCODE_PROBE_PORTS is empty)".to_string() } else { each.join(", ") }
}

pub(super) fn setup_guide(user_config: &Path, ports: &[(u16, String)]) -> String {
    format!(
        "\
mewcode needs a model. Nothing is configured, and no local server answered; tried
{tried}.

Create {path} with one of these (or several; the first is the default):

  providers:
    - name: claude
      protocol: anthropic
      model: claude-sonnet-4-5
      api_key: ${{ANTHROPIC_API_KEY}}
    - name: gpt
      protocol: openai
      model: gpt-4.1
      api_key: ${{OPENAI_API_KEY}}
    - name: local
      protocol: openai
      model: qwen2.5-coder:7b
      base_url: http://127.0.0.1:11434/v1     # Ollama; vLLM :8000/v1, llama.cpp :8080/v1, LM Studio :1234/v1

and export the key it names (ANTHROPIC_API_KEY / OPENAI_API_KEY), or start a local server.
Without a file, ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) or OPENAI_API_KEY (with
ANTHROPIC_BASE_URL / OPENAI_BASE_URL or OPENAI_API_BASE for another endpoint) and MEWCODE_MODEL
are enough.
Then `mewcode doctor` checks the setup.

",
        path = user_config.display(),
        tried = tried(ports)
    )
}
