//! `make bench`: the REPL renderer's cost per streamed token on a 100 000-token answer, for the
//! first and the last 10 000 tokens. The renderer is append-only, so the two must be about equal:
//! a token's cost must not grow with the length of the answer already shown.
#![expect(clippy::print_stdout, reason = "a benchmark prints its figures on stdout")]

use mewcode::bench::Renderer;
use std::time::{Duration, Instant};

const TOKENS: usize = 100_000;
const WINDOW: usize = 10_000;

fn main() {
    // Model-like deltas: mostly " word", sometimes punctuation and paragraph breaks.
    let words = ["the", "renderer", "streams", "text", "as", "it", "arrives,", "wrapping", "at", "words."];
    let tokens: Vec<String> = (0..TOKENS)
        .map(|index| match index % 97 {
            0 => "\n\n".to_string(),
            _ => format!(" {}", words[index % words.len()]),
        })
        .collect();
    let mut best_first = Duration::MAX;
    let mut best_last = Duration::MAX;
    for _ in 0..5 {
        let mut renderer = Renderer::new(std::io::sink(), true, true, 120);
        let mut first = Duration::ZERO;
        let mut last = Duration::ZERO;
        for (index, token) in tokens.iter().enumerate() {
            let started = Instant::now();
            let _ = renderer.text(token, started);
            let spent = started.elapsed();
            if index < WINDOW {
                first += spent;
            } else if index >= TOKENS - WINDOW {
                last += spent;
            }
        }
        best_first = best_first.min(first);
        best_last = best_last.min(last);
    }
    let per_token = |total: Duration| total.as_nanos() as f64 / WINDOW as f64;
    println!("render cost per token, first {WINDOW} of {TOKENS}: {:.0} ns", per_token(best_first));
    println!("render cost per token, last {WINDOW} of {TOKENS}:  {:.0} ns", per_token(best_last));
    println!("ratio last/first: {:.2}", per_token(best_last) / per_token(best_first));
}
