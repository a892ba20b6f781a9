//! Tests of calibration.rs: what a server's counts teach, and the counts read from the "too
//! long" errors of each server that says one.

use super::*;

const M: &str = "llamacpp/smollm2";

#[test]
fn without_a_count_the_fixed_part_is_its_characters() {
    let calibration = Calibration::default();
    assert_eq!(calibration.fixed(M, 1_900), 1_900);
}

#[test]
fn a_count_leaves_the_fixed_part_what_the_messages_did_not_take() {
    let mut calibration = Calibration::default();
    // 3 500 characters of messages are 1 000 tokens; the server counted 1 400 in all, so the
    // system prompt and tools it read were 400 tokens, not the 1 900 their characters say.
    calibration.learn(M, 1_400, 3_500, 6_650);
    assert_eq!(calibration.fixed(M, 1_900), 400);
    // A request with fewer tools than the one counted is never counted above its characters.
    assert_eq!(calibration.fixed(M, 300), 300);
}

#[test]
fn a_count_never_makes_the_fixed_part_larger_than_its_characters() {
    let mut calibration = Calibration::default();
    calibration.learn(M, 5_000, 350, 3_500);
    assert_eq!(calibration.fixed(M, 1_000), 1_000);
}

#[test]
fn a_count_below_the_messages_estimate_leaves_no_fixed_part() {
    let mut calibration = Calibration::default();
    calibration.learn(M, 900, 3_500, 3_500);
    assert_eq!(calibration.fixed(M, 1_000), 0);
}

#[test]
fn a_tiny_count_teaches_nothing() {
    let mut calibration = Calibration::default();
    calibration.learn(M, MIN_REPORTED - 1, 0, 3_500);
    assert_eq!(calibration.fixed(M, 1_000), 1_000);
    calibration.learn(M, MIN_REPORTED, 0, 3_500);
    assert_eq!(calibration.fixed(M, 1_000), MIN_REPORTED);
}

#[test]
fn another_models_count_does_not_apply() {
    let mut calibration = Calibration::default();
    calibration.learn(M, 1_400, 3_500, 6_650);
    assert_eq!(calibration.fixed("anthropic/claude", 1_900), 1_900);
    calibration.learn("anthropic/claude", 3_000, 3_500, 6_650);
    assert_eq!(calibration.fixed("anthropic/claude", 1_900), 1_900);
    assert_eq!(calibration.fixed(M, 1_900), 1_900);
}

#[test]
fn the_latest_count_wins() {
    let mut calibration = Calibration::default();
    calibration.learn(M, 1_400, 3_500, 6_650);
    calibration.learn(M, 1_700, 3_500, 6_650);
    assert_eq!(calibration.fixed(M, 1_900), 700);
}

#[test]
fn each_servers_too_long_error_names_the_prompt() {
    let cases = [
        ("Requested tokens (5123) exceed context window of 4096", 5123),
        ("request (5124 tokens) exceeds the available context size (4096 tokens), try increasing it", 5124),
        (
            "This model's maximum context length is 4096 tokens. However, you requested 6125 tokens (5125 in the \
             messages, 1000 in the completion). Please reduce the length of the messages or completion.",
            5125,
        ),
        (
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 130126 tokens.",
            130_126,
        ),
        ("prompt is too long: 210127 tokens > 200000 maximum", 210_127),
        ("PROMPT IS TOO LONG: 7 tokens > 5 maximum", 7),
    ];
    for (message, tokens) in cases {
        assert_eq!(prompt_tokens_in_error(message), Some(tokens), "{message}");
    }
}

#[test]
fn an_error_without_a_count_names_none() {
    for message in [
        "the request exceeds the available context size, try increasing it",
        "context length exceeded",
        "maximum context length is 4096 tokens",
        "",
        "Requested tokens (lots) exceed context window",
    ] {
        assert_eq!(prompt_tokens_in_error(message), None, "{message}");
    }
}
