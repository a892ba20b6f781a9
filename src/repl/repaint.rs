//! The status line kept live while the person sits at the prompt: when an MCP server connects,
//! fails or stops, a thread (`repl-status`) rewrites the status line above the idle prompt in
//! place, without a key being pressed.
//!
//! Why not rustyline's external printer: once created, rustyline 17 waits in `select` on the
//! terminal even when keys are already in its read buffer, so typed-ahead or pasted keys stall
//! (see editor.rs). Rustyline has no other way to be woken, so the painter draws the one row
//! itself, in one write: save the cursor, go up one row, clear it, draw the status line,
//! restore the cursor. The line being edited, the cursor and rustyline's idea of the screen are
//! untouched, and any redraw rustyline makes later draws the same status line (its prompt is
//! rendered from the same live figures).
//!
//! Invariant: it paints only where it knows the status line is: the editor is reading, the
//! prompt on the screen is ours (not the reverse search's, no completion question pending), the
//! input fits on the one row below the status line, the terminal has the width the prompt was
//! drawn for, and rustyline's last drawing is done (it draws right after asking the helper, so
//! a paint waits `SETTLE` after the last ask). Otherwise it does nothing: the news is in the
//! next prompt anyway. Decisions are pure (`PromptView::plan`); the thread only waits and writes.

use crossbeam_channel::{RecvTimeoutError, Sender};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long after rustyline last asked the helper a paint waits: rustyline writes what it drew
/// right after asking, and a paint must not land before that drawing.
const SETTLE: Duration = Duration::from_millis(30);

/// The width of `› `, the start of the input row.
const PROMPT_MARK_COLUMNS: usize = 2;

/// What the terminal shows of the prompt, as the line editor's helper saw it drawn.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct PromptView {
    /// The terminal allows cursor movement (not `TERM=dumb`, stdout a terminal).
    live: bool,
    /// The editor is reading a line.
    reading: bool,
    /// The prompt last drawn is ours and no question of rustyline's is pending.
    ours: bool,
    /// The input last drawn fits on the row below the status line (no newline, no wrap).
    one_row: bool,
    /// The terminal's width when the read began.
    columns: Option<usize>,
    /// When rustyline last asked the helper.
    touched: Option<Instant>,
}

/// What the painter does now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Plan {
    Paint,
    /// Rustyline may still be drawing: ask again after this long.
    Wait(Duration),
    /// The status line's place is not known: leave the news to the next prompt.
    Skip,
}

impl PromptView {
    /// Whether painting is allowed at all (the terminal takes cursor movement).
    pub(super) fn set_live(&mut self, live: bool) {
        self.live = live;
    }

    /// A read begins on a terminal `columns` wide; nothing is drawn yet.
    pub(super) fn begin(&mut self, columns: Option<usize>) {
        *self = PromptView { live: self.live, reading: true, columns, ..PromptView::default() };
    }

    /// The input ended (submitted, interrupted, end of file): the prompt is no longer live.
    pub(super) fn end(&mut self) {
        self.reading = false;
    }

    /// Rustyline draws a prompt: ours (`default`) or another (the reverse search's).
    pub(super) fn drew_prompt(&mut self, ours: bool, now: Instant) {
        self.ours = ours;
        self.touched = Some(now);
    }

    /// Rustyline draws (or moves within) the input `line`.
    pub(super) fn drew_input(&mut self, line: &str, now: Instant) {
        self.one_row = self.columns.is_some_and(|columns| fits_one_row(line, columns));
        self.touched = Some(now);
    }

    /// Rustyline shows something of its own below the prompt (completions, and maybe the
    /// question whether to list them all): the status line's place is unknown until it redraws.
    pub(super) fn asked_elsewhere(&mut self, now: Instant) {
        self.ours = false;
        self.touched = Some(now);
    }

    /// Whether to paint at `now`, on a terminal now `columns_now` wide.
    pub(super) fn plan(&self, now: Instant, columns_now: Option<usize>) -> Plan {
        let Some(touched) = self.touched else { return Plan::Skip };
        if !(self.live && self.reading && self.ours && self.one_row) || columns_now != self.columns {
            return Plan::Skip;
        }
        match SETTLE.checked_sub(now.saturating_duration_since(touched)) {
            Some(wait) if !wait.is_zero() => Plan::Wait(wait),
            Some(_) | None => Plan::Paint,
        }
    }
}

/// Whether `› line` surely fits on one row of `columns` (keeping the last column free, as
/// rustyline's wrapping needs): no control character (a newline, a tab), every character not
/// ASCII counted two columns wide.
fn fits_one_row(line: &str, columns: usize) -> bool {
    let mut width = PROMPT_MARK_COLUMNS;
    for c in line.chars() {
        if c.is_control() {
            return false;
        }
        width += if c.is_ascii() { 1 } else { 2 };
    }
    width < columns
}

/// The bytes that redraw the status line `row` one row above the cursor and put the cursor
/// back where it was (DECSC, cursor up, erase the row, the row, DECRC).
pub(super) fn repaint_bytes(row: &str) -> String {
    format!("\x1b7\x1b[1A\r\x1b[2K{row}\x1b8")
}

/// Asks the painter to bring the status line up to date; never blocks. Clone it into whatever
/// learns of a change (the MCP servers' update sink).
#[derive(Clone)]
pub(crate) struct StatusWake {
    wake_tx: Sender<()>,
}

impl StatusWake {
    /// Something the status line shows has changed.
    pub(crate) fn wake(&self) {
        // Full: a wake is already pending, and one paint draws the latest state.
        let _ = self.wake_tx.try_send(());
    }
}

/// The `repl-status` thread, owned by the line editor and joined when it drops.
pub(super) struct Painter {
    wake: StatusWake,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Painter {
    /// Starts the thread; at each wake it calls `paint` (with the time), which paints or decides
    /// not to (None) or asks to be called again after a while (Some).
    pub(super) fn spawn(mut paint: impl FnMut(Instant) -> Option<Duration> + Send + 'static) -> Painter {
        // One pending wake is enough: a paint draws the state as it is when it runs.
        let (wake_tx, wake_rx) = crossbeam_channel::bounded::<()>(1);
        let stop = Arc::new(AtomicBool::new(false));
        let thread_stop = Arc::clone(&stop);
        let run = move || {
            while wake_rx.recv().is_ok() {
                loop {
                    if thread_stop.load(Ordering::SeqCst) {
                        return;
                    }
                    let Some(wait) = paint(Instant::now()) else { break };
                    if let Err(RecvTimeoutError::Disconnected) = wake_rx.recv_timeout(wait) {
                        return;
                    }
                }
            }
        };
        // Without the thread the status line is only as fresh as the last prompt, as before.
        let thread = std::thread::Builder::new().name("repl-status".to_string()).spawn(run).ok();
        Painter { wake: StatusWake { wake_tx }, stop, thread }
    }

    /// A handle that wakes the painter.
    pub(super) fn waker(&self) -> StatusWake {
        self.wake.clone()
    }
}

impl Drop for Painter {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        self.wake.wake();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
#[path = "repaint_tests.rs"]
mod tests;
