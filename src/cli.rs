//! The command-line contract of SPEC §1.1, parsed by hand into a closed `Command` value.
//!
//! Invariant: pure (argument strings in, a value or a one-line usage error out). It reads no
//! environment and opens no file; `app.rs` decides what stdin being a pipe means.

pub(crate) use crate::cli_help::HELP;
use crate::cli_suggest::{near_subcommand, unknown_flag};
use crate::mode::Mode;
use std::path::PathBuf;

/// The `-p` output formats: the front end's own enum, named for the flag.
pub(crate) use crate::headless::Format as OutputFormat;
/// What `mcp add` and `mcp remove` take: their front end parses its own words (`mcp_cli`).
pub(crate) use crate::mcp_cli::{AddRequest as McpAddRequest, Scope as McpScope};

/// Where the prompt of a non-interactive run comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PromptSource {
    Arg(String),
    Stdin,
}

/// How to resume: not at all, the latest session, one by id, or the picker (REPL only).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub(crate) enum Resume {
    #[default]
    No,
    Latest,
    Id(String),
    Picker,
}

/// The options shared by the REPL and `-p`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub(crate) struct Options {
    pub prompt: Option<PromptSource>,
    pub output_format: Option<OutputFormat>,
    pub config: Option<PathBuf>,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub mode: Option<Mode>,
    pub cwd: Option<PathBuf>,
    pub resume: Resume,
    pub max_iterations: Option<u32>,
    pub trust: bool,
    pub quiet: bool,
    /// `--verbose`: tool output in full (the REPL's transcript, `-p` text's stderr).
    pub verbose: bool,
    /// `mewcode "task"`: the REPL's first message (a `-p` run's prompt when stdin is piped).
    pub first_prompt: Option<String>,
    /// `--append-system-prompt TEXT`: added after the system prompt's stable part.
    pub append_system_prompt: Option<String>,
    /// `--allowedTools RULES`: allow rules for this run only (checked with the engine's parser).
    pub allowed_tools: Vec<String>,
    /// `--disallowedTools RULES`: deny rules for this run only.
    pub disallowed_tools: Vec<String>,
    /// `--add-dir DIR[:ro]` (repeatable), as typed: resolved against the working directory by
    /// `app` (`config::add_dirs`).
    pub add_dirs: Vec<String>,
    /// `--image FILE` (repeatable, -p): images attached to the prompt, as given (app.rs reads
    /// them before anything is sent).
    pub images: Vec<PathBuf>,
}

/// What to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Command {
    /// The REPL, or `-p` when `options.prompt` is set (or stdin is piped: decided by app.rs).
    Run(Options),
    McpList {
        options: Options,
        json: bool,
        url: Option<String>,
    },
    McpCall {
        options: Options,
        target: String,
        tool: String,
        json: Option<String>,
    },
    /// Record a server's current tool definitions as accepted (tool-definition pinning).
    McpAccept {
        options: Options,
        server: String,
    },
    /// Write a server's entry into the config file of a scope.
    McpAdd {
        options: Options,
        request: McpAddRequest,
    },
    /// Remove a server's entry from the config file of a scope (None: the one that has it).
    McpRemove {
        options: Options,
        server: String,
        scope: Option<McpScope>,
    },
    Sessions {
        options: Options,
        json: bool,
    },
    Check {
        options: Options,
        tool: String,
        json: String,
    },
    Doctor(Options),
    /// `mewcode rewind`: list a session's turns, or put its files (and conversation) back.
    Rewind {
        options: Options,
        json: bool,
        request: RewindRequest,
    },
    Version,
    Help,
}

/// What `mewcode rewind` was asked.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub(crate) struct RewindRequest {
    /// None: list the turns; `Some(Turn(n))`: back to before turn n; `Some(Undo)`: the last
    /// turn's changes (or the last rewind) put back.
    pub target: Option<RewindTarget>,
    /// Put the files back (`--code`, or neither flag).
    pub code: bool,
    /// Put the conversation back (`--conversation`, or neither flag).
    pub conversation: bool,
    /// What to do with files changed by hand since: None asks the caller to decide (the run
    /// refuses when there are any), `Some(true)` keeps them, `Some(false)` overwrites them.
    pub keep_changed: Option<bool>,
}

/// The point `mewcode rewind` goes back to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RewindTarget {
    Turn(u32),
    Undo,
}

/// A usage error: one line naming the flag; printed with a hint to run `mewcode --help`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (see mewcode --help)", self.0)
    }
}

impl std::error::Error for UsageError {}

/// Parses the arguments after the program name.
pub(crate) fn parse_args(args: &[String]) -> Result<Command, UsageError> {
    let mut options = Options::default();
    let mut positionals: Vec<String> = Vec::new();
    let mut json_flag = false;
    let mut url: Option<String> = None;
    let mut rewind_flags: Vec<String> = Vec::new();
    let mut index = 0;
    let mut only_positionals = false;
    // The first positional came after `--`: a prompt, even when it reads like a command.
    let mut quoted_first = false;
    while index < args.len() {
        let arg = &args[index];
        index += 1;
        if only_positionals || !arg.starts_with('-') || arg == "-" {
            quoted_first |= positionals.is_empty() && only_positionals;
            positionals.push(arg.clone());
            // `mcp add` takes the server's own command line, flags and all: its words are its own.
            if !quoted_first
                && let [first, second] = positionals.as_slice()
                && first == "mcp"
                && (second == "add" || second == "remove")
            {
                return parse_mcp_edit(second == "add", &args[index..], options, json_flag, url);
            }
            continue;
        }
        if arg == "--" {
            only_positionals = true;
            continue;
        }
        // `--flag=value` is accepted for every flag that takes a value.
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag.to_string(), Some(value.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = |name: &str| -> Result<String, UsageError> {
            if let Some(value) = inline.clone() {
                return Ok(value);
            }
            match args.get(index) {
                Some(next) if !(next.starts_with('-') && next.len() > 1) => {
                    index += 1;
                    Ok(next.clone())
                }
                _ => Err(UsageError(format!("{name}: missing value"))),
            }
        };
        match flag.as_str() {
            "-h" | "--help" => return Ok(Command::Help),
            "-V" | "--version" => return Ok(Command::Version),
            "-p" | "--print" => {
                // `-p` with no value (at the end, or before another flag) reads the prompt from
                // stdin like `-p -`: `echo question | mewcode -p`.
                let prompt = match value(&flag) {
                    Ok(prompt) => Some(prompt),
                    Err(_) if inline.is_none() => None,
                    Err(err) => return Err(err),
                };
                options.prompt = Some(match prompt {
                    Some(prompt) if prompt != "-" => PromptSource::Arg(prompt),
                    _ => PromptSource::Stdin,
                });
            }
            "--output-format" => {
                options.output_format = Some(match value(&flag)?.as_str() {
                    "text" => OutputFormat::Text,
                    "json" => OutputFormat::Json,
                    "stream-json" => OutputFormat::StreamJson,
                    other => {
                        return Err(UsageError(format!(
                            "--output-format: expected text|json|stream-json, got {other:?}"
                        )));
                    }
                });
            }
            "--config" => options.config = Some(PathBuf::from(non_empty(&flag, value(&flag)?)?)),
            "--provider" => options.provider = Some(non_empty(&flag, value(&flag)?)?),
            "--model" => options.model = Some(non_empty(&flag, value(&flag)?)?),
            "--mode" => options.mode = Some(parse_mode(&flag, &value(&flag)?)?),
            "-C" | "--cwd" => options.cwd = Some(PathBuf::from(non_empty(&flag, value(&flag)?)?)),
            "-c" | "--continue" => options.resume = Resume::Latest,
            "--resume" => {
                // The id is optional: take the next word when it is not a flag (a mistyped id
                // must be reported as an unknown session, not as an unknown command).
                options.resume = match inline.clone() {
                    Some(id) if !id.is_empty() => Resume::Id(id),
                    Some(_) => return Err(UsageError("--resume: empty session id".to_string())),
                    None => match args.get(index) {
                        Some(next) if !next.starts_with('-') => {
                            index += 1;
                            Resume::Id(next.clone())
                        }
                        _ => Resume::Picker,
                    },
                };
            }
            "--max-iterations" => {
                let text = value(&flag)?;
                let count: u32 = text
                    .parse()
                    .map_err(|_| UsageError(format!("--max-iterations: expected a number, got {text:?}")))?;
                if count == 0 {
                    return Err(UsageError("--max-iterations: must be a positive number, got 0".to_string()));
                }
                options.max_iterations = Some(count);
            }
            "--append-system-prompt" => options.append_system_prompt = Some(non_empty(&flag, value(&flag)?)?),
            "--allowedTools" | "--allowed-tools" => options.allowed_tools.extend(rule_list(&flag, &value(&flag)?)?),
            "--disallowedTools" | "--disallowed-tools" => {
                options.disallowed_tools.extend(rule_list(&flag, &value(&flag)?)?);
            }
            "--add-dir" => options.add_dirs.push(non_empty(&flag, value(&flag)?)?),
            "--image" => options.images.push(PathBuf::from(non_empty(&flag, value(&flag)?)?)),
            "--trust" => options.trust = true,
            "-q" | "--quiet" => options.quiet = true,
            "--verbose" => options.verbose = true,
            "--json" => json_flag = true,
            "--url" => url = Some(non_empty(&flag, value(&flag)?)?),
            "--code" | "--conversation" | "--keep-changed" | "--overwrite-changed" => rewind_flags.push(flag.clone()),
            _ => return Err(UsageError(unknown_flag(&flag, HELP))),
        }
    }
    if !rewind_flags.is_empty() && positionals.first().map(String::as_str) != Some("rewind") {
        return Err(UsageError(format!("{} applies to mewcode rewind only", rewind_flags[0])));
    }
    let first = positionals.first().map(String::as_str);
    let command = match first {
        Some(_) if quoted_first || !SUBCOMMANDS.contains(&first.unwrap_or("")) => {
            let prompt = positionals.join(" ");
            if let Some(command) = near_subcommand(&prompt).filter(|_| !quoted_first) {
                return Err(UsageError(format!(
                    "unknown command {prompt:?} (did you mean {command}?); to start with it as the prompt: mewcode -- {prompt}"
                )));
            }
            if options.prompt.is_some() {
                return Err(UsageError("give the prompt once: -p PROMPT, or mewcode \"PROMPT\"".to_string()));
            }
            reject_subcommand_flags(json_flag, &url, "")?;
            options.first_prompt = Some(prompt);
            Command::Run(options.clone())
        }
        None => {
            reject_subcommand_flags(json_flag, &url, "")?;
            Command::Run(options.clone())
        }
        Some("mcp") => match positionals.get(1).map(String::as_str) {
            Some("list") => {
                expect_count(&positionals, 2, "mcp list")?;
                Command::McpList { options: options.clone(), json: json_flag, url }
            }
            Some("call") => {
                reject_subcommand_flags(json_flag, &url, "mcp call")?;
                if positionals.len() < 4 || positionals.len() > 5 {
                    return Err(UsageError("mcp call: expected SERVER|URL TOOL [JSON]".to_string()));
                }
                Command::McpCall {
                    options: options.clone(),
                    target: positionals[2].clone(),
                    tool: positionals[3].clone(),
                    json: positionals.get(4).cloned(),
                }
            }
            Some("accept") => {
                reject_subcommand_flags(json_flag, &url, "mcp accept")?;
                let Some(server) = positionals.get(2) else {
                    return Err(UsageError("mcp accept: expected SERVER".to_string()));
                };
                expect_count(&positionals, 3, "mcp accept")?;
                Command::McpAccept { options: options.clone(), server: server.clone() }
            }
            Some(other) => {
                return Err(UsageError(format!(
                    "mcp: unknown subcommand {other:?} (expected list, call, accept, add or remove)"
                )));
            }
            None => return Err(UsageError("mcp: expected list, call, accept, add or remove".to_string())),
        },
        Some("sessions") => {
            expect_count(&positionals, 1, "sessions")?;
            reject_subcommand_flags(false, &url, "sessions")?;
            Command::Sessions { options: options.clone(), json: json_flag }
        }
        Some("check") => {
            reject_subcommand_flags(json_flag, &url, "check")?;
            if positionals.len() != 3 {
                return Err(UsageError("check: expected TOOL JSON".to_string()));
            }
            Command::Check { options: options.clone(), tool: positionals[1].clone(), json: positionals[2].clone() }
        }
        Some("doctor") => {
            expect_count(&positionals, 1, "doctor")?;
            reject_subcommand_flags(json_flag, &url, "doctor")?;
            Command::Doctor(options.clone())
        }
        Some("rewind") => {
            reject_subcommand_flags(false, &url, "rewind")?;
            let request = parse_rewind(&positionals[1..], &rewind_flags)?;
            Command::Rewind { options: options.clone(), json: json_flag, request }
        }
        Some(other) => return Err(UsageError(format!("unknown command {other:?}"))),
    };
    check_flag_scope(&command, &options)?;
    Ok(command)
}

/// `mcp add WORDS` (`add`) or `mcp remove WORDS`, with the options given before them.
fn parse_mcp_edit(
    add: bool,
    words: &[String],
    options: Options,
    json: bool,
    url: Option<String>,
) -> Result<Command, UsageError> {
    let what = if add { "mcp add" } else { "mcp remove" };
    reject_subcommand_flags(json, &url, what)?;
    let usage = |message: String| UsageError(format!("{what}: {message}"));
    let command = if add {
        Command::McpAdd { options: options.clone(), request: crate::mcp_cli::parse_add(words).map_err(usage)? }
    } else {
        let (server, scope) = crate::mcp_cli::parse_remove(words).map_err(usage)?;
        Command::McpRemove { options: options.clone(), server, scope }
    };
    check_flag_scope(&command, &options)?;
    Ok(command)
}

/// The subcommands; any other first word starts the REPL with the words as its first message.
pub(crate) const SUBCOMMANDS: &[&str] = &["mcp", "sessions", "check", "doctor", "rewind"];

/// Rejects flags that make no sense for the chosen command, so a typo never silently does less.
fn check_flag_scope(command: &Command, options: &Options) -> Result<(), UsageError> {
    let is_print = matches!(command, Command::Run(o) if o.prompt.is_some());
    let is_run = matches!(command, Command::Run(_));
    let name = match command {
        Command::Run(_) if is_print => "-p",
        Command::Run(_) => "the REPL",
        Command::McpList { .. } => "mcp list",
        Command::McpCall { .. } => "mcp call",
        Command::McpAccept { .. } => "mcp accept",
        Command::McpAdd { .. } => "mcp add",
        Command::McpRemove { .. } => "mcp remove",
        Command::Sessions { .. } => "sessions",
        Command::Check { .. } => "check",
        Command::Doctor(_) => "doctor",
        Command::Rewind { .. } => "rewind",
        Command::Version | Command::Help => return Ok(()),
    };
    let print_only = |flag: &str, set: bool| -> Result<(), UsageError> {
        // In the REPL these flags would be silently meaningless; with piped stdin app.rs turns
        // the run into -p, so only other commands are rejected outright.
        if set && !is_run {
            return Err(UsageError(format!("{flag}: only with -p, not with {name}")));
        }
        Ok(())
    };
    print_only("--output-format", options.output_format.is_some())?;
    print_only("--max-iterations", options.max_iterations.is_some())?;
    print_only("-q/--quiet", options.quiet)?;
    print_only("--image", !options.images.is_empty())?;
    if options.verbose && options.quiet {
        return Err(UsageError("--verbose and --quiet contradict each other: pick one".to_string()));
    }
    if options.verbose && !is_run {
        return Err(UsageError(format!("--verbose: not with {name}")));
    }
    if options.append_system_prompt.is_some() && !is_run {
        return Err(UsageError(format!("--append-system-prompt: not with {name}")));
    }
    let per_run_rules = !options.allowed_tools.is_empty() || !options.disallowed_tools.is_empty();
    if per_run_rules && !(is_run || matches!(command, Command::Check { .. })) {
        return Err(UsageError(format!("--allowedTools/--disallowedTools: not with {name}")));
    }
    let takes_dirs = matches!(command, Command::Check { .. } | Command::Doctor(_) | Command::Rewind { .. });
    if !(options.add_dirs.is_empty() || is_run || takes_dirs) {
        return Err(UsageError(format!("--add-dir: not with {name}")));
    }
    let names_session = matches!(command, Command::Rewind { .. });
    if options.resume != Resume::No && !(is_run || names_session) {
        return Err(UsageError(format!("--continue/--resume: not with {name}")));
    }
    if options.mode.is_some() && !(is_run || matches!(command, Command::Check { .. })) {
        return Err(UsageError(format!("--mode: not with {name}")));
    }
    if (options.provider.is_some() || options.model.is_some()) && !(is_run || matches!(command, Command::Doctor(_))) {
        return Err(UsageError(format!("--provider/--model: not with {name}")));
    }
    Ok(())
}

/// `rewind [TURN|undo] [--code] [--conversation] [--keep-changed|--overwrite-changed]`.
fn parse_rewind(words: &[String], flags: &[String]) -> Result<RewindRequest, UsageError> {
    let target = match words {
        [] => None,
        [word] if word == "undo" => Some(RewindTarget::Undo),
        [word] => match word.trim_start_matches('#').parse::<u32>() {
            Ok(turn) if turn > 0 => Some(RewindTarget::Turn(turn)),
            _ => return Err(UsageError(format!("rewind: expected a turn number or undo, got {word:?}"))),
        },
        _ => return Err(UsageError("rewind: expected at most one TURN (or undo)".to_string())),
    };
    let has = |flag: &str| flags.iter().any(|given| given == flag);
    if has("--keep-changed") && has("--overwrite-changed") {
        return Err(UsageError("rewind: --keep-changed and --overwrite-changed exclude each other".to_string()));
    }
    if target.is_none() && !flags.is_empty() {
        return Err(UsageError(format!("rewind: {} needs a TURN (or undo) to restore", flags[0])));
    }
    let (code, conversation) = match (has("--code"), has("--conversation")) {
        (false, false) => (true, target != Some(RewindTarget::Undo)),
        chosen => chosen,
    };
    if target == Some(RewindTarget::Undo) && conversation {
        return Err(UsageError("rewind undo: puts files back only; --conversation needs a TURN".to_string()));
    }
    let keep_changed = if has("--keep-changed") {
        Some(true)
    } else if has("--overwrite-changed") {
        Some(false)
    } else {
        None
    };
    Ok(RewindRequest { target, code, conversation, keep_changed })
}

fn parse_mode(flag: &str, text: &str) -> Result<Mode, UsageError> {
    Mode::parse(text)
        .ok_or_else(|| UsageError(format!("{flag}: expected default|acceptEdits|plan|bypass, got {text:?}")))
}

/// The rules of `--allowedTools` / `--disallowedTools`, each checked with the engine's parser.
fn rule_list(flag: &str, text: &str) -> Result<Vec<String>, UsageError> {
    crate::permission::rules::parse_rule_list(text).map_err(|message| UsageError(format!("{flag}: {message}")))
}

fn non_empty(flag: &str, value: String) -> Result<String, UsageError> {
    if value.trim().is_empty() { Err(UsageError(format!("{flag}: empty value"))) } else { Ok(value) }
}

fn expect_count(positionals: &[String], count: usize, name: &str) -> Result<(), UsageError> {
    match positionals.get(count) {
        Some(extra) => Err(UsageError(format!("{name}: unexpected argument {extra:?}"))),
        None => Ok(()),
    }
}

fn reject_subcommand_flags(json: bool, url: &Option<String>, name: &str) -> Result<(), UsageError> {
    let what = if name.is_empty() { "the REPL or -p".to_string() } else { name.to_string() };
    if url.is_some() {
        return Err(UsageError(format!("--url: only with mcp list, not with {what}")));
    }
    if json {
        return Err(UsageError(format!("--json: only with mcp list or sessions, not with {what}")));
    }
    Ok(())
}

#[cfg(test)]
#[path = "cli_tests.rs"]
mod tests;
