//! Session figures of SPEC §10: resume of a 100 000-line log (target ≤ 0.5 s) and listing 1 000
//! sessions with multi-MB logs (target ≤ 100 ms). Generates both in a temp dir through the real
//! writer, then prints the median of several runs of `load_log` and `list_sessions`.
#![expect(
    clippy::print_stdout,
    clippy::unwrap_used,
    reason = "a benchmark prints its figures, and a failed set-up may panic"
)]

use mewcode::bench::{self, Message, Meta, Owner, SessionWriter, ThinkingBlock, ToolCall, ToolResult};
use std::fs::OpenOptions;
use std::io::{BufWriter, Write};
use std::time::{Duration, Instant};

const LOG_LINES: usize = 100_000;
const SESSIONS: usize = 1_000;
const RUNS: usize = 7;

fn main() {
    let dir = std::env::temp_dir().join(format!("mewcode-session-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let sessions_dir = bench::sessions_dir(&dir);
    // Listing checks every header's mark, so the sessions carry real ones.
    let owner = Owner::from_key([9; 32]);

    // One 100 000-line log: rounds of user, assistant with a call and thinking, tool result, answer.
    let id = bench::format_id(1_800_000_000, 1);
    let path = bench::log_path(&sessions_dir, &id);
    let meta = Meta {
        version: bench::VERSION,
        id: id.clone(),
        created: 1,
        title: "bench".into(),
        model: "m".into(),
        owner: owner.mark(&id),
    };
    drop(SessionWriter::create(&dir, &bench::log_rel(&id), &meta).unwrap());
    {
        // Buffered here (no fsync per line) only to generate fast; the format is the writer's.
        let mut out = BufWriter::new(OpenOptions::new().append(true).open(&path).unwrap());
        let mut lines = 1;
        let mut round = 0;
        while lines < LOG_LINES {
            for message in round_messages(round) {
                writeln!(out, "{}", bench::render_message(&message, 1_800_000_000, Some("m"))).unwrap();
                lines += 1;
            }
            round += 1;
        }
    }
    let size_mb = std::fs::metadata(&path).unwrap().len() as f64 / 1e6;
    let resume = median(|| {
        let loaded = bench::load_log(&path).unwrap();
        assert!(loaded.messages.len() >= LOG_LINES - 4);
    });
    println!("resume of a {LOG_LINES}-line log ({size_mb:.1} MB): {:.1} ms (target <= 500 ms)", ms(resume));

    // 1 000 sessions, every 100th with a multi-MB log (listing must not read past the header).
    let big = "x".repeat(2_000_000);
    for index in 0..SESSIONS {
        let id = bench::format_id(1_800_000_000 + index as i64 * 60, index as u16);
        let meta = Meta {
            version: bench::VERSION,
            id: id.clone(),
            created: 1,
            title: bench::title_of(&format!("task number {index} with a fairly long description")),
            model: "m".into(),
            owner: owner.mark(&id),
        };
        let path = bench::log_path(&sessions_dir, &id);
        drop(SessionWriter::create(&dir, &bench::log_rel(&id), &meta).unwrap());
        let mut out = BufWriter::new(OpenOptions::new().append(true).open(&path).unwrap());
        let text = if index % 100 == 0 { big.as_str() } else { "hello" };
        writeln!(out, "{}", bench::render_message(&Message::user(text), 1, None)).unwrap();
    }
    let listing = median(|| assert_eq!(bench::list_sessions(&sessions_dir, &owner).len(), SESSIONS + 1));
    println!("listing {} sessions: {:.1} ms (target <= 100 ms)", SESSIONS + 1, ms(listing));

    // The price of durability: one fsynced append of a typical message.
    let id = bench::format_id(1_700_000_000, 2);
    let mut writer = SessionWriter::create(&dir, &bench::log_rel(&id), &meta).unwrap();
    let message = Message::assistant("Done: the bug is fixed.");
    let append = median(|| {
        for _ in 0..20 {
            assert!(writer.append(&message, 1).is_none());
        }
    });
    println!("one fsynced append: {:.2} ms (this disk)", ms(append) / 20.0);
    std::fs::remove_dir_all(&dir).unwrap();
}

fn round_messages(round: usize) -> Vec<Message> {
    let call_id = format!("call_{round}");
    let mut assistant = Message::assistant("Let me look at the file first.");
    assistant.tool_calls =
        vec![ToolCall { id: call_id.clone(), name: "read_file".into(), input: r#"{"path":"src/main.rs"}"#.into() }];
    assistant.thinking =
        vec![ThinkingBlock::Signed { text: "thinking ".repeat(20), signature: "c2lnbmF0dXJl".repeat(8) }];
    vec![
        Message::user(format!("request number {round}: please fix the bug in main")),
        assistant,
        Message::tool_results(vec![ToolResult {
            tool_call_id: call_id,
            content: "fn main() {}\n".repeat(20),
            is_error: false,
            images: Vec::new(),
        }]),
        Message::assistant("Done: the bug is fixed."),
    ]
}

fn median(mut work: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            work();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[RUNS / 2]
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}
