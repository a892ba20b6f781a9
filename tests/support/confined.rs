//! A project, a HOME outside `/tmp` and a scripted model for one user: the test's own, or (when
//! that is root, as in CI) an unprivileged uid made for the test, the path users get. The
//! sandbox's end-to-end tests (`confinement.rs`, `network_policy.rs`) run the real binary so.

use super::project::TempDir;
use super::script::anthropic;
use super::{FakeModel, Provider, TestEnv};
use serde_json::{Value, json};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// The unprivileged user the tests run mewcode as when they run as root (no passwd entry needed).
pub const TEST_UID: u32 = 61_727;

/// Who runs mewcode: the test's own user, and an unprivileged uid when that is root.
pub fn users() -> Vec<Option<u32>> {
    if mewcode::integration::current_uid() == 0 { vec![None, Some(TEST_UID)] } else { vec![None] }
}

pub fn who(uid: Option<u32>) -> String {
    uid.map_or_else(|| "own user".to_string(), |uid| format!("uid {uid}"))
}

/// One project, one HOME and one fake model for one user.
pub struct Case {
    pub model: FakeModel,
    pub env: TestEnv,
    pub world: TempDir,
    pub uid: Option<u32>,
    calls: usize,
}

impl Case {
    /// A case whose user config adds `sandbox` (YAML under `sandbox:`, may be empty); None (with
    /// the reason printed and logged) where this user gets no namespace view.
    pub fn new(label: &str, uid: Option<u32>, sandbox: &str) -> Option<Case> {
        let model = FakeModel::start();
        let config = if sandbox.is_empty() { String::new() } else { format!("sandbox: {sandbox}\n") };
        let mut env = TestEnv::with_model(label, &model, Provider::anthropic().model("m").then(&config));
        let world = TempDir::visible(label);
        std::fs::create_dir_all(world.path().join("home")).unwrap();
        env.vars.push(("HOME".to_string(), world.path().join("home").display().to_string()));
        let case = Case { model, env, world, uid, calls: 0 };
        let doctor = case.mewcode(&["doctor"]).output().unwrap();
        let doctor = String::from_utf8_lossy(&doctor.stdout).into_owned();
        if !doctor.contains("view:          on") {
            let reason = doctor.lines().find(|line| line.contains("view:")).unwrap_or("no sandbox line").trim();
            crate::support::skip::skip(&format!("{label} ({}): {reason}", who(uid)), false);
            return None;
        }
        Some(case)
    }

    pub fn home(&self) -> PathBuf {
        self.world.path().join("home")
    }

    /// The mewcode command for this case's user (files handed over to that user first).
    pub fn mewcode(&self, args: &[&str]) -> std::process::Command {
        let mut command = self.env.command(args);
        if let Some(uid) = self.uid {
            for dir in [self.env.dir.path(), self.world.path()] {
                chown_tree(dir, uid);
            }
            command.uid(uid).gid(uid);
        }
        command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        command
    }

    /// Runs `command` as one bash call in bypass mode (with `timeout` seconds); the tool result.
    pub fn run(&mut self, command: &str, timeout: u64) -> String {
        self.run_with(command, timeout, &["-p", "go", "--mode", "bypass"]).0
    }

    /// Runs `command` as one bash call of a `-p` run with `args` (with `timeout` seconds): the
    /// tool result the model read, and the run's stdout.
    pub fn run_with(&mut self, command: &str, timeout: u64, args: &[&str]) -> (String, String) {
        let input = json!({ "command": command, "timeout": timeout }).to_string();
        self.model.push(anthropic("", &[("c1", "bash", &input)]));
        self.model.push(anthropic("done", &[]));
        let output = self.mewcode(args).output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
        self.calls += 2;
        let body: Value = self.model.requests()[self.calls - 1].json.clone().unwrap();
        let last = body["messages"].as_array().unwrap().last().unwrap().clone();
        let result = match &last["content"][0]["content"] {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        (result, String::from_utf8_lossy(&output.stdout).into_owned())
    }
}

/// Hands `dir` and everything in it to `uid` (the test runs as root to do this).
pub fn chown_tree(dir: &Path, uid: u32) {
    let _ = std::os::unix::fs::lchown(dir, Some(uid), Some(uid));
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
            chown_tree(&path, uid);
        } else {
            let _ = std::os::unix::fs::lchown(&path, Some(uid), Some(uid));
        }
    }
}

/// A process of the test, run as the case's user (the listeners a command must not reach).
pub fn as_user(program: &str, uid: Option<u32>) -> std::process::Command {
    let mut command = std::process::Command::new(program);
    if let Some(uid) = uid {
        command.uid(uid).gid(uid);
    }
    command
}
