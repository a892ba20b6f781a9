//! Counting tokens with the server's own tokenizer, for OpenAI-compatible servers of one's own
//! that stream no usage (llama-cpp-python sends none): llama-cpp-python's
//! `POST /extras/tokenize/count` and llama.cpp's `POST /tokenize`. The count is of the text
//! mewcode sends, not of the prompt the server's chat template makes of it, so it is an
//! estimate still — but one with the model's own tokenizer instead of 3.5 characters a token,
//! which for English on a small model's tokenizer is off by 40 % or more.
//!
//! Invariant: asked only when the response had no usage, and never of the public OpenAI
//! endpoint or an Anthropic one; which endpoint answers is found on the first use and
//! remembered, so a server without either costs one pair of 404s per process, then nothing.
//! Each request is bounded (`TIMEOUT`); a failure only means "not counted" and never fails a run.
//! The parsers are pure.

use crate::config::ProviderConfig;
use crate::http::net::NetEnv;
use crate::llm::discovery::server_root;
use serde_json::Value;
use std::sync::Mutex;
use std::time::Duration;

/// How long one count may take: a local tokenizer answers in milliseconds.
const TIMEOUT: Duration = Duration::from_secs(2);

/// A tokenizer endpoint a server offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Endpoint {
    /// llama-cpp-python: `{"input": text}` -> `{"count": n}`.
    ExtrasCount,
    /// llama.cpp's server: `{"content": text}` -> `{"tokens": [...]}`.
    Tokenize,
}

const ENDPOINTS: [Endpoint; 2] = [Endpoint::ExtrasCount, Endpoint::Tokenize];

impl Endpoint {
    fn path(self) -> &'static str {
        match self {
            Endpoint::ExtrasCount => "/extras/tokenize/count",
            Endpoint::Tokenize => "/tokenize",
        }
    }

    fn body(self, text: &str) -> String {
        match self {
            Endpoint::ExtrasCount => serde_json::json!({ "input": text }).to_string(),
            Endpoint::Tokenize => serde_json::json!({ "content": text }).to_string(),
        }
    }

    /// The count in an answer's body, if it is one.
    fn parse(self, body: &str) -> Option<u64> {
        let value: Value = serde_json::from_str(body).ok()?;
        match self {
            Endpoint::ExtrasCount => value.get("count")?.as_u64(),
            Endpoint::Tokenize => Some(value.get("tokens")?.as_array()?.len() as u64),
        }
    }
}

/// What is known of a server's tokenizer endpoints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Known {
    NotAsked,
    Answers(Endpoint),
    None,
}

/// A server's tokenizer, as far as it has one.
pub(crate) struct Tokenizer {
    agent: ureq::Agent,
    root: String,
    bearer: Option<String>,
    known: Mutex<Known>,
}

impl Tokenizer {
    /// The tokenizer of `provider`'s server, when it is an OpenAI-compatible server of one's own
    /// (never the public endpoint, never Anthropic) and its transport can be built.
    pub(crate) fn for_provider(provider: &ProviderConfig, net: &NetEnv) -> Option<Tokenizer> {
        if !provider.is_own_openai_server() {
            return None;
        }
        Some(Tokenizer {
            agent: super::http::one_off_agent(provider, net, TIMEOUT).ok()?,
            root: server_root(&provider.base_url),
            bearer: (!provider.api_key.is_empty()).then(|| format!("Bearer {}", provider.api_key)),
            known: Mutex::new(Known::NotAsked),
        })
    }

    /// The server's token count of `text`; None when it has no tokenizer endpoint or it failed.
    pub(crate) fn count(&self, text: &str) -> Option<u64> {
        let known = *crate::sync::lock(&self.known);
        match known {
            Known::None => None,
            Known::Answers(endpoint) => self.ask(endpoint, text),
            Known::NotAsked => {
                let found = ENDPOINTS.iter().find_map(|endpoint| Some((*endpoint, self.ask(*endpoint, text)?)));
                *crate::sync::lock(&self.known) = found.map_or(Known::None, |(endpoint, _)| Known::Answers(endpoint));
                found.map(|(_, count)| count)
            }
        }
    }

    fn ask(&self, endpoint: Endpoint, text: &str) -> Option<u64> {
        let url = format!("{}{}", self.root, endpoint.path());
        let mut request = self.agent.post(&url).config().timeout_global(Some(TIMEOUT)).build();
        if let Some(bearer) = &self.bearer {
            request = request.header("authorization", bearer);
        }
        let mut response = request.header("content-type", "application/json").send(endpoint.body(text)).ok()?;
        if response.status().as_u16() != 200 {
            return None;
        }
        let body = response.body_mut().with_config().limit(1 << 24).read_to_string().ok()?;
        endpoint.parse(&body)
    }
}

#[cfg(test)]
#[path = "tokenize_tests.rs"]
mod tests;
