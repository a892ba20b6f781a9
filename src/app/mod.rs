//! Wiring: turns the parsed command line, the environment and the working directory into a run.
//!
//! Invariant: the only module that reads the process environment or the current directory;
//! everything below receives them as values. It returns an `Exit`; `main.rs` maps it to a code.
//! Each command runs in one `Launch` (workspace, options, environment), which every step takes.
//!
//! - `mod.rs` — `main`, `Exit`, the environment snapshot (`Env`), the `Launch` and its loaders
//!   (config, trust, permission rules), the `Workspace`
//! - `run.rs` — a run: the guard, MCP servers and the agent, then `-p` or the REPL
//! - `sandbox.rs` — the sandbox of a run's commands: temp dir, added directories, network policy
//! - `wiring.rs` — the agent of a run: its guard (gate, sandbox), its wiring and `build_agent`
//! - `repl_host.rs` — what the REPL asks of the program (`repl::Host`), answered with the run's wiring
//! - `sessions.rs` — which session a run logs to, and `mewcode sessions`
//! - `rewind.rs` — `mewcode rewind`: a session's turns, and files and conversation put back
//! - `setup.rs` — choosing the provider (configured, environment, local probe, else the guide)
//! - `commands.rs` — doctor, check and the mcp subcommands
//! - `network.rs` — the run's network policy for commands, from config, local settings and trust
//! - `stdin.rs` — piped stdin as (part of) the prompt
//! - `search_path.rs` — PATH as children get it
#![expect(clippy::print_stdout, clippy::print_stderr, reason = "--help and --version on stdout, warnings on stderr")]

mod commands;
mod network;
mod repl_host;
mod rewind;
mod run;
mod sandbox;
mod search_path;
mod sessions;
mod setup;
mod stdin;
mod wiring;

use crate::agent::prompt;
use crate::cli::{Command, HELP, Options, UsageError, parse_args};
use crate::config::{self, Config, ConfigError, LoadOptions, skills};
use crate::glyphs::Glyphs;
use crate::permission::book::RuleFiles;
use crate::permission::rules::{Level, RuleSet, RuleTexts};
use crate::permission::store;
use crate::session::Owner;
use crate::text::neutralize;
use crate::warning::Warning;
use commands::{run_check, run_doctor, run_mcp_accept, run_mcp_add, run_mcp_call, run_mcp_list, run_mcp_remove};
use run::run;
use sessions::run_sessions;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Warnings on stderr, one neutralised line each (`mewcode: warning: …`).
fn say_warnings(warnings: &[Warning]) {
    for warning in warnings {
        eprintln!("mewcode: warning: {}", neutralize(&warning.to_string()));
    }
}

/// How a run ended, mapped to the exit codes of SPEC §1.1 by `code`.
#[derive(Debug)]
pub enum Exit {
    /// Done.
    Ok,
    /// A usage error (bad flag or value).
    Usage(UsageError),
    /// A config error, no provider and nothing local to talk to, or a session to resume that
    /// does not exist (exit 2; the message names its own fix).
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

/// The process environment, read once, with PATH as children get it (`search_path`).
pub(crate) struct Env {
    vars: HashMap<String, String>,
    /// How PATH was made safe for children; its warning is said at start-up.
    search_path: search_path::SearchPath,
}

impl Env {
    /// Snapshots the process environment (non-UTF-8 values are skipped).
    fn from_process() -> Env {
        Env::from_vars(
            std::env::vars_os().filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?))).collect(),
        )
    }

    /// `vars` with PATH replaced by its absolute entries (or the fallback), so that everything
    /// handed the environment — the bash tool, hooks, MCP servers — gets the same safe PATH.
    fn from_vars(mut vars: HashMap<String, String>) -> Env {
        let search_path = search_path::plan_search_path(vars.get("PATH").map(String::as_str));
        vars.insert("PATH".to_string(), search_path.value.clone());
        Env { vars, search_path }
    }

    /// The start-up notice naming the PATH entries children do not get, if any.
    pub(crate) fn path_warning(&self) -> Option<Warning> {
        self.search_path.warning()
    }

    /// Every variable, for settings that look at many (proxies).
    pub(crate) fn pairs(&self) -> impl Iterator<Item = (String, String)> + '_ {
        self.vars.iter().map(|(name, value)| (name.clone(), value.clone()))
    }

    /// One variable, if set.
    pub(crate) fn get(&self, name: &str) -> Option<String> {
        self.vars.get(name).cloned()
    }
}

/// What may be written to a terminal: colour (SGR) escapes, cursor movement (the spinner's
/// redraws, the line editor's repainting, the `/resume` picker), and which symbols.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TerminalStyle {
    pub color: bool,
    pub cursor: bool,
    /// Unicode symbols when the locale is UTF-8, else ASCII (`locale_is_utf8`).
    pub glyphs: &'static Glyphs,
}

/// The one decision about escapes and symbols, for every front end: no escapes unless the
/// stream is a terminal; `TERM=dumb` means neither colour nor cursor movement (SPEC §1.1;
/// rustyline then reads plain lines too, by the same test); `NO_COLOR` with any non-empty value
/// (no-color.org) means no colour, and leaves line editing as it is. The symbols follow the
/// locale alone (`utf8`): a pipe or a file gets the bytes the terminal would.
fn plan_terminal_style(is_terminal: bool, term: Option<&str>, no_color: Option<&str>, utf8: bool) -> TerminalStyle {
    let capable = is_terminal && term != Some("dumb");
    TerminalStyle { color: capable && no_color.is_none_or(str::is_empty), cursor: capable, glyphs: Glyphs::pick(utf8) }
}

/// Whether the locale's character set is UTF-8, the way the C library decides it: the first
/// non-empty of `LC_ALL`, `LC_CTYPE` and `LANG` names the locale (none: the C locale), and its
/// codeset — between the `.` and an `@modifier` — is UTF-8 when it reads `UTF-8` or `utf8` in
/// any case. `C`, `POSIX` and a locale without a codeset (`en_US`, ISO-8859-1 by default) are not.
fn locale_is_utf8(lc_all: Option<&str>, lc_ctype: Option<&str>, lang: Option<&str>) -> bool {
    let Some(locale) = [lc_all, lc_ctype, lang].into_iter().flatten().find(|value| !value.is_empty()) else {
        return false;
    };
    let name = locale.split('@').next().unwrap_or(locale);
    let Some((_, codeset)) = name.split_once('.') else { return false };
    codeset.eq_ignore_ascii_case("utf-8") || codeset.eq_ignore_ascii_case("utf8")
}

impl Env {
    /// `plan_terminal_style` for a stream, with this environment's `TERM`, `NO_COLOR` and locale.
    pub(crate) fn terminal_style(&self, is_terminal: bool) -> TerminalStyle {
        plan_terminal_style(is_terminal, self.get("TERM").as_deref(), self.get("NO_COLOR").as_deref(), self.utf8())
    }

    /// The symbols of this environment's locale (what `terminal_style` picks, for output that
    /// is not about a terminal's escapes).
    pub(crate) fn glyphs(&self) -> &'static Glyphs {
        Glyphs::pick(self.utf8())
    }

    fn utf8(&self) -> bool {
        locale_is_utf8(self.get("LC_ALL").as_deref(), self.get("LC_CTYPE").as_deref(), self.get("LANG").as_deref())
    }
}

/// Runs mewcode with the arguments after the program name.
pub fn main(args: &[String]) -> Exit {
    let command = match parse_args(args) {
        Ok(command) => command,
        Err(err) => return Exit::Usage(err),
    };
    let env = Env::from_process();
    // The API keys live in our memory and environment: no command we run may read them through
    // /proc. A failure only loses this layer (the sandbox forbids the same from commands).
    let _ = crate::sys::make_non_dumpable();
    match command {
        Command::Help => {
            print!("{HELP}");
            Exit::Ok
        }
        Command::Version => {
            println!("mewcode {}", env!("CARGO_PKG_VERSION"));
            Exit::Ok
        }
        Command::Doctor(options) => Launch::start(options, env, |launch| run_doctor(&launch)),
        Command::Run(options) => Launch::start(options, env, run),
        Command::McpList { options, json, url } => {
            Launch::start(options, env, |launch| run_mcp_list(&launch, json, url.as_deref()))
        }
        Command::McpCall { options, target, tool, json } => {
            Launch::start(options, env, |launch| run_mcp_call(&launch, &target, &tool, json.as_deref()))
        }
        Command::McpAccept { options, server } => {
            Launch::start(options, env, |launch| run_mcp_accept(&launch, &server))
        }
        Command::McpAdd { options, request } => Launch::start(options, env, |launch| run_mcp_add(&launch, &request)),
        Command::McpRemove { options, server, scope } => {
            Launch::start(options, env, |launch| run_mcp_remove(&launch, &server, scope))
        }
        Command::Sessions { options, json } => Launch::start(options, env, |launch| run_sessions(&launch, json)),
        Command::Check { options, tool, json } => {
            Launch::start(options, env, |launch| run_check(&launch, &tool, &json))
        }
        Command::Rewind { options, json, request } => {
            Launch::start(options, env, |launch| rewind::run_rewind(&launch, json, &request))
        }
    }
}

/// One start of mewcode for a command: where it runs, what the command line asked and the
/// environment it was given. Every step of app/ reads these three together, so each takes the
/// launch instead of the three apart; what a step adds (the config, the owner, the provider) it
/// passes on itself.
struct Launch {
    workspace: Workspace,
    options: Options,
    env: Env,
}

impl Launch {
    /// Resolves the workspace of `options` and runs `command` in it (or returns why it could not
    /// be resolved).
    fn start(options: Options, env: Env, command: impl FnOnce(Launch) -> Exit) -> Exit {
        match Workspace::new(&options, &env) {
            Ok(workspace) => command(Launch { workspace, options, env }),
            Err(exit) => exit,
        }
    }

    /// --trust, or the user said yes to exactly these project files before.
    fn project_trusted(&self) -> bool {
        self.options.trust || config::trust::is_trusted(&self.workspace.home, &self.workspace.root)
    }

    fn load_config(&self) -> Result<(Config, Vec<Warning>), ConfigError> {
        let lookup = |name: &str| self.env.get(name);
        let (mut config, mut warnings) = config::load_config(&LoadOptions {
            home: &self.workspace.home,
            root: &self.workspace.root,
            extra: self.options.config.as_deref(),
            project_trusted: self.project_trusted(),
            lookup: &lookup,
        })?;
        self.add_dirs(&mut config.add_dirs, &mut warnings)?;
        Ok((config, warnings))
    }

    /// `--add-dir` entries added to the config's: each resolved against the working directory
    /// (the `-C` one), an unusable one an error naming it.
    fn add_dirs(&self, dirs: &mut Vec<config::AddDir>, warnings: &mut Vec<Warning>) -> Result<(), ConfigError> {
        let home = self.env.get("HOME").filter(|home| !home.is_empty()).map(PathBuf::from);
        let places = config::add_dirs::Places {
            home: home.as_deref(),
            mewcode_home: &self.workspace.home,
            root: &self.workspace.root,
        };
        for spec in &self.options.add_dirs {
            let failed = |message| ConfigError { file: "--add-dir".to_string(), key_path: String::new(), message };
            match config::add_dirs::resolve(spec, "--add-dir", &self.workspace.cwd, &places).map_err(failed)? {
                Some(dir) => config::add_dirs::push(dirs, dir),
                None => {
                    warnings.push(Warning::new("--add-dir", format!("{spec} is inside the project; nothing to add")))
                }
            }
        }
        Ok(())
    }

    /// What the project's own files would enable once trusted (empty when trusted already or
    /// when it brings nothing): its config entries, its settings' allow rules and its slash
    /// commands. Not the local settings file's: those apply by mewcode's mark on it, never by
    /// trust.
    fn untrusted_items(&self, config: &Config) -> Vec<String> {
        if self.project_trusted() {
            return Vec::new();
        }
        let mut items = config.untrusted_project.clone();
        for (level, path) in store::settings_paths(&self.workspace.root, &self.workspace.home) {
            if let (Level::Project, Ok(texts)) = (level, store::load_rule_texts(&path)) {
                items.extend(texts.allow.iter().map(|rule| format!("allow rule {rule} ({})", level.as_str())));
            }
        }
        // The project's own slash commands send their text to the model as the person's prompt.
        items.extend(crate::repl::describe_command_dirs(&self.workspace.project_command_dirs()));
        // Its skills are instructions the model is told to follow.
        items.extend(skills::describe_skill_dirs(&self.workspace.skill_dirs().1));
        items
    }

    /// The skills of a run: the user's, then the project's when `trusted` (else a warning per
    /// folder says they wait for trust); the problems of the files found added to `warnings`.
    fn skills(&self, trusted: bool, warnings: &mut Vec<Warning>) -> Vec<skills::Skill> {
        let (mut dirs, project) = self.workspace.skill_dirs();
        if trusted {
            dirs.extend(project);
        } else {
            for line in skills::describe_skill_dirs(&project) {
                warnings.push(Warning::new("", format!("{line}: not loaded until you trust this project")));
            }
        }
        let (found, problems) = skills::load_skills(&dirs);
        warnings.extend(problems);
        found
    }

    /// The rule texts of the three settings files. Deny rules always apply; allow rules of the
    /// project file only when the project is trusted, and of the local file only when it carries
    /// this installation's mark (`store::load_local_rule_texts`: mewcode wrote it, and nothing
    /// changed it since), trusted or not: a command or a clone can write that file. A malformed
    /// deny (or ask) rule stops start-up. With the texts come where they were read and which
    /// allow rules do not apply (`RuleFiles`, for `/permissions`).
    fn load_permissions(
        &self,
        owner: &Owner,
        warnings: &mut Vec<Warning>,
    ) -> Result<(Vec<(Level, RuleTexts)>, RuleFiles), Exit> {
        let (root, home) = (&self.workspace.root, &self.workspace.home);
        let trusted = self.project_trusted();
        let mut files = RuleFiles {
            root: root.clone(),
            user_home: Some(home.clone()),
            project_trusted: trusted,
            local_mark: store::Mark::Ours,
        };
        let mut levels = Vec::new();
        for (level, path) in store::settings_paths(root, home) {
            // When its allow rules are ignored: the words before the list of them, and after.
            let (mut texts, ignored) = match level {
                // `settings_paths` names no session file: the session's rules live in memory.
                Level::User | Level::Session | Level::Invocation => {
                    (store::load_rule_texts(&path).map_err(Exit::Config)?, None)
                }
                Level::Project => {
                    let ignored =
                        (!trusted).then(|| ("ignored until you trust this project", "; deny rules apply".to_string()));
                    (store::load_rule_texts(&path).map_err(Exit::Config)?, ignored)
                }
                Level::Local => {
                    let (texts, mark) = store::load_local_rule_texts(&path, owner).map_err(Exit::Config)?;
                    files.local_mark = mark;
                    (texts, (mark != store::Mark::Ours).then(|| ("ignored", unmarked_local(mark))))
                }
            };
            if let Some((before, after)) = ignored
                && !texts.allow.is_empty()
            {
                let message =
                    format!("{} allow rule(s) {before} ({}){after}", texts.allow.len(), texts.allow.join(", "));
                warnings.push(Warning::new(path.display().to_string(), message));
                texts.allow.clear();
            }
            levels.push((level, texts));
        }
        let invocation = self.invocation_rules()?;
        if invocation != RuleTexts::default() {
            levels.insert(0, (Level::Invocation, invocation));
        }
        let (_, problems) = RuleSet::from_texts(levels.clone());
        for problem in problems {
            let file = store::settings_paths(root, home)
                .into_iter()
                .find(|(level, _)| *level == problem.level)
                .map_or_else(|| self.invocation_sources(), |(_, path)| path.display().to_string());
            if problem.is_fatal() {
                return Err(Exit::Config(format!(
                    "{file}: {problem} (a broken {} rule would leave you unprotected)",
                    problem.list.as_str()
                )));
            }
            warnings.push(Warning::new(file, problem.to_string()));
        }
        Ok((levels, files))
    }

    /// The rules of this run only: the `permissions:` block of the `--config` file, then
    /// `--allowedTools` (allow) and `--disallowedTools` (deny).
    fn invocation_rules(&self) -> Result<RuleTexts, Exit> {
        let mut texts = match &self.options.config {
            Some(path) => store::load_rule_texts(path).map_err(Exit::Config)?,
            None => RuleTexts::default(),
        };
        texts.allow.extend(self.options.allowed_tools.iter().cloned());
        texts.deny.extend(self.options.disallowed_tools.iter().cloned());
        Ok(texts)
    }

    /// Where this run's rules were given, for a message about one of them.
    fn invocation_sources(&self) -> String {
        match &self.options.config {
            Some(path) => format!("{} or --allowedTools/--disallowedTools", path.display()),
            None => "--allowedTools/--disallowedTools".to_string(),
        }
    }
}

/// Where mewcode runs: the user directory, the project root and the working directory, all
/// resolved. The root (git top level, else the working directory: `config::project`) is where
/// config, settings, sessions and the sandbox's write scope live; the working directory only
/// adds the instruction files between the root and it, and tells the model where the user is.
struct Workspace {
    home: PathBuf,
    root: PathBuf,
    cwd: PathBuf,
    /// How the root was chosen (doctor says it).
    root_kind: config::project::RootKind,
    /// The user's home directory (`$HOME`, resolved), when set: where the personal instruction
    /// file's imports may reach besides `home`.
    user_home: Option<PathBuf>,
}

impl Workspace {
    fn new(options: &Options, env: &Env) -> Result<Workspace, Exit> {
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
        let cwd = match std::fs::canonicalize(&cwd) {
            Ok(cwd) if cwd.is_dir() => cwd,
            Ok(_) => return Err(Exit::Usage(UsageError(format!("--cwd: {} is not a directory", cwd.display())))),
            Err(err) => return Err(Exit::Usage(UsageError(format!("--cwd: {}: {err}", cwd.display())))),
        };
        let user_home =
            env.get("HOME").filter(|home| !home.is_empty()).and_then(|home| std::fs::canonicalize(home).ok());
        let (root, root_kind) = config::project::find_root(&cwd, crate::sys::current_uid(), user_home.as_deref());
        Ok(Workspace { home, root, cwd, root_kind, user_home })
    }

    /// The instruction files of this run (root down to the working directory, then personal).
    fn instructions(&self) -> prompt::Instructions {
        prompt::load_instructions(&self.root, &self.cwd, &self.home, self.user_home.as_deref())
    }

    /// The project's own command folders: none of `$MEWCODE_HOME` (in `~`, `.mewcode/commands`
    /// is the user's folder, loaded as the user's).
    fn project_command_dirs(&self) -> Vec<crate::repl::CommandDir> {
        let mut dirs = crate::repl::project_command_dirs(&self.root);
        if self.shares_user_dir() {
            dirs.retain(|dir| dir.path != self.root.join(".mewcode/commands"));
        }
        dirs
    }

    /// The skill folders of this run: (the user's, the project's), first wins.
    fn skill_dirs(&self) -> (Vec<skills::SkillDir>, Vec<skills::SkillDir>) {
        skills::skill_dirs(&self.root, &self.home, self.user_home.as_deref())
    }

    /// True in `~` with the default `~/.mewcode`: the project's `.mewcode` is the user directory
    /// (`config::project::shares_user_dir`).
    fn shares_user_dir(&self) -> bool {
        config::project::shares_user_dir(&self.root, &self.home)
    }

    /// Where the user started, relative to the root, when it is not the root itself.
    fn subdir(&self) -> Option<String> {
        let rel = self.cwd.strip_prefix(&self.root).ok()?;
        (!rel.as_os_str().is_empty()).then(|| rel.display().to_string())
    }
}

/// Why the local file's allow rules are ignored, and what to do about it (the end of a warning
/// that lists them).
fn unmarked_local(mark: store::Mark) -> String {
    format!(
        ": {}; deny rules apply. Review the file, then delete it or move the rules you want to \
         .mewcode/settings.yaml; the next \"always\" answer moves it aside to settings.local.yaml.rejected and \
         starts a new one with mewcode's mark",
        mark.why()
    )
}

#[cfg(test)]
mod tests;
