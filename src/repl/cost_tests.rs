//! Tests of `/cost`: estimated figures marked, known models priced, the process total after `/clear`.

use super::*;
use crate::config::price::price_for;

#[test]
fn cost_marks_estimated_figures_and_prices_known_models() {
    let usage = Usage { input_tokens: 1_200, output_tokens: 30, cache_write: 0, cache_read: 0 };
    let local = Cost { usage: &usage, estimated: false, model: "qwen3", price: None, separator: " · " };
    assert_eq!(
        render_cost(&local, &Spent::default()),
        "this session: 1200 input · 30 output · 0 cache write · 0 cache read (0% of prompt tokens from cache)\n  \
         no price known for qwen3: set price: {input: N, output: N} (USD per million tokens) on the provider"
    );
    let estimated = Cost { estimated: true, model: "m", price: Some(Price::new(3.0, 15.0)), ..local };
    assert_eq!(
        render_cost(&estimated, &Spent::default()),
        "this session: ~1200 input · ~30 output · 0 cache write · 0 cache read (0% of prompt tokens from cache)\n  \
         about $0.0040 at m prices (USD per million tokens: 3 input, 15 output, 3.75 cache write, 0.3 cache read)\n  \
         ~ estimated from characters (3.5 per token): the server sent no usage for some responses"
    );
}

#[test]
fn cost_after_clear_is_the_new_sessions_with_the_process_total_below() {
    let earlier = Spent {
        usage: Usage { input_tokens: 1_000_000, output_tokens: 0, cache_write: 0, cache_read: 0 },
        estimated: false,
        cost: Some(3.0),
        sessions: 1,
    };
    let usage = Usage { input_tokens: 10, output_tokens: 2, cache_write: 0, cache_read: 0 };
    let cost = Cost {
        usage: &usage,
        estimated: false,
        model: "claude-sonnet-4-5",
        price: price_for(None, "claude-sonnet-4-5"),
        separator: " | ",
    };
    let text = render_cost(&cost, &earlier);
    assert!(text.starts_with("this session: 10 input | 2 output |"), "{text}");
    assert!(
        text.ends_with(
            "\nsince mewcode started (2 sessions): 1000010 input | 2 output | 0 cache write | 0 cache read, about $3.00"
        ),
        "{text}"
    );
}

#[test]
fn a_session_without_a_price_leaves_the_total_without_a_cost() {
    let usage = Usage { input_tokens: 10, output_tokens: 2, cache_write: 0, cache_read: 0 };
    let mut spent = Spent::default();
    spent.add(&usage, false, Some(1.0));
    spent.add(&usage, true, Some(2.0));
    assert_eq!(
        spent,
        Spent {
            usage: Usage { input_tokens: 20, output_tokens: 4, ..usage },
            estimated: true,
            cost: Some(3.0),
            sessions: 2
        }
    );
    spent.add(&usage, false, None);
    spent.add(&usage, false, Some(1.0));
    assert_eq!((spent.cost, spent.sessions), (None, 4));
}
