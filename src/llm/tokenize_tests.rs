//! Unit tests of `tokenize.rs`: each server's endpoint, the answer remembered, a server without
//! one asked once, and the providers never asked.

use super::*;
use crate::config::Protocol;
use crate::llm::test_server::routes::{RouteServer, json};

fn provider(base_url: &str) -> ProviderConfig {
    ProviderConfig { base_url: base_url.to_string(), ..ProviderConfig::with_defaults("local", Protocol::OpenAi, "m") }
}

fn tokenizer(server: &RouteServer) -> Tokenizer {
    Tokenizer::for_provider(&provider(&format!("{}/v1", server.root)), &NetEnv::default()).unwrap()
}

#[test]
fn llama_cpp_pythons_count_is_read_and_its_endpoint_remembered() {
    let server = RouteServer::start(vec![json("POST", "/extras/tokenize/count", r#"{"count":18}"#)]);
    let tokenizer = tokenizer(&server);
    assert_eq!(tokenizer.count("The quick brown fox"), Some(18));
    assert_eq!(tokenizer.count("again"), Some(18));
    let received = server.received();
    assert_eq!(received.len(), 2, "{received:?}");
    assert!(received.iter().all(|line| line.starts_with("POST /extras/tokenize/count ")), "{received:?}");
    assert!(received[0].ends_with(r#"{"input":"The quick brown fox"}"#), "{received:?}");
}

#[test]
fn llama_cpps_tokens_are_counted() {
    let server = RouteServer::start(vec![json("POST", "/tokenize", r#"{"tokens":[1,2,3,4,5]}"#)]);
    let tokenizer = tokenizer(&server);
    assert_eq!(tokenizer.count("hello"), Some(5));
    assert_eq!(tokenizer.count("hello"), Some(5));
    let received = server.received();
    // The first count tried llama-cpp-python's endpoint (a 404), then llama.cpp's; the second
    // went straight to llama.cpp's.
    assert_eq!(received.len(), 3, "{received:?}");
    assert!(received[2].starts_with("POST /tokenize ") && received[2].ends_with(r#"{"content":"hello"}"#));
}

#[test]
fn a_server_without_a_tokenizer_is_asked_once() {
    let server = RouteServer::start(Vec::new());
    let tokenizer = tokenizer(&server);
    assert_eq!(tokenizer.count("a"), None);
    assert_eq!(tokenizer.count("b"), None);
    assert_eq!(server.received().len(), 2, "two 404s, then nothing");
}

#[test]
fn an_answer_that_is_not_a_count_counts_nothing() {
    for body in [r#"{"count":"many"}"#, r#"{"tokens":7}"#, "not json", r#"{"count":-1}"#] {
        assert_eq!(Endpoint::ExtrasCount.parse(body), None, "{body}");
        assert_eq!(Endpoint::Tokenize.parse(body), None, "{body}");
    }
    assert_eq!(Endpoint::Tokenize.parse(r#"{"tokens":[]}"#), Some(0));
}

#[test]
fn the_public_endpoint_and_anthropic_are_never_asked() {
    let public = ProviderConfig::with_defaults("openai", Protocol::OpenAi, "gpt");
    assert!(Tokenizer::for_provider(&public, &NetEnv::default()).is_none());
    let anthropic = ProviderConfig {
        base_url: "http://127.0.0.1:9/".to_string(),
        ..ProviderConfig::with_defaults("claude", Protocol::Anthropic, "claude")
    };
    assert!(Tokenizer::for_provider(&anthropic, &NetEnv::default()).is_none());
}
