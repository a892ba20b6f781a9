//! The red-team corpus: hundreds of attacks on the permission engine, each with the decision it
//! must get and the family it belongs to, run against the real engine in a planted project with
//! a planted home. Printed per family by `cargo test`; any miss fails the run.
//!
//! Corpus format (`tests/redteam/*.corpus`): `## family — what it attacks` starts a family;
//! each case is `DECISION MODE TOOL INPUT`, where DECISION is `allow`, `ask` or `deny` (or
//! `!allow`: anything but allow), MODE is `default`, `acceptEdits`, `plan` or `bypass`, TOOL is
//! the rule name (`Bash`, `Read`, `Write`, `mcp__srv__tool`, …) and INPUT runs to the end of the
//! line (no spaces in TOOL): for Bash the command itself (or JSON arguments when it starts
//! with `{"`), or a JSON string literal when it needs escapes (`"a\nb"`); for the other tools
//! the JSON arguments. A tool name may carry `[ro]` (the tool says it is read-only) or, for
//! MCP tools, `[hints:{…}]`: the server's annotations, read the way the client reads them. `#`
//! starts a comment line.
//!
//! After the corpus, `differential.rs` runs generated and hand-written commands, and
//! `scripts.rs` the commands of bash's own test suite, under real bash (`bash_run.rs`: stub
//! programs, confined) and fail on any program bash ran that the engine let through unjudged.
//! Last, `kernel.rs` runs `kernel.attacks` under the real confinement with no engine in front
//! and fails on any attack whose effect got through.

// A test runner without the harness: printing is its report, and a broken plant is a panic.
#![allow(clippy::expect_used, clippy::print_stdout, clippy::print_stderr, clippy::panic)]

mod bash_run;
mod differential;
mod kernel;
mod scripts;
#[path = "../support/snapshot.rs"]
mod snapshot;
#[path = "../support/visible.rs"]
mod visible;

use mewcode::redteam::{CallInfo, Decision, Engine, Level, Mode, RuleSet, RuleTexts, parse_read_only};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The rules an attacker tries to abuse: broad allow rules a real user writes, and the deny
/// rules that must hold whatever the spelling.
const ALLOW: &[&str] = &[
    "Bash(git *)",
    "Bash(cat *)",
    "Bash(head *)",
    "Bash(tail *)",
    "Bash(wc *)",
    "Bash(ls *)",
    "Bash(echo *)",
    "Bash(printf *)",
    "Bash(grep *)",
    "Bash(rg *)",
    "Bash(find *)",
    "Bash(sed *)",
    "Bash(awk *)",
    "Bash(npm test*)",
    "Bash(npm run *)",
    "Bash(cargo *)",
    "Bash(make *)",
    "Bash(python3 -m pytest*)",
    "Bash(cd *)",
    "Bash(mkdir *)",
    "Bash(touch *)",
    "Bash(cp *)",
    "Bash(mv *)",
    "Bash(tar *)",
    "Bash(read *)",
    "Bash(declare *)",
    "Bash(export *)",
    "Bash(unset *)",
    "Bash(let *)",
    "Bash(mapfile *)",
    "Bash(alias *)",
    "Bash(hash *)",
    "Bash(trap *)",
    "Bash(true)",
    "Bash(timeout *)",
    "Bash(xargs *)",
    "Bash(env *)",
    "Bash(du:*)",
    "Bash(stat*)",
    "Bash(sort *)",
    "Bash(ssh *)",
    "Bash(scp *)",
    "Bash(vim *)",
    "Bash(less *)",
    "Bash(man *)",
    "Bash(go *)",
    "Bash(npx *)",
    "Bash(sqlite3 *)",
    "Bash(wget *)",
    "Bash(test *)",
    "Read(docs/**)",
    "Edit(src/**)",
];
const DENY: &[&str] = &["Bash(rm -rf *)", "Bash(curl *)", "Read(secrets/**)", "Grep(secrets/**)", "Bash(git push *)"];

struct Case {
    family: String,
    line: usize,
    expected: Expected,
    mode: Mode,
    tool: String,
    read_only: bool,
    input: String,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Expected {
    Is(Decision),
    NotAllow,
}

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/redteam");
    let mut cases = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/redteam")
        .map(|entry| entry.expect("entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "corpus"))
        .collect();
    files.sort();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("corpus file");
        match parse(&text) {
            Ok(parsed) => cases.extend(parsed),
            Err(error) => {
                eprintln!("{}: {error}", file.display());
                std::process::exit(2);
            }
        }
    }
    let plant = Plant::new();
    let engine = plant.engine();
    let mut per_family: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut misses = Vec::new();
    for case in &cases {
        let input = if case.tool == "Bash" && !case.input.starts_with("{\"") {
            serde_json::json!({ "command": case.input }).to_string()
        } else {
            case.input.clone()
        };
        let input = input.replace("$ROOT", &plant.root.display().to_string());
        let check = engine.check(case.mode, &CallInfo::named(&case.tool, &input), case.read_only);
        let held = match case.expected {
            Expected::Is(decision) => check.decision == decision,
            Expected::NotAllow => check.decision != Decision::Allow,
        };
        let entry = per_family.entry(case.family.clone()).or_default();
        entry.0 += 1;
        if held {
            entry.1 += 1;
        } else {
            misses.push(format!(
                "  line {}: [{}] {} {} {}\n    expected {:?}, got {} ({}: {})",
                case.line,
                case.family,
                case.mode,
                case.tool,
                case.input,
                case.expected,
                check.decision.as_str(),
                check.layer.as_str(),
                check.reason
            ));
        }
    }
    println!("red-team corpus: {} cases in {} families", cases.len(), per_family.len());
    for (family, (total, held)) in &per_family {
        println!("  {family:<28} {held:>4}/{total:<4}{}", if held == total { "" } else { "  FAILING" });
    }
    let held: usize = per_family.values().map(|(_, held)| held).sum();
    println!("score: {held}/{} held", cases.len());
    // Mutation runs set MEWCODE_REDTEAM_QUICK: the generated commands, not the five thousand real ones.
    let quick = std::env::var_os("MEWCODE_REDTEAM_QUICK").is_some();
    let differential_held =
        differential::run(&plant.root) & (quick || scripts::run(&plant.root)) & (quick || kernel::run());
    if !misses.is_empty() {
        println!("misses:\n{}", misses.join("\n"));
    }
    if !misses.is_empty() || !differential_held {
        drop(engine);
        drop(plant);
        std::process::exit(1);
    }
}

fn parse(text: &str) -> Result<Vec<Case>, String> {
    let mut family = None;
    let mut cases = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line_number = index + 1;
        let line = line.trim_end();
        if line.trim().is_empty() || line.starts_with('#') && !line.starts_with("##") {
            continue;
        }
        if let Some(header) = line.strip_prefix("## ") {
            let name = header.split(" — ").next().unwrap_or(header).trim();
            family = Some(name.to_string());
            continue;
        }
        let family = family.clone().ok_or(format!("line {line_number}: a case before the first `## family`"))?;
        let mut parts = line.splitn(4, ' ');
        let (Some(expected), Some(mode), Some(tool), Some(input)) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(format!("line {line_number}: expected `DECISION MODE TOOL INPUT`"));
        };
        let expected = match expected {
            "allow" => Expected::Is(Decision::Allow),
            "ask" => Expected::Is(Decision::Ask),
            "deny" => Expected::Is(Decision::Deny),
            "!allow" => Expected::NotAllow,
            other => return Err(format!("line {line_number}: unknown decision {other}")),
        };
        let mode = Mode::parse(mode).ok_or(format!("line {line_number}: unknown mode {mode}"))?;
        let (tool, read_only) = match (tool.strip_suffix("[ro]"), tool.split_once("[hints:")) {
            (Some(tool), _) => (tool.to_string(), true),
            (None, Some((tool, hints))) => {
                let hints = hints.strip_suffix(']').unwrap_or(hints);
                let hints: serde_json::Value =
                    serde_json::from_str(hints).map_err(|error| format!("line {line_number}: hints: {error}"))?;
                (tool.to_string(), parse_read_only(Some(&hints)))
            }
            (None, None) => (tool.to_string(), false),
        };
        let input = if input.starts_with('"') {
            serde_json::from_str::<String>(input).map_err(|error| format!("line {line_number}: {error}"))?
        } else {
            input.to_string()
        };
        cases.push(Case { family, line: line_number, expected, mode, tool, read_only, input });
    }
    Ok(cases)
}

/// The planted project and home, removed on drop.
struct Plant {
    base: PathBuf,
    root: PathBuf,
    home: PathBuf,
}

impl Plant {
    fn new() -> Plant {
        // Not under /tmp: the sandbox's view gives commands a private /tmp, where the stubs would vanish.
        let base = visible::visible_base(std::path::Path::new(env!("CARGO_TARGET_TMPDIR")))
            .join(format!("mewcode-redteam-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let root = base.join("project");
        let home = base.join("home");
        for dir in
            ["src", "docs", "secrets", "sub/deeper", ".git/hooks", ".husky", ".vscode", "build", "node_modules/x"]
        {
            std::fs::create_dir_all(root.join(dir)).expect("plant dir");
        }
        std::fs::create_dir_all(home.join(".ssh")).expect("plant home");
        let files = [
            ".env",
            ".env.local",
            ".netrc",
            "AGENTS.md",
            "README.md",
            "Makefile",
            "package.json",
            "src/main.rs",
            "src/lib.rs",
            "docs/guide.md",
            "secrets/token.txt",
            "sub/server.key",
            "sub/deeper/id_rsa",
            "sub/notes.txt",
            ".git/config",
            ".git/HEAD",
            ".husky/pre-commit",
            ".vscode/tasks.json",
            ".vscode/launch.json",
        ];
        for file in files {
            std::fs::write(root.join(file), "planted\n").expect("plant file");
        }
        std::fs::write(home.join(".ssh/id_ed25519"), "PRIVATE KEY\n").expect("plant key");
        let links: [(&Path, &str); 5] = [
            (&home.join(".ssh/id_ed25519"), "src/fixture.txt"),
            (Path::new(".env"), "notes"),
            (Path::new("/etc"), "etc_link"),
            (Path::new(".git"), "innocent"),
            (Path::new("../secrets"), "docs/more"),
        ];
        for (target, link) in links {
            std::os::unix::fs::symlink(target, root.join(link)).expect("plant link");
        }
        let root = std::fs::canonicalize(&root).expect("canonical root");
        Plant { base, root, home }
    }

    fn engine(&self) -> Engine {
        let texts = RuleTexts {
            allow: ALLOW.iter().map(|rule| rule.to_string()).collect(),
            ask: Vec::new(),
            deny: DENY.iter().map(|rule| rule.to_string()).collect(),
        };
        let (set, problems) = RuleSet::from_texts(vec![(Level::User, texts)]);
        assert!(problems.iter().all(|problem| !problem.is_fatal()), "corpus rules: {problems:?}");
        Engine::new(self.root.clone(), Some(self.home.clone()), set)
    }
}

impl Drop for Plant {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.base);
    }
}
