//! Two end-to-end figures of the real `mewcode -p` against a scripted model on a raw loopback
//! socket that keeps connections alive (`Content-Length` framing, like the hosted APIs):
//!
//! - connections accepted per 10-iteration run (nine `read_file` turns, then the answer);
//! - peak RSS (the child's `VmHWM`, read from `/proc` when its last request arrives, i.e. after
//!   it built the biggest request) for runs whose history reaches about 1, 2 and 4 MB: one
//!   ~20 KB `read_file` result per iteration, with the ratio to the history (the last request
//!   body's size); the 4 MB run again over the OpenAI protocol.
//!
//! The model reports a tiny usage, so no compaction ever shrinks the history. Usage:
//! `net_memory PATH_TO_MEWCODE [RUNS]`; prints medians of RUNS runs (default 3).

#![expect(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark prints its figures, and a failed set-up may panic"
)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let binary = args.get(1).cloned().unwrap_or_else(|| "target/release/mewcode".to_string());
    // Absolute: each run starts mewcode in its own project directory, where a relative path
    // would name nothing.
    let binary = std::fs::canonicalize(&binary)
        .unwrap_or_else(|err| panic!("{binary}: {err} (build it first: make build)"))
        .to_string_lossy()
        .into_owned();
    let runs: usize = args.get(2).and_then(|runs| runs.parse().ok()).unwrap_or(3);
    let work = std::env::temp_dir().join(format!("mewcode-net-memory-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);

    let mut connections = Vec::new();
    let mut wall_ms = Vec::new();
    for run in 0..runs {
        let started = std::time::Instant::now();
        connections.push(one_run(&binary, &work.join(format!("c{run}")), Protocol::Anthropic, 10, 10).0);
        wall_ms.push(started.elapsed().as_millis() as usize);
    }
    println!(
        "connections accepted per 10-iteration run: {} (one per iteration without keep-alive); \
         wall {} ms per run (medians of {runs})",
        median(connections),
        median(wall_ms)
    );

    let sizes = [(1, Protocol::Anthropic), (2, Protocol::Anthropic), (4, Protocol::Anthropic), (4, Protocol::OpenAi)];
    for (megabytes, protocol) in sizes {
        // ~21.7 KB of tool result per iteration (20 000 bytes of text plus line numbers).
        let iterations = megabytes * 1024 * 1024 / 21_700;
        let mut samples = Vec::new();
        for run in 0..runs {
            let dir = work.join(format!("m{megabytes}-{}-{run}", protocol.name()));
            let (_, peak_kib, history) = one_run(&binary, &dir, protocol, iterations, 20_000);
            samples.push((peak_kib, history));
        }
        samples.sort();
        let (peak_kib, history) = samples[samples.len() / 2];
        let history_mib = history as f64 / (1024.0 * 1024.0);
        let peak_mib = peak_kib as f64 / 1024.0;
        println!(
            "{:<9} history {history_mib:.2} MiB ({iterations} iterations): peak RSS {peak_mib:.1} MiB = {:.1} x history \
             (target <= 2 x history + 8 MiB = {:.1} MiB; median of {runs})",
            protocol.name(),
            peak_mib / history_mib,
            2.0 * history_mib + 8.0
        );
    }
    let _ = std::fs::remove_dir_all(&work);
}

/// One `-p` run of `iterations` model calls whose tool results are `result_bytes` each.
/// Returns (connections accepted, the child's VmHWM in KiB at its last request, the last
/// request body's size).
fn one_run(
    binary: &str,
    dir: &Path,
    protocol: Protocol,
    iterations: usize,
    result_bytes: usize,
) -> (usize, u64, usize) {
    let home = dir.join("home");
    let project = dir.join("project");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(project.join(".git")).unwrap();
    let line = "x".repeat(99);
    let lines = (result_bytes / 100).max(1);
    std::fs::write(project.join("data.txt"), format!("{line}\n").repeat(lines)).unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    // A window far above the history: no compaction and no silent-truncation check (which
    // starts at 80 % of it) on a server that reports a tiny usage.
    let (name, path) = match protocol {
        Protocol::Anthropic => ("anthropic", ""),
        Protocol::OpenAi => ("openai", "/v1"),
    };
    let provider = format!(
        "{{name: f, protocol: {name}, model: m, api_key: k, context_window: 100000000, base_url: \"http://127.0.0.1:{port}{path}\"}}"
    );
    std::fs::write(home.join("config.yaml"), format!("providers:\n  - {provider}\n")).unwrap();
    let child = Command::new(binary)
        .args(["-p", "read data.txt again and again", "--mode", "bypass", "--max-iterations"])
        .arg(iterations.to_string())
        .env("MEWCODE_HOME", &home)
        .current_dir(&project)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("run mewcode");
    let server =
        Server { protocol, served: AtomicUsize::new(0), iterations, peak_kib: Mutex::new(0), last_body: Mutex::new(0) };
    let (accepted, mut child) = serve(&listener, Arc::new(server), child);
    let status = child.wait().unwrap();
    assert!(status.success(), "mewcode failed: {status}");
    let _ = std::fs::remove_dir_all(dir);
    accepted
}

#[derive(Clone, Copy)]
enum Protocol {
    Anthropic,
    OpenAi,
}

impl Protocol {
    fn name(self) -> &'static str {
        match self {
            Protocol::Anthropic => "anthropic",
            Protocol::OpenAi => "openai",
        }
    }
}

struct Server {
    protocol: Protocol,
    served: AtomicUsize,
    iterations: usize,
    peak_kib: Mutex<u64>,
    last_body: Mutex<usize>,
}

/// Accepts until the scripted turns are used up; each connection is served on its own thread
/// for as many requests as the client sends on it.
fn serve(listener: &TcpListener, server: Arc<Server>, child: Child) -> ((usize, u64, usize), Child) {
    let pid = child.id();
    let mut accepted = 0;
    let mut threads = Vec::new();
    listener.set_nonblocking(true).unwrap();
    let mut child = child;
    loop {
        match listener.accept() {
            Ok((stream, _)) => {
                accepted += 1;
                stream.set_nonblocking(false).unwrap();
                stream.set_nodelay(true).unwrap();
                let server = Arc::clone(&server);
                threads.push(std::thread::spawn(move || connection(stream, &server, pid)));
            }
            Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => {
                if child.try_wait().unwrap().is_some() {
                    break;
                }
                // Polling accept so the loop ends with the child; the figure is a count, not a time.
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            Err(err) => panic!("accept: {err}"),
        }
    }
    for thread in threads {
        let _ = thread.join();
    }
    let peak = *server.peak_kib.lock().unwrap();
    let last = *server.last_body.lock().unwrap();
    ((accepted, peak, last), child)
}

fn connection(stream: TcpStream, server: &Server, pid: u32) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    loop {
        let mut length = 0usize;
        let mut request_line = String::new();
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            if request_line.is_empty() {
                request_line = line.clone();
            }
            if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = value.trim().parse().unwrap();
            }
            if line == "\r\n" {
                break;
            }
        }
        let mut body = vec![0u8; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        drop(body);
        if !request_line.starts_with("POST ") {
            // Not a model call (window discovery, a models list): nothing here.
            let _ = writer.write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n");
            continue;
        }
        let turn = server.served.fetch_add(1, Ordering::SeqCst) + 1;
        if turn == server.iterations {
            *server.peak_kib.lock().unwrap() = vm_hwm_kib(pid);
            *server.last_body.lock().unwrap() = length;
        }
        let sse = match (server.protocol, turn >= server.iterations) {
            (Protocol::Anthropic, true) => answer(),
            (Protocol::Anthropic, false) => read_call(turn),
            (Protocol::OpenAi, last) => openai_turn(turn, last),
        };
        let head =
            format!("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\n\r\n", sse.len());
        // One write: head and body in two would meet Nagle's algorithm and the client's delayed
        // ACK (40 ms per call on a kept-alive connection) — a cost of this server, not of mewcode.
        if writer.write_all(format!("{head}{sse}").as_bytes()).is_err() {
            return;
        }
    }
}

fn vm_hwm_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(PathBuf::from(format!("/proc/{pid}/status"))).unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn event(name: &str, data: &str) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

fn start() -> String {
    event(
        "message_start",
        r#"{"type":"message_start","message":{"id":"msg","type":"message","role":"assistant","content":[],"model":"m","stop_reason":null,"usage":{"input_tokens":100,"output_tokens":1}}}"#,
    )
}

fn read_call(turn: usize) -> String {
    let mut out = start();
    out += &event(
        "content_block_start",
        &format!(
            r#"{{"type":"content_block_start","index":0,"content_block":{{"type":"tool_use","id":"call_{turn}","name":"read_file","input":{{}}}}}}"#
        ),
    );
    out += &event(
        "content_block_delta",
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"path\":\"data.txt\"}"}}"#,
    );
    out += &event("content_block_stop", r#"{"type":"content_block_stop","index":0}"#);
    out += &event(
        "message_delta",
        r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":20}}"#,
    );
    out + &event("message_stop", r#"{"type":"message_stop"}"#)
}

fn answer() -> String {
    let mut out = start();
    out += &event(
        "content_block_start",
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
    );
    out += &event(
        "content_block_delta",
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"done"}}"#,
    );
    out += &event("content_block_stop", r#"{"type":"content_block_stop","index":0}"#);
    out += &event(
        "message_delta",
        r#"{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":2}}"#,
    );
    out + &event("message_stop", r#"{"type":"message_stop"}"#)
}

/// An OpenAI turn: the read_file call (or the answer), then the usage chunk and `[DONE]`.
fn openai_turn(turn: usize, last: bool) -> String {
    let chunk = |delta: &str, finish: &str| {
        let choices = format!(r#"[{{"index":0,"delta":{delta},"finish_reason":{finish}}}]"#);
        format!("data: {{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":{choices}}}\n\n")
    };
    let mut out = chunk(r#"{"role":"assistant","content":""}"#, "null");
    if last {
        out += &chunk(r#"{"content":"done"}"#, "null");
        out += &chunk("{}", r#""stop""#);
    } else {
        let arguments = r#"{\"path\":\"data.txt\"}"#;
        let call = format!(
            r#"{{"tool_calls":[{{"index":0,"id":"call_{turn}","type":"function","function":{{"name":"read_file","arguments":"{arguments}"}}}}]}}"#
        );
        out += &chunk(&call, "null");
        out += &chunk("{}", r#""tool_calls""#);
    }
    let usage = r#"{"prompt_tokens":100,"completion_tokens":20,"total_tokens":120}"#;
    out += &format!(
        "data: {{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[],\"usage\":{usage}}}\n\n"
    );
    out + "data: [DONE]\n\n"
}

fn median(mut values: Vec<usize>) -> usize {
    values.sort();
    values[values.len() / 2]
}
