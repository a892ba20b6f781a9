//! The differential test on real scripts: the complete commands of bash's own test suite
//! (`fixtures/bash-tests/`, cut by its `extract.py`) run under real bash (`bash_run.rs`). For
//! each, the engine is given allow rules for exactly the programs its reader judged: a program
//! bash ran that the reader did not judge, and one that is judged but allowed without its rule,
//! fail the test. Printed: the corpus size, how many the reader refuses (they ask), and the
//! over-ask rate when every program the command runs or names is allowed.

use crate::bash_run::{BashRun, engine_allowing, judged_programs, on_two_workers};
use mewcode::redteam::{CallInfo, Decision, Engine, Mode, parse_command};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Real programs that run what they are given, linked in when the machine has them, so the
/// reader's unwrapping is checked against what they really do.
const REAL_WRAPPERS: &[&str] = &["env", "xargs", "timeout", "nice", "nohup", "stdbuf", "find"];

struct Case {
    source: String,
    command: String,
}

/// Runs every command of the corpus; returns false when one ran a program unjudged or unallowed.
pub fn run(root: &Path) -> bool {
    let started = Instant::now();
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/bash-tests/commands.jsonl");
    let cases = load(&corpus);
    let names: BTreeSet<&str> = cases.iter().flat_map(|case| tokens(&case.command)).collect();
    let stubs = names.iter().copied().filter(|name| !REAL_WRAPPERS.contains(name));
    let sandbox = BashRun::new(root.join(".scripts"), stubs, true);
    let wrappers_linked = link_real_wrappers(&sandbox);
    let tallies: Vec<Tally> =
        on_two_workers(&cases, |tally: &mut Tally, index, case| tally.judge(index, case, &sandbox));
    let mut total = Tally::default();
    for tally in tallies {
        total.failures.extend(tally.failures);
        total.asked += tally.asked;
        total.unparseable += tally.unparseable;
        total.ran_something += tally.ran_something;
    }
    println!(
        "real scripts vs bash: {} commands from bash's test suite, {} ran a program, {} refused by the reader \
         (ask), {} real wrappers, {}, {:.1}s",
        cases.len(),
        total.ran_something,
        total.unparseable,
        wrappers_linked,
        if sandbox.confined() { "confined" } else { "not confined (no Landlock)" },
        started.elapsed().as_secs_f64()
    );
    println!(
        "  over-ask with every program allowed: {:.1}% ({}/{}; substitutions and expansions ask by design)",
        100.0 * total.asked as f64 / cases.len() as f64,
        total.asked,
        cases.len()
    );
    for failure in &total.failures {
        println!("  HOLE {failure}");
    }
    total.failures.is_empty()
}

fn load(path: &Path) -> Vec<Case> {
    let text = std::fs::read_to_string(path).expect("fixtures/bash-tests/commands.jsonl");
    text.lines()
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).expect("corpus line is JSON");
            let field = |name: &str| value[name].as_str().expect("corpus field").to_string();
            Case { source: field("source"), command: field("command") }
        })
        .collect()
}

/// Every name in `command` that could be a program: each gets a stub.
fn tokens(command: &str) -> impl Iterator<Item = &str> {
    command
        .split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '+' | '-')))
        .filter(|token| token.len() <= 64 && token.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
}

/// Links the real wrappers present on this machine into the stub directory; returns how many.
fn link_real_wrappers(sandbox: &BashRun) -> usize {
    let bin = sandbox.bin();
    REAL_WRAPPERS
        .iter()
        .filter_map(|name| {
            let real =
                ["/usr/bin", "/bin"].iter().map(|dir| PathBuf::from(dir).join(name)).find(|path| path.exists())?;
            std::os::unix::fs::symlink(real, bin.join(name)).ok()
        })
        .count()
}

#[derive(Default)]
struct Tally {
    failures: Vec<String>,
    asked: usize,
    unparseable: usize,
    ran_something: usize,
}

impl Tally {
    fn judge(&mut self, index: usize, case: &Case, sandbox: &BashRun) {
        let ran = sandbox.run(index, &case.command);
        self.ran_something += usize::from(!ran.is_empty());
        let input = serde_json::json!({ "command": case.command }).to_string();
        let call = CallInfo::named("Bash", &input);
        let allows = |names: &BTreeSet<String>| {
            engine(sandbox.project(), names).check(Mode::Default, &call, false).decision == Decision::Allow
        };
        let Ok(parsed) = parse_command(&case.command) else {
            self.unparseable += 1;
            self.asked += 1;
            if allows(&ran) {
                self.failures.push(format!("{}: unreadable yet allowed: {:?}", case.source, case.command));
            }
            return;
        };
        let judged = judged_programs(&parsed);
        let everything: BTreeSet<String> = judged.union(&ran).cloned().collect();
        if !allows(&everything) {
            self.asked += 1;
            return;
        }
        // Allowed with every program named: each program that ran must have been needed.
        for program in &ran {
            let mut without = everything.clone();
            without.remove(program);
            if allows(&without) {
                let seen = if judged.contains(program) { "judged" } else { "unseen by the reader" };
                self.failures.push(format!(
                    "{}: bash ran {program} ({seen}), allowed without a rule for it: {:?}",
                    case.source, case.command
                ));
            }
        }
    }
}

/// An engine allowing exactly `programs` (`Bash(NAME)` and `Bash(NAME *)`), in `root`.
fn engine(root: &Path, programs: &BTreeSet<String>) -> Engine {
    let writable =
        |name: &&String| !name.is_empty() && !name.contains(['*', '(', ')', '$', '`', '"', '\'', '\\', ' ', '\n']);
    engine_allowing(root, programs.iter().filter(writable).map(String::as_str))
}
