//! Wiring: turns the parsed command line, the environment and the working directory into a run.
//!
//! Invariant: the only module that reads the process environment or the current directory;
//! everything below receives them as values. It returns an `Exit`; `main.rs` maps it to a code.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use crate::agent::subagent::TaskTool;
use crate::agent::{Agent, Gate, MAX_ITERATIONS, ModeMatrix, Settings, Stop, UNKNOWN_TOOL_LIMIT, prompt};
use crate::cancel::CancelToken;
use crate::cli::{Command, HELP, Options, OutputFormat, PromptSource, UsageError, parse_args};
use crate::config::{self, Config, ConfigError, LoadOptions, Protocol, ProviderConfig};
use crate::doctor;
use crate::headless;
use crate::llm::net::NetEnv;
use crate::llm::probe::{self, DEFAULT_PROBE_PORTS};
use crate::llm::provider;
use crate::msg::{Message, System};
use crate::repl;
use crate::text::neutralize;
use crate::tools::Registry;
use crate::warning::Warning;
use std::collections::HashMap;
use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How a run ended, mapped to the exit codes of SPEC §1.1 by `code`.
#[derive(Debug)]
pub enum Exit {
    /// Done.
    Ok,
    /// A usage error (bad flag or value).
    Usage(UsageError),
    /// A config error, or no provider and nothing local to talk to.
    Config(String),
    /// A runtime failure (provider or tool infrastructure).
    Runtime(String),
    /// A runtime failure the front end has already reported.
    Failed,
    /// Stopped by a limit in -p mode.
    Limit,
    /// Interrupted by Ctrl-C.
    Interrupted,
}

impl Exit {
    /// The process exit code.
    pub fn code(&self) -> i32 {
        match self {
            Exit::Ok => 0,
            Exit::Runtime(_) | Exit::Failed => 1,
            Exit::Usage(_) | Exit::Config(_) => 2,
            Exit::Limit => 3,
            Exit::Interrupted => 130,
        }
    }

    /// The one line `main` prints on stderr, if any.
    pub fn message(&self) -> Option<String> {
        match self {
            Exit::Ok | Exit::Failed | Exit::Limit | Exit::Interrupted => None,
            Exit::Usage(err) => Some(err.to_string()),
            Exit::Config(message) | Exit::Runtime(message) => Some(message.clone()),
        }
    }
}

impl From<ConfigError> for Exit {
    fn from(err: ConfigError) -> Exit {
        Exit::Config(err.to_string())
    }
}

/// The process environment, read once.
pub struct Env {
    vars: HashMap<String, String>,
}

impl Env {
    /// Snapshots the process environment (non-UTF-8 values are skipped).
    pub fn from_process() -> Env {
        Env {
            vars: std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
                .collect(),
        }
    }

    /// Every variable, for settings that look at many (proxies).
    pub fn pairs(&self) -> impl Iterator<Item = (String, String)> + '_ {
        self.vars.iter().map(|(name, value)| (name.clone(), value.clone()))
    }

    /// One variable, if set.
    pub fn get(&self, name: &str) -> Option<String> {
        self.vars.get(name).cloned()
    }
}

/// Runs mewcode with the arguments after the program name.
pub fn main(args: &[String]) -> Exit {
    let command = match parse_args(args) {
        Ok(command) => command,
        Err(err) => return Exit::Usage(err),
    };
    let env = Env::from_process();
    match command {
        Command::Help => {
            print!("{HELP}");
            Exit::Ok
        }
        Command::Version => {
            println!("mewcode {}", env!("CARGO_PKG_VERSION"));
            Exit::Ok
        }
        Command::Doctor(options) => match Context::new(&options, &env) {
            Ok(context) => run_doctor(&context, &options, &env),
            Err(exit) => exit,
        },
        Command::Run(options) => match Context::new(&options, &env) {
            Ok(context) => run(&context, options, &env),
            Err(exit) => exit,
        },
        Command::McpList { .. } => not_yet("mewcode mcp list", "the MCP client"),
        Command::McpCall { .. } => not_yet("mewcode mcp call", "the MCP client"),
        Command::Sessions { .. } => not_yet("mewcode sessions", "session storage"),
        Command::Check { .. } => not_yet("mewcode check", "the permission engine"),
    }
}

/// Where mewcode runs: the user directory and the project root, both resolved.
struct Context {
    home: PathBuf,
    root: PathBuf,
}

impl Context {
    fn new(options: &Options, env: &Env) -> Result<Context, Exit> {
        let home = match env.get("MEWCODE_HOME").filter(|home| !home.is_empty()) {
            Some(home) => PathBuf::from(home),
            None => match env.get("HOME").filter(|home| !home.is_empty()) {
                Some(home) => Path::new(&home).join(".mewcode"),
                None => return Err(Exit::Config("neither MEWCODE_HOME nor HOME is set".to_string())),
            },
        };
        let cwd = match &options.cwd {
            Some(dir) => dir.clone(),
            None => std::env::current_dir().map_err(|err| Exit::Runtime(format!("current directory: {err}")))?,
        };
        let root = match std::fs::canonicalize(&cwd) {
            Ok(root) if root.is_dir() => root,
            Ok(_) => return Err(Exit::Usage(UsageError(format!("--cwd: {} is not a directory", cwd.display())))),
            Err(err) => return Err(Exit::Usage(UsageError(format!("--cwd: {}: {err}", cwd.display())))),
        };
        Ok(Context { home, root })
    }

    fn load_config(&self, options: &Options, env: &Env) -> Result<(Config, Vec<Warning>), ConfigError> {
        let lookup = |name: &str| env.get(name);
        config::load_config(&LoadOptions {
            home: &self.home,
            root: &self.root,
            extra: options.config.as_deref(),
            project_trusted: options.trust,
            lookup: &lookup,
        })
    }
}

fn run(context: &Context, mut options: Options, env: &Env) -> Exit {
    if options.prompt.is_none() && !std::io::stdin().is_terminal() {
        options.prompt = Some(PromptSource::Stdin);
    }
    let (config, mut warnings) = match context.load_config(&options, env) {
        Ok(loaded) => loaded,
        Err(err) => return err.into(),
    };
    let provider = match choose_provider(&config, &options, env, &mut warnings) {
        Ok(provider) => provider,
        Err(exit) => return exit,
    };
    let Some(prompt_source) = options.prompt.clone() else {
        return run_repl(context, provider, &config, warnings, &options, env);
    };
    for warning in &warnings {
        eprintln!("mewcode: warning: {}", neutralize(&warning.to_string()));
    }
    let prompt = match prompt_source {
        PromptSource::Arg(text) => text,
        PromptSource::Stdin => {
            let mut text = String::new();
            if let Err(err) = std::io::stdin().read_to_string(&mut text) {
                return Exit::Runtime(format!("reading the prompt from stdin: {err}"));
            }
            text
        }
    };
    if prompt.trim().is_empty() {
        return Exit::Usage(UsageError("-p: the prompt is empty".to_string()));
    }
    let agent = match build_agent(context, &provider, &options, env, false) {
        Ok(agent) => agent,
        Err(exit) => return exit,
    };
    let cancel = CancelToken::new();
    install_interrupt_handler(&cancel);
    let conversation = Arc::new(Mutex::new(vec![Message::user(prompt)]));
    let format = match options.output_format.unwrap_or(OutputFormat::Text) {
        OutputFormat::Text => headless::Format::Text,
        OutputFormat::Json => headless::Format::Json,
        OutputFormat::StreamJson => headless::Format::StreamJson,
    };
    let color = std::io::stderr().is_terminal() && env.get("NO_COLOR").is_none_or(|value| value.is_empty());
    let output =
        headless::Options { format, quiet: options.quiet, color, stdout_is_terminal: std::io::stdout().is_terminal() };
    let outcome = headless::run(&agent, conversation, options.mode.unwrap_or_default(), cancel, output);
    match outcome.stop {
        Stop::Completed => Exit::Ok,
        Stop::Cancelled => Exit::Interrupted,
        Stop::IterationLimit | Stop::UnknownTools => Exit::Limit,
        Stop::Failed => Exit::Failed,
    }
}

/// The interactive REPL (stdin is a terminal: piped stdin became `-p -` above). Warnings go into
/// its banner.
fn run_repl(
    context: &Context,
    provider: ProviderConfig,
    config: &Config,
    warnings: Vec<Warning>,
    options: &Options,
    env: &Env,
) -> Exit {
    let agent = match build_agent(context, &provider, options, env, true) {
        Ok(agent) => agent,
        Err(exit) => return exit,
    };
    let stdout_is_terminal = std::io::stdout().is_terminal();
    let color = stdout_is_terminal && env.get("NO_COLOR").is_none_or(|value| value.is_empty());
    let editor = match repl::LineEditor::open(context.home.join("history"), color) {
        Ok(editor) => editor,
        Err(message) => return Exit::Runtime(message),
    };
    // Only now: opening the editor replaces the SIGINT handler, and ours must be the one that
    // runs while a turn streams (at the prompt, Ctrl-C is a key the editor reads itself).
    let interrupts = repl::Interrupts::new();
    install_repl_interrupt_handler(&interrupts);
    let connect: repl::Connect = Box::new(|provider| {
        build_agent(context, provider, options, env, true)
            .map_err(|exit| exit.message().unwrap_or_else(|| "cannot connect to the provider".to_string()))
    });
    let setup = repl::Setup {
        version: env!("CARGO_PKG_VERSION"),
        root: context.root.clone(),
        providers: config.providers.clone(),
        provider,
        agent,
        mode: options.mode.unwrap_or_default(),
        warnings,
        color,
        animate: stdout_is_terminal,
        connect,
    };
    match repl::run(editor, setup, interrupts) {
        repl::Outcome::Exited => Exit::Ok,
        repl::Outcome::Interrupted => Exit::Interrupted,
        repl::Outcome::Failed(message) => Exit::Runtime(message),
    }
}

/// REPL Ctrl-C: only counts the press; the REPL cancels the turn or reads it as a key.
fn install_repl_interrupt_handler(interrupts: &repl::Interrupts) {
    let interrupts = interrupts.clone();
    if let Err(err) = ctrlc::set_handler(move || interrupts.press()) {
        eprintln!("mewcode: warning: Ctrl-C will not cancel turns: {err}");
    }
}

/// The agent for a run: provider, tools, permission gate and the system prompt.
fn build_agent(
    context: &Context,
    provider_config: &ProviderConfig,
    options: &Options,
    env: &Env,
    interactive: bool,
) -> Result<Arc<Agent>, Exit> {
    let net = NetEnv::from_vars(env.pairs());
    let provider = provider::connect(provider_config, &net).map_err(|err| Exit::Config(err.to_string()))?;
    let gate: Arc<dyn Gate> = Arc::new(ModeMatrix);
    let date = prompt::civil_date(
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |elapsed| elapsed.as_secs()),
    );
    let environment = prompt::environment_prompt(&prompt::Environment {
        cwd: context.root.display().to_string(),
        os: std::env::consts::OS.to_string(),
        date,
        model: provider_config.model.clone(),
        git: prompt::gather_git(&context.root),
    });
    let mut registry = Registry::new();
    let task = TaskTool::new(
        Arc::clone(&provider),
        &registry,
        Arc::clone(&gate),
        environment.clone(),
        provider_config.max_tokens,
    );
    registry.register(Arc::new(task));
    let stable = prompt::stable_prompt(&prompt::load_instructions(&context.root, &context.home));
    Ok(Arc::new(Agent {
        provider,
        registry,
        gate,
        system: System { stable, environment },
        settings: Settings {
            root: context.root.clone(),
            max_iterations: options.max_iterations.unwrap_or(MAX_ITERATIONS),
            unknown_tool_limit: UNKNOWN_TOOL_LIMIT,
            max_tokens: provider_config.max_tokens,
            interactive,
        },
    }))
}

/// Ctrl-C cancels the running turn; a second Ctrl-C while it winds down exits at once.
fn install_interrupt_handler(cancel: &CancelToken) {
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

/// The provider to use: the configured choice, else a local server found by the probe, else
/// the setup guide (exit 2).
fn choose_provider(
    config: &Config,
    options: &Options,
    env: &Env,
    warnings: &mut Vec<Warning>,
) -> Result<ProviderConfig, Exit> {
    if config.providers.is_empty() {
        if let Some(name) = &options.provider {
            return Err(Exit::Config(format!("--provider: no provider named {name:?} (none configured)")));
        }
        let Some(server) = probe::probe_local(&probe_ports(env), PROBE_BUDGET) else {
            eprint!("{}", setup_guide(&config.sources.first().map(|s| s.path.clone()).unwrap_or_default()));
            return Err(Exit::Config("no model provider configured and no local server answered".to_string()));
        };
        let model = options.model.clone().unwrap_or_else(|| server.models[0].clone());
        warnings.push(Warning::new(
            "",
            format!(
                "no provider configured; using the local {} server at {} with model {model}",
                server.kind, server.base_url
            ),
        ));
        return Ok(local_provider(&server.kind, &server.base_url, &model));
    }
    let (mut provider, warning) = config::select_provider(config, options.provider.as_deref()).map_err(Exit::Config)?;
    warnings.extend(warning);
    if let Some(model) = &options.model {
        provider.model = model.clone();
    }
    Ok(provider)
}

/// The total time the local probe may take (SPEC §1.2).
const PROBE_BUDGET: Duration = Duration::from_millis(300);

/// The probe ports: Ollama's and vLLM's, or `MEWCODE_PROBE_PORTS=port,port` (tests use free ports).
fn probe_ports(env: &Env) -> Vec<(u16, String)> {
    match env.get("MEWCODE_PROBE_PORTS") {
        Some(list) => list
            .split(',')
            .filter_map(|port| port.trim().parse().ok())
            .enumerate()
            .map(|(index, port)| (port, DEFAULT_PROBE_PORTS.get(index).map_or("local", |(_, kind)| kind).to_string()))
            .collect(),
        None => DEFAULT_PROBE_PORTS.iter().map(|(port, kind)| (*port, kind.to_string())).collect(),
    }
}

fn local_provider(kind: &str, base_url: &str, model: &str) -> ProviderConfig {
    ProviderConfig {
        api_key_hint: "no key needed for a local server".to_string(),
        base_url: base_url.to_string(),
        source: "probe".to_string(),
        ..ProviderConfig::with_defaults(kind, Protocol::OpenAi, model)
    }
}

fn setup_guide(user_config: &Path) -> String {
    format!(
        "\
mewcode needs a model. Nothing is configured, and no local Ollama (127.0.0.1:11434) or vLLM
(127.0.0.1:8000) server answered.

Create {path} with one of these (or several; the first is the default):

  providers:
    - name: claude
      protocol: anthropic
      model: claude-sonnet-4-5
      api_key: ${{ANTHROPIC_API_KEY}}
    - name: gpt
      protocol: openai
      model: gpt-4.1
      api_key: ${{OPENAI_API_KEY}}
    - name: local
      protocol: openai
      model: qwen2.5-coder:7b
      base_url: http://127.0.0.1:11434/v1     # Ollama; vLLM is usually :8000/v1

and export the key it names (ANTHROPIC_API_KEY / OPENAI_API_KEY), or start Ollama or vLLM.
Then `mewcode doctor` checks the setup.

",
        path = user_config.display()
    )
}

fn run_doctor(context: &Context, options: &Options, env: &Env) -> Exit {
    let (config, mut warnings) = match context.load_config(options, env) {
        Ok(loaded) => loaded,
        Err(err) => return err.into(),
    };
    let selected = if config.providers.is_empty() {
        None
    } else {
        match config::select_provider(&config, options.provider.as_deref()) {
            Ok((provider, warning)) => {
                warnings.extend(warning);
                Some(provider.name)
            }
            Err(message) => {
                warnings.push(Warning::new("", message));
                None
            }
        }
    };
    let local = if config.providers.is_empty() { probe::probe_local(&probe_ports(env), PROBE_BUDGET) } else { None };
    let input = doctor::Input {
        version: env!("CARGO_PKG_VERSION"),
        root: &context.root,
        home: &context.home,
        config: &config,
        selected: selected.as_deref(),
        warnings: &warnings,
        local: local.as_ref(),
        settings_files: settings_files(&context.home, &context.root),
    };
    doctor::run(&input);
    Exit::Ok
}

/// The permission settings files of SPEC §1.2 with whether each exists.
fn settings_files(home: &Path, root: &Path) -> Vec<(String, PathBuf, bool)> {
    let files = [
        ("local", root.join(".mewcode/settings.local.yaml")),
        ("project", root.join(".mewcode/settings.yaml")),
        ("user", home.join("settings.yaml")),
    ];
    files.into_iter().map(|(level, path)| (level.to_string(), path.clone(), path.is_file())).collect()
}

fn not_yet(what: &str, machinery: &str) -> Exit {
    Exit::Usage(UsageError(format!("{what}: not yet available in this build ({machinery} is still being built)")))
}
