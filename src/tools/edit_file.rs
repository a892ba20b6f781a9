//! `edit_file` [Edit]: replaces an exact string in a file.
//!
//! Invariant: an edit changes the file only when `old_string` matches exactly and (unless
//! `replace_all`) exactly once; every other case is an error that tells the model how to fix its
//! call (zero matches: a whitespace or first-line hint; several: how many and on which lines). The
//! write is atomic (`fsx::write_atomic`).
//!
//! Decisions:
//! - CRLF files: the model reads files through `read_file`, which hides `\r`, so its strings use
//!   `\n`. When most line endings of the file are `\r\n`, both strings are converted to `\r\n`
//!   before matching, and the file keeps CRLF endings. If the converted string does not match (a
//!   mixed file), the strings are tried as given.
//! - Empty `old_string`: creates the file with `new_string` when it does not exist (parent
//!   directories too) or fills it when it exists and is empty; on a non-empty file it is an error.
//! - Files that are not valid UTF-8 are refused: replacing text in lossily decoded bytes would
//!   corrupt the rest of the file.

use super::{EDIT_FILE, Tool, ToolContext, ToolKind, ToolOutput, display_path, lenient, parse_input};
use crate::fsx::{resolve_path, write_atomic_beneath};
use serde::Deserialize;
use std::path::Path;

/// The `edit_file` tool.
pub(crate) struct EditFileTool;

#[derive(Deserialize)]
struct Input {
    path: String,
    old_string: String,
    new_string: String,
    #[serde(default, deserialize_with = "lenient::opt_bool")]
    replace_all: Option<bool>,
}

impl Tool for EditFileTool {
    fn name(&self) -> &str {
        EDIT_FILE.name
    }

    fn rule_name(&self) -> &str {
        EDIT_FILE.rule
    }

    fn kind(&self) -> ToolKind {
        EDIT_FILE.kind
    }

    fn description(&self) -> &str {
        "Replaces old_string with new_string in a file. old_string must match the file exactly \
         (including indentation) and be unique in it; include surrounding lines to make it unique, \
         or set replace_all to replace every occurrence. Read the file first. An empty old_string \
         creates a new file with new_string as its content."
    }

    fn input_schema(&self) -> serde_json::Value {
        serde_json::json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File to edit, relative to the project root or absolute"},
                "old_string": {"type": "string", "description": "The exact text to replace"},
                "new_string": {"type": "string", "description": "The text to replace it with (must differ from old_string)"},
                "replace_all": {"type": "boolean", "description": "Replace every occurrence instead of requiring exactly one (default false)"}
            },
            "required": ["path", "old_string", "new_string"]
        })
    }

    fn lean_description(&self) -> String {
        "Replace old_string (exact and unique, or replace_all) with new_string in a file read before.".to_string()
    }

    fn lean_input_schema(&self) -> serde_json::Value {
        super::lean::lean_schema(self.input_schema(), &[])
    }

    fn read_only(&self) -> bool {
        false
    }

    fn execute(&self, input_json: &str, ctx: &ToolContext) -> ToolOutput {
        let input: Input = match parse_input(EDIT_FILE.name, input_json) {
            Ok(input) => input,
            Err(output) => return output,
        };
        let path = resolve_path(&ctx.root, &input.path);
        let shown = display_path(&ctx.root, &path);
        match edit(ctx.write_root(&path), &path, &shown, &input) {
            Ok(message) => ToolOutput::ok(message),
            Err(message) => ToolOutput::error(message),
        }
    }
}

fn edit(root: &Path, path: &Path, shown: &str, input: &Input) -> Result<String, String> {
    if input.old_string == input.new_string {
        return Err("old_string and new_string are identical; there is nothing to change".to_string());
    }
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound && input.old_string.is_empty() => {
            return create(root, path, shown, &input.new_string);
        }
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Err(format!("file not found: {shown}")),
        Err(_) if path.is_dir() => return Err(format!("{shown} is a directory, not a file")),
        Err(err) => return Err(format!("cannot read {shown}: {err}")),
    };
    let Ok(content) = String::from_utf8(bytes) else {
        return Err(format!("{shown} is not valid UTF-8 text; edit_file cannot change it safely"));
    };
    if input.old_string.is_empty() {
        if !content.is_empty() {
            return Err(format!(
                "old_string is empty but {shown} already has content; give the exact text to replace, \
                 or use write_file to replace the whole file"
            ));
        }
        write(root, path, shown, &input.new_string)?;
        return Ok(format!("wrote {shown} (it was empty)"));
    }
    let (old, new) = choose_strings(&content, &input.old_string, &input.new_string);
    let count = content.matches(old.as_str()).count();
    let replace_all = input.replace_all.unwrap_or(false);
    if count == 0 {
        return Err(format!("old_string was not found in {shown}. {}", zero_match_hint(&content, &old)));
    }
    if count > 1 && !replace_all {
        let lines = match_lines(&content, &old);
        return Err(format!(
            "old_string matches {count} times in {shown} (lines {lines}); add surrounding lines to make it \
             unique, or set replace_all to true to replace every occurrence"
        ));
    }
    let first_line = line_of(&content, content.find(old.as_str()).unwrap_or(0));
    let updated =
        if replace_all { content.replace(old.as_str(), &new) } else { content.replacen(old.as_str(), &new, 1) };
    write(root, path, shown, &updated)?;
    let noun = if count == 1 { "replacement" } else { "replacements" };
    Ok(format!("edited {shown}: {count} {noun} (first at line {first_line})"))
}

fn create(root: &Path, path: &Path, shown: &str, content: &str) -> Result<String, String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|err| format!("cannot create directory {}: {err}", parent.display()))?;
    }
    write(root, path, shown, content)?;
    Ok(format!("created {shown} ({} lines)", super::write_file::count_lines(content)))
}

fn write(root: &Path, path: &Path, shown: &str, content: &str) -> Result<(), String> {
    write_atomic_beneath(root, path, content.as_bytes()).map_err(|err| format!("cannot write {shown}: {err}"))
}

/// The strings to match and insert: converted to CRLF for a CRLF file when that matches.
fn choose_strings(content: &str, old: &str, new: &str) -> (String, String) {
    if uses_crlf(content) {
        let crlf_old = to_crlf(old);
        if content.contains(crlf_old.as_str()) {
            return (crlf_old, to_crlf(new));
        }
    }
    (old.to_string(), new.to_string())
}

/// True when most line endings are `\r\n`.
fn uses_crlf(content: &str) -> bool {
    let crlf = content.matches("\r\n").count();
    let all = content.bytes().filter(|&byte| byte == b'\n').count();
    crlf > 0 && crlf * 2 >= all
}

fn to_crlf(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\n', "\r\n")
}

/// 1-based line number of a byte offset.
fn line_of(content: &str, offset: usize) -> usize {
    content.as_bytes()[..offset].iter().filter(|&&byte| byte == b'\n').count() + 1
}

/// "3, 17, 40" (at most ten, then "...").
fn match_lines(content: &str, needle: &str) -> String {
    let lines: Vec<String> =
        content.match_indices(needle).take(10).map(|(offset, _)| line_of(content, offset).to_string()).collect();
    let more = if content.matches(needle).count() > 10 { ", ..." } else { "" };
    format!("{}{more}", lines.join(", "))
}

/// Why an edit found nothing, as precisely as cheap checks allow.
fn zero_match_hint(content: &str, old: &str) -> String {
    let squash = |line: &str| line.split_whitespace().collect::<Vec<_>>().join(" ");
    let wanted: Vec<String> = old.lines().map(squash).collect();
    let file_lines: Vec<String> = content.lines().map(squash).collect();
    if !wanted.is_empty() && wanted.len() <= file_lines.len() {
        let found = (0..=file_lines.len() - wanted.len()).find(|&start| {
            wanted.iter().enumerate().all(|(index, line)| {
                let file_line = &file_lines[start + index];
                // The first and last lines of old_string may be partial lines of the file.
                if index == 0 || index == wanted.len() - 1 {
                    file_line.contains(line.as_str())
                } else {
                    file_line == line
                }
            })
        });
        if let Some(start) = found {
            return format!(
                "A match exists at line {} when whitespace is ignored: check indentation (tabs versus \
                 spaces) and trailing spaces, and copy the text exactly as read_file shows it (without \
                 the line-number prefix).",
                start + 1
            );
        }
    }
    let first = old.lines().map(str::trim).find(|line| !line.is_empty()).unwrap_or("");
    if !first.is_empty()
        && let Some(index) = content.lines().position(|line| line.contains(first))
    {
        return format!(
            "Its first line appears at line {}, so a later line differs; read the file again and copy \
             the text exactly.",
            index + 1
        );
    }
    "The file may have changed since you read it; read it again and copy the text exactly.".to_string()
}

#[cfg(test)]
#[path = "edit_file_tests.rs"]
mod tests;
