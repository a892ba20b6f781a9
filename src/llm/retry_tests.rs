//! Unit tests of `retry.rs`: the retry plan for each error and attempt, and the capped backoff.

use super::*;

fn server() -> LlmError {
    LlmError::Server { status: 503, message: String::new(), retry_after: None }
}

fn state(attempt: u32, restarts: u32, had_output: bool) -> AttemptState {
    AttemptState { attempt, restarts, had_output }
}

fn millis(value: u64) -> RetryDecision {
    RetryDecision::Retry(Duration::from_millis(value))
}

#[test]
fn plan_retry_cases() {
    let policy = RetryPolicy::default();
    let network = LlmError::Network { message: String::new() };
    let rate_limited =
        |seconds| LlmError::RateLimited { message: String::new(), retry_after: Some(Duration::from_secs(seconds)) };
    let cases: Vec<(&str, LlmError, AttemptState, f64, RetryDecision)> = vec![
        ("first failure, no jitter: half the base", server(), state(1, 0, false), 0.0, millis(500)),
        ("first failure, full jitter: the base", server(), state(1, 0, false), 1.0, millis(1000)),
        ("second failure doubles", network.clone(), state(2, 0, false), 1.0, millis(2000)),
        ("third failure doubles again", network.clone(), state(3, 0, false), 0.5, millis(3000)),
        ("fourth attempt failing is the last", network.clone(), state(4, 0, false), 1.0, RetryDecision::GiveUp),
        ("retry-after wins over backoff", rate_limited(7), state(1, 0, false), 0.0, millis(7000)),
        ("retry-after is capped", rate_limited(600), state(1, 0, false), 0.0, millis(60_000)),
        ("after output: first restart", server(), state(1, 0, true), 1.0, millis(1000)),
        ("after output: second restart", server(), state(2, 1, true), 1.0, millis(2000)),
        ("after output: no third restart", server(), state(3, 2, true), 1.0, RetryDecision::GiveUp),
        ("restarts do not eat the pre-output budget", server(), state(4, 1, false), 1.0, millis(8000)),
        ("pre-output budget still ends", server(), state(5, 1, false), 1.0, RetryDecision::GiveUp),
        ("bad jitter is clamped", server(), state(1, 0, false), f64::NAN, millis(500)),
        ("jitter above one is clamped", server(), state(1, 0, false), 9.0, millis(1000)),
    ];
    for (name, error, state, jitter, expected) in cases {
        assert_eq!(plan_retry(&policy, &error, state, jitter), expected, "{name}");
    }
}

#[test]
fn non_retryable_errors_give_up_at_once() {
    let policy = RetryPolicy::default();
    for error in [
        LlmError::PromptTooLong { message: String::new() },
        LlmError::Auth { status: 401, message: String::new(), fix: String::new() },
        LlmError::Request { status: 400, message: String::new() },
        LlmError::Cancelled,
    ] {
        assert_eq!(plan_retry(&policy, &error, state(1, 0, false), 0.5), RetryDecision::GiveUp, "{error:?}");
    }
}

#[test]
fn retry_notice_says_what_happened_and_when() {
    let rate_limited = LlmError::RateLimited { message: "slow down".into(), retry_after: None };
    let cases: Vec<(LlmError, Duration, &str)> = vec![
        (rate_limited, Duration::from_secs(5), "rate limited (429), retrying in 5 s (attempt 2 of 4)"),
        (server(), Duration::from_millis(1500), "server error (503), retrying in 1.5 s (attempt 2 of 4)"),
        (
            LlmError::Network { message: "reset".into() },
            Duration::from_millis(250),
            "network error, retrying in 250 ms (attempt 2 of 4)",
        ),
    ];
    for (error, delay, expected) in cases {
        assert_eq!(RetryNotice::new(&error, 2, 4, delay).describe(), expected);
    }
    let notice = RetryNotice::new(&server(), 3, 4, Duration::ZERO);
    assert_eq!((notice.status, notice.reason.as_str()), (Some(503), "server error 503: "));
}

#[test]
fn backoff_is_capped() {
    let policy = RetryPolicy { max_attempts_before_output: 100, ..RetryPolicy::default() };
    assert_eq!(plan_retry(&policy, &server(), state(40, 0, false), 1.0), millis(30_000));
}
