//! The subcommands that are not conversations: doctor, check, mcp list, mcp call, mcp accept,
//! mcp add and mcp remove.
//!
//! Invariant: none of them runs a tool; `check` only explains a decision.
#![expect(clippy::print_stdout, reason = "doctor, check and the mcp subcommands print their answer on stdout")]

use super::network::Remotes;
use super::run::{install_interrupt_handler, mcp_options, start_mcp};
use super::sandbox::{commands_run_in_view, make_sandbox};
use super::sessions::session_owner;
use super::setup::{PROBE_BUDGET, env_provider, local_provider, probe_ports};
use super::{Exit, Launch, say_warnings};
use crate::agent::EngineGate;
use crate::cancel::CancelToken;
use crate::cli::UsageError;
use crate::confine::Sandbox;
use crate::http::net::NetEnv;
use crate::llm::probe;
use crate::llm::window_cache::WindowCache;
use crate::permission::CallInfo;
use crate::permission::rules::Level;
use crate::permission::store;
use crate::session::Owner;
use crate::tools::Registry;
use crate::tools::ToolKind;
use crate::warning::Warning;
use crate::{config, doctor, mcp, mcp_cli};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub(super) fn run_doctor(launch: &Launch) -> Exit {
    let Launch { workspace, options, env } = launch;
    let (config, mut warnings) = match launch.load_config() {
        Ok(loaded) => loaded,
        Err(err) => return err.into(),
    };
    let (owner, owner_warning) = session_owner(workspace);
    warnings.extend(owner_warning);
    warnings.extend(env.path_warning());
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
    let from_env = if config.providers.is_empty() {
        match env_provider(launch) {
            Ok(provider) => provider,
            Err(exit) => {
                if let Exit::Config(message) = exit {
                    warnings.push(Warning::new("environment", message));
                }
                None
            }
        }
    } else {
        None
    };
    let local = if config.providers.is_empty() && from_env.is_none() {
        probe::probe_local(&probe_ports(env), PROBE_BUDGET)
    } else {
        None
    };
    let (mcp, mcp_warnings) = start_mcp(launch, &config.mcp_servers, true);
    warnings.extend(mcp_warnings);
    let mcp_report = mcp_cli::render_list_text(&mcp.statuses());
    let network = super::network::network_gate(launch, &config, &owner, Remotes::LookOnly, &mut warnings);
    let (sandbox, _session_tmp) = make_sandbox(launch, &config, &mut warnings, Some(network));
    let skills = launch.skills(launch.project_trusted(), &mut warnings);
    let net = NetEnv::from_vars(env.pairs());
    let input = doctor::Input {
        version: env!("CARGO_PKG_VERSION"),
        root: &workspace.root,
        root_kind: if workspace.shares_user_dir() {
            let kind = workspace.root_kind.describe();
            format!("{kind}; your home directory: its .mewcode is the user dir, which keeps its sessions too")
        } else {
            workspace.root_kind.describe()
        },
        instructions: workspace.instructions().files,
        skills: &skills,
        home: &workspace.home,
        config: &config,
        selected: selected.as_deref(),
        warnings: &warnings,
        local: local.as_ref(),
        local_provider: from_env.or_else(|| {
            local.as_ref().and_then(|server| {
                let model = options.model.clone().or_else(|| server.models.first().cloned())?;
                Some(local_provider(&server.kind, &server.base_url, &model))
            })
        }),
        settings_files: settings_files(&workspace.home, &workspace.root, &owner),
        mcp_report,
        sandbox: &sandbox,
        color: env.terminal_style(std::io::stdout().is_terminal()).color,
        glyphs: env.glyphs(),
        net: &net,
        remembered: &WindowCache::load(&workspace.home),
        now: crate::session::now_s(),
    };
    doctor::run(&input);
    Exit::Ok
}

/// `mewcode check TOOL JSON [--mode M]`: the permission decision for one call; runs nothing.
pub(super) fn run_check(launch: &Launch, tool: &str, json: &str) -> Exit {
    let Launch { workspace, options, env } = launch;
    let (owner, owner_warning) = session_owner(workspace);
    let mut warnings = Vec::from_iter(owner_warning);
    let rules = match launch.load_permissions(&owner, &mut warnings) {
        Ok((rules, _)) => rules,
        Err(exit) => return exit,
    };
    say_warnings(&warnings);
    // The class of a built-in tool comes from the tool itself; MCP and unknown tools are
    // exec-class (the strictest), as they are without a readOnlyHint.
    let builtins = Registry::with_builtins(Vec::new(), Arc::new(Sandbox::off()), Arc::default());
    // Each tool answers to its rule name (`Bash`, as in settings) and to the name the model and
    // `/tools` use (`bash`).
    let known: Vec<(String, String, bool, ToolKind)> = builtins
        .definitions()
        .iter()
        .filter_map(|definition| builtins.get(&definition.name))
        .map(|tool| (tool.rule_name().to_string(), tool.name().to_string(), tool.read_only(), tool.kind()))
        .chain([("Task".to_string(), "task".to_string(), true, ToolKind::Opaque)])
        .chain([("Skill".to_string(), crate::tools::skill::SKILL_TOOL.to_string(), true, ToolKind::Opaque)])
        .collect();
    let (rule_name, read_only, kind) = match known.iter().find(|(rule, model, ..)| rule == tool || model == tool) {
        Some((rule, _, read_only, kind)) => (rule.as_str(), *read_only, *kind),
        None if tool.starts_with("mcp__") => (tool, false, ToolKind::Opaque),
        None => {
            let names: Vec<String> = known.iter().map(|(rule, model, ..)| format!("{rule}/{model}")).collect();
            let message =
                format!("check: unknown tool {tool:?} (expected {} or an mcp__server__tool name)", names.join(", "));
            return Exit::Usage(UsageError(message));
        }
    };
    // The input is the tool call's JSON object; anything else would only be judged as garbage
    // (a bare `ls` came out as a sandbox "deny"), so it is the caller's usage mistake.
    if !serde_json::from_str::<serde_json::Value>(json).is_ok_and(|value| value.is_object()) {
        let example = match kind {
            ToolKind::RunsCommand => r#"'{"command":"ls"}'"#,
            ToolKind::ReadsPath { root_by_default: true, .. } => r#"'{"pattern":"*.rs"}'"#,
            ToolKind::ReadsPath { .. } | ToolKind::WritesPath => r#"'{"path":"src/main.rs"}'"#,
            ToolKind::Opaque => r#"'{}'"#,
        };
        let message = format!("check: JSON must be the tool's input as a JSON object, e.g. {example}; got {json:?}");
        return Exit::Usage(UsageError(message));
    }
    // The same sandbox as a run's, so read-only commands are judged as a run would judge them
    // (a config that does not load starts no run: nothing is judged in the view then). A
    // directory given with --add-dir that cannot be added is the check's error, as a run's.
    let config = match launch.load_config() {
        Ok((config, _)) => Some(config),
        Err(err) if !options.add_dirs.is_empty() => return err.into(),
        Err(_) => None,
    };
    let in_view = config
        .as_ref()
        .is_some_and(|config| commands_run_in_view(&make_sandbox(launch, config, &mut Vec::new(), None).0));
    let added = config.map(|config| config.add_dirs).unwrap_or_default();
    let gate = EngineGate::new(workspace.root.clone(), env.get("HOME").map(PathBuf::from), owner, rules)
        .with_added_dirs(&added)
        .with_read_only_commands(in_view);
    let call = CallInfo { rule_name, input: json, kind };
    let check = gate.explain(options.mode.unwrap_or_default(), &call, read_only);
    println!("{}", check.to_json());
    Exit::Ok
}

/// The permission settings files of SPEC §1.2, each with what doctor says of it: found or not,
/// and for a local file that is not mewcode's, that its allow rules are ignored and why.
fn settings_files(home: &Path, root: &Path, owner: &Owner) -> Vec<(String, PathBuf, String)> {
    store::settings_paths(root, home)
        .into_iter()
        .map(|(level, path)| {
            let state = match (level, path.is_file()) {
                (_, false) => "not found".to_string(),
                (Level::Local, true) => match store::load_local_rule_texts(&path, owner) {
                    Ok((_, store::Mark::Ours)) => "found, written by mewcode".to_string(),
                    Ok((_, mark)) => format!("found, IGNORED: its allow rules do not apply, as {}", mark.why()),
                    Err(message) => format!("found, unreadable: {message}"),
                },
                // `settings_paths` names no session file: the session's rules live in memory.
                (Level::Project | Level::User | Level::Session | Level::Invocation, true) => "found".to_string(),
            };
            (level.as_str().to_string(), path, state)
        })
        .collect()
}

/// An ad-hoc Streamable HTTP server given on the command line.
fn url_server(url: &str) -> config::McpServerConfig {
    config::McpServerConfig {
        name: "url".to_string(),
        transport: config::McpTransport::Http { url: url.to_string(), headers: Vec::new(), ca_file: None },
        timeout_s: None,
        source: "command line".to_string(),
        // Named by the user on the command line.
        trust_hints: true,
    }
}

/// `mewcode mcp list`: connect, print, shut down. Exit 1 when a server failed.
pub(super) fn run_mcp_list(launch: &Launch, json: bool, url: Option<&str>) -> Exit {
    let (config, warnings) = match launch.load_config() {
        Ok(loaded) => loaded,
        Err(err) => return err.into(),
    };
    say_warnings(&warnings);
    let servers = match url {
        Some(url) => vec![url_server(url)],
        None => config.mcp_servers,
    };
    if mcp_cli::list(&servers, &mcp_options(launch, false), json) { Exit::Ok } else { Exit::Failed }
}

/// `mewcode mcp accept SERVER`: connect that one server and record its current tool definitions
/// as accepted, so that tools flagged by pinning run again.
pub(super) fn run_mcp_accept(launch: &Launch, name: &str) -> Exit {
    let (config, warnings) = match launch.load_config() {
        Ok(loaded) => loaded,
        Err(err) => return err.into(),
    };
    say_warnings(&warnings);
    let Some(server) = config.mcp_servers.iter().find(|server| server.name == name) else {
        let known: Vec<&str> = config.mcp_servers.iter().map(|server| server.name.as_str()).collect();
        let known = if known.is_empty() { "none configured".to_string() } else { known.join(", ") };
        return Exit::Usage(UsageError(format!("mcp accept: no MCP server named {name:?} ({known})")));
    };
    if mcp_cli::accept(server, &mcp_options(launch, false)) { Exit::Ok } else { Exit::Failed }
}

/// `mewcode mcp call SERVER|URL TOOL [JSON]`: connect that one server, call, print the result.
/// Exit 1 when the tool reported an error or the call failed.
pub(super) fn run_mcp_call(launch: &Launch, target: &str, tool: &str, input: Option<&str>) -> Exit {
    let (config, warnings) = match launch.load_config() {
        Ok(loaded) => loaded,
        Err(err) => return err.into(),
    };
    say_warnings(&warnings);
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
    match mcp_cli::call(&server, tool, arguments, &mcp_options(launch, false), &cancel, stdout_is_terminal) {
        mcp_cli::CallOutcome::Done => Exit::Ok,
        mcp_cli::CallOutcome::ToolError => Exit::Failed,
        mcp_cli::CallOutcome::Interrupted => Exit::Interrupted,
        mcp_cli::CallOutcome::Failed(message) => Exit::Runtime(message),
    }
}

/// The config files `mcp add` and `mcp remove` edit, of this launch.
fn config_files(launch: &Launch) -> mcp_cli::ConfigFiles {
    mcp_cli::ConfigFiles {
        user: config::edit::user_config_path(&launch.workspace.home),
        project: config::edit::project_config_path(&launch.workspace.root),
        root: launch.workspace.root.clone(),
    }
}

/// `mewcode mcp add`: the server's entry written into the scope's config file. Exit 1 when it
/// could not be (a duplicate name without --force, a file that does not parse, a write error).
pub(super) fn run_mcp_add(launch: &Launch, request: &mcp_cli::AddRequest) -> Exit {
    match mcp_cli::add(request, &config_files(launch)) {
        Ok(()) => Exit::Ok,
        Err(message) => Exit::Runtime(format!("mcp add: {message}")),
    }
}

/// `mewcode mcp remove`: the server's entry removed from the scope's config file (without a
/// scope, from the one file that has it). Exit 1 when there is none to remove.
pub(super) fn run_mcp_remove(launch: &Launch, name: &str, scope: Option<mcp_cli::Scope>) -> Exit {
    match mcp_cli::remove(name, scope, &config_files(launch)) {
        Ok(()) => Exit::Ok,
        Err(message) => Exit::Runtime(format!("mcp remove: {message}")),
    }
}
