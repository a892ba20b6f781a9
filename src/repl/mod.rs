//! The interactive front end (SPEC §9): a banner, then a loop of status line + prompt, slash
//! commands, and turns rendered as they stream.
//!
//! Invariant: one `Conversation` per session (until `/clear`); the agent is only driven through
//! `Agent::run` and its events (`turn.rs`). The REPL never installs signal handlers itself:
//! `app.rs` installs Ctrl-C handling after `LineEditor::open` and hands in the `Interrupts`
//! counter it bumps. Decisions (what a Ctrl-C at the prompt means, what a command does) are pure
//! functions; this file wires them to the terminal.
#![allow(clippy::print_stdout)]

pub(crate) mod approve;
mod arguments;
pub(crate) mod commands;
pub(crate) mod diff;
mod editor;
pub(crate) mod picker;
pub(crate) mod render;
pub(crate) mod sessions;
mod terminal;
mod turn;

use crate::agent::{Agent, Conversation, Stop};
use crate::config::ProviderConfig;
use crate::config::price::{Price, price_for};
use crate::mode::Mode;
use crate::msg::Usage;
use crate::text::neutralize;
use crate::warning::Warning;
use commands::{COMMANDS, Command, ModelChoice, first_sentence, parse_command};
pub(crate) use editor::LineEditor;
use editor::{Input, StatusFigures};
use render::{BOLD, DIM, RED, YELLOW, human_count, paint, wrap};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use terminal::{Key, read_key};
use turn::{TurnContext, TurnEnd, run_compact, run_turn};

/// Ctrl-C presses, counted by the signal handler `app.rs` installs and polled by the REPL.
#[derive(Clone, Debug, Default)]
pub(crate) struct Interrupts {
    presses: Arc<AtomicU64>,
}

impl Interrupts {
    pub(crate) fn new() -> Interrupts {
        Interrupts::default()
    }

    /// Called from the signal handler: one more press. Only an atomic add, nothing else.
    pub(crate) fn press(&self) {
        self.presses.fetch_add(1, Ordering::SeqCst);
    }

    /// Presses so far; a change since the last look means "interrupt".
    pub(crate) fn count(&self) -> u64 {
        self.presses.load(Ordering::SeqCst)
    }
}

/// Builds an agent for a provider (app.rs's wiring), for `/model`; the conversation, with its
/// session and context state, carries over to it.
pub(crate) type Connect<'a> = Box<dyn Fn(&ProviderConfig) -> Result<Arc<Agent>, String> + 'a>;

/// Starts connecting an MCP server again (`mcp::Manager::reconnect`, wired by app.rs).
pub(crate) type Reconnect<'a> = Box<dyn Fn(&str) -> Result<(), String> + 'a>;

/// Asks a provider's server for its context window (`llm::discovery`, wired by app.rs).
pub(crate) type Discover<'a> = Box<dyn Fn(&mut ProviderConfig) -> Option<String> + 'a>;

/// Everything the REPL starts with.
pub(crate) struct Setup<'a> {
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
    /// Colour escapes allowed (stdout is a TTY, `TERM` not dumb, NO_COLOR unset).
    pub color: bool,
    /// Cursor movement allowed (stdout is a TTY, `TERM` not dumb): the spinner and the
    /// `/resume` picker.
    pub animate: bool,
    pub connect: Connect<'a>,
    /// Asks a provider's server for its context window before `/model` switches to it (the
    /// app's `llm::discovery` wiring); returns a notice when it stays a default or is assumed.
    pub discover: Discover<'a>,
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
pub(crate) enum Background {
    /// An MCP server connected or failed (at start-up or after `/mcp reconnect`).
    Mcp(crate::mcp::Update),
    /// A warning raised later (an MCP tool returned an image, a changed tool list failed...).
    Warning(Warning),
}

/// How a background event is shown: one dim line for a server that connected, a yellow `⚠` line
/// per warning (a failed server's warning says why).
fn render_background(event: &Background, color: bool) -> String {
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
pub(crate) enum ReplEnd {
    /// `/exit`, Ctrl-D or a double Ctrl-C at the prompt.
    Exited,
    /// Ctrl-C twice during a turn.
    Interrupted,
    /// The terminal failed.
    Failed(String),
}

/// The terminal's size, read before each prompt (what wrapping and the session list fit into).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Screen {
    pub width: usize,
    pub height: usize,
}

impl Default for Screen {
    /// What is assumed when the terminal does not say.
    fn default() -> Screen {
        Screen { width: 80, height: 20 }
    }
}

/// The state of one session: provider, agent, conversation, mode and token accounting.
pub(crate) struct Session {
    pub provider: ProviderConfig,
    pub agent: Arc<Agent>,
    /// The conversation on screen: its history, session log and context state (the agent holds
    /// it while a turn runs).
    pub conversation: Conversation,
    pub mode: Mode,
    /// Everything used this session (since start-up, the last `/clear` or `/resume`).
    pub usage: Usage,
    /// Some of `usage` was estimated from characters (the server sent none).
    pub usage_estimated: bool,
    /// What the sessions this process left before (by `/clear` or `/resume`) used, with their
    /// cost at the prices of the time: `/cost` adds it up to the process total.
    pub earlier: Spent,
    /// The last response's prompt + output: how full the context window is.
    pub context_used: u64,
    /// `context_used` is an estimate (no usage from the server, or counted after a compaction).
    pub context_estimated: bool,
    /// A note for the model to add to the next prompt (a resumed session's stale-files note).
    pub note: Option<String>,
    /// The session list was just shown: a bare number on the next line picks one.
    pub picking: bool,
    /// The terminal's size when the last input was read.
    pub screen: Screen,
}

/// Tokens and cost of sessions already left.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Spent {
    pub usage: Usage,
    pub estimated: bool,
    /// USD; `None` once a session used a model without a known price.
    pub cost: Option<f64>,
    /// Sessions counted.
    pub sessions: usize,
}

impl Session {
    /// The session at start-up: the provider and agent of `setup`, a new conversation.
    fn start(setup: &Setup, screen: Screen) -> Session {
        Session {
            provider: setup.provider.clone(),
            agent: Arc::clone(&setup.agent),
            conversation: Conversation::new(crate::session::new_id()),
            mode: setup.mode,
            usage: Usage::default(),
            usage_estimated: false,
            earlier: Spent::default(),
            context_used: 0,
            context_estimated: false,
            note: None,
            picking: false,
            screen,
        }
    }

    /// What the status line shows.
    fn status_figures(&self) -> StatusFigures {
        StatusFigures {
            provider: self.provider.name.clone(),
            model: self.provider.model.clone(),
            context_used: self.context_used,
            context_window: self.provider.context_window,
            session: self.usage,
            context_estimated: self.context_estimated,
            session_estimated: self.usage_estimated,
        }
    }

    /// The session changes (`/clear`, `/resume`): its usage joins `earlier` and counting starts
    /// again, so `/cost` and the status line speak of the session on screen.
    pub(crate) fn start_accounting(&mut self) {
        if self.usage.total() > 0 {
            let cost = price_for(self.provider.price, &self.provider.model).map(|price| price.cost(&self.usage));
            let first = self.earlier.sessions == 0;
            self.earlier.usage.add(&self.usage);
            self.earlier.estimated |= self.usage_estimated;
            self.earlier.cost = match (first, self.earlier.cost, cost) {
                (true, _, cost) => cost,
                (false, Some(before), Some(cost)) => Some(before + cost),
                (false, None, _) | (false, _, None) => None,
            };
            self.earlier.sessions += 1;
        }
        self.usage = Usage::default();
        self.usage_estimated = false;
    }
}

/// What a Ctrl-C at the prompt means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PromptInterrupt {
    /// The line had text: it is dropped, nothing else.
    ClearLine,
    /// First press on an empty line: say how to leave.
    Warn,
    /// Second press within `EXIT_WINDOW`.
    Exit,
}

/// How close two Ctrl-C presses at an empty prompt must be to exit.
const EXIT_WINDOW: Duration = Duration::from_secs(2);

/// Decides what a Ctrl-C at the prompt does, given the previous empty-line press.
fn plan_prompt_interrupt(had_text: bool, previous: Option<Instant>, now: Instant) -> PromptInterrupt {
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
pub(crate) fn run(mut editor: LineEditor, setup: Setup, interrupts: Interrupts) -> ReplEnd {
    let providers = known_providers(&setup);
    editor.set_providers(providers.iter().map(|provider| provider.name.clone()).collect());
    editor.set_mode(setup.mode);
    editor.set_bypass_in_cycle(setup.bypass_in_cycle);
    editor.set_mcp_probe(setup.mcp_probe.clone());
    let mut session = Session::start(&setup, editor.screen());
    print_banner(&setup, &session);
    sessions::start(&mut session, &setup, &interrupts);
    let mut last_interrupt: Option<Instant> = None;
    let mut seen_presses = interrupts.count();
    loop {
        say_background_news(&setup, &session);
        // A Ctrl-C pressed between two prompts (while the editor was not reading keys) arrived
        // as a signal; it counts as one pressed at an empty prompt.
        let input = if interrupts.count() == seen_presses {
            editor.read(session.status_figures())
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
                    PromptInterrupt::Exit => return ReplEnd::Exited,
                }
                continue;
            }
            Input::Eof => return ReplEnd::Exited,
            Input::Failed(message) => return ReplEnd::Failed(message),
        };
        last_interrupt = None;
        // Shift-Tab at the prompt changed the editor's mode; it is the session's from now on.
        session.mode = editor.mode();
        session.screen = editor.screen();
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        editor.remember(&line);
        let context = turn_context(&setup, session.screen, &interrupts);
        let end = if std::mem::take(&mut session.picking) && trimmed.parse::<usize>().is_ok() {
            sessions::pick(&mut session, &setup, trimmed);
            None
        } else if trimmed.starts_with('/') {
            let end = run_slash(trimmed, &mut session, &setup, &providers, &context);
            editor.set_mode(session.mode);
            end
        } else {
            run_prompt(&mut session, &setup, &context, line.trim_end())
        };
        if let Some(end) = end {
            return end;
        }
        // Presses during a turn, a question or the `/resume` picker were theirs to handle.
        seen_presses = interrupts.count();
    }
}

/// Every configured provider, the one in use as resolved at start-up (its window possibly
/// discovered).
fn known_providers(setup: &Setup) -> Vec<ProviderConfig> {
    let mut providers = setup.providers.clone();
    match providers.iter_mut().find(|provider| provider.name == setup.provider.name) {
        Some(entry) => *entry = setup.provider.clone(),
        None => providers.push(setup.provider.clone()),
    }
    providers
}

/// What happened in the background since the last prompt (MCP servers that connected or
/// failed, late warnings) is said now, before the prompt: never lost, never in the middle of a
/// streamed answer.
fn say_background_news(setup: &Setup, session: &Session) {
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
}

/// A slash command line; `Some` when the REPL ends.
fn run_slash(
    line: &str,
    session: &mut Session,
    setup: &Setup,
    providers: &[ProviderConfig],
    context: &TurnContext,
) -> Option<ReplEnd> {
    match parse_command(line) {
        Ok(Command::Exit) => return Some(ReplEnd::Exited),
        Ok(Command::Compact) => {
            if run_compact(session, context) == TurnEnd::Quit {
                return Some(ReplEnd::Interrupted);
            }
        }
        Ok(command) => run_command(command, session, setup, providers, context.interrupts),
        Err(message) => say(&paint(setup.color, RED, &message)),
    }
    None
}

/// A prompt: its turn, then the turns the user asks for to continue after a cap; `Some` when
/// the REPL ends.
fn run_prompt(session: &mut Session, setup: &Setup, context: &TurnContext, line: &str) -> Option<ReplEnd> {
    let mut prompt = sessions::prepare_prompt(session, setup, line);
    loop {
        let end = run_turn(session, &prompt, context);
        // A blank line between the answer and the next status line.
        say("");
        match end {
            TurnEnd::Quit => return Some(ReplEnd::Interrupted),
            TurnEnd::Stopped(Stop::IterationLimit | Stop::UnknownTools)
                if ask_continue(setup, session.screen.width, context.interrupts) =>
            {
                prompt = CONTINUE_PROMPT.to_string();
            }
            TurnEnd::Stopped(
                Stop::Completed | Stop::Cancelled | Stop::Failed | Stop::IterationLimit | Stop::UnknownTools,
            ) => return None,
        }
    }
}

/// The trust gate's question (SPEC §1.2): what the project's own config would enable, then
/// `[y/N]`, one key, default no. Everything listed comes from the repository and is neutralised.
pub(crate) fn ask_trust(
    root: &std::path::Path,
    items: &[String],
    color: bool,
    width: usize,
    interrupts: &Interrupts,
) -> bool {
    let root = neutralize(&root.display().to_string());
    say_wrapped(color, YELLOW, &format!("This project ({root}) has its own mewcode config:"), width, 0);
    for item in items {
        say_wrapped(color, "", &format!("  - {}", neutralize(item)), width, 4);
    }
    say_wrapped(color, DIM, "Trusting it lets these run and apply here; deny rules apply either way.", width, 0);
    const QUESTION: &str = "trust this project? [y/N]";
    print!("{} ", paint(color, BOLD, QUESTION));
    let _ = std::io::Write::flush(&mut std::io::stdout());
    let yes = matches!(read_key(interrupts), Key::Byte(b'y' | b'Y'));
    let answer = if yes { "yes (remembered until these files change)" } else { "no (its config is ignored)" };
    say_answer(QUESTION, answer, width);
    yes
}

/// The answer to a one-key question, after the question when it fits on its line, else on the
/// lines below (wrapped), so the terminal never breaks it mid-word.
fn say_answer(question: &str, answer: &str, width: usize) {
    if render::display_width(question) + 1 + render::display_width(answer) < width {
        say(answer);
    } else {
        say(&format!("\n{}", wrap(answer, width, 0)));
    }
}

/// What a turn (or a `/compact`) renders with.
fn turn_context<'a>(setup: &'a Setup, screen: Screen, interrupts: &'a Interrupts) -> TurnContext<'a> {
    TurnContext { root: &setup.root, color: setup.color, animate: setup.animate, screen, interrupts }
}

/// `continue? [y/N]`, one key, default no.
fn ask_continue(setup: &Setup, width: usize, interrupts: &Interrupts) -> bool {
    const QUESTION: &str = "continue? [y/N]";
    print!("{} ", paint(setup.color, BOLD, QUESTION));
    let _ = std::io::Write::flush(&mut std::io::stdout());
    let yes = matches!(read_key(interrupts), Key::Byte(b'y' | b'Y'));
    say_answer(QUESTION, if yes { "yes" } else { "no" }, width);
    yes
}

fn print_banner(setup: &Setup, session: &Session) {
    let width = session.screen.width;
    let title = format!(
        "mewcode {} · {} · {} · mode {}",
        setup.version,
        neutralize(&session.provider.name),
        neutralize(&session.provider.model),
        session.mode.shown()
    );
    say_wrapped(setup.color, BOLD, &title, width, 2);
    if session.mode == Mode::Bypass {
        say_wrapped(setup.color, RED, BYPASS_WARNING, width, 0);
    }
    let keys = "/help for commands · Shift-Tab cycles the mode · Ctrl-C cancels · Ctrl-D exits";
    say_wrapped(setup.color, DIM, keys, width, 0);
    let (summary, status) = &setup.sandbox;
    let colour = match status {
        crate::confine::Status::Confined { view: Ok(()), .. } => DIM,
        // Confined by Landlock alone: the summary says which promises do not hold.
        crate::confine::Status::Confined { view: Err(_), .. } | crate::confine::Status::Unavailable { .. } => YELLOW,
        crate::confine::Status::Off { .. } => RED,
    };
    say_wrapped(setup.color, colour, &neutralize(summary), width, 2);
    for warning in &setup.warnings {
        say_wrapped(setup.color, YELLOW, &format!("⚠ {}", neutralize(&warning.to_string())), width, 2);
    }
}

fn run_command(
    command: Command,
    session: &mut Session,
    setup: &Setup,
    providers: &[ProviderConfig],
    interrupts: &Interrupts,
) {
    let color = setup.color;
    let width = session.screen.width;
    match command {
        Command::Help => {
            for line in render_help(width) {
                say(&line);
            }
            let keys = "keys: Shift-Tab cycles the mode · `\\` at the end of a line or Alt-Enter continues it · \
                        Ctrl-C cancels a turn · Ctrl-C twice or Ctrl-D at an empty prompt exits";
            say_wrapped(color, DIM, &format!("  {keys}"), width, 8);
        }
        Command::Mode(None) => say(&format!("mode: {}", session.mode)),
        Command::Mode(Some(mode)) => {
            session.mode = mode;
            say(&format!("mode: {mode}"));
            if mode == Mode::Bypass {
                say(&paint(color, RED, BYPASS_WARNING));
            }
        }
        Command::Model(None) => list_models(session, providers, color),
        Command::Model(Some(choice)) => switch_model(&choice, session, setup, providers),
        // Handled by the loop, which renders it like a turn.
        Command::Compact => {}
        Command::Resume(None) => sessions::choose(session, setup, interrupts),
        Command::Resume(Some(all)) if all == "all" => session.picking = sessions::list(session, setup, true),
        Command::Resume(Some(choice)) => sessions::pick(session, setup, &choice),
        Command::Mcp => {
            let report = (setup.mcp_status)();
            let report = if report.trim().is_empty() { "no MCP servers configured".to_string() } else { report };
            say_wrapped(color, "", &neutralize(report.trim_end()), width, 4);
        }
        Command::McpReconnect(name) => match (setup.mcp_reconnect)(&name) {
            Ok(()) => say(&paint(color, DIM, &neutralize(&format!("reconnecting mcp server {name}…")))),
            Err(message) => say(&paint(color, RED, &neutralize(&format!("/mcp reconnect: {message}")))),
        },
        Command::Clear => {
            // A new session (its log is created at the first prompt); the agent stays.
            session.conversation = Conversation::new(crate::session::new_id());
            session.context_used = 0;
            session.note = None;
            session.start_accounting();
            say(&paint(color, DIM, "(new conversation)"));
        }
        Command::Tools => {
            for definition in session.agent.registry.definitions() {
                let summary = first_sentence(&definition.description);
                say_wrapped(color, "", &neutralize(&format!("  {:<12} {summary}", definition.name)), width, 15);
            }
        }
        Command::Cost => {
            let price = price_for(session.provider.price, &session.provider.model);
            let cost = Cost {
                usage: &session.usage,
                estimated: session.usage_estimated,
                model: &session.provider.model,
                price,
            };
            for line in render_cost(&cost, &session.earlier).lines() {
                say_wrapped(color, "", line, width, 4);
            }
        }
        Command::Exit => {}
    }
}

/// `/model`: every provider, the current one marked, with its model and window.
fn list_models(session: &Session, providers: &[ProviderConfig], color: bool) {
    let width = session.screen.width;
    for provider in providers {
        let is_current = provider.name == session.provider.name;
        let provider = if is_current { &session.provider } else { provider };
        let current = if is_current { "*" } else { " " };
        let window = human_count(provider.context_window);
        let line = neutralize(&format!(
            "{current} {:<12} {:<10} {}  (context {window}, {})",
            provider.name,
            provider.protocol.as_str(),
            provider.model,
            provider.window_source.describe(),
        ));
        say_wrapped(color, "", &line, width, 4);
    }
    say_wrapped(color, DIM, "switch with /model PROVIDER or /model PROVIDER/MODEL", width, 0);
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
    match (setup.connect)(&provider) {
        Ok(agent) => {
            // The conversation (history, log, context state) stays as it is.
            session.agent = agent;
            session.conversation.set_model(&provider.model);
            say(&neutralize(&format!(
                "now using {} · {} (context window {}, {})",
                provider.name,
                provider.model,
                human_count(provider.context_window),
                provider.window_source.describe()
            )));
            session.provider = provider;
        }
        Err(message) => {
            say_wrapped(setup.color, RED, &neutralize(&format!("/model: {message}")), session.screen.width, 2)
        }
    }
}

/// What `/cost` reports on: this session's usage and the price of the model in use.
pub(crate) struct Cost<'a> {
    pub usage: &'a Usage,
    /// Some of `usage` was estimated from characters.
    pub estimated: bool,
    pub model: &'a str,
    /// `config::price::price_for` the provider in use.
    pub price: Option<Price>,
}

/// `/cost`: the session's tokens and, when the model's price is known, what they cost; `~` and a
/// note when some were estimated from characters because the server sent no usage; and, after
/// `/clear` or `/resume`, the total since mewcode started.
fn render_cost(cost: &Cost, earlier: &Spent) -> String {
    let usage = cost.usage;
    let prompt_tokens = usage.input_tokens + usage.cache_write + usage.cache_read;
    let hit_rate = (usage.cache_read * 100).checked_div(prompt_tokens).unwrap_or(0);
    let mark = if cost.estimated { "~" } else { "" };
    let mut text = format!(
        "this session: {mark}{} input · {mark}{} output · {} cache write · {} cache read ({hit_rate}% of prompt tokens from cache)",
        usage.input_tokens, usage.output_tokens, usage.cache_write, usage.cache_read
    );
    let model = neutralize(cost.model);
    let session_cost = cost.price.map(|price| price.cost(usage));
    match (cost.price, session_cost) {
        (Some(price), Some(usd)) => text.push_str(&format!(
            "\n  about {} at {model} prices (USD per million tokens: {} input, {} output, {} cache write, {} cache read)",
            format_usd(usd),
            format_rate(price.input),
            format_rate(price.output),
            format_rate(price.cache_write),
            format_rate(price.cache_read)
        )),
        (None, _) | (_, None) => text.push_str(&format!(
            "\n  no price known for {model}: set price: {{input: N, output: N}} (USD per million tokens) on the provider"
        )),
    }
    if cost.estimated {
        text.push_str("\n  ~ estimated from characters (3.5 per token): the server sent no usage for some responses");
    }
    if earlier.sessions > 0 {
        let mut total = earlier.usage;
        total.add(usage);
        let mark = if cost.estimated || earlier.estimated { "~" } else { "" };
        let usd = match (earlier.cost, session_cost) {
            (Some(before), Some(now)) => format!(", about {}", format_usd(before + now)),
            (Some(_) | None, _) => String::new(),
        };
        text.push_str(&format!(
            "\nsince mewcode started ({} sessions): {mark}{} input · {mark}{} output · {} cache write · {} cache read{usd}",
            earlier.sessions + 1,
            total.input_tokens,
            total.output_tokens,
            total.cache_write,
            total.cache_read
        ));
    }
    text
}

/// A rate as configured: `3`, `0.3`, `0.075` (at most 4 decimals, no float noise).
fn format_rate(usd_per_million: f64) -> String {
    let text = format!("{usd_per_million:.4}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// `$0.0042` under a cent, `$1.23` above.
fn format_usd(usd: f64) -> String {
    if usd < 0.01 { format!("${usd:.4}") } else { format!("${usd:.2}") }
}

/// `/help`: each command with its help, two columns on a wide terminal, the help below the
/// command on a narrow one; word-wrapped either way.
fn render_help(width: usize) -> Vec<String> {
    const USAGE_COLUMNS: usize = 28;
    COMMANDS
        .iter()
        .map(|(usage, help)| {
            if width >= 2 * USAGE_COLUMNS + 8 {
                wrap(&format!("  {usage:<USAGE_COLUMNS$} {help}"), width, USAGE_COLUMNS + 3)
            } else {
                format!("  {usage}\n{}", wrap(&format!("      {help}"), width, 6))
            }
        })
        .collect()
}

/// One line of our own (already neutralised) on stdout, word-wrapped to `width` with continuation
/// lines indented by `hang`, in colour `code` ("" for none) when `color` is on.
pub(crate) fn say_wrapped(color: bool, code: &str, text: &str, width: usize, hang: usize) {
    let text = wrap(text, width, hang);
    say(&if code.is_empty() { text } else { paint(color, code, &text) });
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
    fn cost_marks_estimated_figures_and_prices_known_models() {
        let usage = Usage { input_tokens: 1_200, output_tokens: 30, cache_write: 0, cache_read: 0 };
        let local = Cost { usage: &usage, estimated: false, model: "qwen3", price: None };
        assert_eq!(
            render_cost(&local, &Spent::default()),
            "this session: 1200 input · 30 output · 0 cache write · 0 cache read (0% of prompt tokens from cache)\n  \
             no price known for qwen3: set price: {input: N, output: N} (USD per million tokens) on the provider"
        );
        let estimated = Cost { estimated: true, model: "m", price: Some(Price::new(3.0, 15.0)), ..local };
        assert_eq!(
            render_cost(&estimated, &Spent::default()),
            "this session: ~1200 input · ~30 output · 0 cache write · 0 cache read (0% of prompt tokens from cache)\n  \
             about $0.0040 at m prices (USD per million tokens: 3 input, 15 output, 3.75 cache write, 0.3 cache read)\n  \
             ~ estimated from characters (3.5 per token): the server sent no usage for some responses"
        );
    }

    #[test]
    fn cost_after_clear_is_the_new_sessions_with_the_process_total_below() {
        let earlier = Spent {
            usage: Usage { input_tokens: 1_000_000, output_tokens: 0, cache_write: 0, cache_read: 0 },
            estimated: false,
            cost: Some(3.0),
            sessions: 1,
        };
        let usage = Usage { input_tokens: 10, output_tokens: 2, cache_write: 0, cache_read: 0 };
        let cost = Cost {
            usage: &usage,
            estimated: false,
            model: "claude-sonnet-4-5",
            price: price_for(None, "claude-sonnet-4-5"),
        };
        let text = render_cost(&cost, &earlier);
        assert!(text.starts_with("this session: 10 input · 2 output ·"), "{text}");
        assert!(
            text.ends_with(
                "\nsince mewcode started (2 sessions): 1000010 input · 2 output · 0 cache write · 0 cache read, about $3.00"
            ),
            "{text}"
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
