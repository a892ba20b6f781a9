//! The differential test against real bash: commands generated from bash's grammar (seeded) and
//! written by hand for every class of issue 19 run under `/bin/bash` with stub programs on an
//! otherwise empty PATH, each stub logging its name. A program bash ran that the engine's reader
//! did not see as a command fails the test, and so does one that an engine allowing every
//! program but it lets through. Isolated: a temp dir as working directory and home, an empty
//! environment, no network, a time limit per command.
//!
//! Also measured: the over-ask rate, the share of commands that an engine allowing every
//! program in them still asks about (printed; the corpus keeps its own expectations); and the
//! same controls with read-only programs in place of the stubs, judged by engines told that
//! commands run in the sandbox's view (issue 27: read-only commands then run unasked).

use crate::bash_run::{BashRun, engine_allowing, judged_programs, on_two_workers};
use mewcode::redteam::{CallInfo, Decision, Engine, Mode, parse_command};
use std::path::Path;
use std::time::Instant;

/// The stub programs: ordinary names that are no wrapper, shell or interpreter.
const STUBS: &[&str] = &["pa", "pb", "pc", "pd", "pe"];
/// Builtins and names the generator uses that need a rule of their own.
const OTHER_ALLOWED: &[&str] = &["echo", "true", ":", "f", "cd", "test", "read", "printf", "let"];
const SEED: u64 = 0x5eed_1900_0000_0019;
const GENERATED: usize = 600;
/// Generated commands without substitutions or expansions, for the over-ask rate.
const CONTROLS: usize = 400;

/// Hand-written cases: one or more per class of issue 19, and valid bash the reader must follow.
const HAND_WRITTEN: &[&str] = &[
    "pa $((pb -y) && pc)",
    "pa \"$((pb -y) && pc)\"",
    "pa > $((pb) ; pc)",
    "pa <<< $((pb) | pc)",
    "pa $(( (pb) ; pc) )",
    "pa <<EOF\n$((pb -y) && pc)\nEOF",
    "echo $((1+(2))) $(( (3) ))",
    "echo $[1<<2]\npa after",
    "echo \"$[1<<2]\"; pa",
    "pa <<EOF\nEO\\\nF\npb inside\nEOF",
    "pa <<EOF\nEOF\\\n\npb inside\nEOF",
    "pa <<-EOF\n\tEO\\\nF\npb inside\nEOF",
    "pa <<EOF\nEO\\\\\nF\npb inside\nEOF",
    "pa <<EOF\n$\\\n(pb)\nEOF",
    "printf -v 'a[$(pa)]' x",
    "read 'a[$(pa)]' <<< v",
    "declare 'a[$(pa)]=1'",
    "let 'a[$(pa)]=1'",
    "test -v 'a[$(pa)]'",
    "[[ -v 'a[$(pa)]' ]]",
    "[[ 'a[$(pa)]' -eq 1 ]]",
    "echo ${a['$(pa)']}",
    "v=abc; echo ${v:'a[$(pa)]'}",
    "echo $(( 'a[$(pa)]' ))",
    "(( 'a[$(pa)]' ))",
    "a['$(pa)']=1",
    "pa=1 pb",
    "X=1 pa x",
    "case x in x) pa;; *) pb;; esac",
    "case $v in (a|b) pa ;; esac; pc",
    "for ((i=0;i<2;i++)); do pa $i; done",
    "for i in $(pa) b; do pb; done",
    "for pa in pb pc; do :; done",
    "while read l; do pa; done < <(pb)",
    "a=(x $(pa) y); pb",
    "a=(1 2); echo ${a[@]}; pa",
    "f() { pa; }; f",
    "pa | pb && pc || pd; pe &",
    "{ pa; pb; } > /dev/null 2>&1",
    "if pa; then pb; elif pc; then pd; else pe; fi",
    "pa `pb`",
    "pa \"`pb`\"",
    "pa $(pb $(pc))",
    "pa <(pb) >(pc)",
    "time pa",
    "! pa",
    "pa \\\n x",
    "pa 'x' \"y\" $'\\x70b'",
    "echo *; pa",
    "eval 'pa'",
    "pa ${x:-${ pb; }}",
    "echo ${x:-{} ; pa ; echo }",
    "echo \"${x:-{}\"; pa; echo \"}\"",
    "case x in $((pa) && pb)) ;; esac",
    "for i in $((pa) ; pb); do :; done",
    "pa $(( ${ pb; } ))",
    "pa <<-EOF\n\t$((pb) && pc)\n\tEOF",
    "a=(x)pb",
    "pa $[ $((pb) && pc) ]",
    "(( $((pa) ; pb) ))",
    "case x in (x) pa;;& *) pb;; esac",
    "x=1; case $x in 1) pa;& 2) pb;; 3) pc;; esac",
    "for ((i=0; i<$((pa) && pb); i++)); do :; done",
    "pa <<EOF\n${a[$(pb)]} ${v:-`pc`}\nEOF",
    "pa <<'EOF'\n$(pb)\nEOF\npc",
    "pa <<EOF; pb\nbody\nEOF\npc",
    "pa <<A <<B\na\nA\nb\nB\npb",
    "pa $(pb <<EOF\n$(pc)\nEOF\n)",
    "echo $(( $(pa) + 1 ))",
    "echo $(( `pa` + 1 ))",
    "[[ $(pa) == x ]] && pb",
    "if [[ -n $(pa) ]]; then pb; fi",
    "pa & pb & wait",
    "coproc pa",
    "coproc N { pa; pb; }; pc",
    "coproc ( pa ); wait",
    "coproc PATH { pa; }; pb",
    "[[ x == @(a|$(pb)) ]] && pc",
    "shopt -s extglob\necho +(a|$(pa)) *(b)",
    "select x in a; do pa; break; done < /dev/null",
];

/// Runs the differential test; returns false when a program ran unseen or was allowed unnamed.
pub fn run(root: &Path) -> bool {
    let started = Instant::now();
    let sandbox = BashRun::new(root.join(".differential"), STUBS.iter().copied(), false);
    // The project is bash's working directory, as for the agent.
    let everything = engine(sandbox.project(), None);
    let without: Vec<Engine> = STUBS.iter().map(|stub| engine(sandbox.project(), Some(stub))).collect();
    let mut rng = XorShift(SEED);
    let mut cases: Vec<(String, bool)> = HAND_WRITTEN.iter().map(|case| (case.to_string(), false)).collect();
    cases.extend((0..GENERATED).map(|_| (top_level(&mut rng, false), false)));
    cases.extend((0..CONTROLS).map(|_| (top_level(&mut rng, true), true)));
    let tallies: Vec<Tally> = on_two_workers(&cases, |tally: &mut Tally, index, (case, control)| {
        tally.judge(index, case, *control, &sandbox, &everything, &without)
    });
    let mut total = Tally::default();
    for tally in tallies {
        total.failures.extend(tally.failures);
        total.asked += tally.asked;
        total.controls_asked += tally.controls_asked;
        total.unparseable += tally.unparseable;
        total.ran_something += tally.ran_something;
    }
    let Tally { failures, asked, controls_asked, unparseable, ran_something } = total;
    println!(
        "differential vs bash: {} commands ({} hand-written, {GENERATED} generated, {CONTROLS} controls; \
         seed {SEED:#x}), {ran_something} ran a stub, {unparseable} unparseable, {:.1}s",
        cases.len(),
        HAND_WRITTEN.len(),
        started.elapsed().as_secs_f64()
    );
    println!(
        "  over-ask with every program allowed: controls {:.1}% ({controls_asked}/{CONTROLS}; no substitution or \
         expansion, which ask by design), all {:.1}% ({asked}/{})",
        100.0 * controls_asked as f64 / CONTROLS as f64,
        100.0 * asked as f64 / cases.len() as f64,
        cases.len()
    );
    let controls: Vec<&str> = cases.iter().filter(|(_, control)| *control).map(|(case, _)| case.as_str()).collect();
    report_view_pay_off(sandbox.project(), &controls);
    for failure in &failures {
        println!("  HOLE {failure}");
    }
    failures.is_empty()
}

/// Read-only programs standing for the stubs, in the same order: the controls keep their shapes.
const READERS: [&str; 5] = ["ls", "cat", "wc", "head", "grep"];

/// Prints how often the controls, with [`READERS`] for the stubs, still ask in default mode:
/// with every program allowed by rules and no view (before issue 27's pay-off), with no rules in
/// the view (the pay-off alone), and with both.
fn report_view_pay_off(root: &Path, controls: &[&str]) {
    let readers: Vec<String> = controls.iter().map(|case| with_readers(case)).collect();
    let rules = || engine_allowing(root, READERS.iter().chain(OTHER_ALLOWED).copied());
    let engines = [
        ("every program allowed, no view", rules()),
        ("no rules, in the view", engine_allowing(root, []).with_read_only_commands(true)),
        ("every program allowed, in the view", rules().with_read_only_commands(true)),
    ];
    let mut line = format!("  controls with {} for the stubs, asked in default mode:", READERS.join("/"));
    for (name, engine) in &engines {
        let asked = readers
            .iter()
            .filter(|case| {
                let input = serde_json::json!({ "command": case }).to_string();
                engine.check(Mode::Default, &CallInfo::named("Bash", &input), false).decision != Decision::Allow
            })
            .count();
        line.push_str(&format!(
            " {name} {:.1}% ({asked}/{});",
            100.0 * asked as f64 / readers.len() as f64,
            readers.len()
        ));
    }
    println!("{}", line.trim_end_matches(';'));
}

/// `case` with each stub name that stands as a word of its own (not `pa=1`) replaced by the
/// reader in the same place of [`READERS`].
fn with_readers(case: &str) -> String {
    let mut out = String::with_capacity(case.len());
    let mut rest = case;
    while !rest.is_empty() {
        let boundary_before = out.chars().last().is_none_or(|c| !c.is_ascii_alphanumeric() && c != '_');
        let stub = STUBS.iter().position(|stub| {
            rest.strip_prefix(stub).is_some_and(|after| {
                after.chars().next().is_none_or(|c| !c.is_ascii_alphanumeric() && c != '_' && c != '=')
            })
        });
        match stub {
            Some(index) if boundary_before => {
                out.push_str(READERS[index]);
                rest = &rest[STUBS[index].len()..];
            }
            _ => {
                let next = rest.chars().next().map_or(1, char::len_utf8);
                out.push_str(&rest[..next]);
                rest = &rest[next..];
            }
        }
    }
    out
}

#[derive(Default)]
struct Tally {
    failures: Vec<String>,
    asked: usize,
    controls_asked: usize,
    unparseable: usize,
    ran_something: usize,
}

impl Tally {
    fn judge(
        &mut self,
        index: usize,
        case: &str,
        control: bool,
        sandbox: &BashRun,
        everything: &Engine,
        without: &[Engine],
    ) {
        let parsed = parse_command(case);
        let ran = sandbox.run(index, case);
        self.ran_something += usize::from(!ran.is_empty());
        let input = serde_json::json!({ "command": case }).to_string();
        let call = CallInfo::named("Bash", &input);
        let allowed = everything.check(Mode::Default, &call, false).decision == Decision::Allow;
        self.asked += usize::from(!allowed);
        self.controls_asked += usize::from(!allowed && control);
        let Ok(parsed) = parsed else {
            self.unparseable += 1;
            return;
        };
        let judged = judged_programs(&parsed);
        // A program the reader did not see is a hole only if the engine then allows: code a
        // builtin evaluates (`printf -v 'a[$(x)]'`, `eval`) is judged by making the call ask.
        for program in ran.iter().filter(|program| allowed && !judged.contains(*program)) {
            self.failures.push(format!("bash ran {program} unseen by the reader, and the engine allowed: {case:?}"));
        }
        // Fewer allow rules never allow more, so only an allowed command needs these checks.
        for (stub, engine) in STUBS.iter().zip(without).filter(|(stub, _)| allowed && ran.contains(**stub)) {
            if engine.check(Mode::Default, &call, false).decision == Decision::Allow {
                self.failures.push(format!("{stub} ran although no rule allows it, yet the engine allowed: {case:?}"));
            }
        }
    }
}

fn engine(root: &Path, missing: Option<&str>) -> Engine {
    engine_allowing(root, STUBS.iter().chain(OTHER_ALLOWED).copied().filter(|program| Some(*program) != missing))
}

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// A complete script: one to three lines, here-docs only at the end of a line.
/// A control (`plain`) has no substitution or expansion: every program in it is allowed, so
/// the engine should allow it.
fn top_level(rng: &mut XorShift, plain: bool) -> String {
    let lines = 1 + rng.below(2);
    let mut out = Vec::new();
    for _ in 0..lines {
        if rng.below(6) == 0 {
            out.push(heredoc(rng, plain));
        } else {
            out.push(list(rng, 0, plain));
        }
    }
    out.join("\n")
}

fn heredoc(rng: &mut XorShift, plain: bool) -> String {
    let program = rng.pick(STUBS);
    let body = match rng.below(5) {
        0 if !plain => format!("text $({})", simple(rng, 2, plain)),
        1 if !plain => format!("$(({} -y) && {})", rng.pick(STUBS), rng.pick(STUBS)),
        2 => format!("E\\\nND\n{}", simple(rng, 2, plain)),
        3 if !plain => format!("`{}` ${{a[1]}} $((1+2))", simple(rng, 2, plain)),
        _ => "plain text".to_string(),
    };
    let quoted = rng.below(4) == 0;
    let delimiter = if quoted { "'END'" } else { "END" };
    format!("{program} <<{delimiter}\n{body}\nEND")
}

fn list(rng: &mut XorShift, depth: usize, plain: bool) -> String {
    let count = 1 + rng.below(3);
    let mut out = command(rng, depth, plain);
    for _ in 1..count {
        let separator = rng.pick(&["; ", " && ", " || ", " | ", "\n", " & "]);
        out.push_str(separator);
        out.push_str(&command(rng, depth, plain));
    }
    out
}

fn command(rng: &mut XorShift, depth: usize, plain: bool) -> String {
    if depth >= 2 {
        return simple(rng, depth, plain);
    }
    let inner = |rng: &mut XorShift| list(rng, depth + 1, plain);
    let leaf = |rng: &mut XorShift| simple(rng, depth + 1, plain);
    match rng.below(16) {
        0 => format!("( {} )", inner(rng)),
        1 => format!("{{ {}; }}", inner(rng)),
        2 => format!("if {}; then {}; else {}; fi", inner(rng), inner(rng), inner(rng)),
        3 if plain => format!("for i in a b; do {}; done", inner(rng)),
        3 => format!("for i in a $({}) b; do {}; done", leaf(rng), inner(rng)),
        4 if plain => format!("case x in x) {};; *) {};; esac", inner(rng), inner(rng)),
        4 => format!("case ${{v:-x}} in x) {};; *) {};; esac", inner(rng), inner(rng)),
        5 => format!("for ((k{depth}=0;k{depth}<2;k{depth}++)); do {}; done", inner(rng)),
        6 => format!("while read -r line; do {}; done < <({})", inner(rng), leaf(rng)),
        7 => format!("f() {{ {}; }}; f", inner(rng)),
        8 if plain => format!("arr=(x y); {}", leaf(rng)),
        8 => format!("arr=(x $({}) y); {}", leaf(rng), leaf(rng)),
        9 => format!("(( j = {} )); {}", rng.pick(&["1", "2 + 3", "7 % 4"]), leaf(rng)),
        _ => simple(rng, depth, plain),
    }
}

fn simple(rng: &mut XorShift, depth: usize, plain: bool) -> String {
    let mut words = Vec::new();
    if rng.below(6) == 0 {
        let assignments: &[&str] =
            if plain { &["V=1", "LANG=C", "pa=1"] } else { &["V=1", "LANG=C", "pa=1", "x=$(pb)"] };
        words.push(rng.pick(assignments).to_string());
    }
    words.push(rng.pick(&["pa", "pb", "pc", "pd", "pe", "echo", "true", ":"]).to_string());
    for _ in 0..rng.below(3) {
        words.push(if plain { plain_word(rng) } else { word(rng, depth) });
    }
    if rng.below(5) == 0 {
        words.push(rng.pick(&["> out", "2>/dev/null", "<<< w", "< /dev/null", ">> out 2>&1"]).to_string());
    }
    words.join(" ")
}

fn plain_word(rng: &mut XorShift) -> String {
    rng.pick(&["x", "-y", "--z=1", "src", "a.txt", "'a b'", "\"q\"", "$((1+(2)))", "$[1<<2]", "$'\\x41'", "*", "{a,b}"])
        .to_string()
}

fn word(rng: &mut XorShift, depth: usize) -> String {
    let nested = |rng: &mut XorShift| simple(rng, depth + 2, false);
    match rng.below(20) {
        0 => format!("$({})", nested(rng)),
        1 => format!("\"$({})\"", nested(rng)),
        2 => format!("`{}`", nested(rng)),
        3 => format!("$(({} -y) && {})", rng.pick(STUBS), rng.pick(STUBS)),
        4 => "$((1+(2)))".to_string(),
        5 => "$[1<<2]".to_string(),
        6 => format!("<({})", nested(rng)),
        7 => "${v:-d}".to_string(),
        8 => "'a b'".to_string(),
        9 => "\"q $v\"".to_string(),
        10 => "*".to_string(),
        11 => "{a,b}".to_string(),
        12 => "$'\\x41'".to_string(),
        _ => rng.pick(&["x", "-y", "--z=1", "src", "a.txt"]).to_string(),
    }
}
