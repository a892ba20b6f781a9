//! The network policy for commands end to end: the real binary, a scripted model, real `curl` and
//! `git` in the sandbox's view, and a local origin server standing for the hosts on the
//! internet (reached by name through `MEWCODE_RESOLVE`, as curl's `--resolve`). As the test's own
//! user and, when that is root as in CI, as an unprivileged uid. Skipped with the reason where
//! the kernel gives that user no namespace view (then the allowlist cannot be enforced, and
//! `mewcode doctor` says so).

use crate::support::confined::{Case, users, who};
use crate::support::script::anthropic;
use crate::support::tmux::Tmux;
use crate::support::{FakeModel, Provider, TestEnv};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};

/// A local HTTP server that records every request it gets (`METHOD URL` and its headers, one
/// line each) and answers `hello from origin`.
struct Origin {
    port: u16,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Origin {
    fn start() -> Origin {
        let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
        let port = server.server_addr().to_ip().unwrap().port();
        let seen: Arc<Mutex<Vec<String>>> = Arc::default();
        let log = Arc::clone(&seen);
        std::thread::spawn(move || {
            for request in server.incoming_requests() {
                let mut entry = format!("{} {}", request.method(), request.url());
                for header in request.headers() {
                    entry.push_str(&format!("\n{}: {}", header.field, header.value));
                }
                log.lock().unwrap().push(entry);
                let _ = request.respond(tiny_http::Response::from_string("hello from origin"));
            }
        });
        Origin { port, seen }
    }

    fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }

    /// `MEWCODE_RESOLVE` pinning each `host:port` to this server.
    fn pins(&self, hosts: &[(&str, u16)]) -> String {
        hosts.iter().map(|(host, port)| format!("{host}:{port}:127.0.0.1:{}", self.port)).collect::<Vec<_>>().join(",")
    }
}

/// A case for `uid` with the user config's `sandbox:` value, and hosts pinned to `origin`.
fn case(label: &str, uid: Option<u32>, sandbox: &str, origin: &Origin, hosts: &[(&str, u16)]) -> Option<Case> {
    let mut case = Case::new(label, uid, sandbox)?;
    case.env.vars.push(("MEWCODE_RESOLVE".to_string(), origin.pins(hosts)));
    Some(case)
}

const JSON_RUN: [&str; 6] = ["-p", "go", "--mode", "bypass", "--output-format", "json"];

#[test]
fn by_default_an_unlisted_host_is_refused_in_print_mode_and_listed_and_nothing_reaches_it() {
    for uid in users() {
        let origin = Origin::start();
        let port = origin.port;
        let Some(mut case) = case("net-refused", uid, "", &origin, &[("unlisted.example", port)]) else { continue };
        let command = format!(
            "curl -sS -o /dev/null -w 'status=%{{http_code}}\\n' http://unlisted.example:{port}/token-abc; \
             git ls-remote http://unlisted.example:{port}/repo.git; echo git=$?"
        );
        let (result, stdout) = case.run_with(&command, 60, &JSON_RUN);
        let user = who(uid);
        assert!(result.contains("status=403"), "{user}: {result}");
        assert!(!result.contains("git=0"), "{user}: {result}");
        let note = format!("network: unlisted.example:{port} is not allowed for commands");
        assert!(result.contains(&note) && result.contains("sandbox.allow_hosts"), "{user}: {result}");
        assert!(origin.seen().is_empty(), "{user}: the origin was reached: {:?}", origin.seen());
        let output: Value = serde_json::from_str(stdout.trim()).unwrap();
        let denials = output["permission_denials"].as_array().unwrap();
        let network: Vec<&Value> = denials.iter().filter(|denial| denial["by"] == "network").collect();
        assert!(!network.is_empty(), "{user}: {denials:?}");
        assert_eq!(network[0]["host"], "unlisted.example");
        assert!(network[0]["reason"].as_str().unwrap().contains("sandbox.allow_hosts"), "{network:?}");
    }
}

#[test]
fn an_allowed_host_and_a_registry_pass_through_the_proxy_and_a_tunnel_is_not_touched() {
    for uid in users() {
        let origin = Origin::start();
        let port = origin.port;
        let pins = [("allowed.example", port), ("registry.npmjs.org", 80)];
        let Some(mut case) = case("net-allowed", uid, "{allow_hosts: [allowed.example]}", &origin, &pins) else {
            continue;
        };
        let command = format!(
            "curl -sS http://allowed.example:{port}/forwarded; echo; \
             curl -sS -p http://allowed.example:{port}/tunnelled; echo; \
             curl -sS http://registry.npmjs.org/left-pad; echo"
        );
        let (result, _) = case.run_with(&command, 60, &JSON_RUN);
        let user = who(uid);
        assert_eq!(result.matches("hello from origin").count(), 3, "{user}: {result}");
        assert!(!result.contains("network:"), "{user}: {result}");
        let seen = origin.seen();
        let request = |path: &str| seen.iter().find(|entry| entry.starts_with(&format!("GET {path}"))).cloned();
        let forwarded = request("/forwarded").expect("forwarded");
        let tunnelled = request("/tunnelled").expect("tunnelled");
        assert!(request("/left-pad").expect("registry").contains("Host: registry.npmjs.org"), "{seen:?}");
        // The proxy forwards a plain request with its own `Connection: close`; through CONNECT
        // the origin gets the client's bytes as they were.
        assert!(forwarded.contains("Connection: close"), "{forwarded}");
        assert!(!tunnelled.contains("Connection"), "{tunnelled}");
        assert!(
            tunnelled.contains(&format!("Host: allowed.example:{port}")) && tunnelled.contains("User-Agent: curl/")
        );
    }
}

#[test]
fn off_refuses_every_host_while_the_model_is_still_reached_and_open_behaves_as_before() {
    let origin = Origin::start();
    let port = origin.port;
    let pins = [("registry.npmjs.org", 80)];
    let command = format!(
        "curl -sS --max-time 10 http://registry.npmjs.org/left-pad; echo registry=$?; \
         curl -sS --max-time 10 http://127.0.0.1:{port}/direct; echo direct=$?"
    );
    if let Some(mut case) = case("net-off", None, "{network: off}", &origin, &pins) {
        let (result, stdout) = case.run_with(&command, 60, &JSON_RUN);
        assert!(!result.contains("hello from origin") && !result.contains("registry=0"), "{result}");
        assert!(!result.contains("direct=0"), "{result}");
        assert!(origin.seen().is_empty(), "{:?}", origin.seen());
        // The run finished: the model's second request carried the result.
        let output: Value = serde_json::from_str(stdout.trim()).unwrap();
        assert_eq!(output["result"], "done", "{output}");
        let doctor = case.mewcode(&["doctor"]).output().unwrap();
        let doctor = String::from_utf8_lossy(&doctor.stdout).into_owned();
        assert!(doctor.contains("network: off (set in") && doctor.contains("commands reach no host"), "{doctor}");
    }
    if let Some(mut case) = case("net-open", None, "{network: open}", &origin, &pins) {
        let (result, _) = case.run_with(&command, 60, &JSON_RUN);
        // Open: the machine's own network, no proxy; the loopback is the host's.
        assert!(result.contains("direct=0") && result.contains("hello from origin"), "{result}");
        assert!(origin.seen().iter().any(|entry| entry.starts_with("GET /direct")));
    }
}

/// One bash call per turn, then `done`.
fn script_turns(model: &FakeModel, commands: &[String]) {
    for (index, command) in commands.iter().enumerate() {
        let input = json!({ "command": command, "timeout": 60 }).to_string();
        let id = format!("c{index}");
        model.push(anthropic("", &[(&id, "bash", &input)]));
        model.push(anthropic("done", &[]));
    }
}

#[test]
fn in_the_repl_a_new_host_is_asked_about_while_the_command_waits_no_yes_and_always() {
    let origin = Origin::start();
    let port = origin.port;
    let model = FakeModel::start();
    let mut env = TestEnv::with_model("net-repl", &model, Provider::anthropic().model("m").then(""));
    let pins = origin.pins(&[("first.example", port), ("second.example", port)]);
    env.vars.push(("MEWCODE_RESOLVE".to_string(), pins));
    let fetch = |host: &str, path: &str| format!("curl -sS http://{host}:{port}/{path}; echo");
    script_turns(
        &model,
        &[
            fetch("first.example", "refused"),
            format!("{}; {}", fetch("first.example", "yes-1"), fetch("first.example", "yes-2")),
            fetch("second.example", "always"),
        ],
    );
    let doctor = env.run(&["doctor"]).stdout;
    if !doctor.contains("view:          on") {
        let reason = doctor.lines().find(|line| line.contains("view:")).unwrap_or("no sandbox line").trim();
        crate::support::skip::skip(&format!("net-repl: {reason}"), false);
        return;
    }
    let tmux = Tmux::start(&env, &["--mode", "bypass"], &[]);
    tmux.wait_for_prompt();
    // n: refused, and nothing reached the host.
    tmux.type_text("one");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("allow it? [y] this session  [a] always  [n] no");
    assert!(screen.contains(&format!("A command wants to reach first.example (port {port})")), "{screen}");
    tmux.keys(&["n"]);
    tmux.wait_until("the first turn's end", |screen| screen.matches("done").count() >= 1);
    assert!(origin.seen().is_empty(), "{:?}", origin.seen());
    // y: this request and the next, unasked, for the session.
    tmux.type_text("two");
    tmux.keys(&["Enter"]);
    tmux.wait_until("the second question", |screen| screen.matches("allow it?").count() >= 2);
    tmux.keys(&["y"]);
    tmux.wait_until("the second turn's end", |screen| screen.matches("done").count() >= 2);
    let seen = origin.seen();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert!(seen[0].starts_with("GET /yes-1") && seen[1].starts_with("GET /yes-2"), "{seen:?}");
    // a: allowed and written to the project's local settings.
    tmux.type_text("three");
    tmux.keys(&["Enter"]);
    tmux.wait_until("the third question", |screen| screen.matches("allow it?").count() >= 3);
    tmux.keys(&["a"]);
    tmux.wait_until("the third turn's end", |screen| screen.matches("done").count() >= 3);
    assert!(origin.seen().iter().any(|entry| entry.starts_with("GET /always")));
    let local = std::fs::read_to_string(env.project.join(".mewcode/settings.local.yaml")).unwrap();
    assert!(local.contains("second.example"), "{local}");
    // The first tool result told the model about the refusal.
    let requests = model.requests();
    let first_result = requests[1].json.as_ref().unwrap()["messages"].to_string();
    assert!(first_result.contains("first.example was refused by the person"), "{first_result}");
}

/// A raw TCP server standing for an ssh server: the first line each connection sends (an ssh
/// client's banner), in order.
fn banner_server() -> (u16, Arc<Mutex<Vec<String>>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let lines: Arc<Mutex<Vec<String>>> = Arc::default();
    let log = Arc::clone(&lines);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut line = String::new();
            let _ = std::io::BufRead::read_line(&mut std::io::BufReader::new(stream), &mut line);
            log.lock().unwrap().push(line);
        }
    });
    (port, lines)
}

#[test]
fn git_over_ssh_goes_through_the_same_decision() {
    // The test's own user only: ssh refuses to run for a uid without a passwd entry, which is
    // what the unprivileged uid of the other tests is (the proxy's path is the same for both).
    let uid = None;
    let (ssh_port, banners) = banner_server();
    let pins =
        format!("allowed.example:{ssh_port}:127.0.0.1:{ssh_port},unlisted.example:{ssh_port}:127.0.0.1:{ssh_port}");
    let Some(mut case) = Case::new("net-ssh", uid, "{allow_hosts: [allowed.example]}") else { return };
    case.env.vars.push(("MEWCODE_RESOLVE".to_string(), pins));
    let command = format!(
        "git ls-remote ssh://git@unlisted.example:{ssh_port}/repo.git; echo refused=$?; \\
         git ls-remote ssh://git@allowed.example:{ssh_port}/repo.git; echo allowed=$?"
    );
    let (result, _) = case.run_with(&command, 60, &JSON_RUN);
    let user = who(uid);
    assert!(result.contains("mewcode: network access to unlisted.example denied"), "{user}: {result}");
    assert!(result.contains(&format!("network: unlisted.example:{ssh_port} is not allowed")), "{user}: {result}");
    // The allowed host got an ssh client's banner through the tunnel (then the server, which
    // is no ssh server, ended it); the unlisted one got nothing.
    let banners = banners.lock().unwrap().clone();
    assert_eq!(banners.len(), 1, "{user}: {banners:?} {result}");
    assert!(banners[0].starts_with("SSH-2.0-"), "{user}: {banners:?}");
}
