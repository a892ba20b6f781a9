//! Editing the MCP servers of one config file for `mewcode mcp add` and `mcp remove`: the file's
//! YAML text in, the new text out, everything else in the file kept as it was written.
//!
//! Invariant: the edit is made on the text (so comments, order and layout survive) and then
//! checked by parsing the result back: it must be exactly the old document with the one entry
//! added, replaced or removed, under `mcp_servers` (or `mcpServers`, when only that key is
//! there), in the shape `servers.rs` loads. When the text cannot be edited that way (a flow-style
//! `mcp_servers: {...}`, an entry it cannot delimit), the document is written anew from its
//! parsed form and the edit says that its comments were not kept. Values are written as given:
//! a `${VAR}` in them is expanded when the file is loaded. Pure apart from `load_text` and
//! `save_text`, which read and atomically write the file. (`host_edit.rs` edits
//! `sandbox.allow_hosts` with the same line helpers.)

use super::{McpTransport, PROJECT_CONFIG, USER_CONFIG};
use crate::warning::Warning;
use serde_yaml::{Mapping, Value};
use std::path::{Path, PathBuf};

/// The keys servers are listed under, the one written to first.
const SERVER_KEYS: [&str; 2] = ["mcp_servers", "mcpServers"];

/// The longest server name: tools are named `mcp__<server>__<tool>` within 64 characters.
const MAX_NAME_CHARS: usize = 40;

/// The new text of a file, and what to tell the person about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Edit {
    pub text: String,
    /// The entry as written (`name:` and its indented lines); empty for a removal.
    pub entry: String,
    /// The file was written anew from its parsed form, and it had comments.
    pub comments_lost: bool,
}

/// The user's own config file, `$MEWCODE_HOME/config.yaml`.
pub(crate) fn user_config_path(home: &Path) -> PathBuf {
    home.join(USER_CONFIG)
}

/// The project's config file, `<root>/.mewcode.yaml`.
pub(crate) fn project_config_path(root: &Path) -> PathBuf {
    root.join(PROJECT_CONFIG)
}

/// Why a server name cannot be used, if it cannot (the loader's rule, and room for tool names).
pub(crate) fn check_server_name(name: &str) -> Result<(), String> {
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        return Err(format!("invalid server name {name:?}: use letters, digits, '_' and '-'"));
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(format!(
            "invalid server name {name:?}: longer than {MAX_NAME_CHARS} characters (its tools are named \
             mcp__{name}__TOOL, which must fit in 64)"
        ));
    }
    Ok(())
}

/// Whether the file's text declares a server `name`.
pub(crate) fn has_server(text: &str, name: &str) -> Result<bool, String> {
    let doc = parse(text)?;
    Ok(SERVER_KEYS.iter().any(|key| servers(&doc, key).is_some_and(|map| map.contains_key(name))))
}

/// `text` with server `name` reaching `transport` added; an existing entry of that name is an
/// error unless `replace`.
pub(crate) fn plan_add(text: &str, name: &str, transport: &McpTransport, replace: bool) -> Result<Edit, String> {
    check_server_name(name)?;
    let mut doc = parse(text)?;
    let mut text = text.to_string();
    let mut comments_lost = false;
    if has_server(&text, name)? {
        if !replace {
            return Err(format!("an MCP server named {name:?} is already configured here (--force replaces it)"));
        }
        if let Some(removed) = plan_remove(&text, name)? {
            comments_lost = removed.comments_lost;
            text = removed.text;
            doc = parse(&text)?;
        }
    }
    let key = SERVER_KEYS.into_iter().find(|key| servers(&doc, key).is_some()).unwrap_or(SERVER_KEYS[0]);
    let body = entry_value(transport);
    let mut expected = doc.clone();
    let Value::Mapping(top) = &mut expected else { return Err("the file is not a mapping".to_string()) };
    let mut entries = match top.get(key) {
        Some(Value::Mapping(entries)) => entries.clone(),
        Some(Value::Null) | None => Mapping::new(),
        Some(_) => return Err(format!("{key} is not a mapping of servers; fix the file first")),
    };
    entries.insert(Value::String(name.to_string()), body.clone());
    top.insert(Value::String(key.to_string()), Value::Mapping(entries));
    let edited = insert_entry(&text, key, name, &body);
    let entry = render_entry(name, &body, 0);
    Ok(match edited.filter(|edited| parse(edited).ok().as_ref() == Some(&expected)) {
        Some(text) => Edit { text, entry, comments_lost },
        None => Edit { text: rewrite(&expected)?, entry, comments_lost: comments_lost || text.contains('#') },
    })
}

/// `text` without server `name`; None when the file does not declare it.
pub(crate) fn plan_remove(text: &str, name: &str) -> Result<Option<Edit>, String> {
    let doc = parse(text)?;
    let mut expected = doc.clone();
    let mut edited = Some(text.to_string());
    let mut found = false;
    for key in SERVER_KEYS {
        let Some(mut entries) = servers(&doc, key) else { continue };
        if entries.remove(name).is_none() {
            continue;
        }
        found = true;
        let remaining = if entries.is_empty() { Value::Null } else { Value::Mapping(entries) };
        if let Value::Mapping(top) = &mut expected {
            top.insert(Value::String(key.to_string()), remaining);
        }
        edited = edited.and_then(|text| remove_entry(&text, key, name));
    }
    if !found {
        return Ok(None);
    }
    Ok(Some(match edited.filter(|edited| same_servers(edited, &expected)) {
        Some(text) => Edit { text, entry: String::new(), comments_lost: false },
        None => Edit { text: rewrite(&expected)?, entry: String::new(), comments_lost: text.contains('#') },
    }))
}

/// The file's text, or nothing when it does not exist yet.
pub(crate) fn load_text(path: &Path) -> Result<String, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(text),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(err) => Err(format!("cannot read {}: {err}", path.display())),
    }
}

/// Writes `text` to `path` atomically, creating its directory. With `beneath` (a project's root,
/// canonical), the file must resolve inside it: a repository that ships its config file as a
/// link to somewhere else does not get that place written. A file created here is readable by
/// its owner only: a server's headers and environment often carry tokens; the warning says when
/// that mode could not be set.
pub(crate) fn save_text(path: &Path, text: &str, beneath: Option<&Path>) -> Result<Option<Warning>, String> {
    let created = std::fs::symlink_metadata(path).is_err();
    if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|err| format!("cannot create {}: {err}", dir.display()))?;
    }
    let written = match beneath {
        Some(root) => crate::fsx::write_atomic_beneath(root, path, text.as_bytes()),
        None => crate::fsx::write_atomic(path, text.as_bytes()),
    };
    written.map_err(|err| format!("cannot write {}: {err}", path.display()))?;
    if created {
        use std::os::unix::fs::PermissionsExt;
        if let Err(err) = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)) {
            let message = format!("could not make it readable by you only: {err}");
            return Ok(Some(Warning::new(path.display().to_string(), message)));
        }
    }
    Ok(None)
}

/// The document; an empty (or comments-only) file is an empty mapping.
pub(super) fn parse(text: &str) -> Result<Value, String> {
    match serde_yaml::from_str::<Value>(text) {
        Ok(Value::Null) => Ok(Value::Mapping(Mapping::new())),
        Ok(doc @ Value::Mapping(_)) => Ok(doc),
        Ok(_) => Err("the file does not hold a mapping at the top level; fix it first".to_string()),
        Err(err) => Err(format!("the file is not valid YAML ({err}); fix it first")),
    }
}

/// The servers under `key`: a mapping (an empty key counts as an empty one), or None.
fn servers(doc: &Value, key: &str) -> Option<Mapping> {
    match doc.get(key)? {
        Value::Mapping(entries) => Some(entries.clone()),
        Value::Null => Some(Mapping::new()),
        _ => None,
    }
}

/// Whether `text` parses to `expected`, an emptied server key counting as empty either way.
fn same_servers(text: &str, expected: &Value) -> bool {
    let normal = |doc: Value| -> Value {
        let Value::Mapping(mut top) = doc else { return doc };
        for key in SERVER_KEYS {
            if matches!(top.get(key), Some(Value::Mapping(entries)) if entries.is_empty()) {
                top.insert(Value::String(key.to_string()), Value::Null);
            }
        }
        Value::Mapping(top)
    };
    parse(text).is_ok_and(|doc| normal(doc) == normal(expected.clone()))
}

/// The entry's value in the shape the loader reads: `type`, then `command`/`args`/`env` or
/// `url`/`headers`, empty lists and maps left out.
fn entry_value(transport: &McpTransport) -> Value {
    let text = |text: &str| Value::String(text.to_string());
    let pairs = |pairs: &[(String, String)]| -> Value {
        Value::Mapping(pairs.iter().map(|(name, value)| (text(name), text(value))).collect())
    };
    let mut entry = Mapping::new();
    match transport {
        McpTransport::Stdio { command, args, env } => {
            entry.insert(text("type"), text("stdio"));
            entry.insert(text("command"), text(command));
            if !args.is_empty() {
                entry.insert(text("args"), Value::Sequence(args.iter().map(|arg| text(arg)).collect()));
            }
            if !env.is_empty() {
                entry.insert(text("env"), pairs(env));
            }
        }
        McpTransport::Http { url, headers, ca_file } => {
            entry.insert(text("type"), text("http"));
            entry.insert(text("url"), text(url));
            if !headers.is_empty() {
                entry.insert(text("headers"), pairs(headers));
            }
            if let Some(file) = ca_file {
                entry.insert(text("ca_file"), text(&file.display().to_string()));
            }
        }
    }
    Value::Mapping(entry)
}

/// `name:` and its value's lines, the name at `indent` spaces and the value two deeper.
fn render_entry(name: &str, body: &Value, indent: usize) -> String {
    let pad = " ".repeat(indent);
    let mut out = format!("{pad}{}:\n", yaml_key(name));
    let body = serde_yaml::to_string(body).unwrap_or_default();
    for line in body.lines() {
        out.push_str(&format!("{pad}  {line}\n"));
    }
    out
}

/// A server name as a YAML key (names are `[A-Za-z0-9_-]`; some of those read as numbers or
/// booleans unquoted).
fn yaml_key(name: &str) -> String {
    serde_yaml::to_string(&Value::String(name.to_string())).map(|text| text.trim_end().to_string()).unwrap_or_default()
}

/// The text with the entry added at the end of `key`'s block, or a new `key:` block at the end
/// of the file; None when the block is not one this can edit.
fn insert_entry(text: &str, key: &str, name: &str, body: &Value) -> Option<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let Some(key_line) = lines.iter().position(|line| is_key_line(line, key)) else {
        let mut out = text.to_string();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&format!("{key}:\n{}", render_entry(name, body, 2)));
        return Some(out);
    };
    let value = after_colon(lines[key_line]);
    if !matches!(value, "" | "{}" | "~" | "null") {
        return None;
    }
    let end = block_end(&lines, key_line);
    let indent = lines[key_line + 1..end].iter().filter(|line| is_content(line)).map(|line| indent_of(line)).min();
    let indent = indent.unwrap_or(2);
    // After the block's last content line: comments and blank lines after it stay after.
    let last =
        lines[key_line + 1..end].iter().rposition(|line| is_content(line)).map_or(key_line, |at| key_line + 1 + at);
    let mut out = String::new();
    for (index, line) in lines.iter().enumerate() {
        if index == key_line && !value.is_empty() {
            out.push_str(&format!("{key}:\n"));
        } else {
            out.push_str(line);
        }
        if index == last {
            if !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(&render_entry(name, body, indent));
        }
    }
    Some(out)
}

/// The text without entry `name` of `key`'s block; None when it cannot be found or delimited.
fn remove_entry(text: &str, key: &str, name: &str) -> Option<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let key_line = lines.iter().position(|line| is_key_line(line, key))?;
    if !after_colon(lines[key_line]).is_empty() {
        return None;
    }
    let end = block_end(&lines, key_line);
    // The entries' names are the block's least indented lines.
    let indent = lines[key_line + 1..end].iter().filter(|line| is_content(line)).map(|line| indent_of(line)).min()?;
    let start = (key_line + 1..end).find(|&index| {
        let line = lines[index];
        is_content(line)
            && indent_of(line) == indent
            && line.trim_start().split_once(':').is_some_and(|(head, _)| unquote(head.trim()) == name)
    })?;
    // Its lines: everything deeper than its name, up to its last such line.
    let mut stop = start + 1;
    for (index, line) in lines.iter().enumerate().take(end).skip(start + 1) {
        if is_content(line) && indent_of(line) <= indent {
            break;
        }
        if is_content(line) {
            stop = index + 1;
        }
    }
    let mut out = String::new();
    for line in lines[..start].iter().chain(&lines[stop..]) {
        out.push_str(line);
    }
    Some(out)
}

/// `key:` at the start of a line (top level), quoted or not, with or without a value.
pub(super) fn is_key_line(line: &str, key: &str) -> bool {
    if line.starts_with([' ', '\t', '#']) {
        return false;
    }
    line.split_once(':').is_some_and(|(head, _)| unquote(head.trim_end()) == key)
}

/// What follows the key's colon, without a comment.
pub(super) fn after_colon(line: &str) -> &str {
    let rest = line.split_once(':').map_or("", |(_, rest)| rest);
    rest.split(" #").next().unwrap_or("").trim()
}

/// The index after the last line of the block that starts at `key_line`: up to the next line
/// at the top level that is not a comment.
pub(super) fn block_end(lines: &[&str], key_line: usize) -> usize {
    (key_line + 1..lines.len())
        .find(|&index| {
            let line = lines[index];
            is_content(line) && !line.starts_with([' ', '\t'])
        })
        .unwrap_or(lines.len())
}

/// A line with something on it other than a comment.
pub(super) fn is_content(line: &str) -> bool {
    let trimmed = line.trim();
    !trimmed.is_empty() && !trimmed.starts_with('#')
}

pub(super) fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

pub(super) fn unquote(text: &str) -> &str {
    let text = text.trim();
    text.strip_prefix('"')
        .and_then(|rest| rest.strip_suffix('"'))
        .or_else(|| text.strip_prefix('\'').and_then(|rest| rest.strip_suffix('\'')))
        .unwrap_or(text)
}

/// The document written anew from its parsed form.
pub(super) fn rewrite(doc: &Value) -> Result<String, String> {
    serde_yaml::to_string(doc).map_err(|err| format!("cannot write the config: {err}"))
}

#[cfg(test)]
#[path = "edit_tests.rs"]
mod tests;
