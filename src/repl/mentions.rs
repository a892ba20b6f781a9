//! `@path` in a prompt: Tab completes project paths after an `@`, and each mentioned file's
//! content (a directory's listing) goes to the model with the prompt, as `read_file` shows it;
//! a mentioned image goes as an image (`images.rs`).
//!
//! Invariant: a mention is only a word that starts with `@` at the start of the prompt or after
//! a blank and names something that exists (an e-mail address or `@someone` stays text). A
//! file's content is read by the session's own `read_file` tool, after the permission engine: a
//! rule that denies the read refuses the mention too (an "ask" does not: the person typed it),
//! and the read is recorded as the conversation's, so the model may edit the file without
//! reading it again. At most `MAX_MENTIONS` per prompt.

use super::chat::Chat;
use super::render::{DIM, RED, paint};
use super::say;
use super::setup::Setup;
use crate::agent::Verdict;
use crate::cancel::CancelToken;
use crate::msg::{Image, ToolCall};
use crate::text::neutralize;
use crate::tools::{READ_FILE, ToolContext, execute_caught};
use std::path::Path;

/// Mentions attached per prompt; more are left as text (and said).
const MAX_MENTIONS: usize = 10;
/// Entries of a mentioned directory listed.
const LISTING_MAX: usize = 200;
/// Completions offered for one Tab.
const COMPLETIONS_MAX: usize = 60;

/// The paths mentioned in `prompt`, in order, without duplicates: words starting with `@` after
/// a blank (or at the start), with trailing punctuation dropped; `@"a b"` for names with blanks.
pub(super) fn mentioned(prompt: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut rest = prompt;
    let mut at_start = true;
    while let Some(index) = rest.find('@') {
        let before_ok = if index == 0 { at_start } else { rest[..index].ends_with(char::is_whitespace) };
        let after = &rest[index + 1..];
        let (word, consumed) = match after.strip_prefix('"') {
            Some(quoted) => match quoted.find('"') {
                Some(end) => (quoted[..end].to_string(), end + 2),
                None => (String::new(), 0),
            },
            None => {
                let end = after.find(char::is_whitespace).unwrap_or(after.len());
                let word = after[..end].trim_end_matches([',', '.', ';', ':', '!', '?', ')', ']', '\'', '"']);
                (word.to_string(), end)
            }
        };
        if before_ok && !word.is_empty() && !found.contains(&word) {
            found.push(word);
        }
        rest = &after[consumed..];
        at_start = false;
    }
    found
}

/// What a prompt's mentions attach.
pub(super) struct Attachments {
    /// Every mentioned file's content (or directory's listing), each after a blank line.
    pub text: String,
    /// The mentioned images.
    pub images: Vec<Image>,
    /// A mentioned image could not be attached: the prompt is not sent without it.
    pub image_refused: bool,
}

/// What goes with the prompt: every mentioned file's content (or directory's listing), each
/// after a blank line, and every mentioned image; nothing without mentions. Says on screen what
/// was attached or refused.
pub(super) fn attachments(chat: &Chat, setup: &Setup, prompt: &str) -> Attachments {
    let mentions: Vec<String> =
        mentioned(prompt).into_iter().filter(|word| setup.root.join(word).symlink_metadata().is_ok()).collect();
    let mut attached = String::new();
    let mut images = Vec::new();
    let mut image_refused = false;
    for (index, word) in mentions.iter().enumerate() {
        if index == MAX_MENTIONS {
            say(&paint(
                setup.color,
                DIM,
                &format!("  {} only the first {MAX_MENTIONS} @ mentions are attached", setup.glyphs.result),
            ));
            break;
        }
        let path = setup.root.join(word);
        let shown = neutralize(word);
        if path.is_file() && crate::tools::read_image::is_image_file(&path) {
            match super::images::attach(chat, setup, word) {
                Ok(image) => {
                    let shown = neutralize(&image.placeholder());
                    say(&paint(setup.color, DIM, &format!("  {} @{}: {shown}", setup.glyphs.result, neutralize(word))));
                    images.push(image);
                }
                Err(reason) => {
                    let message = format!("  {} @{shown}: not attached: {}", setup.glyphs.result, neutralize(&reason));
                    say(&paint(setup.color, RED, &message));
                    image_refused = true;
                }
            }
            continue;
        }
        let block = if path.is_dir() {
            let listing = list_directory(&path);
            say(&paint(setup.color, DIM, &format!("  {} @{shown}: directory listed", setup.glyphs.result)));
            format!("<mentioned-directory path=\"{word}\">\n{listing}</mentioned-directory>")
        } else {
            match read_mentioned(chat, setup, word) {
                Ok(content) => {
                    let lines = content.lines().count();
                    say(&paint(
                        setup.color,
                        DIM,
                        &format!("  {} @{shown}: attached ({lines} lines)", setup.glyphs.result),
                    ));
                    format!("<mentioned-file path=\"{word}\">\n{content}\n</mentioned-file>")
                }
                Err(reason) => {
                    say(&paint(
                        setup.color,
                        RED,
                        &format!("  {} @{shown}: not attached: {}", setup.glyphs.result, neutralize(&reason)),
                    ));
                    continue;
                }
            }
        };
        attached.push_str("\n\n");
        attached.push_str(&block);
    }
    Attachments { text: attached, images, image_refused }
}

/// A mentioned file as the session's `read_file` shows it, unless a rule denies the read.
fn read_mentioned(chat: &Chat, setup: &Setup, word: &str) -> Result<String, String> {
    let tool = chat.agent.registry.get(READ_FILE.name).ok_or("no read_file tool in this session")?;
    let input = serde_json::json!({ "path": word }).to_string();
    let call = ToolCall { id: "mention".into(), name: READ_FILE.name.into(), input: input.clone() };
    if let Verdict::Deny { message, .. } = chat.agent.toolbox.gate.check(chat.mode, &call, tool.as_ref()) {
        return Err(message);
    }
    let mut context = ToolContext::new(setup.root.clone(), CancelToken::new());
    if let Some(conversation) = &chat.conversation {
        context.reads = conversation.reads();
    }
    let output = execute_caught(tool.as_ref(), &input, &context);
    if output.is_error { Err(output.content) } else { Ok(output.content) }
}

/// A directory's entries, sorted, directories marked with `/`, at most `LISTING_MAX`.
fn list_directory(dir: &Path) -> String {
    let mut names: Vec<String> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .flatten()
            .map(|entry| {
                let name = entry.file_name().to_string_lossy().into_owned();
                if entry.file_type().is_ok_and(|kind| kind.is_dir()) { format!("{name}/") } else { name }
            })
            .collect(),
        Err(err) => return format!("(cannot list it: {err})\n"),
    };
    names.sort();
    let more = names.len().saturating_sub(LISTING_MAX);
    let mut listing: String = names.iter().take(LISTING_MAX).map(|name| format!("{name}\n")).collect();
    if more > 0 {
        listing.push_str(&format!("({more} more entries)\n"));
    }
    listing
}

/// Tab after `@partial`: the word's start and the paths it may become (`@dir/` for
/// directories). A partial without `/` also matches file names anywhere in the project.
pub(super) fn complete(root: &Path, before_cursor: &str) -> Option<(usize, Vec<String>)> {
    let start = before_cursor.rfind(char::is_whitespace).map_or(0, |blank| blank + 1);
    let partial = before_cursor[start..].strip_prefix('@')?;
    let (dir, prefix) = partial.rsplit_once('/').map_or(("", partial), |(dir, name)| (dir, name));
    let mut options: Vec<String> = Vec::new();
    if let Ok(entries) = std::fs::read_dir(root.join(if dir.is_empty() { "." } else { dir })) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !name.starts_with(prefix) || (name.starts_with('.') && !prefix.starts_with('.')) || name == ".git" {
                continue;
            }
            let joined = if dir.is_empty() { name } else { format!("{dir}/{name}") };
            let is_dir = entry.file_type().is_ok_and(|kind| kind.is_dir());
            options.push(if is_dir { format!("@{joined}/") } else { format!("@{joined}") });
        }
    }
    if !partial.contains('/') && !partial.is_empty() {
        options.extend(files_named(root, partial).into_iter().map(|rel| format!("@{rel}")));
    }
    options.sort_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
    options.dedup();
    options.truncate(COMPLETIONS_MAX);
    Some((start, options))
}

/// Project files (not ignored) whose name starts with `prefix`, at most `COMPLETIONS_MAX`.
fn files_named(root: &Path, prefix: &str) -> Vec<String> {
    let cancel = CancelToken::new();
    let found = std::sync::atomic::AtomicUsize::new(0);
    let states = crate::tools::walk::walk_parallel(root, root, &cancel, Vec::new, |names: &mut Vec<String>, entry| {
        let name = entry.path.file_name().map(|name| name.to_string_lossy()).unwrap_or_default();
        if name.starts_with(prefix) && entry.rel.contains('/') {
            names.push(entry.rel.clone());
            if found.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1 >= COMPLETIONS_MAX {
                cancel.cancel();
            }
        }
    });
    states.into_iter().flatten().collect()
}

#[cfg(test)]
#[path = "mentions_tests.rs"]
mod tests;
