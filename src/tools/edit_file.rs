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
        match edit(&ctx.root, &path, &shown, &input) {
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
mod tests {
    use super::*;
    use crate::tools::test_support::{TempProject, check_rejects_bad_arguments, run};
    use serde_json::json;

    fn edit_json(project: &TempProject, input: serde_json::Value) -> ToolOutput {
        run(&EditFileTool, &project.ctx(), input)
    }

    #[test]
    fn edit_file_replaces_a_unique_match() {
        let project = TempProject::new("edit-one");
        project.write("a.rs", "fn main() {\n    println!(\"hi\");\n}\n");
        let output = edit_json(&project, json!({"path": "a.rs", "old_string": "\"hi\"", "new_string": "\"bye\""}));
        assert_eq!(output, ToolOutput::ok("edited a.rs: 1 replacement (first at line 2)"));
        assert_eq!(project.read("a.rs"), "fn main() {\n    println!(\"bye\");\n}\n");
    }

    #[test]
    fn edit_file_rejects_ambiguous_old_string_and_names_the_lines() {
        let project = TempProject::new("edit-many");
        project.write("a.txt", "x = 1\ny = 2\nx = 1\n");
        let output = edit_json(&project, json!({"path": "a.txt", "old_string": "x = 1", "new_string": "x = 3"}));
        assert!(output.is_error);
        assert!(output.content.contains("matches 2 times"), "{}", output.content);
        assert!(output.content.contains("lines 1, 3"), "{}", output.content);
        assert!(output.content.contains("replace_all"));
        assert_eq!(project.read("a.txt"), "x = 1\ny = 2\nx = 1\n");
    }

    #[test]
    fn edit_file_replace_all_replaces_every_match() {
        let project = TempProject::new("edit-all");
        project.write("a.txt", "x = 1\ny = 2\nx = 1\n");
        let output = edit_json(
            &project,
            json!({"path": "a.txt", "old_string": "x = 1", "new_string": "x = 3", "replace_all": true}),
        );
        assert_eq!(output, ToolOutput::ok("edited a.txt: 2 replacements (first at line 1)"));
        assert_eq!(project.read("a.txt"), "x = 3\ny = 2\nx = 3\n");
    }

    #[test]
    fn edit_file_zero_matches_hints_at_whitespace() {
        let project = TempProject::new("edit-ws");
        project.write("a.py", "def f():\n\treturn 1\n");
        let output =
            edit_json(&project, json!({"path": "a.py", "old_string": "def f():\n    return 1", "new_string": "x"}));
        assert!(output.is_error);
        assert!(output.content.contains("not found"), "{}", output.content);
        assert!(output.content.contains("line 1 when whitespace is ignored"), "{}", output.content);
    }

    #[test]
    fn edit_file_zero_matches_hints_at_the_first_line() {
        let project = TempProject::new("edit-first");
        project.write("a.txt", "one\ntwo\nthree\n");
        let output = edit_json(&project, json!({"path": "a.txt", "old_string": "two\nfour", "new_string": "x"}));
        assert!(output.content.contains("first line appears at line 2"), "{}", output.content);
        let output = edit_json(&project, json!({"path": "a.txt", "old_string": "zzz", "new_string": "x"}));
        assert!(output.content.contains("read it again"), "{}", output.content);
    }

    #[test]
    fn edit_file_rejects_identical_strings_and_empty_old_string_on_content() {
        let project = TempProject::new("edit-same");
        project.write("a.txt", "abc");
        let output = edit_json(&project, json!({"path": "a.txt", "old_string": "b", "new_string": "b"}));
        assert!(output.is_error && output.content.contains("identical"), "{}", output.content);
        let output = edit_json(&project, json!({"path": "a.txt", "old_string": "", "new_string": "b"}));
        assert!(output.is_error && output.content.contains("already has content"), "{}", output.content);
        assert_eq!(project.read("a.txt"), "abc");
    }

    #[test]
    fn edit_file_empty_old_string_creates_a_missing_file_or_fills_an_empty_one() {
        let project = TempProject::new("edit-create");
        let output = edit_json(&project, json!({"path": "new/dir/f.txt", "old_string": "", "new_string": "hello\n"}));
        assert_eq!(output, ToolOutput::ok("created new/dir/f.txt (1 lines)"));
        assert_eq!(project.read("new/dir/f.txt"), "hello\n");
        project.write("empty.txt", "");
        let output = edit_json(&project, json!({"path": "empty.txt", "old_string": "", "new_string": "x"}));
        assert!(!output.is_error, "{}", output.content);
        assert_eq!(project.read("empty.txt"), "x");
    }

    #[test]
    fn edit_file_missing_file_directory_and_binary_are_errors() {
        let project = TempProject::new("edit-missing");
        project.write("d/x", "");
        project.write("bin", b"\xff\xfe\x00abc");
        for (path, expected) in [("nope.txt", "file not found"), ("d", "directory"), ("bin", "not valid UTF-8")] {
            let output = edit_json(&project, json!({"path": path, "old_string": "a", "new_string": "b"}));
            assert!(output.is_error && output.content.contains(expected), "{path}: {}", output.content);
        }
    }

    #[test]
    fn edit_file_keeps_crlf_line_endings() {
        let project = TempProject::new("edit-crlf");
        project.write("w.txt", "one\r\ntwo\r\nthree\r\n");
        let output =
            edit_json(&project, json!({"path": "w.txt", "old_string": "one\ntwo", "new_string": "uno\ndos\ndos bis"}));
        assert!(!output.is_error, "{}", output.content);
        assert_eq!(project.read("w.txt"), "uno\r\ndos\r\ndos bis\r\nthree\r\n");
    }

    #[test]
    fn edit_file_rejects_bad_arguments() {
        check_rejects_bad_arguments(&EditFileTool, "path");
        let project = TempProject::new("edit-args");
        let output = edit_json(&project, json!({"path": "a", "old_string": "x"}));
        assert!(output.content.contains("missing field `new_string`"), "{}", output.content);
    }
}
