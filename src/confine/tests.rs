//! Unit tests of the sandbox: the plan as data, and real commands under the kernel's confinement.

use super::*;

#[path = "../../tests/support/skip.rs"]
mod skip;
#[path = "../../tests/support/visible.rs"]
mod visible;
use crate::cancel::CancelToken;
use crate::proc::{self, Ending};
use crate::test_dir::TempDir;
use std::process::Command;
use std::time::Duration;

fn landlock() -> Option<u32> {
    match crate::sys::landlock::abi_version() {
        Ok(abi) => Some(abi),
        Err(reason) => {
            // Not a CI failure: CI machines may run a kernel without Landlock.
            skip::skip(&reason.to_string(), false);
            None
        }
    }
}

/// A scratch world: a project, a fake home with secrets, a session temp dir and an outside dir.
struct World {
    /// Holds the others; removed when the world is dropped.
    _base: TempDir,
    root: PathBuf,
    home: PathBuf,
    tmp: PathBuf,
    outside: PathBuf,
}

impl World {
    fn new(name: &str) -> World {
        // Not under /tmp: the view gives commands a private /tmp, where this world would vanish.
        let visible = visible::visible_base(&Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-worlds"));
        let base = TempDir::under(&visible, &format!("confine-{name}"));
        for dir in ["project", "home/.ssh", "tmp", "outside"] {
            base.mkdir(dir);
        }
        base.write("home/.ssh/id_ed25519", "SECRET KEY");
        base.write("home/notes.txt", "public notes");
        base.write("outside/keep.txt", "keep");
        World {
            root: base.join("project"),
            home: base.join("home"),
            tmp: base.join("tmp"),
            outside: base.join("outside"),
            _base: base,
        }
    }

    fn paths(&self) -> Paths {
        Paths {
            root: self.root.clone(),
            home: Some(self.home.clone()),
            mewcode_home: None,
            tmp: Some(self.tmp.clone()),
            levels: vec![self.root.clone()],
            readable: Vec::new(),
        }
    }

    /// The sandbox as the kernel allows it (the namespace view where it can).
    fn sandbox(&self, config: SandboxConfig) -> Sandbox {
        Sandbox::detect(config, self.paths())
    }

    /// The sandbox without the view: Landlock and seccomp alone, as on a kernel that refuses
    /// user namespaces.
    fn landlock_only(&self, config: SandboxConfig) -> Sandbox {
        let abi = crate::sys::landlock::abi_version();
        Sandbox::new(config, self.paths(), abi, Err("turned off for this test".to_string()))
    }

    /// Both flavours, named.
    fn flavours(&self, config: &SandboxConfig) -> Vec<(&'static str, Sandbox)> {
        vec![("view", self.sandbox(config.clone())), ("landlock", self.landlock_only(config.clone()))]
    }

    /// Runs `script` under `sandbox` in the project; (exit code, merged output).
    fn run(&self, sandbox: &Sandbox, script: &str) -> (Option<i32>, String) {
        let (confinement, network) = sandbox.confinement_asking(None).unwrap();
        run_confined(self, sandbox, script, confinement, &network.env())
    }
}

#[test]
fn the_layout_hides_secrets_and_the_mewcode_home_and_honours_readable_secrets() {
    let paths = Paths {
        root: PathBuf::from("/p"),
        home: Some(PathBuf::from("/h")),
        mewcode_home: Some(PathBuf::from("/h/.mewcode")),
        tmp: Some(PathBuf::from("/t/s")),
        levels: Vec::new(),
        readable: Vec::new(),
    };
    let config = SandboxConfig {
        writable: vec![PathBuf::from("/h/.cache")],
        readable_secrets: vec![PathBuf::from("/h/.aws")],
        ..SandboxConfig::default()
    };
    // Everything "exists" except the gnupg dir; paths resolve to themselves.
    let resolve = |path: &Path| (!path.ends_with(".gnupg")).then(|| path.to_path_buf());
    // Another user's home, another one holding a writable path, and /root of another user.
    let homes = [PathBuf::from("/home/other"), PathBuf::from("/home/w"), PathBuf::from("/root")];
    let config = SandboxConfig { writable: vec![PathBuf::from("/h/.cache"), PathBuf::from("/home/w/cache")], ..config };
    let layout = plan_layout(&config, &paths, &homes, &resolve);
    let strings = |list: &[PathBuf]| list.iter().map(|path| path.display().to_string()).collect::<Vec<_>>();
    assert_eq!(strings(&layout.writable), ["/dev/shm", "/h/.cache", "/home/w/cache", "/p", "/t/s"]);
    let hidden = strings(&layout.hidden);
    assert!(hidden.contains(&"/h/.ssh".to_string()) && hidden.contains(&"/h/.mewcode".to_string()));
    assert!(hidden.contains(&"/dev".to_string()) && hidden.contains(&"/h/.config/gh".to_string()));
    assert!(!hidden.contains(&"/h/.aws".to_string()) && !hidden.contains(&"/h/.gnupg".to_string()));
    assert!(hidden.contains(&"/h/.npmrc".to_string()) && hidden.contains(&"/etc/shadow".to_string()));
    assert!(hidden.contains(&"/home/other".to_string()) && hidden.contains(&"/root".to_string()));
    let expected = secrets::HOME_SECRETS.len() - 2 + secrets::SYSTEM_SECRETS.len() + 1 + 1 + 2;
    assert_eq!(hidden.len(), expected, "{hidden:?}");
}

#[test]
fn status_and_summary_follow_mode_and_kernel() {
    let required = SandboxConfig { mode: SandboxMode::Required, ..SandboxConfig::default() };
    let missing = || Err::<(), String>("no namespaces".into());
    let unavailable = Sandbox::new(required.clone(), Paths::default(), Err("no Landlock".into()), missing());
    assert!(unavailable.is_degraded());
    assert!(unavailable.summary().contains("will not run"));
    let refused = unavailable.confinement().err().unwrap();
    assert!(refused.starts_with("denied by sandbox: sandbox.mode is required"), "{refused}");
    let auto = Sandbox::new(SandboxConfig::default(), Paths::default(), Err("no Landlock".into()), missing());
    assert!(auto.summary().contains("NOT confined"));
    assert!(auto.confinement().unwrap().unwrap().ruleset.is_none());
    let off = SandboxConfig { mode: SandboxMode::Off, mode_source: "c.yaml".into(), ..SandboxConfig::default() };
    let off = Sandbox::new(off, Paths::default(), Ok(7), Ok(()));
    assert_eq!(off.status(), &Status::Off { source: "c.yaml".into() });
    assert!(off.summary().contains("OFF (sandbox.mode: off in c.yaml)"));
    assert!(off.confinement().unwrap().is_none());
    let on = Sandbox::new(SandboxConfig::default(), Paths::default(), Ok(7), missing());
    assert!(!on.is_degraded() && !on.has_view());
    assert!(
        on.summary().starts_with("sandbox on (Landlock ABI 7, network NOT filtered, no namespace view)"),
        "{}",
        on.summary()
    );
    let open = SandboxConfig { network_mode: NetworkMode::Open, ..SandboxConfig::default() };
    let open = Sandbox::new(open, Paths::default(), Ok(7), missing());
    assert!(open.summary().starts_with("sandbox on (Landlock ABI 7, no namespace view)"), "{}", open.summary());
    let viewed = Sandbox::new(SandboxConfig::default(), Paths::default(), Err("no Landlock".into()), Ok(()));
    assert!(!viewed.is_degraded() && viewed.has_view());
    assert!(viewed.summary().starts_with("sandbox on (namespace view, network by allowlist)"), "{}", viewed.summary());
    let both = Sandbox::new(SandboxConfig::default(), Paths::default(), Ok(6), Ok(()));
    assert!(
        both.summary().starts_with("sandbox on (namespace view + Landlock ABI 6, network by"),
        "{}",
        both.summary()
    );
    assert!(auto.describe()[0].starts_with("view:          MISSING (no Landlock; no namespace view: no namespaces)"));
}

#[test]
fn writes_outside_fail_and_inside_succeed() {
    let Some(_) = landlock() else { return };
    let world = World::new("writes");
    let outside = world.outside.display();
    let script = format!(
        "echo a > {outside}/new.txt; echo rc=$?; rm -f {outside}/keep.txt; echo rc=$?; \
         mv {outside}/keep.txt {outside}/moved.txt; echo rc=$?; : > {outside}/keep.txt; echo rc=$?; \
         truncate -s 0 {outside}/keep.txt; echo rc=$?; \
         echo b > inside.txt && mkdir -p d/e && mv inside.txt d/e/ && : > d/e/inside.txt && rm -r d && echo inside-ok; \
         echo c > \"$TMPDIR/t\" && echo tmp-ok; echo d > /dev/null && echo null-ok; echo e > /dev/stderr"
    );
    for (flavour, sandbox) in world.flavours(&SandboxConfig::default()) {
        let (code, output) = world.run(&sandbox, &script);
        assert_eq!(code, Some(0), "{flavour}: {output}");
        assert_eq!(output.matches("rc=1").count(), 5, "{flavour}: {output}");
        for expected in ["inside-ok", "tmp-ok", "null-ok", "\ne\n"] {
            assert!(output.contains(expected), "{flavour}: {expected} missing in {output}");
        }
        assert_eq!(std::fs::read_to_string(world.outside.join("keep.txt")).unwrap(), "keep");
        assert!(!world.outside.join("new.txt").exists());
        let explained = sandbox.explain_denials(&output);
        assert_eq!(explained.len(), 1, "{flavour}: {explained:?} from {output}");
        assert!(explained[0].starts_with("denied by sandbox: write outside the project: "), "{explained:?}");
        assert!(explained[0].contains("outside/new.txt, "), "{explained:?}");
    }
}

#[test]
fn secrets_are_unreadable_and_the_rest_of_home_is_readable() {
    let Some(_) = landlock() else { return };
    let world = World::new("secrets");
    let home = world.home.display();
    let script =
        // Each command's errors go to stdout in order: the capture merges two pipes read by two
        // threads, and cat writes its message in pieces, so stderr could land mid-line.
        format!("cat {home}/notes.txt; cat {home}/.ssh/id_ed25519 2>&1; ls {home}/.ssh 2>&1; ls {home} | sort | tr '\\n' ,");
    for (flavour, sandbox) in world.flavours(&SandboxConfig::default()) {
        let (_, output) = world.run(&sandbox, &script);
        assert!(output.contains("public notes"), "{flavour}: {output}");
        assert!(!output.contains("SECRET KEY"), "{flavour}: {output}");
        let refusal = if flavour == "view" { "No such file or directory" } else { "Permission denied" };
        assert!(output.contains(&format!("id_ed25519: {refusal}")), "{flavour}: {output}");
        let explained = sandbox.explain_denials(&output);
        assert_eq!(explained.len(), 1, "{flavour}: {explained:?} from {output}");
        assert!(explained[0].contains("protected secret store"), "{explained:?}");
    }
    // Named in readable_secrets: readable.
    let config = SandboxConfig { readable_secrets: vec![world.home.join(".ssh")], ..SandboxConfig::default() };
    for (flavour, sandbox) in world.flavours(&config) {
        let (_, output) = world.run(&sandbox, &format!("cat {home}/.ssh/id_ed25519"));
        assert!(output.contains("SECRET KEY"), "{flavour}: {output}");
    }
}

#[test]
fn a_symlink_to_outside_cannot_be_written_through_and_children_inherit_the_confinement() {
    let Some(_) = landlock() else { return };
    let world = World::new("symlink");
    std::os::unix::fs::symlink(world.outside.join("keep.txt"), world.root.join("link")).unwrap();
    let outside = world.outside.display();
    let script = format!(
        "echo x > link; echo rc=$?; sh -c 'sh -c \"echo y > {outside}/grandchild.txt\"'; echo rc=$?; \
         (setsid sh -c 'echo z > {outside}/escaped.txt'); echo rc=$?"
    );
    for (flavour, sandbox) in world.flavours(&SandboxConfig::default()) {
        let (_, output) = world.run(&sandbox, &script);
        assert_eq!(output.matches("rc=0").count(), 0, "{flavour}: {output}");
        let refusal = if flavour == "view" { "Read-only file system" } else { "Permission denied" };
        assert!(output.contains(&format!("link: {refusal}")), "{flavour}: {output}");
        assert_eq!(std::fs::read_to_string(world.outside.join("keep.txt")).unwrap(), "keep");
        assert!(!world.outside.join("grandchild.txt").exists() && !world.outside.join("escaped.txt").exists());
    }
}

#[test]
fn network_off_blocks_tcp_and_keeps_socket_pairs() {
    let Some(_) = landlock() else { return };
    let world = World::new("network");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let script = format!("(exec 3<>/dev/tcp/127.0.0.1/{port}) 2>/dev/null && echo connected || echo refused");
    let open = SandboxConfig { network_mode: NetworkMode::Open, ..SandboxConfig::default() };
    for (flavour, sandbox) in world.flavours(&open) {
        let (_, output) = world.run(&sandbox, &script);
        assert_eq!(output.trim(), "connected", "{flavour}");
    }
    // The allowlist: in the view a namespace of its own (this loopback is not its loopback, and
    // without a policy there is no bridge); Landlock alone cannot hold it.
    for (flavour, sandbox) in world.flavours(&SandboxConfig::default()) {
        let (_, output) = world.run(&sandbox, &script);
        let expected = if flavour == "view" { "refused" } else { "connected" };
        assert_eq!(output.trim(), expected, "{flavour}");
    }
    let config = SandboxConfig { network: false, network_mode: NetworkMode::Off, ..SandboxConfig::default() };
    for (flavour, sandbox) in world.flavours(&config) {
        let (_, output) = world.run(&sandbox, &script);
        assert_eq!(output.trim(), "refused", "{flavour}");
        // A socket pair (how runtimes talk to their own children) still works.
        let (_, output) = world.run(
            &sandbox,
            "python3 -c 'import socket; a, b = socket.socketpair(); a.send(b\"ok\"); print(b.recv(2).decode())'",
        );
        assert_eq!(output.trim(), "ok", "{flavour}");
    }
}

#[test]
fn under_the_allowlist_the_bridge_is_the_way_out_and_the_policy_decides_each_host() {
    let Some(_) = landlock() else { return };
    let world = World::new("bridge");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let pattern = crate::config::hosts::HostPattern::parse(&format!("127.0.0.1:{port}")).unwrap();
    let config = SandboxConfig {
        allow_hosts: vec![crate::config::sandbox::AllowedHost { pattern, source: "test".into() }],
        ..SandboxConfig::default()
    };
    let policy = crate::permission::hosts::HostPolicy::new(&config, Vec::new(), Vec::new(), "config.yaml");
    let gate = Arc::new(NetworkGate::new(policy, Vec::new(), None, "settings.local.yaml"));
    let sandbox = world.sandbox(config).with_network(gate);
    if !sandbox.has_view() {
        return;
    }
    // Through the command's port (`$HTTPS_PROXY`): CONNECT to the allowed host, then a line
    // through the tunnel.
    let through = |target: &str| {
        format!(
            "hostport=${{HTTPS_PROXY#http://}}; exec 3<>/dev/tcp/${{hostport%:*}}/${{hostport##*:}} \
             && printf 'CONNECT {target} HTTP/1.1\\r\\nHost: {target}\\r\\n\\r\\n' >&3 \
             && head -c 12 <&3 && echo && echo tunnelled >&3"
        )
    };
    let accepted = std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(stream), &mut line).unwrap();
        line
    });
    let (confinement, net) = sandbox.confinement_asking(None).unwrap();
    let env = net.env();
    assert!(env.iter().any(|(name, value)| name == "HTTPS_PROXY" && value.starts_with("http://127.0.0.1:")), "{env:?}");
    assert!(
        env.iter().any(|(name, value)| name == "all_proxy" && value.starts_with("socks5h://127.0.0.1:")),
        "{env:?}"
    );
    let (_, output) = run_confined(&world, &sandbox, &through(&format!("127.0.0.1:{port}")), confinement, &env);
    assert!(output.starts_with("HTTP/1.1 200"), "{output}");
    assert_eq!(accepted.join().unwrap(), "tunnelled\n");
    assert!(net.notes.notes().is_empty(), "{:?}", net.notes.notes());
    // Another port of the same host is not listed: refused with nobody to ask, and said.
    let (confinement, net) = sandbox.confinement_asking(None).unwrap();
    let (_, output) = run_confined(&world, &sandbox, &through("127.0.0.1:9"), confinement, &net.env());
    assert!(output.starts_with("HTTP/1.1 403"), "{output}");
    let notes = net.notes.notes();
    assert!(notes.len() == 1 && notes[0].contains("127.0.0.1:9") && notes[0].contains("nobody to ask"), "{notes:?}");
}

#[test]
fn the_commands_of_a_session_share_one_network_namespace_apart_from_the_machines() {
    let Some(_) = landlock() else { return };
    let world = World::new("shared-net");
    for mode in [NetworkMode::Allowlist, NetworkMode::Off] {
        let sandbox = world.sandbox(SandboxConfig { network_mode: mode, ..SandboxConfig::default() });
        if !sandbox.has_view() {
            return;
        }
        // Two commands see the same network namespace (a background job's server is there for
        // the next command), and it is not the machine's.
        let (confinement, net) = sandbox.confinement_asking(None).unwrap();
        let (_, first) = run_confined(&world, &sandbox, "readlink /proc/self/ns/net", confinement, &net.env());
        let (confinement, net) = sandbox.confinement_asking(None).unwrap();
        let (_, second) = run_confined(&world, &sandbox, "readlink /proc/self/ns/net", confinement, &net.env());
        assert!(first.starts_with("net:["), "{mode:?}: {first}");
        assert_eq!(first, second, "{mode:?}");
        let own = std::fs::read_link("/proc/self/ns/net").unwrap();
        assert_ne!(first.trim(), own.display().to_string(), "{mode:?}: the machine's own namespace");
    }
}

/// Runs `script` under `confinement` (from `sandbox`, with its `network` variables) in the
/// world's project: (exit code, merged output).
fn run_confined(
    world: &World,
    sandbox: &Sandbox,
    script: &str,
    confinement: Option<Confinement>,
    network: &[(String, String)],
) -> (Option<i32>, String) {
    let mut command = Command::new("bash");
    command.arg("-c").arg(script).current_dir(&world.root).envs(sandbox.env()).envs(network.iter().cloned());
    let cancel = CancelToken::new();
    let job = proc::Job {
        command,
        stdin: None,
        timeout: Duration::from_secs(30),
        cancel: &cancel,
        merge_output: true,
        head_bytes: 10_000,
        tail_bytes: 10_000,
        label: "test",
        confinement,
        watch: None,
    };
    let finished = proc::run(job).unwrap();
    let code = match finished.ending {
        Ending::Exited(status) => status.code(),
        _ => None,
    };
    (code, finished.stdout)
}

#[test]
fn the_ruleset_is_reused_until_a_directory_it_read_changes() {
    let Some(_) = landlock() else { return };
    let world = World::new("cache");
    let sandbox = world.landlock_only(SandboxConfig::default());
    // Other tests create entries in the shared temp dir (an ancestor the rules list), which
    // rightly forces a rebuild; two calls in a row with no such change share the ruleset.
    let reused = (0..20).any(|_| {
        let first = sandbox.confinement().unwrap().unwrap().ruleset.unwrap();
        let again = sandbox.confinement().unwrap().unwrap().ruleset.unwrap();
        Arc::ptr_eq(&first, &again)
    });
    assert!(reused, "the ruleset was rebuilt on every call");
    // A new entry in the home dir (an ancestor of a hidden path) makes it stale.
    let first = sandbox.confinement().unwrap().unwrap().ruleset.unwrap();
    std::fs::write(world.home.join("new.txt"), "fresh").unwrap();
    let rebuilt = sandbox.confinement().unwrap().unwrap().ruleset.unwrap();
    assert!(!Arc::ptr_eq(&first, &rebuilt));
    let (_, output) = world.run(&sandbox, &format!("cat {}/new.txt", world.home.display()));
    assert_eq!(output, "fresh");
}

#[test]
fn the_default_memory_cap_is_three_quarters_of_the_machine() {
    assert_eq!(plan_default_memory("MemTotal:       24000000 kB\nMemFree: 1 kB\n"), Some(24_000_000 * 1024 / 4 * 3));
    assert_eq!(plan_default_memory("MemFree: 1 kB\n"), None);
    assert_eq!(plan_default_memory("MemTotal: lots kB\n"), None);
}

#[test]
fn a_sandbox_status_stays_small() {
    assert!(std::mem::size_of::<Status>() <= 48);
}
