//! Real MCP servers for the tests: the official Python SDK fixtures (`fixtures/mcp/sdk_server.py`,
//! `features_server.py`), the stdlib fixture (`fixtures/mcp/raw_server.py`), the TypeScript
//! reference server `@modelcontextprotocol/server-everything`, and the official conformance suite
//! `@modelcontextprotocol/conformance` with the Node 22 it needs, the last three installed by
//! `.ci/test-deps` under `target/npm`.
//!
//! When a server is missing, `require` fails the test under CI (`CI=true`) and otherwise prints
//! why and lets the test return early, so a developer without Node or the SDK can still run the
//! rest. HTTP servers bind a free port picked by binding port 0 first; readiness is polled with a
//! deadline, never slept for.

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// `fixtures/mcp/<name>`.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/mcp").join(name)
}

/// The TS everything server's entry point.
pub fn everything_js() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
}

fn npm_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/npm/node_modules")
}

/// The conformance suite's entry point.
pub fn conformance_js() -> PathBuf {
    npm_dir().join("@modelcontextprotocol/conformance/dist/index.js")
}

/// The Node 22 binary from the npm registry's `node` package.
pub fn node22() -> PathBuf {
    npm_dir().join(".bin/node")
}

/// True when the conformance suite and a Node 22 to run it are installed.
pub fn conformance_available() -> bool {
    conformance_js().is_file()
        && Command::new(node22())
            .arg("--version")
            .output()
            .is_ok_and(|output| String::from_utf8_lossy(&output.stdout).starts_with("v22."))
}

/// True when the Python SDK is importable.
pub fn python_sdk_available() -> bool {
    Command::new("python3")
        .args(["-c", "import mcp"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// True when node and the everything server are installed.
pub fn everything_available() -> bool {
    everything_js().is_file()
        && Command::new("node").arg("--version").stdout(Stdio::null()).status().is_ok_and(|status| status.success())
}

/// Whether a test may run: `available`, else a skip (a failure under CI, which installs them).
pub fn require(available: bool, what: &str) -> bool {
    if !available {
        super::skip::skip(&format!("{what} is not installed (`bash .ci/test-deps` installs it)"), true);
    }
    available
}

/// A free loopback port: bound, then released for the server to take.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A server process listening on 127.0.0.1; killed on drop.
pub struct HttpServer {
    child: Child,
    pub port: u16,
}

impl HttpServer {
    /// Starts `program args` (with `{port}` in args replaced) plus `env`, and waits until the port
    /// accepts connections (at most 30 s).
    pub fn start(program: &str, args: &[&str], env: &[(&str, String)]) -> HttpServer {
        let port = free_port();
        let args: Vec<String> = args.iter().map(|arg| arg.replace("{port}", &port.to_string())).collect();
        let mut command = Command::new(program);
        command.args(&args).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
        for (name, value) in env {
            command.env(name, value.replace("{port}", &port.to_string()));
        }
        let mut child = command.spawn().unwrap_or_else(|err| panic!("spawn {program}: {err}"));
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return HttpServer { child, port };
            }
            if let Ok(Some(status)) = child.try_wait() {
                panic!("{program} {args:?} exited with {status} before listening");
            }
            assert!(Instant::now() < deadline, "{program} did not listen on {port} within 30 s");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// `http://127.0.0.1:PORT/mcp`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// True once process `pid` no longer exists (or is a zombie awaiting its parent), polled for up
/// to `within`.
pub fn process_gone(pid: u32, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    loop {
        let gone = match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => true,
            Ok(stat) => stat.rsplit_once(')').is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
        };
        if gone || Instant::now() >= deadline {
            return gone;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Reads a pid file a fixture server wrote, waiting for it up to 10 s.
pub fn read_pid(path: &Path) -> u32 {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(pid) = std::fs::read_to_string(path).ok().and_then(|text| text.trim().parse().ok()) {
            return pid;
        }
        assert!(Instant::now() < deadline, "no pid in {}", path.display());
        std::thread::sleep(Duration::from_millis(20));
    }
}
