//! The HTTP transport of model calls: a ureq configuration per provider (timeouts, TLS roots,
//! proxy, from the shared plumbing of `crate::http`) and one POST per attempt that returns an
//! SSE reader or a typed error.
//!
//! Invariants:
//! - Idle timeout: ureq 3's `timeout_per_read` restarts on every transport read, so "no byte for
//!   N seconds" (while waiting for headers or body) fails the read; there is deliberately no
//!   overall body deadline, since reasoning models may stream, or keep-alive, for many minutes.
//! - Cancellation: an attempt owns its `Agent` (and so its connection pool) while it runs, and
//!   `Exchange::canceller` can shut that agent down from another thread, which shuts the socket
//!   and makes a blocked read return at once; a cancel never touches another request.
//! - Keep-alive: a provider keeps one idle agent between calls (`http::keep_alive`), whose pool holds
//!   the connection of the last response that was read to its end, so the iterations of a run
//!   share one TCP+TLS connection. An agent goes back only through `Canceller::keep`, after a
//!   clean end of body; a cancelled, failed or abandoned exchange shuts its agent down, so a
//!   half-read response never lies on a pooled connection (ureq itself pools a connection only
//!   when its body was read to the end with nothing left over).
//! - The status is checked before the body: non-2xx bodies (capped) go to `parse_error_body`; a
//!   2xx `application/json` answer means the server ignored `"stream": true` and becomes an error
//!   here (an error object → its classification, anything else → a non-retryable `Request`
//!   error saying so), so decoders only ever see event streams.
//!
//! Error mapping of ureq errors lives here, once, and names the host (and proxy) involved.

use super::LlmError;
use super::error::{is_error_body, parse_error_body, parse_error_value, parse_retry_after, with_key_hint};
use crate::config::ProviderConfig;
use crate::http::agent_config::{AgentConfig, CONNECT_TIMEOUT, agent_config};
use crate::http::keep_alive::KeepAlive;
use crate::http::net::NetEnv;
use crate::http::read_capped;
use crate::http::roots::{PemSource, read_ca_files};
use crate::sse::{SseError, SseReader};
use crate::url::{host_of, is_loopback_url};
use std::io::Read;
use std::sync::Arc;
use std::time::Duration;
/// The idle read timeout when the provider does not set one.
const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(120);
/// The most of an error body we read and keep.
const MAX_ERROR_BODY_BYTES: u64 = 64 * 1024;
/// How long a finished exchange may take to reach the end of its body (normally the same read
/// as the terminal event) before its connection is given up, and so also how long a new
/// exchange waits for a finishing one to hand its connection over.
pub(crate) const DRAIN_GRACE: Duration = Duration::from_millis(250);

/// The event stream of one successful POST.
pub(crate) type EventStream = SseReader<Box<dyn Read + Send>>;

/// A provider's transport: built once, opens one `Exchange` per attempt.
#[derive(Clone, Debug)]
pub(crate) struct HttpClient {
    config: AgentConfig,
    host: String,
    /// `host:port` (the scheme's port when the URL names none), for "connection refused".
    endpoint: String,
    /// The base URL, for the message of a refused loopback connection.
    base_url: String,
    /// The provider's config name ("" when built without one), for "connection refused".
    provider: String,
    proxy: Option<String>,
    key_hint: String,
    idle_timeout: Duration,
    /// Shared by the clones of one client: the agent (and kept-alive connection) between calls.
    keep_alive: Arc<KeepAlive>,
}

/// One attempt's connection scope.
pub(crate) struct Exchange {
    agent: ureq::Agent,
    client: HttpClient,
}

/// Ends an `Exchange` from another thread: `cancel` interrupts it, `keep` hands its agent back
/// for the next call. Dropped without either, it cancels (a connection nobody vouched for is
/// never reused).
pub(crate) struct Canceller {
    agent: Option<ureq::Agent>,
    keep_alive: Arc<KeepAlive>,
    draining: bool,
}

impl HttpClient {
    /// The transport for a provider: its base URL, idle timeout (0 = default), key hint and
    /// `ca_file`, plus `SSL_CERT_FILE` and the proxy variables from `net`. Reads the CA files.
    pub(crate) fn for_provider(provider: &ProviderConfig, net: &NetEnv) -> Result<HttpClient, LlmError> {
        let roots = provider_roots(provider, net).map_err(|message| LlmError::Request { status: 0, message })?;
        let idle_timeout = match provider.idle_timeout_s {
            0 => DEFAULT_IDLE_TIMEOUT,
            seconds => Duration::from_secs(seconds),
        };
        let client = HttpClient::new(&provider.base_url, &provider.api_key_hint, idle_timeout, net, &roots)?;
        Ok(HttpClient { provider: provider.name.clone(), ..client })
    }

    /// The transport from explicit values. With no `extra_roots` the bundled Mozilla roots are
    /// used; with extra roots, a connection trusts them and the bundle (see `AgentConfig`).
    pub(crate) fn new(
        base_url: &str,
        key_hint: &str,
        idle_timeout: Duration,
        net: &NetEnv,
        extra_roots: &[PemSource],
    ) -> Result<HttpClient, LlmError> {
        let host = host_of(base_url);
        let (config, proxy_url) = agent_config(base_url, net, extra_roots, Some(idle_timeout))
            .map_err(|message| LlmError::Request { status: 0, message })?;
        let endpoint = endpoint_of(base_url, &host);
        Ok(HttpClient {
            config,
            host,
            endpoint,
            base_url: base_url.to_string(),
            provider: String::new(),
            proxy: proxy_url,
            key_hint: key_hint.to_string(),
            idle_timeout,
            keep_alive: Arc::default(),
        })
    }

    /// The connection scope of one attempt: the kept agent (its pool may hold a live
    /// connection) or a new one.
    pub(crate) fn exchange(&self) -> Exchange {
        let agent = self.keep_alive.take(DRAIN_GRACE).unwrap_or_else(|| self.config.new_agent());
        Exchange { agent, client: self.clone() }
    }

    /// The host requests go to, for messages.
    pub(crate) fn host(&self) -> &str {
        &self.host
    }

    /// Maps a failed body read of an open stream to the engine's error.
    pub(crate) fn read_error(&self, error: SseError) -> LlmError {
        match error {
            SseError::TooLarge { .. } => LlmError::Protocol { message: format!("{} sent {error}", self.host) },
            SseError::Io(io_error) => self.map_error(ureq::Error::from(io_error)),
        }
    }

    /// The one mapping from ureq's errors to `LlmError`, naming the host (and proxy).
    pub(crate) fn map_error(&self, error: ureq::Error) -> LlmError {
        let host = &self.host;
        let via = self.proxy.as_deref().map(|proxy| format!(" via proxy {proxy}")).unwrap_or_default();
        let network = |message: String| LlmError::Network { message };
        match error {
            ureq::Error::HostNotFound => network(format!(
                "cannot resolve {}{via}: DNS lookup failed; check base_url and the network",
                self.dns_name()
            )),
            ureq::Error::Timeout(ureq::Timeout::PerRead) => {
                network(format!("no data from {host} for {} s (idle timeout)", self.idle_timeout.as_secs_f64()))
            }
            ureq::Error::Timeout(ureq::Timeout::Resolve | ureq::Timeout::Connect) => {
                network(format!("connecting to {host}{via} timed out after {} s", CONNECT_TIMEOUT.as_secs()))
            }
            ureq::Error::Timeout(timeout) => network(format!("talking to {host}{via} timed out ({timeout})")),
            // A refused loopback port is a server that is not running, not a network blip:
            // retrying for seconds cannot start it, so it fails at once.
            ureq::Error::Io(io_error)
                if io_error.kind() == std::io::ErrorKind::ConnectionRefused
                    && self.proxy.is_none()
                    && is_loopback_url(&self.base_url) =>
            {
                let provider =
                    if self.provider.is_empty() { String::new() } else { format!("provider {:?} at ", self.provider) };
                let message = format!(
                    "connection to {provider}{} refused: no server is listening on that local port; start it or \
                     check base_url",
                    self.base_url
                );
                LlmError::Refused { message }
            }
            ureq::Error::Io(io_error) => network(self.describe_io(&io_error, &via)),
            ureq::Error::ConnectionFailed => network(format!("could not connect to {host}{via}")),
            ureq::Error::ConnectProxyFailed(reason) => network(format!(
                "proxy {} refused the tunnel to {host}: {reason}; check HTTPS_PROXY/HTTP_PROXY and NO_PROXY",
                self.proxy.as_deref().unwrap_or("(none)")
            )),
            ureq::Error::Tls(reason) => network(self.tls_message(reason)),
            ureq::Error::Rustls(rustls_error) => network(self.tls_message(&rustls_error.to_string())),
            ureq::Error::Pem(pem_error) => network(self.tls_message(&format!("bad PEM: {pem_error:?}"))),
            ureq::Error::Protocol(protocol_error) => {
                LlmError::Protocol { message: format!("{host} sent malformed HTTP: {protocol_error}") }
            }
            ureq::Error::LargeResponseHeader(size, limit) => {
                LlmError::Protocol { message: format!("{host} sent a {size}-byte response header (limit {limit})") }
            }
            // Configuration mistakes: retrying cannot help. Status 0 = no server answered.
            ureq::Error::BadUri(uri) => LlmError::Request { status: 0, message: format!("invalid URL {uri}") },
            ureq::Error::InvalidProxyUrl => LlmError::Request { status: 0, message: "invalid proxy URL".to_string() },
            ureq::Error::RedirectFailed | ureq::Error::TooManyRedirects => {
                LlmError::Request { status: 0, message: format!("{host} redirected the request; fix base_url") }
            }
            other => network(format!("talking to {host}{via}: {other}")),
        }
    }

    fn describe_io(&self, error: &std::io::Error, via: &str) -> String {
        let host = &self.host;
        use std::io::ErrorKind;
        match error.kind() {
            ErrorKind::ConnectionRefused => {
                let provider =
                    if self.provider.is_empty() { String::new() } else { format!("provider {:?} at ", self.provider) };
                format!(
                    "connection to {provider}{}{via} refused; is the server running on that port? (check base_url)",
                    self.endpoint
                )
            }
            ErrorKind::ConnectionReset | ErrorKind::ConnectionAborted | ErrorKind::BrokenPipe => {
                format!("connection to {host} was reset mid-response")
            }
            ErrorKind::UnexpectedEof => format!("{host} closed the connection mid-response"),
            ErrorKind::TimedOut | ErrorKind::WouldBlock => {
                format!("no data from {host} for {} s (idle timeout)", self.idle_timeout.as_secs_f64())
            }
            ErrorKind::NotConnected => format!("connection to {host} was shut down"),
            // What rustls reports for a failed handshake (an unknown issuer, a bad certificate).
            ErrorKind::InvalidData => self.tls_message(&error.to_string()),
            _ => format!("talking to {host}{via}: {error}"),
        }
    }

    fn tls_message(&self, reason: &str) -> String {
        format!("TLS with {} failed: {reason}; for a private CA set the provider's ca_file or SSL_CERT_FILE", self.host)
    }

    fn dns_name(&self) -> String {
        match &self.proxy {
            Some(proxy) => format!("{} or proxy host {}", self.host, host_of(proxy)),
            None => self.host.clone(),
        }
    }
}

impl Exchange {
    /// The handle that ends this exchange from elsewhere: interrupts it (connecting, waiting or
    /// reading), or keeps its connection for the next one.
    pub(crate) fn canceller(&self) -> Canceller {
        Canceller { agent: Some(self.agent.clone()), keep_alive: Arc::clone(&self.client.keep_alive), draining: false }
    }

    /// Maps a failed read of this exchange's event stream (see `HttpClient::read_error`).
    pub(crate) fn read_error(&self, error: SseError) -> LlmError {
        self.client.read_error(error)
    }

    /// POSTs `body` (JSON) with `headers` and returns the event stream of a 2xx
    /// `text/event-stream` answer, or the classified error.
    pub(crate) fn post(&self, url: &str, headers: &[(String, String)], body: &[u8]) -> Result<EventStream, LlmError> {
        let client = &self.client;
        let mut request = self.agent.post(url).header("content-type", "application/json");
        for (name, value) in headers {
            request = request.header(name.as_str(), value.as_str());
        }
        let response = request.send(body).map_err(|err| client.map_error(err))?;
        let status = response.status().as_u16();
        let header =
            |name: &str| response.headers().get(name).and_then(|value| value.to_str().ok()).map(str::to_string);
        let retry_after = parse_retry_after(header("retry-after").as_deref(), header("retry-after-ms").as_deref());
        let content_type = header("content-type").unwrap_or_default().to_ascii_lowercase();
        let reader: Box<dyn Read + Send> = Box::new(response.into_body().into_reader());
        if !(200..300).contains(&status) {
            let text = read_capped(reader, MAX_ERROR_BODY_BYTES);
            let error = parse_error_body(status, &text, retry_after, &client.key_hint);
            return Err(if status == 404 { with_not_found_hint(error, url) } else { error });
        }
        if content_type.starts_with("application/json") {
            let text = read_capped(reader, MAX_ERROR_BODY_BYTES);
            return Err(ignored_stream_error(&text, &client.key_hint));
        }
        Ok(SseReader::new(reader))
    }
}

/// A 404 names the URL it hit and, when the path shows a likely base_url mistake, the fix: an
/// Anthropic base_url ending in `/v1` (we add `/v1/messages`), or an OpenAI-compatible one with
/// no version segment (servers serve `/v1/chat/completions`).
fn with_not_found_hint(error: LlmError, url: &str) -> LlmError {
    let LlmError::Request { status, message } = error else { return error };
    let path = url.split_once("://").map_or(url, |(_, rest)| rest.find('/').map_or("", |slash| &rest[slash..]));
    let versioned = path.split('/').any(|segment| {
        let mut chars = segment.chars();
        chars.next() == Some('v') && chars.next().is_some_and(|c| c.is_ascii_digit())
    });
    let hint = if path.ends_with("/v1/v1/messages") {
        "; the anthropic base_url must not end in /v1 (mewcode adds /v1/messages): drop it"
    } else if path.ends_with("/chat/completions") && !versioned {
        "; an OpenAI-compatible base_url usually ends in /v1 (e.g. http://127.0.0.1:11434/v1): add it"
    } else {
        "; check base_url"
    };
    LlmError::Request { status, message: format!("{message} (POST {url} answered 404){hint}") }
}

/// `host:port` of a base URL, with the scheme's default port when it names none.
fn endpoint_of(base_url: &str, host: &str) -> String {
    let (scheme, rest) = base_url.split_once("://").unwrap_or(("https", base_url));
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let authority = authority.rsplit_once('@').map_or(authority, |(_, after)| after);
    let port = match authority.rsplit_once(':') {
        Some((before, port))
            if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) && !before.ends_with(':') =>
        {
            port.to_string()
        }
        _ if scheme.eq_ignore_ascii_case("http") => "80".to_string(),
        _ => "443".to_string(),
    };
    if host.contains(':') { format!("[{host}]:{port}") } else { format!("{host}:{port}") }
}

impl Canceller {
    /// Shuts the exchange's connections; a read blocked on them returns an error at once.
    pub(crate) fn cancel(mut self) {
        self.close();
    }

    /// The response is complete and its body is being read to the end: until `keep` or
    /// `cancel`, a new exchange of the same client waits for this one's connection.
    pub(crate) fn begin_drain(&mut self) {
        if !self.draining {
            self.draining = true;
            self.keep_alive.begin_drain();
        }
    }

    /// The body was read to its end: ureq has pooled the connection if the response allowed it
    /// (framed, no `Connection: close`, nothing left over), and the agent is kept for the next
    /// exchange.
    pub(crate) fn keep(mut self) {
        if let Some(agent) = self.agent.take() {
            if self.draining {
                self.draining = false;
                self.keep_alive.end_drain(Some(agent));
            } else {
                self.keep_alive.put(agent);
            }
        }
    }

    fn close(&mut self) {
        if let Some(agent) = self.agent.take() {
            agent.shutdown();
        }
        if self.draining {
            self.draining = false;
            self.keep_alive.end_drain(None);
        }
    }
}

impl Drop for Canceller {
    fn drop(&mut self) {
        self.close();
    }
}

/// A 2xx JSON body on a streaming request: an error object (`error`, or FastAPI's `detail`) is
/// classified; anything else means the endpoint does not stream, which retrying will not change.
fn ignored_stream_error(text: &str, key_hint: &str) -> LlmError {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(value) if is_error_body(&value) => with_key_hint(parse_error_value(None, &value), key_hint),
        _ => LlmError::Request {
            status: 200,
            message: "the server ignored \"stream\": true and answered with one JSON body; \
                      this endpoint does not support streaming"
                .to_string(),
        },
    }
}

/// The extra roots `provider`'s server is trusted with: `SSL_CERT_FILE`, then its `ca_file`.
fn provider_roots(provider: &ProviderConfig, net: &NetEnv) -> Result<Vec<PemSource>, String> {
    let paths: Vec<&std::path::Path> =
        net.ssl_cert_file.iter().chain(provider.ca_file.iter()).map(std::path::PathBuf::as_path).collect();
    read_ca_files(&paths)
}

/// An agent for one-off requests to `provider`'s server besides the model calls (discovery,
/// doctor's probe and models list, the tokenizer): the same roots and proxy settings, each
/// connection bounded by `timeout`.
pub(crate) fn one_off_agent(provider: &ProviderConfig, net: &NetEnv, timeout: Duration) -> Result<ureq::Agent, String> {
    let roots = provider_roots(provider, net)?;
    let (config, _) = agent_config(&provider.base_url, net, &roots, Some(timeout))?;
    Ok(config.new_agent())
}

#[cfg(test)]
#[path = "http_tests.rs"]
mod tests;
