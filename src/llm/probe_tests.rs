//! Unit tests of `probe.rs`: both model-list shapes, a local server found, closed ports skipped.

use super::*;
use crate::llm::test_server::routes::{RouteServer, json};

#[test]
fn model_ids_from_both_list_shapes() {
    assert_eq!(
        parse_model_ids(r#"{"object":"list","data":[{"id":"qwen2.5-coder:7b"},{"id":"b"}]}"#),
        ["qwen2.5-coder:7b", "b"]
    );
    assert_eq!(parse_model_ids(r#"{"models":[{"name":"llama3"}]}"#), ["llama3"]);
    assert!(parse_model_ids("not json").is_empty());
    assert!(parse_model_ids(r#"{"data":[]}"#).is_empty());
}

#[test]
fn probe_finds_a_server_and_skips_a_closed_port() {
    let server = RouteServer::start(vec![json("GET", "/v1/models", r#"{"data":[{"id":"tiny"}]}"#)]);
    let open: u16 = server.root.rsplit(':').next().unwrap().parse().unwrap();
    let closed = {
        let other = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        other.local_addr().unwrap().port()
    };
    let ports = vec![(closed, "ollama".to_string()), (open, "vllm".to_string())];
    let found = probe_local(&ports, Duration::from_secs(5)).unwrap();
    assert_eq!(server.received(), ["GET /v1/models"]);
    assert_eq!(
        found,
        LocalServer {
            kind: "vllm".into(),
            base_url: format!("http://127.0.0.1:{open}/v1"),
            models: vec!["tiny".into()]
        }
    );
}

#[test]
fn probe_of_nothing_returns_none_within_budget() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let started = Instant::now();
    assert_eq!(probe_local(&[(closed, "ollama".to_string())], Duration::from_millis(300)), None);
    assert!(started.elapsed() < Duration::from_secs(2));
}
