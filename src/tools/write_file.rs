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
        if let Err(err) = write_atomic_beneath(&ctx.root, &path, input.content.as_bytes()) {
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
mod tests {
    use super::*;
    use crate::tools::test_support::{TempProject, check_rejects_bad_arguments, run};
    use serde_json::json;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn write_file_creates_nested_directories_and_reports_created() {
        let project = TempProject::new("write-new");
        let output = run(&WriteFileTool, &project.ctx(), json!({"path": "a/b/c/new.txt", "content": "one\ntwo\n"}));
        assert_eq!(output, ToolOutput::ok("created a/b/c/new.txt (8 bytes, 2 lines)"));
        assert_eq!(project.read("a/b/c/new.txt"), "one\ntwo\n");
    }

    #[test]
    fn write_file_overwrites_and_keeps_permissions() {
        let project = TempProject::new("write-over");
        let path = project.write("run.sh", "old");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        let output = run(&WriteFileTool, &project.ctx(), json!({"path": "run.sh", "content": "#!/bin/sh\necho hi"}));
        assert_eq!(output, ToolOutput::ok("overwrote run.sh (17 bytes, 2 lines)"));
        assert_eq!(project.read("run.sh"), "#!/bin/sh\necho hi");
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o755);
    }

    #[test]
    fn write_file_refuses_a_directory() {
        let project = TempProject::new("write-dir");
        project.write("d/x", "");
        let output = run(&WriteFileTool, &project.ctx(), json!({"path": "d", "content": "x"}));
        assert!(output.is_error);
        assert!(output.content.contains("is a directory"));
    }

    #[test]
    fn write_file_reports_an_unwritable_location() {
        let project = TempProject::new("write-blocked");
        project.write("file", "x");
        let output = run(&WriteFileTool, &project.ctx(), json!({"path": "file/child.txt", "content": "x"}));
        assert!(output.is_error, "{}", output.content);
    }

    #[test]
    fn write_file_empty_content_creates_an_empty_file() {
        let project = TempProject::new("write-empty");
        let output = run(&WriteFileTool, &project.ctx(), json!({"path": "e.txt", "content": ""}));
        assert_eq!(output, ToolOutput::ok("created e.txt (0 bytes, 0 lines)"));
    }

    #[test]
    fn write_file_rejects_bad_arguments() {
        check_rejects_bad_arguments(&WriteFileTool, "path");
        let project = TempProject::new("write-nocontent");
        let output = run(&WriteFileTool, &project.ctx(), json!({"path": "x.txt"}));
        assert!(output.content.contains("missing field `content`"), "{}", output.content);
    }

    #[test]
    fn count_lines_counts_a_final_unterminated_line() {
        let cases = [("", 0), ("a", 1), ("a\n", 1), ("a\nb", 2), ("\n\n", 2)];
        for (text, expected) in cases {
            assert_eq!(count_lines(text), expected, "{text:?}");
        }
    }
}
