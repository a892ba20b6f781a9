//! Table tests for error classification: every server wording we know, as data.

use super::*;

/// The variant name plus the status where it has one: enough to pin classification.
fn kind(error: &LlmError) -> String {
    match error {
        LlmError::PromptTooLong { .. } => "PromptTooLong".to_string(),
        LlmError::RateLimited { .. } => "RateLimited".to_string(),
        LlmError::Overloaded { .. } => "Overloaded".to_string(),
        LlmError::Server { status, .. } => format!("Server {status}"),
        LlmError::Auth { status, .. } => format!("Auth {status}"),
        LlmError::Request { status, .. } => format!("Request {status}"),
        LlmError::Network { .. } => "Network".to_string(),
        LlmError::Refused { .. } => "Refused".to_string(),
        LlmError::Protocol { .. } => "Protocol".to_string(),
        LlmError::Cancelled => "Cancelled".to_string(),
    }
}

#[test]
fn http_error_bodies_classify_by_status_type_code_and_message() {
    let cases: &[(u16, &str, &str)] = &[
        // Anthropic
        (
            400,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 215003 tokens > 200000 maximum"},"request_id":"req_1"}"#,
            "PromptTooLong",
        ),
        (
            400,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed context limit: 195000 + 16000 > 200000, decrease input length or `max_tokens` and try again"}}"#,
            "PromptTooLong",
        ),
        (
            400,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"messages.1: tool_use ids must be unique"}}"#,
            "Request 400",
        ),
        (401, r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#, "Auth 401"),
        (
            402,
            r#"{"type":"error","error":{"type":"billing_error","message":"Your credit balance is too low"}}"#,
            "Request 402",
        ),
        (403, r#"{"type":"error","error":{"type":"permission_error","message":"no access to model"}}"#, "Auth 403"),
        (404, r#"{"type":"error","error":{"type":"not_found_error","message":"model: claude-9"}}"#, "Request 404"),
        (
            413,
            r#"{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes."}}"#,
            "PromptTooLong",
        ),
        (
            429,
            r#"{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization of 50,000 input tokens per minute."}}"#,
            "RateLimited",
        ),
        (
            429,
            r#"{"type":"error","error":{"type":"rate_limit_error","message":"You have reached your specified API usage limits. You will regain access on 2026-08-01"}}"#,
            "Request 429",
        ),
        (500, r#"{"type":"error","error":{"type":"api_error","message":"Internal server error"}}"#, "Server 500"),
        (529, r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#, "Overloaded"),
        // OpenAI
        (
            400,
            r#"{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#,
            "PromptTooLong",
        ),
        (
            400,
            r#"{"error":{"message":"Input too long","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#,
            "PromptTooLong",
        ),
        (
            400,
            r#"{"error":{"message":"Unrecognized request argument supplied: stream_options","type":"invalid_request_error","param":null,"code":null}}"#,
            "Request 400",
        ),
        (
            401,
            r#"{"error":{"message":"Incorrect API key provided: sk-abc.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#,
            "Auth 401",
        ),
        (
            429,
            r#"{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}"#,
            "Request 429",
        ),
        (
            429,
            r#"{"error":{"message":"Rate limit reached for gpt-4o on tokens per min (TPM)","type":"tokens","param":null,"code":"rate_limit_exceeded"}}"#,
            "RateLimited",
        ),
        (
            503,
            r#"{"error":{"message":"The engine is currently overloaded, please try again later","type":"server_error"}}"#,
            "Server 503",
        ),
        // DeepSeek
        (
            400,
            r#"{"error":{"message":"This model's maximum context length is 65536 tokens. However, you requested 70000 tokens (66000 in the messages, 4000 in the completion).","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}"#,
            "PromptTooLong",
        ),
        (
            402,
            r#"{"error":{"message":"Insufficient Balance","type":"unknown_error","param":null,"code":"invalid_request_error"}}"#,
            "Request 402",
        ),
        // vLLM, flat body (also Mistral's shape)
        (
            400,
            r#"{"object":"error","message":"This model's maximum context length is 32768 tokens. However, you requested 40000 tokens in the messages.","type":"BadRequestError","param":null,"code":400}"#,
            "PromptTooLong",
        ),
        (
            400,
            r#"{"object":"error","message":"The decoder prompt (length 5000) is longer than the maximum model length of 4096.","type":"BadRequestError","param":null,"code":400}"#,
            "PromptTooLong",
        ),
        (
            400,
            r#"{"object":"error","message":"Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length","type":"invalid_request_error","param":null,"code":null}"#,
            "PromptTooLong",
        ),
        // llama.cpp: by type, and by the older wording
        (
            400,
            r#"{"error":{"code":400,"message":"request (9000 tokens) exceeds the available context size (8192 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9000,"n_ctx":8192}}"#,
            "PromptTooLong",
        ),
        (
            400,
            r#"{"error":{"code":400,"message":"new wording nobody predicted","type":"exceed_context_size_error"}}"#,
            "PromptTooLong",
        ),
        (
            500,
            r#"{"error":{"code":500,"message":"the request exceeds the available context size, try increasing it","type":"server_error"}}"#,
            "PromptTooLong",
        ),
        // Ollama native error shape and wordings
        (400, r#"{"error":"context length exceeded"}"#, "PromptTooLong"),
        (500, r#"{"error":"input length exceeds maximum context length"}"#, "PromptTooLong"),
        (404, r#"{"error":"model \"qwen3:8b\" not found, try pulling it first"}"#, "Request 404"),
        // Others relaying or wording it their own way
        (
            400,
            r#"{"error":{"message":"This model's maximum prompt length is 131072 but the request contains 140000 tokens.","code":"Client specified an invalid argument"}}"#,
            "PromptTooLong",
        ),
        (
            400,
            r#"{"error":{"message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).","code":400,"status":"INVALID_ARGUMENT"}}"#,
            "PromptTooLong",
        ),
        (
            400,
            r#"{"error":{"message":"The number of tokens to keep from the initial prompt is greater than the context length"}}"#,
            "PromptTooLong",
        ),
        (
            422,
            r#"{"error":"Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4097. Given: 4000 `inputs` tokens and 200 `max_new_tokens`","error_type":"validation"}"#,
            "PromptTooLong",
        ),
        (
            402,
            r#"{"error":{"message":"Insufficient credits. Add more using https://openrouter.ai/credits","code":402}}"#,
            "Request 402",
        ),
        // Status-only decisions
        (408, r#"{"error":{"message":"timeout"}}"#, "Server 408"),
        (409, r#"{"error":{"message":"conflict"}}"#, "Server 409"),
        (422, r#"{"detail":"bad field"}"#, "Request 422"),
        (
            502,
            "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>",
            "Server 502",
        ),
        (413, "<html><head><title>413 Request Entity Too Large</title></head></html>", "PromptTooLong"),
        (429, "Too Many Requests", "RateLimited"),
        (503, "", "Server 503"),
        (403, "Forbidden by proxy policy", "Auth 403"),
    ];
    for (status, body, expected) in cases {
        let error = parse_error_body(*status, body, None, "the OPENAI_API_KEY environment variable");
        assert_eq!(kind(&error), *expected, "{status} {body}\n-> {error:?}");
    }
}

#[test]
fn in_band_errors_classify_without_a_status() {
    let cases: &[(&str, &str)] = &[
        (
            r#"{"type":"error","error":{"details":null,"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}"#,
            "Overloaded",
        ),
        (r#"{"type":"error","error":{"type":"api_error","message":"Internal server error"}}"#, "Server 500"),
        (r#"{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}"#, "RateLimited"),
        (
            r#"{"error":{"message":"EngineCore encountered an issue.","type":"InternalServerError","param":null,"code":500}}"#,
            "Server 500",
        ),
        (r#"{"error":{"message":"Provider returned error","code":502}}"#, "Server 502"),
        (r#"{"error":{"message":"prompt is too long: 210000 tokens > 200000 maximum","code":400}}"#, "PromptTooLong"),
        (r#"{"error":{"message":"something odd"}}"#, "Server 500"),
        (r#"{"error":{"message":"bad key","type":"authentication_error"}}"#, "Auth 401"),
    ];
    for (json, expected) in cases {
        let value: serde_json::Value = serde_json::from_str(json).unwrap();
        assert_eq!(kind(&parse_error_value(None, &value)), *expected, "{json}");
    }
}

#[test]
fn a_validation_report_is_a_request_error_whatever_the_status() {
    let cases: &[(u16, &str, &str)] = &[
        // llama-cpp-python: pydantic's error list, str()-ed into a 500.
        (
            500,
            r#"{"error":{"message":"[{'type': 'missing', 'loc': ('body', 'messages', 2, 'content'), 'msg': 'Field required', 'input': {'role': 'assistant', 'tool_calls': []}}]","type":"internal_server_error","param":null,"code":null}}"#,
            "the server says the request itself is invalid (not retried): [{'type': 'missing', 'loc': ('body', 'messages', 2, 'content'), 'msg': 'Field required', 'input': {'role': 'assistant', 'tool_calls': []}}]",
        ),
        // FastAPI's detail list with loc/msg/type, under a 500 from a proxy that re-raised it.
        (
            500,
            r#"{"detail":[{"type":"string_type","loc":["body","messages",2,"content"],"msg":"Input should be a valid string","input":null}]}"#,
            "the server says the request itself is invalid (not retried): body.messages.2.content: Input should be a valid string",
        ),
        (
            422,
            r#"{"detail":[{"type":"missing","loc":["body","model"],"msg":"Field required"}]}"#,
            "the server says the request itself is invalid (not retried): body.model: Field required",
        ),
        // pydantic's ValidationError text.
        (
            500,
            r#"{"error":{"message":"1 validation error for ChatCompletionRequest\nmessages.2.content\n  Field required [type=missing]"}}"#,
            "the server says the request itself is invalid (not retried): 1 validation error for ChatCompletionRequest\nmessages.2.content\n  Field required [type=missing]",
        ),
    ];
    for (status, body, expected) in cases {
        let error = parse_error_body(*status, body, None, "");
        assert_eq!(error, LlmError::Request { status: *status, message: expected.to_string() }, "{body}");
        assert!(!is_retryable(&error));
    }
    // An ordinary 500 stays retryable: only the validator's report marks the request as bad.
    assert_eq!(kind(&parse_error_body(500, r#"{"error":{"message":"CUDA out of memory"}}"#, None, "")), "Server 500");
    // A detail list without locations is not a validation report.
    assert_eq!(kind(&parse_error_body(500, r#"{"detail":[{"msg":"oops"}]}"#, None, "")), "Server 500");
}

#[test]
fn every_invalid_request_signature_is_exercised_by_classify() {
    for signature in INVALID_REQUEST {
        let needle = signature.needle;
        let error = match signature.field {
            Field::Status | Field::Code => panic!("only types and messages mark a validation report"),
            Field::Type => classify(Some(500), needle, "", "x"),
            Field::Message => classify(Some(500), "", "", &format!("boom {needle} x")),
        };
        assert_eq!(kind(&error), "Request 500", "signature from {}: {needle}", signature.server);
    }
}

#[test]
fn every_prompt_too_long_signature_is_exercised_by_classify() {
    for signature in PROMPT_TOO_LONG {
        let needle = signature.needle;
        let error = match signature.field {
            Field::Status => classify(needle.parse().ok(), "", "", "x"),
            Field::Type => classify(Some(400), needle, "", "x"),
            Field::Code => classify(Some(400), "", needle, "x"),
            Field::Message => classify(Some(400), "", "", &format!("Error: {} (details)", needle.to_uppercase())),
        };
        assert_eq!(kind(&error), "PromptTooLong", "signature from {}: {needle}", signature.server);
    }
}

#[test]
fn message_prefers_error_message_then_message_then_raw_body() {
    let message = |status, body| match parse_error_body(status, body, None, "") {
        LlmError::Request { message, .. } => message,
        other => panic!("{other:?}"),
    };
    assert_eq!(message(400, r#"{"error":{"message":" inner "},"message":"outer"}"#), "inner");
    assert_eq!(message(400, r#"{"message":"outer","type":"BadRequestError"}"#), "outer");
    assert_eq!(message(400, r#"{"error":"plain"}"#), "plain");
    // FastAPI's `detail`: a string, or a list of validation errors.
    assert_eq!(message(400, r#"{"detail":"x"}"#), "x");
    assert_eq!(
        message(422, r#"{"detail":[{"loc":["body"],"msg":"field required"},{"msg":"bad"}]}"#),
        "body: field required; bad"
    );
    assert_eq!(message(400, r#"{"other":"x"}"#), r#"{"other":"x"}"#);
    assert_eq!(message(400, "  not json\n at all  "), "not json at all");
    assert_eq!(message(404, "<html><body><h1>Not Found</h1><p>nope</p></body></html>"), "Not Found nope");
    assert_eq!(message(400, ""), "HTTP 400 with an empty body");
    let long = "x".repeat(5000);
    assert_eq!(message(400, &long), format!("{}...", "x".repeat(300)));
}

#[test]
fn auth_errors_name_the_key_to_fix() {
    let error =
        parse_error_body(401, r#"{"error":{"message":"bad key"}}"#, None, "the ANTHROPIC_API_KEY environment variable");
    assert_eq!(
        error,
        LlmError::Auth {
            status: 401,
            message: "bad key".to_string(),
            fix: "check the ANTHROPIC_API_KEY environment variable".to_string()
        }
    );
    assert!(error.to_string().contains("ANTHROPIC_API_KEY"));
    let keyless = parse_error_body(403, "", None, "");
    assert!(keyless.to_string().contains("api_key"), "{keyless}");
}

#[test]
fn retry_after_is_attached_to_retryable_errors_only() {
    let wait = Some(Duration::from_secs(7));
    assert_eq!(
        parse_error_body(429, "slow down", wait, ""),
        LlmError::RateLimited { message: "slow down".to_string(), retry_after: wait }
    );
    assert_eq!(
        parse_error_body(529, "busy", wait, ""),
        LlmError::Overloaded { message: "busy".to_string(), retry_after: wait }
    );
    assert_eq!(retry_after_of(&parse_error_body(503, "x", wait, "")), wait);
    assert_eq!(retry_after_of(&parse_error_body(400, "x", wait, "")), None);
}

#[test]
fn retry_after_headers_parse_seconds_and_milliseconds() {
    let cases: &[(Option<&str>, Option<&str>, Option<Duration>)] = &[
        (Some("5"), None, Some(Duration::from_secs(5))),
        (Some(" 2 "), None, Some(Duration::from_secs(2))),
        (Some("1.5"), None, Some(Duration::from_millis(1500))),
        (Some("5"), Some("250"), Some(Duration::from_millis(250))),
        (None, Some("20.5"), Some(Duration::from_micros(20500))),
        (Some("Wed, 21 Oct 2015 07:28:00 GMT"), None, None),
        (Some("-1"), None, None),
        (Some("x"), Some("y"), None),
        (Some("3"), Some("bogus"), Some(Duration::from_secs(3))),
        (None, None, None),
    ];
    for (seconds, millis, expected) in cases {
        assert_eq!(parse_retry_after(*seconds, *millis), *expected, "{seconds:?} {millis:?}");
    }
}

#[test]
fn retryable_variants() {
    let cases = [
        (LlmError::PromptTooLong { message: String::new() }, false),
        (LlmError::RateLimited { message: String::new(), retry_after: None }, true),
        (LlmError::Overloaded { message: String::new(), retry_after: None }, true),
        (LlmError::Server { status: 500, message: String::new(), retry_after: None }, true),
        (LlmError::Auth { status: 401, message: String::new(), fix: String::new() }, false),
        (LlmError::Request { status: 400, message: String::new() }, false),
        (LlmError::Network { message: String::new() }, true),
        (LlmError::Refused { message: String::new() }, false),
        (LlmError::Protocol { message: String::new() }, true),
        (LlmError::Cancelled, false),
    ];
    for (error, expected) in cases {
        assert_eq!(is_retryable(&error), expected, "{error:?}");
    }
}

#[test]
fn every_error_has_a_stable_kind_and_the_fix_it_knows() {
    let after = Some(Duration::from_secs(1));
    let auth = LlmError::Auth { status: 401, message: "bad key".into(), fix: "check ANTHROPIC_API_KEY".into() };
    let cases: Vec<(LlmError, &str, bool, Option<&str>)> = vec![
        (auth, "auth", false, Some("check ANTHROPIC_API_KEY")),
        (LlmError::RateLimited { message: "slow".into(), retry_after: after }, "rate_limit", true, Some("wait")),
        (LlmError::Overloaded { message: "busy".into(), retry_after: None }, "overloaded", true, Some("busy")),
        (LlmError::PromptTooLong { message: "big".into() }, "prompt_too_long", false, Some("send less")),
        (LlmError::Server { status: 503, message: "down".into(), retry_after: None }, "server", true, None),
        (LlmError::Request { status: 400, message: "bad".into() }, "request", false, None),
        (LlmError::Network { message: "refused".into() }, "network", true, Some("base_url")),
        (LlmError::Refused { message: "refused".into() }, "network", false, Some("start the local server")),
        (LlmError::Protocol { message: "bad chunk".into() }, "protocol", true, None),
        (LlmError::Cancelled, "cancelled", false, None),
    ];
    for (error, kind, retryable, fix) in cases {
        assert_eq!((error.kind().as_str(), is_retryable(&error)), (kind, retryable), "{error:?}");
        match (error.fix(), fix) {
            (None, None) => {}
            (Some(text), Some(part)) => assert!(text.contains(part), "{kind}: {text}"),
            (got, want) => panic!("{kind}: fix {got:?}, expected one containing {want:?}"),
        }
    }
}

#[test]
fn an_llm_error_stays_small() {
    // It travels inside `StreamEvent::Error` and up through the agent's events.
    assert!(std::mem::size_of::<LlmError>() <= 56, "{}", std::mem::size_of::<LlmError>());
}
