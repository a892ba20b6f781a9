//! Unit tests of `stdio.rs`: a real child as the server, its stderr, its shutdown, a missing one.

use super::*;
use crate::mcp::client::Client;
use crate::test_dir::TempDir;

impl StdioTransport {
    /// The child's process id (checked to be gone after shutdown).
    fn pid(&self) -> u32 {
        lock(&self.child).id()
    }
}

fn spawn_sh(script: &str) -> StdioTransport {
    let env: Vec<(String, String)> = vec![("PATH".to_string(), "/usr/bin:/bin".to_string())];
    let spawn_env = SpawnEnv { host_env: env, cwd: std::env::temp_dir(), log_dir: None };
    StdioTransport::spawn("t", "sh", &["-c".to_string(), script.to_string()], &[], &spawn_env).unwrap()
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|stat| stat.rsplit_once(')').is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')))
}

#[test]
fn banner_lines_on_stdout_are_skipped_and_stderr_is_kept() {
    let answer = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","serverInfo":{"name":"sh"}}}"#;
    let transport =
        spawn_sh(&format!("echo 'Server v1 ready' ; echo 'oops' >&2 ; read line ; echo '{answer}' ; cat >/dev/null"));
    let client = Client::new(Box::new(transport), Duration::from_secs(5));
    let far = Instant::now() + Duration::from_secs(5);
    let info = client.initialize(far, &CancelToken::new()).unwrap();
    assert_eq!(info.protocol_version, "2025-06-18");
    // The stderr drain runs on its own thread: the line was written before the answer but may
    // be read after it.
    while client.stderr_head().is_empty() && Instant::now() < far {
        std::thread::yield_now();
    }
    assert_eq!(client.stderr_head(), vec!["oops".to_string()]);
    client.shutdown(far);
}

#[test]
fn a_server_that_ignores_eof_is_killed_with_its_process_group_at_the_deadline() {
    let dir = TempDir::new("stdio");
    let pid_file = dir.join("helper.pid");
    // The server ignores TERM and stdin EOF, and starts a helper that would outlive it.
    let transport = spawn_sh(&format!(
        "trap '' TERM; sleep 1000 & echo $! > {}; exec 0</dev/null; while :; do sleep 1; done",
        pid_file.display()
    ));
    let server_pid = transport.pid();
    let deadline = Instant::now() + Duration::from_secs(10);
    let helper_pid = loop {
        if let Some(pid) = std::fs::read_to_string(&pid_file).ok().and_then(|text| text.trim().parse::<u32>().ok()) {
            break pid;
        }
        assert!(Instant::now() < deadline, "the helper never started");
        std::thread::sleep(Duration::from_millis(10));
    };
    let started = Instant::now();
    transport.shutdown(Instant::now() + Duration::from_millis(300));
    assert!(started.elapsed() >= Duration::from_millis(300) && started.elapsed() < Duration::from_secs(3));
    let gone_by = Instant::now() + Duration::from_secs(3);
    while (alive(server_pid) || alive(helper_pid)) && Instant::now() < gone_by {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(!alive(server_pid), "the server survived shutdown");
    assert!(!alive(helper_pid), "the server's helper survived shutdown");
}

#[test]
fn a_missing_command_is_a_spawn_error_naming_it() {
    let spawn_env = SpawnEnv::default();
    let err = StdioTransport::spawn("t", "/no/such/server", &[], &[], &spawn_env).err().unwrap();
    assert!(matches!(&err, McpError::Spawn { command, .. } if command == "/no/such/server"), "{err:?}");
}

#[test]
fn a_server_that_exits_by_itself_is_reported_lost_once_with_its_last_stderr_lines() {
    let transport = spawn_sh("for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo \"line $i\" >&2; done; echo '' >&2; exit 3");
    let (heard_tx, heard_rx) = crossbeam_channel::unbounded();
    transport.lost().watch(Box::new(move |error| {
        let _ = heard_tx.send(error);
    }));
    let error = heard_rx.recv_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(error, McpError::Exited { detail: "it exited with exit status: 3".to_string() });
    // Said when it happened, with everything it wrote: the first and the last ten lines.
    assert_eq!(transport.stderr_head().first().map(String::as_str), Some("line 1"));
    assert_eq!(transport.stderr_head().len(), 10);
    let tail = transport.stderr_tail();
    assert_eq!(
        (tail.len(), tail.first().map(String::as_str), tail.last().map(String::as_str)),
        (10, Some("line 3"), Some("line 12"))
    );
    assert_eq!(transport.lost().reason(), Some(error));
    transport.shutdown(Instant::now());
    assert!(heard_rx.try_recv().is_err(), "reported once");
}

#[test]
fn a_server_mewcode_shuts_down_is_not_reported_lost() {
    let transport = spawn_sh("cat >/dev/null");
    let (heard_tx, heard_rx) = crossbeam_channel::unbounded();
    transport.lost().watch(Box::new(move |error| {
        let _ = heard_tx.send(error);
    }));
    // Shutdown joins the reader, which saw the EOF: whatever it reported is in the channel.
    transport.shutdown(Instant::now() + Duration::from_secs(5));
    assert!(heard_rx.try_recv().is_err());
    assert_eq!(transport.lost().reason(), None);
}
