//! `make bench`: the cost of rendering a streamed markdown answer in the REPL — a ~100 KB answer
//! with headings, lists, quotes, emphasis, code spans, links and fenced code blocks, fed to the
//! turn renderer (colour on, 100 columns, into a sink) in deltas of 1 to 8 characters as a model
//! sends them. Reported in ms per KB of answer, the median of several runs (SPEC §10: < 1 ms).
#![expect(clippy::print_stdout, reason = "a benchmark prints its figures on stdout")]

use mewcode::bench::Renderer;
use std::time::{Duration, Instant};

const TARGET_BYTES: usize = 100 * 1024;
const RUNS: usize = 11;

/// One section of a representative answer; the answer repeats it with numbered headings.
const SECTION: &str = "## Step {n}: what changes\n\n\
The **parser** reads each line once, and `read_head` decides what it is from as *few* characters as \
it can. See [the CommonMark spec](https://spec.commonmark.org/0.31.2/) for the _flanking_ rules; \
~~older~~ newer models use them too.\n\n\
1. Open `src/repl/markdown.rs` and find **`Markdown::push`**.\n\
2. Check that a *split* `**` still renders as **bold**, even when it arrives in two deltas.\n\
3. Run the tests:\n\n\
   ```sh\n   cargo test --lib repl::markdown -- --nocapture\n   ```\n\n\
- A bullet with a [link](https://example.com/docs?page={n}) and some `inline code`.\n\
- Another bullet that is long enough to wrap around a hundred-column terminal at least once, so the \
hanging indent is exercised as well.\n  - A nested bullet with **bold *and italic* text**.\n\n\
> Note: a block quote with **emphasis** and a `code span`, long enough to be wrapped under its bar \
like the rest of the prose here.\n\n\
```rust\nfn render(line: &str) -> String {\n\tlet mut out = String::new();\n\tfor c in line.chars() {\n\
\t\tout.push(c); // **not bold** in code\n\t}\n\tout\n}\n```\n\n---\n\n\
Prices are 2 * 3 = 6 units, snake_case_names stay as they are, and \\*escaped\\* stars too.\n\n";

fn main() {
    let mut answer = String::new();
    let mut n = 0;
    while answer.len() < TARGET_BYTES {
        n += 1;
        answer.push_str(&SECTION.replace("{n}", &n.to_string()));
    }
    // Deltas of 1 to 8 characters, a fixed pattern (no crate for randomness).
    let chars: Vec<char> = answer.chars().collect();
    let mut deltas = Vec::new();
    let mut at = 0;
    while at < chars.len() {
        let length = 1 + (at * 7 + 3) % 8;
        deltas.push(chars[at..(at + length).min(chars.len())].iter().collect::<String>());
        at += length;
    }
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let mut renderer = Renderer::new(std::io::sink(), true, false, 100);
            let started = Instant::now();
            for delta in &deltas {
                let _ = renderer.text(delta, started);
            }
            let _ = renderer.pause(started);
            started.elapsed()
        })
        .collect();
    times.sort();
    let median = times[RUNS / 2];
    let kilobytes = answer.len() as f64 / 1024.0;
    println!(
        "markdown render, {kilobytes:.0} KB answer in {} deltas (median of {RUNS} runs): {:.3} ms per KB",
        deltas.len(),
        median.as_secs_f64() * 1000.0 / kilobytes
    );
}
