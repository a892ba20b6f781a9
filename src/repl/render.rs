//! Rendering the agent's events as a scrolling transcript: streamed text rendered as markdown
//! (`markdown.rs`) and word-wrapped (`wrap.rs`) as it arrives, thinking summarised in one dim
//! line, tool lines with elapsed time, notices, errors and a one-line spinner while waiting; the
//! colours and the widths (`display_width`) the other screens share. The status line is
//! `status_line.rs`'s.
//!
//! Invariant: append-only output. Nothing already printed is redrawn except the spinner's own
//! line (with a running command's last output lines below it), which is only drawn at the start
//! of an empty line and is wiped before anything else is written, and a word shown while the
//! stream paused (`wrap.rs`), so the cost of a token does not depend on how long the answer
//! already is. All model
//! and tool text goes through `text::neutralize` before it reaches the writer. Colour escapes are
//! emitted only when `color` is set, and the spinner only when `animate` is set (stdout is a TTY
//! and `TERM` is not dumb: `app::plan_terminal_style`). Every symbol of ours comes from the
//! renderer's `Glyphs` (ASCII when the locale is not UTF-8).

use super::markdown::Markdown;
use super::status_line::cut_to_width;
use super::wrap::Wrap;
use crate::agent::{FileChange, Stop};
use crate::glyphs::{self, Glyphs};
use crate::text::neutralize;
use std::io::{self, Write};
use std::time::{Duration, Instant};

/// SGR codes used by the front end.
pub(crate) const DIM: &str = "2";
pub(crate) const BOLD: &str = "1";
pub(crate) const RED: &str = "31";
pub(crate) const GREEN: &str = "32";
pub(crate) const YELLOW: &str = "33";
pub(crate) const CYAN: &str = "36";

/// `text` wrapped in an SGR colour when `color` is on.
pub(crate) fn paint(color: bool, code: &str, text: &str) -> String {
    if color && !text.is_empty() { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_string() }
}

/// How often the spinner may redraw its line.
const SPINNER_PERIOD: Duration = Duration::from_millis(80);
/// Characters of thinking kept for its one-line summary.
const THINKING_PREVIEW_CHARS: usize = 200;

/// Writes one run's events to `out`.
pub struct Renderer<W: Write> {
    out: W,
    color: bool,
    animate: bool,
    glyphs: &'static Glyphs,
    width: usize,
    /// The lines being written, word-wrapped (`wrap.rs`).
    wrap: Wrap,
    /// Answer text rendered as markdown as it streams (`markdown.rs`).
    markdown: Markdown,
    /// Answer text was shown since the last iteration began (a restart voids it).
    shown_text: bool,
    spinner: Option<Spinner>,
    thinking: Option<Thinking>,
    tools: Vec<RunningTool>,
}

struct Spinner {
    label: String,
    since: Instant,
    frame: usize,
    last_draw: Option<Instant>,
    /// Width of what is on screen now (0: nothing drawn).
    drawn_width: usize,
    /// The output of the call the spinner is for, as it comes; its last lines are drawn under
    /// the spinner.
    live: Option<crate::tools::LiveTail>,
    /// Lines the live tail had when it was last drawn (a change redraws at once).
    drawn_added: u64,
    /// Rows of output on screen now, below the spinner's line.
    drawn_rows: usize,
}

/// Lines of a running command's output shown under the spinner.
const LIVE_TAIL_LINES: usize = 4;

struct Thinking {
    since: Instant,
    chars: usize,
    preview: String,
}

/// The end of one tool call, as the renderer needs it.
pub struct ToolEnd<'a> {
    pub id: &'a str,
    pub name: &'a str,
    /// The first line of the result.
    pub result: &'a str,
    pub is_error: bool,
    pub elapsed: Duration,
    /// What a write or edit changed, shown under the result (`applied.rs`).
    pub change: Option<&'a FileChange>,
    /// A person approved the call at the prompt (and saw its diff there).
    pub approved_by_user: bool,
}

struct RunningTool {
    id: String,
    preview: String,
}

impl<W: Write> Renderer<W> {
    /// A renderer for a terminal `width` columns wide (at least 20 are assumed), drawing
    /// Unicode symbols (`with_glyphs` chooses others).
    pub fn new(out: W, color: bool, animate: bool, width: usize) -> Renderer<W> {
        Renderer {
            out,
            color,
            animate,
            glyphs: &glyphs::UNICODE,
            width: width.max(20),
            wrap: Wrap::new(width.max(20)),
            markdown: Markdown::new(color, &glyphs::UNICODE),
            shown_text: false,
            spinner: None,
            thinking: None,
            tools: Vec::new(),
        }
    }

    /// The same renderer drawing the symbols of `glyphs`.
    pub(crate) fn with_glyphs(self, glyphs: &'static Glyphs) -> Renderer<W> {
        Renderer { glyphs, markdown: Markdown::new(self.color, glyphs), ..self }
    }

    /// The writer back (the tests, and a replay rendered into memory, read what was written).
    pub(crate) fn into_inner(self) -> W {
        self.out
    }

    /// A model request begins: show the waiting spinner.
    pub fn iteration(&mut self, now: Instant) -> io::Result<()> {
        self.settle(now)?;
        self.shown_text = false;
        self.start_spinner("waiting for the model", now);
        self.out.flush()
    }

    /// A fragment of answer text, printed at once as markdown (word-wrapped), but for what a
    /// marker needs the next characters to decide (`markdown.rs`).
    pub fn text(&mut self, delta: &str, now: Instant) -> io::Result<()> {
        if self.thinking.is_some() {
            self.finish_thinking(now)?;
        }
        self.clear_spinner()?;
        self.shown_text = true;
        for c in neutralize(delta).chars() {
            self.markdown.push(c, &mut self.wrap, &mut self.out)?;
        }
        self.out.flush()
    }

    /// A fragment of reasoning: counted and summarised when it ends; the spinner says "thinking".
    pub fn thinking(&mut self, delta: &str, now: Instant) -> io::Result<()> {
        if self.thinking.is_none() {
            self.settle(now)?;
            self.thinking = Some(Thinking { since: now, chars: 0, preview: String::new() });
            self.start_spinner("thinking", now);
        }
        if let Some(thinking) = &mut self.thinking {
            thinking.chars += delta.chars().count();
            let room = THINKING_PREVIEW_CHARS.saturating_sub(thinking.preview.chars().count());
            thinking.preview.extend(delta.chars().take(room));
        }
        self.tick(now)
    }

    /// The stream broke and starts again: mark what was shown of this attempt as void.
    pub fn restart(&mut self, restart: u32, max: u32, reason: &str, now: Instant) -> io::Result<()> {
        self.settle(now)?;
        let void = if self.shown_text { "; the partial answer above is void" } else { "" };
        let line =
            format!("{} connection lost ({}), retrying ({restart}/{max}){void}", self.glyphs.retry, neutralize(reason));
        self.wrapped_line(YELLOW, &line, 2)?;
        self.shown_text = false;
        self.start_spinner("reconnecting", now);
        self.out.flush()
    }

    /// A request failed before any output and goes out again after a wait: say what happened
    /// and when (`rate limited (429), retrying in 5 s (attempt 2 of 4)`); the spinner says it
    /// waits to retry rather than for the model.
    pub fn retry(&mut self, description: &str, now: Instant) -> io::Result<()> {
        self.settle(now)?;
        self.wrapped_line(YELLOW, &format!("{} {}", self.glyphs.retry, neutralize(description)), 2)?;
        self.start_spinner("waiting to retry", now);
        self.out.flush()
    }

    /// A tool starts: remembered until it ends; the spinner says what runs.
    pub fn tool_start(&mut self, id: &str, name: &str, preview: &str, now: Instant) -> io::Result<()> {
        self.settle(now)?;
        self.tools.push(RunningTool { id: id.to_string(), preview: format!("{name} {preview}") });
        let label = match self.tools.as_slice() {
            [only] => format!("running {}", neutralize(&only.preview)),
            several => format!("running {} tools", several.len()),
        };
        self.start_spinner(&label, now);
        self.out.flush()
    }

    /// A tool ended: `● name arguments  (12 ms)`, its result's first line, and what a write or
    /// edit changed.
    pub fn tool_end(&mut self, end: &ToolEnd, now: Instant) -> io::Result<()> {
        let ToolEnd { id, name, result, is_error, elapsed, change, approved_by_user } = *end;
        self.clear_spinner()?;
        self.end_line()?;
        let started = self.tools.iter().position(|tool| tool.id == id).map(|index| self.tools.remove(index));
        let call = started.map_or_else(|| name.to_string(), |tool| tool.preview);
        let bullet = paint(self.color, if is_error { RED } else { GREEN }, self.glyphs.tool);
        let time = paint(self.color, DIM, &format!("({})", format_elapsed(elapsed)));
        self.line(&format!("{bullet} {}  {time}", neutralize(call.trim_end())))?;
        if !result.is_empty() {
            let result = format!("  {} {}", self.glyphs.result, neutralize(result));
            self.wrapped_line(if is_error { RED } else { DIM }, &result, 4)?;
        }
        if let Some(change) = change {
            let rows = super::applied::render_applied(change, approved_by_user, self.color, self.glyphs, self.width);
            self.out.write_all(rows.as_bytes())?;
        }
        if let Some(tool) = self.tools.first() {
            let label = if self.tools.len() == 1 {
                format!("running {}", neutralize(&tool.preview))
            } else {
                format!("running {} tools", self.tools.len())
            };
            self.start_spinner(&label, now);
        }
        self.out.flush()
    }

    /// Something the user should know, dimmed.
    pub(crate) fn notice(&mut self, text: &str, now: Instant) -> io::Result<()> {
        self.settle(now)?;
        self.wrapped_line(DIM, &format!("{} {}", self.glyphs.notice, neutralize(text)), 2)?;
        self.out.flush()
    }

    /// A failure, in red.
    pub fn error(&mut self, text: &str, now: Instant) -> io::Result<()> {
        self.settle(now)?;
        self.wrapped_line(RED, &format!("{} error: {}", self.glyphs.error, neutralize(text)), 2)?;
        self.out.flush()
    }

    /// The run is over.
    pub fn done(&mut self, stop: Stop, now: Instant) -> io::Result<()> {
        self.settle(now)?;
        match stop {
            Stop::Cancelled => self.line(&paint(self.color, DIM, "(cancelled)"))?,
            Stop::Completed | Stop::IterationLimit | Stop::UnknownTools | Stop::Failed => {}
        }
        self.out.flush()
    }

    /// Leaves the screen clean for someone else to write (an approval prompt): spinner wiped,
    /// thinking summarised, the cursor at the start of a fresh line.
    pub fn pause(&mut self, now: Instant) -> io::Result<()> {
        self.settle(now)?;
        self.out.flush()
    }

    /// The output of the call that just started, as it comes: its last lines are drawn under
    /// the spinner while it runs (only where the cursor may move).
    pub(crate) fn watch(&mut self, live: crate::tools::LiveTail, now: Instant) -> io::Result<()> {
        if let Some(spinner) = self.spinner.as_mut().filter(|_| self.animate) {
            spinner.live = Some(live);
        }
        self.tick(now)
    }

    /// Text is held back (a word not known yet to fit on the line).
    pub(crate) fn holds_text(&self) -> bool {
        self.wrap.has_pending()
    }

    /// The stream paused: the word held back is shown as far as it came (where the cursor may
    /// move, so that it can be moved to the next line if it outgrows this one).
    pub(crate) fn show_held(&mut self) -> io::Result<()> {
        if self.animate && self.spinner.is_none() {
            self.wrap.show_pending(&mut self.out)?;
            self.out.flush()?;
        }
        Ok(())
    }

    /// Redraws the spinner (and the running call's last output lines under it) if one is
    /// active and its period has passed or the output moved.
    pub(crate) fn tick(&mut self, now: Instant) -> io::Result<()> {
        if !self.animate || self.wrap.column() != 0 {
            return Ok(());
        }
        let Some(spinner) = &mut self.spinner else { return Ok(()) };
        let (added, tail) = spinner.live.as_ref().map_or((0, Vec::new()), |live| live.last(LIVE_TAIL_LINES));
        let output_moved = added != spinner.drawn_added;
        if !output_moved && spinner.last_draw.is_some_and(|last| now.duration_since(last) < SPINNER_PERIOD) {
            return Ok(());
        }
        spinner.drawn_added = added;
        let frames = self.glyphs.spinner;
        spinner.frame = (spinner.frame + 1) % frames.len().max(1);
        spinner.last_draw = Some(now);
        let seconds = now.duration_since(spinner.since).as_secs_f64();
        let frame = frames.get(spinner.frame).copied().unwrap_or(' ');
        let mut text = format!("{frame} {} {seconds:.1}s", spinner.label);
        let limit = self.width.saturating_sub(1);
        if display_width(&text) > limit {
            let ellipsis = self.glyphs.ellipsis;
            let kept = limit.saturating_sub(display_width(ellipsis));
            text = text.chars().take(kept).collect::<String>() + ellipsis;
        }
        let width = display_width(&text);
        if tail.is_empty() && spinner.drawn_rows == 0 {
            let padding = " ".repeat(spinner.drawn_width.saturating_sub(width));
            write!(self.out, "\r{}{padding}\r", paint(self.color, DIM, &text))?;
        } else {
            // The command's last lines below the spinner, each cut to the width (never wrapped,
            // so the rows are known), then back up to the spinner's line.
            write!(self.out, "\r\x1b[J{}", paint(self.color, DIM, &text))?;
            for line in &tail {
                let line = neutralize(line).replace('\t', "    ");
                let cut = cut_to_width(&line, limit.saturating_sub(4), self.glyphs.ellipsis);
                write!(self.out, "\r\n    {}", paint(self.color, DIM, &cut))?;
            }
            spinner.drawn_rows = tail.len();
            if spinner.drawn_rows > 0 {
                write!(self.out, "\x1b[{}A", spinner.drawn_rows)?;
            }
            write!(self.out, "\r")?;
        }
        // The cursor is back at column 0 with the spinner text to its right; it is wiped before
        // anything else is written.
        spinner.drawn_width = width;
        self.out.flush()
    }

    /// Ends whatever is in progress: pending word, thinking summary, spinner, partial line.
    fn settle(&mut self, now: Instant) -> io::Result<()> {
        self.clear_spinner()?;
        if self.thinking.is_some() {
            self.finish_thinking(now)?;
        }
        self.end_line()
    }

    fn start_spinner(&mut self, label: &str, now: Instant) {
        self.spinner = Some(Spinner {
            label: label.to_string(),
            since: now,
            frame: 0,
            last_draw: None,
            drawn_width: 0,
            live: None,
            drawn_added: 0,
            drawn_rows: 0,
        });
    }

    fn clear_spinner(&mut self) -> io::Result<()> {
        match self.spinner.take() {
            Some(spinner) if spinner.drawn_rows > 0 => write!(self.out, "\r\x1b[J")?,
            Some(spinner) if spinner.drawn_width > 0 => write!(self.out, "\r{}\r", " ".repeat(spinner.drawn_width))?,
            Some(_) | None => {}
        }
        Ok(())
    }

    fn finish_thinking(&mut self, now: Instant) -> io::Result<()> {
        let Some(thinking) = self.thinking.take() else { return Ok(()) };
        self.clear_spinner()?;
        self.end_line()?;
        let seconds = now.duration_since(thinking.since).as_secs_f64();
        let first = thinking.preview.split('\n').map(str::trim).find(|line| !line.is_empty()).unwrap_or("");
        let head = format!("{} thought for {seconds:.1}s ({} chars)", self.glyphs.thought, thinking.chars);
        // `head: summary…` stays under the width: two columns for `: `, one kept free.
        let room = self.width.saturating_sub(display_width(&head) + 3 + display_width(self.glyphs.ellipsis));
        let mut summary: String = neutralize(first).chars().take(room).collect();
        if summary.chars().count() < thinking.chars {
            summary.push_str(self.glyphs.ellipsis);
        }
        let text = if summary.is_empty() { head } else { format!("{head}: {summary}") };
        self.line(&paint(self.color, DIM, &text))
    }

    /// Ends the answer's markdown (what it held is written), writes the pending word and, if the
    /// cursor is not at the start of a line, a newline.
    fn end_line(&mut self) -> io::Result<()> {
        self.markdown.finish(&mut self.wrap, &mut self.out)?;
        self.wrap.end_line(&mut self.out)
    }

    /// Writes a whole line of our own (already neutralised and painted).
    fn line(&mut self, text: &str) -> io::Result<()> {
        self.end_line()?;
        writeln!(self.out, "{text}")
    }

    /// Writes a line of our own (already neutralised) in one colour, word-wrapped like text,
    /// continuation lines indented by `hang` columns.
    fn wrapped_line(&mut self, code: &str, text: &str, hang: usize) -> io::Result<()> {
        self.end_line()?;
        self.wrap.set_hang(&" ".repeat(hang), hang);
        if self.color {
            write!(self.out, "\x1b[{code}m")?;
        }
        for c in text.chars() {
            self.wrap.push(&mut self.out, c)?;
        }
        self.wrap.flush_word(&mut self.out)?;
        if self.color {
            self.out.write_all(b"\x1b[0m")?;
        }
        self.wrap.set_hang("", 0);
        self.end_line()
    }
}

/// `text` word-wrapped to `width` columns (at least 20) by the one rule the streamed answer
/// follows: lines break between words, a wrapped line does not start with the blank that
/// separated it, only a word longer than a line is split, and explicit newlines stay. Lines after
/// a wrap start with `hang` blanks (continuation lines of an indented item). `text` must be
/// plain (neutralised, not yet painted): escapes would count as columns. No trailing newline is
/// added.
pub(crate) fn wrap(text: &str, width: usize, hang: usize) -> String {
    let width = width.max(20);
    let mut wrap = Wrap::new(width);
    let hang = hang.min(width / 2);
    wrap.set_hang(&" ".repeat(hang), hang);
    let mut out = Vec::new();
    // Writing to a Vec cannot fail.
    for c in text.chars() {
        let _ = wrap.push(&mut out, c);
    }
    let _ = wrap.flush_word(&mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// `12 ms` under a second, `1.2 s` above.
fn format_elapsed(elapsed: Duration) -> String {
    let millis = elapsed.as_millis();
    if millis < 1000 { format!("{millis} ms") } else { format!("{:.1} s", elapsed.as_secs_f64()) }
}

/// `950`, `12.3k`, `4.5M`.
pub(crate) fn human_count(count: u64) -> String {
    match count {
        0..1_000 => count.to_string(),
        1_000..1_000_000 => format!("{:.1}k", count as f64 / 1_000.0),
        _ => format!("{:.1}M", count as f64 / 1_000_000.0),
    }
}

/// Columns a string takes on a terminal (see `char_width`).
pub(crate) fn display_width(text: &str) -> usize {
    text.chars().map(char_width).sum()
}

/// Columns one (printable) character takes: 0 for combining marks and zero-width characters,
/// 2 for East Asian wide characters and most emoji, else 1. An approximation of wcwidth that is
/// good enough to wrap prose.
pub(crate) fn char_width(c: char) -> usize {
    match c as u32 {
        0x0300..=0x036f | 0x200b..=0x200f | 0x2060..=0x2064 | 0xfe00..=0xfe0f | 0xfeff => 0,
        0x1100..=0x115f
        | 0x2e80..=0xa4cf
        | 0xac00..=0xd7a3
        | 0xf900..=0xfaff
        | 0xfe30..=0xfe4f
        | 0xff00..=0xff60
        | 0xffe0..=0xffe6
        | 0x1f300..=0x1f64f
        | 0x1f900..=0x1f9ff
        | 0x20000..=0x3fffd => 2,
        _ => 1,
    }
}

#[cfg(test)]
#[path = "render_tests.rs"]
mod tests;
