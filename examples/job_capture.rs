//! Whether a background job's output capture keeps up (issue 33: with a process writing 50 MB/s):
//! a job writing `MB` megabytes as fast as it can, captured into its spool, side by side with the
//! same writer piped to `cat > /dev/null` (what the writer alone can do here). Prints the medians
//! of `RUNS` interleaved runs, the throughputs and their ratio.
//! Usage: `job_capture [MB] [RUNS]`.

#![expect(
    clippy::print_stdout,
    clippy::unwrap_used,
    reason = "a benchmark prints its figures, and a failed set-up may panic"
)]

use std::time::Instant;

fn main() {
    let mb: u64 = std::env::args().nth(1).and_then(|mb| mb.parse().ok()).unwrap_or(500);
    let runs: usize = std::env::args().nth(2).and_then(|runs| runs.parse().ok()).unwrap_or(5);
    let base = std::env::temp_dir().join(format!("mewcode-job-capture-{}", std::process::id()));
    let writer = format!("head -c {} /dev/zero | tr '\\0' x", mb << 20);
    let (mut captured, mut piped) = (Vec::new(), Vec::new());
    for run in 0..runs {
        let started = Instant::now();
        let bytes = mewcode::bench::run_job_to_end(base.join(run.to_string()), &writer);
        let seconds = started.elapsed().as_secs_f64();
        assert_eq!(bytes, mb << 20, "the job's output was not all taken in");
        captured.push(mb as f64 / seconds);
        let started = Instant::now();
        let status = std::process::Command::new("bash").arg("-c").arg(format!("{writer} | cat > /dev/null")).status();
        assert!(status.unwrap().success());
        piped.push(mb as f64 / started.elapsed().as_secs_f64());
    }
    let _ = std::fs::remove_dir_all(&base);
    let (captured, piped) = (median(&mut captured), median(&mut piped));
    println!("== background job output capture: {mb} MB written as fast as possible (median of {runs})");
    println!("captured into the job's spool   {captured:>8.0} MB/s");
    println!("piped to cat > /dev/null         {piped:>8.0} MB/s");
    println!(
        "ratio {:.2}; the target is to keep up with 50 MB/s: {}",
        captured / piped,
        if captured >= 50.0 { "kept up" } else { "FELL BEHIND" }
    );
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values[values.len() / 2]
}
