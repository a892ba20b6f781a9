//! The agent of a run, assembled: what stands between the model and the machine (`Guard`), what
//! every agent is built from besides its provider (`Wiring`), and `build_agent`, which the run and
//! the REPL's `/model` both call.
//!
//! Invariant: every agent of a run, the first and any `/model` builds, gets the same gate,
//! sandbox, hooks and MCP servers; the session (id, log, context state) is the conversation's,
//! never the agent's.

use super::{Exit, Launch};
use crate::agent::subagent::TaskTool;
use crate::agent::toolbox::{Environment, Toolbox};
use crate::agent::{Agent, FrontEnd, Gate, Lean, MAX_ITERATIONS, Settings, UNKNOWN_TOOL_LIMIT, prompt, prompt_skills};
use crate::checks::Checks;
use crate::config::skills::Skill;
use crate::config::{self, CheckConfig, HookConfig, ProviderConfig};
use crate::confine::{Sandbox, SessionTmp};
use crate::hooks::Hooks;
use crate::http::net::NetEnv;
use crate::llm::provider;
use crate::mcp;
use crate::tools::{Registry, SkillTool};
use std::path::PathBuf;
use std::sync::Arc;

/// What stands between the model and the machine, the same for `-p` and the REPL.
pub(super) struct Guard {
    /// The session's background jobs (every agent of the run shares them; they end with the
    /// guard, before its temp dir goes).
    pub jobs: Arc<crate::jobs::Jobs>,
    /// The permission gate over the loaded rules.
    pub gate: Arc<dyn Gate>,
    /// The OS sandbox of every command.
    pub sandbox: Arc<Sandbox>,
    /// The sandbox's session temp dir, removed when the run ends (kept alive by holding it).
    pub _session_tmp: Option<SessionTmp>,
}

impl Drop for Guard {
    fn drop(&mut self) {
        self.jobs.end_all();
    }
}

/// What every agent of a run is assembled from besides the provider, the same for `-p` and the
/// REPL (whose `/model` builds another on it): the hook commands, the guard (permission gate and
/// sandbox), the connected MCP servers and when requests are lean.
pub(super) struct Wiring<'a> {
    pub hooks: &'a [HookConfig],
    /// The checks run after a matching file is written (`checks:`).
    pub checks: &'a [CheckConfig],
    pub guard: &'a Guard,
    pub mcp: &'a mcp::Manager,
    /// `lean_below` / `lean_tools` from the config.
    pub lean: &'a config::lean::LeanConfig,
    /// The skills of the run (a project's only when it is trusted): named in the system prompt,
    /// loaded by the `skill` tool.
    pub skills: &'a [Skill],
    /// The directories added besides the project (`--add-dir`, `add_dirs:`): named in the
    /// system prompt.
    pub add_dirs: &'a [config::AddDir],
}

impl<'a> Wiring<'a> {
    /// The wiring of a run: its config's hooks, checks and lean settings, and what the run set
    /// up (guard, MCP servers, skills).
    pub(super) fn of(config: &'a config::Config, guard: &'a Guard, mcp: &'a mcp::Manager, skills: &'a [Skill]) -> Self {
        let (hooks, checks, lean, add_dirs) = (&config.hooks, &config.checks, &config.lean, &config.add_dirs);
        Wiring { hooks, checks, guard, mcp, lean, skills, add_dirs }
    }
}

/// The agent for a run: provider, tools, permission gate and the system prompt. It serves any
/// conversation: the session (id, log, context state) is the conversation's.
pub(super) fn build_agent(
    launch: &Launch,
    provider_config: &ProviderConfig,
    wiring: &Wiring<'_>,
    front_end: FrontEnd,
) -> Result<Arc<Agent>, Exit> {
    let Launch { workspace, options, env } = launch;
    let Wiring { hooks, checks, guard, mcp, lean, skills, add_dirs } = wiring;
    let sandbox = &guard.sandbox;
    let net = NetEnv::from_vars(env.pairs());
    let provider = provider::connect(provider_config, &net).map_err(|err| Exit::Config(err.to_string()))?;
    let (root, subdir, model) = (workspace.root.clone(), workspace.subdir(), provider_config.model.clone());
    let search_path = env.get("PATH").unwrap_or_else(|| super::search_path::FALLBACK.to_string());
    let added: Vec<(String, bool)> =
        add_dirs.iter().map(|dir| (dir.path.display().to_string(), dir.writable)).collect();
    let environment = Environment::gathered(move || {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
        prompt::environment_prompt(&prompt::Environment {
            cwd: root.display().to_string(),
            subdir: subdir.clone(),
            os: std::env::consts::OS.to_string(),
            date: crate::clock::local_date(now.map_or(0, |elapsed| elapsed.as_secs())),
            model: model.clone(),
            git: prompt::gather_git(&root, &search_path),
            added: added.clone(),
        })
    });
    // Model-written commands see only these variables: no API keys or tokens leak into them. PATH
    // is the safe one (`search_path`): only absolute entries.
    let bash_env: Vec<(String, String)> =
        ["PATH", "HOME", "LANG", "TERM"].iter().filter_map(|name| Some((name.to_string(), env.get(name)?))).collect();
    // Checks read what the model wrote: confined, in the commands' environment, whoever wrote them.
    let checks = Checks::new(checks.to_vec(), workspace.root.clone(), bash_env.clone(), Arc::clone(sandbox));
    let mut registry = Registry::with_builtins(bash_env, Arc::clone(sandbox), Arc::clone(&guard.jobs));
    // MCP tools before the task tool, so sub-agents see the read-only ones too.
    mcp.register_tools(&mut registry);
    // Only with skills: a run without any pays nothing for the tool's definition.
    if !skills.is_empty() {
        registry.register(Arc::new(SkillTool::new(skills.to_vec())));
    }
    let toolbox = Arc::new(Toolbox {
        provider,
        max_tokens: provider_config.max_tokens,
        gate: Arc::clone(&guard.gate),
        // Hooks are the user's own commands: they get the whole host environment.
        hooks: Hooks::new(hooks.to_vec(), workspace.root.clone(), env.pairs().collect(), Arc::clone(sandbox)),
        checks,
        environment,
        silent_truncation: silent_truncation(provider_config),
    });
    let instructions = workspace.instructions();
    let appended = options.append_system_prompt.as_deref();
    let lean_prompt = prompt::lean_prompt(&instructions) + &prompt_skills::lean_skills_section(skills);
    let lean = Lean::below(lean.below, with_appended(lean_prompt, appended), lean.tools.clone());
    // The same Arc as the agent's: the sub-agent runs with this agent's gate and hooks, and on
    // this agent's window (lean or not).
    let task = TaskTool::new(Arc::clone(&toolbox), &registry, lean.applies(provider_config.context_window));
    registry.register(Arc::new(task));
    // Offloaded tool results live in each session's directory (SPEC §1.2), under the root so
    // read_file can read them back.
    let context_config = crate::context::ContextConfig {
        // Resolved once by the config (never 0: a missing window is the protocol's default).
        window: provider_config.context_window,
        compact_at: provider_config.compact_at,
        sessions_dir: Some(crate::context::offload::DirBeneath {
            base: workspace.root.clone(),
            rel: PathBuf::from(crate::session::SESSIONS_REL),
        }),
    };
    Ok(Arc::new(Agent {
        toolbox,
        registry,
        stable_prompt: with_appended(
            prompt::stable_prompt(&instructions) + &prompt_skills::skills_section(skills),
            appended,
        ),
        settings: Settings {
            root: workspace.root.clone(),
            max_iterations: options.max_iterations.unwrap_or(MAX_ITERATIONS),
            unknown_tool_limit: UNKNOWN_TOOL_LIMIT,
            front_end,
            turn_hooks: true,
            checkpoints: Some(crate::checkpoint::Coverage {
                project: workspace.root.clone(),
                extra: sandbox.extra_writable(),
            }),
            lean,
            image_refusal: provider_config.image_refusal(),
        },
        context: context_config,
    }))
}

/// The stable prompt with the user's `--append-system-prompt` text after it.
fn with_appended(stable: String, appended: Option<&str>) -> String {
    match appended {
        Some(text) => format!("{stable}\n\n{text}"),
        None => stable,
    }
}

/// Whether (and from which estimate) a reported prompt far below the estimate means the server
/// cut it: only OpenAI-compatible servers of one's own cut silently, and a prompt under 80 % of
/// a window the server reported fits (the estimate overshoots ordinary text), so a server that
/// leaves cached tokens out of its count cannot pass for one that cut the prompt.
fn silent_truncation(provider: &ProviderConfig) -> Option<u64> {
    let own_server = provider.is_own_openai_server();
    let floor = match provider.window_source {
        config::WindowSource::Discovered { .. } => provider.context_window / 5 * 4,
        config::WindowSource::Configured | config::WindowSource::Default => 0,
    };
    own_server.then_some(floor)
}
