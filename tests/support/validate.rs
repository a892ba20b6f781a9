//! Validation of every request the fake model receives, with the rules the real APIs enforce:
//! so an invalid history fails the test wherever it happens, not only where a test looks.

use super::RecordedRequest;
use serde_json::Value;

/// Checks a request by its path; other paths (models lists, MCP) pass.
pub fn check_request(request: &RecordedRequest) -> Result<(), String> {
    let path = request.path.split('?').next().unwrap_or("");
    if request.method != "POST" {
        return Ok(());
    }
    if path.ends_with("/v1/messages") {
        let json = request.json.as_ref().ok_or("body is not JSON")?;
        check_anthropic(json)
    } else if path.ends_with("/chat/completions") {
        let json = request.json.as_ref().ok_or("body is not JSON")?;
        check_openai(json)
    } else {
        Ok(())
    }
}

/// Anthropic Messages: model, max_tokens, stream; system blocks; strict user/assistant
/// alternation starting with user; every tool_use answered by a tool_result, first, in the next
/// user message; thinking budget below max_tokens.
pub fn check_anthropic(body: &Value) -> Result<(), String> {
    body.get("model").and_then(Value::as_str).ok_or("missing model")?;
    let max_tokens = body.get("max_tokens").and_then(Value::as_u64).ok_or("missing max_tokens")?;
    if body.get("stream") != Some(&Value::Bool(true)) {
        return Err("stream is not true".into());
    }
    if let Some(system) = body.get("system") {
        let blocks = system.as_array().ok_or("system is not a list of blocks")?;
        for block in blocks {
            if block.get("type").and_then(Value::as_str) != Some("text")
                || block.get("text").and_then(Value::as_str).is_none()
            {
                return Err(format!("bad system block {block}"));
            }
        }
    }
    if let Some(budget) = body.pointer("/thinking/budget_tokens").and_then(Value::as_u64)
        && budget >= max_tokens
    {
        return Err(format!("thinking budget {budget} is not below max_tokens {max_tokens}"));
    }
    let messages = body.get("messages").and_then(Value::as_array).ok_or("missing messages")?;
    if messages.is_empty() {
        return Err("no messages".into());
    }
    let mut pending: Vec<String> = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        let role = message.get("role").and_then(Value::as_str).ok_or(format!("messages[{index}] has no role"))?;
        let expected = if index % 2 == 0 { "user" } else { "assistant" };
        if role != expected {
            return Err(format!("messages[{index}] is {role}, expected {expected} (strict alternation)"));
        }
        let blocks = content_blocks(message);
        for block in &blocks {
            check_anthropic_images(block, role).map_err(|err| format!("messages[{index}]: {err}"))?;
        }
        if role == "user" {
            let results: Vec<String> = blocks
                .iter()
                .take_while(|block| block.get("type").and_then(Value::as_str) == Some("tool_result"))
                .filter_map(|block| block.get("tool_use_id").and_then(Value::as_str).map(String::from))
                .collect();
            let later = blocks
                .iter()
                .skip(results.len())
                .any(|block| block.get("type").and_then(Value::as_str) == Some("tool_result"));
            if later {
                return Err(format!("messages[{index}]: tool_result blocks must come first"));
            }
            let mut wanted = pending.clone();
            wanted.sort();
            let mut got = results.clone();
            got.sort();
            if wanted != got {
                return Err(format!(
                    "messages[{index}]: tool results {results:?} do not answer tool calls {pending:?}"
                ));
            }
            pending.clear();
        } else {
            pending = blocks
                .iter()
                .filter(|block| block.get("type").and_then(Value::as_str) == Some("tool_use"))
                .filter_map(|block| block.get("id").and_then(Value::as_str).map(String::from))
                .collect();
        }
    }
    if !pending.is_empty() {
        return Err(format!("the last message is an assistant turn with unanswered tool calls {pending:?}"));
    }
    Ok(())
}

/// An image block (in a user turn, or in a tool result's content list) has a base64 source of
/// one of the four media types; a tool result's content is a string or text and image blocks.
fn check_anthropic_images(block: &Value, role: &str) -> Result<(), String> {
    let check_image = |image: &Value| -> Result<(), String> {
        let source = image.get("source").ok_or("image without source")?;
        let media = source.get("media_type").and_then(Value::as_str).unwrap_or("");
        let data = source.get("data").and_then(Value::as_str).unwrap_or("");
        let known = ["image/png", "image/jpeg", "image/gif", "image/webp"].contains(&media);
        if source.get("type").and_then(Value::as_str) != Some("base64") || !known || data.is_empty() {
            return Err(format!("bad image source {source}"));
        }
        // The API's limit: 5 MB of base64 per image.
        if data.len() > 5 * 1024 * 1024 {
            return Err(format!("image of {} base64 bytes, over 5 MB", data.len()));
        }
        Ok(())
    };
    match block.get("type").and_then(Value::as_str) {
        Some("image") if role == "user" => check_image(block),
        Some("image") => Err("an image in an assistant turn".to_string()),
        Some("tool_result") => match block.get("content") {
            None | Some(Value::String(_)) => Ok(()),
            Some(Value::Array(parts)) => {
                parts.iter().try_for_each(|part| match part.get("type").and_then(Value::as_str) {
                    Some("image") => check_image(part),
                    Some("text") if part.get("text").and_then(Value::as_str).is_some() => Ok(()),
                    _ => Err(format!("bad tool_result content block {part}")),
                })
            }
            Some(other) => Err(format!("tool_result content is {other}")),
        },
        _ => Ok(()),
    }
}

/// A user message's content parts (Chat Completions): text, or an image as a `data:` URL.
fn check_openai_parts(parts: &[Value]) -> Result<(), String> {
    for part in parts {
        match part.get("type").and_then(Value::as_str) {
            Some("text") if part.get("text").and_then(Value::as_str).is_some() => {}
            Some("image_url") => {
                let url = part.pointer("/image_url/url").and_then(Value::as_str).unwrap_or("");
                let known = ["png", "jpeg", "gif", "webp"]
                    .iter()
                    .any(|kind| url.starts_with(&format!("data:image/{kind};base64,")) && url.len() > 23);
                if !known {
                    return Err(format!("bad image_url {}", &url[..url.len().min(60)]));
                }
            }
            _ => return Err(format!("bad content part {part}")),
        }
    }
    Ok(())
}

fn content_blocks(message: &Value) -> Vec<Value> {
    match message.get("content") {
        Some(Value::Array(blocks)) => blocks.clone(),
        Some(Value::String(text)) => vec![serde_json::json!({"type": "text", "text": text})],
        _ => Vec::new(),
    }
}

/// OpenAI Chat Completions: model, stream, messages; every assistant tool call answered by one
/// `tool` message per id, in order, before anything else.
pub fn check_openai(body: &Value) -> Result<(), String> {
    body.get("model").and_then(Value::as_str).ok_or("missing model")?;
    if body.get("stream") != Some(&Value::Bool(true)) {
        return Err("stream is not true".into());
    }
    let messages = body.get("messages").and_then(Value::as_array).ok_or("missing messages")?;
    let mut pending: Vec<String> = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        let role = message.get("role").and_then(Value::as_str).ok_or(format!("messages[{index}] has no role"))?;
        if role == "tool" {
            let id = message
                .get("tool_call_id")
                .and_then(Value::as_str)
                .ok_or(format!("messages[{index}]: tool without id"))?;
            if pending.first().map(String::as_str) != Some(id) {
                return Err(format!("messages[{index}]: tool result {id:?} out of order (expected {pending:?})"));
            }
            pending.remove(0);
            continue;
        }
        if !pending.is_empty() {
            return Err(format!("messages[{index}] ({role}) before tool results for {pending:?}"));
        }
        if role == "system" && index != 0 {
            return Err(format!("messages[{index}]: system message not first"));
        }
        // Strict servers (llama-cpp-python's pydantic models) answer 500 to a null content. A
        // user message may be a list of parts instead (text and images).
        match message.get("content") {
            Some(Value::String(_)) => {}
            Some(Value::Array(parts)) if role == "user" => {
                check_openai_parts(parts).map_err(|err| format!("messages[{index}]: {err}"))?;
            }
            _ => return Err(format!("messages[{index}] ({role}): content must be a string")),
        }
        if role == "assistant"
            && let Some(calls) = message.get("tool_calls").and_then(Value::as_array)
        {
            for call in calls {
                let id = call.get("id").and_then(Value::as_str).ok_or("tool call without id")?;
                let arguments = call.pointer("/function/arguments");
                if !matches!(arguments, Some(Value::String(_))) {
                    return Err(format!("tool call {id}: arguments must be a JSON string"));
                }
                pending.push(id.to_string());
            }
        }
    }
    if !pending.is_empty() {
        return Err(format!("unanswered tool calls at the end: {pending:?}"));
    }
    Ok(())
}
