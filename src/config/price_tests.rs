//! Unit tests of `price.rs`: the built-in table's lookup and the cost of a turn's tokens.

use super::*;

#[test]
fn the_longest_prefix_of_the_table_wins_and_unknown_models_have_no_price() {
    assert_eq!(builtin_price("claude-sonnet-4-5-20250929").map(|price| price.input), Some(3.0));
    assert_eq!(builtin_price("anthropic/claude-opus-4-5").map(|price| price.output), Some(25.0));
    assert_eq!(builtin_price("claude-opus-4-1").map(|price| price.output), Some(75.0));
    assert_eq!(builtin_price("gpt-4o-mini-2024-07-18").map(|price| price.input), Some(0.15));
    assert_eq!(builtin_price("gpt-4o").map(|price| price.input), Some(2.5));
    assert_eq!(builtin_price("qwen2.5-coder:7b"), None);
    assert_eq!(price_for(Some(Price::new(1.0, 2.0)), "gpt-4o"), Some(Price::new(1.0, 2.0)));
}

#[test]
fn cost_adds_every_kind_of_token() {
    let usage = Usage { input_tokens: 1_000_000, output_tokens: 100_000, cache_write: 200_000, cache_read: 1_000_000 };
    let cost = Price::new(3.0, 15.0).cost(&usage);
    assert!((cost - (3.0 + 1.5 + 0.75 + 0.3)).abs() < 1e-9, "{cost}");
}
