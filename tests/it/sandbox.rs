//! The OS sandbox end to end: a scripted model runs real commands through the real binary in
//! bypass mode (nothing asks), and what they try outside the project fails at the kernel.
//! Skipped, and listed by `make test` as skipped, where the kernel has no Landlock (`mewcode doctor` then says
//! "sandbox unavailable").

use crate::support::project::TempDir;
use crate::support::script::anthropic;
use crate::support::tmux::Tmux;
use crate::support::{FakeModel, Provider, TestEnv, await_running};
use serde_json::{Value, json};

/// True when the running kernel offers Landlock (the same probe mewcode makes).
fn landlock_available(test: &str) -> bool {
    match mewcode::integration::landlock_abi_version() {
        Ok(_) => true,
        Err(reason) => {
            // Not a CI failure: CI machines may run a kernel without Landlock.
            crate::support::skip::skip(&format!("{test}: {reason}"), false);
            false
        }
    }
}

/// One bash call running `command`, then a final answer.
fn script_command(model: &FakeModel, command: &str) {
    let input = json!({ "command": command }).to_string();
    model.push(anthropic("", &[("c1", "bash", &input)]));
    model.push(anthropic("done", &[]));
}

/// The text of the tool result the model received in request `index`.
fn tool_result(model: &FakeModel, index: usize) -> String {
    let body: Value = model.requests()[index].json.clone().unwrap();
    let last = body["messages"].as_array().unwrap().last().unwrap().clone();
    let block = &last["content"][0];
    assert_eq!(block["type"], "tool_result", "{last}");
    match &block["content"] {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

#[test]
fn in_bypass_mode_commands_cannot_change_anything_outside_the_project() {
    if !landlock_available("sandbox-bypass") {
        return;
    }
    let model = FakeModel::start();
    let mut env = TestEnv::with_model("sandbox-bypass", &model, Provider::anthropic().model("m").then(""));
    // Outside /tmp, so that the files are in the commands' view (the view's /tmp is private).
    let world = TempDir::visible("sandbox-bypass-world");
    let outside = world.path().join("outside");
    std::fs::create_dir_all(outside.join("tree/deep")).unwrap();
    for name in ["keep.txt", "rename.txt", "truncate.txt", "tree/deep/file.txt"] {
        std::fs::write(outside.join(name), "original").unwrap();
    }
    std::fs::create_dir_all(world.path().join(".ssh")).unwrap();
    std::fs::write(world.path().join(".ssh/id_ed25519"), "PRIVATE-KEY-MATERIAL").unwrap();
    env.vars.push(("HOME".to_string(), world.path().display().to_string()));
    std::os::unix::fs::symlink(outside.join("keep.txt"), env.project.join("link.txt")).unwrap();
    let o = outside.display();
    // Each line reports its own exit status; none of these is on the blacklist, so only the
    // kernel stands in the way.
    let command = format!(
        "echo new > {o}/new.txt; echo write=$?\n\
         rm -f {o}/keep.txt; echo delete=$?\n\
         mv {o}/rename.txt {o}/renamed.txt; echo rename=$?\n\
         truncate -s 0 {o}/truncate.txt; echo truncate=$?\n\
         find {o}/tree -delete 2>/dev/null; echo find_delete=$?\n\
         cd -P {o} && rm -rf tree; echo cd_delete=$?; cd - >/dev/null\n\
         echo through > link.txt; echo symlink=$?\n\
         sh -c 'sh -c \"echo grandchild > {o}/grandchild.txt\"'; echo grandchild=$?\n\
         cat ~/.ssh/id_ed25519; echo ssh=$?\n\
         python3 -c \"open('/dev/loop7', 'r+b').write(b'x')\" 2>/dev/null; echo block_device=$?\n\
         echo ok > inside.txt && mkdir -p a/b && mv inside.txt a/b/ && : > a/b/inside.txt && rm -r a && echo inside=0\n\
         echo scratch > \"$TMPDIR/s\" && cat \"$TMPDIR/s\""
    );
    script_command(&model, &command);
    let run = env.run(&["-p", "go", "--mode", "bypass"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let result = tool_result(&model, 1);
    for refused in ["write", "delete", "rename", "truncate", "find_delete", "cd_delete", "symlink", "grandchild", "ssh"]
    {
        assert!(!result.contains(&format!("{refused}=0")), "{refused} succeeded:\n{result}");
    }
    assert!(result.contains("inside=0") && result.contains("scratch"), "{result}");
    assert!(!result.contains("PRIVATE-KEY-MATERIAL"), "{result}");
    assert!(result.contains("denied by sandbox: write outside the project"), "{result}");
    assert!(result.contains("denied by sandbox: a protected secret store"), "{result}");
    for name in ["keep.txt", "rename.txt", "truncate.txt", "tree/deep/file.txt"] {
        assert_eq!(std::fs::read_to_string(outside.join(name)).unwrap(), "original", "{name}");
    }
    assert!(!outside.join("new.txt").exists() && !outside.join("grandchild.txt").exists());
}

#[test]
fn kill_minus_one_reaches_only_the_commands_own_processes() {
    // Without signal scoping (Landlock ABI 6) this would signal every process we may signal.
    match mewcode::integration::landlock_abi_version() {
        Ok(abi) if abi >= 6 => {}
        other => {
            eprintln!("sandbox-kill-all: skipped: needs Landlock ABI 6 for signal scoping ({other:?})");
            return;
        }
    }
    let mut bystander = std::process::Command::new("sleep").arg("300").spawn().unwrap();
    let model = FakeModel::start();
    let env = TestEnv::with_model("sandbox-kill-all", &model, Provider::anthropic().model("m").then(""));
    script_command(&model, "python3 -c 'import os, signal; os.kill(-1, signal.SIGKILL)'; echo survived");
    let run = env.run(&["-p", "go", "--mode", "bypass"]);
    let alive = bystander.try_wait().unwrap().is_none();
    let _ = bystander.kill();
    let _ = bystander.wait();
    assert_eq!((run.code, run.stdout.as_str()), (0, "done\n"), "mewcode itself survived: {}", run.stderr);
    assert!(alive, "a process outside the sandbox was killed");
    // In the namespace view the command's own pid namespace holds only its shell (pid 1, which
    // kill(-1) skips) and itself: there is nobody else to signal. With Landlock alone, the
    // signal reaches the command's own shell.
    let result = tool_result(&model, 1);
    assert!(result.contains("killed by signal 9") || result.contains("No such process"), "{result}");
}

#[test]
fn network_off_blocks_a_tcp_connect_while_the_model_call_works() {
    if !landlock_available("sandbox-network") {
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let model = FakeModel::start();
    let env = TestEnv::with_model(
        "sandbox-network",
        &model,
        Provider::anthropic().model("m").then("sandbox: {network: false}\n"),
    );
    let command = format!(
        "(exec 3<>/dev/tcp/127.0.0.1/{port}) && echo connected || echo blocked; \
         python3 -c 'import socket; socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)' 2>&1 | tail -1"
    );
    script_command(&model, &command);
    let run = env.run(&["-p", "go", "--mode", "bypass"]);
    assert_eq!((run.code, run.stdout.as_str()), (0, "done\n"), "{}", run.stderr);
    let result = tool_result(&model, 1);
    assert!(result.contains("blocked") && !result.contains("connected"), "{result}");
    assert!(result.contains("PermissionError"), "UDP is blocked too: {result}");
    assert!(listener.accept().is_err(), "nothing reached the listener");
}

#[test]
fn nothing_a_command_started_survives_the_call() {
    let model = FakeModel::start();
    let env = TestEnv::with_model("sandbox-survivors", &model, Provider::anthropic().model("m").then(""));
    // A plain background job, one that left the group with setsid, and a double fork whose
    // middle process exits at once (its child is an orphan): all with their output elsewhere,
    // so nothing keeps the call's pipes open. Each has a command line of its own, to find it
    // from here (a pid the command prints is one of its own pid namespace).
    let command = "sleep 300.7101 >/dev/null 2>&1 &\n\
         setsid sleep 300.7102 >/dev/null 2>&1 &\n\
         (setsid sh -c 'sleep 300.7103 >/dev/null 2>&1 & echo $! > orphan.pid' &)\n\
         while [ ! -s orphan.pid ]; do sleep 0.01; done; echo started";
    script_command(&model, command);
    let run = env.run(&["-p", "go", "--mode", "bypass"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(tool_result(&model, 1).contains("started"));
    for seconds in ["300.7101", "300.7102", "300.7103"] {
        assert!(await_running(&["sleep", seconds], false, 10), "sleep {seconds} outlived the call");
    }
}

#[test]
fn a_command_dies_with_mewcode_even_when_mewcode_is_killed() {
    let model = FakeModel::start();
    let env = TestEnv::with_model("sandbox-parent-death", &model, Provider::anthropic().model("m").then(""));
    script_command(&model, "exec sleep 300.7104");
    let mut child = env
        .command(&["-p", "go", "--mode", "bypass"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    assert!(await_running(&["sleep", "300.7104"], true, 30), "the command never started");
    child.kill().unwrap(); // SIGKILL: mewcode gets no chance to clean up itself
    child.wait().unwrap();
    assert!(await_running(&["sleep", "300.7104"], false, 10), "the command outlived mewcode");
}

#[test]
fn a_command_cannot_read_the_provider_key_from_its_parents() {
    let model = FakeModel::start();
    let mut env = TestEnv::new("sandbox-environ");
    env.vars.push(("MEWCODE_TEST_KEY".into(), "sk-ant-test-secret-4242".into()));
    env.write_home(
        "config.yaml",
        &format!(
            "providers:\n  - {{name: fake, protocol: anthropic, model: m, api_key: \"${{MEWCODE_TEST_KEY}}\", base_url: \"{}\"}}\n",
            model.url()
        ),
    );
    // $PPID is the reaper; its parent is mewcode. Try environ, memory maps and cmdline of both.
    let command = "for pid in $PPID $(cut -d' ' -f4 /proc/$PPID/stat); do \
         tr '\\0' '\\n' < /proc/$pid/environ; head -c 200000 /proc/$pid/mem | strings | head -1000; done 2>&1; \
         env; echo end";
    script_command(&model, command);
    let run = env.run(&["-p", "go", "--mode", "bypass"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let result = tool_result(&model, 1);
    assert!(result.contains("end"), "{result}");
    assert!(!result.contains("sk-ant-test-secret-4242"), "{result}");
    assert!(!result.contains("MEWCODE_TEST_KEY"), "{result}");
}

fn git(dir: &std::path::Path, args: &[&str]) {
    let status = std::process::Command::new("git").args(args).current_dir(dir).status().unwrap();
    assert!(status.success(), "git {args:?}");
}

#[test]
fn a_repositorys_own_git_config_cannot_make_an_auto_allowed_git_status_run_code() {
    let model = FakeModel::start();
    let env = TestEnv::with_model("sandbox-git", &model, Provider::anthropic().model("m").then(""));
    git(&env.project, &["init", "-q", "."]);
    git(&env.project, &["config", "core.fsmonitor", "echo ran >> fsmonitor-ran.txt; false"]);
    // The attack is real with this git: a plain `git status` runs the repository's fsmonitor.
    git(&env.project, &["status", "--porcelain", "--untracked-files=no"]);
    assert!(env.project.join("fsmonitor-ran.txt").exists(), "control: fsmonitor should run without hardening");
    // A bare repository planted inside the project, with its own fsmonitor.
    git(&env.project, &["init", "-q", "--bare", "vendor/evil"]);
    git(&env.project.join("vendor/evil"), &["config", "core.fsmonitor", "echo ran >> ../../bare-ran.txt; false"]);
    env.write(".mewcode/settings.yaml", "permissions:\n  allow: [\"Bash(git status*)\"]\n");
    std::fs::remove_file(env.project.join("fsmonitor-ran.txt")).unwrap();
    // Auto-allowed by the rule in default mode, then by bypass mode.
    script_command(&model, "git status --short");
    let run = env.run(&["-p", "go", "--trust"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(tool_result(&model, 1).ends_with("exit code: 0"), "{}", tool_result(&model, 1));
    script_command(&model, "cd vendor/evil && git status; echo status=$?");
    let run = env.run(&["-p", "go", "--mode", "bypass", "--trust"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let result = tool_result(&model, 3);
    assert!(result.contains("cannot use bare repository"), "{result}");
    assert!(!env.project.join("fsmonitor-ran.txt").exists(), "the fsmonitor of .git/config ran");
    assert!(!env.project.join("bare-ran.txt").exists(), "the bare repository's fsmonitor ran");
}

#[test]
fn doctor_names_the_sandbox_state_and_off_is_said_plainly() {
    let model = FakeModel::start();
    let env = TestEnv::with_model("sandbox-doctor", &model, Provider::anthropic().model("m").then(""));
    let run = env.run(&["doctor"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // Every layer is named with its state, and a missing one with why.
    assert!(run.stdout.contains("sandbox on (") || run.stdout.contains("sandbox unavailable"), "{}", run.stdout);
    match mewcode::integration::landlock_abi_version() {
        Ok(abi) => assert!(run.stdout.contains(&format!("landlock:      ABI {abi}")), "{}", run.stdout),
        Err(reason) => assert!(run.stdout.contains(&format!("landlock:      missing ({reason})")), "{}", run.stdout),
    }
    assert!(
        run.stdout.contains("view:          on") || run.stdout.contains("view:          MISSING ("),
        "{}",
        run.stdout
    );
    let env = TestEnv::with_model(
        "sandbox-doctor-off",
        &model,
        Provider::anthropic().model("m").then("sandbox: {mode: off}\n"),
    );
    let run = env.run(&["doctor"]);
    assert!(run.stdout.contains("sandbox OFF (sandbox.mode: off in"), "{}", run.stdout);
    // A project cannot turn it off for itself.
    let env = TestEnv::with_model("sandbox-doctor-project", &model, Provider::anthropic().model("m").then(""));
    env.write(".mewcode.yaml", "sandbox: {mode: off}\n");
    let run = env.run(&["doctor", "--trust"]);
    assert!(!run.stdout.contains("sandbox OFF"), "{}", run.stdout);
    assert!(run.stdout.contains("a project can only tighten the sandbox"), "{}", run.stdout);
}

/// The REPL in bypass mode with a model that runs `command` once.
fn repl_running(label: &str, command: &str, mode: &str) -> (Tmux, FakeModel, TestEnv) {
    let model = FakeModel::start();
    let env = TestEnv::with_model(label, &model, Provider::anthropic().model("m").then(""));
    script_command(&model, command);
    let tmux = Tmux::start(&env, &["--mode", mode], &[]);
    tmux.wait_for_prompt();
    (tmux, model, env)
}

#[test]
fn a_command_writing_escape_sequences_to_the_terminal_changes_nothing_on_screen() {
    // "\110\101..." is HACKED in octal, so the word itself appears only if the bytes reach the tty.
    let command = "printf '\\033[2J\\033[H\\033]0;pwned\\007\\110\\101\\103\\113\\105\\104\\n' > /dev/tty; \
         printf '\\033]52;c;cHduZWQ=\\007' > /dev/tty; echo tty=$?";
    let (tmux, model, _env) = repl_running("sandbox-tty", command, "bypass");
    tmux.type_text("go");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("done");
    assert!(!screen.contains("HACKED"), "{screen}");
    assert!(screen.contains("mewcode 0.1.0"), "the screen was cleared:\n{screen}");
    assert!(tool_result(&model, 1).contains("tty=1"), "{}", tool_result(&model, 1));
}

#[test]
fn a_tiocsti_attempt_cannot_answer_an_approval_prompt() {
    let model = FakeModel::start();
    let env = TestEnv::with_model("sandbox-tiocsti", &model, Provider::anthropic().model("m").then(""));
    // The first command tries every way to push "y" + Enter into mewcode's terminal input; the
    // second call then asks for approval, which only the person may answer.
    let inject = "python3 - <<'EOF'\n\
import fcntl, os, termios\n\
targets = ['/dev/tty', '/proc/%d/fd/0' % os.getppid()]\n\
with open('/proc/%d/stat' % os.getppid()) as stat:\n\
    targets.append('/proc/%s/fd/0' % stat.read().split()[3])\n\
for target in targets:\n\
    try:\n\
        fd = os.open(target, os.O_RDWR)\n\
        for byte in b'y\\n':\n\
            fcntl.ioctl(fd, termios.TIOCSTI, bytes([byte]))\n\
        print('injected via', target)\n\
    except OSError as err:\n\
        print('refused', target, err.errno)\n\
EOF";
    let first = json!({ "command": inject }).to_string();
    let second = json!({ "command": "touch approved-by-injection.txt" }).to_string();
    model.push(anthropic("", &[("c1", "bash", &first)]));
    model.push(anthropic("", &[("c2", "bash", &second)]));
    model.push(anthropic("done", &[]));
    let tmux = Tmux::start(&env, &[], &[]);
    tmux.wait_for_prompt();
    tmux.type_text("go");
    tmux.keys(&["Enter"]);
    tmux.wait_for("[y] yes once  [a] always  [n] no");
    tmux.keys(&["y"]);
    tmux.wait_until("the second approval", |screen| screen.matches("[y] yes once  [a] always  [n] no").count() == 2);
    tmux.keys(&["n"]);
    tmux.wait_for("done");
    let first_result = tool_result(&model, 1);
    assert!(!first_result.contains("injected via"), "{first_result}");
    assert!(tool_result(&model, 2).contains("denied by user"), "{}", tool_result(&model, 2));
    assert!(!env.project.join("approved-by-injection.txt").exists());
}

#[test]
fn broad_rules_do_not_allow_options_that_make_git_or_npm_run_other_code() {
    let env = TestEnv::new("sandbox-runners");
    env.write_marked_local_settings(
        "permissions:\n  allow: [\"Bash(npm test*)\", \"Bash(git *)\", \"Bash(echo *)\"]\n",
    );
    let decision = |command: &str| -> String {
        let run = env.run(&["check", "Bash", &json!({ "command": command }).to_string()]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let decided: Value = serde_json::from_str(&run.stdout).unwrap();
        decided["decision"].as_str().unwrap().to_string()
    };
    for allowed in ["npm test", "npm test -- --watch", "git status", "echo hi > /dev/null"] {
        assert_eq!(decision(allowed), "allow", "{allowed}");
    }
    for asks in [
        "npm test --node-options=--require=./x.js",
        "NODE_OPTIONS=--require=./x.js npm test",
        "npm test --script-shell=./evil.sh",
        "git init --template=./t",
        "git -C ../other status",
        "cd vendor/lib && git status",
        "echo hi > /dev/tty",
        "echo hi > /dev/pts/0",
    ] {
        assert_eq!(decision(asks), "ask", "{asks}");
    }
}
