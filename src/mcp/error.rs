//! `McpError`: every way talking to an MCP server can fail, one hand-written enum for the layer.
//!
//! Invariant: each message names the server-side thing that failed and, where there is one, the
//! fix; the server's name is added by whoever reports it (the manager, a tool result), not here.
//! Callers decide by variant: `SessionExpired` makes the client re-initialise once, `Rpc` and
//! `Timeout` are per-call failures the model reads, everything else means the server is unusable.

/// A failure while starting or talking to one MCP server.
#[derive(Clone, Debug, PartialEq)]
pub enum McpError {
    /// The stdio server's command could not be started (not found, not executable). The server
    /// is skipped at start-up.
    Spawn { command: String, message: String },
    /// The server process exited or closed its stdout; pending and later calls fail with this.
    /// `detail` says how (exit status) when known.
    Exited { detail: String },
    /// Writing to or reading from the server failed at the OS level (a broken pipe, a reset).
    Io { message: String },
    /// No response within the request's timeout; the request was cancelled with
    /// `notifications/cancelled` and a late answer is ignored.
    Timeout { method: String, seconds: f64 },
    /// The caller's cancel token fired while waiting (the user interrupted the turn).
    Cancelled,
    /// The server answered with a JSON-RPC error object (unknown tool, invalid params, ...).
    Rpc { code: i64, message: String },
    /// The server broke the protocol: an unparsable answer, an unsupported protocol version, a
    /// stream that ended without the response.
    Protocol { message: String },
    /// An HTTP server answered a non-2xx status (401 means it needs credentials).
    Http { status: u16, message: String },
    /// HTTP 404 (or 400 without a JSON-RPC body) on a request that carried a session id: the
    /// session is gone and the client re-initialises once.
    SessionExpired,
    /// Connecting to an HTTP server failed (DNS, refused, TLS, timeout while connecting).
    Network { message: String },
    /// A configuration value cannot work (an invalid URL, an unreadable CA file, a bad header).
    Config { message: String },
}

impl std::fmt::Display for McpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            McpError::Spawn { command, message } => {
                write!(f, "cannot start {command:?}: {message}; check the command and PATH")
            }
            McpError::Exited { detail } => write!(f, "the server is not running ({detail})"),
            McpError::Io { message } => write!(f, "talking to the server failed: {message}"),
            McpError::Timeout { method, seconds } => {
                write!(f, "{method} timed out after {seconds} s (raise the server's timeout_s if it is slow)")
            }
            McpError::Cancelled => write!(f, "cancelled"),
            McpError::Rpc { code, message } => write!(f, "server error {code}: {message}"),
            McpError::Protocol { message } => write!(f, "protocol error: {message}"),
            McpError::Http { status: 401, message } => {
                write!(
                    f,
                    "HTTP 401: the server needs credentials (set headers: Authorization in the config): {message}"
                )
            }
            McpError::Http { status, message } => write!(f, "HTTP {status}: {message}"),
            McpError::SessionExpired => write!(f, "the server forgot the session (it expired or restarted)"),
            McpError::Network { message } => write!(f, "{message}"),
            McpError::Config { message } => write!(f, "{message}"),
        }
    }
}

impl std::error::Error for McpError {}
