//! What a model's tokens cost, for `/cost`: a small built-in table by model name, which a
//! provider's `price: {input: 3.0, output: 15.0}` (USD per million tokens) overrides.
//!
//! Invariant: an estimate only, never a bill. A model that is not in the table and has no
//! configured price has no cost shown (`None`), rather than a guessed one; figures are the list
//! prices of the vendors' public pages at the time of writing, without batch or regional rates.

use crate::msg::Usage;

/// USD per million tokens of each kind.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Price {
    pub input: f64,
    pub output: f64,
    /// Writing the prompt cache (Anthropic); configured entries default to 1.25 × input.
    pub cache_write: f64,
    /// Reading the prompt cache; configured entries default to 0.1 × input.
    pub cache_read: f64,
}

impl Price {
    /// A price with the default cache rates (`cache_write` 1.25 × input, `cache_read` 0.1 × input,
    /// Anthropic's multipliers; OpenAI's cached input costs 0.25–0.5 × input).
    pub(crate) fn new(input: f64, output: f64) -> Price {
        Price { input, output, cache_write: input * 5.0 / 4.0, cache_read: input / 10.0 }
    }

    /// The cost of `usage` in USD.
    pub(crate) fn cost(&self, usage: &Usage) -> f64 {
        let per_token = |tokens: u64, usd_per_million: f64| tokens as f64 * usd_per_million / 1_000_000.0;
        per_token(usage.input_tokens, self.input)
            + per_token(usage.output_tokens, self.output)
            + per_token(usage.cache_write, self.cache_write)
            + per_token(usage.cache_read, self.cache_read)
    }
}

/// (model name prefix, input, output, cache write, cache read), USD per million tokens. The
/// longest matching prefix wins (`gpt-4o-mini` before `gpt-4o`).
const TABLE: &[(&str, f64, f64, f64, f64)] = &[
    ("claude-opus-4-5", 5.0, 25.0, 6.25, 0.5),
    ("claude-opus-4", 15.0, 75.0, 18.75, 1.5),
    ("claude-sonnet-4", 3.0, 15.0, 3.75, 0.3),
    ("claude-3-7-sonnet", 3.0, 15.0, 3.75, 0.3),
    ("claude-3-5-sonnet", 3.0, 15.0, 3.75, 0.3),
    ("claude-haiku-4-5", 1.0, 5.0, 1.25, 0.1),
    ("claude-3-5-haiku", 0.8, 4.0, 1.0, 0.08),
    ("gpt-5", 1.25, 10.0, 0.0, 0.125),
    ("gpt-5-mini", 0.25, 2.0, 0.0, 0.025),
    ("gpt-5-nano", 0.05, 0.4, 0.0, 0.005),
    ("gpt-4.1", 2.0, 8.0, 0.0, 0.5),
    ("gpt-4.1-mini", 0.4, 1.6, 0.0, 0.1),
    ("gpt-4.1-nano", 0.1, 0.4, 0.0, 0.025),
    ("gpt-4o", 2.5, 10.0, 0.0, 1.25),
    ("gpt-4o-mini", 0.15, 0.6, 0.0, 0.075),
    ("o3", 2.0, 8.0, 0.0, 0.5),
    ("o3-mini", 1.1, 4.4, 0.0, 0.55),
    ("o4-mini", 1.1, 4.4, 0.0, 0.275),
];

/// The built-in price of `model`, if the table knows it. A router's vendor prefix
/// (`anthropic/claude-sonnet-4-5`) is ignored.
fn builtin_price(model: &str) -> Option<Price> {
    let name = model.rsplit('/').next().unwrap_or(model).to_ascii_lowercase();
    TABLE
        .iter()
        .filter(|(prefix, ..)| name.starts_with(prefix))
        .max_by_key(|(prefix, ..)| prefix.len())
        .map(|&(_, input, output, cache_write, cache_read)| Price { input, output, cache_write, cache_read })
}

/// The price `/cost` uses: the provider's configured one, else the table's.
pub(crate) fn price_for(configured: Option<Price>, model: &str) -> Option<Price> {
    configured.or_else(|| builtin_price(model))
}

#[cfg(test)]
#[path = "price_tests.rs"]
mod tests;
