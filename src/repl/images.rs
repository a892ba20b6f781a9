//! Images attached to a prompt in the REPL: an `@shot.png` mention, or a prompt that is only a
//! pasted path to an image (terminals paste a dragged file as `'/path/with space.png'` or
//! `/path/with\ space.png`). The screen shows `[image: shot.png, 12 KB]`.
//!
//! Invariant: an image passes the same checks as a mentioned file (a rule that denies the read
//! refuses it; an "ask" does not: the person chose it), then the model's vision and the limits;
//! a refused image is said with its reason and its prompt is not sent (the line stays in the
//! history, Up brings it back), never sent without it.

use super::chat::Chat;
use super::setup::Setup;
use crate::agent::Verdict;
use crate::msg::{Image, ToolCall};
use crate::tools::READ_FILE;

/// The path a prompt consists of when it is only one pasted path: quoted in `'...'` or `"..."`,
/// or one word whose blanks are backslash-escaped. None for anything else (a sentence).
fn pasted_path(line: &str) -> Option<String> {
    let line = line.trim();
    for quote in ['\'', '"'] {
        if let Some(inner) = line.strip_prefix(quote).and_then(|rest| rest.strip_suffix(quote)) {
            return (!inner.is_empty() && !inner.contains(quote)).then(|| inner.to_string());
        }
    }
    let mut path = String::new();
    let mut chars = line.chars();
    while let Some(char) = chars.next() {
        match char {
            '\\' => path.push(chars.next()?),
            blank if blank.is_whitespace() => return None,
            other => path.push(other),
        }
    }
    (!path.is_empty()).then_some(path)
}

/// Reads the image at `word` (relative to the project or absolute) for the prompt, after the
/// permission engine and the model's vision; the reason it cannot be attached otherwise.
pub(super) fn attach(chat: &Chat, setup: &Setup, word: &str) -> Result<Image, String> {
    let tool = chat.agent.registry.get(READ_FILE.name).ok_or("no read_file tool in this session")?;
    let input = serde_json::json!({ "path": word }).to_string();
    let call = ToolCall { id: "attach".into(), name: READ_FILE.name.into(), input };
    if let Verdict::Deny { message, .. } = chat.agent.toolbox.gate.check(chat.mode, &call, tool.as_ref()) {
        return Err(message);
    }
    if let Some(refusal) = &chat.agent.settings.image_refusal {
        return Err(refusal.clone());
    }
    let path = crate::fsx::resolve_path(&setup.root, word);
    let name = path.file_name().map_or_else(|| word.to_string(), |name| name.to_string_lossy().into_owned());
    crate::tools::read_image::load_image(&path, &name).map(|(image, _)| image).map_err(|err| err.message(word))
}

/// The image a prompt that is only a pasted path names: None when the line is not one path to
/// an existing image file (then it is an ordinary prompt).
pub(super) fn pasted(chat: &Chat, setup: &Setup, line: &str) -> Option<Result<Image, String>> {
    let word = pasted_path(line)?;
    let path = crate::fsx::resolve_path(&setup.root, &word);
    if !path.is_file() || !crate::tools::read_image::is_image_file(&path) {
        return None;
    }
    Some(attach(chat, setup, &word))
}

#[cfg(test)]
#[path = "images_tests.rs"]
mod tests;
