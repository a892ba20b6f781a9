//! Peeling wrapper programs (`sudo`, `env`, `timeout`, `xargs`, …) off a command's words, and
//! spotting arguments that make an otherwise harmless program run other programs.
//!
//! Invariant: unwrapping never drops the effective command — an option we do not know is
//! taken as the end of the wrapper's options, so at worst a flag is mistaken for the program
//! (a rule then fails to match and the call asks), never the other way round. Both functions
//! are pure over the word list; they do not look at the filesystem or `PATH`. Which options of
//! git, the package managers and cargo run code is the reviewed table in `runners.rs`.

use super::runners::{self, ProjectDir};

/// A command with its wrappers peeled off.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Effective {
    /// The words of the command that actually runs (program first, as written).
    pub words: Vec<String>,
    /// The basenames of the wrappers peeled off, outermost first (`["sudo", "timeout"]`).
    pub wrappers: Vec<String>,
    /// `NAME=value` words given to `env`.
    pub assignments: Vec<String>,
    /// Shell reserved words peeled off the front (`if`, `then`, `!`, …).
    pub reserved: Vec<String>,
    /// Command lines a wrapper will split and run itself (`env -S '…'`).
    pub scripts: Vec<String>,
}

/// Wrappers that change neither who runs the command nor what it is: a rule written for the
/// inner command may allow the wrapped one.
pub(crate) const BENIGN_WRAPPERS: &[&str] = &["timeout", "nice", "nohup", "time", "command", "stdbuf", "builtin"];

/// Shells: a `-c` argument or their stdin is a script.
pub(crate) const SHELLS: &[&str] = &[
    "sh", "bash", "rbash", "zsh", "dash", "ksh", "mksh", "oksh", "pdksh", "ash", "yash", "posh", "fish", "csh", "tcsh",
    "elvish", "nu", "xonsh", "busybox",
];

/// The program's name as bash would look it up: the basename of `/bin/rm`, `./rm`.
pub fn program_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// How a wrapper's options are spelled.
struct Spec {
    name: &'static str,
    /// Short options that take an argument (`-u user`, `-uuser`).
    short_with_arg: &'static str,
    /// Long options that take an argument when written without `=`.
    long_with_arg: &'static [&'static str],
    /// Positional arguments before the command (`timeout DURATION cmd`).
    positional: usize,
    /// `-10` style numeric options (`nice -10 cmd`).
    numeric_flags: bool,
}

const SPECS: &[Spec] = &[
    Spec {
        name: "sudo",
        short_with_arg: "ugpChDrtUTR",
        long_with_arg: &[
            "--user",
            "--group",
            "--host",
            "--prompt",
            "--close-from",
            "--chdir",
            "--role",
            "--type",
            "--other-user",
            "--command-timeout",
        ],
        positional: 0,
        numeric_flags: false,
    },
    Spec { name: "doas", short_with_arg: "uC", long_with_arg: &[], positional: 0, numeric_flags: false },
    Spec {
        name: "env",
        short_with_arg: "uCS",
        long_with_arg: &["--unset", "--chdir", "--split-string"],
        positional: 0,
        numeric_flags: false,
    },
    Spec {
        name: "timeout",
        short_with_arg: "sk",
        long_with_arg: &["--signal", "--kill-after"],
        positional: 1,
        numeric_flags: false,
    },
    Spec { name: "nice", short_with_arg: "n", long_with_arg: &["--adjustment"], positional: 0, numeric_flags: true },
    Spec { name: "nohup", short_with_arg: "", long_with_arg: &[], positional: 0, numeric_flags: false },
    Spec {
        name: "xargs",
        short_with_arg: "ILnPsdEa",
        long_with_arg: &[
            "--arg-file",
            "--delimiter",
            "--max-lines",
            "--max-args",
            "--max-procs",
            "--max-chars",
            "--process-slot-var",
        ],
        positional: 0,
        numeric_flags: false,
    },
    Spec { name: "command", short_with_arg: "", long_with_arg: &[], positional: 0, numeric_flags: false },
    Spec { name: "builtin", short_with_arg: "", long_with_arg: &[], positional: 0, numeric_flags: false },
    Spec { name: "exec", short_with_arg: "a", long_with_arg: &[], positional: 0, numeric_flags: false },
    Spec {
        name: "time",
        short_with_arg: "fo",
        long_with_arg: &["--format", "--output"],
        positional: 0,
        numeric_flags: false,
    },
    Spec {
        name: "stdbuf",
        short_with_arg: "ioe",
        long_with_arg: &["--input", "--output", "--error"],
        positional: 0,
        numeric_flags: false,
    },
    Spec { name: "setsid", short_with_arg: "", long_with_arg: &[], positional: 0, numeric_flags: false },
    Spec { name: "ionice", short_with_arg: "cnp", long_with_arg: &[], positional: 0, numeric_flags: false },
    Spec { name: "busybox", short_with_arg: "", long_with_arg: &[], positional: 0, numeric_flags: false },
];

/// Reserved words that may precede a command in a simple command as the splitter sees it.
const RESERVED: &[&str] = &["!", "if", "then", "else", "elif", "while", "until", "do"];

/// Peels reserved words and wrappers until the program that runs is first; repeats, so
/// `sudo env FOO=1 timeout 5 nice -n 5 rm` becomes `rm`.
pub fn unwrap_command(words: &[String]) -> Effective {
    let mut effective = Effective::default();
    let mut index = 0;
    while let Some(word) = words.get(index) {
        if RESERVED.contains(&word.as_str()) {
            effective.reserved.push(word.clone());
            index += 1;
            continue;
        }
        let name = program_name(word);
        // `busybox sh` is `sh`, but `busybox` alone is not a wrapper of anything.
        let Some(spec) = SPECS.iter().find(|spec| spec.name == name) else { break };
        effective.wrappers.push(name.to_string());
        index = skip_options(words, index + 1, spec, &mut effective);
        if spec.name == "env" {
            while words.get(index).is_some_and(|word| looks_like_assignment(word)) {
                effective.assignments.push(words[index].clone());
                index += 1;
            }
        }
    }
    effective.words = words.get(index..).unwrap_or_default().to_vec();
    effective
}

fn looks_like_assignment(word: &str) -> bool {
    word.split_once('=')
        .is_some_and(|(name, _)| !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
}

/// Skips a wrapper's options and positional arguments; returns the index of its command.
fn skip_options(words: &[String], mut index: usize, spec: &Spec, effective: &mut Effective) -> usize {
    while let Some(word) = words.get(index) {
        if word == "--" {
            index += 1;
            break;
        }
        if spec.numeric_flags
            && word
                .strip_prefix('-')
                .is_some_and(|digits| !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()))
        {
            index += 1;
            continue;
        }
        if let Some(long) = word.strip_prefix("--").filter(|long| !long.is_empty()) {
            let (name, value) = match long.split_once('=') {
                Some((name, value)) => (format!("--{name}"), Some(value.to_string())),
                None => (word.clone(), None),
            };
            let takes_arg = spec.long_with_arg.contains(&name.as_str());
            let value = if takes_arg && value.is_none() { words.get(index + 1).cloned() } else { value };
            if name == "--split-string" {
                effective.scripts.extend(value);
            }
            index += if takes_arg && !word.contains('=') { 2 } else { 1 };
            continue;
        }
        if word.len() > 1 && word.starts_with('-') {
            index += 1;
            for (offset, c) in word.char_indices().skip(1) {
                if spec.short_with_arg.contains(c) {
                    let attached = &word[offset + c.len_utf8()..];
                    let value = if attached.is_empty() {
                        index += 1;
                        words.get(index - 1).cloned()
                    } else {
                        Some(attached.to_string())
                    };
                    if spec.name == "env" && c == 'S' {
                        effective.scripts.extend(value);
                    }
                    break;
                }
            }
            continue;
        }
        break;
    }
    (index + spec.positional).min(words.len())
}

/// Why running these (already unwrapped) words may execute a program other than the one
/// named, or `None`. Such commands are allowed only by an `=exact` rule, never by a glob.
/// `project_dir` tells whether a directory argument (`git -C DIR`) names the project itself.
pub(crate) fn exec_risk(effective: &Effective, project_dir: ProjectDir<'_>) -> Option<&'static str> {
    for wrapper in &effective.wrappers {
        match wrapper.as_str() {
            "sudo" | "doas" => return Some("runs as another user"),
            "xargs" => return Some("xargs runs commands built from its input"),
            _ => {}
        }
    }
    if !effective.scripts.is_empty() {
        return Some("env -S runs a command line");
    }
    let words = &effective.words;
    let program = program_name(words.first().map(String::as_str).unwrap_or_default());
    let args = words.get(1..).unwrap_or_default();
    let has = |flags: &[&str]| {
        args.iter().any(|arg| flags.iter().any(|flag| arg == flag || arg.starts_with(&format!("{flag}="))))
    };
    let short_cluster = |letter: char| args.iter().any(|arg| is_short_cluster_with(arg, letter));
    if let Some(why) = runners::program_option_risk(program, args) {
        return Some(why);
    }
    match program {
        "eval" | "source" | "." => Some("runs a script"),
        shell if SHELLS.contains(&shell) => {
            let operands = args.iter().filter(|arg| !arg.starts_with('-')).count();
            if short_cluster('c') {
                Some("runs a shell script given with -c")
            } else if operands == 0 {
                Some("runs a shell script read from stdin")
            } else {
                None
            }
        }
        "git" => runners::git_risk(args, project_dir),
        helper if helper.strip_prefix("git-").is_some_and(runners::is_credential_command) => {
            Some("git credential runs credential helpers and prints stored passwords")
        }
        "npm" | "npx" | "pnpm" | "pnpx" | "yarn" => runners::package_manager_risk(program, args, project_dir),
        "cargo" => runners::cargo_risk(args, project_dir),
        "sed" | "gsed" => sed_risk(args),
        "awk" | "gawk" | "mawk" | "nawk" => awk_risk(args),
        "make" | "gmake" => args
            .iter()
            .any(|arg| ["SHELL=", ".SHELLFLAGS=", "MAKESHELL="].iter().any(|var| arg.starts_with(var)))
            .then_some("make runs recipes given on the command line or another shell"),
        interpreter if is_interpreter(interpreter) => (has(&[
            "-c",
            "-e",
            "-E",
            "-r",
            "--eval",
            "-p",
            "--print",
            "--require",
            "--import",
            "--loader",
            "--experimental-loader",
            "--preload",
        ]) || short_cluster('e'))
        .then_some("runs inline code"),
        _ => None,
    }
}

/// Programs that run code given as text (`-c`/`-e`, stdin, a script file): `python3.12`,
/// `perl`, `node`, …, version suffixes ignored.
pub(crate) fn is_interpreter(program: &str) -> bool {
    let base = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    matches!(
        base,
        "python"
            | "pypy"
            | "perl"
            | "ruby"
            | "irb"
            | "node"
            | "nodejs"
            | "php"
            | "lua"
            | "luajit"
            | "deno"
            | "bun"
            | "tclsh"
            | "wish"
            | "expect"
            | "Rscript"
            | "pwsh"
            | "powershell"
            | "osascript"
            | "jshell"
            | "groovy"
    )
}

/// `-xyz` containing `letter` (not `--long`).
fn is_short_cluster_with(arg: &str, letter: char) -> bool {
    arg.len() > 1 && arg.starts_with('-') && !arg.starts_with("--") && arg[1..].contains(letter)
}

/// sed's `e` command and `s///e` run commands; `w`/`W` and `s///w` write files. A script from
/// a file (`-f`) cannot be inspected, so it counts as risky.
fn sed_risk(args: &[String]) -> Option<&'static str> {
    let mut scripts = Vec::new();
    let mut index = 0;
    let mut explicit = false;
    while let Some(arg) = args.get(index) {
        if arg == "-e" || arg == "--expression" {
            scripts.extend(args.get(index + 1).cloned());
            explicit = true;
            index += 2;
            continue;
        }
        if let Some(script) = arg.strip_prefix("--expression=") {
            scripts.push(script.to_string());
            explicit = true;
        } else if arg == "-f" || arg.starts_with("--file") || (is_short_cluster_with(arg, 'f') && !arg.contains('e')) {
            return Some("sed runs a script file");
        } else if !arg.starts_with('-') && !explicit && scripts.is_empty() {
            scripts.push(arg.clone());
        }
        index += 1;
    }
    scripts
        .iter()
        .any(|script| super::sed::script_runs_or_writes(script))
        .then_some("sed script can run commands or write files")
}

fn awk_risk(args: &[String]) -> Option<&'static str> {
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        if ["-f", "-i", "-E", "--file", "--include", "--exec", "-l", "--load"].contains(&arg.as_str()) {
            return Some("awk runs a program file");
        }
        if arg == "-F" || arg == "-v" {
            index += 2;
            continue;
        }
        if !arg.starts_with('-') {
            let program = arg.as_str();
            // `print > "file"` writes anywhere; a comparison `$1 > 5` is caught too (over-approximate).
            return (program.contains("system") || program.contains('|') || program.contains("@load"))
                .then_some("awk program can run commands")
                .or(program.contains('>').then_some("awk program can write files"));
        }
        index += 1;
    }
    None
}

#[cfg(test)]
#[path = "wrappers_tests.rs"]
mod tests;
