//! Background jobs end to end: the real binary, a scripted model, real processes in the sandbox's
//! view. A server started in one call is reached by a later one, its output read, then stopped;
//! a job is confined as any command; no job outlives mewcode, whether it ends, gets SIGTERM or
//! SIGKILL. As the test's own user and, when that is root as in CI, as an unprivileged uid.

use crate::support::confined::{Case, users, who};
use crate::support::script::anthropic;
use crate::support::tmux::Tmux;
use crate::support::{FakeModel, Provider, TestEnv, await_running, running_with_argv};
use serde_json::{Value, json};

/// A port free on this machine now (the session's namespace has all of them free anyway).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// The tool results of the last request, in order.
fn results(model: &FakeModel) -> Vec<String> {
    let body: Value = model.requests().last().unwrap().json.clone().unwrap();
    let mut texts = Vec::new();
    for message in body["messages"].as_array().unwrap() {
        for block in message["content"].as_array().into_iter().flatten() {
            if block["type"] == "tool_result" {
                texts.push(match &block["content"] {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                });
            }
        }
    }
    texts
}

/// One model turn per call, in order, then `done`.
fn script(model: &FakeModel, calls: &[(&str, Value)]) {
    for (index, (tool, input)) in calls.iter().enumerate() {
        let id = format!("c{index}");
        model.push(anthropic("", &[(&id, tool, &input.to_string())]));
    }
    model.push(anthropic("done", &[]));
}

#[test]
fn a_server_started_in_one_call_is_reached_by_the_next_read_then_stopped() {
    for uid in users() {
        let Some(case) = Case::new("jobs-server", uid, "") else { continue };
        let port = free_port();
        // A unique command line, to find the server's process from out here.
        let server = format!("exec python3 -u -m http.server {port} --bind 127.0.0.1");
        let fetch = format!(
            "for i in $(seq 400); do curl -s -o /dev/null -w 'status=%{{http_code}}\\n' http://127.0.0.1:{port}/ && break; sleep 0.05; done"
        );
        script(
            &case.model,
            &[
                ("bash", json!({"command": server, "run_in_background": true})),
                ("bash", json!({"command": fetch})),
                ("job", json!({"action": "output", "id": 1})),
                ("job", json!({"action": "stop", "id": 1})),
                ("job", json!({"action": "list"})),
            ],
        );
        let output = case.mewcode(&["-p", "go", "--mode", "bypass"]).output().unwrap();
        let user = who(uid);
        assert_eq!(output.status.code(), Some(0), "{user}: {}", String::from_utf8_lossy(&output.stderr));
        let results = results(&case.model);
        assert_eq!(results.len(), 5, "{user}: {results:?}");
        assert!(results[0].starts_with("started job 1 in the background"), "{user}: {}", results[0]);
        assert!(results[1].contains("status=200"), "{user}: {}", results[1]);
        assert!(results[2].starts_with("job 1: running\n"), "{user}: {}", results[2]);
        assert!(results[2].contains(&format!("Serving HTTP on 127.0.0.1 port {port}")), "{user}: {}", results[2]);
        assert!(results[3].starts_with("job 1: stopped"), "{user}: {}", results[3]);
        // The request's log line came in one of the two reads.
        assert!(format!("{}{}", results[2], results[3]).contains("\"GET / HTTP/1.1\" 200"), "{user}: {results:?}");
        assert!(results[4].starts_with("job 1: stopped"), "{user}: {}", results[4]);
        let argv = ["python3", "-u", "-m", "http.server", &port.to_string(), "--bind", "127.0.0.1"];
        assert!(running_with_argv(&argv).is_empty(), "{user}: the server outlived its stop");
    }
}

#[test]
fn a_job_is_confined_as_any_command_and_ends_with_the_run() {
    for uid in users() {
        let Some(case) = Case::new("jobs-confined", uid, "") else { continue };
        let outside = case.world.path().join("escaped.txt");
        let marker = format!("300.{}{}", std::process::id(), uid.unwrap_or(0));
        let command = format!(
            "echo x > {}; echo write=$?; echo y > job-wrote.txt; echo inside=$?; exec sleep {marker}",
            outside.display()
        );
        script(
            &case.model,
            &[
                ("bash", json!({"command": command, "run_in_background": true})),
                (
                    "bash",
                    json!({"command": "for i in $(seq 400); do [ -e job-wrote.txt ] && break; sleep 0.05; done; cat job-wrote.txt"}),
                ),
                ("job", json!({"action": "output", "id": 1})),
            ],
        );
        let output = case.mewcode(&["-p", "go", "--mode", "bypass"]).output().unwrap();
        let user = who(uid);
        assert_eq!(output.status.code(), Some(0), "{user}: {}", String::from_utf8_lossy(&output.stderr));
        let results = results(&case.model);
        assert_eq!(results[1].lines().next(), Some("y"), "{user}: {results:?}");
        assert!(results[2].contains("inside=0") && !results[2].contains("write=0"), "{user}: {}", results[2]);
        assert!(!outside.exists(), "{user}: a job wrote outside the project");
        // The run is over: so is the job (it was never stopped).
        assert!(await_running(&["sleep", &marker], false, 10), "{user}: the job outlived the run");
    }
}

#[test]
fn no_job_outlives_mewcode_killed_by_sigterm_or_sigkill() {
    for signal in ["TERM", "KILL"] {
        let model = FakeModel::start();
        let env = TestEnv::with_model(&format!("jobs-{signal}"), &model, Provider::anthropic().model("m").then(""));
        let doctor = env.run(&["doctor"]).stdout;
        if !doctor.contains("view:          on") {
            crate::support::skip::skip(&format!("jobs-{signal}: no namespace view here"), false);
            return;
        }
        let marker = format!("300.{}{}", std::process::id(), signal.len());
        script(&model, &[("bash", json!({"command": format!("exec sleep {marker}"), "run_in_background": true}))]);
        let project = env.project.display().to_string();
        let args = ["--mode", "bypass", "--cwd", project.as_str()];
        let tmux = Tmux::start(&env, &args, &[]);
        tmux.wait_for_prompt();
        tmux.type_text("start it");
        tmux.keys(&["Enter"]);
        tmux.wait_for("started job 1");
        assert!(await_running(&["sleep", &marker], true, 10), "{signal}: the job is not running");
        let binary = env!("CARGO_BIN_EXE_mewcode");
        let mut argv = vec![binary];
        argv.extend(args);
        // mewcode, and the processes it forked that never exec (a command's reaper, the network
        // keeper), which carry its command line: mewcode is the first of them.
        let pid = running_with_argv(&argv).into_iter().min().expect("mewcode runs");
        let killed = std::process::Command::new("kill").args([&format!("-{signal}"), &pid.to_string()]).status();
        assert!(killed.unwrap().success());
        assert!(await_running(&["sleep", &marker], false, 10), "{signal}: the job outlived mewcode");
        drop(tmux);
    }
}
