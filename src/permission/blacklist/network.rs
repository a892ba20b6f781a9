//! The network-data family of the blacklist: bytes read from the network reaching anything that
//! runs them. It follows data, not spellings: a **source** is any command that reads the network
//! (a download or network client — curl, wget, fetch, aria2c, httpie, text browsers, nc, ncat,
//! socat, ssh, gh, `openssl s_client`, `git archive --remote` — or a read of bash's
//! `/dev/tcp/…`/`/dev/udp/…`, directly or through a descriptor opened on one, `exec
//! 3<>/dev/tcp/…; … <&3`); what a source prints taints every stage downstream of it (pipes,
//! groups and loops piped into, `$(cat)` reading the same stdin, variables filled by `read`). A
//! **sink** is a command that runs its standard input or an argument built from it: a shell or
//! interpreter reading its script from stdin (no script operand, `-s`, `-`, `/dev/stdin`,
//! `/dev/fd/0`), `source`/`.` of such a path, a `-c` script or inline code that evaluates its
//! input, `xargs`/`parallel` starting a shell or a command named by the input, awk programs that
//! run commands, sed's `e`, `at`, `batch`, `crontab -`, `su`, `make -f -`, `ex`/`vim -es`, and
//! `socat …exec:`/`nc -e` wiring a program to a socket.
//!
//! Invariant: taint only spreads (a stage that reads network data prints network data), so a
//! filter in between (`| tee log |`, `| tar -xO |`) never launders it; a program that reads its
//! code from a named file or module (`python3 parse.py`, `python3 -m json.tool`, `bash build.sh`)
//! treats stdin as data and is not a sink. Saving a download and running it later is
//! `staged.rs`'s; a script already on disk that reads stdin is a blind spot.

use super::MaybeMatch;
use super::structure::Structure;
use crate::command::sed;
use crate::command::wrappers::{self, Effective, SHELLS, is_interpreter};
use crate::shell::{Nesting, ParsedCommand, RedirectOp, SimpleCommand};
use regex::Regex;
use std::collections::BTreeSet;
use std::sync::LazyLock;

/// The value recorded for a variable filled from the network (`read line` fed by curl): a
/// substitution of a download, so every check that spots `$(curl …)` spots the variable too.
pub(super) const NETWORK_VALUE: &str = "$(curl network-data)";

/// How many passes the flow is given to settle (each pass only turns flags on).
const MAX_PASSES: usize = 16;

/// Which commands of one parsed script read or print network data.
#[derive(Clone, Debug, Default)]
pub(super) struct Flow {
    /// Per subcommand: its standard input carries network data.
    pub(super) stdin: Vec<bool>,
    /// Per subcommand: its output carries network data.
    output: Vec<bool>,
    /// Descriptors the script opened on a network socket (`exec 3<>/dev/tcp/h/80`).
    network_fds: BTreeSet<u32>,
}

/// Follows network data through `parsed`; `inherited` says the script's own stdin is network
/// data (a `bash -c` script fed by a download).
pub(super) fn read_flow(parsed: &ParsedCommand, structure: &Structure, inherited: bool) -> Flow {
    let commands = &parsed.subcommands;
    let count = commands.len();
    let mut flow = Flow { stdin: vec![false; count], output: vec![false; count], network_fds: BTreeSet::new() };
    for command in commands {
        if command.words.iter().map(String::as_str).eq(["exec"]) {
            for redirect in &command.redirections {
                if let Some(fd) = redirect.fd
                    && redirect.op.names_file()
                    && is_network_path(&redirect.target)
                {
                    flow.network_fds.insert(fd);
                }
            }
        }
    }
    let parents: Vec<Option<usize>> = (0..count).map(|index| parent(commands, index)).collect();
    for _ in 0..MAX_PASSES {
        let mut changed = false;
        for index in 0..count {
            let stdin = flow.stdin[index] || stdin_is_network(&flow, commands, structure, &parents, index, inherited);
            let output = flow.output[index]
                || stdin
                || is_source(&commands[index])
                || !tainted_substitutions(&flow, commands, index).is_empty();
            changed |= stdin != flow.stdin[index] || output != flow.output[index];
            flow.stdin[index] = stdin;
            flow.output[index] = output;
        }
        if !changed {
            break;
        }
    }
    flow
}

/// The smallest command whose span holds a substitution's command.
fn parent(commands: &[SimpleCommand], index: usize) -> Option<usize> {
    let command = &commands[index];
    if command.context == Nesting::Script {
        return None;
    }
    commands
        .iter()
        .enumerate()
        .filter(|(other, outer)| {
            *other != index
                && outer.span.start <= command.span.start
                && command.span.end <= outer.span.end
                && outer.span != command.span
        })
        .min_by_key(|(_, outer)| outer.span.len())
        .map(|(other, _)| other)
}

fn stdin_is_network(
    flow: &Flow,
    commands: &[SimpleCommand],
    structure: &Structure,
    parents: &[Option<usize>],
    index: usize,
    inherited: bool,
) -> bool {
    let command = &commands[index];
    // Descriptors this command itself points at a socket (`>& /dev/tcp/h/80` is 1 and 2).
    let mut local_fds = flow.network_fds.clone();
    let mut redirected = false;
    for redirect in &command.redirections {
        let fd = redirect.fd;
        match redirect.op {
            RedirectOp::Read | RedirectOp::ReadWrite if fd.is_none_or(|fd| fd == 0) => {
                if is_network_path(&redirect.target) || names_tainted(flow, commands, index, &redirect.target) {
                    return true;
                }
                redirected = true;
            }
            RedirectOp::Dup
                if fd == Some(0) || fd.is_none() && command.raw.contains(&format!("<&{}", redirect.target)) =>
            {
                if redirect.target.parse::<u32>().is_ok_and(|source| local_fds.contains(&source)) {
                    return true;
                }
                redirected = true;
            }
            RedirectOp::HereDoc { .. } | RedirectOp::HereString if fd.is_none_or(|fd| fd == 0) => {
                if names_tainted(flow, commands, index, &redirect.target) {
                    return true;
                }
                redirected = true;
            }
            op if is_network_path(&redirect.target) && op.names_file() => match (op, fd) {
                (RedirectOp::WriteBoth | RedirectOp::AppendBoth, _) => local_fds.extend([1, 2]),
                (_, Some(fd)) => {
                    local_fds.insert(fd);
                }
                (_, None) => {
                    local_fds.insert(1);
                }
            },
            _ => {}
        }
    }
    if redirected {
        return false;
    }
    if let Some(upstream) = command.pipe_input_from {
        return flow.output.get(upstream).copied().unwrap_or(false);
    }
    let piped = structure
        .piped_from
        .get(index)
        .into_iter()
        .flatten()
        .chain(&structure.group_input(index))
        .copied()
        .collect::<Vec<_>>();
    if piped.iter().any(|upstream| flow.output.get(*upstream).copied().unwrap_or(false)) {
        return true;
    }
    match parents.get(index).copied().flatten() {
        Some(parent) => flow.stdin.get(parent).copied().unwrap_or(false),
        None => inherited && piped.is_empty(),
    }
}

/// The raw texts of the substitutions inside command `index` whose output is network data.
fn tainted_substitutions<'a>(flow: &Flow, commands: &'a [SimpleCommand], index: usize) -> Vec<&'a str> {
    let command = &commands[index];
    commands
        .iter()
        .enumerate()
        .filter(|(other, inner)| {
            *other != index
                && inner.context != Nesting::Script
                && flow.output.get(*other).copied().unwrap_or(false)
                && command.span.start <= inner.span.start
                && inner.span.end <= command.span.end
                && !inner.raw.trim().is_empty()
        })
        .map(|(_, inner)| inner.raw.as_str())
        .collect()
}

/// `text` (a word or a redirect target of command `index`) holds a substitution whose output is
/// network data, or reads the network itself.
fn names_tainted(flow: &Flow, commands: &[SimpleCommand], index: usize, text: &str) -> bool {
    is_network_path(text) || tainted_substitutions(flow, commands, index).iter().any(|raw| text.contains(raw))
}

/// bash's `/dev/tcp/HOST/PORT` and `/dev/udp/…`.
pub(super) fn is_network_path(text: &str) -> bool {
    text.contains("/dev/tcp/") || text.contains("/dev/udp/")
}

/// Programs whose output is whatever a remote host sent.
const NETWORK_CLIENTS: &[&str] = &[
    "curl",
    "curlie",
    "wget",
    "wget2",
    "fetch",
    "aria2c",
    "axel",
    "http",
    "https",
    "xh",
    "httpie",
    "lwp-request",
    "lwp-download",
    "GET",
    "HEAD",
    "POST",
    "nc",
    "ncat",
    "netcat",
    "socat",
    "ftp",
    "tftp",
    "sftp",
    "lynx",
    "links",
    "elinks",
    "w3m",
    "ssh",
    "gh",
    "s3cmd",
    "gsutil",
];

/// A command that reads the network and prints what it read.
fn is_source(command: &SimpleCommand) -> bool {
    let words = wrappers::unwrap_command(&command.words).words;
    let Some(program) = words.first().map(|word| wrappers::program_name(word)) else { return false };
    let args = &words[1..];
    let has = |name: &str| args.iter().any(|arg| arg == name || arg.starts_with(&format!("{name}=")));
    NETWORK_CLIENTS.contains(&program)
        || (program == "openssl" && args.first().is_some_and(|sub| sub == "s_client" || sub == "s_time"))
        || (program == "git" && args.iter().any(|arg| arg == "archive") && has("--remote"))
        || (matches!(program, "scp" | "rsync")
            && args.iter().any(|arg| matches!(arg.as_str(), "-" | "/dev/stdout" | "/dev/fd/1")))
        || args.iter().any(|arg| is_network_path(arg))
}

/// A path that reads the script's standard input.
fn is_stdin_path(word: &str) -> bool {
    matches!(word, "-" | "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0" | "/proc/$$/fd/0" | "/proc/${$}/fd/0")
}

/// What a command executes, judged against the flow: `Some(reason)` when network data reaches
/// something that runs it. `effective` is the command with its wrappers peeled.
pub(super) fn runs_network_data(flow: &Flow, commands: &[SimpleCommand], index: usize, effective: &Effective) -> bool {
    let command = &commands[index];
    let fed = flow.stdin.get(index).copied().unwrap_or(false);
    let network_fds = &flow.network_fds;
    let network_word = |word: &str| {
        names_tainted(flow, commands, index, word)
            || word
                .strip_prefix("/dev/fd/")
                .or_else(|| word.strip_prefix("/proc/self/fd/"))
                .is_some_and(|fd| fd.parse::<u32>().is_ok_and(|fd| network_fds.contains(&fd)))
    };
    // A file the program reads as code: the network, or stdin when stdin is network data.
    let code_file = |word: &str| network_word(word) || (fed && is_stdin_path(word));
    let words = &effective.words;
    let Some(program_word) = words.first() else {
        // `curl … | sudo -s`: a wrapper that starts a shell when given no command.
        return fed && effective.wrappers.iter().any(|wrapper| matches!(wrapper.as_str(), "sudo" | "doas"));
    };
    if network_word(program_word) {
        return true;
    }
    let program = wrappers::program_name(program_word);
    let args = &words[1..];
    if fed && effective.wrappers.iter().any(|wrapper| wrapper == "xargs") {
        // xargs builds command lines from its input: a shell or interpreter given them, or a
        // command named by them, runs network data.
        let replace = xargs_replace_token(&command.words);
        if runs_code(program) || replace.is_some_and(|token| program_word.contains(&token)) {
            return true;
        }
    }
    if program == "parallel" && fed {
        let command_words = parallel_command(args);
        return command_words
            .first()
            .is_none_or(|first| runs_code(wrappers::program_name(first)) || first.contains("{}"));
    }
    let short = |letter: char| args.iter().any(|arg| is_short_cluster_with(arg, letter));
    let option_value = |names: &[&str]| {
        args.iter().enumerate().find_map(|(position, arg)| {
            names.iter().find_map(|name| {
                if arg == name {
                    args.get(position + 1).map(String::as_str)
                } else {
                    arg.strip_prefix(&format!("{name}=")).or_else(|| {
                        (name.len() == 2 && !name.starts_with("--"))
                            .then(|| arg.strip_prefix(name))
                            .flatten()
                            .filter(|rest| !rest.is_empty())
                    })
                }
            })
        })
    };
    if SHELLS.contains(&program) || is_interpreter(program) {
        let code = if SHELLS.contains(&program) {
            short('c').then(|| dash_c_script(args)).flatten()
        } else {
            inline_code(args)
        };
        if let Some(code) = code {
            return network_word(code) || (fed && executes_input(code));
        }
        if !SHELLS.contains(&program) && option_value(&["-m"]).is_some() {
            return false;
        }
        let operand = script_operand(args);
        return match operand {
            None => fed,
            Some(_) if SHELLS.contains(&program) && short('s') => fed,
            Some(word) => code_file(word),
        };
    }
    match program {
        "source" | "." => args.iter().find(|arg| *arg != "--").is_some_and(|file| code_file(file)),
        "eval" => args.iter().any(|arg| network_word(arg)),
        "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk" => {
            if let Some(file) = option_value(&["-f", "--file"]) {
                return code_file(file);
            }
            let program_text = args.iter().find(|arg| !arg.starts_with('-'));
            program_text.is_some_and(|text| network_word(text) || (fed && AWK_RUNS.is_match(text)))
        }
        "sed" | "gsed" => {
            if let Some(file) = option_value(&["-f", "--file"]) {
                return code_file(file);
            }
            let scripts: Vec<&str> = match option_value(&["-e", "--expression"]) {
                Some(script) => vec![script],
                None => args.iter().find(|arg| !arg.starts_with('-')).map(String::as_str).into_iter().collect(),
            };
            scripts.iter().any(|script| network_word(script) || (fed && sed::script_runs(script)))
        }
        // They read the commands to run (or to install) from stdin.
        "at" | "batch" => option_value(&["-f"]).map_or(fed, code_file),
        "crontab" => {
            let operands: Vec<&String> = args.iter().filter(|arg| !arg.starts_with('-') || *arg == "-").collect();
            let lists_or_removes = short('l') || short('r') || short('e');
            operands.first().map_or(fed && !lists_or_removes, |file| code_file(file))
        }
        "su" | "runuser" => option_value(&["-c", "--command"]).map_or(fed, network_word),
        "make" | "gmake" | "bmake" => option_value(&["-f", "--file", "--makefile"]).is_some_and(code_file),
        "gdb" => option_value(&["-x", "--command"]).is_some_and(code_file),
        "ex" => fed,
        "vi" | "vim" | "nvim" => {
            (fed && (short('e') || short('E'))) || option_value(&["-s", "-S"]).is_some_and(code_file)
        }
        // A program wired to a socket: the socket's data is its input, or its code.
        "socat" => {
            let lower: Vec<String> = args.iter().map(|arg| arg.to_ascii_lowercase()).collect();
            lower.iter().any(|arg| arg.starts_with("exec:") || arg.starts_with("system:"))
                && (fed || lower.iter().any(|arg| SOCKET_ADDRESS.iter().any(|prefix| arg.starts_with(prefix))))
        }
        "nc" | "ncat" | "netcat" => {
            args.iter().any(|arg| matches!(arg.as_str(), "-e" | "-c" | "--exec" | "--sh-exec" | "--lua-exec"))
                || args.iter().any(|arg| {
                    is_short_cluster_with(arg, 'e') || arg.starts_with("--exec=") || arg.starts_with("--sh-exec=")
                })
        }
        _ => false,
    }
}

/// True unless a shell or interpreter is told where its code is (`-c`/`-e` code, `-m module`, a
/// script operand other than stdin): only then is what it reads on stdin data, not code.
pub(super) fn takes_code_from_stdin(program: &str, args: &[String]) -> bool {
    let shell = SHELLS.contains(&program);
    if !shell && !is_interpreter(program) {
        return true;
    }
    let short = |letter: char| args.iter().any(|arg| is_short_cluster_with(arg, letter));
    let code = if shell { short('c').then(|| dash_c_script(args)).flatten() } else { inline_code(args) };
    if code.is_some() || (!shell && args.iter().any(|arg| arg == "-m" || (arg.starts_with("-m") && arg.len() > 2))) {
        return false;
    }
    match script_operand(args) {
        None => true,
        Some(_) if shell && short('s') => true,
        Some(word) => is_stdin_path(word),
    }
}

/// socat address types that talk to the network.
const SOCKET_ADDRESS: &[&str] = &["tcp", "udp", "ssl:", "openssl", "sctp", "socks", "proxy:", "dccp"];

/// Programs that run text they are given as code.
fn runs_code(program: &str) -> bool {
    SHELLS.contains(&program)
        || is_interpreter(program)
        || matches!(program, "eval" | "source" | "." | "awk" | "gawk" | "sed")
}

/// `-abc` containing `letter`, not `--long`.
fn is_short_cluster_with(arg: &str, letter: char) -> bool {
    arg.len() > 1 && arg.starts_with('-') && !arg.starts_with("--") && arg[1..].contains(letter)
}

/// The script of `sh -c SCRIPT` (the first operand after the options).
fn dash_c_script(args: &[String]) -> Option<&str> {
    let position = args.iter().position(|arg| is_short_cluster_with(arg, 'c'))?;
    args[position + 1..].iter().find(|arg| !arg.starts_with('-')).map(String::as_str)
}

/// Inline code given to an interpreter (`-c`, `-e`, `-E`, `-r`, `--eval`, `-p`, `--print`).
fn inline_code(args: &[String]) -> Option<&str> {
    let position = args.iter().position(|arg| {
        matches!(arg.as_str(), "-c" | "-e" | "-E" | "-r" | "--eval" | "-p" | "--print")
            || (is_short_cluster_with(arg, 'e') && !arg.contains('='))
    })?;
    args.get(position + 1).map(String::as_str)
}

/// Options of shells and interpreters that take the next word as their value.
const VALUE_OPTIONS: &[&str] =
    &["-o", "-O", "+o", "+O", "--rcfile", "--init-file", "-W", "-X", "-I", "-r", "--require", "-M", "--import", "-x"];

/// The script file a shell or interpreter runs: its first operand after the options.
fn script_operand(args: &[String]) -> Option<&str> {
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        if arg == "--" {
            return args.get(index + 1).map(String::as_str);
        }
        // `deno run -`, `bun run -`: the script follows the subcommand.
        if arg == "run" && args.get(index + 1).is_some() {
            index += 1;
            continue;
        }
        if arg == "-" || !arg.starts_with(['-', '+']) {
            return Some(arg);
        }
        index += if VALUE_OPTIONS.contains(&arg.as_str()) { 2 } else { 1 };
    }
    None
}

/// The word xargs replaces with each input item (`-I X`, `-IX`, `--replace=X`, `-i` is `{}`).
fn xargs_replace_token(words: &[String]) -> Option<String> {
    words.iter().enumerate().find_map(|(index, word)| {
        if word == "-I" {
            words.get(index + 1).cloned()
        } else if let Some(token) = word.strip_prefix("--replace=").or_else(|| word.strip_prefix("-I")) {
            Some(if token.is_empty() { "{}".to_string() } else { token.to_string() })
        } else if word == "-i" || word == "--replace" {
            Some("{}".to_string())
        } else {
            word.strip_prefix("-i").filter(|token| !token.is_empty()).map(str::to_string)
        }
    })
}

/// The command GNU parallel runs for each input line (empty: the line itself is the command).
fn parallel_command(args: &[String]) -> &[String] {
    const TAKES_VALUE: &[&str] = &[
        "-j",
        "-P",
        "-n",
        "-N",
        "-S",
        "-a",
        "-I",
        "-d",
        "-L",
        "--jobs",
        "--max-procs",
        "--colsep",
        "--delimiter",
        "--joblog",
        "--results",
        "--tmpdir",
        "--arg-file",
    ];
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        if arg == ":::" || arg == "::::" {
            return &[];
        }
        if !arg.starts_with('-') {
            let end =
                args[index..].iter().position(|word| word.starts_with(":::")).map_or(args.len(), |end| index + end);
            return &args[index..end];
        }
        index += if TAKES_VALUE.contains(&arg.as_str()) { 2 } else { 1 };
    }
    &[]
}

/// awk programs that run commands: `system(…)`, `print | "cmd"`, `"cmd" | getline`.
static AWK_RUNS: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"\bsystem\s*\(|\||\|&").ok());

/// Inline code that evaluates or runs what it reads: an eval/exec/system primitive next to a
/// read of standard input (or Perl's `-n`/`-p` line, `$_`).
fn executes_input(code: &str) -> bool {
    static EXECUTES: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(concat!(
            r"\b(?:exec|eval|system|popen|Popen|spawn|spawnSync|execSync|execFileSync|check_output|check_call",
            r"|subprocess|qx|instance_eval|class_eval|compile|runpy|Function|vm\.run\w*)\b|`",
        ))
        .ok()
    });
    static READS_INPUT: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(concat!(
            r"\bstdin\b|\bSTDIN\b|<>|\$_|\bARGF\b|\bgets\b|\binput\s*\(|\breadline|\bfileinput\b|\$stdin",
            r"|readFileSync\(\s*(?:0|['\x22]/dev/stdin)|php://stdin|\bfgets\b",
        ))
        .ok()
    });
    EXECUTES.is_match(code) && READS_INPUT.is_match(code)
}
