//! The HTTP plumbing every outgoing connection shares, model servers (`llm/`) and MCP servers
//! (`mcp/http/`) alike: the network settings of the environment (proxies, extra CA bundle),
//! the ureq settings of a connection (timeouts, TLS roots, no redirects, no compression), and
//! the keep-alive of one idle agent between exchanges.
//!
//! Invariant: a leaf. It imports nothing from the crate but the lowest floor (`url`, `sync`),
//! knows no provider, protocol or server, and returns plain `String` errors that name the file
//! or proxy involved: each caller maps them (and ureq's errors) into its own error enum, once,
//! at its boundary. It reads no environment variable: `NetEnv` is built from the snapshot the
//! wiring passes down.
//!
//! - `mod.rs` — the module map, and `read_capped` for error bodies
//! - `net.rs` — `NetEnv`: proxy variables and `SSL_CERT_FILE`, and the pure proxy decision
//! - `agent_config.rs` — `AgentConfig`: the ureq settings of every connection, with the
//!   bundled-roots fallback of a failed handshake
//! - `roots.rs` — CA files read and parsed, and the roots in use as doctor describes them
//! - `keep_alive.rs` — `KeepAlive`: one idle agent per client between exchanges
//! - `test_tls_server.rs` — (tests) an `openssl s_server` with its own test CAs

pub(crate) mod agent_config;
pub(crate) mod keep_alive;
pub(crate) mod net;
pub(crate) mod roots;
#[cfg(test)]
pub(crate) mod test_tls_server;

use std::io::Read;

/// Up to `limit` bytes of a body, as text: an error body's message, read without trusting its
/// size. A body that fails half-way still carries a useful message in what did arrive.
pub(crate) fn read_capped(reader: impl Read, limit: u64) -> String {
    let mut bytes = Vec::new();
    let _ = reader.take(limit).read_to_end(&mut bytes);
    String::from_utf8_lossy(&bytes).into_owned()
}
