//! Unit tests of `discovery.rs`: vLLM, llama.cpp, Ollama, and a server that reports no window.

use super::*;
use crate::llm::test_server::routes::{Route, RouteServer, json};

/// A cache with nothing in it (its file is never written by these tests).
fn no_cache() -> WindowCache {
    WindowCache::load(std::path::Path::new("/nonexistent/mewcode-home"))
}

fn provider(base_url: &str, model: &str) -> ProviderConfig {
    ProviderConfig { base_url: base_url.to_string(), ..ProviderConfig::with_defaults("local", Protocol::OpenAi, model) }
}

/// Runs discovery against fake routes with `base_url = root + /v1`; returns the provider after
/// it, the notice and the requests the server saw.
fn discover(routes: Vec<Route>, model: &str) -> (ProviderConfig, Option<String>, Vec<String>) {
    let server = RouteServer::start(routes);
    let mut provider = provider(&format!("{}/v1", server.root), model);
    let notice = resolve_window(&mut provider, &NetEnv::default(), Duration::from_secs(5), &mut no_cache(), 0);
    let requests = server.received();
    (provider, notice, requests)
}

fn discovered(endpoint: &str, note: Option<&str>) -> WindowSource {
    WindowSource::Discovered { endpoint: endpoint.to_string(), note: note.map(str::to_string) }
}

#[test]
fn vllm_window_is_the_configured_models_max_model_len() {
    let models = r#"{"object":"list","data":[
        {"id":"other","max_model_len":8192},
        {"id":"Qwen/Qwen2.5-Coder-7B","object":"model","max_model_len":32768}]}"#;
    let (provider, notice, _) = discover(vec![json("GET", "/v1/models", models)], "Qwen/Qwen2.5-Coder-7B");
    assert_eq!((provider.context_window, provider.window_source), (32768, discovered("GET /v1/models", None)));
    assert_eq!(notice, None);
}

#[test]
fn llama_cpp_window_comes_from_props() {
    let props = r#"{"default_generation_settings":{"n_ctx":4096,"params":{}},"total_slots":1}"#;
    let routes = vec![json("GET", "/v1/models", r#"{"data":[{"id":"model.gguf"}]}"#), json("GET", "/props", props)];
    let (provider, notice, _) = discover(routes, "model.gguf");
    assert_eq!((provider.context_window, provider.window_source), (4096, discovered("GET /props", None)));
    assert_eq!(notice, None);
}

#[test]
fn llama_cpp_window_comes_from_slots_when_props_is_off() {
    let slots = r#"[{"id":0,"n_ctx":2048},{"id":1,"n_ctx":2048}]"#;
    let (provider, _, _) = discover(vec![json("GET", "/slots", slots)], "m");
    assert_eq!((provider.context_window, provider.window_source), (2048, discovered("GET /slots", None)));
}

#[test]
fn ollama_window_is_num_ctx_from_api_show() {
    let show = r#"{"parameters":"stop                           \"<|im_end|>\"\nnum_ctx                        16384",
        "model_info":{"general.architecture":"qwen2","qwen2.context_length":32768}}"#;
    let (provider, notice, requests) = discover(vec![json("POST", "/api/show", show)], "qwen2.5-coder:7b");
    assert_eq!((provider.context_window, provider.window_source), (16384, discovered("POST /api/show", None)));
    assert_eq!(notice, None);
    assert!(requests.contains(&r#"POST /api/show {"model":"qwen2.5-coder:7b"}"#.to_string()), "{requests:?}");
}

#[test]
fn ollama_without_num_ctx_assumes_its_default_window_and_says_so() {
    let show = r#"{"parameters":"stop \"<|im_end|>\"","model_info":{"qwen2.context_length":32768}}"#;
    let (provider, notice, _) = discover(vec![json("POST", "/api/show", show)], "qwen2.5-coder:7b");
    assert_eq!(provider.context_window, OLLAMA_DEFAULT_NUM_CTX);
    let notice = notice.unwrap();
    assert!(notice.contains("Ollama's default 4096 is assumed") && notice.contains("supports 32768"), "{notice}");
    assert!(provider.window_source.describe().starts_with("from POST /api/show; num_ctx is not set"));
}

#[test]
fn a_loaded_ollama_runner_reports_its_own_window_first() {
    let ps = r#"{"models":[{"name":"qwen2.5-coder:7b","model":"qwen2.5-coder:7b","context_length":8192}]}"#;
    let show = r#"{"model_info":{"qwen2.context_length":32768}}"#;
    let routes = vec![json("GET", "/api/ps", ps), json("POST", "/api/show", show)];
    let (provider, notice, _) = discover(routes, "qwen2.5-coder:7b");
    assert_eq!((provider.context_window, provider.window_source), (8192, discovered("GET /api/ps", None)));
    assert_eq!(notice, None);
}

#[test]
fn a_server_that_reports_nothing_keeps_the_default_with_a_notice() {
    let (provider, notice, requests) = discover(vec![json("GET", "/v1/models", r#"{"data":[{"id":"m"}]}"#)], "m");
    assert_eq!((provider.context_window, provider.window_source), (128_000, WindowSource::Default));
    let notice = notice.unwrap();
    assert!(notice.contains("reported none") && notice.contains("128000") && notice.contains("context_window"));
    let mut paths: Vec<&str> = requests.iter().map(|request| request.split(' ').nth(1).unwrap_or("")).collect();
    paths.sort_unstable();
    assert_eq!(paths, ["/api/ps", "/api/show", "/props", "/slots", "/v1/models"]);
}

#[test]
fn a_closed_port_keeps_the_default_with_a_notice_that_it_did_not_answer_and_is_not_remembered() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut provider = provider(&format!("http://127.0.0.1:{closed}/v1"), "m");
    let mut cache = no_cache();
    let notice = resolve_window(&mut provider, &NetEnv::default(), Duration::from_secs(2), &mut cache, 0);
    let notice = notice.unwrap();
    assert!(notice.contains("did not answer") && !notice.contains("reported none"), "{notice}");
    assert_eq!(provider.window_source, WindowSource::Default);
    assert_eq!(cache.fresh(&provider.base_url, "m", 0), None);
}

#[test]
fn a_cached_answer_is_used_without_a_request_and_its_assumption_is_said_once() {
    let server = RouteServer::start(vec![json("GET", "/v1/models", r#"{"data":[{"id":"m"}]}"#)]);
    let mut cache = no_cache();
    let mut first = provider(&format!("{}/v1", server.root), "m");
    let net = NetEnv::default();
    let notice = resolve_window(&mut first, &net, Duration::from_secs(5), &mut cache, 100);
    assert!(notice.is_some_and(|notice| notice.contains("reported none")));
    // `received` hands over what arrived since it was last called.
    assert_eq!(server.received().len(), 5);
    let mut again = provider(&format!("{}/v1", server.root), "m");
    assert_eq!(resolve_window(&mut again, &net, Duration::from_secs(5), &mut cache, 200), None);
    assert_eq!(server.received().len(), 0, "a fresh entry asks nothing");
    let later = 100 + crate::llm::window_cache::MAX_AGE_S;
    let notice = resolve_window(&mut again, &net, Duration::from_secs(5), &mut cache, later);
    assert!(notice.is_some(), "a stale entry is asked again and said again");
    assert_eq!(server.received().len(), 5);
}

#[test]
fn a_cached_window_is_applied_with_its_source() {
    let server = RouteServer::start(vec![json("GET", "/props", r#"{"n_ctx":4096}"#)]);
    let mut cache = no_cache();
    let net = NetEnv::default();
    let mut first = provider(&format!("{}/v1", server.root), "m");
    assert_eq!(resolve_window(&mut first, &net, Duration::from_secs(5), &mut cache, 0), None);
    let mut again = provider(&format!("{}/v1", server.root), "m");
    assert_eq!(resolve_window(&mut again, &net, Duration::from_secs(5), &mut cache, 1), None);
    assert_eq!((again.context_window, again.window_source), (4096, discovered("GET /props", None)));
    assert_eq!(server.received().len(), 5, "the second resolution asked nothing (received drains)");
}

#[test]
fn a_configured_window_and_vision_or_the_public_endpoint_is_never_asked() {
    let server = RouteServer::start(vec![json("GET", "/props", r#"{"n_ctx":4096}"#)]);
    let mut configured = provider(&format!("{}/v1", server.root), "m");
    configured.context_window = 32768;
    configured.window_source = WindowSource::Configured;
    // Vision unset would still be asked about (`a_configured_window_still_asks_about_vision...`).
    configured.vision = crate::config::Vision::configured(Some(true));
    assert_eq!(resolve_window(&mut configured, &NetEnv::default(), Duration::from_secs(5), &mut no_cache(), 0), None);
    assert_eq!(configured.context_window, 32768);
    assert!(server.received().is_empty());
    assert!(!wants_discovery(&ProviderConfig::with_defaults("gpt", Protocol::OpenAi, "gpt-4.1")));
    assert!(!wants_discovery(&ProviderConfig::with_defaults("claude", Protocol::Anthropic, "claude")));
}

#[test]
fn server_root_drops_the_version_segment() {
    assert_eq!(server_root("http://127.0.0.1:11434/v1"), "http://127.0.0.1:11434");
    assert_eq!(server_root("http://127.0.0.1:11434/v1/"), "http://127.0.0.1:11434");
    assert_eq!(server_root("http://host:8080"), "http://host:8080");
}

#[test]
fn parsers_ignore_what_they_do_not_know() {
    let value = |text: &str| serde_json::from_str::<Value>(text).unwrap();
    assert_eq!(parse_vllm_models(&value(r#"{"data":[{"id":"a"},{"id":"b","max_model_len":9}]}"#), "a"), None);
    assert_eq!(parse_vllm_models(&value(r#"{"data":[{"id":"x","max_model_len":9}]}"#), "a"), Some(9));
    assert_eq!(parse_llama_props(&value(r#"{"n_ctx":512}"#)), Some(512));
    assert_eq!(parse_llama_props(&value(r#"{"default_generation_settings":{"n_ctx":0}}"#)), None);
    assert_eq!(parse_llama_slots(&value(r#"{"error":"slots disabled"}"#)), None);
    assert_eq!(
        parse_ollama_ps(&value(r#"{"models":[{"name":"llama3:latest","context_length":2048}]}"#), "llama3"),
        Some(2048)
    );
    assert_eq!(parse_ollama_ps(&value(r#"{"models":[]}"#), "llama3"), None);
    assert_eq!(parse_ollama_show(&value(r#"{"parameters":"num_ctx 0"}"#)), None);
}

#[test]
fn model_ids_are_the_data_ids_of_a_models_list() {
    let ids = parse_model_ids(r#"{"object":"list","data":[{"id":"a"},{"object":"model"},{"id":"b"}]}"#);
    assert_eq!(ids, Some(vec!["a".to_string(), "b".to_string()]));
    assert_eq!(parse_model_ids(r#"{"models":[]}"#), None);
    assert_eq!(parse_model_ids("not json"), None);
}

#[test]
fn ollama_reports_vision_in_its_capabilities() {
    let show = r#"{"parameters":"num_ctx 8192","capabilities":["completion","vision","tools"]}"#;
    let (provider, _, _) = discover(vec![json("POST", "/api/show", show)], "gemma3:4b");
    assert_eq!(provider.vision().describe(), "yes (discovered from POST /api/show)");
    let text_only = r#"{"parameters":"num_ctx 8192","capabilities":["completion","tools"]}"#;
    let (provider, _, _) = discover(vec![json("POST", "/api/show", text_only)], "qwen2.5-coder:7b");
    assert_eq!(provider.vision().describe(), "no (discovered from POST /api/show)");
}

#[test]
fn llama_cpp_reports_vision_in_its_modalities_and_silence_keeps_the_default() {
    let props = r#"{"default_generation_settings":{"n_ctx":4096},"modalities":{"vision":true,"audio":false}}"#;
    let (provider, _, _) = discover(vec![json("GET", "/props", props)], "m");
    assert_eq!(provider.vision().describe(), "yes (discovered from GET /props)");
    let (provider, _, _) = discover(vec![json("GET", "/props", r#"{"n_ctx":4096}"#)], "m");
    assert_eq!(provider.vision().describe(), "no (default)");
}

#[test]
fn a_configured_window_still_asks_about_vision_and_a_configured_vision_is_kept() {
    let server = RouteServer::start(vec![json("GET", "/props", r#"{"n_ctx":4096,"modalities":{"vision":true}}"#)]);
    let mut windowed = provider(&format!("{}/v1", server.root), "m");
    windowed.context_window = 1000;
    windowed.window_source = WindowSource::Configured;
    let notice = resolve_window(&mut windowed, &NetEnv::default(), Duration::from_secs(5), &mut no_cache(), 0);
    assert_eq!((notice, windowed.context_window), (None, 1000), "the configured window stays, silently");
    assert_eq!(windowed.vision().describe(), "yes (discovered from GET /props)");
    let mut both = windowed.clone();
    both.vision = crate::config::Vision::configured(Some(false));
    assert!(!wants_discovery(&both), "nothing left to ask");
}

#[test]
fn a_server_that_does_not_answer_is_no_notice_when_only_vision_was_asked() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut windowed = provider(&format!("http://127.0.0.1:{closed}/v1"), "m");
    windowed.context_window = 1000;
    windowed.window_source = WindowSource::Configured;
    let notice = resolve_window(&mut windowed, &NetEnv::default(), Duration::from_millis(300), &mut no_cache(), 0);
    assert_eq!(notice, None);
    assert_eq!(windowed.vision().describe(), "no (default)");
}
