//! Time from the fake model server's last byte to `mewcode -p` exiting (SPEC §10: the client
//! must not linger after the answer is complete). Serves `fixtures/transcripts/anthropic-text.sse`
//! from a raw loopback socket, notes the instant the last byte is written, and waits for the
//! process. Prints the median of the runs. Usage: `exit_latency PATH_TO_MEWCODE [RUNS]`.

#![expect(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark prints its figures, and a failed set-up may panic"
)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let binary = args.get(1).cloned().unwrap_or_else(|| "target/release/mewcode".to_string());
    let runs: usize = args.get(2).and_then(|runs| runs.parse().ok()).unwrap_or(15);
    let body = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/transcripts/anthropic-text.sse")).unwrap();
    let home = std::env::temp_dir().join(format!("mewcode-exit-latency-{}", std::process::id()));
    std::fs::create_dir_all(&home).unwrap();
    let mut samples = Vec::new();
    for _ in 0..runs {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::fs::write(
            home.join("config.yaml"),
            format!("providers:\n  - {{name: f, protocol: anthropic, model: m, api_key: k, base_url: \"http://127.0.0.1:{port}\"}}\n"),
        )
        .unwrap();
        let mut child = Command::new(&binary)
            .args(["-p", "hi"])
            .env("MEWCODE_HOME", &home)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("run mewcode");
        let (stream, _) = listener.accept().unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut length = 0usize;
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = value.trim().parse().unwrap();
            }
            if line == "\r\n" || line.is_empty() {
                break;
            }
        }
        let mut request = vec![0u8; length];
        reader.read_exact(&mut request).unwrap();
        let mut stream = stream;
        stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n").unwrap();
        stream.write_all(&body).unwrap();
        stream.flush().unwrap();
        let last_byte = Instant::now();
        let status = child.wait().unwrap();
        let elapsed = last_byte.elapsed();
        drop(stream);
        assert!(status.success(), "mewcode failed: {status}");
        samples.push(elapsed);
    }
    let _ = std::fs::remove_dir_all(&home);
    samples.sort();
    let median = samples[samples.len() / 2];
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "last byte -> mewcode -p exit: median {:.2} ms (min {:.2}, max {:.2}, {runs} runs)",
        ms(median),
        ms(samples[0]),
        ms(samples[samples.len() - 1])
    );
}
