//! The streaming filter over answer text (`content` deltas) of local models: a leading
//! `<think>...</think>` becomes Thinking, and tool calls written as text (`text_calls.rs`) are cut
//! out and collected, with the prose around them kept.
//!
//! Invariant: every byte of content comes out exactly once, as Text, as Thinking or inside a
//! recovered call, in order. Only text that could still be the start of a marker is held back
//! (a partial tag, a marker whose next bytes decide, an open call); ordinary prose passes at
//! once, and `finish` releases whatever is left. No IO; ids are the decoder's business.

use super::StreamEvent;
use super::text_calls::{Format, MARKERS, Opening, TextCall, ToolNames, classify_opening, parse_segment, segment_end};

const THINK_OPEN: &str = "<think>";
const THINK_CLOSE: &str = "</think>";
const FENCE: &str = "```";

/// Splits streamed content into Text, Thinking and recovered calls.
#[derive(Debug)]
pub(crate) struct ContentFilter {
    /// The offered tools, or None when text tool-call recovery is off.
    tools: Option<ToolNames>,
    /// Content received but not yet released (in `Capture`, starting with the marker).
    held: String,
    state: State,
    /// Nothing but whitespace released yet: the only place `<think>` opens reasoning.
    at_start: bool,
    /// Drop whitespace before the next text (after `</think>` or a removed call).
    trim_leading: bool,
    /// The last text released ended with a backtick: a marker right after it is quoted.
    after_backtick: bool,
    /// How far an open capture was searched for its end, so long calls are scanned once.
    searched: usize,
    calls: Vec<TextCall>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Text,
    Think,
    Capture(Format),
    /// Inside a code block that is not a call (```` ```xml ````, ```` ```rust ````): an example
    /// of a call shown there is prose, so markers are not looked for until the closing fence.
    Code,
}

impl ContentFilter {
    /// A filter for one attempt; `tools` None leaves tool-call-looking text as text.
    pub(crate) fn new(tools: Option<ToolNames>) -> ContentFilter {
        ContentFilter {
            tools,
            held: String::new(),
            state: State::Text,
            at_start: true,
            trim_leading: false,
            after_backtick: false,
            searched: 0,
            calls: Vec::new(),
        }
    }

    /// Takes one content delta; pushes the Text/Thinking that can be released now.
    pub(crate) fn push(&mut self, delta: &str, out: &mut Vec<StreamEvent>) {
        self.held.push_str(delta);
        self.drain(false, out);
    }

    /// Ends the answer: releases everything held and returns the recovered calls, in order.
    pub(crate) fn finish(&mut self, out: &mut Vec<StreamEvent>) -> Vec<TextCall> {
        self.drain(true, out);
        std::mem::take(&mut self.calls)
    }

    fn drain(&mut self, at_end: bool, out: &mut Vec<StreamEvent>) {
        loop {
            let progressed = match self.state {
                State::Think => self.think(at_end, out),
                State::Capture(format) => self.capture(format, at_end, out),
                State::Text => self.text(at_end, out),
                State::Code => self.code(at_end, out),
            };
            if !progressed {
                return;
            }
        }
    }

    /// Releases reasoning up to `</think>`; true when the tag closed (state changed).
    fn think(&mut self, at_end: bool, out: &mut Vec<StreamEvent>) -> bool {
        if let Some(close) = self.held.find(THINK_CLOSE) {
            let reasoning: String = self.held.drain(..close + THINK_CLOSE.len()).collect();
            emit_thinking(&reasoning[..close], out);
            self.state = State::Text;
            self.trim_leading = true;
            return true;
        }
        let keep = if at_end { 0 } else { partial_suffix(&self.held, THINK_CLOSE) };
        let reasoning: String = self.held.drain(..self.held.len() - keep).collect();
        emit_thinking(&reasoning, out);
        false
    }

    /// Releases a code block through its closing fence; true when it closed.
    fn code(&mut self, at_end: bool, out: &mut Vec<StreamEvent>) -> bool {
        if let Some(close) = self.held.find(FENCE) {
            let block: String = self.held.drain(..close + FENCE.len()).collect();
            self.emit_text(&block, out);
            self.state = State::Text;
            return true;
        }
        let keep = if at_end { 0 } else { partial_suffix(&self.held, FENCE) };
        let block: String = self.held.drain(..self.held.len() - keep).collect();
        self.emit_text(&block, out);
        false
    }

    /// Waits for the end of an open call, then keeps it as calls or gives it back as text.
    fn capture(&mut self, format: Format, at_end: bool, out: &mut Vec<StreamEvent>) -> bool {
        let end = match segment_end(format, &self.held, self.searched) {
            Some(end) => end,
            None if at_end => self.held.len(),
            None => {
                self.searched = self.held.len();
                return false;
            }
        };
        self.searched = 0;
        self.state = State::Text;
        let parsed = self.tools.as_ref().and_then(|tools| parse_segment(format, &self.held[..end], tools));
        match parsed {
            Some((calls, used)) => {
                self.calls.extend(calls);
                self.held.drain(..used);
                self.trim_leading = true;
            }
            None => {
                let segment: String = self.held.drain(..end).collect();
                self.emit_text(&segment, out);
            }
        }
        true
    }

    /// Releases prose up to the first marker; true when a capture or reasoning opened.
    fn text(&mut self, at_end: bool, out: &mut Vec<StreamEvent>) -> bool {
        if self.trim_leading {
            let kept = self.held.trim_start().len();
            self.held.drain(..self.held.len() - kept);
            if self.held.is_empty() && !at_end {
                return false;
            }
            self.trim_leading = false;
        }
        if self.at_start {
            let trimmed = self.held.trim_start();
            if let Some(reasoning) = trimmed.strip_prefix(THINK_OPEN) {
                self.held = reasoning.to_string();
                self.state = State::Think;
                self.at_start = false;
                return true;
            }
            if !at_end && THINK_OPEN.starts_with(trimmed) {
                return false; // empty, blank, or a partial `<think>`
            }
            self.at_start = false;
        }
        if self.tools.is_none() {
            let text = std::mem::take(&mut self.held);
            self.emit_text(&text, out);
            return false;
        }
        match find_marker(&self.held, at_end, self.after_backtick) {
            Found::Opening(at, format) => {
                let prose: String = self.held.drain(..at).collect();
                self.emit_text(&prose, out);
                self.state = State::Capture(format);
                true
            }
            Found::CodeBlock(body) => {
                let opening: String = self.held.drain(..body).collect();
                self.emit_text(&opening, out);
                self.state = State::Code;
                true
            }
            Found::HoldFrom(at) => {
                let prose: String = self.held.drain(..at).collect();
                self.emit_text(&prose, out);
                false
            }
            Found::Nothing => {
                let text = std::mem::take(&mut self.held);
                self.emit_text(&text, out);
                false
            }
        }
    }

    fn emit_text(&mut self, text: &str, out: &mut Vec<StreamEvent>) {
        if !text.is_empty() {
            self.at_start = false;
            self.after_backtick = text.ends_with('`');
            out.push(StreamEvent::Text(text.to_string()));
        }
    }
}

/// The first place in `text` where a call opens or might open.
enum Found {
    /// A marker that opens a call starts here.
    Opening(usize, Format),
    /// A code block that is not a call opens; its body starts here.
    CodeBlock(usize),
    /// From here on the text might still become a marker: hold it.
    HoldFrom(usize),
    Nothing,
}

fn find_marker(text: &str, at_end: bool, after_backtick: bool) -> Found {
    for (at, _) in text.match_indices(['<', '[', '`']) {
        let tail = &text[at..];
        // `<tool_call>` in backticks is quoted, not called.
        let quoted = if at == 0 { after_backtick } else { text[..at].ends_with('`') };
        for &(marker, format) in MARKERS {
            if let Some(rest) = tail.strip_prefix(marker) {
                match classify_opening(format, rest) {
                    Opening::Call if !quoted || format == Format::Fence => return Found::Opening(at, format),
                    Opening::Undecided if !at_end => return Found::HoldFrom(at),
                    Opening::Block => {
                        return Found::CodeBlock(at + marker.len() + rest.find('\n').map_or(0, |at| at + 1));
                    }
                    Opening::Call | Opening::Undecided | Opening::Prose => {}
                }
            } else if !at_end && marker.starts_with(tail) {
                return Found::HoldFrom(at);
            }
        }
    }
    Found::Nothing
}

/// The length of the longest proper prefix of `tag` that `text` ends with.
fn partial_suffix(text: &str, tag: &str) -> usize {
    (1..tag.len()).rev().find(|&length| text.ends_with(&tag[..length])).unwrap_or(0)
}

fn emit_thinking(reasoning: &str, out: &mut Vec<StreamEvent>) {
    if !reasoning.is_empty() {
        out.push(StreamEvent::Thinking(reasoning.to_string()));
    }
}

#[cfg(test)]
#[path = "content_tests.rs"]
mod tests;
