//! `read_file` [Read]: shows a window of a text file with line numbers (`%6d\t%s`).
//!
//! Invariant: memory stays bounded whatever the file: it is streamed line by line through one
//! buffer, lines are cut at `MAX_LINE_CHARS` while reading (a 1 GB single-line file is never held
//! whole), and at most `limit` lines or about `MAX_OUTPUT_BYTES` of output are kept. Binary files (a NUL byte in the first 8 KB, or a
//! first 8 KB that is mostly not UTF-8) and directories are refused; stray invalid bytes in a text
//! file are shown as U+FFFD. A successful read is recorded in `ToolContext::reads`, with the fingerprint of the
//! whole file (any window of it counts as a read: the agent may now change it).
//!
//! An image file (PNG, JPEG, GIF, WebP by its bytes) is not text: it goes to the model as an
//! image after a one-line description when the model accepts images, and otherwise the
//! description says why it cannot be shown (not an error: the model learns what the file is).
//!
//! `offset` is the 1-based number of the first line shown (0 counts as 1); `limit` is how many
//! lines to show (default `DEFAULT_LIMIT`). Line endings (`\n`, `\r\n`) are not shown.

use super::{READ_FILE, Tool, ToolContext, ToolKind, ToolOutput, lenient, parse_input};
use crate::fsx::resolve_path;
use serde::Deserialize;
use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::Path;

/// Lines shown when the model gives no limit.
const DEFAULT_LIMIT: u64 = 2000;
/// Characters kept of one line; the rest is replaced by a marker.
pub(super) const MAX_LINE_CHARS: usize = 2000;
/// Output size at which a read stops early (at a line boundary), whatever the limit; the note then
/// gives the offset to continue from. Keeps a huge `limit` on a huge file from building a huge
/// string.
pub(super) const MAX_OUTPUT_BYTES: usize = 256 * 1024;
/// When more than this many bytes remain after the window, the remaining lines are not counted
/// (that would read the whole file); the note gives the remaining byte count instead.
const COUNT_REST_MAX_BYTES: u64 = 64 * 1024 * 1024;

/// The `read_file` tool.
pub(crate) struct ReadFileTool;

#[derive(Deserialize)]
struct Input {
    path: String,
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    offset: Option<u64>,
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    limit: Option<u64>,
}

impl Tool for ReadFileTool {
    fn name(&self) -> &str {
        READ_FILE.name
    }

    fn rule_name(&self) -> &str {
        READ_FILE.rule
    }

    fn kind(&self) -> ToolKind {
        READ_FILE.kind
    }

    fn description(&self) -> &str {
        "Reads a text file and returns its lines numbered from 1, as `     N\\tline`. Paths are \
         relative to the project root or absolute. By default up to 2000 lines from the start; use \
         offset (1-based first line) and limit to read other parts of long files. Lines longer than \
         2000 characters are cut. Binary files and directories are refused (use glob to list \
         directories). Images (PNG, JPEG, GIF, WebP) are shown as images when the model accepts them."
    }

    fn input_schema(&self) -> serde_json::Value {
        serde_json::json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File to read, relative to the project root or absolute"},
                "offset": {"type": "integer", "minimum": 1, "description": "1-based line number to start from (default 1)"},
                "limit": {"type": "integer", "minimum": 1, "description": "Number of lines to read (default 2000)"}
            },
            "required": ["path"]
        })
    }

    fn lean_description(&self) -> String {
        "Read a text file; returns numbered lines, 2000 at most (offset and limit read further).".to_string()
    }

    fn lean_input_schema(&self) -> serde_json::Value {
        super::lean::lean_schema(self.input_schema(), &[("offset", "first line, 1-based"), ("limit", "max lines")])
    }

    fn read_only(&self) -> bool {
        true
    }

    fn execute(&self, input_json: &str, ctx: &ToolContext) -> ToolOutput {
        let input: Input = match parse_input(READ_FILE.name, input_json) {
            Ok(input) => input,
            Err(output) => return output,
        };
        let path = resolve_path(&ctx.root, &input.path);
        let window =
            Window { first_line: input.offset.unwrap_or(1).max(1), limit: input.limit.unwrap_or(DEFAULT_LIMIT) };
        if window.limit == 0 {
            return ToolOutput::error("limit must be at least 1");
        }
        if super::read_image::is_image_file(&path) {
            return read_image(&path, &input.path, ctx);
        }
        match read_window(&path, window) {
            Ok(text) => {
                super::reads::record_read(&ctx.reads, &path);
                ToolOutput::ok(text)
            }
            Err(message) => ToolOutput::error(message),
        }
    }
}

/// An image file: its description, and the image itself when the model accepts images.
fn read_image(path: &Path, shown: &str, ctx: &ToolContext) -> ToolOutput {
    match super::read_image::load_image(path, shown) {
        Ok((image, facts)) => {
            super::reads::record_read(&ctx.reads, path);
            let description = format!("image: {shown}, {}", facts.describe());
            match &ctx.image_refusal {
                None => ToolOutput::with_images(description, vec![image]),
                Some(refusal) => ToolOutput::ok(format!("{description}; not shown: {refusal}")),
            }
        }
        Err(err) => ToolOutput::error(err.message(shown)),
    }
}

#[derive(Clone, Copy)]
struct Window {
    first_line: u64,
    limit: u64,
}

/// Opens and checks the file, then formats the window; errors are messages for the model.
fn read_window(path: &Path, window: Window) -> Result<String, String> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|err| match err.kind() {
        io::ErrorKind::NotFound => format!("file not found: {shown}"),
        _ => format!("cannot read {shown}: {err}"),
    })?;
    if meta.is_dir() {
        return Err(format!("{shown} is a directory, not a file; use glob to list its contents"));
    }
    if !meta.is_file() {
        // A FIFO would hold the call until something writes to it; a device never ends.
        return Err(format!("{shown} is not a regular file (a FIFO, socket or device); read_file reads files only"));
    }
    let file = File::open(path).map_err(|err| format!("cannot read {shown}: {err}"))?;
    let mut reader = BufReader::with_capacity(64 * 1024, file);
    let sample = reader.fill_buf().map_err(|err| format!("cannot read {shown}: {err}"))?;
    let sample = &sample[..sample.len().min(super::BINARY_SNIFF_BYTES)];
    if looks_binary(sample) {
        return Err(format!("{shown} looks like a binary file ({} bytes); read_file shows text only", meta.len()));
    }
    render_window(&mut reader, meta.len(), window).map_err(|err| format!("cannot read {shown}: {err}"))
}

/// True for a NUL byte, or when more than 30 % of the sample's bytes are not valid UTF-8 (a
/// Latin-1 text has a few such bytes per line; images and archives have them everywhere).
fn looks_binary(sample: &[u8]) -> bool {
    if super::has_nul(sample) {
        return true;
    }
    let mut invalid = 0usize;
    let mut rest = sample;
    while let Err(err) = std::str::from_utf8(rest) {
        let Some(bad_len) = err.error_len() else {
            break; // a character cut by the end of the sample, not an invalid one
        };
        invalid += bad_len;
        rest = &rest[err.valid_up_to() + bad_len..];
    }
    invalid * 10 > sample.len() * 3
}

/// Streams `reader` and formats the lines of `window`, followed by a note when more remain.
fn render_window(reader: &mut impl BufRead, file_len: u64, window: Window) -> io::Result<String> {
    if file_len == 0 {
        return Ok("(file is empty)".to_string());
    }
    let mut line_number: u64 = 1;
    while line_number < window.first_line {
        if reader.skip_until(b'\n')? == 0 {
            let total_lines = line_number - 1;
            return Ok(format!(
                "(offset {} is past the end of the file, which has {total_lines} lines)",
                window.first_line
            ));
        }
        line_number += 1;
    }
    let mut out = String::new();
    let mut line = Vec::with_capacity(256);
    let mut shown: u64 = 0;
    while shown < window.limit && out.len() < MAX_OUTPUT_BYTES {
        let Some(cut) = read_line_capped(reader, &mut line, MAX_LINE_CHARS * 4)? else {
            break;
        };
        push_numbered_line(&mut out, line_number, &line, cut);
        line_number += 1;
        shown += 1;
    }
    if shown == 0 {
        // The offset pointed just past the last line (the file ends with a newline).
        return Ok(format!(
            "(offset {} is past the end of the file, which has {} lines)",
            window.first_line,
            line_number - 1
        ));
    }
    if !reader.fill_buf()?.is_empty() {
        out.push_str(&more_lines_note(reader, file_len, line_number)?);
    }
    Ok(out)
}

fn push_numbered_line(out: &mut String, line_number: u64, line: &[u8], cut_while_reading: bool) {
    let mut bytes = line;
    if let Some(stripped) = bytes.strip_suffix(b"\n") {
        bytes = stripped;
    }
    if let Some(stripped) = bytes.strip_suffix(b"\r") {
        bytes = stripped;
    }
    let text = String::from_utf8_lossy(bytes);
    let mut chars = text.char_indices();
    let cut_at = chars.nth(MAX_LINE_CHARS).map(|(index, _)| index);
    out.push_str(&format!("{line_number:>6}\t"));
    match cut_at {
        Some(index) => {
            out.push_str(&text[..index]);
            out.push_str(" [... line cut at 2000 characters]");
        }
        None => {
            out.push_str(&text);
            if cut_while_reading {
                out.push_str(" [... line cut at 2000 characters]");
            }
        }
    }
    out.push('\n');
}

/// The closing note: how many lines remain and which offset continues the read.
fn more_lines_note(reader: &mut impl BufRead, file_len: u64, next_line: u64) -> io::Result<String> {
    // Counting means reading on; a budget keeps a huge file from being scanned to its end.
    let mut remaining_lines: u64 = 0;
    let mut scanned: u64 = 0;
    let mut last_byte = b'\n';
    loop {
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            break;
        }
        remaining_lines += chunk.iter().filter(|&&byte| byte == b'\n').count() as u64;
        last_byte = chunk[chunk.len() - 1];
        let len = chunk.len();
        reader.consume(len);
        scanned += len as u64;
        if scanned > COUNT_REST_MAX_BYTES {
            return Ok(format!(
                "... more lines remain (file is {file_len} bytes); use offset={next_line} to read further\n"
            ));
        }
    }
    if last_byte != b'\n' {
        remaining_lines += 1; // a last line without a trailing newline
    }
    Ok(format!("... {remaining_lines} more lines; use offset={next_line} to read further\n"))
}

/// Reads one line (with its `\n`) into `line`, keeping at most `max_bytes` of it and skipping the
/// rest, so a gigantic line costs no memory. Returns whether the line was cut, or `None` at end
/// of file.
fn read_line_capped(reader: &mut impl BufRead, line: &mut Vec<u8>, max_bytes: usize) -> io::Result<Option<bool>> {
    line.clear();
    let mut consumed: u64 = 0;
    let mut cut = false;
    loop {
        let chunk = match reader.fill_buf() {
            Ok(chunk) => chunk,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        if chunk.is_empty() {
            return Ok(if consumed == 0 { None } else { Some(cut) });
        }
        let (take, done) = match chunk.iter().position(|&byte| byte == b'\n') {
            Some(index) => (index + 1, true),
            None => (chunk.len(), false),
        };
        let room = max_bytes.saturating_sub(line.len());
        if room < take {
            cut = true;
        }
        line.extend_from_slice(&chunk[..take.min(room)]);
        reader.consume(take);
        consumed += take as u64;
        if done {
            return Ok(Some(cut));
        }
    }
}

#[cfg(test)]
#[path = "read_file_tests.rs"]
mod tests;
