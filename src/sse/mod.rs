//! The hand-written Server-Sent Events parser (WHATWG event-stream rules), incremental and bounded.
//!
//! `SseParser` is the sans-IO core: bytes in (`feed`), events out, in any chunking; `SseReader`
//! wraps it around a blocking `impl Read`. Invariant: every input byte is scanned for a line end
//! exactly once and copied at most twice (into the carried partial line, then into the data
//! buffer), so the cost is linear however the network splits the stream; a line or an event
//! larger than `MAX_EVENT_BYTES` is an error, never unbounded memory. It does no IO of its own
//! beyond the reader it is handed, and knows nothing about JSON or `[DONE]`: the lenient
//! end-of-stream rule is the caller's, fed by `finish`.
//!
//! - `mod.rs` — `SseParser` (bytes in, events out) and `SseReader` around a blocking reader
//! - `tests.rs` — its tests, with the fixtures split at every boundary

use std::io::Read;

/// One dispatched event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field, or "message" when none was given.
    pub event: String,
    /// The `data:` lines joined with "\n".
    pub data: String,
    /// The last-event-id buffer at dispatch time (persists across events), if any was set.
    pub id: Option<String>,
    /// The `retry:` value in milliseconds if this event block set one.
    pub retry_ms: Option<u64>,
}

/// The largest line or data buffer we accept. Real events are kilobytes; 16 MiB leaves room for
/// a huge tool-call argument while a runaway or hostile stream cannot exhaust memory.
const MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;

/// Failures of the SSE layer.
#[derive(Debug)]
pub enum SseError {
    /// A line or an event's data grew past the limit; the stream is unusable, stop reading.
    TooLarge { limit_bytes: usize },
    /// The underlying reader failed (connection reset, timeout, ...); the caller maps it.
    Io(std::io::Error),
}

impl std::fmt::Display for SseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SseError::TooLarge { limit_bytes } => {
                write!(f, "server-sent event larger than {} MiB; the stream is malformed", limit_bytes / (1024 * 1024))
            }
            SseError::Io(err) => write!(f, "reading the event stream failed: {err}"),
        }
    }
}

impl std::error::Error for SseError {}

/// The incremental parser. Feed it bytes as they arrive; it keeps the partial line, the event
/// being built and the CR/BOM state across calls.
#[derive(Debug)]
pub struct SseParser {
    /// The unterminated tail of the last feed (only ever holds bytes of one line).
    line: Vec<u8>,
    /// `data` values of the event being built, each followed by "\n".
    data: Vec<u8>,
    /// True once a `data` field was seen in this block (an empty `data:` still dispatches).
    has_data: bool,
    event_type: Option<String>,
    retry_ms: Option<u64>,
    last_id: Option<String>,
    /// The previous feed ended in CR: a leading LF of the next feed completes that CRLF.
    prev_cr: bool,
    /// How many bytes of a leading BOM matched so far; `None` once the stream start is past.
    bom_matched: Option<usize>,
    limit_bytes: usize,
    /// Lines that are not event-stream fields, kept (capped) so a caller can show a server's
    /// non-standard error: an `error:` field's value, or a plain-text or bare-JSON body.
    stray: String,
}

/// How much stray text is kept: enough for any error message, bounded for a hostile stream.
const MAX_STRAY_BYTES: usize = 4096;

const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

impl Default for SseParser {
    fn default() -> Self {
        SseParser::new()
    }
}

impl SseParser {
    /// A parser at the start of a stream, with the default size limit.
    pub fn new() -> SseParser {
        SseParser::with_limit(MAX_EVENT_BYTES)
    }

    /// A parser with a custom size limit for one line or one event's data (tests use small ones).
    fn with_limit(limit_bytes: usize) -> SseParser {
        SseParser {
            line: Vec::new(),
            data: Vec::new(),
            has_data: false,
            event_type: None,
            retry_ms: None,
            last_id: None,
            prev_cr: false,
            bom_matched: Some(0),
            limit_bytes,
            stray: String::new(),
        }
    }

    /// The lines that were not event-stream fields, joined by newlines (an `error:` field
    /// contributes its value, any other line itself), capped at 4 KiB; None when there were none.
    /// The WHATWG rules ignore such lines, and so does `feed`: this is only for explaining a
    /// stream that carried no usable events.
    pub(crate) fn stray_text(&self) -> Option<&str> {
        (!self.stray.is_empty()).then_some(self.stray.as_str())
    }

    /// Parses `input`, pushing every event completed by it onto `out`.
    pub fn feed(&mut self, input: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        let mut input = input;
        if let Some(matched) = self.bom_matched {
            input = self.skip_bom(matched, input, out)?;
        }
        if self.prev_cr && !input.is_empty() {
            self.prev_cr = false;
            if input[0] == b'\n' {
                input = &input[1..];
            }
        }
        self.feed_lines(input, out)
    }

    /// Ends the stream. The strict rule discards a half-built event; this returns it instead
    /// (its unterminated last line counted as a line) so the caller can apply the lenient rule:
    /// an unterminated `data: [DONE]` is `[DONE]`, an unterminated JSON event is a truncation.
    /// `None` when the stream ended cleanly on an event boundary.
    pub fn finish(&mut self) -> Option<SseEvent> {
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            // The limit was checked while the line grew, and dispatching is what the caller
            // decides, so processing the tail as a field line cannot fail here.
            let mut ignored = Vec::new();
            let _ = self.process_line(&line, &mut ignored);
        }
        self.prev_cr = false;
        if !self.has_data {
            return None;
        }
        Some(self.take_event())
    }

    /// Handles the first bytes of the stream, dropping one leading BOM even when it arrives
    /// split across feeds. Returns the input left after the BOM decision.
    fn skip_bom<'a>(
        &mut self,
        mut matched: usize,
        input: &'a [u8],
        out: &mut Vec<SseEvent>,
    ) -> Result<&'a [u8], SseError> {
        let mut used = 0;
        while matched < BOM.len() && used < input.len() {
            if input[used] != BOM[matched] {
                // Not a BOM after all: the bytes held back so far are ordinary content.
                self.bom_matched = None;
                self.feed_lines(&BOM[..matched], out)?;
                return Ok(&input[used..]);
            }
            matched += 1;
            used += 1;
        }
        self.bom_matched = if matched == BOM.len() { None } else { Some(matched) };
        Ok(&input[used..])
    }

    /// The hot loop: finds each line end in the new bytes only; complete lines inside `input`
    /// are processed in place, only the unterminated tail is copied into `self.line`.
    fn feed_lines(&mut self, mut input: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        while let Some(end) = find_line_end(input) {
            if self.line.is_empty() {
                self.check_size(end)?;
                self.process_line(&input[..end], out)?;
            } else {
                self.check_size(self.line.len() + end)?;
                let mut line = std::mem::take(&mut self.line);
                line.extend_from_slice(&input[..end]);
                let result = self.process_line(&line, out);
                line.clear();
                self.line = line;
                result?;
            }
            let was_cr = input[end] == b'\r';
            input = &input[end + 1..];
            if was_cr {
                match input.first() {
                    Some(b'\n') => input = &input[1..],
                    Some(_) => {}
                    None => self.prev_cr = true,
                }
            }
        }
        if !input.is_empty() {
            self.check_size(self.line.len() + input.len())?;
            self.line.extend_from_slice(input);
        }
        Ok(())
    }

    fn check_size(&self, len: usize) -> Result<(), SseError> {
        if len > self.limit_bytes { Err(SseError::TooLarge { limit_bytes: self.limit_bytes }) } else { Ok(()) }
    }

    /// Applies one complete line (without its terminator) per the WHATWG field table.
    fn process_line(&mut self, line: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        if line.is_empty() {
            if self.has_data {
                let event = self.take_event();
                out.push(event);
            } else {
                // An `event:`/`id:`/`retry:`-only block dispatches nothing and resets the type.
                self.event_type = None;
                self.retry_ms = None;
            }
            return Ok(());
        }
        if line[0] == b':' {
            return Ok(()); // a comment, typically a keep-alive
        }
        let (field, value) = match line.iter().position(|&byte| byte == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        match field {
            b"data" => {
                self.check_size(self.data.len() + value.len() + 1)?;
                self.data.extend_from_slice(value);
                self.data.push(b'\n');
                self.has_data = true;
            }
            b"event" => self.event_type = Some(String::from_utf8_lossy(value).into_owned()),
            b"id" if !value.contains(&0) => self.last_id = Some(String::from_utf8_lossy(value).into_owned()),
            // Only all-digit values count; all digits but too large for u64 is ignored too.
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                if let Ok(retry_ms) = std::str::from_utf8(value).unwrap_or("").parse::<u64>() {
                    self.retry_ms = Some(retry_ms);
                }
            }
            // Unknown fields are ignored, but remembered for `stray_text`.
            b"error" => self.keep_stray(value),
            _ => self.keep_stray(line),
        }
        Ok(())
    }

    fn keep_stray(&mut self, text: &[u8]) {
        let room = MAX_STRAY_BYTES.saturating_sub(self.stray.len());
        if room == 0 {
            return;
        }
        if !self.stray.is_empty() {
            self.stray.push('\n');
        }
        let text = String::from_utf8_lossy(&text[..text.len().min(room)]);
        self.stray.push_str(&text);
    }

    /// Builds the event from the buffers and resets them (the last event id persists).
    fn take_event(&mut self) -> SseEvent {
        let mut data = std::mem::take(&mut self.data);
        data.pop(); // the "\n" after the last data line
        self.has_data = false;
        let data = match String::from_utf8(data) {
            Ok(text) => text,
            Err(err) => String::from_utf8_lossy(err.as_bytes()).into_owned(),
        };
        SseEvent {
            event: self.event_type.take().unwrap_or_else(|| "message".to_string()),
            data,
            id: self.last_id.clone(),
            retry_ms: self.retry_ms.take(),
        }
    }
}

/// The position of the first CR or LF. Eight bytes at a time (SWAR): SSE lines are long JSON,
/// so this is where the parser spends its time.
fn find_line_end(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    const LFS: u64 = ONES * b'\n' as u64;
    const CRS: u64 = ONES * b'\r' as u64;
    let mut chunks = bytes.chunks_exact(8);
    let mut offset = 0;
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let word = u64::from_le_bytes(word);
        let lf = word ^ LFS;
        let cr = word ^ CRS;
        // The classic "has a zero byte" test; exact enough to decide whether to look closer.
        let found = (lf.wrapping_sub(ONES) & !lf | cr.wrapping_sub(ONES) & !cr) & HIGHS;
        if found != 0 {
            return chunk.iter().position(|&byte| byte == b'\n' || byte == b'\r').map(|index| offset + index);
        }
        offset += 8;
    }
    chunks.remainder().iter().position(|&byte| byte == b'\n' || byte == b'\r').map(|index| offset + index)
}

/// Events from a blocking reader (an HTTP body). Reads in 16 KiB blocks.
pub(crate) struct SseReader<R: Read> {
    reader: R,
    parser: SseParser,
    buffer: Vec<u8>,
    pending: std::collections::VecDeque<SseEvent>,
    scratch: Vec<SseEvent>,
    at_eof: bool,
}

impl<R: Read> SseReader<R> {
    /// Wraps `reader` positioned at the start of the event stream.
    pub(crate) fn new(reader: R) -> SseReader<R> {
        SseReader::with_parser(reader, SseParser::new())
    }

    /// Wraps `reader` with a configured parser (e.g. a smaller limit).
    fn with_parser(reader: R, parser: SseParser) -> SseReader<R> {
        SseReader {
            reader,
            parser,
            buffer: vec![0; 16 * 1024],
            pending: std::collections::VecDeque::new(),
            scratch: Vec::new(),
            at_eof: false,
        }
    }

    /// The next event, blocking on the reader as needed; `Ok(None)` at end of stream, after
    /// which `finish` hands out the unterminated remainder.
    pub(crate) fn next_event(&mut self) -> Result<Option<SseEvent>, SseError> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                return Ok(Some(event));
            }
            if self.at_eof {
                return Ok(None);
            }
            let mut events = std::mem::take(&mut self.scratch);
            let result = self.read_some(&mut events);
            self.pending.extend(events.drain(..));
            self.scratch = events;
            result?;
        }
    }

    /// Does exactly one successful read (retrying `Interrupted`), pushing the events it
    /// completed onto `out`. Returns the number of bytes read: 0 means end of stream, and any
    /// other value is "a byte arrived" even when no event did (keep-alive comments).
    pub(crate) fn read_some(&mut self, out: &mut Vec<SseEvent>) -> Result<usize, SseError> {
        if self.at_eof {
            return Ok(0);
        }
        let read = loop {
            match self.reader.read(&mut self.buffer) {
                Ok(read) => break read,
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(err) => return Err(SseError::Io(err)),
            }
        };
        if read == 0 {
            self.at_eof = true;
            return Ok(0);
        }
        self.parser.feed(&self.buffer[..read], out)?;
        Ok(read)
    }

    /// The half-built event left at end of stream (see `SseParser::finish`).
    pub(crate) fn finish(&mut self) -> Option<SseEvent> {
        self.parser.finish()
    }

    /// See `SseParser::stray_text`.
    pub(crate) fn stray_text(&self) -> Option<&str> {
        self.parser.stray_text()
    }
}

#[cfg(test)]
mod tests;
