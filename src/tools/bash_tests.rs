//! Tests of the bash tool: real `bash` processes in temp directories.

use super::*;
use crate::sys;
use crate::test_dir::TempDir;
use crate::tools::test_support::{ProjectContext, check_rejects_bad_arguments, run};
use serde_json::json;
use std::time::Instant;

fn test_env() -> Vec<(String, String)> {
    let path = std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".to_string());
    vec![("PATH".into(), path), ("HOME".into(), "/nonexistent-home".into()), ("LANG".into(), "C.UTF-8".into())]
}

fn bash(project: &TempDir, input: serde_json::Value) -> ToolOutput {
    run(&BashTool::new(test_env(), std::sync::Arc::default(), std::sync::Arc::default()), &project.ctx(), input)
}

/// Gone, or a zombie nobody reaped yet (PID 1 in a container may not reap): either way not running.
fn is_running(pid: u32) -> bool {
    if !sys::process_exists(pid) {
        return false;
    }
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat.rsplit(')').next().unwrap_or("").trim_start().starts_with('Z'),
        Err(_) => false,
    }
}

fn wait_for_file(path: &std::path::Path) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if let Ok(text) = std::fs::read_to_string(path)
            && text.ends_with('\n')
        {
            return text;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("{} never appeared", path.display());
}

#[test]
fn bash_returns_output_and_exit_code() {
    let project = TempDir::new("bash-echo");
    assert_eq!(bash(&project, json!({"command": "echo hello"})), ToolOutput::ok("hello\nexit code: 0"));
    assert_eq!(bash(&project, json!({"command": "true"})), ToolOutput::ok("(no output)\nexit code: 0"));
}

#[test]
fn bash_non_zero_exit_is_an_error_with_the_code() {
    let project = TempDir::new("bash-exit");
    let output = bash(&project, json!({"command": "echo partial; exit 3"}));
    assert_eq!(output, ToolOutput::error("partial\nexit code: 3"));
}

#[test]
fn bash_captures_stderr_with_stdout() {
    let project = TempDir::new("bash-stderr");
    let output = bash(&project, json!({"command": "echo out; echo err >&2; echo out2"}));
    // Two pipes drained by two threads: the order between them is not defined, only within each.
    let mut lines: Vec<&str> = output.content.lines().collect();
    assert_eq!(lines.pop(), Some("exit code: 0"));
    let stdout_lines: Vec<&str> = lines.iter().copied().filter(|line| line.starts_with("out")).collect();
    assert_eq!(stdout_lines, ["out", "out2"]);
    lines.sort_unstable();
    assert_eq!(lines, ["err", "out", "out2"]);
}

#[test]
fn bash_runs_in_the_project_root() {
    let project = TempDir::new("bash-root");
    let output = bash(&project, json!({"command": "pwd"}));
    assert_eq!(output.content, format!("{}\nexit code: 0", project.path().display()));
}

#[test]
fn bash_environment_is_exactly_the_one_given() {
    let project = TempDir::new("bash-env");
    let command = json!({"command": "env | cut -d= -f1 | sort | tr '\\n' ' '"});
    // Approved by a person: bash itself adds PWD, SHLVL and `_`; nothing of the test runner's
    // environment gets through.
    let approved = ToolContext { approved_by_user: true, ..project.ctx() };
    let output = run(
        &BashTool::new(test_env(), std::sync::Arc::default(), std::sync::Arc::default()),
        &approved,
        command.clone(),
    );
    assert_eq!(output.content, "HOME LANG PATH PWD SHLVL _ \nexit code: 0");
    // Let through by a rule or the mode: git is hardened against the repository's own config.
    let output = bash(&project, command);
    let git = "GIT_CONFIG_COUNT GIT_CONFIG_KEY_0 GIT_CONFIG_KEY_1 GIT_CONFIG_KEY_2 GIT_CONFIG_VALUE_0 GIT_CONFIG_VALUE_1 GIT_CONFIG_VALUE_2";
    assert_eq!(output.content, format!("{git} HOME LANG PATH PWD SHLVL _ \nexit code: 0"));
    let leaked = std::env::vars().map(|(key, _)| key).find(|key| key.starts_with("CARGO"));
    if let Some(key) = leaked {
        let output = bash(&project, json!({"command": format!("echo \"[${key}]\"")}));
        assert_eq!(output.content, "[]\nexit code: 0");
    }
}

#[test]
fn bash_stdin_is_empty() {
    let project = TempDir::new("bash-stdin");
    assert_eq!(bash(&project, json!({"command": "cat; echo done"})).content, "done\nexit code: 0");
}

#[test]
fn bash_timeout_kills_a_long_command_quickly() {
    let project = TempDir::new("bash-timeout");
    let started = Instant::now();
    let output = bash(&project, json!({"command": "echo before; sleep 30", "timeout": 1}));
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
    assert!(output.is_error);
    assert_eq!(output.content, "before\ncommand timed out after 1 s; it and its child processes were killed");
}

#[test]
fn bash_output_over_the_cap_keeps_head_and_tail() {
    let project = TempDir::new("bash-cap");
    let output =
        bash(&project, json!({"command": "echo FIRST; head -c 200000 /dev/zero | tr '\\0' x; echo; echo LAST"}));
    assert!(output.content.starts_with("FIRST\nxxx"));
    assert!(output.content.ends_with("xxx\nLAST\nexit code: 0"), "{}", &output.content[output.content.len() - 40..]);
    let expected_omitted = 6 + 200_000 + 1 + 5 - OUTPUT_HEAD_BYTES - OUTPUT_TAIL_BYTES;
    assert!(output.content.contains(&format!("\n... {expected_omitted} bytes omitted ...\n")));
    assert!(output.content.len() < OUTPUT_HEAD_BYTES + OUTPUT_TAIL_BYTES + 200);
}

#[test]
fn bash_cancel_kills_the_whole_process_group() {
    let project = TempDir::new("bash-cancel");
    let ctx = project.ctx();
    let pid_file = project.join("child.pid");
    let canceller = {
        let (cancel, pid_file) = (ctx.cancel.clone(), pid_file.clone());
        std::thread::spawn(move || {
            let pid = wait_for_file(&pid_file);
            cancel.cancel();
            pid
        })
    };
    let started = Instant::now();
    let output = run(
        &BashTool::new(test_env(), std::sync::Arc::default(), std::sync::Arc::default()),
        &ctx,
        json!({"command": "sleep 30 & echo $! > child.pid.tmp; mv child.pid.tmp child.pid; sleep 30; echo unreachable"}),
    );
    let pid: u32 = canceller.join().unwrap().trim().parse().unwrap();
    assert!(started.elapsed() < Duration::from_secs(20));
    assert_eq!(output, ToolOutput::error("(no output)\ncommand cancelled; it and its child processes were killed"));
    let deadline = Instant::now() + Duration::from_secs(5);
    while is_running(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(!is_running(pid), "grandchild {pid} survived");
}

#[test]
fn bash_background_job_holding_the_pipe_does_not_hang_the_call() {
    let project = TempDir::new("bash-bg");
    let started = Instant::now();
    let output = bash(&project, json!({"command": "sleep 30 & echo started"}));
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
    assert_eq!(output, ToolOutput::ok("started\nexit code: 0"));
}

#[test]
fn bash_rejects_bad_arguments_and_empty_commands() {
    check_rejects_bad_arguments(
        &BashTool::new(test_env(), std::sync::Arc::default(), std::sync::Arc::default()),
        "command",
    );
    let project = TempDir::new("bash-args");
    assert_eq!(bash(&project, json!({"command": "  "})), ToolOutput::error("command is empty"));
}

#[test]
fn plan_timeout_reads_seconds_and_large_values_as_milliseconds() {
    let cases = [
        (None, 120),
        (Some(0), 120),
        (Some(5), 5),
        (Some(600), 600),
        (Some(999), 600),
        (Some(1000), 1),
        (Some(120_000), 120),
        (Some(9_999_999), 600),
    ];
    for (requested, expected) in cases {
        assert_eq!(plan_timeout_s(requested), expected, "{requested:?}");
    }
}

#[test]
fn the_live_view_gets_whole_lines_as_they_come_and_the_result_everything() {
    use std::sync::Arc;
    let seen = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let sink = Arc::clone(&seen);
    let watch = watch_lines(Progress::new(move |line| sink.lock().unwrap().push(line.to_string())));
    for chunk in [&b"fir"[..], b"st\nsec", b"ond\r\n\n   \n", b"50%\r100%\r", b"no end yet"] {
        watch(chunk);
    }
    assert_eq!(*seen.lock().unwrap(), vec!["first", "second", "50%", "100%"]);

    let project = TempDir::new("bash-live");
    let lines = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let sink = Arc::clone(&lines);
    let ctx = ToolContext {
        progress: Some(Progress::new(move |line| sink.lock().unwrap().push(line.into()))),
        ..project.ctx()
    };
    let tool = BashTool::new(test_env(), std::sync::Arc::default(), std::sync::Arc::default());
    let output = run(&tool, &ctx, json!({"command": "echo one; echo two >&2; echo three"}));
    // stdout and stderr are drained apart: their lines may come in either order.
    let mut lines = lines.lock().unwrap().clone();
    lines.sort();
    assert_eq!(lines, vec!["one", "three", "two"]);
    assert!(output.content.ends_with("exit code: 0") && output.content.contains("two"), "{output:?}");
}
