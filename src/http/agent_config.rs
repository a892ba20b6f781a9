//! The ureq settings of every mewcode connection, to model servers and MCP servers alike:
//! connect and resolve timeouts, the proxy planned for the URL, TLS roots (the bundled Mozilla
//! set, plus CA files when given), no compression and no redirects.
//!
//! Invariant: given CA files add to the bundled roots, never replace them: a connection whose
//! handshake fails with the given roots is tried once more with the bundle over a new
//! connection (`FallbackTls`), and any other failure is returned as it is.

use super::net::{NetEnv, plan_proxy};
use super::roots::{PemSource, parse_roots};
use std::time::Duration;

/// The connect budget: DNS, TCP, proxy tunnel and TLS handshake together.
pub(crate) const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The settings agents are made from: one ureq config and, when CA files were given, the same
/// config with the bundled roots. ureq 3 takes one root set per config, so both sets are
/// trusted by trying the handshake with the given roots first and, when it fails, once more
/// over a new connection with the bundle (`FallbackTls`): a corporate bundle in
/// `SSL_CERT_FILE` or a provider's `ca_file` adds to the public roots instead of replacing them.
#[derive(Clone, Debug)]
pub(crate) struct AgentConfig {
    config: ureq::config::Config,
    /// The bundled-roots config, when `config` trusts given roots.
    bundled: Option<ureq::config::Config>,
}

impl AgentConfig {
    /// A new agent (its own connection pool, so `Agent::shutdown` cancels only its requests).
    pub(crate) fn new_agent(&self) -> ureq::Agent {
        match &self.bundled {
            None => self.config.new_agent(),
            Some(bundled) => ureq::Agent::with_parts(
                self.config.clone(),
                FallbackTls::new(bundled.clone()),
                ureq::unversioned::resolver::DefaultResolver::default(),
            ),
        }
    }
}

/// The connector of an agent with two root sets: ureq's default chain with the agent's config
/// (the given roots), and after a failed TLS handshake the same chain over a new connection with
/// the bundled-roots config. Any other failure (refused, timeout, proxy) is returned as it is;
/// when both handshakes fail, the first error (the given roots', the likelier intent) is.
#[derive(Debug)]
struct FallbackTls {
    first: ureq::unversioned::transport::DefaultConnector,
    second: ureq::unversioned::transport::DefaultConnector,
    second_config: ureq::config::Config,
}

impl FallbackTls {
    fn new(second_config: ureq::config::Config) -> FallbackTls {
        FallbackTls { first: Default::default(), second: Default::default(), second_config }
    }
}

impl ureq::unversioned::transport::Connector for FallbackTls {
    type Out = Box<dyn ureq::unversioned::transport::Transport>;

    fn connect(
        &self,
        details: &ureq::unversioned::transport::ConnectionDetails,
        chained: Option<()>,
    ) -> Result<Option<Self::Out>, ureq::Error> {
        match self.first.connect(details, chained) {
            Err(first_error) if is_handshake_failure(&first_error) => {
                let retry = ureq::unversioned::transport::ConnectionDetails {
                    uri: details.uri,
                    addrs: details.addrs.clone(),
                    config: &self.second_config,
                    request_level: details.request_level,
                    resolver: details.resolver,
                    now: details.now,
                    timeout: details.timeout,
                    current_time: details.current_time.clone(),
                    run_connector: details.run_connector.clone(),
                    register_shutdown: details.register_shutdown.clone(),
                };
                self.second.connect(&retry, None).map_err(|_| first_error)
            }
            other => other,
        }
    }
}

/// A TLS handshake that failed (verification included): worth one try with the other roots.
/// rustls reports handshake failures through `std::io` as `InvalidData` (what ureq passes on as
/// `Error::Io`); refused, reset or timed-out connections are other kinds and are not retried.
fn is_handshake_failure(error: &ureq::Error) -> bool {
    match error {
        ureq::Error::Tls(_) | ureq::Error::Rustls(_) => true,
        ureq::Error::Io(io_error) => io_error.kind() == std::io::ErrorKind::InvalidData,
        _ => false,
    }
}

/// The ureq settings of every mewcode connection (models and MCP servers alike): connect and
/// resolve timeouts, the proxy `net` plans for `url` (loopback never), TLS roots (the bundled
/// Mozilla set, plus `roots` when given, see `AgentConfig`), no compression (a compressing proxy
/// could hold events back), and no redirects (keys and configured headers must not reach another
/// host; a 3xx comes back as a status). `idle` bounds each read and write. Returns the planned
/// proxy too.
pub(crate) fn agent_config(
    url: &str,
    net: &NetEnv,
    roots: &[PemSource],
    idle: Option<Duration>,
) -> Result<(AgentConfig, Option<String>), String> {
    let proxy_url = plan_proxy(url, &net.proxy);
    let proxy = match &proxy_url {
        Some(proxy) => Some(
            ureq::Proxy::new(proxy)
                .map_err(|err| format!("invalid proxy URL {proxy} (from HTTPS_PROXY/HTTP_PROXY/ALL_PROXY): {err}"))?,
        ),
        None => None,
    };
    let config = match roots {
        [] => AgentConfig { config: ureq_config(proxy, idle, None), bundled: None },
        roots => AgentConfig {
            config: ureq_config(proxy.clone(), idle, Some(parse_roots(roots)?)),
            bundled: Some(ureq_config(proxy, idle, None)),
        },
    };
    Ok((config, proxy_url))
}

/// One ureq config of `agent_config`: `root_certs` None = the bundled roots.
fn ureq_config(
    proxy: Option<ureq::Proxy>,
    idle: Option<Duration>,
    root_certs: Option<ureq::tls::RootCerts>,
) -> ureq::config::Config {
    let mut tls = ureq::tls::TlsConfig::builder();
    if let Some(root_certs) = root_certs {
        tls = tls.root_certs(root_certs);
    }
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_resolve(Some(CONNECT_TIMEOUT))
        .timeout_connect(Some(CONNECT_TIMEOUT))
        .timeout_per_read(idle)
        .timeout_per_write(idle)
        .proxy(proxy)
        .tls_config(tls.build())
        .accept_encoding("identity")
        .max_redirects(0)
        .user_agent(concat!("mewcode/", env!("CARGO_PKG_VERSION")))
        .build()
}

#[cfg(test)]
#[path = "agent_config_tests.rs"]
mod tests;
