//! Context-window discovery: when an OpenAI-protocol provider leaves `context_window` at 0, ask
//! the server how large its window really is — vLLM's `max_model_len` in `GET /v1/models`,
//! llama.cpp's `GET /props` and `GET /slots` (`n_ctx`), Ollama's `GET /api/ps` (the loaded
//! runner's `context_length`) and `POST /api/show` (`num_ctx` in the model's parameters, else
//! Ollama's default window, capped by the model's trained `context_length`). The same answers
//! say whether the model accepts images: Ollama's `capabilities` list (`"vision"`) in
//! `/api/show`, llama.cpp's `modalities.vision` in `/props`; asked too when only `vision` is
//! left unset (a configured `vision` is never overridden).
//!
//! Invariant: bounded and one-shot — every endpoint is asked at once, within one budget, at
//! start-up (or on `/model`), and only when `window_cache` holds no fresh answer for the
//! endpoint and model; a server that reports none keeps the protocol default and the caller
//! gets a notice saying so, once per endpoint. The parsers are pure. Nothing here ever fails a run: an
//! unreadable CA file or a refused connection only means "not discovered".

use crate::config::{Protocol, ProviderConfig, VisionSource, WindowSource};
use crate::http::net::NetEnv;
use crate::llm::http::one_off_agent;
use crate::llm::window_cache::{Entry, WindowCache};
use serde_json::Value;
use std::time::Duration;

/// How long start-up may wait for the server's answer: local servers answer in milliseconds, a
/// remote one in a round trip or two.
pub(crate) const DISCOVERY_BUDGET: Duration = Duration::from_millis(1500);

/// Ollama's window when neither the model nor the request sets `num_ctx` (since 0.6; 2048
/// before). A server started with `OLLAMA_CONTEXT_LENGTH` uses that instead, which no endpoint
/// reports for an unloaded model, so this is an assumption and is labelled as one.
const OLLAMA_DEFAULT_NUM_CTX: u64 = 4096;

/// The endpoints that report vision, in order of preference.
const VISION_PROBES: [Probe; 2] = [Probe::OllamaShow, Probe::LlamaProps];

/// A window the server reported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Discovered {
    pub window: u64,
    /// What answered, e.g. `GET /props`.
    pub endpoint: String,
    /// A caveat about the figure, when it is an assumption rather than a report.
    pub note: Option<String>,
}

/// One endpoint asked, in order of preference when several answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Probe {
    VllmModels,
    LlamaProps,
    LlamaSlots,
    OllamaPs,
    OllamaShow,
}

const PROBES: [Probe; 5] =
    [Probe::VllmModels, Probe::LlamaProps, Probe::LlamaSlots, Probe::OllamaPs, Probe::OllamaShow];

impl Probe {
    fn label(self) -> &'static str {
        match self {
            Probe::VllmModels => "GET /v1/models",
            Probe::LlamaProps => "GET /props",
            Probe::LlamaSlots => "GET /slots",
            Probe::OllamaPs => "GET /api/ps",
            Probe::OllamaShow => "POST /api/show",
        }
    }

    fn url(self, base_url: &str) -> String {
        let root = server_root(base_url);
        match self {
            Probe::VllmModels => format!("{}/models", base_url.trim_end_matches('/')),
            Probe::LlamaProps => format!("{root}/props"),
            Probe::LlamaSlots => format!("{root}/slots"),
            Probe::OllamaPs => format!("{root}/api/ps"),
            Probe::OllamaShow => format!("{root}/api/show"),
        }
    }

    fn parse(self, body: &str, model: &str) -> Option<Discovered> {
        let value: Value = serde_json::from_str(body.trim()).ok()?;
        let found = |window: u64, note: Option<String>| Discovered { window, endpoint: self.label().to_string(), note };
        match self {
            Probe::VllmModels => parse_vllm_models(&value, model).map(|window| found(window, None)),
            Probe::LlamaProps => parse_llama_props(&value).map(|window| found(window, None)),
            Probe::LlamaSlots => parse_llama_slots(&value).map(|window| found(window, None)),
            Probe::OllamaPs => parse_ollama_ps(&value, model).map(|window| found(window, None)),
            Probe::OllamaShow => parse_ollama_show(&value).map(|(window, note)| found(window, note)),
        }
    }
}

impl Probe {
    /// Whether the model accepts images, when this endpoint says: Ollama's `capabilities`
    /// (present: a list naming `vision` or not), llama.cpp's `modalities.vision`.
    fn parse_vision(self, body: &str) -> Option<bool> {
        let value: Value = serde_json::from_str(body.trim()).ok()?;
        match self {
            Probe::OllamaShow => {
                let capabilities = value.get("capabilities")?.as_array()?;
                Some(capabilities.iter().any(|capability| capability.as_str() == Some("vision")))
            }
            Probe::LlamaProps => value.pointer("/modalities/vision")?.as_bool(),
            Probe::VllmModels | Probe::LlamaSlots | Probe::OllamaPs => None,
        }
    }
}

/// The server root for the non-OpenAI endpoints: the base URL without a trailing `/v1`
/// (`http://127.0.0.1:11434/v1` → `http://127.0.0.1:11434`); a base without it is the root.
pub(crate) fn server_root(base_url: &str) -> String {
    let base = base_url.trim_end_matches('/');
    base.strip_suffix("/v1").unwrap_or(base).to_string()
}

/// vLLM: the `max_model_len` of the configured model's entry (or of the only entry: a server
/// serving one model under another name would refuse our requests anyway, and says so then).
fn parse_vllm_models(value: &Value, model: &str) -> Option<u64> {
    let entries = value.get("data")?.as_array()?;
    let entry = entries
        .iter()
        .find(|entry| entry.get("id").and_then(Value::as_str) == Some(model))
        .or_else(|| if entries.len() == 1 { entries.first() } else { None })?;
    positive(entry.get("max_model_len"))
}

/// llama.cpp `/props`: the per-slot window (`default_generation_settings.n_ctx`, or a
/// top-level `n_ctx` in older and newer builds).
fn parse_llama_props(value: &Value) -> Option<u64> {
    positive(value.pointer("/default_generation_settings/n_ctx")).or_else(|| positive(value.get("n_ctx")))
}

/// llama.cpp `/slots`: the smallest slot's `n_ctx` (slots share the server's `-c` evenly).
fn parse_llama_slots(value: &Value) -> Option<u64> {
    value.as_array()?.iter().filter_map(|slot| positive(slot.get("n_ctx"))).min()
}

/// Ollama `/api/ps`: the loaded runner's `context_length` for the model (`name` or `model`
/// match, `:latest` implied when the config names no tag).
fn parse_ollama_ps(value: &Value, model: &str) -> Option<u64> {
    let tagged = if model.contains(':') { model.to_string() } else { format!("{model}:latest") };
    value.get("models")?.as_array()?.iter().find_map(|entry| {
        let named = ["name", "model"]
            .iter()
            .filter_map(|field| entry.get(*field).and_then(Value::as_str))
            .any(|name| name == model || name == tagged);
        if named { positive(entry.get("context_length")) } else { None }
    })
}

/// Ollama `/api/show`: the effective window of a runner started for this model — `num_ctx`
/// from the model's parameters when set, else Ollama's default (capped by the trained
/// `*.context_length`), with a note saying it is assumed.
fn parse_ollama_show(value: &Value) -> Option<(u64, Option<String>)> {
    let num_ctx = value.get("parameters").and_then(Value::as_str).and_then(|parameters| {
        parameters.lines().find_map(|line| {
            let mut words = line.split_whitespace();
            (words.next() == Some("num_ctx")).then(|| words.next()?.parse::<u64>().ok()).flatten()
        })
    });
    if let Some(num_ctx) = num_ctx.filter(|&num_ctx| num_ctx > 0) {
        return Some((num_ctx, None));
    }
    let trained = value
        .get("model_info")?
        .as_object()?
        .iter()
        .find(|(key, _)| key.ends_with(".context_length"))
        .and_then(|(_, length)| positive(Some(length)))?;
    let window = trained.min(OLLAMA_DEFAULT_NUM_CTX);
    let note = format!(
        "num_ctx is not set for this model, so Ollama's default {OLLAMA_DEFAULT_NUM_CTX} is assumed (the model \
         supports {trained}; a server started with OLLAMA_CONTEXT_LENGTH uses that instead)"
    );
    Some((window, Some(note)))
}

fn positive(value: Option<&Value>) -> Option<u64> {
    value.and_then(Value::as_u64).filter(|&number| number > 0)
}

/// Whether discovery applies: an OpenAI-protocol provider whose window or vision is not
/// configured, at a server other than the public OpenAI endpoint (whose models report neither).
pub(crate) fn wants_discovery(provider: &ProviderConfig) -> bool {
    provider.is_own_openai_server() && (provider.window_source == WindowSource::Default || wants_vision(provider))
}

/// Whether the server is asked about images: `vision` is not configured.
fn wants_vision(provider: &ProviderConfig) -> bool {
    provider.vision().source != VisionSource::Configured
}

/// What asking every endpoint found: the preferred window, whether the model accepts images
/// (and which endpoint said), and whether anything answered at all (a server that is down did
/// not report "no window", it reported nothing).
struct Asked {
    found: Option<Discovered>,
    vision: Option<(bool, &'static str)>,
    answered: bool,
}

/// Asks every endpoint at once and returns the preferred answer, or None when none answered
/// with a window within `budget`.
pub(crate) fn discover_window(provider: &ProviderConfig, net: &NetEnv, budget: Duration) -> Option<Discovered> {
    ask(provider, net, budget).found
}

fn ask(provider: &ProviderConfig, net: &NetEnv, budget: Duration) -> Asked {
    let nothing = Asked { found: None, vision: None, answered: false };
    let Ok(agent) = one_off_agent(provider, net, budget) else { return nothing };
    let answers: Vec<Answer> = std::thread::scope(|scope| {
        let handles: Vec<_> = PROBES
            .iter()
            .map(|probe| {
                let agent = agent.clone();
                std::thread::Builder::new()
                    .name(format!("discover-{}", probe.label().rsplit('/').next().unwrap_or("probe")))
                    .spawn_scoped(scope, move || fetch(&agent, provider, *probe, budget))
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| handle.ok().and_then(|handle| handle.join().ok()).unwrap_or(Answer::None))
            .collect()
    });
    let answered = answers.iter().any(|answer| !matches!(answer, Answer::None));
    let found = PROBES.iter().zip(&answers).find_map(|(probe, answer)| match answer {
        Answer::Ok(body) => probe.parse(body, &provider.model),
        Answer::Status | Answer::None => None,
    });
    let vision = VISION_PROBES.iter().find_map(|wanted| {
        let answer = PROBES.iter().zip(&answers).find(|(probe, _)| *probe == wanted)?.1;
        match answer {
            Answer::Ok(body) => wanted.parse_vision(body).map(|accepts| (accepts, wanted.label())),
            Answer::Status | Answer::None => None,
        }
    });
    Asked { found, vision, answered }
}

/// Discovers the window of `provider` when it wants it — from `cache` when it holds a fresh
/// answer for this endpoint and model (no request at all), else by asking the server and
/// recording what it said — and records the source. Returns a notice for the user when the
/// window stays the protocol default or is an assumption, only the first time per endpoint
/// (the cache remembers it was said); a server that did not answer is not remembered and
/// gets a notice saying so every time.
pub(crate) fn resolve_window(
    provider: &mut ProviderConfig,
    net: &NetEnv,
    budget: Duration,
    cache: &mut WindowCache,
    now: u64,
) -> Option<String> {
    if !wants_discovery(provider) {
        return None;
    }
    // An entry of an older build was never asked about vision: ask again.
    let remembered = cache
        .fresh(&provider.base_url, &provider.model, now)
        .filter(|entry| entry.vision_asked || !wants_vision(provider));
    let entry = match remembered {
        Some(entry) => entry.clone(),
        None => {
            let asked = ask(provider, net, budget);
            if !asked.answered {
                // A configured window needs no notice: only vision was asked, and stays the default.
                return (provider.window_source == WindowSource::Default).then(|| unanswered_notice(provider));
            }
            let entry = Entry {
                base_url: provider.base_url.clone(),
                model: provider.model.clone(),
                window: asked.found.as_ref().map(|found| found.window),
                endpoint: asked.found.as_ref().map(|found| found.endpoint.clone()),
                note: asked.found.and_then(|found| found.note),
                checked_at: now,
                warned: false,
                vision: asked.vision.map(|(accepts, _)| accepts),
                vision_endpoint: asked.vision.map(|(_, endpoint)| endpoint.to_string()),
                vision_asked: true,
            };
            cache.record(entry.clone());
            entry
        }
    };
    if let (Some(accepts), Some(endpoint)) = (entry.vision, &entry.vision_endpoint) {
        provider.discovered_vision(accepts, endpoint);
    }
    if provider.window_source != WindowSource::Default {
        return None; // configured: only vision was asked for
    }
    let notice = match (entry.window, &entry.endpoint) {
        (Some(window), Some(endpoint)) => {
            provider.context_window = window;
            provider.window_source = WindowSource::Discovered { endpoint: endpoint.clone(), note: entry.note.clone() };
            entry.note.as_ref().map(|note| {
                format!(
                    "context window {window} for {} ({endpoint}: {note}); set context_window to override",
                    provider.model
                )
            })
        }
        _ => Some(fallback_notice(provider)),
    };
    if entry.warned {
        return None;
    }
    if notice.is_some() {
        cache.mark_warned(&provider.base_url, &provider.model);
    }
    notice
}

/// The notice of a window nobody reported.
fn fallback_notice(provider: &ProviderConfig) -> String {
    let asked: Vec<&str> = PROBES.iter().map(|probe| probe.label()).collect();
    format!(
        "context window: {} reported none (asked {}), so the {} default of {} tokens is assumed; set \
         context_window in the provider entry if the server's window is smaller (said once per endpoint)",
        provider.base_url,
        asked.join(", "),
        provider.protocol.as_str(),
        provider.context_window
    )
}

/// The notice of a server that answered none of the discovery requests.
fn unanswered_notice(provider: &ProviderConfig) -> String {
    format!(
        "context window: {} did not answer, so the {} default of {} tokens is assumed for now",
        provider.base_url,
        provider.protocol.as_str(),
        provider.context_window
    )
}

/// The model ids a server lists (`GET {base_url}/models` for OpenAI, `{base_url}/v1/models`
/// for Anthropic), for a provider built from the environment without a model. An error says
/// what went wrong, for the user.
pub(crate) fn list_models(provider: &ProviderConfig, net: &NetEnv, budget: Duration) -> Result<Vec<String>, String> {
    let base = provider.base_url.trim_end_matches('/');
    let url = match provider.protocol {
        Protocol::OpenAi => format!("{base}/models"),
        Protocol::Anthropic => format!("{base}/v1/models"),
    };
    let agent = one_off_agent(provider, net, budget)?;
    let mut request = agent.get(&url).config().timeout_global(Some(budget)).http_status_as_error(false).build();
    if provider.api_key.is_empty() && !provider.auth_token.is_empty() {
        request = request
            .header("authorization", format!("Bearer {}", provider.auth_token))
            .header("anthropic-version", "2023-06-01");
    } else if !provider.api_key.is_empty() {
        request = match provider.protocol {
            Protocol::OpenAi => request.header("authorization", format!("Bearer {}", provider.api_key)),
            Protocol::Anthropic => {
                request.header("x-api-key", &provider.api_key).header("anthropic-version", "2023-06-01")
            }
        };
    }
    let mut response = request.call().map_err(|err| format!("GET {url}: {err}"))?;
    let status = response.status().as_u16();
    if status != 200 {
        return Err(format!("GET {url}: HTTP {status}"));
    }
    let body = response.body_mut().with_config().limit(1 << 20).read_to_string().map_err(|err| err.to_string())?;
    parse_model_ids(&body).ok_or_else(|| format!("GET {url}: not a models list"))
}

/// `data[].id` of a models list (both protocols use this shape).
pub(crate) fn parse_model_ids(body: &str) -> Option<Vec<String>> {
    let value: Value = serde_json::from_str(body).ok()?;
    let data = value.get("data")?.as_array()?;
    Some(data.iter().filter_map(|item| item.get("id")?.as_str().map(str::to_string)).collect())
}

/// What one discovery request got.
enum Answer {
    /// A 200 answer's body (capped at 1 MiB).
    Ok(String),
    /// Another status, or a body that could not be read: the server is there.
    Status,
    /// No HTTP answer at all (refused, timed out, TLS).
    None,
}

/// One bounded request.
fn fetch(agent: &ureq::Agent, provider: &ProviderConfig, probe: Probe, budget: Duration) -> Answer {
    let url = probe.url(&provider.base_url);
    let bearer = (!provider.api_key.is_empty()).then(|| format!("Bearer {}", provider.api_key));
    let result = if probe == Probe::OllamaShow {
        let mut request = agent.post(&url).config().timeout_global(Some(budget)).build();
        if let Some(bearer) = &bearer {
            request = request.header("authorization", bearer);
        }
        request
            .header("content-type", "application/json")
            .send(serde_json::json!({"model": provider.model}).to_string())
    } else {
        let mut request = agent.get(&url).config().timeout_global(Some(budget)).build();
        if let Some(bearer) = &bearer {
            request = request.header("authorization", bearer);
        }
        request.call()
    };
    let Ok(mut response) = result else { return Answer::None };
    if response.status().as_u16() != 200 {
        return Answer::Status;
    }
    match response.body_mut().with_config().limit(1 << 20).read_to_string() {
        Ok(body) => Answer::Ok(body),
        Err(_) => Answer::Status,
    }
}

#[cfg(test)]
#[path = "discovery_tests.rs"]
mod tests;
