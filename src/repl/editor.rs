//! The line editor: rustyline with persistent history, slash-command completion, multi-line
//! input (a trailing `\`, Ctrl-J or Alt-Enter), Shift-Tab mode cycling and the status line as the first
//! line of the prompt; long pastes folded into placeholders (expanded when the line is sent);
//! Ctrl-G and Ctrl-O leave the line for a moment (`Input::Left`, acted on by `leave.rs`).
//!
//! Shift-Tab reaches bypass only when the session allows it (`set_bypass_in_cycle`: started with
//! `--mode bypass`, or `bypass_in_mode_cycle: true` in the user's config); while bypass is on, the
//! status line says `BYPASS` in bold red and the `›` is red (`>` when the locale is not UTF-8).
//!
//! A line is used without the escape sequences no binding took (`escapes::strip_escapes`): under
//! `TERM=dumb` rustyline reads plain lines, where Shift-Tab arrives as `ESC [ Z` in the text.
//!
//! The status line reads the MCP servers' progress (`mcp 1/2`, a server that stopped) whenever
//! it is drawn: at each prompt, at each repaint (Shift-Tab), and when the servers change while
//! the prompt waits (`repaint.rs` redraws that one row: `status_wake` is what wakes it).
//! Rustyline's external printer, which could print above a waiting prompt, is deliberately not
//! used: once created, rustyline 17 waits in `select` on the terminal even when keys are already
//! in its read buffer, so a paste or fast typing stalls until the next key. Background messages
//! are printed by the REPL before the next prompt. The helper tells the painter what rustyline
//! draws (`PromptView`), so it paints only where the status line is.
//!
//! Invariant: rustyline stays in this file. The status line is part of the prompt, and the
//! prompt given to rustyline always has the same width as what `highlight_prompt` draws (the mode
//! is padded), so a mode change repaints in place instead of printing a new prompt below.

use super::commands;
use super::escapes::strip_escapes;
use super::render::{BOLD, DIM, RED, paint};
use super::repaint::{Painter, Plan, PromptView, StatusWake, repaint_bytes};
use super::status_line::{McpFigures, Status, StatusFigures, render_status};
use super::terminal::Screen;
use crate::agent::lock;
use crate::glyphs::Glyphs;
use crate::mode::Mode;
use rustyline::completion::{Completer, Pair};
use rustyline::error::ReadlineError;
use rustyline::highlight::{CmdKind, Highlighter};
use rustyline::hint::Hinter;
use rustyline::history::FileHistory;
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{
    Cmd, ColorMode, CompletionType, ConditionalEventHandler, Config, Context, Editor, Event, EventContext,
    EventHandler, KeyCode, KeyEvent, Modifiers, RepeatCount,
};
use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What the user did at the prompt.
#[derive(Debug)]
pub(crate) enum Input {
    /// A complete input (continuation backslashes already removed).
    Line(String),
    /// Ctrl-C; `had_text` says whether the line had something on it (which is now discarded).
    Interrupted { had_text: bool },
    /// Ctrl-D on an empty line, or stdin closed.
    Eof,
    /// A key that leaves the line for something else (`Leave`); the line as it was, pastes
    /// expanded, to put back afterwards.
    Left(Leave, String),
    /// The terminal failed.
    Failed(String),
}

/// Keys that leave the input line for a moment and come back to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Leave {
    /// Ctrl-G: edit the line in `$VISUAL`/`$EDITOR`.
    ExternalEditor,
    /// Ctrl-O: show the last tool output in full.
    ExpandOutput,
}

/// A paste with more lines than this, or more characters than `PASTE_FOLD_CHARS`, is shown as a
/// placeholder in the input line (and sent whole).
const PASTE_FOLD_LINES: usize = 3;
const PASTE_FOLD_CHARS: usize = 800;

/// State shared between the prompt's key handlers and the REPL loop.
struct Shared {
    mode: Mode,
    /// Whether Shift-Tab may reach bypass (`Mode::next`).
    bypass_in_cycle: bool,
    figures: StatusFigures,
    width: usize,
    color: bool,
    glyphs: &'static Glyphs,
    /// Set by the Ctrl-C handler: the line had text when Ctrl-C was pressed.
    interrupted_with_text: bool,
    providers: Vec<String>,
    /// The person's own commands: (name, what Tab shows for it).
    custom: Vec<(String, String)>,
    /// The MCP servers' progress, read at each repaint.
    mcp: Option<crate::mcp::Probe>,
    /// The project root, for `@path` completion.
    root: Option<PathBuf>,
    /// The key that left the line, with the line then.
    left: Option<(Leave, String)>,
    /// A bracketed paste being received key by key.
    pasting: Option<String>,
    /// The pastes of this input folded into placeholders, in order: placeholder, text.
    pastes: Vec<(String, String)>,
    /// What rustyline has drawn, for the painter of the status line.
    view: PromptView,
}

/// The rustyline editor and its shared state.
pub(crate) struct LineEditor {
    editor: Editor<Helper, FileHistory>,
    shared: Arc<Mutex<Shared>>,
    history: PathBuf,
    /// Redraws the status line while the prompt waits.
    painter: Painter,
}

impl LineEditor {
    /// Opens the terminal and loads the history at `history` (missing is fine). Opening the
    /// terminal installs rustyline's own SIGINT handler, so an interrupt handler of ours must be
    /// installed after this call.
    pub(crate) fn open(history: PathBuf, color: bool, glyphs: &'static Glyphs) -> Result<LineEditor, String> {
        let config = Config::builder()
            .auto_add_history(false)
            .max_history_size(2000)
            .map_err(|err| err.to_string())?
            .history_ignore_space(true)
            .completion_type(CompletionType::List)
            .completion_show_all_if_ambiguous(true)
            // Always call the highlighter: it draws the live mode in the status line (and adds
            // colour only when `color` is set).
            .color_mode(ColorMode::Forced)
            .build();
        let mut editor: Editor<Helper, FileHistory> =
            Editor::with_config(config).map_err(|err| format!("cannot open the terminal: {err}"))?;
        let shared = Arc::new(Mutex::new(Shared {
            mode: Mode::Default,
            bypass_in_cycle: false,
            figures: StatusFigures::default(),
            width: 80,
            color,
            glyphs,
            interrupted_with_text: false,
            providers: Vec::new(),
            custom: Vec::new(),
            mcp: None,
            root: None,
            left: None,
            pasting: None,
            pastes: Vec::new(),
            view: PromptView::default(),
        }));
        editor.set_helper(Some(Helper { shared: Arc::clone(&shared) }));
        let cycle = CycleMode { shared: Arc::clone(&shared) };
        editor.bind_sequence(KeyEvent(KeyCode::BackTab, Modifiers::NONE), EventHandler::Conditional(Box::new(cycle)));
        editor.bind_sequence(KeyEvent(KeyCode::Enter, Modifiers::ALT), EventHandler::Simple(Cmd::Newline));
        // Ctrl-J (a line feed) adds a line, as in Claude Code and Codex; Enter (a carriage
        // return) sends.
        editor.bind_sequence(KeyEvent::ctrl('J'), pasted_or(&shared, Cmd::Newline));
        for (key, leave) in [('G', Leave::ExternalEditor), ('O', Leave::ExpandOutput)] {
            let handler = LeaveLine { shared: Arc::clone(&shared), leave };
            editor.bind_sequence(KeyEvent::ctrl(key), EventHandler::Conditional(Box::new(handler)));
        }
        // A paste is received key by key (`Event::Any` sees every key no other binding takes)
        // so that a long one can be folded into a placeholder at its end.
        let paste = PasteKeys { shared: Arc::clone(&shared) };
        editor.bind_sequence(KeyEvent(KeyCode::BracketedPasteStart, Modifiers::NONE), paste.handler());
        editor.bind_sequence(KeyEvent(KeyCode::BracketedPasteEnd, Modifiers::NONE), paste.handler());
        editor.bind_sequence(Event::Any, paste.handler());
        let interrupt = RecordInterrupt { shared: Arc::clone(&shared) };
        editor.bind_sequence(KeyEvent::ctrl('C'), EventHandler::Conditional(Box::new(interrupt)));
        let end_of_input = RecordEndOfInput { shared: Arc::clone(&shared) };
        editor.bind_sequence(KeyEvent::ctrl('D'), EventHandler::Conditional(Box::new(end_of_input)));
        if let Some(parent) = history.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        // A missing or unreadable history only means starting without one.
        let _ = editor.load_history(&history);
        let painted = Arc::clone(&shared);
        let painter = Painter::spawn(move |now| paint_status(&painted, now));
        Ok(LineEditor { editor, shared, history, painter })
    }

    /// Terminal width in columns (80 when unknown).
    pub(crate) fn width(&mut self) -> usize {
        self.screen().width
    }

    /// Terminal size (80 × 20 when unknown, as under `TERM=dumb`).
    pub(crate) fn screen(&mut self) -> Screen {
        match self.editor.dimensions() {
            Some((columns, rows)) => Screen { width: usize::from(columns).max(20), height: usize::from(rows).max(5) },
            None => Screen::default(),
        }
    }

    /// The provider names `/model` completes.
    pub(crate) fn set_providers(&mut self, providers: Vec<String>) {
        lock(&self.shared).providers = providers;
    }

    /// The person's own commands Tab completes: (name, the line shown in a list of candidates).
    pub(crate) fn set_custom_commands(&mut self, custom: Vec<(String, String)>) {
        lock(&self.shared).custom = custom;
    }

    /// The mode as the prompt's Shift-Tab left it.
    pub(crate) fn mode(&self) -> Mode {
        lock(&self.shared).mode
    }

    pub(crate) fn set_mode(&self, mode: Mode) {
        lock(&self.shared).mode = mode;
    }

    /// Shows `mcp C/T` in the status line while some of these servers are starting, and a
    /// server that stopped.
    pub(crate) fn set_mcp_probe(&self, probe: crate::mcp::Probe) {
        lock(&self.shared).mcp = Some(probe);
    }

    /// Where `@path` completion looks.
    pub(crate) fn set_root(&self, root: PathBuf) {
        lock(&self.shared).root = Some(root);
    }

    /// Lets the status line be redrawn while the prompt waits (the terminal takes cursor
    /// movement).
    pub(crate) fn set_live_status(&self, live: bool) {
        lock(&self.shared).view.set_live(live);
    }

    /// What tells the editor that the status line's figures changed (an MCP server connected,
    /// failed or stopped): while the prompt waits, it is redrawn at once.
    pub(crate) fn status_wake(&self) -> StatusWake {
        self.painter.waker()
    }

    /// Lets Shift-Tab reach bypass (the session started in it, or the user's config allows it).
    pub(crate) fn set_bypass_in_cycle(&self, allowed: bool) {
        lock(&self.shared).bypass_in_cycle = allowed;
    }

    /// Shows the status line and the prompt and reads one input; `draft` is already in the
    /// input line, to edit or send (a rewound prompt).
    pub(crate) fn read(&mut self, figures: StatusFigures, draft: Option<&str>) -> Input {
        let width = self.width();
        let prompt = {
            let mut shared = lock(&self.shared);
            shared.figures = figures;
            shared.width = width;
            shared.interrupted_with_text = false;
            shared.left = None;
            shared.pasting = None;
            shared.pastes.clear();
            shared.view.begin(crate::sys::terminal_columns(STDOUT));
            prompt_text(&shared)
        };
        let read = match draft {
            Some(draft) => self.editor.readline_with_initial(&prompt, (draft, "")),
            None => self.editor.readline(&prompt),
        };
        let mut shared = lock(&self.shared);
        shared.view.end();
        let pastes = std::mem::take(&mut shared.pastes);
        match read {
            Ok(line) => Input::Line(expand_pastes(&join_continuations(&strip_escapes(&line)), &pastes)),
            Err(ReadlineError::Interrupted) => match shared.left.take() {
                Some((leave, line)) => Input::Left(leave, expand_pastes(&strip_escapes(&line), &pastes)),
                None => Input::Interrupted { had_text: shared.interrupted_with_text },
            },
            Err(ReadlineError::Eof) => Input::Eof,
            Err(err) => Input::Failed(err.to_string()),
        }
    }

    /// Adds an input to the history and appends it to the history file at once (a crash keeps it).
    pub(crate) fn remember(&mut self, line: &str) {
        if self.editor.add_history_entry(line).unwrap_or(false) {
            let _ = self.editor.append_history(&self.history);
        }
    }
}

/// The terminal rustyline draws on.
const STDOUT: i32 = 1;

/// The painter's work at `now`: redraws the status line above the waiting prompt when it knows
/// where that is; None when done (painted or not), Some after how long to ask again.
fn paint_status(shared: &Mutex<Shared>, now: Instant) -> Option<Duration> {
    let shared = lock(shared);
    match shared.view.plan(now, crate::sys::terminal_columns(STDOUT)) {
        Plan::Skip => None,
        Plan::Wait(wait) => Some(wait),
        Plan::Paint => {
            let prompt = drawn_prompt(&shared);
            let row = prompt.split('\n').next().unwrap_or_default();
            let mut stdout = std::io::stdout().lock();
            // Written while holding the lock the helper takes, so rustyline draws nothing
            // between; a closed terminal is not worth failing over.
            use std::io::Write;
            let _ = stdout.write_all(repaint_bytes(row).as_bytes()).and_then(|()| stdout.flush());
            None
        }
    }
}

/// The plain prompt: the status line, then `› ` (the locale's prompt mark) on the next line.
fn prompt_text(shared: &Shared) -> String {
    let figures = &shared.figures;
    let mcp = shared
        .mcp
        .as_ref()
        .map(crate::mcp::Probe::progress)
        .filter(|progress| progress.starting > 0 || !progress.stopped.is_empty());
    let mcp = mcp.map(|progress| McpFigures {
        connected: progress.connected,
        configured: progress.configured,
        stopped: progress.stopped.first().map(|server| (server.name.clone(), server.last_words.clone())),
        more_stopped: progress.stopped.len().saturating_sub(1),
    });
    let status = Status {
        provider: &figures.provider,
        model: &figures.model,
        mode: shared.mode,
        context_used: figures.context_used,
        context_window: figures.context_window,
        session: figures.session,
        context_estimated: figures.context_estimated,
        session_estimated: figures.session_estimated,
        mcp,
    };
    format!("{}\n{} ", render_status(&status, shared.glyphs, shared.width), shared.glyphs.prompt)
}

/// The line with each paste placeholder still in it replaced by its text.
fn expand_pastes(line: &str, pastes: &[(String, String)]) -> String {
    pastes.iter().fold(line.to_string(), |line, (placeholder, text)| line.replacen(placeholder.as_str(), text, 1))
}

/// What a finished paste puts in the line: itself, or a placeholder when it is long (the
/// `number`th folded paste of this input).
fn fold_paste(text: &str, number: usize) -> Option<String> {
    let lines = text.lines().count();
    if lines > PASTE_FOLD_LINES {
        Some(format!("[Pasted text #{number} +{lines} lines]"))
    } else if text.chars().count() > PASTE_FOLD_CHARS {
        Some(format!("[Pasted text #{number} {} chars]", text.chars().count()))
    } else {
        None
    }
}

/// Removes the backslash of each `\`-newline continuation; the newline stays.
pub(super) fn join_continuations(line: &str) -> String {
    line.replace("\\\n", "\n")
}

struct Helper {
    shared: Arc<Mutex<Shared>>,
}

impl rustyline::Helper for Helper {}

impl Completer for Helper {
    type Candidate = Pair;

    /// An `@path` is completed with project paths; built-ins are listed by name; a custom
    /// command with its argument hint and description.
    fn complete(&self, line: &str, pos: usize, _ctx: &Context<'_>) -> rustyline::Result<(usize, Vec<Pair>)> {
        let mut shared = lock(&self.shared);
        // Candidates (and perhaps a question) may appear below the prompt.
        shared.view.asked_elsewhere(Instant::now());
        let mention = shared.root.as_deref().and_then(|root| super::mentions::complete(root, &line[..pos]));
        if let Some((start, paths)) = mention {
            let pairs = paths.into_iter().map(|path| Pair { display: path.clone(), replacement: path }).collect();
            return Ok((start, pairs));
        }
        let names: Vec<String> = shared.custom.iter().map(|(name, _)| name.clone()).collect();
        let (start, candidates) = commands::complete(&line[..pos], &shared.providers, &names);
        let pairs = candidates
            .into_iter()
            .map(|candidate| {
                let display = shared.custom.iter().find(|(name, _)| *name == candidate).map(|(_, shown)| shown.clone());
                Pair { display: display.unwrap_or_else(|| candidate.clone()), replacement: candidate }
            })
            .collect();
        Ok((start, pairs))
    }
}

impl Hinter for Helper {
    type Hint = String;
}

impl Highlighter for Helper {
    fn highlight_prompt<'b, 's: 'b, 'p: 'b>(&'s self, prompt: &'p str, default: bool) -> Cow<'b, str> {
        let mut shared = lock(&self.shared);
        shared.view.drew_prompt(default, Instant::now());
        if !default {
            return Cow::Borrowed(prompt);
        }
        Cow::Owned(drawn_prompt(&shared))
    }

    fn highlight<'l>(&self, line: &'l str, _pos: usize) -> Cow<'l, str> {
        lock(&self.shared).view.drew_input(line, Instant::now());
        Cow::Borrowed(line)
    }

    /// Called before every cursor move and insertion, also those rustyline draws without a
    /// full refresh: the painter learns the line's length here.
    fn highlight_char(&self, line: &str, _pos: usize, _kind: CmdKind) -> bool {
        lock(&self.shared).view.drew_input(line, Instant::now());
        false
    }
}

/// The prompt as drawn: the same text as `prompt_text` but with the current mode (same width),
/// dimmed when coloured; bypass is loud: its mode in bold red, and a red `›`.
fn drawn_prompt(shared: &Shared) -> String {
    let text = prompt_text(shared);
    match (text.split_once('\n'), shared.mode) {
        (Some((status, rest)), Mode::Bypass) if shared.color => {
            let separator = shared.glyphs.separator;
            let (figures, mode) = status.rsplit_once(separator).unwrap_or(("", status));
            let loud = format!("{BOLD};{RED}");
            format!("{}{separator}{}\n{}", paint(true, DIM, figures), paint(true, &loud, mode), paint(true, RED, rest))
        }
        (Some((status, rest)), _) if shared.color => format!("{}\n{rest}", paint(true, DIM, status)),
        (Some(_) | None, _) => text,
    }
}

impl Validator for Helper {
    /// A trailing backslash continues the input on a new line.
    fn validate(&self, ctx: &mut ValidationContext) -> rustyline::Result<ValidationResult> {
        if ctx.input().ends_with('\\') {
            return Ok(ValidationResult::Incomplete);
        }
        // Submitted: rustyline moves below the input next, so the status line is no longer
        // one row up.
        lock(&self.shared).view.end();
        Ok(ValidationResult::Valid(None))
    }
}

/// Shift-Tab: the next mode of the session's cycle, shown by repainting the prompt.
struct CycleMode {
    shared: Arc<Mutex<Shared>>,
}

impl ConditionalEventHandler for CycleMode {
    fn handle(&self, _: &Event, _: RepeatCount, _: bool, _: &EventContext) -> Option<Cmd> {
        let mut shared = lock(&self.shared);
        shared.mode = shared.mode.next(shared.bypass_in_cycle);
        Some(Cmd::Repaint)
    }
}

/// Ctrl-C: remembers whether the line had text, then interrupts as usual.
struct RecordInterrupt {
    shared: Arc<Mutex<Shared>>,
}

impl ConditionalEventHandler for RecordInterrupt {
    fn handle(&self, _: &Event, _: RepeatCount, _: bool, ctx: &EventContext) -> Option<Cmd> {
        let mut shared = lock(&self.shared);
        shared.interrupted_with_text = !ctx.line().is_empty();
        shared.view.end();
        Some(Cmd::Interrupt)
    }
}

/// Ctrl-G, Ctrl-O: leaves the line (as an interrupt does) with what it held.
struct LeaveLine {
    shared: Arc<Mutex<Shared>>,
    leave: Leave,
}

impl ConditionalEventHandler for LeaveLine {
    fn handle(&self, _: &Event, _: RepeatCount, _: bool, ctx: &EventContext) -> Option<Cmd> {
        lock(&self.shared).left = Some((self.leave, ctx.line().to_string()));
        Some(Cmd::Interrupt)
    }
}

/// `cmd`, except inside a paste, where the key is the paste's text.
fn pasted_or(shared: &Arc<Mutex<Shared>>, cmd: Cmd) -> EventHandler {
    EventHandler::Conditional(Box::new(PasteKeys { shared: Arc::clone(shared) }.or(cmd)))
}

/// The keys of a bracketed paste: gathered between its start and end markers, then inserted
/// whole, or as a placeholder when long (`fold_paste`).
struct PasteKeys {
    shared: Arc<Mutex<Shared>>,
}

impl PasteKeys {
    fn handler(&self) -> EventHandler {
        EventHandler::Conditional(Box::new(PasteKeys { shared: Arc::clone(&self.shared) }))
    }

    fn or(self, otherwise: Cmd) -> PasteOr {
        PasteOr { keys: self, otherwise }
    }
}

/// A binding of its own outside a paste, paste text inside one.
struct PasteOr {
    keys: PasteKeys,
    otherwise: Cmd,
}

impl ConditionalEventHandler for PasteOr {
    fn handle(&self, event: &Event, count: RepeatCount, positive: bool, ctx: &EventContext) -> Option<Cmd> {
        self.keys.handle(event, count, positive, ctx).or_else(|| Some(self.otherwise.clone()))
    }
}

impl ConditionalEventHandler for PasteKeys {
    fn handle(&self, event: &Event, _: RepeatCount, _: bool, _: &EventContext) -> Option<Cmd> {
        let Event::KeySeq(keys) = event else { return None };
        let [KeyEvent(code, modifiers)] = keys.as_slice() else { return None };
        let mut shared = lock(&self.shared);
        match (code, shared.pasting.as_mut()) {
            (KeyCode::BracketedPasteStart, _) => {
                shared.pasting = Some(String::new());
                Some(Cmd::Noop)
            }
            (KeyCode::BracketedPasteEnd, Some(_)) => {
                let text = shared.pasting.take().unwrap_or_default().replace("\r\n", "\n");
                let number = shared.pastes.len() + 1;
                Some(match fold_paste(&text, number) {
                    Some(placeholder) => {
                        shared.pastes.push((placeholder.clone(), text));
                        Cmd::Insert(1, placeholder)
                    }
                    None => Cmd::Insert(1, text),
                })
            }
            (_, None) => None,
            (KeyCode::Enter, Some(text)) => {
                text.push('\n');
                Some(Cmd::Noop)
            }
            (KeyCode::Char(c), Some(text)) if *modifiers == Modifiers::NONE || *modifiers == Modifiers::SHIFT => {
                text.push(*c);
                Some(Cmd::Noop)
            }
            (KeyCode::Char('J' | 'M'), Some(text)) if *modifiers == Modifiers::CTRL => {
                text.push('\n');
                Some(Cmd::Noop)
            }
            (KeyCode::Tab, Some(text)) => {
                text.push('\t');
                Some(Cmd::Noop)
            }
            // Other keys inside a paste (escape sequences, control keys) are not text.
            (_, Some(_)) => Some(Cmd::Noop),
        }
    }
}

/// Ctrl-D: on an empty line it ends the input (the prompt is left), otherwise it deletes as
/// usual.
struct RecordEndOfInput {
    shared: Arc<Mutex<Shared>>,
}

impl ConditionalEventHandler for RecordEndOfInput {
    fn handle(&self, _: &Event, _: RepeatCount, _: bool, ctx: &EventContext) -> Option<Cmd> {
        if ctx.line().is_empty() {
            lock(&self.shared).view.end();
        }
        None
    }
}

#[cfg(test)]
#[path = "editor_tests.rs"]
mod tests;
