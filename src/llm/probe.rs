//! Finding a model without configuration (local Ollama, vLLM, llama.cpp, LM Studio) and checking
//! that endpoints answer.
//!
//! Invariant: every probe is bounded in time: the local probe runs all ports concurrently
//! within one total budget (SPEC §1.2: ≤ 300 ms); the doctor check has its own short timeout.

use crate::config::{Protocol, ProviderConfig};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// A local server that answered the probe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LocalServer {
    /// "ollama", "vllm", "llama.cpp" or "lmstudio" (from the port's conventional owner).
    pub kind: String,
    pub base_url: String,
    pub models: Vec<String>,
}

/// The conventional local ports, in order of preference: Ollama's, vLLM's, llama.cpp's
/// `llama-server`'s and LM Studio's.
pub(crate) const DEFAULT_PROBE_PORTS: [(u16, &str); 4] =
    [(11434, "ollama"), (8000, "vllm"), (8080, "llama.cpp"), (1234, "lmstudio")];

/// Probes `127.0.0.1:{port}/v1/models` for every port concurrently; returns the first port in
/// the given order that answered with at least one model within `budget`.
pub(crate) fn probe_local(ports: &[(u16, String)], budget: Duration) -> Option<LocalServer> {
    let deadline = Instant::now() + budget;
    let answers: Vec<Option<LocalServer>> = std::thread::scope(|scope| {
        let handles: Vec<_> = ports
            .iter()
            .map(|(port, kind)| {
                std::thread::Builder::new()
                    .name(format!("probe-{port}"))
                    .spawn_scoped(scope, move || probe_port(*port, kind, deadline))
            })
            .collect();
        handles.into_iter().map(|handle| handle.ok().and_then(|handle| handle.join().ok().flatten())).collect()
    });
    answers.into_iter().flatten().next()
}

fn probe_port(port: u16, kind: &str, deadline: Instant) -> Option<LocalServer> {
    let address = SocketAddr::from(([127, 0, 0, 1], port));
    let remaining = deadline.checked_duration_since(Instant::now())?;
    let mut stream = TcpStream::connect_timeout(&address, remaining).ok()?;
    // HTTP/1.0 so the server answers with a plain body and closes: no chunked decoding needed.
    let request = format!("GET /v1/models HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\nAccept: application/json\r\n\r\n");
    stream.set_write_timeout(Some(deadline.checked_duration_since(Instant::now())?)).ok()?;
    stream.write_all(request.as_bytes()).ok()?;
    let mut response = Vec::new();
    let mut buffer = [0u8; 8192];
    loop {
        let remaining = deadline.checked_duration_since(Instant::now())?;
        stream.set_read_timeout(Some(remaining.max(Duration::from_millis(1)))).ok()?;
        match stream.read(&mut buffer) {
            Ok(0) => break,
            Ok(count) => {
                response.extend_from_slice(&buffer[..count]);
                if response.len() > 4 << 20 {
                    return None;
                }
            }
            Err(_) => return None,
        }
    }
    let text = String::from_utf8_lossy(&response);
    let (head, body) = text.split_once("\r\n\r\n")?;
    let status_ok = head.lines().next().is_some_and(|line| line.split_whitespace().nth(1) == Some("200"));
    if !status_ok {
        return None;
    }
    let models = parse_model_ids(body);
    if models.is_empty() {
        return None;
    }
    Some(LocalServer { kind: kind.to_string(), base_url: format!("http://127.0.0.1:{port}/v1"), models })
}

/// Model ids from an OpenAI-style (`{"data":[{"id":..}]}`) or Ollama-native (`{"models":[{"name":..}]}`) list.
pub(crate) fn parse_model_ids(body: &str) -> Vec<String> {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(body.trim()) else { return Vec::new() };
    let from = |list: &str, field: &str| -> Vec<String> {
        value
            .get(list)
            .and_then(|items| items.as_array())
            .map(|items| {
                items.iter().filter_map(|item| item.get(field).and_then(|id| id.as_str()).map(String::from)).collect()
            })
            .unwrap_or_default()
    };
    let ids = from("data", "id");
    if ids.is_empty() { from("models", "name") } else { ids }
}

/// What doctor learned about one endpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Reachability {
    /// The models list answered 200 with these model ids (and whether the configured model is among them).
    Ok { models: Vec<String>, has_model: Option<bool> },
    /// The server answered with a non-200 status.
    Status { status: u16, message: String },
    /// No answer: DNS, connect, TLS, timeout...
    Unreachable { message: String },
}

/// GETs the provider's models list with its key: a cheap request that proves URL, key and TLS.
pub(crate) fn check_endpoint(provider: &ProviderConfig, timeout: Duration) -> Reachability {
    let url = models_url(provider);
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        // The key must not follow a redirect to another host.
        .max_redirects(0)
        .user_agent(concat!("mewcode/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let mut request = agent.get(&url);
    match provider.protocol {
        Protocol::Anthropic => {
            request = request.header("anthropic-version", "2023-06-01");
            if !provider.api_key.is_empty() {
                request = request.header("x-api-key", &provider.api_key);
            } else if !provider.auth_token.is_empty() {
                request = request.header("Authorization", &format!("Bearer {}", provider.auth_token));
            }
        }
        Protocol::OpenAi => {
            if !provider.api_key.is_empty() {
                request = request.header("Authorization", &format!("Bearer {}", provider.api_key));
            }
        }
    }
    match request.call() {
        Ok(mut response) => {
            let status = response.status().as_u16();
            let body = response.body_mut().read_to_string().unwrap_or_default();
            if status == 200 {
                let ids = parse_model_ids(&body);
                let has_model = (!ids.is_empty()).then(|| ids.iter().any(|id| id == &provider.model));
                Reachability::Ok { models: ids, has_model }
            } else {
                let message: String = body.chars().take(200).collect();
                Reachability::Status { status, message: message.trim().to_string() }
            }
        }
        Err(err) => Reachability::Unreachable { message: format!("{url}: {err}") },
    }
}

/// `{base}/v1/models` for Anthropic (its base has no version), `{base}/models` for OpenAI.
fn models_url(provider: &ProviderConfig) -> String {
    match provider.protocol {
        Protocol::Anthropic => format!("{}/v1/models", provider.base_url),
        Protocol::OpenAi => format!("{}/models", provider.base_url),
    }
}

#[cfg(test)]
#[path = "probe_tests.rs"]
mod tests;
