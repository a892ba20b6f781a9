//! Temp directories and a hermetic environment for running the real `mewcode` binary.
//!
//! Every test gets its own project dir and MEWCODE_HOME; HOME points into the temp dir too, the
//! provider keys are removed and the local-server probe points at a closed port, so nothing on
//! the developer's machine can change a result.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};

/// A directory removed on drop.
pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    /// A fresh empty directory with `label` in its name.
    pub fn new(label: &str) -> TempDir {
        TempDir::new_in(&std::env::temp_dir(), label)
    }

    /// A fresh empty directory that commands see in the sandbox's view: outside `/tmp` (which
    /// the view replaces by a private one), under cargo's scratch dir for integration tests.
    pub fn visible(label: &str) -> TempDir {
        let base = super::visible::visible_base(Path::new(env!("CARGO_TARGET_TMPDIR")));
        TempDir::new_in(&base, label)
    }

    fn new_in(base: &Path, label: &str) -> TempDir {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        let unique =
            format!("mewcode-it-{label}-{}-{}-{nanos}", std::process::id(), COUNTER.fetch_add(1, Ordering::SeqCst));
        let path = base.join(unique);
        std::fs::create_dir_all(&path).expect("create temp dir");
        // Canonical, so paths printed by mewcode (which canonicalises its root) compare equal.
        TempDir { path: std::fs::canonicalize(&path).expect("canonical temp dir") }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// A temp project plus a temp MEWCODE_HOME, and a way to run mewcode inside them.
pub struct TestEnv {
    pub dir: TempDir,
    pub project: PathBuf,
    pub home: PathBuf,
    /// Extra environment for every command (e.g. API keys a test sets on purpose).
    pub vars: Vec<(String, String)>,
}

/// A port nothing listens on (bound, then released), for the probe.
pub fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr").port()
}

/// The provider entry `TestEnv::with_model` writes: `fake`, model `test-model`, key `k`, at a
/// fake model, anthropic or openai, plus any other keys and any top-level YAML after it.
#[derive(Clone, Debug)]
pub struct Provider {
    protocol: &'static str,
    name: String,
    model: String,
    key: String,
    /// More `key: value` pairs of the entry (`context_window: 4096`).
    fields: Vec<String>,
    /// YAML after `providers:` (hooks, mcp_servers, …).
    rest: String,
}

impl Provider {
    pub fn anthropic() -> Provider {
        Provider::of("anthropic")
    }

    pub fn openai() -> Provider {
        Provider::of("openai")
    }

    /// `protocol` by name (`anthropic` or `openai`), for tests run over both.
    pub fn of(protocol: &str) -> Provider {
        let protocol = if protocol == "anthropic" { "anthropic" } else { "openai" };
        Provider {
            protocol,
            name: "fake".into(),
            model: "test-model".into(),
            key: "k".into(),
            fields: Vec::new(),
            rest: String::new(),
        }
    }

    pub fn named(mut self, name: &str) -> Provider {
        self.name = name.into();
        self
    }

    pub fn model(mut self, model: &str) -> Provider {
        self.model = model.into();
        self
    }

    pub fn key(mut self, key: &str) -> Provider {
        self.key = key.into();
        self
    }

    /// Another `key: value` of the entry.
    pub fn field(mut self, field: &str) -> Provider {
        self.fields.push(field.into());
        self
    }

    /// Top-level YAML after the providers (`hooks:\n  …`).
    pub fn then(mut self, yaml: &str) -> Provider {
        self.rest.push_str(yaml);
        self
    }

    /// The user config with this entry pointing at `url` (the fake model's; openai gets `/v1`).
    pub fn config_yaml(&self, url: &str) -> String {
        let base = if self.protocol == "anthropic" { url.to_string() } else { format!("{url}/v1") };
        let fields: String = self.fields.iter().map(|field| format!(", {field}")).collect();
        format!(
            "providers:\n  - {{name: {}, protocol: {}, model: {}, api_key: {}, base_url: \"{base}\"{fields}}}\n{}",
            self.name, self.protocol, self.model, self.key, self.rest
        )
    }
}

impl TestEnv {
    /// A temp project and MEWCODE_HOME whose user config has `provider` at `model`.
    pub fn with_model(label: &str, model: &super::FakeModel, provider: Provider) -> TestEnv {
        let env = TestEnv::new(label);
        env.write_home("config.yaml", &provider.config_yaml(&model.url()));
        env
    }

    pub fn new(label: &str) -> TestEnv {
        let dir = TempDir::new(label);
        let project = dir.path().join("project");
        let home = dir.path().join("mewcode-home");
        std::fs::create_dir_all(&project).expect("project dir");
        std::fs::create_dir_all(&home).expect("home dir");
        TestEnv { dir, project, home, vars: Vec::new() }
    }

    /// Writes a file relative to the project (creating parents).
    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        write_file(&self.project.join(rel), text)
    }

    /// Writes `.mewcode/settings.local.yaml` as mewcode itself would ("always" answers): `body`
    /// under this installation's mark. The installation's key (`session-key` in MEWCODE_HOME) is
    /// the one a run made, or a fixed one written here first.
    pub fn write_marked_local_settings(&self, body: &str) -> PathBuf {
        let key_file = self.home.join("session-key");
        if !key_file.exists() {
            write_file(&key_file, &format!("{}\n", "5a".repeat(32)));
        }
        let hex = std::fs::read_to_string(&key_file).expect("session key");
        let hex = hex.trim_end();
        let mut key = [0u8; 32];
        for (index, byte) in key.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&hex[index * 2..index * 2 + 2], 16).expect("hex key");
        }
        let path = self.project.join(".mewcode/settings.local.yaml");
        let mark = mewcode::integration::Owner::from_key(key).file_mark(&path, body.as_bytes()).expect("a mark");
        write_file(&path, &format!("# mewcode-mark: {mark}\n{body}"))
    }

    /// Writes a file relative to MEWCODE_HOME.
    pub fn write_home(&self, rel: &str, text: &str) -> PathBuf {
        write_file(&self.home.join(rel), text)
    }

    /// The mewcode binary with a hermetic environment, run in the project directory.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_mewcode"));
        command.args(args).current_dir(&self.project).env_clear();
        if let Some(path) = std::env::var_os("PATH") {
            command.env("PATH", path);
        }
        command
            .env("HOME", self.dir.path())
            .env("MEWCODE_HOME", &self.home)
            .env("MEWCODE_PROBE_PORTS", format!("{},{}", closed_port(), closed_port()))
            .env("LANG", "C.UTF-8");
        for (name, value) in &self.vars {
            command.env(name, value);
        }
        command
    }

    /// Runs mewcode to completion with `stdin` as its input.
    pub fn run_with_stdin(&self, args: &[&str], stdin: &str) -> Run {
        use std::io::Write;
        let mut child = self
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn mewcode");
        let mut input = child.stdin.take().expect("stdin");
        let text = stdin.to_string();
        let writer = std::thread::spawn(move || {
            let _ = input.write_all(text.as_bytes());
        });
        let output = child.wait_with_output().expect("wait mewcode");
        let _ = writer.join();
        Run::from(output)
    }

    /// Runs mewcode to completion with an empty, non-terminal stdin.
    pub fn run(&self, args: &[&str]) -> Run {
        let output = self.command(args).stdin(Stdio::null()).output().expect("run mewcode");
        Run::from(output)
    }
}

fn write_file(path: &Path, text: &str) -> PathBuf {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("parent dir");
    }
    std::fs::write(path, text).expect("write file");
    path.to_path_buf()
}

/// The outcome of one run.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(output: Output) -> Run {
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }
}
