//! Adding one host to `sandbox.allow_hosts` in a file's YAML text: the "always" answer to the
//! command proxy's question, saved through `permission::store` in the project's
//! `.mewcode/settings.local.yaml`.
//!
//! Invariant: as `edit.rs` does for MCP servers, the edit is made on the text (comments, order
//! and layout survive: a new `sandbox:` block, a new `allow_hosts:` key in an existing block, or
//! one more item at the end of an existing list) and checked by parsing the result back: it
//! must be exactly the old document with the one entry appended. When the text cannot be edited
//! that way (a flow-style `sandbox: {...}` or `allow_hosts: [...]`), the document is written anew
//! from its parsed form and the edit says that its comments were not kept. Adding a host
//! already listed (in any spelling of the same entry) changes nothing. Pure.

use super::edit::{after_colon, block_end, indent_of, is_content, is_key_line, parse, rewrite, unquote};
use super::hosts::HostPattern;
use serde_yaml::{Mapping, Value};

/// The new text of a file, and what the edit did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct HostEdit {
    pub text: String,
    /// False when the host was listed already (then `text` is the old text).
    pub added: bool,
    /// The file was written anew from its parsed form, and it had comments.
    pub comments_lost: bool,
}

/// `text` with `host` appended to `sandbox.allow_hosts` (module doc).
pub(crate) fn plan_add_host(text: &str, host: &HostPattern) -> Result<HostEdit, String> {
    let doc = parse(text)?;
    let mut expected = doc.clone();
    let Value::Mapping(top) = &mut expected else { return Err("the file is not a mapping".to_string()) };
    let mut sandbox = match top.get("sandbox") {
        None | Some(Value::Null) => Mapping::new(),
        Some(Value::Mapping(sandbox)) => sandbox.clone(),
        Some(_) => return Err("sandbox is not a mapping; fix the file first".to_string()),
    };
    let mut hosts = match sandbox.get("allow_hosts") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Sequence(hosts)) => hosts.clone(),
        Some(_) => return Err("sandbox.allow_hosts is not a list; fix the file first".to_string()),
    };
    let listed =
        hosts.iter().any(|item| item.as_str().and_then(|text| HostPattern::parse(text).ok()).as_ref() == Some(host));
    if listed {
        return Ok(HostEdit { text: text.to_string(), added: false, comments_lost: false });
    }
    let item = format!("\"{host}\"");
    hosts.push(Value::String(host.to_string()));
    sandbox.insert(Value::from("allow_hosts"), Value::Sequence(hosts));
    top.insert(Value::from("sandbox"), Value::Mapping(sandbox));
    let edited = insert_host(text, &item).filter(|edited| parse(edited).ok().as_ref() == Some(&expected));
    Ok(match edited {
        Some(text) => HostEdit { text, added: true, comments_lost: false },
        None => HostEdit { text: rewrite(&expected)?, added: true, comments_lost: text.contains('#') },
    })
}

/// The text with `- item` at the end of `sandbox.allow_hosts`, creating the key or the block;
/// None when the block or the list is not one this can edit (flow style).
fn insert_host(text: &str, item: &str) -> Option<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out = String::new();
    let Some(key_line) = lines.iter().position(|line| is_key_line(line, "sandbox")) else {
        out.push_str(text);
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&format!("sandbox:\n  allow_hosts:\n    - {item}\n"));
        return Some(out);
    };
    let sandbox_value = after_colon(lines[key_line]);
    if !matches!(sandbox_value, "" | "{}" | "~" | "null") {
        return None;
    }
    let end = block_end(&lines, key_line);
    let block = key_line + 1..end;
    let child = lines[block.clone()].iter().filter(|line| is_content(line)).map(|line| indent_of(line)).min();
    let child = child.unwrap_or(2);
    let pad = " ".repeat(child);
    let hosts_line = block.clone().find(|&index| {
        let line = lines[index];
        is_content(line)
            && indent_of(line) == child
            && line.trim_start().split_once(':').is_some_and(|(head, _)| unquote(head) == "allow_hosts")
    });
    // Where the new lines go (after this index), and what replaces the line there if anything.
    let (after, replace, insert) = match hosts_line {
        None => {
            let last = block.clone().rev().find(|&index| is_content(lines[index])).unwrap_or(key_line);
            (last, None, format!("{pad}allow_hosts:\n{pad}  - {item}\n"))
        }
        Some(at) => match after_colon(lines[at]) {
            "" => {
                // The list's items: deeper lines, or `- ` lines at the key's own indent.
                let items = (at + 1..end).take_while(|&index| {
                    let line = lines[index];
                    !is_content(line)
                        || indent_of(line) > child
                        || (indent_of(line) == child && line.trim_start().starts_with('-'))
                });
                let last = items.filter(|&index| is_content(lines[index])).last();
                let item_pad = match last {
                    Some(_) => {
                        let first = (at + 1..end).find(|&index| is_content(lines[index]))?;
                        " ".repeat(indent_of(lines[first]))
                    }
                    None => format!("{pad}  "),
                };
                (last.unwrap_or(at), None, format!("{item_pad}- {item}\n"))
            }
            "[]" | "~" | "null" => (at, Some(format!("{pad}allow_hosts:\n")), format!("{pad}  - {item}\n")),
            _ => return None,
        },
    };
    for (index, line) in lines.iter().enumerate() {
        match (&replace, index == after) {
            (Some(replacement), true) => out.push_str(replacement),
            _ if index == key_line && !sandbox_value.is_empty() => out.push_str("sandbox:\n"),
            _ => out.push_str(line),
        }
        if index == after {
            if !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(&insert);
        }
    }
    Some(out)
}

#[cfg(test)]
#[path = "host_edit_tests.rs"]
mod tests;
