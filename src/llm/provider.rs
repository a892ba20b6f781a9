//! The thin providers: wire a protocol's pure encoder and decoder to the HTTP transport and the
//! streaming producer. This is all that differs between Anthropic and OpenAI at run time.
//!
//! Invariant: no protocol logic here — only URLs, headers (built-in, then the configured ones)
//! and which encoder/decoder to use.

use super::http::HttpClient;
use super::retry::RetryPolicy;
use super::settings::merge_headers;
use super::stream::{Fallback, HttpCall, spawn_stream};
use super::text_calls::ToolNames;
use super::tokenize::Tokenizer;
use super::{LlmError, Provider, StreamEvent, anthropic, openai};
use crate::cancel::CancelToken;
use crate::config::{Protocol, ProviderConfig};
use crate::http::net::NetEnv;
use crate::msg::Request;
use crossbeam_channel::Receiver;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The Anthropic API version header every request carries.
const ANTHROPIC_VERSION: &str = "2023-06-01";

/// A configured model endpoint speaking one of the two protocols.
struct HttpProvider {
    config: ProviderConfig,
    client: HttpClient,
    policy: RetryPolicy,
    /// Seeds the ids synthesised for OpenAI tool calls that arrive without one.
    calls: AtomicU64,
    /// The server's tokenizer endpoints, for an OpenAI-compatible server of one's own.
    tokenizer: Option<Tokenizer>,
}

/// Builds the provider for a config entry (TLS roots and proxy settings resolved now, so a bad
/// `ca_file` is reported at start-up rather than on the first request).
pub(crate) fn connect(config: &ProviderConfig, net: &NetEnv) -> Result<Arc<dyn Provider>, LlmError> {
    let client = HttpClient::for_provider(config, net)?;
    Ok(Arc::new(HttpProvider {
        config: config.clone(),
        client,
        policy: RetryPolicy::default(),
        calls: AtomicU64::new(0),
        tokenizer: Tokenizer::for_provider(config, net),
    }))
}

impl HttpProvider {
    fn prepare(&self, request: &Request) -> HttpCall {
        let mut headers = vec![("accept".to_string(), "text/event-stream".to_string())];
        match self.config.protocol {
            Protocol::Anthropic => {
                headers.push(("anthropic-version".to_string(), ANTHROPIC_VERSION.to_string()));
                if !self.config.api_key.is_empty() {
                    headers.push(("x-api-key".to_string(), self.config.api_key.clone()));
                } else if !self.config.auth_token.is_empty() {
                    headers.push(("authorization".to_string(), format!("Bearer {}", self.config.auth_token)));
                }
                let body = anthropic::encode_request(request, &self.config);
                HttpCall {
                    url: format!("{}/v1/messages", self.config.base_url),
                    headers: merge_headers(headers, &self.config.request.headers),
                    body: Arc::new(body),
                    fallback: None,
                }
            }
            Protocol::OpenAi => {
                if !self.config.api_key.is_empty() {
                    headers.push(("authorization".to_string(), format!("Bearer {}", self.config.api_key)));
                }
                // Some servers reject stream_options; the producer switches once to the body
                // without that entry.
                let (body, cut) = openai::encode_request_with_fallback(request, &self.config);
                let fallback = cut.map(|cut| Fallback { cut, trigger: "stream_options".to_string() });
                HttpCall {
                    url: format!("{}/chat/completions", self.config.base_url),
                    headers: merge_headers(headers, &self.config.request.headers),
                    body: Arc::new(body),
                    fallback,
                }
            }
        }
    }
}

impl Provider for HttpProvider {
    fn name(&self) -> &str {
        &self.config.name
    }

    fn model(&self) -> &str {
        &self.config.model
    }

    fn stream(&self, request: Request, cancel: CancelToken) -> Receiver<StreamEvent> {
        let call = self.prepare(&request);
        let client = self.client.clone();
        let policy = self.policy.clone();
        match self.config.protocol {
            Protocol::Anthropic => spawn_stream(
                &self.config.name,
                client,
                call,
                || Box::new(anthropic::AnthropicDecoder::new()),
                policy,
                cancel,
            ),
            Protocol::OpenAi => {
                let seed = self.calls.fetch_add(1, Ordering::Relaxed) ^ clock_seed();
                let attempt = AtomicU64::new(0);
                // Only the tools offered in this request can be recovered from text.
                let tools = self.config.text_tool_calls.then(|| ToolNames::from_definitions(&request.tools));
                let make = move || {
                    let salt = attempt.fetch_add(1, Ordering::Relaxed).wrapping_mul(0x9e37_79b9_7f4a_7c15);
                    let decoder = openai::OpenAiDecoder::new(seed ^ salt).with_text_tool_calls(tools.clone());
                    Box::new(decoder) as Box<dyn super::decode::Decoder>
                };
                spawn_stream(&self.config.name, client, call, make, policy, cancel)
            }
        }
    }

    fn count_tokens(&self, text: &dyn Fn() -> String) -> Option<u64> {
        self.tokenizer.as_ref()?.count(&text())
    }
}

/// Nanoseconds of the wall clock: only used to make synthesised tool-call ids differ between runs.
fn clock_seed() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |elapsed| elapsed.as_nanos() as u64)
}
