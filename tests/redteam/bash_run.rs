//! Runs a command under real bash, confined, and says which programs it ran: stub programs on
//! an otherwise empty PATH log their names, and so does bash's `command_not_found_handle` for
//! any other name; `sh` and `bash` are the real shell, so nested shells run what they are given.
//!
//! Confined (for commands from elsewhere), a command runs the way the agent runs it: Landlock,
//! no network, and what outlives bash is ended by the reaper, so a process substitution bash
//! did not wait for may be gone before it logs. Unconfined (our own generated commands, which
//! only run stubs and builtins), every process is waited for.

use mewcode::redteam::{
    Engine, Level, ParsedCommand, Paths, RuleSet, RuleTexts, Sandbox, SandboxConfig, Status, kill_process_group,
    program_name, spawn_setup, unwrap_command,
};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// A temp dir with `bin/` (the stubs) and `work/` (the working directory and home).
pub struct BashRun {
    base: PathBuf,
    bin: PathBuf,
    work: PathBuf,
    logs: PathBuf,
    bash_env: PathBuf,
    /// Writes outside `work/` and the network are refused where the kernel has Landlock; None
    /// when unconfined.
    sandbox: Option<Sandbox>,
}

impl BashRun {
    /// A fresh directory `base` with one stub per name in `stubs`.
    pub fn new<'a>(base: PathBuf, stubs: impl IntoIterator<Item = &'a str>, confined: bool) -> BashRun {
        let (bin, work) = (base.join("bin"), base.join("work"));
        let logs = work.join(".stub-logs");
        std::fs::create_dir_all(&bin).expect("stub dir");
        std::fs::create_dir_all(work.join("tmp")).expect("work dir");
        std::fs::create_dir_all(&logs).expect("log dir");
        let stub = base.join("stub");
        std::fs::write(&stub, "#!/bin/sh\nprintf '%s\\n' \"${0##*/}\" >> \"$STUB_LOG\"\n").expect("stub");
        let mut permissions = std::fs::metadata(&stub).expect("stub").permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
        std::fs::set_permissions(&stub, permissions).expect("stub mode");
        for name in stubs.into_iter().filter(|name| !matches!(*name, "bash" | "sh")) {
            // Hard links: thousands of stubs cost one inode.
            let _ = std::fs::hard_link(&stub, bin.join(name));
        }
        for shell in ["bash", "sh"] {
            std::os::unix::fs::symlink("/bin/bash", bin.join(shell)).expect("shell link");
        }
        let bash_env = base.join("bash-env");
        std::fs::write(
            &bash_env,
            // Confined, the reaper ends what outlives bash: bash waits for its background jobs.
            "command_not_found_handle() { printf '%s\\n' \"${1##*/}\" >> \"$STUB_LOG\"; return 127; }\ntrap wait EXIT\n",
        )
        .expect("bash env");
        let work = std::fs::canonicalize(&work).expect("work dir");
        let paths = Paths {
            root: work.clone(),
            home: Some(work.clone()),
            mewcode_home: None,
            tmp: Some(work.join("tmp")),
            levels: Vec::new(),
            readable: Vec::new(),
        };
        let config = SandboxConfig { network: false, ..SandboxConfig::default() };
        let sandbox = confined.then(|| Sandbox::detect(config, paths));
        BashRun { base, bin, work, logs, bash_env, sandbox }
    }

    /// The working directory, the project of the engines judging the commands.
    pub fn project(&self) -> &Path {
        &self.work
    }

    /// The stub directory, bash's whole PATH.
    pub fn bin(&self) -> &Path {
        &self.bin
    }

    /// Whether the kernel confines the commands (else they are only as safe as the corpus).
    pub fn confined(&self) -> bool {
        self.sandbox.as_ref().is_some_and(|sandbox| matches!(sandbox.status(), Status::Confined { .. }))
    }

    /// The programs bash ran for `command` (killed with everything it started after a second).
    ///
    /// Bash and everything it starts hold one pipe as stdout and stderr; its end of file says
    /// that every process, background jobs included, has exited, so no sleep or poll is needed.
    pub fn run(&self, index: usize, command: &str) -> BTreeSet<String> {
        // One log per command, so a background job of an earlier one cannot write into it.
        let log = self.logs.join(format!("log-{index}"));
        let Ok((mut reader, writer)) = std::io::pipe() else { return BTreeSet::new() };
        let Ok(second) = writer.try_clone() else { return BTreeSet::new() };
        let mut bash = Command::new("/bin/bash");
        // Its own session or process group, so a runaway command is killed with what it started.
        match &self.sandbox {
            Some(sandbox) => {
                let Ok(confinement) = sandbox.confinement() else { return BTreeSet::new() };
                spawn_setup(&mut bash, confinement);
            }
            None => {
                std::os::unix::process::CommandExt::process_group(&mut bash, 0);
            }
        }
        let child = bash
            .arg("--norc")
            .arg("--noprofile")
            .arg("-c")
            .arg(command)
            .env_clear()
            .env("PATH", &self.bin)
            .env("HOME", &self.work)
            .env("TMPDIR", self.work.join("tmp"))
            .env("BASH_ENV", &self.bash_env)
            .env("STUB_LOG", &log)
            .current_dir(&self.work)
            .stdin(Stdio::null())
            .stdout(writer)
            .stderr(second)
            .spawn();
        // `bash` still holds the parent's copies of the write end until dropped.
        drop(bash);
        let Ok(mut child) = child else { return BTreeSet::new() };
        let (done, finished) = crossbeam_channel::bounded::<()>(1);
        let drain = std::thread::spawn(move || {
            let _ = std::io::copy(&mut reader, &mut std::io::sink());
            let _ = done.send(());
        });
        if finished.recv_timeout(Duration::from_secs(1)).is_err() {
            let _ = kill_process_group(child.id());
            let _ = child.kill();
            // A process that closed both descriptors and outlived the kill is not waited for.
            let _ = finished.recv_timeout(Duration::from_secs(1));
        }
        let _ = child.wait();
        drop(drain);
        std::fs::read_to_string(&log).unwrap_or_default().lines().map(str::to_string).collect()
    }
}

impl Drop for BashRun {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.base);
    }
}

/// Runs `judge` over every case on two threads (each command waits on bash most of the time),
/// each with its own tally; returns the two tallies.
pub fn on_two_workers<C: Sync, T: Default + Send>(cases: &[C], judge: impl Fn(&mut T, usize, &C) + Sync) -> Vec<T> {
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..2)
            .map(|worker| {
                let judge = &judge;
                scope.spawn(move || {
                    let mut tally = T::default();
                    for (index, case) in cases.iter().enumerate().skip(worker).step_by(2) {
                        judge(&mut tally, index, case);
                    }
                    tally
                })
            })
            .collect();
        workers.into_iter().map(|worker| worker.join().expect("differential worker")).collect()
    })
}

/// The programs the reader judged in `parsed`: each simple command's first word and, through
/// wrappers (`env`, `timeout`, …), the program they run, by the name bash looks up.
pub fn judged_programs(parsed: &ParsedCommand) -> BTreeSet<String> {
    parsed
        .subcommands
        .iter()
        .flat_map(|command| {
            let effective = unwrap_command(&command.words);
            command.words.first().into_iter().chain(effective.words.first()).cloned().collect::<Vec<_>>()
        })
        .map(|word| program_name(&word).to_string())
        .collect()
}

/// An engine in `root` whose only rules allow each of `programs` (`Bash(NAME)`, `Bash(NAME *)`).
pub fn engine_allowing<'a>(root: &Path, programs: impl IntoIterator<Item = &'a str>) -> Engine {
    let allow = programs.into_iter().flat_map(|name| [format!("Bash({name})"), format!("Bash({name} *)")]).collect();
    let (set, _) = RuleSet::from_texts(vec![(Level::User, RuleTexts { allow, ..RuleTexts::default() })]);
    Engine::new(root.to_path_buf(), None, set)
}
