//! Benchmark of the grep tool on a large generated tree, for `make bench` to compare with ripgrep.
//!
//! Usage: `cargo run --release --example grep_bench -- DIR [PATTERN] [OUTPUT_MODE]`
//!
//! On first use DIR is filled with a deterministic tree (20 000 pseudo-source files, about 200 MB,
//! a `.git` directory so ripgrep honours the `.gitignore`, and ignored `target/` and `*.log` files
//! that must not be searched); later runs reuse it. The search is then run 5 times (after one
//! warm-up run that fills the page cache) and the median wall time is printed in seconds on the
//! last line, `median_s=<seconds>`, so scripts can compare it with `rg -l PATTERN DIR`.
// A benchmark reports on stdout; the crate-wide lint against printing is for library code.
#![expect(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark prints its figures, and its usage on stderr"
)]

use mewcode::bench::{CancelToken, GrepTool, Tool, ToolContext};
use std::io::Write;
use std::path::Path;
use std::time::Instant;

const FILES: usize = 20_000;
const DIRS: usize = 200;
const TARGET_BYTES_PER_FILE: usize = 10_000;
const DEFAULT_PATTERN: &str = r"unusual_[a-z]+_token";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(dir) = args.first() else {
        eprintln!("usage: grep_bench DIR [PATTERN] [files_with_matches|content|count]");
        std::process::exit(2);
    };
    let pattern = args.get(1).map_or(DEFAULT_PATTERN, String::as_str);
    let mode = args.get(2).map_or("files_with_matches", String::as_str);
    let dir = Path::new(dir);
    if !dir.join(".bench-complete").exists() {
        let started = Instant::now();
        generate(dir)?;
        println!("generated {FILES} files in {} in {:.1} s", dir.display(), started.elapsed().as_secs_f64());
    }
    let root = std::fs::canonicalize(dir)?;
    let ctx = ToolContext::new(root, CancelToken::new());
    let input = serde_json::json!({"pattern": pattern, "output_mode": mode, "head_limit": 100000}).to_string();
    let warm = GrepTool.execute(&input, &ctx);
    let mut times = Vec::new();
    for _ in 0..5 {
        let started = Instant::now();
        let output = GrepTool.execute(&input, &ctx);
        times.push(started.elapsed().as_secs_f64());
        if output != warm {
            return Err("grep output changed between runs".into());
        }
    }
    times.sort_by(f64::total_cmp);
    println!("pattern {pattern:?}, mode {mode}: {} output lines", warm.content.lines().count());
    println!("runs_s={times:?}");
    println!("median_s={:.4}", times[2]);
    Ok(())
}

/// Writes the tree. Deterministic (fixed-seed xorshift) so every machine benchmarks the same bytes.
fn generate(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir.join(".git"))?;
    std::fs::write(dir.join(".git/HEAD"), "ref: refs/heads/main\n")?;
    std::fs::write(dir.join(".gitignore"), "target/\n*.log\n")?;
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let mut text = String::with_capacity(TARGET_BYTES_PER_FILE * 2);
    for file in 0..FILES {
        let sub = dir.join(format!("src/mod{:03}/part{}", file % DIRS, file % 3));
        std::fs::create_dir_all(&sub)?;
        text.clear();
        fill_source(&mut rng, &mut text, file);
        let mut out = std::io::BufWriter::new(std::fs::File::create(sub.join(format!("file{file:05}.rs")))?);
        out.write_all(text.as_bytes())?;
        out.flush()?;
    }
    // Ignored content full of matches: a walker that ignores .gitignore would report these.
    for index in 0..200 {
        let target = dir.join(format!("target/debug/build{}", index % 10));
        std::fs::create_dir_all(&target)?;
        std::fs::write(target.join(format!("gen{index}.rs")), "unusual_ignored_token\n".repeat(1000))?;
        std::fs::write(dir.join(format!("src/run{index}.log")), "unusual_logged_token\n".repeat(1000))?;
    }
    std::fs::write(dir.join(".bench-complete"), "")?;
    Ok(())
}

const WORDS: [&str; 32] = [
    "let", "mut", "value", "self", "config", "request", "buffer", "index", "result", "error", "match", "Some", "None",
    "iter", "map", "collect", "len", "push", "return", "impl", "struct", "fn", "pub", "use", "crate", "handler",
    "stream", "token", "parse", "render", "state", "count",
];

fn fill_source(rng: &mut XorShift, text: &mut String, file: usize) {
    while text.len() < TARGET_BYTES_PER_FILE {
        let indent = (rng.next() % 4) as usize * 4;
        text.extend(std::iter::repeat_n(' ', indent));
        let words = 3 + rng.next() % 9;
        for word in 0..words {
            if word > 0 {
                text.push(' ');
            }
            text.push_str(WORDS[(rng.next() % WORDS.len() as u64) as usize]);
        }
        text.push_str(";\n");
        // About one file in 50 holds a rare token, so the search reports a few hundred files.
        if file % 50 == 7 && rng.next().is_multiple_of(200) {
            text.push_str("    let x = unusual_rare_token;\n");
        }
    }
}

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}
