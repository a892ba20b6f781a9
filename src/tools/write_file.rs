//! `write_file` [Write]: writes a whole file, creating parent directories.
//!
//! Invariant: the target is replaced atomically (`fsx::write_atomic`): a reader, a crash or a
//! concurrent `bash` never sees a half-written file, and an existing file keeps its permissions.
//! Content is written byte for byte as given (no line-ending or trailing-newline changes).

use super::{Tool, ToolContext, ToolKind, ToolOutput, WRITE_FILE, display_path, parse_input};
use crate::fsx::{resolve_path, write_atomic_beneath};
use serde::Deserialize;

/// The `write_file` tool.
pub(crate) struct WriteFileTool;

#[derive(Deserialize)]
struct Input {
    path: String,
    content: String,
}

impl Tool for WriteFileTool {
    fn name(&self) -> &str {
        WRITE_FILE.name
    }

    fn rule_name(&self) -> &str {
        WRITE_FILE.rule
    }

    fn kind(&self) -> ToolKind {
        WRITE_FILE.kind
    }

    fn description(&self) -> &str {
        "Writes content to a file, replacing it entirely if it exists and creating it (and its \
         parent directories) if not. Paths are relative to the project root or absolute. Prefer \
         edit_file for changing part of an existing file."
    }

    fn input_schema(&self) -> serde_json::Value {
        serde_json::json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File to write, relative to the project root or absolute"},
                "content": {"type": "string", "description": "The complete new content of the file"}
            },
            "required": ["path", "content"]
        })
    }

    fn lean_description(&self) -> String {
        "Write a whole file, creating it and its folders; use edit_file to change part of one.".to_string()
    }

    fn lean_input_schema(&self) -> serde_json::Value {
        super::lean::lean_schema(self.input_schema(), &[])
    }

    fn read_only(&self) -> bool {
        false
    }

    fn execute(&self, input_json: &str, ctx: &ToolContext) -> ToolOutput {
        let input: Input = match parse_input(WRITE_FILE.name, input_json) {
            Ok(input) => input,
            Err(output) => return output,
        };
        let path = resolve_path(&ctx.root, &input.path);
        let shown = display_path(&ctx.root, &path);
        let existed = match std::fs::metadata(&path) {
            Ok(meta) if meta.is_dir() => return ToolOutput::error(format!("{shown} is a directory; cannot write it")),
            Ok(_) => true,
            Err(_) => false,
        };
        if let Some(parent) = path.parent()
            && let Err(err) = std::fs::create_dir_all(parent)
        {
            return ToolOutput::error(format!("cannot create directory {}: {err}", parent.display()));
        }
        if let Err(err) = write_atomic_beneath(ctx.write_root(&path), &path, input.content.as_bytes()) {
            return ToolOutput::error(format!("cannot write {shown}: {err}"));
        }
        let verb = if existed { "overwrote" } else { "created" };
        let bytes = input.content.len();
        let lines = count_lines(&input.content);
        ToolOutput::ok(format!("{verb} {shown} ({bytes} bytes, {lines} lines)"))
    }
}

/// Lines as an editor counts them: a final line without `\n` still counts.
pub(crate) fn count_lines(text: &str) -> usize {
    let newlines = text.bytes().filter(|&byte| byte == b'\n').count();
    if text.is_empty() || text.ends_with('\n') { newlines } else { newlines + 1 }
}

#[cfg(test)]
#[path = "write_file_tests.rs"]
mod tests;
