//! The kernel corpus (`kernel.attacks`): attacks run as they are under the real confinement —
//! no permission engine in front — in a planted project and HOME, each checked by its effect:
//! a secret printed, a file outside changed (content, mode, owner, times), a control file
//! changed, a listener reached, a set-id file made, or the machine's process count past the cap.
//! Printed per family; a miss fails the run. Skipped, and said so, where the kernel gives no
//! namespace view (the planted sandbox reports which layer is missing).

use super::snapshot::state_under;
use mewcode::redteam::{Paths, Sandbox, SandboxConfig, spawn_setup};
use std::collections::BTreeMap;
use std::io::Read;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The process cap the planted sandbox sets, and how far the host's count may rise above it.
const CAP: u64 = 128;
const SLACK: usize = 64;
/// The control files planted in the project, checked byte for byte after every attack.
const CONTROLS: [&str; 8] = [
    ".git/hooks/pre-commit",
    ".git/config",
    ".husky/pre-commit",
    "AGENTS.md",
    "pkg/AGENTS.md",
    ".mewcode/settings.yaml",
    ".mewcode/settings.local.yaml",
    ".vscode/tasks.json",
];
/// Credential files planted in HOME (all of them on the sandbox's list); their content is marked.
const SECRETS: [&str; 12] = [
    ".ssh/id_ed25519",
    ".aws/credentials",
    ".netrc",
    ".config/gh/hosts.yml",
    ".npmrc",
    ".pgpass",
    ".bash_history",
    ".git-credentials",
    ".kube/config",
    ".docker/config.json",
    ".gnupg/private-keys-v1.d/k.key",
    ".psql_history",
];

struct Attack {
    family: String,
    line: usize,
    command: String,
}

/// Runs the corpus; false when an attack got through.
pub fn run() -> bool {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/redteam/kernel.attacks"))
        .expect("kernel.attacks");
    let attacks = parse(&text);
    let base = super::visible::visible_base(Path::new(env!("CARGO_TARGET_TMPDIR")))
        .join(format!("mewcode-kernel-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let plant = Plant::new(&base);
    // Left by an earlier, interrupted run: not this run's evidence.
    for entry in std::fs::read_dir("/dev/shm").into_iter().flatten().flatten() {
        if entry.file_name().to_string_lossy().starts_with("kernel-fill") {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    if !plant.sandbox.summary().contains("namespace view") || plant.sandbox.summary().contains("no namespace view") {
        println!("kernel corpus: skipped, no namespace view here: {}", plant.sandbox.summary());
        return true;
    }
    let started = std::time::Instant::now();
    let mut per_family: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut misses = Vec::new();
    for attack in &attacks {
        let verdict = plant.attack(&attack.command);
        let entry = per_family.entry(&attack.family).or_default();
        entry.0 += 1;
        match verdict {
            Ok(()) => entry.1 += 1,
            Err(why) => {
                misses.push(format!("  line {}: [{}] {}\n    {why}", attack.line, attack.family, attack.command))
            }
        }
    }
    println!(
        "kernel corpus: {} attacks in {} families, {:.1}s",
        attacks.len(),
        per_family.len(),
        started.elapsed().as_secs_f64()
    );
    for (family, (total, held)) in &per_family {
        println!("  {family:<28} {held:>4}/{total:<4}{}", if held == total { "" } else { "  FAILING" });
    }
    drop(plant);
    let _ = std::fs::remove_dir_all(&base);
    if !misses.is_empty() {
        println!("kernel misses:\n{}", misses.join("\n"));
    }
    misses.is_empty()
}

fn parse(text: &str) -> Vec<Attack> {
    let mut family = String::new();
    let mut attacks = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if let Some(header) = line.strip_prefix("## ") {
            family = header.split(" — ").next().unwrap_or(header).trim().to_string();
        } else if let Some(command) = line.strip_prefix("holds ") {
            attacks.push(Attack { family: family.clone(), line: index + 1, command: command.to_string() });
        } else if !(line.is_empty() || line.starts_with('#')) {
            panic!("kernel.attacks line {}: expected `## family — …` or `holds COMMAND`", index + 1);
        }
    }
    attacks
}

/// The planted world: a git project with control files, a HOME with secrets, a directory
/// outside, two listeners and, as root, a second mount of HOME.
struct Plant {
    project: PathBuf,
    home: PathBuf,
    outside: PathBuf,
    mirror: Option<PathBuf>,
    listeners: Vec<UnixListener>,
    env: Vec<(String, String)>,
    sandbox: Sandbox,
    _tmp: PathBuf,
}

impl Plant {
    fn new(base: &Path) -> Plant {
        let (project, home, outside) = (base.join("project"), base.join("home"), base.join("outside"));
        for dir in [&project, &home, &outside] {
            std::fs::create_dir_all(dir).expect("plant dir");
        }
        let status = Command::new("git").args(["init", "-q"]).current_dir(&project).status().expect("git");
        assert!(status.success(), "git init");
        for control in CONTROLS {
            let path = project.join(control);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("control dir");
            if !control.ends_with("config") {
                let text = if control.ends_with(".yaml") { "permissions: {}\n" } else { "original\n" };
                std::fs::write(&path, text).expect("control file");
            }
        }
        for (index, secret) in SECRETS.iter().enumerate() {
            let path = home.join(secret);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("secret dir");
            std::fs::write(&path, format!("KERNEL-SECRET-{index}\n")).expect("secret");
        }
        std::fs::write(outside.join("canary.txt"), "canary\n").expect("canary");
        let tmp = std::env::temp_dir().join(format!("mewcode-kernel-tmp-{}", std::process::id()));
        std::fs::create_dir_all(&tmp).expect("tmp dir");
        let bus = base.join("bus.sock");
        let tmp_bus = tmp.join("bus.sock");
        let listeners: Vec<UnixListener> = [&bus, &tmp_bus]
            .iter()
            .map(|path| {
                let listener = UnixListener::bind(path).expect("listener");
                listener.set_nonblocking(true).expect("nonblocking");
                listener
            })
            .collect();
        let mirror = base.join("mirror");
        std::fs::create_dir_all(&mirror).expect("mirror dir");
        let mounted = mewcode::redteam::current_uid() == 0
            && Command::new("mount").arg("--bind").arg(&home).arg(&mirror).status().is_ok_and(|s| s.success());
        let session_tmp = base.join("session-tmp");
        std::fs::create_dir_all(&session_tmp).expect("session tmp");
        let project = std::fs::canonicalize(&project).expect("canonical");
        let home = std::fs::canonicalize(&home).expect("canonical");
        let paths = Paths {
            root: project.clone(),
            home: Some(home.clone()),
            mewcode_home: None,
            tmp: Some(session_tmp.clone()),
            levels: vec![project.clone(), project.join("pkg")],
            readable: Vec::new(),
        };
        let mut config = SandboxConfig::default();
        config.limits.processes = CAP;
        config.limits.shm = 16 << 20;
        config.limits.tmp = 16 << 20;
        let sandbox = Sandbox::detect(config, paths);
        let env = vec![
            ("PATH".to_string(), "/usr/local/bin:/usr/bin:/bin".to_string()),
            ("HOME".to_string(), home.display().to_string()),
            ("TMPDIR".to_string(), session_tmp.display().to_string()),
            ("OUTSIDE".to_string(), outside.display().to_string()),
            ("BUS".to_string(), bus.display().to_string()),
            ("TMPBUS".to_string(), tmp_bus.display().to_string()),
            ("MIRROR".to_string(), mirror.display().to_string()),
            ("LANG".to_string(), "C.UTF-8".to_string()),
        ];
        Plant { project, home, outside, mirror: mounted.then_some(mirror), listeners, env, sandbox, _tmp: tmp }
    }

    /// Runs one attack and checks every effect it must not have had.
    fn attack(&self, command: &str) -> Result<(), String> {
        let before = (self.controls(), state_under(&self.outside));
        let baseline = process_count();
        let (peak, stop) = (Arc::new(AtomicUsize::new(baseline)), Arc::new(AtomicBool::new(false)));
        let watcher = {
            let (peak, stop) = (Arc::clone(&peak), Arc::clone(&stop));
            std::thread::spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    peak.fetch_max(process_count(), Ordering::SeqCst);
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
            })
        };
        let mut bash = Command::new("timeout");
        bash.args(["-s", "KILL", "20", "bash", "-c", command]);
        bash.current_dir(&self.project).env_clear().envs(self.env.iter().map(|(key, value)| (key, value)));
        bash.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        spawn_setup(&mut bash, self.sandbox.confinement().map_err(|err| format!("no confinement: {err}"))?);
        let output = bash.output().map_err(|err| format!("cannot run: {err}"))?;
        stop.store(true, Ordering::SeqCst);
        let _ = watcher.join();
        let printed = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        let printed = printed.chars().take(600).collect::<String>();
        if printed.contains("KERNEL-SECRET") {
            return Err(format!("a secret was printed: {printed}"));
        }
        if self.controls() != before.0 {
            return Err(format!("a control file changed; output: {printed}"));
        }
        if state_under(&self.outside) != before.1 {
            return Err(format!("something outside changed; output: {printed}"));
        }
        for listener in &self.listeners {
            if let Ok((mut stream, _)) = listener.accept() {
                let mut sent = Vec::new();
                let _ = stream.read_to_end(&mut sent);
                return Err(format!("a listener was reached; output: {printed}"));
            }
        }
        if let Some(path) = setid_file(&self.project) {
            let _ = std::fs::remove_file(&path);
            return Err(format!("a set-id file was made: {}", path.display()));
        }
        let peak = peak.load(Ordering::SeqCst);
        if peak > baseline + CAP as usize + SLACK {
            return Err(format!("{} processes at the peak, {baseline} before", peak));
        }
        if std::fs::read_dir("/dev/shm")
            .into_iter()
            .flatten()
            .flatten()
            .any(|entry| entry.file_name().to_string_lossy().starts_with("kernel-fill"))
        {
            return Err("the fill reached the host's /dev/shm".to_string());
        }
        Ok(())
    }

    /// The control files' bytes (None when missing, also a change).
    fn controls(&self) -> Vec<Option<Vec<u8>>> {
        CONTROLS.iter().map(|control| std::fs::read(self.project.join(control)).ok()).collect()
    }
}

impl Drop for Plant {
    fn drop(&mut self) {
        if let Some(mirror) = &self.mirror {
            let _ = Command::new("umount").arg("-l").arg(mirror).status();
        }
        let _ = std::fs::remove_dir_all(&self._tmp);
        let _ = &self.home;
    }
}

/// A file or directory in the project with the setuid or setgid bit.
fn setid_file(dir: &Path) -> Option<PathBuf> {
    state_under(dir).into_iter().find(|(_, _, mode, _, _, _)| mode & 0o6000 != 0).map(|(path, ..)| path)
}

/// This harness's descendants now (the reaper, the attack and everything it forked): only they
/// count, so other work on a shared machine cannot pass for a fork bomb that escaped its cap.
fn process_count() -> usize {
    let parents: Vec<(u32, u32)> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            // `pid (comm) state ppid …`: the name may hold spaces and parentheses, so read after the last `)`.
            let ppid = stat.rsplit_once(')')?.1.split_whitespace().nth(1)?.parse().ok()?;
            Some((pid, ppid))
        })
        .collect();
    let mut family = vec![std::process::id()];
    let mut index = 0;
    while index < family.len() {
        let parent = family[index];
        family.extend(parents.iter().filter(|(_, ppid)| *ppid == parent).map(|(pid, _)| *pid));
        index += 1;
    }
    family.len() - 1
}
