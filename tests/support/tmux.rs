//! Drives the real `mewcode` REPL in a pseudo-terminal: a tmux server on a socket of its own,
//! keys sent with `send-keys`, the screen read with `capture-pane` and polled (every 50 ms, up
//! to a deadline) for the text a test waits for. No fixed sleeps.
//!
//! The program runs under `env -i` with exactly the variables given, so the developer's
//! environment cannot change a result. When it exits, the pane prints `[exited CODE]` and stays.

use super::project::{TestEnv, closed_port};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How long `wait_for` polls before failing the test.
pub const DEADLINE: Duration = Duration::from_secs(10);
const POLL: Duration = Duration::from_millis(50);

/// The pane a program runs in.
pub struct Pane {
    pub columns: u16,
    pub rows: u16,
    /// A file that receives the raw output (`pipe-pane`).
    pub log: Option<std::path::PathBuf>,
}

impl Default for Pane {
    fn default() -> Pane {
        Pane { columns: 120, rows: 40, log: None }
    }
}

/// A tmux server running one mewcode; killed on drop.
pub struct Tmux {
    socket: String,
}

impl Tmux {
    /// Starts `mewcode ARGS` in a 120x40 pane in the env's project, with MEWCODE_HOME, HOME,
    /// PATH, LANG, TERM and a closed probe port set, plus `extra` variables.
    pub fn start(env: &TestEnv, args: &[&str], extra: &[(&str, &str)]) -> Tmux {
        Tmux::start_with(env, args, extra, Pane::default())
    }

    /// Like `start`, in a pane of `pane.columns` × `pane.rows`; with `pane.log`, every byte the
    /// program writes to the terminal is also appended to that file (`pipe-pane`), from its
    /// first byte on: the program only starts once the pipe is in place.
    pub fn start_with(env: &TestEnv, args: &[&str], extra: &[(&str, &str)], pane: Pane) -> Tmux {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let socket = format!("mewcode-it-{}-{}", std::process::id(), COUNTER.fetch_add(1, Ordering::SeqCst));
        let mut vars: Vec<(String, String)> = vec![
            ("PATH".into(), std::env::var("PATH").unwrap_or_default()),
            ("HOME".into(), env.dir.path().display().to_string()),
            ("MEWCODE_HOME".into(), env.home.display().to_string()),
            ("MEWCODE_PROBE_PORTS".into(), format!("{},{}", closed_port(), closed_port())),
            ("LANG".into(), "C.UTF-8".into()),
            ("TERM".into(), "xterm-256color".into()),
        ];
        vars.extend(extra.iter().map(|(name, value)| (name.to_string(), value.to_string())));
        vars.extend(env.vars.iter().cloned());
        let assignments: Vec<String> = vars.iter().map(|(name, value)| format!("{name}={}", quote(value))).collect();
        let program: Vec<String> = std::iter::once(env!("CARGO_BIN_EXE_mewcode").to_string())
            .chain(args.iter().map(|a| a.to_string()))
            .collect();
        let program: Vec<String> = program.iter().map(|word| quote(word)).collect();
        // With a log, the shell waits for one line (an Enter sent after `pipe-pane`).
        let wait = if pane.log.is_some() { "read -r _; " } else { "" };
        let script = format!(
            "{wait}cd {} && env -i {} {}; echo \"[exited $?]\"; sleep 600",
            quote(&env.project.display().to_string()),
            assignments.join(" "),
            program.join(" ")
        );
        let tmux = Tmux { socket };
        let (columns, rows) = (pane.columns.to_string(), pane.rows.to_string());
        tmux.run(&["-f", "/dev/null", "new-session", "-d", "-x", &columns, "-y", &rows, "-s", "main", &script]);
        if let Some(log) = &pane.log {
            let command = format!("cat >> {}", quote(&log.display().to_string()));
            tmux.run(&["pipe-pane", "-t", "main", &command]);
            tmux.keys(&["Enter"]);
        }
        tmux
    }

    /// Sends tmux key names (`Enter`, `C-c`, `BTab`, `M-Enter`) or literal words.
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "main"];
        args.extend_from_slice(keys);
        self.run(&args);
    }

    /// Types `text` literally (no key-name interpretation).
    pub fn type_text(&self, text: &str) {
        self.run(&["send-keys", "-t", "main", "-l", text]);
    }

    /// Pastes `text` as a terminal does (bracketed, when the program asked for it).
    pub fn paste(&self, text: &str) {
        self.run(&["set-buffer", "-b", "paste", "--", text]);
        self.run(&["paste-buffer", "-p", "-d", "-b", "paste", "-t", "main"]);
    }

    /// The visible screen as plain text.
    pub fn screen(&self) -> String {
        self.capture(false)
    }

    /// The visible screen with its colours and attributes as escape sequences (`capture-pane -e`).
    pub fn screen_with_escapes(&self) -> String {
        self.capture(true)
    }

    /// The scrollback and the screen as plain text, one pane row per line.
    pub fn history(&self) -> String {
        let output =
            self.command(&["capture-pane", "-p", "-t", "main", "-S", "-"]).output().expect("tmux capture-pane");
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// Polls the screen until it contains `needle`; returns the screen. Fails the test with the
    /// screen after `DEADLINE`.
    pub fn wait_for(&self, needle: &str) -> String {
        self.wait_until(needle, |screen| screen.contains(needle))
    }

    /// Polls until the last non-empty line is an empty prompt (`›`, trailing blanks are not
    /// captured).
    pub fn wait_for_prompt(&self) -> String {
        self.wait_until("an empty prompt", |screen| {
            screen.lines().rev().find(|line| !line.trim().is_empty()).is_some_and(|line| line.trim_end() == "›")
        })
    }

    /// Polls the screen until `done` holds; `what` names the condition in the failure message.
    pub fn wait_until(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + DEADLINE;
        loop {
            let screen = self.screen();
            if done(&screen) {
                return screen;
            }
            if Instant::now() > deadline {
                panic!("timed out after {DEADLINE:?} waiting for {what:?}; the screen:\n{screen}");
            }
            std::thread::sleep(POLL);
        }
    }

    fn capture(&self, escapes: bool) -> String {
        let mut args = vec!["capture-pane", "-p", "-t", "main"];
        if escapes {
            args.push("-e");
        }
        let output = self.command(&args).output().expect("tmux capture-pane");
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    fn run(&self, args: &[&str]) {
        let output = self.command(args).output().expect("run tmux (is it installed?)");
        assert!(output.status.success(), "tmux {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new("tmux");
        command.arg("-u").arg("-L").arg(&self.socket).args(args).env("LANG", "C.UTF-8");
        command
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.command(&["kill-server"]).output();
    }
}

/// Single-quotes a word for sh.
fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}
