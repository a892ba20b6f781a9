//! What the REPL starts with: the values of the run (`Setup`) and the program that started it
//! (`Host`), which builds agents, asks providers for their window and drives the MCP servers.
//!
//! Invariant: the REPL reaches the wiring only through `Host`, so it never builds a provider,
//! reads the environment or touches an MCP connection itself (`app/` does, in `repl_host.rs`).

use crate::agent::Agent;
use crate::config::ProviderConfig;
use crate::glyphs::Glyphs;
use crate::mode::Mode;
use crate::session;
use crate::warning::Warning;
use std::path::PathBuf;
use std::sync::Arc;

/// What the REPL asks of the program that started it (`app/` implements it).
pub(crate) trait Host {
    /// Builds an agent for a provider, for `/model`; the conversation, with its session and
    /// context state, carries over to it.
    fn connect(&self, provider: &ProviderConfig) -> Result<Arc<Agent>, String>;
    /// Asks a provider's server for its context window before `/model` switches to it; a notice
    /// when it stays a default or is assumed.
    fn discover(&self, provider: &mut ProviderConfig) -> Option<String>;
    /// Drops what discovery remembers for a provider whose request failed for the window, so the
    /// next start asks the server again; a notice when there was something to drop (or it could
    /// not be written).
    fn forget_window(&self, provider: &ProviderConfig) -> Option<String>;
    /// What discovery remembers for a provider (window, source, age), for `/status`; `None` when
    /// its window is configured or never asked for.
    fn remembered_window(&self, provider: &ProviderConfig) -> Option<String>;
    /// The MCP servers' status, rendered for `/mcp`.
    fn mcp_status(&self) -> String;
    /// The network policy for commands and the hosts asked about this session, for `/status`
    /// (empty without a policy).
    fn network_status(&self) -> Vec<String>;
    /// One line per background job (`/jobs`), empty when there is none.
    fn jobs_status(&self) -> Vec<String>;
    /// The directories added besides the project (`--add-dir`), one described line each.
    fn added_dirs(&self) -> Vec<String>;
    /// `/mcp reconnect NAME`: starts connecting the server again (its outcome arrives on
    /// `Setup::background`); `Err` says why not.
    fn mcp_reconnect(&self, name: &str) -> Result<(), String>;
}

/// Everything the REPL starts with.
pub(crate) struct Setup<'a> {
    pub version: &'static str,
    /// `mewcode "task"`: sent as the first message once the session is chosen.
    pub first_prompt: Option<String>,
    /// The project root (approval previews read files relative to it).
    pub root: PathBuf,
    /// Every configured provider, for `/model`.
    pub providers: Vec<ProviderConfig>,
    /// The provider in use and its agent.
    pub provider: ProviderConfig,
    pub agent: Arc<Agent>,
    pub mode: Mode,
    /// Shift-Tab may reach bypass: the session started in it (`--mode bypass`) or the user's own
    /// config says `bypass_in_mode_cycle: true`.
    pub bypass_in_cycle: bool,
    pub warnings: Vec<Warning>,
    /// Colour escapes allowed (stdout is a TTY, `TERM` not dumb, NO_COLOR unset).
    pub color: bool,
    /// Cursor movement allowed (stdout is a TTY, `TERM` not dumb): the spinner and the
    /// `/resume` picker.
    pub animate: bool,
    /// The symbols of our own output: Unicode, or ASCII when the locale is not UTF-8.
    pub glyphs: &'static Glyphs,
    /// The program that started the REPL: agents for `/model`, windows, MCP servers.
    pub host: &'a dyn Host,
    /// The servers' progress for the status line (`mcp 1/2` while some are starting).
    pub mcp_probe: crate::mcp::Probe,
    /// What happens in the background (MCP servers connecting or failing, warnings raised during
    /// tool calls), said before the next prompt.
    pub background: Option<crossbeam_channel::Receiver<Background>>,
    /// Where sessions are logged and which one to start with.
    pub sessions: Sessions,
    /// How commands are confined: the summary line and the status (off and unavailable are
    /// shown in warning colours).
    pub sandbox: (String, crate::confine::Status),
    /// `--verbose`: each tool's output in full under its line, not only its first line.
    pub verbose: bool,
    /// How a waiting approval calls the person (`notify:`).
    pub notify: crate::config::Notify,
    /// The person's editor for Ctrl-G (`$VISUAL`, else `$EDITOR`; `vi` when neither is set).
    pub editor: Option<String>,
    /// The person's own commands, loaded from the folders the wiring chose (a project's only
    /// when it is trusted); those a built-in shadows are dropped when the REPL starts.
    pub custom_commands: Vec<super::CustomCommand>,
    /// The skills the model can load (`/skills` lists them).
    pub skills: Vec<crate::config::skills::Skill>,
    /// The instruction files in the system prompt (`AGENTS.md`, …): the name shown and the
    /// characters they add, for `/context`.
    pub instruction_files: Vec<(String, usize)>,
}

impl Setup<'_> {
    /// Every configured provider, the one in use as resolved at start-up (its window possibly
    /// discovered).
    pub(super) fn known_providers(&self) -> Vec<ProviderConfig> {
        let mut providers = self.providers.clone();
        match providers.iter_mut().find(|provider| provider.name == self.provider.name) {
            Some(entry) => *entry = self.provider.clone(),
            None => providers.push(self.provider.clone()),
        }
        providers
    }
}

/// The REPL's session wiring, from app.rs.
pub(crate) struct Sessions {
    /// `<root>/.mewcode/sessions`.
    pub dir: PathBuf,
    /// This installation's mark: new sessions carry it, listings flag sessions without it.
    pub owner: session::Owner,
    pub start: Start,
}

/// What the REPL does about sessions at start-up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Start {
    /// A new session at the first prompt.
    New,
    /// `--continue` / `--resume ID`: this session (its existence already checked).
    Resume(String),
    /// `--resume` alone: show the list to pick from.
    Picker,
}

/// Something that happened in the background.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Background {
    /// An MCP server connected or failed (at start-up or after `/mcp reconnect`).
    Mcp(crate::mcp::Update),
    /// A warning raised later (an MCP tool returned an image, a changed tool list failed...).
    Warning(Warning),
}
