//! Wiring: turns the parsed command line, the environment and the working directory into a run.
//!
//! Invariant: the only module that reads the process environment or the current directory;
//! everything below receives them as values. It returns an `Exit`; `main.rs` maps it to a code.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use crate::agent::subagent::TaskTool;
use crate::agent::{Agent, EngineGate, Gate, MAX_ITERATIONS, Settings, Stop, UNKNOWN_TOOL_LIMIT, prompt};
use crate::cancel::CancelToken;
use crate::cli::{Command, HELP, Options, OutputFormat, PromptSource, UsageError, parse_args};
use crate::config::{self, Config, ConfigError, HookConfig, LoadOptions, Protocol, ProviderConfig};
use crate::doctor;
use crate::headless;
use crate::hooks::Hooks;
use crate::llm::net::NetEnv;
use crate::llm::probe::{self, DEFAULT_PROBE_PORTS};
use crate::llm::provider;
use crate::mcp;
use crate::mcp_cli;
use crate::msg::{Message, System};
use crate::permission::rules::{Level, RuleSet, RuleTexts};
use crate::permission::store;
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
        Command::McpList { options, json, url } => match Context::new(&options, &env) {
            Ok(context) => run_mcp_list(&context, &options, &env, json, url.as_deref()),
            Err(exit) => exit,
        },
        Command::McpCall { options, target, tool, json } => match Context::new(&options, &env) {
            Ok(context) => run_mcp_call(&context, &options, &env, (&target, &tool, json.as_deref())),
            Err(exit) => exit,
        },
        Command::Sessions { .. } => not_yet("mewcode sessions", "session storage"),
        Command::Check { options, tool, json } => match Context::new(&options, &env) {
            Ok(context) => run_check(&context, &options, &tool, &json, &env),
            Err(exit) => exit,
        },
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

    /// --trust, or the user said yes to exactly these project files before.
    fn project_trusted(&self, options: &Options) -> bool {
        options.trust || config::trust::is_trusted(&self.home, &self.root)
    }

    fn load_config(&self, options: &Options, env: &Env) -> Result<(Config, Vec<Warning>), ConfigError> {
        let lookup = |name: &str| env.get(name);
        config::load_config(&LoadOptions {
            home: &self.home,
            root: &self.root,
            extra: options.config.as_deref(),
            project_trusted: self.project_trusted(options),
            lookup: &lookup,
        })
    }

    /// What the project's own files would enable once trusted (empty when trusted already or
    /// when it brings nothing): its config entries and its settings' allow rules.
    fn untrusted_items(&self, config: &Config, options: &Options) -> Vec<String> {
        if self.project_trusted(options) {
            return Vec::new();
        }
        let mut items = config.untrusted_project.clone();
        for (level, path) in store::settings_paths(&self.root, &self.home) {
            let vouched = match level {
                Level::User => true,
                Level::Project => false,
                Level::Local => config::trust::local_settings_vouched(&self.home, &self.root),
            };
            if let (false, Ok(texts)) = (vouched, store::load_rule_texts(&path)) {
                items.extend(texts.allow.iter().map(|rule| format!("allow rule {rule} ({})", level.as_str())));
            }
        }
        items
    }

    /// The rule texts of the three settings files. Deny rules always apply; allow rules of the
    /// project file only when the project is trusted, and of the local file when trusted or when
    /// mewcode itself wrote it (a clone may ship one). A malformed deny rule stops start-up.
    fn load_permissions(
        &self,
        options: &Options,
        warnings: &mut Vec<Warning>,
    ) -> Result<Vec<(Level, RuleTexts)>, Exit> {
        let trusted = self.project_trusted(options);
        let mut levels = Vec::new();
        for (level, path) in store::settings_paths(&self.root, &self.home) {
            let mut texts = store::load_rule_texts(&path).map_err(Exit::Config)?;
            let vouched = match level {
                Level::User => true,
                Level::Project => trusted,
                Level::Local => trusted || config::trust::local_settings_vouched(&self.home, &self.root),
            };
            if !vouched && !texts.allow.is_empty() {
                let message = format!(
                    "{} allow rule(s) ignored until you trust this project ({}); deny rules apply",
                    texts.allow.len(),
                    texts.allow.join(", ")
                );
                warnings.push(Warning::new(path.display().to_string(), message));
                texts.allow.clear();
            }
            levels.push((level, texts));
        }
        let (_, problems) = RuleSet::from_texts(levels.clone());
        for problem in problems {
            let file = store::settings_paths(&self.root, &self.home)
                .into_iter()
                .find(|(level, _)| *level == problem.level)
                .map_or(String::new(), |(_, path)| path.display().to_string());
            if problem.fatal {
                return Err(Exit::Config(format!(
                    "{file}: {problem} (a broken deny rule would leave you unprotected)"
                )));
            }
            warnings.push(Warning::new(file, format!("{problem}; rule skipped")));
        }
        Ok(levels)
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
    let rules = match context.load_permissions(&options, &mut warnings) {
        Ok(rules) => rules,
        Err(exit) => return exit,
    };
    for warning in &warnings {
        eprintln!("mewcode: warning: {}", neutralize(&warning.to_string()));
    }
    let gate: Arc<dyn Gate> = Arc::new(EngineGate::new(
        context.root.clone(),
        env.get("HOME").map(PathBuf::from),
        context.home.clone(),
        rules,
    ));
    let (mcp, mcp_warnings) = start_mcp(context, &config.mcp_servers, env, options.quiet);
    for warning in mcp_warnings {
        eprintln!("mewcode: warning: {}", neutralize(&warning.to_string()));
    }
    let agent = match build_agent(
        context,
        &provider,
        &options,
        env,
        AgentParts { hooks: &config.hooks, gate, mcp: &mcp },
        false,
    ) {
        Ok(agent) => agent,
        Err(exit) => return exit,
    };
    let cancel = CancelToken::new();
    install_interrupt_handler(&cancel);
    let conversation = Arc::new(Mutex::new(vec![Message::user(prompt)].into()));
    let format = match options.output_format.unwrap_or(OutputFormat::Text) {
        OutputFormat::Text => headless::Format::Text,
        OutputFormat::Json => headless::Format::Json,
        OutputFormat::StreamJson => headless::Format::StreamJson,
    };
    let color = std::io::stderr().is_terminal() && env.get("NO_COLOR").is_none_or(|value| value.is_empty());
    let output =
        headless::Options { format, quiet: options.quiet, color, stdout_is_terminal: std::io::stdout().is_terminal() };
    let outcome = headless::run(&agent, conversation, options.mode.unwrap_or_default(), cancel, output);
    drop(agent);
    drop(mcp); // ends every MCP session; children are killed after 5 s
    match outcome.stop {
        Stop::Completed => Exit::Ok,
        Stop::Cancelled => Exit::Interrupted,
        Stop::IterationLimit | Stop::UnknownTools => Exit::Limit,
        Stop::Failed => Exit::Failed,
    }
}

/// What a run's agent is assembled from besides the provider: the hook commands, the permission
/// gate and the connected MCP servers.
struct AgentParts<'a> {
    hooks: &'a [HookConfig],
    gate: Arc<dyn Gate>,
    mcp: &'a mcp::Manager,
}

/// The interactive REPL (stdin is a terminal: piped stdin became `-p -` above). Asks the trust
/// question when the project brings its own config, then wires permissions, MCP and hooks like
/// `-p` does. Warnings go into its banner.
fn run_repl(
    context: &Context,
    provider: ProviderConfig,
    config: &Config,
    mut warnings: Vec<Warning>,
    options: &Options,
    env: &Env,
) -> Exit {
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
    let mut trusted_now = None;
    let untrusted = context.untrusted_items(config, options);
    if !untrusted.is_empty() && repl::ask_trust(&context.root, &untrusted, color, &interrupts) {
        if let Err(message) = config::trust::save_trust(&context.home, &context.root) {
            warnings.push(Warning::new("trust", format!("could not remember the answer: {message}")));
        }
        // Reload with the project's config applied: its providers, servers and hooks.
        let reloaded = context.load_config(options, env).map_err(Exit::from).and_then(|(config, mut fresh)| {
            let provider = choose_provider(&config, options, env, &mut fresh)?;
            Ok((config, provider, fresh))
        });
        match reloaded {
            Ok(loaded) => trusted_now = Some(loaded),
            Err(exit) => return exit,
        }
    }
    let (config, provider, mut warnings) = match trusted_now {
        Some((config, provider, fresh)) => (config, provider, fresh),
        None => (config.clone(), provider, warnings),
    };
    let rules = match context.load_permissions(options, &mut warnings) {
        Ok(rules) => rules,
        Err(exit) => return exit,
    };
    let gate: Arc<dyn Gate> = Arc::new(EngineGate::new(
        context.root.clone(),
        env.get("HOME").map(PathBuf::from),
        context.home.clone(),
        rules,
    ));
    let (mcp, mcp_warnings) = start_mcp(context, &config.mcp_servers, env, true);
    warnings.extend(mcp_warnings);
    let connect: repl::Connect = Box::new(|provider| {
        let parts = AgentParts { hooks: &config.hooks, gate: Arc::clone(&gate), mcp: &mcp };
        build_agent(context, provider, options, env, parts, true)
            .map_err(|exit| exit.message().unwrap_or_else(|| "cannot connect to the provider".to_string()))
    });
    let agent = match connect(&provider) {
        Ok(agent) => agent,
        Err(message) => return Exit::Config(message),
    };
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
        mcp_status: Box::new(|| mcp_cli::render_list_text(&mcp.statuses())),
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
    parts: AgentParts<'_>,
    interactive: bool,
) -> Result<Arc<Agent>, Exit> {
    let AgentParts { hooks, gate, mcp } = parts;
    let net = NetEnv::from_vars(env.pairs());
    let provider = provider::connect(provider_config, &net).map_err(|err| Exit::Config(err.to_string()))?;
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
    // Model-written commands see only these variables: no API keys or tokens leak into them.
    let bash_env: Vec<(String, String)> =
        ["PATH", "HOME", "LANG", "TERM"].iter().filter_map(|name| Some((name.to_string(), env.get(name)?))).collect();
    let mut registry = Registry::with_builtins(bash_env);
    // MCP tools before the task tool, so sub-agents see the read-only ones too.
    mcp.register_tools(&mut registry);
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
            reads: crate::tools::ReadTracker::new(),
        },
        // Hooks are the user's own commands: they get the whole host environment.
        hooks: Hooks::new(hooks.to_vec(), context.root.clone(), env.pairs().collect(), &new_session_id()),
    }))
}

/// A session id, `YYYYMMDD-HHMMSS-xxxx` (UTC time and 4 hex digits from the clock's nanoseconds).
fn new_session_id() -> String {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let seconds = now.as_secs();
    let date = prompt::civil_date(seconds).replace('-', "");
    let time_of_day = seconds % 86_400;
    let (hours, minutes, secs) = (time_of_day / 3600, time_of_day / 60 % 60, time_of_day % 60);
    format!("{date}-{hours:02}{minutes:02}{secs:02}-{:04x}", now.subsec_nanos() & 0xffff)
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
    let (mcp, mcp_warnings) = start_mcp(context, &config.mcp_servers, env, true);
    warnings.extend(mcp_warnings);
    let mcp_report = mcp_cli::render_list_text(&mcp.statuses());
    let input = doctor::Input {
        version: env!("CARGO_PKG_VERSION"),
        root: &context.root,
        home: &context.home,
        config: &config,
        selected: selected.as_deref(),
        warnings: &warnings,
        local: local.as_ref(),
        settings_files: settings_files(&context.home, &context.root),
        mcp_report,
    };
    doctor::run(&input);
    Exit::Ok
}

/// `mewcode check TOOL JSON [--mode M]`: the permission decision for one call; runs nothing.
fn run_check(context: &Context, options: &Options, tool: &str, json: &str, env: &Env) -> Exit {
    let mut warnings = Vec::new();
    let rules = match context.load_permissions(options, &mut warnings) {
        Ok(rules) => rules,
        Err(exit) => return exit,
    };
    for warning in &warnings {
        eprintln!("mewcode: warning: {}", neutralize(&warning.to_string()));
    }
    // The class of a built-in tool comes from the tool itself; MCP and unknown tools are
    // exec-class (the strictest), as they are without a readOnlyHint.
    let builtins = Registry::with_builtins(Vec::new());
    let known: Vec<(String, bool)> = builtins
        .definitions()
        .iter()
        .filter_map(|definition| builtins.get(&definition.name))
        .map(|tool| (tool.rule_name().to_string(), tool.read_only()))
        .chain([("Task".to_string(), true)])
        .collect();
    let read_only = match known.iter().find(|(name, _)| name == tool) {
        Some((_, read_only)) => *read_only,
        None if tool.starts_with("mcp__") => false,
        None => {
            let names: Vec<&str> = known.iter().map(|(name, _)| name.as_str()).collect();
            let message =
                format!("check: unknown tool {tool:?} (expected {} or an mcp__server__tool name)", names.join(", "));
            return Exit::Usage(UsageError(message));
        }
    };
    let gate = EngineGate::new(context.root.clone(), env.get("HOME").map(PathBuf::from), context.home.clone(), rules);
    let check = gate.explain(options.mode.unwrap_or_default(), tool, json, read_only);
    println!("{}", check.to_json());
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

/// Starts the configured MCP servers (concurrently; failures become warnings, printed here).
/// Connects every configured MCP server (concurrently); start-up problems come back as warnings
/// for the caller to show (stderr for -p, the banner in the REPL). `quiet` silences only the
/// warnings that arise later, during calls.
fn start_mcp(
    context: &Context,
    servers: &[config::McpServerConfig],
    env: &Env,
    quiet: bool,
) -> (mcp::Manager, Vec<Warning>) {
    if servers.is_empty() {
        return (mcp::Manager::default(), Vec::new());
    }
    mcp::Manager::start(servers, &mcp_options(context, env, quiet))
}

/// The outside world as the MCP manager needs it: our environment for the servers, the log
/// directory, proxies, and where late warnings go.
fn mcp_options(context: &Context, env: &Env, quiet: bool) -> mcp::StartOptions {
    mcp::StartOptions {
        spawn: mcp::SpawnEnv {
            host_env: env.pairs().collect(),
            cwd: context.root.clone(),
            log_dir: Some(context.home.join("logs")),
        },
        net: NetEnv::from_vars(env.pairs()),
        warn: Arc::new(move |warning: Warning| {
            if !quiet {
                eprintln!("mewcode: warning: {}", neutralize(&warning.to_string()));
            }
        }),
    }
}

/// An ad-hoc Streamable HTTP server given on the command line.
fn url_server(url: &str) -> config::McpServerConfig {
    config::McpServerConfig {
        name: "url".to_string(),
        transport: config::McpTransport::Http { url: url.to_string(), headers: Vec::new(), ca_file: None },
        timeout_s: None,
        source: "command line".to_string(),
    }
}

/// `mewcode mcp list`: connect, print, shut down. Exit 1 when a server failed.
fn run_mcp_list(context: &Context, options: &Options, env: &Env, json: bool, url: Option<&str>) -> Exit {
    let (config, warnings) = match context.load_config(options, env) {
        Ok(loaded) => loaded,
        Err(err) => return err.into(),
    };
    for warning in &warnings {
        eprintln!("mewcode: warning: {}", neutralize(&warning.to_string()));
    }
    let servers = match url {
        Some(url) => vec![url_server(url)],
        None => config.mcp_servers,
    };
    if mcp_cli::list(&servers, &mcp_options(context, env, false), json) { Exit::Ok } else { Exit::Failed }
}

/// `mewcode mcp call SERVER|URL TOOL [JSON]`: connect that one server, call, print the result.
/// Exit 1 when the tool reported an error or the call failed.
fn run_mcp_call(
    context: &Context,
    options: &Options,
    env: &Env,
    (target, tool, input): (&str, &str, Option<&str>),
) -> Exit {
    let (config, warnings) = match context.load_config(options, env) {
        Ok(loaded) => loaded,
        Err(err) => return err.into(),
    };
    for warning in &warnings {
        eprintln!("mewcode: warning: {}", neutralize(&warning.to_string()));
    }
    let arguments = match mcp::tool::parse_arguments(input.unwrap_or("")) {
        Ok(arguments) => arguments,
        Err(message) => return Exit::Usage(UsageError(format!("mcp call: {message}"))),
    };
    let server = if target.contains("://") {
        url_server(target)
    } else {
        match config.mcp_servers.iter().find(|server| server.name == target) {
            Some(server) => server.clone(),
            None => {
                let known: Vec<&str> = config.mcp_servers.iter().map(|server| server.name.as_str()).collect();
                let known = if known.is_empty() { "none configured".to_string() } else { known.join(", ") };
                return Exit::Usage(UsageError(format!("mcp call: no MCP server named {target:?} ({known})")));
            }
        }
    };
    let tool = tool.strip_prefix(&format!("mcp__{}__", server.name)).unwrap_or(tool);
    let cancel = CancelToken::new();
    install_interrupt_handler(&cancel);
    let stdout_is_terminal = std::io::stdout().is_terminal();
    match mcp_cli::call(&server, tool, arguments, &mcp_options(context, env, false), &cancel, stdout_is_terminal) {
        mcp_cli::CallOutcome::Done => Exit::Ok,
        mcp_cli::CallOutcome::ToolError => Exit::Failed,
        mcp_cli::CallOutcome::Interrupted => Exit::Interrupted,
        mcp_cli::CallOutcome::Failed(message) => Exit::Runtime(message),
    }
}
