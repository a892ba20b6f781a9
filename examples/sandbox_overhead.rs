//! What confining a command costs (issue 27: the whole confinement under 3 ms on a trivial
//! command): `true` run through `proc::run` as the bash tool runs it, side by side in one loop,
//! five ways: a bare `Command::spawn` + `wait` (the serial baseline), proc's session + reaper
//! unconfined (`sandbox: off`), Landlock alone with the cached ruleset (where the kernel refuses
//! namespaces), Landlock alone with the ruleset rebuilt each time (what a call pays after a
//! directory on the way to a secret changed), the full namespace view (planned from the disk
//! for every command, namespaces, mounts, fresh /proc, Landlock inside, seccomp) with the
//! network open, and the same under the network policy's allowlist (a network namespace, its
//! bridge process, a proxy and its thread per command: issue 32). Also the
//! one-off cost of detecting the sandbox at start-up (the trial of the view in a throwaway
//! process). Prints the medians, the ratios to the baseline and the added milliseconds.
//! Usage: `sandbox_overhead [RUNS]`.

#![expect(
    clippy::print_stdout,
    clippy::unwrap_used,
    reason = "a benchmark prints its figures, and a failed set-up may panic"
)]

use mewcode::bench::{self, CancelToken, Paths, Sandbox, SandboxConfig};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn main() {
    let runs: usize = std::env::args().nth(1).and_then(|runs| runs.parse().ok()).unwrap_or(200);
    let root = std::env::temp_dir().join(format!("mewcode-sandbox-bench-{}", std::process::id()));
    std::fs::create_dir_all(&root).unwrap();
    let root = std::fs::canonicalize(&root).unwrap();
    let paths = || Paths {
        root: root.clone(),
        home: std::env::var_os("HOME").map(PathBuf::from),
        mewcode_home: None,
        tmp: None,
        levels: vec![root.clone()],
        readable: Vec::new(),
    };
    let landlock_only =
        || Sandbox::new(SandboxConfig::default(), paths(), bench::landlock_abi_version(), Err("bench".into()));
    let cached = landlock_only();
    let open = SandboxConfig { network_mode: bench::NetworkMode::Open, ..SandboxConfig::default() };
    let viewed = Sandbox::detect(open, paths());
    let bridged =
        bench::with_network_policy(Sandbox::detect(SandboxConfig::default(), paths()), &SandboxConfig::default());
    if !viewed.summary().contains("namespace view") || viewed.summary().contains("no namespace view") {
        println!("no namespace view here ({}): its figure is Landlock's", viewed.summary());
    }
    if let Err(reason) = bench::landlock_abi_version() {
        println!("no Landlock here ({reason}): only the unconfined figures are meaningful");
    }
    let cancel = CancelToken::new();
    let through_proc = |confinement| {
        let mut command = Command::new("true");
        command.current_dir(&root);
        let job = bench::Job {
            command,
            stdin: None,
            timeout: Duration::from_secs(10),
            cancel: &cancel,
            merge_output: true,
            head_bytes: 1000,
            tail_bytes: 1000,
            label: "bench",
            confinement,
            watch: None,
        };
        let started = Instant::now();
        bench::run(job).unwrap();
        started.elapsed()
    };
    let mut samples: [Vec<f64>; 8] = Default::default();
    for _ in 0..runs {
        let started = Instant::now();
        Command::new("true").current_dir(&root).stdout(Stdio::piped()).stderr(Stdio::piped()).status().unwrap();
        samples[0].push(started.elapsed().as_secs_f64() * 1000.0);
        samples[1].push(through_proc(None).as_secs_f64() * 1000.0);
        samples[2].push(through_proc(cached.confinement().unwrap()).as_secs_f64() * 1000.0);
        let fresh = landlock_only();
        let started = Instant::now();
        let confinement = fresh.confinement().unwrap();
        let build = started.elapsed();
        samples[3].push((build + through_proc(confinement)).as_secs_f64() * 1000.0);
        let started = Instant::now();
        let confinement = viewed.confinement().unwrap();
        let plan = started.elapsed();
        samples[4].push((plan + through_proc(confinement)).as_secs_f64() * 1000.0);
        samples[6].push(plan.as_secs_f64() * 1000.0);
        let started = Instant::now();
        let confinement = bridged.confinement().unwrap();
        let plan = started.elapsed();
        samples[7].push((plan + through_proc(confinement)).as_secs_f64() * 1000.0);
        let started = Instant::now();
        let _ = Sandbox::detect(SandboxConfig::default(), paths());
        samples[5].push(started.elapsed().as_secs_f64() * 1000.0);
    }
    let medians: Vec<f64> = samples.iter_mut().map(|list| median(list)).collect();
    println!("== sandbox overhead on `true` (median of {runs} interleaved runs; target: < 3 ms added)");
    let rows = [
        ("bare spawn + wait (baseline)", 0),
        ("session + reaper, unconfined", 1),
        ("Landlock only (cached ruleset)", 2),
        ("Landlock only (ruleset rebuilt)", 3),
        ("namespace view, network open", 4),
        ("view + network bridge (allowlist)", 7),
    ];
    for (name, index) in rows {
        let value = medians[index];
        println!("{name:<34} {value:>7.3} ms  ratio {:>5.2}  added {:>6.3} ms", value / medians[0], value - medians[0]);
    }
    println!("confinement alone, Landlock (cached vs unconfined): {:.3} ms", medians[2] - medians[1]);
    println!("confinement alone, view (full vs unconfined): {:.3} ms", medians[4] - medians[1]);
    println!("  of which planning the view from the disk: {:.3} ms", medians[6]);
    println!(
        "the network policy's bridge and proxy (allowlist vs open, both in the view): {:.3} ms",
        medians[7] - medians[4]
    );
    println!("detecting the sandbox at start-up (trial of the view): {:.3} ms", medians[5]);
    let _ = std::fs::remove_dir_all(&root);
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values[values.len() / 2]
}
