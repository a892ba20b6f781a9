//! Tests of `mod.rs`: a job runs past its start, its output is read in parts, it is stopped with
//! everything it started, and the table's end ends every job.

use super::*;
use crate::test_dir::TempDir;

fn shell(script: &str) -> Command {
    let mut command = Command::new("bash");
    command.arg("-c").arg(script);
    command
}

fn start(jobs: &Jobs, script: &str) -> u32 {
    jobs.start(script, shell(script), None, Network::default(), Arc::new(Sandbox::off())).unwrap()
}

/// Reads job `id` until its output so far contains `needle` (or 20 s pass): everything read.
fn read_until(jobs: &Jobs, id: u32, needle: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut seen = String::new();
    while !seen.contains(needle) && Instant::now() < deadline {
        seen.push_str(&jobs.read(id).unwrap().text);
        std::thread::sleep(Duration::from_millis(5));
    }
    seen
}

#[test]
fn a_job_runs_past_its_start_and_its_output_is_read_from_where_the_last_read_stopped() {
    let dir = TempDir::new("jobs");
    let jobs = Jobs::new(dir.join("jobs"));
    let id = start(&jobs, "echo first; read -t 30 line < <(sleep 30); echo never");
    assert_eq!(id, 1);
    assert_eq!(read_until(&jobs, id, "first\n"), "first\n");
    assert_eq!(jobs.read(id).unwrap(), Report { state: State::Running, text: String::new() });
    let list = jobs.list();
    assert!(
        list[0].starts_with("job 1: running, started ")
            && list[0].ends_with("echo first; read -t 30 line < <(sleep 30); echo never"),
        "{list:?}"
    );
    let stopped = jobs.stop(id).unwrap();
    assert_eq!(stopped.state, State::Stopped);
    assert!(!stopped.text.contains("never"));
    // A job that ends by itself says how.
    let second = start(&jobs, "echo done; exit 3");
    assert_eq!(jobs.wait(second).unwrap(), Report { state: State::Ended("exit code 3".into()), text: "done\n".into() });
    assert_eq!(jobs.written(second), Ok(5));
    assert_eq!(
        jobs.stop(second).unwrap().state,
        State::Ended("exit code 3".into()),
        "stopping an ended job changes nothing"
    );
}

#[test]
fn an_unknown_job_is_named_with_the_jobs_there_are() {
    let dir = TempDir::new("jobs");
    let jobs = Jobs::new(dir.join("jobs"));
    assert_eq!(jobs.read(4).unwrap_err(), "no job 4: no background job was started in this session");
    let id = start(&jobs, "true");
    assert_eq!(jobs.stop(id + 1).unwrap_err(), format!("no job {}: the jobs are {id}", id + 1));
    let none = Jobs::default();
    assert!(none.start("true", shell("true"), None, Network::default(), Arc::new(Sandbox::off())).is_err());
}

#[test]
fn the_end_of_the_session_ends_every_job_and_its_children_and_removes_the_spools() {
    let dir = TempDir::new("jobs");
    let spools = dir.join("jobs");
    let jobs = Jobs::new(spools.clone());
    let marker = format!("mewcode-job-test-{}", std::process::id());
    let id = start(&jobs, &format!("(exec -a {marker} sleep 300) & echo started; wait"));
    read_until(&jobs, id, "started");
    let alive = || {
        std::fs::read_dir("/proc").unwrap().flatten().any(|entry| {
            std::fs::read(entry.path().join("cmdline")).is_ok_and(|cmdline| cmdline.starts_with(marker.as_bytes()))
        })
    };
    assert!(alive());
    drop(jobs);
    assert!(!alive(), "a job's child outlived the session");
    assert!(!spools.exists());
}

#[test]
fn a_read_says_what_waits_and_what_was_dropped_and_jobs_are_numbered_in_order() {
    let dir = TempDir::new("jobs");
    let mut jobs = Jobs::new(dir.join("jobs"));
    jobs.cap = 50_000;
    // 40 000 bytes: a read returns 30 000 and says what waits.
    let first = start(&jobs, "head -c 40000 /dev/zero | tr '\\0' a");
    let report = jobs.wait(first).unwrap();
    assert!(report.text.starts_with(&"a".repeat(READ_BYTES)), "{}", &report.text[..40]);
    assert!(report.text.ends_with("\n[10000 more bytes waiting: read again]"), "{}", &report.text[READ_BYTES..]);
    assert_eq!(jobs.read(first).unwrap().text, "a".repeat(10_000));
    // 120 000 bytes into a 50 000-byte spool, unread: the newest kept, the rest said dropped.
    let second = start(&jobs, "for i in 1 2 3 4 5 6; do head -c 20000 /dev/zero | tr '\\0' b; done");
    assert_eq!(second, first + 1);
    let report = jobs.wait(second).unwrap();
    let (note, kept) = report.text.split_once('\n').unwrap();
    let dropped: usize = note.strip_prefix('[').unwrap().split(' ').next().unwrap().parse().unwrap();
    assert!(
        note.ends_with(
            "bytes of output were dropped unread: the job wrote more than the 50000 bytes kept since the last read]"
        ),
        "{note}"
    );
    // What was kept comes in this read and the next ones (30 000 bytes at most each).
    let mut shown = kept.split("\n[").next().unwrap().len();
    loop {
        let more = jobs.read(second).unwrap().text;
        if more.is_empty() {
            break;
        }
        shown += more.split("\n[").next().unwrap().len();
    }
    assert!(shown <= 50_000 && dropped > 0, "{dropped} dropped, {shown} shown");
    assert_eq!(dropped + shown, 120_000);
    assert_eq!(jobs.written(second), Ok(120_000));
}

#[test]
fn at_most_sixteen_jobs_run_at_once_and_a_long_command_is_cut_in_the_list() {
    let dir = TempDir::new("jobs");
    let jobs = Jobs::new(dir.join("jobs"));
    let long = format!("exec sleep 300 # {}", "x".repeat(100));
    for _ in 0..MAX_RUNNING {
        start(&jobs, &long);
    }
    let refused = jobs.start("true", shell("true"), None, Network::default(), Arc::new(Sandbox::off()));
    assert_eq!(refused.unwrap_err(), "16 background jobs are running already: stop one first");
    let listed = jobs.list();
    assert_eq!(listed.len(), MAX_RUNNING);
    assert!(listed[0].ends_with(&format!("{}...", &long[..80])), "{}", listed[0]);
    // One stopped: room for one more.
    jobs.stop(1).unwrap();
    assert!(jobs.start("true", shell("true"), None, Network::default(), Arc::new(Sandbox::off())).is_ok());
}
