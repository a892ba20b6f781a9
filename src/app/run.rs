//! Assembling a run: settings rules, MCP servers, hooks and the permission gate around the
//! agent, then the -p front end or the REPL (with its trust prompt) on top.
//!
//! Invariant: both front ends get the same wiring (`build_agent`), so a rule, hook or server
//! behaves the same in -p and in the REPL.
#![expect(clippy::print_stderr, reason = "start-up warnings of a run go to stderr before any front end is up")]

use super::network::Remotes;
use super::sandbox::{commands_run_in_view, make_sandbox};
use super::sessions::{open_print_session, resume_id, session_exit, session_owner};
use super::setup::{choose_provider, forget_window};
use super::wiring::{Guard, Wiring, build_agent};
use super::{Exit, Launch, say_warnings, stdin};
use crate::agent::{EngineGate, FailureKind, FrontEnd, Gate, Stop};
use crate::cancel::CancelToken;
use crate::cli::{OutputFormat, PromptSource, Resume, UsageError};
use crate::config::{Config, ProviderConfig};
use crate::http::net::NetEnv;
use crate::llm::ErrorKind;
use crate::msg::Image;
use crate::session::Owner;
use crate::text::neutralize;
use crate::warning::Warning;
use crate::{config, headless, mcp, repl};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// `mewcode [-p PROMPT]`: the REPL, or a `-p` run when there is a prompt (or stdin is piped).
pub(super) fn run(mut launch: Launch) -> Exit {
    if launch.options.prompt.is_none() && !std::io::stdin().is_terminal() {
        // `mewcode "task" < file` with no terminal to talk on: a -p run of the task, with the
        // piped text added below it, as `-p "task"` does.
        launch.options.prompt = Some(match launch.options.first_prompt.take() {
            Some(task) => PromptSource::Arg(task),
            None => PromptSource::Stdin,
        });
    }
    // Old sessions go while we start (but the one resumed); joined at the end (long done by then).
    let sessions_dir = crate::session::sessions_dir(&launch.workspace.root);
    let (owner, owner_warning) = session_owner(&launch.workspace);
    let keep = match &launch.options.resume {
        Resume::Latest => crate::session::latest_session(&sessions_dir, &owner).ok().map(|info| info.id),
        Resume::Id(id) => Some(id.clone()),
        Resume::No | Resume::Picker => None,
    };
    let cleanup = crate::session::spawn_cleanup(sessions_dir, keep);
    let exit = run_with_sessions(&launch, &owner, owner_warning);
    // A failed cleanup is said once, at the end (the run never waits for it before that).
    if let Some(cleanup) = cleanup
        && let Ok(Err(err)) = cleanup.join()
    {
        eprintln!("mewcode: warning: {}", neutralize(&err.to_string()));
    }
    exit
}

/// The run once the sessions' cleanup is under way: config, then the REPL or `-p`.
fn run_with_sessions(launch: &Launch, owner: &Owner, owner_warning: Option<Warning>) -> Exit {
    // An unknown --resume id is said first and once, before config warnings or server probes.
    if let Resume::Id(id) = &launch.options.resume
        && let Err(err) = crate::session::find_session(&crate::session::sessions_dir(&launch.workspace.root), id)
    {
        return session_exit(err);
    }
    let (config, mut warnings) = match launch.load_config() {
        Ok(loaded) => loaded,
        Err(err) => return err.into(),
    };
    warnings.extend(owner_warning);
    match launch.options.prompt.clone() {
        None if !launch.options.images.is_empty() => {
            Exit::Usage(UsageError("--image: only with -p (in the REPL, type @FILE or paste its path)".to_string()))
        }
        None => run_repl(launch, owner, &config, warnings),
        Some(prompt_source) => run_print(launch, owner, &config, warnings, prompt_source),
    }
}

/// A `-p` run: the prompt (with piped stdin), the guard, MCP servers (waited for), the session,
/// then the headless front end; its stop is the exit code.
fn run_print(
    launch: &Launch,
    owner: &Owner,
    config: &Config,
    mut warnings: Vec<Warning>,
    prompt_source: PromptSource,
) -> Exit {
    let Launch { options, env, .. } = launch;
    let provider = match choose_provider(launch, config, &mut warnings) {
        Ok(provider) => provider,
        Err(exit) => {
            // Said before the exit: an untrusted project config may be why there is no model.
            say_warnings(&warnings);
            return exit;
        }
    };
    let prompt = match read_prompt(prompt_source, provider.context_window) {
        Ok(prompt) => prompt,
        Err(exit) => return exit,
    };
    // Read and checked before anything starts: a bad image is a usage error, nothing sent.
    let images = match cli_images(&options.images, &launch.workspace.cwd, &provider) {
        Ok(images) => images,
        Err(exit) => return exit,
    };
    let guard = match guard(launch, config, owner, &mut warnings) {
        Ok(guard) => guard,
        Err(exit) => return exit,
    };
    let skills = launch.skills(launch.project_trusted(), &mut warnings);
    say_warnings(&warnings);
    let (mcp, mcp_warnings) = start_mcp(launch, &config.mcp_servers, options.quiet);
    say_warnings(&mcp_warnings);
    // The session exists (and holds the prompt) before the agent runs.
    let opened = match open_print_session(launch, &prompt, &provider, owner) {
        Ok(opened) => opened,
        Err(exit) => return exit,
    };
    let wiring = Wiring::of(config, &guard, &mcp, &skills);
    let agent = match build_agent(launch, &provider, &wiring, FrontEnd::Headless) {
        Ok(agent) => agent,
        Err(exit) => return exit,
    };
    let cancel = CancelToken::new();
    install_interrupt_handler(&cancel);
    // SIGTERM and SIGHUP end the run as Ctrl-C does (its result still printed, its jobs
    // stopped); again while it winds down, at once.
    let ended = cancel.clone();
    let _ = crate::sys::on_termination(move |signal| {
        if ended.is_cancelled() {
            std::process::exit(128 + signal);
        }
        ended.cancel();
    });
    let mut notices = opened.notices;
    // Unconfined, or confined without the namespace view: say which promises do not hold.
    if guard.sandbox.is_degraded() || !guard.sandbox.has_view() {
        notices.insert(0, guard.sandbox.summary());
    }
    let conversation = opened.conversation;
    let output = headless::Options {
        format: options.output_format.unwrap_or(OutputFormat::Text),
        quiet: options.quiet,
        verbose: options.verbose,
        color: env.terminal_style(std::io::stderr().is_terminal()).color,
        glyphs: env.glyphs(),
        stdout_is_terminal: std::io::stdout().is_terminal(),
        session_id: conversation.is_logged().then(|| conversation.session_id().to_string()),
        notices,
        model: provider.model.clone(),
        cwd: launch.workspace.cwd.display().to_string(),
        mcp_servers: mcp.statuses(),
        price: config::price::price_for(provider.price, &provider.model),
    };
    let prompt = crate::msg::Prompt { text: opened.prompt, images };
    let outcome = headless::run(&agent, conversation, prompt, options.mode.unwrap_or_default(), cancel, output);
    if outcome.kind == Some(FailureKind::Llm(ErrorKind::PromptTooLong)) {
        // The window believed was too big: the next start asks the server again.
        if let Err(warning) = forget_window(&provider, launch) {
            say_warnings(&[warning]);
        }
    }
    drop(agent);
    drop(mcp); // ends every MCP session; children are killed after 5 s
    stop_exit(outcome.stop)
}

/// The exit code of a `-p` run that stopped with `stop`.
fn stop_exit(stop: Stop) -> Exit {
    match stop {
        Stop::Completed => Exit::Ok,
        Stop::Cancelled => Exit::Interrupted,
        Stop::IterationLimit | Stop::UnknownTools => Exit::Limit,
        Stop::Failed => Exit::Failed,
    }
}

/// The prompt of a `-p` run. Piped stdin is never dropped: it is the prompt (`-p -`, `-p` alone,
/// no -p) or, after a bounded wait for its first byte, text added below the prompt
/// (`cat f | mewcode -p "..."`), capped by the model's `window`.
fn read_prompt(source: PromptSource, window: u64) -> Result<String, Exit> {
    let stdin_is_terminal = std::io::stdin().is_terminal();
    let prompt = match source {
        PromptSource::Arg(text) if stdin_is_terminal => text,
        PromptSource::Arg(text) => match stdin::read_process_stdin(Some(stdin::FIRST_BYTE_WAIT), window) {
            Ok(Some(piped)) => stdin::compose(&text, &piped),
            Ok(None) => text,
            Err(err) => return Err(stdin_exit(err)),
        },
        PromptSource::Stdin if stdin_is_terminal => {
            return Err(Exit::Usage(UsageError(
                "-p: no prompt (give -p PROMPT, or pipe the prompt on stdin)".to_string(),
            )));
        }
        PromptSource::Stdin => match stdin::read_process_stdin(None, window) {
            Ok(text) => text.unwrap_or_default(),
            Err(err) => return Err(stdin_exit(err)),
        },
    };
    if prompt.trim().is_empty() {
        return Err(Exit::Usage(UsageError("-p: the prompt is empty".to_string())));
    }
    Ok(prompt)
}

/// The images of `--image FILE` (relative to the working directory), read and checked; the
/// first that cannot be sent is a usage error naming it and why: missing, not an image, over a
/// limit, or a model that takes no images.
fn cli_images(files: &[PathBuf], cwd: &Path, provider: &config::ProviderConfig) -> Result<Vec<Image>, Exit> {
    if files.is_empty() {
        return Ok(Vec::new());
    }
    if let Some(refusal) = provider.image_refusal() {
        return Err(Exit::Usage(UsageError(format!("--image: {refusal}"))));
    }
    if files.len() > crate::image::MAX_IMAGES_PER_REQUEST {
        let limit = crate::image::MAX_IMAGES_PER_REQUEST;
        return Err(Exit::Usage(UsageError(format!(
            "--image: {} images, over the limit of {limit} a request",
            files.len()
        ))));
    }
    files
        .iter()
        .map(|file| {
            let shown = file.display().to_string();
            crate::tools::read_image::load_image(&cwd.join(file), &shown)
                .map(|(image, _)| image)
                .map_err(|err| Exit::Usage(UsageError(format!("--image: {}", err.message(&shown)))))
        })
        .collect()
}

/// The guard of a run: rules (their warnings added to `warnings`), gate and sandbox. `owner`
/// marks the local settings file (it tells mewcode's own from a planted one).
fn guard(launch: &Launch, config: &Config, owner: &Owner, warnings: &mut Vec<Warning>) -> Result<Guard, Exit> {
    let (rules, files) = launch.load_permissions(owner, warnings)?;
    // Said here, after the trust question (whose answer reloads the warnings), for -p and REPL.
    warnings.extend(launch.env.path_warning());
    // A project that brings config of its own has its remotes remembered when it is trusted
    // (`config::trust`); one that brings none, the first time mewcode runs in it.
    let remotes =
        if launch.untrusted_items(config).is_empty() { Remotes::RememberFirstSight } else { Remotes::LookOnly };
    let network = super::network::network_gate(launch, config, owner, remotes, warnings);
    let (sandbox, session_tmp) = make_sandbox(launch, config, warnings, Some(network));
    let home = launch.env.get("HOME").map(PathBuf::from);
    let gate = EngineGate::new(launch.workspace.root.clone(), home, owner.clone(), rules)
        .with_added_dirs(&config.add_dirs)
        .with_read_only_commands(commands_run_in_view(&sandbox))
        .with_rule_files(files);
    let gate: Arc<dyn Gate> = Arc::new(gate);
    // Spools under MEWCODE_HOME, which commands cannot see; one directory per process.
    let spools = launch.workspace.home.join("jobs").join(std::process::id().to_string());
    let jobs = Arc::new(crate::jobs::Jobs::new(spools));
    Ok(Guard { gate, sandbox, _session_tmp: session_tmp, jobs })
}

/// A refused stdin is the caller's input error (exit 2); a failed read is a runtime one.
fn stdin_exit(err: stdin::StdinError) -> Exit {
    match err {
        stdin::StdinError::Io(_) => Exit::Runtime(err.to_string()),
        stdin::StdinError::TooLarge { .. } | stdin::StdinError::Binary { .. } | stdin::StdinError::NotUtf8 { .. } => {
            Exit::Usage(UsageError(err.to_string()))
        }
    }
}

/// The interactive REPL (stdin is a terminal: piped stdin became `-p -` in `run`). Asks the
/// trust question when the project brings its own config, then wires permissions, MCP and hooks
/// like `-p` does. Warnings go into its banner.
fn run_repl(launch: &Launch, owner: &Owner, config: &Config, mut warnings: Vec<Warning>) -> Exit {
    // First run in a project that brings its own config, and no provider of the user's: the
    // REPL asks the trust question before concluding there is no model (it may be the
    // project's); `settle_trust` chooses the provider after the answer.
    let provider = if config.providers.is_empty() && !launch.untrusted_items(config).is_empty() {
        None
    } else {
        match choose_provider(launch, config, &mut warnings) {
            Ok(provider) => Some(provider),
            Err(exit) => return exit,
        }
    };
    let Launch { workspace, options, env } = launch;
    let sessions_dir = crate::session::sessions_dir(&workspace.root);
    let start = match &options.resume {
        Resume::Picker => repl::Start::Picker,
        other => match resume_id(&sessions_dir, other, owner) {
            Ok(Some(id)) => repl::Start::Resume(id),
            Ok(None) => repl::Start::New,
            Err(exit) => return exit,
        },
    };
    let style = env.terminal_style(std::io::stdout().is_terminal());
    let color = style.color;
    let mut editor = match repl::LineEditor::open(workspace.home.join("history"), color, style.glyphs) {
        Ok(editor) => editor,
        Err(message) => return Exit::Runtime(message),
    };
    // Only now: opening the editor replaces the SIGINT handler, and ours must be the one that
    // runs while a turn streams (at the prompt, Ctrl-C is a key the editor reads itself).
    let interrupts = repl::Interrupts::new();
    install_repl_interrupt_handler(&interrupts);
    // SIGTERM and SIGHUP end the REPL at once, the terminal put back as it was at start; the
    // commands and background jobs end with mewcode (their reapers' parent-death signal).
    let terminal = crate::sys::terminal_mode(0).ok();
    let _ = crate::sys::on_termination(move |signal| {
        if let Some(mode) = &terminal {
            let _ = crate::sys::set_terminal_mode(0, mode);
        }
        std::process::exit(128 + signal);
    });
    let untrusted = launch.untrusted_items(config);
    let trusted_now = !untrusted.is_empty()
        && repl::ask_trust(&workspace.root, &untrusted, color, editor.screen().width, &interrupts);
    let (config, provider, mut warnings) = match settle_trust(launch, config, provider, warnings, trusted_now) {
        Ok(settled) => settled,
        Err(exit) => return exit,
    };
    let dirs = command_dirs(launch, trusted_now || launch.project_trusted(), &mut warnings);
    let (custom_commands, command_warnings) = repl::load_custom_commands(&dirs);
    warnings.extend(command_warnings);
    let skills = launch.skills(trusted_now || launch.project_trusted(), &mut warnings);
    let guard = match guard(launch, &config, owner, &mut warnings) {
        Ok(guard) => guard,
        Err(exit) => return exit,
    };
    let (mcp, background_rx) = start_mcp_in_background(launch, &config, editor.status_wake());
    let wiring = Wiring::of(&config, &guard, &mcp, &skills);
    let host = super::repl_host::ReplHost { launch, wiring: &wiring };
    let agent = match repl::Host::connect(&host, &provider) {
        Ok(agent) => agent,
        Err(message) => return Exit::Config(message),
    };
    let setup = repl::Setup {
        version: env!("CARGO_PKG_VERSION"),
        first_prompt: options.first_prompt.clone(),
        root: workspace.root.clone(),
        providers: config.providers.clone(),
        provider,
        agent,
        mode: options.mode.unwrap_or_default(),
        bypass_in_cycle: options.mode == Some(crate::mode::Mode::Bypass) || config.bypass_in_mode_cycle,
        warnings,
        color,
        animate: style.cursor,
        glyphs: style.glyphs,
        host: &host,
        mcp_probe: mcp.probe(),
        background: Some(background_rx),
        sessions: repl::Sessions { dir: sessions_dir, owner: owner.clone(), start },
        sandbox: (guard.sandbox.summary(), guard.sandbox.status().clone()),
        notify: config.notify,
        verbose: options.verbose,
        editor: ["VISUAL", "EDITOR"]
            .iter()
            .find_map(|name| launch.env.get(name).filter(|value| !value.trim().is_empty())),
        custom_commands,
        instruction_files: instruction_files(launch),
        skills: skills.clone(),
    };
    match repl::run(editor, setup, interrupts) {
        repl::ReplEnd::Exited => Exit::Ok,
        repl::ReplEnd::Interrupted => Exit::Interrupted,
        repl::ReplEnd::Failed(message) => Exit::Runtime(message),
    }
}

/// The folders of the person's own commands, first wins: the project's `.mewcode/commands` and
/// `.claude/commands` (only when the project is trusted: else a warning says they wait), then
/// `$MEWCODE_HOME/commands` and Codex's prompts (`$CODEX_HOME/prompts`, default
/// `~/.codex/prompts`).
fn command_dirs(launch: &Launch, trusted: bool, warnings: &mut Vec<Warning>) -> Vec<repl::CommandDir> {
    let Launch { workspace, env, .. } = launch;
    let home = env.get("HOME").filter(|home| !home.is_empty()).map(PathBuf::from);
    let project = workspace.project_command_dirs();
    let mut dirs = Vec::new();
    if trusted {
        dirs.extend(project);
    } else {
        for line in repl::describe_command_dirs(&project) {
            warnings.push(Warning::new("", format!("{line}: not loaded until you trust this project")));
        }
    }
    let codex = env.get("CODEX_HOME").filter(|dir| !dir.is_empty()).map(PathBuf::from);
    let codex = codex.or_else(|| home.as_ref().map(|home| home.join(".codex")));
    for path in std::iter::once(workspace.home.join("commands")).chain(codex.map(|dir| dir.join("prompts"))) {
        dirs.push(repl::CommandDir { label: tilde(&path, home.as_deref()), path, inside: None });
    }
    dirs
}

/// The instruction files in the system prompt and the characters each adds with its `@path`
/// imports, which are sent with it (for `/context`: `AGENTS.md (+2 imports)`).
fn instruction_files(launch: &Launch) -> Vec<(String, usize)> {
    let home = launch.env.get("HOME").filter(|home| !home.is_empty()).map(PathBuf::from);
    let instructions = launch.workspace.instructions();
    let personal_path = launch.workspace.home.join("AGENTS.md");
    let personal =
        instructions.personal.iter().map(|text| (personal_path.clone(), tilde(&personal_path, home.as_deref()), text));
    let project = instructions.project.iter().map(|(rel, text)| (launch.workspace.root.join(rel), rel.clone(), text));
    let heads: Vec<(PathBuf, String, &String)> = personal.chain(project).collect();
    let paths: Vec<&PathBuf> = heads.iter().map(|(path, ..)| path).collect();
    heads
        .iter()
        .map(|(path, label, text)| {
            let label = match count_imports(&instructions.files, path, &paths) {
                0 => label.clone(),
                1 => format!("{label} (+1 import)"),
                more => format!("{label} (+{more} imports)"),
            };
            (label, text.chars().count())
        })
        .collect()
}

/// How many of the files loaded (`files`, each instruction file followed by its imports) were
/// imported by `file`: those after it, up to the next instruction file of `heads`.
fn count_imports(files: &[PathBuf], file: &Path, heads: &[&PathBuf]) -> usize {
    let Some(at) = files.iter().position(|loaded| loaded == file) else { return 0 };
    files[at + 1..].iter().take_while(|loaded| !heads.contains(loaded)).count()
}

/// A path as people write it: `~/…` beneath the home directory.
fn tilde(path: &Path, home: Option<&Path>) -> String {
    match home.and_then(|home| path.strip_prefix(home).ok()) {
        Some(rel) => format!("~/{}", rel.display()),
        None => path.display().to_string(),
    }
}

/// The REPL's config and provider once the trust question is answered: `trusted_now` (the
/// person said yes) reloads with the project's config applied — its providers, servers and
/// hooks — and remembers the answer; otherwise the project's provider stays unused and the
/// usual choice applies (environment, local server, else the setup guide and exit 2).
/// `provider` is None when it is chosen only now (the user configured none, the project brings
/// a config).
fn settle_trust(
    launch: &Launch,
    config: &Config,
    provider: Option<ProviderConfig>,
    mut warnings: Vec<Warning>,
    trusted_now: bool,
) -> Result<(Config, ProviderConfig, Vec<Warning>), Exit> {
    if trusted_now {
        if let Err(message) = config::trust::save_trust(&launch.workspace.home, &launch.workspace.root) {
            warnings.push(Warning::new("trust", format!("could not remember the answer: {message}")));
        }
        let (config, mut fresh) = launch.load_config()?;
        let provider = choose_provider(launch, &config, &mut fresh)?;
        return Ok((config, provider, fresh));
    }
    let provider = match provider {
        Some(provider) => provider,
        None => choose_provider(launch, config, &mut warnings)?,
    };
    Ok((config.clone(), provider, warnings))
}

/// The REPL does not wait for MCP servers (SPEC §7): they connect in the background, and their
/// outcome (connected, failed, stopped later) and any later warning reach the REPL on the
/// returned channel, said before the next prompt; each outcome also wakes the status line
/// (`status_wake`), which is redrawn at once while the prompt waits. Unbounded: a few messages
/// per server, and a connect, reader or tool thread must never wait for the person.
fn start_mcp_in_background(
    launch: &Launch,
    config: &Config,
    status_wake: repl::StatusWake,
) -> (mcp::Manager, crossbeam_channel::Receiver<repl::Background>) {
    let (background_tx, background_rx) = crossbeam_channel::unbounded();
    let mut mcp_options = mcp_options(launch, true);
    let warn_tx = background_tx.clone();
    mcp_options.warn = Arc::new(move |warning| {
        let _ = warn_tx.send(repl::Background::Warning(warning));
    });
    let updates: mcp::UpdateSink = Arc::new(move |update| {
        let _ = background_tx.send(repl::Background::Mcp(update));
        status_wake.wake();
    });
    (mcp::Manager::spawn(&config.mcp_servers, &mcp_options, Some(updates)), background_rx)
}

/// REPL Ctrl-C: only counts the press; the REPL cancels the turn or reads it as a key.
fn install_repl_interrupt_handler(interrupts: &repl::Interrupts) {
    let interrupts = interrupts.clone();
    if let Err(err) = ctrlc::set_handler(move || interrupts.press()) {
        eprintln!("mewcode: warning: Ctrl-C will not cancel turns: {err}");
    }
}

/// Ctrl-C cancels the running turn; a second Ctrl-C while it winds down exits at once.
pub(super) fn install_interrupt_handler(cancel: &CancelToken) {
    let cancel = cancel.clone();
    let installed = ctrlc::set_handler(move || {
        if cancel.is_cancelled() {
            std::process::exit(130);
        }
        cancel.cancel();
    });
    if let Err(err) = installed {
        eprintln!("mewcode: warning: Ctrl-C will not cancel cleanly: {err}");
    }
}

/// Starts the configured MCP servers (concurrently; failures become warnings, printed here).
/// Connects every configured MCP server (concurrently); start-up problems come back as warnings
/// for the caller to show (stderr for -p, the banner in the REPL). `quiet` silences only the
/// warnings that arise later, during calls.
pub(super) fn start_mcp(
    launch: &Launch,
    servers: &[config::McpServerConfig],
    quiet: bool,
) -> (mcp::Manager, Vec<Warning>) {
    if servers.is_empty() {
        return (mcp::Manager::default(), Vec::new());
    }
    mcp::Manager::start(servers, &mcp_options(launch, quiet))
}

/// The outside world as the MCP manager needs it: our environment for the servers, the log
/// directory, proxies, the pin store of accepted tool definitions, and where late warnings go.
pub(super) fn mcp_options(launch: &Launch, quiet: bool) -> mcp::StartOptions {
    let Launch { workspace, env, .. } = launch;
    mcp::StartOptions {
        spawn: mcp::SpawnEnv {
            host_env: env.pairs().collect(),
            cwd: workspace.root.clone(),
            log_dir: Some(workspace.home.join("logs")),
        },
        net: NetEnv::from_vars(env.pairs()),
        pins: Some(workspace.home.join(mcp::pin::PINS_FILE)),
        warn: Arc::new(move |warning: Warning| {
            if !quiet {
                say_warnings(&[warning]);
            }
        }),
    }
}
