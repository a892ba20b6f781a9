//! `/cost`: the tokens of the session on screen and, when the model's price is known, what they
//! cost; after `/clear` or `/resume`, the total since mewcode started.
//!
//! Invariant: a figure estimated from characters (the server sent no usage) is marked `~`
//! wherever it shows, and a total that includes a session without a known price has no cost.
//! Pure: this file counts and renders; the REPL says the text.

use crate::config::price::Price;
use crate::msg::Usage;
use crate::text::neutralize;

/// Tokens and cost of sessions already left.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Spent {
    pub usage: Usage,
    pub estimated: bool,
    /// USD; `None` once a session used a model without a known price.
    pub cost: Option<f64>,
    /// Sessions counted.
    pub sessions: usize,
}

impl Spent {
    /// Counts one more session left: its usage, whether some was estimated, and its cost
    /// (`None`: its model has no known price, so the total has none either).
    pub(crate) fn add(&mut self, usage: &Usage, estimated: bool, cost: Option<f64>) {
        let first = self.sessions == 0;
        self.usage.add(usage);
        self.estimated |= estimated;
        self.cost = match (first, self.cost, cost) {
            (true, _, cost) => cost,
            (false, Some(before), Some(cost)) => Some(before + cost),
            (false, None, _) | (false, _, None) => None,
        };
        self.sessions += 1;
    }
}

/// What `/cost` reports on: this session's usage and the price of the model in use.
pub(crate) struct Cost<'a> {
    pub usage: &'a Usage,
    /// Some of `usage` was estimated from characters.
    pub estimated: bool,
    pub model: &'a str,
    /// `config::price::price_for` the provider in use.
    pub price: Option<Price>,
    /// Between the figures of a line (`glyphs.separator`).
    pub separator: &'a str,
}

/// `/cost`: the session's tokens and, when the model's price is known, what they cost; `~` and a
/// note when some were estimated from characters because the server sent no usage; and, after
/// `/clear` or `/resume`, the total since mewcode started.
pub(crate) fn render_cost(cost: &Cost, earlier: &Spent) -> String {
    let usage = cost.usage;
    let prompt_tokens = usage.input_tokens + usage.cache_write + usage.cache_read;
    let hit_rate = (usage.cache_read * 100).checked_div(prompt_tokens).unwrap_or(0);
    let mark = if cost.estimated { "~" } else { "" };
    let separator = cost.separator;
    let mut text = format!(
        "this session: {mark}{} input{separator}{mark}{} output{separator}{} cache write{separator}{} cache read \
         ({hit_rate}% of prompt tokens from cache)",
        usage.input_tokens, usage.output_tokens, usage.cache_write, usage.cache_read
    );
    let model = neutralize(cost.model);
    let session_cost = cost.price.map(|price| price.cost(usage));
    match (cost.price, session_cost) {
        (Some(price), Some(usd)) => text.push_str(&format!(
            "\n  about {} at {model} prices (USD per million tokens: {} input, {} output, {} cache write, {} cache read)",
            format_usd(usd),
            format_rate(price.input),
            format_rate(price.output),
            format_rate(price.cache_write),
            format_rate(price.cache_read)
        )),
        (None, _) | (_, None) => text.push_str(&format!(
            "\n  no price known for {model}: set price: {{input: N, output: N}} (USD per million tokens) on the provider"
        )),
    }
    if cost.estimated {
        text.push_str("\n  ~ estimated from characters (3.5 per token): the server sent no usage for some responses");
    }
    if earlier.sessions > 0 {
        let mut total = earlier.usage;
        total.add(usage);
        let mark = if cost.estimated || earlier.estimated { "~" } else { "" };
        let usd = match (earlier.cost, session_cost) {
            (Some(before), Some(now)) => format!(", about {}", format_usd(before + now)),
            (Some(_) | None, _) => String::new(),
        };
        text.push_str(&format!(
            "\nsince mewcode started ({} sessions): {mark}{} input{separator}{mark}{} output{separator}{} cache write\
             {separator}{} cache read{usd}",
            earlier.sessions + 1,
            total.input_tokens,
            total.output_tokens,
            total.cache_write,
            total.cache_read
        ));
    }
    text
}

/// A rate as configured: `3`, `0.3`, `0.075` (at most 4 decimals, no float noise).
fn format_rate(usd_per_million: f64) -> String {
    let text = format!("{usd_per_million:.4}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// `$0.0042` under a cent, `$1.23` above.
fn format_usd(usd: f64) -> String {
    if usd < 0.01 { format!("${usd:.4}") } else { format!("${usd:.2}") }
}

#[cfg(test)]
#[path = "cost_tests.rs"]
mod tests;
