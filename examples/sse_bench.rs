//! SSE parser throughput: ~200 MB of synthetic OpenAI-style chunks, parsed in memory in 64 KiB
//! reads, median MB/s of five runs. Run with `cargo run --release --example sse_bench`
//! (`make bench` wires it in). SPEC §10 asks for at least 300 MB/s on one core.

#![expect(clippy::print_stdout, reason = "a benchmark prints its figures on stdout")]

use mewcode::bench::SseParser;
use std::time::Instant;

fn synthetic_stream(target_bytes: usize) -> Vec<u8> {
    let mut stream = Vec::with_capacity(target_bytes + 1024);
    let mut index = 0u64;
    while stream.len() < target_bytes {
        // Realistic shape: a ~330-byte chunk with a short content delta, plus a keep-alive now and then.
        let line = format!(
            "data: {{\"id\":\"chatcmpl-DuLdCoxuLDs8HRMlOuz0Bi4wgi4XJ\",\"object\":\"chat.completion.chunk\",\
             \"created\":1782321890,\"model\":\"gpt-4o-2024-08-06\",\"system_fingerprint\":\"fp_86f87dc6f1\",\
             \"choices\":[{{\"index\":0,\"delta\":{{\"content\":\" token{index} and some more\"}},\
             \"logprobs\":null,\"finish_reason\":null}}],\"usage\":null,\"obfuscation\":\"dcng047m\"}}\n\n"
        );
        stream.extend_from_slice(line.as_bytes());
        if index.is_multiple_of(100) {
            stream.extend_from_slice(b": keep-alive\n\n");
        }
        index += 1;
    }
    stream.extend_from_slice(b"data: [DONE]\n\n");
    stream
}

fn main() {
    let stream = synthetic_stream(200 * 1024 * 1024);
    let mut rates = Vec::new();
    for _ in 0..5 {
        let started = Instant::now();
        let mut parser = SseParser::new();
        let mut events = Vec::new();
        let mut count = 0usize;
        for chunk in stream.chunks(64 * 1024) {
            if let Err(err) = parser.feed(chunk, &mut events) {
                println!("sse_bench: {err}");
                return;
            }
            count += events.len();
            events.clear();
        }
        let seconds = started.elapsed().as_secs_f64();
        rates.push(stream.len() as f64 / seconds / 1e6);
        assert!(count > 0);
    }
    rates.sort_by(f64::total_cmp);
    println!(
        "sse_bench: {:.0} MB parsed, median {:.0} MB/s (runs: {})",
        stream.len() as f64 / 1e6,
        rates[2],
        rates.iter().map(|rate| format!("{rate:.0}")).collect::<Vec<_>>().join(", ")
    );
}
