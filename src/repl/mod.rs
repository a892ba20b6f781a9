//! The interactive front end (SPEC §9): a banner, then a loop of status line + prompt, slash
//! commands, and turns rendered as they stream.
//!
//! Invariant: one `Conversation` per session (until `/clear`); the agent is only driven through
//! `Agent::run` and its events (`turn.rs`). The REPL never installs signal handlers itself:
//! `app.rs` installs Ctrl-C handling after `LineEditor::open` and hands in the `Interrupts`
//! counter it bumps. Decisions (what a Ctrl-C at the prompt means, what a command does) are pure
//! functions; this file wires them to the terminal.
#![allow(clippy::print_stdout)]

pub mod approve;
pub mod commands;
pub mod diff;
mod editor;
pub mod render;
pub mod sessions;
mod terminal;
mod turn;

use crate::agent::{Agent, Conversation, Stop};
use crate::config::ProviderConfig;
use crate::mode::Mode;
use crate::msg::{History, Usage};
use crate::text::neutralize;
use crate::warning::Warning;
use commands::{COMMANDS, Command, ModelChoice, parse_command};
pub use editor::LineEditor;
use editor::{Input, StatusFigures};
use render::{BOLD, DIM, RED, YELLOW, human_count, paint};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use terminal::{Key, read_key};
use turn::{TurnContext, TurnEnd, run_compact, run_turn};

/// Ctrl-C presses, counted by the signal handler `app.rs` installs and polled by the REPL.
#[derive(Clone, Debug, Default)]
pub struct Interrupts {
    presses: Arc<AtomicU64>,
}

impl Interrupts {
    pub fn new() -> Interrupts {
        Interrupts::default()
    }

    /// Called from the signal handler: one more press. Only an atomic add, nothing else.
    pub fn press(&self) {
        self.presses.fetch_add(1, Ordering::SeqCst);
    }

    /// Presses so far; a change since the last look means "interrupt".
    pub fn count(&self) -> u64 {
        self.presses.load(Ordering::SeqCst)
    }
}

/// Builds an agent for a provider (app.rs's wiring), for `/model`.
/// Builds an agent for a provider and the session it logs under (hooks see the id; offloaded
/// tool results go to that session's directory).
pub type Connect<'a> = Box<dyn Fn(&ProviderConfig, &str) -> Result<Arc<Agent>, String> + 'a>;

/// Starts connecting an MCP server again (`mcp::Manager::reconnect`, wired by app.rs).
pub type Reconnect<'a> = Box<dyn Fn(&str) -> Result<(), String> + 'a>;

/// Asks a provider's server for its context window (`llm::discovery`, wired by app.rs).
pub type Discover<'a> = Box<dyn Fn(&mut ProviderConfig) -> Option<String> + 'a>;

/// Everything the REPL starts with.
pub struct Setup<'a> {
    pub version: &'static str,
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
    /// Colour escapes allowed (stdout is a TTY, NO_COLOR unset).
    pub color: bool,
    /// Stdout is a TTY (spinner).
    pub animate: bool,
    pub connect: Connect<'a>,
    /// Asks a provider's server for its context window before `/model` switches to it (the
    /// app's `llm::discovery` wiring); returns a notice when it stays a default or is assumed.
    pub discover: Discover<'a>,
    /// The session id `agent` was built for.
    pub session_id: String,
    /// The MCP servers' status, rendered for `/mcp`.
    pub mcp_status: Box<dyn Fn() -> String + 'a>,
    /// `/mcp reconnect NAME`: starts connecting the server again (its outcome arrives on
    /// `background`); `Err` says why not.
    pub mcp_reconnect: Reconnect<'a>,
    /// The servers' progress for the status line (`mcp 1/2` while some are starting).
    pub mcp_probe: crate::mcp::Probe,
    /// What happens in the background (MCP servers connecting or failing, warnings raised during
    /// tool calls), said before the next prompt.
    pub background: Option<crossbeam_channel::Receiver<Background>>,
    /// Where sessions are logged and which one to start with.
    pub sessions: sessions::Sessions,
    /// How commands are confined: the summary line and the status (off and unavailable are
    /// shown in warning colours).
    pub sandbox: (String, crate::confine::Status),
}

/// Something that happened in the background.
#[derive(Clone, Debug, PartialEq)]
pub enum Background {
    /// An MCP server connected or failed (at start-up or after `/mcp reconnect`).
    Mcp(crate::mcp::Update),
    /// A warning raised later (an MCP tool returned an image, a changed tool list failed...).
    Warning(Warning),
}

/// How a background event is shown: one dim line for a server that connected, a yellow `⚠` line
/// per warning (a failed server's warning says why).
pub fn render_background(event: &Background, color: bool) -> String {
    let warning = |warning: &Warning| paint(color, YELLOW, &format!("⚠ {}", neutralize(&warning.to_string())));
    match event {
        Background::Mcp(update) => {
            let mut lines = Vec::new();
            if let Some(count) = update.tools {
                let plural = if count == 1 { "" } else { "s" };
                let text = format!("mcp server {} connected: {count} tool{plural}", neutralize(&update.server));
                lines.push(paint(color, DIM, &text));
            }
            lines.extend(update.warnings.iter().map(warning));
            lines.join("\n")
        }
        Background::Warning(found) => warning(found),
    }
}

/// How the REPL ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// `/exit`, Ctrl-D or a double Ctrl-C at the prompt.
    Exited,
    /// Ctrl-C twice during a turn.
    Interrupted,
    /// The terminal failed.
    Failed(String),
}

/// The state of one session: provider, agent, conversation, mode and token accounting.
pub struct Session {
    pub provider: ProviderConfig,
    pub agent: Arc<Agent>,
    /// The session id the agent was built for (`Setup::session_id` until /clear or /resume).
    pub agent_session: String,
    pub conversation: Conversation,
    pub mode: Mode,
    /// Everything used this session.
    pub usage: Usage,
    /// Some of `usage` was estimated from characters (the server sent none).
    pub usage_estimated: bool,
    /// The last response's prompt + output: how full the context window is.
    pub context_used: u64,
    /// `context_used` is an estimate (no usage from the server, or counted after a compaction).
    pub context_estimated: bool,
    /// A note for the model to add to the next prompt (a resumed session's stale-files note).
    pub note: Option<String>,
    /// The session list was just shown: a bare number on the next line picks one.
    pub picking: bool,
    /// A resumed history nearly fills the window: compact it before the next turn.
    pub compact_first: bool,
}

/// What a Ctrl-C at the prompt means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PromptInterrupt {
    /// The line had text: it is dropped, nothing else.
    ClearLine,
    /// First press on an empty line: say how to leave.
    Warn,
    /// Second press within `EXIT_WINDOW`.
    Exit,
}

/// How close two Ctrl-C presses at an empty prompt must be to exit.
pub const EXIT_WINDOW: Duration = Duration::from_secs(2);

/// Decides what a Ctrl-C at the prompt does, given the previous empty-line press.
pub fn plan_prompt_interrupt(had_text: bool, previous: Option<Instant>, now: Instant) -> PromptInterrupt {
    match (had_text, previous) {
        (true, _) => PromptInterrupt::ClearLine,
        (false, Some(previous)) if now.duration_since(previous) <= EXIT_WINDOW => PromptInterrupt::Exit,
        (false, Some(_) | None) => PromptInterrupt::Warn,
    }
}

/// Said when a session starts in bypass or `/mode bypass` turns it on.
const BYPASS_WARNING: &str =
    "⚠ BYPASS: tool calls run without asking (the blacklist, the sandbox and deny rules still apply)";

/// What the user is asked after the iteration cap or the unknown-tool stop.
const CONTINUE_PROMPT: &str = "Continue from where you stopped.";

/// Runs the REPL until the user leaves.
pub fn run(mut editor: LineEditor, setup: Setup, interrupts: Interrupts) -> Outcome {
    let mut providers = setup.providers.clone();
    // The provider in use as resolved at start-up (its window possibly discovered).
    match providers.iter_mut().find(|provider| provider.name == setup.provider.name) {
        Some(entry) => *entry = setup.provider.clone(),
        None => providers.push(setup.provider.clone()),
    }
    editor.set_providers(providers.iter().map(|provider| provider.name.clone()).collect());
    editor.set_mode(setup.mode);
    editor.set_bypass_in_cycle(setup.bypass_in_cycle);
    editor.set_mcp_probe(setup.mcp_probe.clone());
    let mut session = Session {
        provider: setup.provider.clone(),
        agent: Arc::clone(&setup.agent),
        agent_session: setup.session_id.clone(),
        conversation: Arc::new(Mutex::new(History::new())),
        mode: setup.mode,
        usage: Usage::default(),
        usage_estimated: false,
        context_used: 0,
        context_estimated: false,
        note: None,
        picking: false,
        compact_first: false,
    };
    print_banner(&setup, &session);
    sessions::start(&mut session, &setup);
    let mut last_interrupt: Option<Instant> = None;
    let mut seen_presses = interrupts.count();
    loop {
        let figures = StatusFigures {
            provider: session.provider.name.clone(),
            model: session.provider.model.clone(),
            context_used: session.context_used,
            context_window: context_window(&session.provider),
            session: session.usage,
            context_estimated: session.context_estimated,
            session_estimated: session.usage_estimated,
        };
        // What happened in the background since the last prompt (MCP servers that connected or
        // failed, late warnings) is said now, before the prompt: never lost, never in the middle
        // of a streamed answer.
        let mut news = false;
        for event in setup.background.iter().flat_map(|background| background.try_iter()) {
            say(&render_background(&event, setup.color));
            news = true;
        }
        // Between turns: a server that just connected shows in `/tools` at once (a turn refreshes
        // the registry anyway when it starts).
        if news {
            session.agent.registry.refresh();
        }
        // A Ctrl-C pressed between two prompts (while the editor was not reading keys) arrived
        // as a signal; it counts as one pressed at an empty prompt.
        let input = if interrupts.count() == seen_presses {
            editor.read(figures)
        } else {
            Input::Interrupted { had_text: false }
        };
        seen_presses = interrupts.count();
        let line = match input {
            Input::Line(line) => line,
            Input::Interrupted { had_text } => {
                let now = Instant::now();
                match plan_prompt_interrupt(had_text, last_interrupt, now) {
                    PromptInterrupt::ClearLine => {}
                    PromptInterrupt::Warn => {
                        say(&paint(setup.color, DIM, "(Ctrl-C again or Ctrl-D to exit)"));
                        last_interrupt = Some(now);
                    }
                    PromptInterrupt::Exit => return Outcome::Exited,
                }
                continue;
            }
            Input::Eof => return Outcome::Exited,
            Input::Failed(message) => return Outcome::Failed(message),
        };
        last_interrupt = None;
        // Shift-Tab at the prompt changed the editor's mode; it is the session's from now on.
        session.mode = editor.mode();
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        editor.remember(&line);
        if std::mem::take(&mut session.picking) && trimmed.parse::<usize>().is_ok() {
            sessions::pick(&mut session, &setup, trimmed);
            continue;
        }
        if trimmed.starts_with('/') {
            match parse_command(trimmed) {
                Ok(Command::Exit) => return Outcome::Exited,
                Ok(Command::Compact) => {
                    let context = turn_context(&setup, editor.width(), &interrupts);
                    if run_compact(&mut session, &context) == TurnEnd::Quit {
                        return Outcome::Interrupted;
                    }
                    seen_presses = interrupts.count();
                }
                Ok(command) => run_command(command, &mut session, &setup, &providers),
                Err(message) => say(&paint(setup.color, RED, &message)),
            }
            editor.set_mode(session.mode);
            continue;
        }
        let mut prompt = sessions::prepare_prompt(&mut session, &setup, line.trim_end());
        loop {
            let context = turn_context(&setup, editor.width(), &interrupts);
            if std::mem::take(&mut session.compact_first) && run_compact(&mut session, &context) == TurnEnd::Quit {
                return Outcome::Interrupted;
            }
            let end = run_turn(&mut session, &prompt, &context);
            // A blank line between the answer and the next status line.
            say("");
            match end {
                TurnEnd::Quit => return Outcome::Interrupted,
                TurnEnd::Stopped(Stop::IterationLimit | Stop::UnknownTools) if ask_continue(&setup, &interrupts) => {
                    prompt = CONTINUE_PROMPT.to_string();
                }
                TurnEnd::Stopped(
                    Stop::Completed | Stop::Cancelled | Stop::Failed | Stop::IterationLimit | Stop::UnknownTools,
                ) => break,
            }
        }
        // Presses during the turn (or the continue question) were theirs to handle.
        seen_presses = interrupts.count();
    }
}

/// The trust gate's question (SPEC §1.2): what the project's own config would enable, then
/// `[y/N]`, one key, default no. Everything listed comes from the repository and is neutralised.
pub fn ask_trust(root: &std::path::Path, items: &[String], color: bool, interrupts: &Interrupts) -> bool {
    println!(
        "{}",
        paint(
            color,
            YELLOW,
            &format!("This project ({}) has its own mewcode config:", neutralize(&root.display().to_string()))
        )
    );
    for item in items {
        println!("  - {}", neutralize(item));
    }
    println!("{}", paint(color, DIM, "Trusting it lets these run and apply here; deny rules apply either way."));
    print!("{} ", paint(color, BOLD, "trust this project? [y/N]"));
    let _ = std::io::Write::flush(&mut std::io::stdout());
    let yes = matches!(read_key(interrupts), Key::Byte(b'y' | b'Y'));
    say(if yes { "yes (remembered until these files change)" } else { "no (its config is ignored)" });
    yes
}

/// What a turn (or a `/compact`) renders with.
fn turn_context<'a>(setup: &'a Setup, width: usize, interrupts: &'a Interrupts) -> TurnContext<'a> {
    TurnContext {
        root: &setup.root,
        color: setup.color,
        animate: setup.animate,
        width,
        interrupts,
        log: &setup.sessions.recorder,
    }
}

/// `continue? [y/N]`, one key, default no.
fn ask_continue(setup: &Setup, interrupts: &Interrupts) -> bool {
    print!("{} ", paint(setup.color, BOLD, "continue? [y/N]"));
    let _ = std::io::Write::flush(&mut std::io::stdout());
    let yes = matches!(read_key(interrupts), Key::Byte(b'y' | b'Y'));
    say(if yes { "yes" } else { "no" });
    yes
}

fn print_banner(setup: &Setup, session: &Session) {
    let title = format!(
        "mewcode {} · {} · {} · mode {}",
        setup.version,
        neutralize(&session.provider.name),
        neutralize(&session.provider.model),
        session.mode.shown()
    );
    say(&paint(setup.color, BOLD, &title));
    if session.mode == Mode::Bypass {
        say(&paint(setup.color, RED, BYPASS_WARNING));
    }
    say(&paint(setup.color, DIM, "/help for commands · Shift-Tab cycles the mode · Ctrl-C cancels · Ctrl-D exits"));
    let (summary, status) = &setup.sandbox;
    let colour = match status {
        crate::confine::Status::Confined { .. } => DIM,
        crate::confine::Status::Unavailable { .. } => YELLOW,
        crate::confine::Status::Off { .. } => RED,
    };
    say(&paint(setup.color, colour, &neutralize(summary)));
    for warning in &setup.warnings {
        say(&paint(setup.color, YELLOW, &format!("⚠ {}", neutralize(&warning.to_string()))));
    }
}

fn run_command(command: Command, session: &mut Session, setup: &Setup, providers: &[ProviderConfig]) {
    let color = setup.color;
    match command {
        Command::Help => {
            for (usage, help) in COMMANDS {
                say(&format!("  {usage:<28} {help}"));
            }
            say(&paint(
                color,
                DIM,
                "  keys: Shift-Tab cycles the mode · `\\` at the end of a line or Alt-Enter continues it",
            ));
            say(&paint(color, DIM, "        Ctrl-C cancels a turn · Ctrl-C twice or Ctrl-D at an empty prompt exits"));
        }
        Command::Mode(None) => say(&format!("mode: {}", session.mode)),
        Command::Mode(Some(mode)) => {
            session.mode = mode;
            say(&format!("mode: {mode}"));
            if mode == Mode::Bypass {
                say(&paint(color, RED, BYPASS_WARNING));
            }
        }
        Command::Model(None) => {
            for provider in providers {
                let is_current = provider.name == session.provider.name;
                let provider = if is_current { &session.provider } else { provider };
                let current = if is_current { "*" } else { " " };
                let window = human_count(context_window(provider));
                say(&neutralize(&format!(
                    "{current} {:<12} {:<10} {}  (context {window}, {})",
                    provider.name,
                    provider.protocol.as_str(),
                    provider.model,
                    provider.window_source.describe(),
                )));
            }
            say(&paint(color, DIM, "switch with /model PROVIDER or /model PROVIDER/MODEL"));
        }
        Command::Model(Some(choice)) => switch_model(&choice, session, setup, providers),
        // Handled by the loop, which renders it like a turn.
        Command::Compact => {}
        Command::Resume(None) => session.picking = sessions::list(setup),
        Command::Resume(Some(choice)) => sessions::pick(session, setup, &choice),
        Command::Mcp => {
            let report = (setup.mcp_status)();
            let report = if report.trim().is_empty() { "no MCP servers configured".to_string() } else { report };
            say(&neutralize(report.trim_end()));
        }
        Command::McpReconnect(name) => match (setup.mcp_reconnect)(&name) {
            Ok(()) => say(&paint(color, DIM, &neutralize(&format!("reconnecting mcp server {name}…")))),
            Err(message) => say(&paint(color, RED, &neutralize(&format!("/mcp reconnect: {message}")))),
        },
        Command::Clear => {
            session.conversation = Arc::new(Mutex::new(History::new()));
            session.context_used = 0;
            session.note = None;
            sessions::clear(setup);
            say(&paint(color, DIM, "(new conversation)"));
        }
        Command::Tools => {
            for definition in session.agent.registry.definitions() {
                let summary = definition.description.split(". ").next().unwrap_or("").trim_end_matches('.');
                say(&neutralize(&format!("  {:<12} {summary}", definition.name)));
            }
        }
        Command::Cost => say(&render_cost(&session.usage, session.usage_estimated)),
        Command::Exit => {}
    }
}

/// `/model PROVIDER[/MODEL]`: a new agent on that provider; the conversation carries over.
fn switch_model(choice: &ModelChoice, session: &mut Session, setup: &Setup, providers: &[ProviderConfig]) {
    let Some(provider) = providers.iter().find(|provider| provider.name == choice.provider) else {
        let names: Vec<&str> = providers.iter().map(|provider| provider.name.as_str()).collect();
        say(&paint(
            setup.color,
            RED,
            &neutralize(&format!("/model: no provider named {:?} (configured: {})", choice.provider, names.join(", "))),
        ));
        return;
    };
    let mut provider = provider.clone();
    if let Some(model) = &choice.model
        && *model != provider.model
    {
        provider.model = model.clone();
        // A window discovered for another model says nothing about this one.
        if matches!(provider.window_source, crate::config::WindowSource::Discovered { .. }) {
            provider.context_window = provider.protocol.default_context_window();
            provider.window_source = crate::config::WindowSource::Default;
        }
    }
    if let Some(notice) = (setup.discover)(&mut provider) {
        say(&paint(setup.color, DIM, &neutralize(&notice)));
    }
    match (setup.connect)(&provider, &session.agent_session) {
        Ok(agent) => {
            session.agent = agent;
            setup.sessions.recorder.set_model(&provider.model);
            say(&neutralize(&format!(
                "now using {} · {} (context window {}, {})",
                provider.name,
                provider.model,
                human_count(context_window(&provider)),
                provider.window_source.describe()
            )));
            session.provider = provider;
        }
        Err(message) => say(&paint(setup.color, RED, &neutralize(&format!("/model: {message}")))),
    }
}

/// `/cost`: the session's tokens; `~` and a note when some were estimated from characters
/// because the server sent no usage.
pub fn render_cost(usage: &Usage, estimated: bool) -> String {
    let prompt_tokens = usage.input_tokens + usage.cache_write + usage.cache_read;
    let hit_rate = (usage.cache_read * 100).checked_div(prompt_tokens).unwrap_or(0);
    let mark = if estimated { "~" } else { "" };
    let mut line = format!(
        "this session: {mark}{} input · {mark}{} output · {} cache write · {} cache read ({hit_rate}% of prompt tokens from cache)",
        usage.input_tokens, usage.output_tokens, usage.cache_write, usage.cache_read
    );
    if estimated {
        line.push_str("\n  ~ estimated from characters (3.5 per token): the server sent no usage for some responses");
    }
    line
}

/// The provider's context window (the protocol default when the config says 0).
pub(crate) fn context_window(provider: &ProviderConfig) -> u64 {
    if provider.context_window == 0 { provider.protocol.default_context_window() } else { provider.context_window }
}

/// One line on stdout; a closed stdout is not worth failing over.
pub(crate) fn say(text: &str) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{text}").and_then(|()| stdout.flush());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ctrl_c_at_the_prompt_clears_warns_then_exits_within_two_seconds() {
        let start = Instant::now();
        assert_eq!(plan_prompt_interrupt(true, None, start), PromptInterrupt::ClearLine);
        assert_eq!(plan_prompt_interrupt(true, Some(start), start), PromptInterrupt::ClearLine);
        assert_eq!(plan_prompt_interrupt(false, None, start), PromptInterrupt::Warn);
        assert_eq!(
            plan_prompt_interrupt(false, Some(start), start + Duration::from_millis(1900)),
            PromptInterrupt::Exit
        );
        assert_eq!(plan_prompt_interrupt(false, Some(start), start + Duration::from_secs(3)), PromptInterrupt::Warn);
    }

    #[test]
    fn cost_marks_estimated_figures() {
        let usage = Usage { input_tokens: 1_200, output_tokens: 30, cache_write: 0, cache_read: 0 };
        assert_eq!(
            render_cost(&usage, false),
            "this session: 1200 input · 30 output · 0 cache write · 0 cache read (0% of prompt tokens from cache)"
        );
        assert_eq!(
            render_cost(&usage, true),
            "this session: ~1200 input · ~30 output · 0 cache write · 0 cache read (0% of prompt tokens from cache)\n  \
             ~ estimated from characters (3.5 per token): the server sent no usage for some responses"
        );
    }

    #[test]
    fn background_news_is_one_dim_line_per_connect_and_a_warning_line_each() {
        let connected = Background::Mcp(crate::mcp::Update {
            server: "slow".into(),
            tools: Some(1),
            warnings: vec![Warning::new("mcp server slow", "new tools since last time: echo")],
        });
        assert_eq!(
            render_background(&connected, false),
            "mcp server slow connected: 1 tool\n⚠ mcp server slow: new tools since last time: echo"
        );
        assert_eq!(
            render_background(&connected, true),
            "\x1b[2mmcp server slow connected: 1 tool\x1b[0m\n\x1b[33m⚠ mcp server slow: new tools since last time: echo\x1b[0m"
        );
        let failed = Background::Mcp(crate::mcp::Update {
            server: "bad\x1b[2J".into(),
            tools: None,
            warnings: vec![Warning::new("mcp server bad", "timed out\x1b[2J; its tools are unavailable")],
        });
        assert_eq!(render_background(&failed, false), "⚠ mcp server bad: timed out␛[2J; its tools are unavailable");
        let late = Background::Warning(Warning::new("mcp server docs", "the tool returned an image"));
        assert_eq!(render_background(&late, false), "⚠ mcp server docs: the tool returned an image");
    }

    #[test]
    fn interrupts_count_presses_across_clones() {
        let interrupts = Interrupts::new();
        let handler = interrupts.clone();
        handler.press();
        handler.press();
        assert_eq!(interrupts.count(), 2);
    }
}
