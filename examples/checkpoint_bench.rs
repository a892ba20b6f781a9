//! Benchmark of checkpoints (issue 29) on a generated repository: what one turn's checkpoints
//! cost (the `Before` snapshot before its first change and the `After` one when it ends) with
//! 10 000 files of which the turn changes 20, against a bare `lstat` walk of the same files.
//!
//! Usage: `cargo run --release --example checkpoint_bench [-- RUNS]`
//!
//! The repository (deterministic, in a fresh temp dir removed at the end) has 10 000 source files
//! of 1–8 KB in 200 directories, dated a day ago as a checkout is, plus a `.gitignore`d `target/`
//! and a `node_modules/` that must cost nothing. Printed: the first (cold) snapshot, which hashes
//! and stores every file; the first snapshot of a later session (the stat cache saved by the
//! first); the median per-turn cost over RUNS turns after those; the bare stat walk; and the disk
//! the store and the session's log take; and what `/diff`, planning and applying a rewind of
//! every file the turns changed cost.
#![expect(clippy::print_stdout, reason = "a benchmark prints its figures")]

use mewcode::bench::{Checkpoints, Coverage, stat_walk};
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

const FILES: usize = 10_000;
const DIRS: usize = 200;
const CHANGED: usize = 20;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let runs: usize = std::env::args().nth(1).map_or(Ok(15), |arg| arg.parse())?;
    let dir = std::env::temp_dir().join(format!("mewcode-checkpoint-bench-{}", std::process::id()));
    let result = run(&dir, runs);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn run(dir: &Path, runs: usize) -> Result<(), Box<dyn std::error::Error>> {
    generate(dir)?;
    let project = std::fs::canonicalize(dir)?;
    let coverage = Coverage { project: project.clone(), extra: Vec::new() };

    let started = Instant::now();
    let cold = Checkpoints::open(coverage.clone(), "20250101-000000-0001");
    cold.begin_turn("first", 0);
    cold.before_change()?;
    let cold_ms = ms(started.elapsed());
    cold.end_turn()?;
    drop(cold);

    let started = Instant::now();
    let checkpoints = Checkpoints::open(coverage.clone(), "20250101-000000-0002");
    checkpoints.begin_turn("first of a later session", 0);
    checkpoints.before_change()?;
    let later_ms = ms(started.elapsed());
    checkpoints.end_turn()?;

    let mut per_turn = Vec::new();
    let mut edited = Vec::new();
    let mut cpu_turns = Duration::ZERO;
    for run in 0..runs {
        // The user reads the answer and types the next prompt: the files of the last turn are
        // now seconds old (what the stat cache's racy window waits for), as if this ran at the
        // pace of a real session rather than a turn every few milliseconds.
        for path in edited.drain(..) {
            std::fs::File::options()
                .write(true)
                .open(&path)?
                .set_modified(SystemTime::now() - Duration::from_secs(5))?;
        }
        checkpoints.begin_turn("edit", 0);
        let (started, cpu) = (Instant::now(), cpu_time());
        checkpoints.before_change()?;
        let before = started.elapsed();
        cpu_turns += cpu_time().saturating_sub(cpu);
        for index in 0..CHANGED {
            let file = (run * 997 + index * 499) % FILES;
            let path = file_path(&project, file);
            let mut text = std::fs::read_to_string(&path)?;
            text.push_str(&format!("// edited in run {run}\n"));
            std::fs::write(&path, text)?;
            edited.push(path);
        }
        let (started, cpu) = (Instant::now(), cpu_time());
        checkpoints.end_turn()?;
        per_turn.push(ms(before + started.elapsed()));
        cpu_turns += cpu_time().saturating_sub(cpu);
    }

    let started = Instant::now();
    let changes = checkpoints.session_changes()?;
    let diff_ms = ms(started.elapsed());
    let first_turn = checkpoints.points().last().map_or(1, |point| point.turn);
    let started = Instant::now();
    let plan = checkpoints.plan(first_turn, false)?;
    let plan_ms = ms(started.elapsed());
    let started = Instant::now();
    let report = checkpoints.apply(&plan, &[])?;
    let apply_ms = ms(started.elapsed());
    if !report.failed.is_empty() || report.restored.len() != changes.len() {
        return Err(format!(
            "the rewind restored {} of {} files: {:?}",
            report.restored.len(),
            changes.len(),
            report.failed
        )
        .into());
    }

    let mut walks = Vec::new();
    let mut seen = 0;
    let cpu = cpu_time();
    for _ in 0..runs {
        let started = Instant::now();
        seen = stat_walk(&coverage);
        walks.push(ms(started.elapsed()));
    }
    let cpu_walk = ms(cpu_time().saturating_sub(cpu)) / runs as f64;
    let cpu_turn = ms(cpu_turns) / runs as f64;
    let turn = median(&mut per_turn);
    let walk = median(&mut walks);
    println!(
        "repository: {FILES} files ({} MB), {CHANGED} changed per turn, {runs} turns",
        bytes_under(dir, false) >> 20
    );
    println!("first (cold) snapshot, hashing and storing every file: {cold_ms:.1} ms");
    println!("first snapshot of a later session (stat cache saved): {later_ms:.1} ms");
    println!("checkpoints per turn (Before + After), median: {turn:.1} ms (target < 50 ms); runs: {per_turn:.1?}");
    println!(
        "bare lstat walk of the same {seen} entries, median: {walk:.1} ms (a turn costs {:.1} such walks)",
        turn / walk
    );
    println!(
        "CPU time (all threads; steadier than wall time on a busy machine): {cpu_turn:.1} ms per turn, {cpu_walk:.1} ms \
         per bare walk ({:.1} walks)",
        cpu_turn / cpu_walk
    );
    println!(
        "/diff of the session ({} files): {diff_ms:.1} ms; planning a rewind to its first turn: {plan_ms:.1} ms; \
         applying it: {apply_ms:.1} ms",
        changes.len()
    );
    let store = bytes_under(&project.join(".mewcode/checkpoints"), true);
    let logs = bytes_under(&project.join(".mewcode/sessions"), true);
    println!("disk: store {:.1} MB (objects + stat cache), session logs {:.2} MB", mb(store), mb(logs));
    Ok(())
}

/// CPU time of this process so far, all threads (user + system; Linux `/proc`, in clock ticks
/// of 10 ms, so only sums over many turns mean anything).
fn cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which may hold spaces) start at its closing parenthesis.
    let fields: Vec<&str> = stat.rsplit_once(')').map_or("", |(_, rest)| rest).split_whitespace().collect();
    let ticks = |index: usize| fields.get(index).and_then(|field| field.parse::<u64>().ok()).unwrap_or(0);
    Duration::from_millis((ticks(11) + ticks(12)) * 10)
}

fn ms(elapsed: Duration) -> f64 {
    elapsed.as_secs_f64() * 1000.0
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / (1 << 20) as f64
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Bytes of the files under `dir` (`all`: hidden ones too, `.mewcode` included).
fn bytes_under(dir: &Path, all: bool) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    let mut total = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !all && name.to_string_lossy().starts_with('.') {
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        total += if meta.is_dir() { bytes_under(&entry.path(), all) } else { meta.len() };
    }
    total
}

fn file_path(project: &Path, file: usize) -> std::path::PathBuf {
    project.join(format!("src/mod{:03}/file{file:05}.rs", file % DIRS))
}

/// Writes the repository, every file dated a day ago (a fresh checkout is older than the racy
/// window of the stat cache a few seconds after it is made; a day keeps the figure honest on a
/// slow machine too).
fn generate(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join(".gitignore"), "target/\n*.log\n")?;
    let day_ago = SystemTime::now() - Duration::from_secs(86_400);
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    for file in 0..FILES {
        let path = file_path(dir, file);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let lines = 20 + (rng % 200) as usize;
        let text: String =
            (0..lines).map(|line| format!("fn item_{file}_{line}() -> u64 {{ {} }}\n", rng ^ line as u64)).collect();
        let handle = std::fs::File::create(&path)?;
        std::io::Write::write_all(&mut &handle, text.as_bytes())?;
        handle.set_modified(day_ago)?;
    }
    for index in 0..500 {
        let build = dir.join(format!("target/debug/build{}", index % 10));
        std::fs::create_dir_all(&build)?;
        std::fs::write(build.join(format!("gen{index}.o")), vec![0u8; 4096])?;
        let module = dir.join(format!("node_modules/pkg{}", index % 25));
        std::fs::create_dir_all(&module)?;
        std::fs::write(module.join(format!("index{index}.js")), "module.exports = {};\n")?;
    }
    Ok(())
}
