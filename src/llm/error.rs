//! The typed error of the LLM engine and the one table that recognises context-overflow errors.
//!
//! Invariant: every variant says how callers react; classification is pure (status, type, code,
//! message in, variant out) so it is tested without HTTP. Server wordings live in the tables
//! below and nowhere else. This module does not read headers or bodies off the wire: the
//! transport hands it strings.

use crate::text::truncate_chars;
use std::time::Duration;

/// Failures of a model call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LlmError {
    /// The prompt does not fit the model's context window: compact and retry; never retried as is.
    PromptTooLong { message: String },
    /// HTTP 429 or an in-band rate-limit error: retried after `retry_after` (or backoff).
    RateLimited { message: String, retry_after: Option<Duration> },
    /// HTTP 529, Anthropic `overloaded_error`: retried with backoff.
    Overloaded { message: String, retry_after: Option<Duration> },
    /// HTTP 408/409/5xx or an in-band server error: retried with backoff.
    Server { status: u16, message: String, retry_after: Option<Duration> },
    /// HTTP 401/403: never retried; `fix` names the config key or env var to set.
    Auth { status: u16, message: String, fix: String },
    /// Any other non-2xx (400, 404, 422, ...): the request itself is wrong; never retried.
    Request { status: u16, message: String },
    /// Connect, DNS, TLS, proxy, reset or idle-timeout failures; retried. Names the host.
    Network { message: String },
    /// A connection refused by a loopback address with no proxy: no local server is running
    /// there, which retrying for seconds cannot change; never retried (kind `network`). Names
    /// the URL.
    Refused { message: String },
    /// A malformed or truncated stream (bad JSON chunk, EOF before the terminal event); retried
    /// from scratch.
    Protocol { message: String },
    /// The turn was cancelled by the user; never retried.
    Cancelled,
}

impl std::fmt::Display for LlmError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LlmError::PromptTooLong { message } => write!(f, "prompt too long for the model's context: {message}"),
            LlmError::RateLimited { message, .. } => write!(f, "rate limited: {message}"),
            LlmError::Overloaded { message, .. } => write!(f, "server overloaded: {message}"),
            LlmError::Server { status, message, .. } => write!(f, "server error {status}: {message}"),
            LlmError::Auth { status, message, fix } => write!(f, "authentication failed ({status}): {message}; {fix}"),
            LlmError::Request { status, message } => write!(f, "request rejected ({status}): {message}"),
            LlmError::Network { message } | LlmError::Refused { message } => write!(f, "network error: {message}"),
            LlmError::Protocol { message } => write!(f, "malformed stream: {message}"),
            LlmError::Cancelled => write!(f, "cancelled"),
        }
    }
}

impl std::error::Error for LlmError {}

/// The kind of a failed model call as scripts read it (`-p` json `error.kind`). The names are a
/// stable contract; `LlmError::kind` is the one mapping onto them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    Auth,
    RateLimit,
    Overloaded,
    PromptTooLong,
    Server,
    Request,
    Network,
    Protocol,
    Cancelled,
}

impl ErrorKind {
    /// The stable name.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Auth => "auth",
            ErrorKind::RateLimit => "rate_limit",
            ErrorKind::Overloaded => "overloaded",
            ErrorKind::PromptTooLong => "prompt_too_long",
            ErrorKind::Server => "server",
            ErrorKind::Request => "request",
            ErrorKind::Network => "network",
            ErrorKind::Protocol => "protocol",
            ErrorKind::Cancelled => "cancelled",
        }
    }
}

impl LlmError {
    /// The error's kind: the one mapping from the typed error to the names scripts read.
    pub fn kind(&self) -> ErrorKind {
        match self {
            LlmError::PromptTooLong { .. } => ErrorKind::PromptTooLong,
            LlmError::RateLimited { .. } => ErrorKind::RateLimit,
            LlmError::Overloaded { .. } => ErrorKind::Overloaded,
            LlmError::Server { .. } => ErrorKind::Server,
            LlmError::Auth { .. } => ErrorKind::Auth,
            LlmError::Request { .. } => ErrorKind::Request,
            LlmError::Network { .. } | LlmError::Refused { .. } => ErrorKind::Network,
            LlmError::Protocol { .. } => ErrorKind::Protocol,
            LlmError::Cancelled => ErrorKind::Cancelled,
        }
    }

    /// What the user can do about it, when that is known apart from the message.
    pub fn fix(&self) -> Option<String> {
        match self {
            LlmError::Auth { fix, .. } => Some(fix.clone()),
            LlmError::PromptTooLong { .. } => {
                Some("send less at once (a file path instead of its text), or start a new session".to_string())
            }
            LlmError::RateLimited { .. } => {
                Some("wait, then run again (or ask the provider for a higher limit)".into())
            }
            LlmError::Overloaded { .. } => Some("the server is busy: run again later".to_string()),
            LlmError::Refused { .. } => Some("start the local server, or fix the provider's base_url".to_string()),
            LlmError::Network { .. } => Some(
                "check that the provider's base_url is reachable from here (and HTTPS_PROXY / NO_PROXY)".to_string(),
            ),
            LlmError::Server { .. } | LlmError::Request { .. } | LlmError::Protocol { .. } | LlmError::Cancelled => {
                None
            }
        }
    }
}

/// Classifies an error reported by a server, before the stream (`status` = the HTTP status) or
/// inside a 200 stream (`status` = None, or the in-band `code` when it is numeric).
/// `error_type` / `code` / `message` are the fields of the error object ("" when absent).
/// `Auth` gets a generic `fix` and retryable variants no `retry_after`; `parse_error_body` adds
/// both from the response.
pub(crate) fn classify(status: Option<u16>, error_type: &str, code: &str, message: &str) -> LlmError {
    let status = status.or_else(|| status_for_type(error_type));
    let fields = Fields { status, error_type, code, message };
    let message = message.to_string();
    if matches!(status, Some(401 | 403)) {
        let status = status.unwrap_or(401);
        return LlmError::Auth { status, message, fix: fix_for_key("") };
    }
    if fields.matches_any(PROMPT_TOO_LONG) {
        return LlmError::PromptTooLong { message };
    }
    if fields.matches_any(INVALID_REQUEST) {
        // Strict servers answer a malformed request with a 500 carrying the validator's
        // report; the same request fails the same way every time, so it is never retried.
        let status = status.unwrap_or(500);
        let message = format!("the server says the request itself is invalid (not retried): {message}");
        return LlmError::Request { status, message };
    }
    match status {
        Some(529) => LlmError::Overloaded { message, retry_after: None },
        // A spend or quota limit does not lift by waiting seconds: retrying only burns attempts.
        Some(429) if fields.matches_any(SPEND_LIMIT) => LlmError::Request { status: 429, message },
        Some(429) => LlmError::RateLimited { message, retry_after: None },
        Some(status @ (408 | 409 | 500..=599)) => LlmError::Server { status, message, retry_after: None },
        Some(status) => LlmError::Request { status, message },
        // An in-band error of unknown type: the server failed mid-answer, which is worth a retry.
        None => LlmError::Server { status: 500, message, retry_after: None },
    }
}

/// Turns a non-2xx response into an error: reads `error.message` else `message` else the raw
/// body (trimmed, HTML reduced to its title, capped), `error.type`/`type` and
/// `error.code`/`code`, for Anthropic, OpenAI, flat (vLLM/Mistral) and plain-text proxy
/// bodies. `retry_after` is attached to retryable errors; `key_hint` (from
/// `ProviderConfig::api_key_hint`) names what to fix on Auth errors.
pub(crate) fn parse_error_body(status: u16, body: &str, retry_after: Option<Duration>, key_hint: &str) -> LlmError {
    if (300..400).contains(&status) {
        // Redirects are never followed (keys must not travel to another host).
        let message = format!(
            "the server answered with a redirect (HTTP {status}); mewcode does not follow redirects, so set base_url to the final address"
        );
        return LlmError::Request { status, message };
    }
    let error = match serde_json::from_str::<serde_json::Value>(body) {
        Ok(value) if value.is_object() => parse_error_value(Some(status), &value),
        _ => {
            let message = summarize_raw_body(body, status);
            classify(Some(status), "", "", &message)
        }
    };
    with_key_hint(with_retry_after(error, retry_after), key_hint)
}

/// Classifies a JSON error object: a whole body (`{"error": {...}}`, a flat
/// `{"message", "type", "code"}`, `{"error": "text"}`) or an in-band SSE `error` payload.
/// With `status` None a numeric `code` (vLLM's `"code": 500`) stands in for the status.
pub(crate) fn parse_error_value(status: Option<u16>, value: &serde_json::Value) -> LlmError {
    let inner = value.get("error");
    let object = inner.filter(|inner| inner.is_object()).unwrap_or(value);
    let field = |name: &str| object.get(name).or_else(|| value.get(name)).map(scalar_text).unwrap_or_default();
    let mut message = field("message");
    if message.is_empty() {
        message = inner.and_then(|inner| inner.as_str()).map(str::to_string).unwrap_or_default();
    }
    if message.is_empty() {
        // FastAPI-style servers (vLLM's router, TGI, LocalAI) say `{"detail": ...}`.
        message = value.get("detail").map(detail_text).unwrap_or_default();
    }
    if message.is_empty() {
        message = truncate_chars(&value.to_string(), MAX_MESSAGE_CHARS, "...");
    }
    let error_type = field("type");
    // Anthropic's envelope says `"type": "error"`; that names the envelope, not the error.
    let error_type = if error_type == "error" { String::new() } else { error_type };
    let error_type = if error_type.is_empty() && value.get("detail").is_some_and(is_validation_list) {
        VALIDATION_TYPE.to_string()
    } else {
        error_type
    };
    let code = field("code");
    let status = status.or_else(|| code.parse::<u16>().ok().filter(|code| (400..600).contains(code)));
    classify(status, &error_type, &code, &truncate_chars(message.trim(), MAX_MESSAGE_CHARS, "..."))
}

/// Classifies an error a server wrote outside the JSON `data:` path of a 200 stream: the data of
/// an `event: error`, a non-standard `error:` field, a bare JSON body or plain text. JSON objects
/// go through `parse_error_value`; other text is the message itself (summarised like a raw
/// body), so a readable failure is never reported as a malformed stream.
pub(crate) fn parse_stray_error(text: &str) -> LlmError {
    match serde_json::from_str::<serde_json::Value>(text.trim()) {
        Ok(value) if value.is_object() => parse_error_value(None, &value),
        Ok(serde_json::Value::String(message)) => {
            classify(None, "", "", &truncate_chars(message.trim(), MAX_MESSAGE_CHARS, "..."))
        }
        _ => classify(None, "", "", &summarize_raw_body(text, 200)),
    }
}

/// Whether a bare JSON body is an error object (`error` or FastAPI's `detail`).
pub(crate) fn is_error_body(value: &serde_json::Value) -> bool {
    ["error", "detail"].iter().any(|key| value.get(key).is_some_and(|field| !field.is_null()))
}

/// Reads `retry-after-ms` (preferred, fractional milliseconds) or `retry-after` in seconds. The
/// HTTP-date form of `retry-after` is ignored (backoff applies instead).
pub(crate) fn parse_retry_after(retry_after: Option<&str>, retry_after_ms: Option<&str>) -> Option<Duration> {
    let parse = |text: &str| text.trim().parse::<f64>().ok().filter(|value| value.is_finite() && *value >= 0.0);
    if let Some(millis) = retry_after_ms.and_then(parse) {
        return Some(Duration::from_secs_f64(millis.min(86_400_000.0) / 1000.0));
    }
    retry_after.and_then(parse).map(|seconds| Duration::from_secs_f64(seconds.min(86_400.0)))
}

/// True for errors that may succeed when the same request is sent again.
pub(crate) fn is_retryable(error: &LlmError) -> bool {
    match error {
        LlmError::RateLimited { .. }
        | LlmError::Overloaded { .. }
        | LlmError::Server { .. }
        | LlmError::Network { .. }
        | LlmError::Protocol { .. } => true,
        LlmError::PromptTooLong { .. }
        | LlmError::Auth { .. }
        | LlmError::Request { .. }
        | LlmError::Refused { .. }
        | LlmError::Cancelled => false,
    }
}

/// The server's own delay, when it gave one.
pub(crate) fn retry_after_of(error: &LlmError) -> Option<Duration> {
    match error {
        LlmError::RateLimited { retry_after, .. }
        | LlmError::Overloaded { retry_after, .. }
        | LlmError::Server { retry_after, .. } => *retry_after,
        LlmError::PromptTooLong { .. }
        | LlmError::Auth { .. }
        | LlmError::Request { .. }
        | LlmError::Network { .. }
        | LlmError::Refused { .. }
        | LlmError::Protocol { .. }
        | LlmError::Cancelled => None,
    }
}

/// Sets `fix` of an Auth error from the provider's key hint; other errors pass through.
pub(crate) fn with_key_hint(error: LlmError, key_hint: &str) -> LlmError {
    match error {
        LlmError::Auth { status, message, .. } => LlmError::Auth { status, message, fix: fix_for_key(key_hint) },
        other => other,
    }
}

/// Where a signature looks.
#[derive(Clone, Copy)]
enum Field {
    Status,
    /// `error.type`, exact (case-insensitive).
    Type,
    /// `error.code`, exact (case-insensitive).
    Code,
    /// A case-insensitive substring of the message.
    Message,
}

/// One recognisable wording: which server family says it, where, and what.
struct Signature {
    #[cfg_attr(
        not(test),
        expect(dead_code, reason = "names the server family for the reader of the table; the tests quote it")
    )]
    server: &'static str,
    field: Field,
    needle: &'static str,
}

const fn sig(server: &'static str, field: Field, needle: &'static str) -> Signature {
    Signature { server, field, needle }
}

/// THE table of context-overflow signatures (SPEC §2, protocol README §2.7 and §3.6). A hit means
/// "compact and retry", never "resend as is". Add a server's wording here and nowhere else.
const PROMPT_TOO_LONG: &[Signature] = &[
    sig("any (request entity too large)", Field::Status, "413"),
    sig("anthropic", Field::Type, "request_too_large"),
    sig("anthropic", Field::Message, "prompt is too long"),
    // "input length and `max_tokens` exceed context limit: A + B > C"
    sig("anthropic", Field::Message, "exceed context limit"),
    sig("openai", Field::Code, "context_length_exceeded"),
    sig("openai-compatible", Field::Type, "context_length_exceeded"),
    // OpenAI, DeepSeek (code invalid_request_error), vLLM (type BadRequestError), OpenRouter.
    sig("openai/deepseek/vllm", Field::Message, "maximum context length"),
    sig("vllm", Field::Message, "longer than the maximum model length"),
    sig("llama.cpp", Field::Type, "exceed_context_size_error"),
    sig("llama.cpp", Field::Message, "exceeds the available context size"),
    sig("ollama", Field::Message, "context length exceeded"),
    sig("ollama", Field::Message, "input length exceeds"),
    sig("sglang", Field::Message, "exceeds the maximum allowed length"),
    sig("mistral", Field::Message, "too large for model with"),
    sig("lm studio", Field::Message, "greater than the context length"),
    sig("xai", Field::Message, "maximum prompt length"),
    sig("gemini (openai endpoint)", Field::Message, "exceeds the maximum number of tokens allowed"),
    sig("tgi/together", Field::Message, "`inputs` tokens + `max_new_tokens`"),
];

/// A 429 that is a spend, quota or billing limit: waiting does not help, so it is not retried.
const SPEND_LIMIT: &[Signature] = &[
    sig("openai", Field::Code, "insufficient_quota"),
    sig("openai", Field::Type, "insufficient_quota"),
    sig("anthropic", Field::Type, "billing_error"),
    sig("openai", Field::Message, "exceeded your current quota"),
    sig("anthropic", Field::Message, "usage limits"),
    sig("any", Field::Message, "spend limit"),
    sig("any", Field::Message, "spending limit"),
    sig("any", Field::Message, "billing"),
    sig("anthropic", Field::Message, "credit balance"),
    sig("openrouter", Field::Message, "insufficient credits"),
    sig("deepseek", Field::Message, "insufficient balance"),
];

/// A request-validation report, whatever the status (llama-cpp-python answers 500 with one):
/// the request is malformed, so sending it again fails the same way. Parsed FastAPI `detail`
/// lists arrive here as type `request_validation_error` (see `parse_error_value`).
const INVALID_REQUEST: &[Signature] = &[
    sig("fastapi (detail list with loc/msg/type)", Field::Type, VALIDATION_TYPE),
    // str() of pydantic's error list: "[{'type': 'missing', 'loc': ('body', 'messages', 2, ...".
    sig("llama-cpp-python (pydantic repr)", Field::Message, "'loc': ('body'"),
    sig("pydantic (json)", Field::Message, "\"loc\":[\"body\""),
    sig("pydantic (json)", Field::Message, "\"loc\": [\"body\""),
    // "1 validation error for ChatCompletionRequest\nmessages.2.content\n  Field required".
    sig("pydantic (ValidationError)", Field::Message, "validation error for "),
];

/// The error type given to a FastAPI `detail` list of validation errors (items with `loc`).
const VALIDATION_TYPE: &str = "request_validation_error";

/// The fields a signature is matched against.
struct Fields<'a> {
    status: Option<u16>,
    error_type: &'a str,
    code: &'a str,
    message: &'a str,
}

impl Fields<'_> {
    fn matches_any(&self, table: &[Signature]) -> bool {
        table.iter().any(|signature| self.matches(signature))
    }

    fn matches(&self, signature: &Signature) -> bool {
        match signature.field {
            Field::Status => self.status.is_some_and(|status| status.to_string() == signature.needle),
            Field::Type => self.error_type.eq_ignore_ascii_case(signature.needle),
            Field::Code => self.code.eq_ignore_ascii_case(signature.needle),
            Field::Message => contains_ignore_case(self.message, signature.needle),
        }
    }
}

/// The status an in-band error type implies, so in-band and HTTP errors classify alike.
fn status_for_type(error_type: &str) -> Option<u16> {
    let status = match error_type.to_ascii_lowercase().as_str() {
        "invalid_request_error" | "badrequesterror" | "bad_request" => 400,
        "authentication_error" | "authenticationerror" | "unauthorized" => 401,
        "billing_error" => 402,
        "permission_error" | "permissiondeniederror" => 403,
        "not_found_error" | "notfounderror" => 404,
        "request_too_large" => 413,
        "rate_limit_error" | "ratelimiterror" | "rate_limit_exceeded" => 429,
        "api_error" | "server_error" | "internalservererror" | "internal_server_error" => 500,
        "overloaded_error" => 529,
        _ => return None,
    };
    Some(status)
}

const MAX_MESSAGE_CHARS: usize = 500;

fn fix_for_key(key_hint: &str) -> String {
    if key_hint.is_empty() {
        "check the provider's api_key in the config".to_string()
    } else {
        format!("check {key_hint}")
    }
}

fn with_retry_after(error: LlmError, retry_after: Option<Duration>) -> LlmError {
    if retry_after.is_none() {
        return error;
    }
    match error {
        LlmError::RateLimited { message, .. } => LlmError::RateLimited { message, retry_after },
        LlmError::Overloaded { message, .. } => LlmError::Overloaded { message, retry_after },
        LlmError::Server { status, message, .. } => LlmError::Server { status, message, retry_after },
        other => other,
    }
}

/// A non-JSON body as a one-line message: an HTML page becomes its `<title>` (or its text),
/// whitespace collapses, and the result is capped.
fn summarize_raw_body(body: &str, status: u16) -> String {
    let body = body.trim();
    if body.is_empty() {
        return format!("HTTP {status} with an empty body");
    }
    let text =
        if body.starts_with('<') { html_title(body).unwrap_or_else(|| strip_tags(body)) } else { body.to_string() };
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.is_empty() {
        format!("HTTP {status} with an unreadable body")
    } else {
        truncate_chars(&collapsed, 300, "...")
    }
}

fn html_title(html: &str) -> Option<String> {
    let lower = html.to_ascii_lowercase();
    let start = lower.find("<title")?;
    let open_end = start + lower[start..].find('>')? + 1;
    let close = open_end + lower[open_end..].find("</title")?;
    let title = html[open_end..close].trim();
    (!title.is_empty()).then(|| title.to_string())
}

fn strip_tags(html: &str) -> String {
    let mut text = String::with_capacity(html.len());
    let mut in_tag = false;
    for character in html.chars() {
        match character {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                text.push(' ');
            }
            _ if !in_tag => text.push(character),
            _ => {}
        }
    }
    text
}

/// FastAPI's `detail`: a string, an object with a message, or a list of validation errors
/// (each with `msg`).
fn detail_text(detail: &serde_json::Value) -> String {
    match detail {
        serde_json::Value::String(text) => text.clone(),
        serde_json::Value::Array(items) => {
            let messages: Vec<String> = items
                .iter()
                .map(|item| {
                    let text = item
                        .get("msg")
                        .or_else(|| item.get("message"))
                        .map(scalar_text)
                        .unwrap_or_else(|| item.to_string());
                    match item.get("loc").and_then(|loc| loc.as_array()) {
                        Some(loc) => format!("{}: {text}", loc.iter().map(scalar_text).collect::<Vec<_>>().join(".")),
                        None => text,
                    }
                })
                .collect();
            messages.join("; ")
        }
        serde_json::Value::Object(object) => {
            object.get("message").or_else(|| object.get("msg")).map(scalar_text).unwrap_or_else(|| detail.to_string())
        }
        other => scalar_text(other),
    }
}

/// FastAPI's validation report: a list of objects each naming where (`loc`) and what (`msg`).
fn is_validation_list(detail: &serde_json::Value) -> bool {
    detail.as_array().is_some_and(|items| {
        !items.is_empty() && items.iter().all(|item| item.get("loc").is_some() && item.get("msg").is_some())
    })
}

/// JSON strings as their text, numbers and other scalars as written; null as empty.
fn scalar_text(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(text) => text.clone(),
        serde_json::Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn contains_ignore_case(haystack: &str, needle: &str) -> bool {
    let needle = needle.as_bytes();
    haystack.as_bytes().windows(needle.len()).any(|window| window.eq_ignore_ascii_case(needle))
}

#[cfg(test)]
#[path = "error_tests.rs"]
mod tests;
