//! Unit tests of `doctor.rs`: TLS roots, window advice, token clamping and masked keys.

use super::*;
use crate::glyphs::UNICODE;

fn local() -> ProviderConfig {
    ProviderConfig {
        base_url: "http://127.0.0.1:11434/v1".into(),
        ..ProviderConfig::with_defaults("local", crate::config::Protocol::OpenAi, "qwen")
    }
}

fn findings(window: Option<Option<Discovered>>) -> Findings {
    let reachability = Reachability::Ok { models: vec!["qwen".into()], has_model: Some(true) };
    Findings { reachability, window, capabilities: None }
}

#[test]
fn tls_roots_list_the_given_files_and_the_bundle() {
    use crate::http::roots::roots_in_use;
    use std::path::Path;
    assert_eq!(roots_in_use(None, None), "the bundled Mozilla roots");
    assert_eq!(
        roots_in_use(Some(Path::new("/etc/corp.pem")), None),
        "/etc/corp.pem (SSL_CERT_FILE) + the bundled Mozilla roots"
    );
    assert_eq!(
        roots_in_use(Some(Path::new("/etc/corp.pem")), Some(Path::new("/srv/vllm-ca.pem"))),
        "/etc/corp.pem (SSL_CERT_FILE) + /srv/vllm-ca.pem (ca_file) + the bundled Mozilla roots"
    );
    assert_eq!(roots_in_use(None, Some(Path::new("/srv/ca.pem"))), "/srv/ca.pem (ca_file) + the bundled Mozilla roots");
}

#[test]
fn an_assumed_ollama_window_recommends_raising_it_on_the_server() {
    let assumed = Discovered { window: 4096, endpoint: "POST /api/show".into(), note: Some("assumed".into()) };
    assert_eq!(
        render_findings(&local(), &findings(Some(Some(assumed))), &UNICODE),
        "      window: 4096 from POST /api/show; assumed\n      max_tokens 8192 does not fit the 4096-token window: \
         requests ask for at most 3584, less as the conversation grows (never below 256)\n      \
         recommended settings for provider local:\n        \
         # Ollama: give the server a larger window (OLLAMA_CONTEXT_LENGTH=32768 ollama serve, or a model with \
         PARAMETER num_ctx 32768), then set context_window to it\n"
    );
}

#[test]
fn a_window_nobody_reports_is_shown_as_the_default_and_asked_for() {
    assert_eq!(
        render_findings(&local(), &findings(Some(None)), &UNICODE),
        "      window: the server reported none, so 128000 (the openai default) is assumed\n      \
         recommended settings for provider local:\n        context_window: <the server's window>   # this \
         server does not report it\n"
    );
    let mut configured = local();
    configured.window_source = WindowSource::Configured;
    configured.context_window = 32768;
    assert_eq!(
        render_findings(&configured, &findings(None), &UNICODE),
        "      window: 32768 (configured)\n      max_tokens 8192 is lowered once the conversation passes about 20480 \
         tokens (compaction starts at 23211; never below 2048)\n"
    );
}

#[test]
fn doctor_says_when_max_tokens_will_be_clamped_to_the_window() {
    let limits = Limits::for_window(4096);
    let at_start = limits.reply_max_tokens(8192, 0);
    assert_eq!(
        max_tokens_clamp(8192, 4096, None),
        Some((
            format!(
                "max_tokens 8192 does not fit the 4096-token window: requests ask for at most {at_start}, less as \
                 the conversation grows (never below 256)"
            ),
            Some(at_start)
        ))
    );
    // A cap that fits at first but is lowered before compaction starts.
    let limits = Limits::for_window(32_768);
    let threshold = limits.auto_threshold(None).unwrap();
    let whole_until = 32_768 - limits.safety_margin - 16_000;
    assert!(whole_until < threshold);
    assert_eq!(
        max_tokens_clamp(16_000, 32_768, None),
        Some((
            format!(
                "max_tokens 16000 is lowered once the conversation passes about {whole_until} tokens (compaction \
                 starts at {threshold}; never below 2048)"
            ),
            None
        ))
    );
    // The defaults on a large window: sent whole until compaction; an unknown window says nothing.
    assert_eq!(max_tokens_clamp(8192, 200_000, None), None);
    assert_eq!(max_tokens_clamp(8192, 0, None), None);
    let mut small = local();
    small.context_window = 4096;
    small.window_source = WindowSource::Configured;
    let shown = render_findings(&small, &findings(None), &UNICODE);
    assert!(shown.contains("max_tokens 8192 does not fit the 4096-token window"), "{shown}");
    assert!(shown.contains(&format!("max_tokens: {at_start}   # what fits the window")), "{shown}");
}

#[test]
fn keys_are_masked() {
    assert_eq!(mask_key("sk-ant-api03-abcdefghijklmnopWXYZ", "…"), "sk-…WXYZ");
    assert_eq!(mask_key("sk-ant-api03-abcdefghijklmnopWXYZ", "..."), "sk-...WXYZ");
    assert_eq!(mask_key("short", "…"), "*****");
    assert_eq!(mask_key("ab", "…"), "****");
    assert!(!mask_key("0123456789abcdef", "…").contains("456"));
}

#[test]
fn the_remembered_window_is_shown_with_its_source_and_age_and_its_absence_said() {
    use crate::llm::window_cache::Entry;
    let dir = crate::test_dir::TempDir::new("doctor-remembered");
    let mut cache = WindowCache::load(dir.path());
    let provider = local();
    assert_eq!(
        render_remembered(&cache, 50_000, dir.path(), &provider),
        "      remembered: nothing yet (the next run asks the server)\n"
    );
    cache.record(Entry {
        base_url: provider.base_url.clone(),
        model: provider.model.clone(),
        window: Some(8192),
        endpoint: Some("GET /props".into()),
        note: None,
        checked_at: 50_000 - 7200,
        warned: true,
        vision: None,
        vision_endpoint: None,
        vision_asked: true,
    });
    assert_eq!(
        render_remembered(&cache, 50_000, dir.path(), &provider),
        format!(
            "      remembered: 8192 tokens from GET /props, asked 2 h ago ({})\n",
            dir.join("discovery.json").display()
        )
    );
    let configured = ProviderConfig {
        window_source: WindowSource::Configured,
        vision: crate::config::Vision::configured(Some(false)),
        ..local()
    };
    assert_eq!(
        render_remembered(&cache, 50_000, dir.path(), &configured),
        "",
        "a configured window and vision ask nothing"
    );
}

#[test]
fn checks_are_listed_with_their_timeout_and_source() {
    assert_eq!(render_checks(&[]), "\nchecks after edits (confined, in the project root)\n  none configured\n");
    let check = crate::config::CheckConfig {
        pattern: crate::config::checks::Glob::parse("**/*.py").unwrap(),
        command: "python3 -m py_compile {file}".to_string(),
        timeout_s: 30,
        source: "/home/u/.mewcode/config.yaml".to_string(),
    };
    assert_eq!(
        render_checks(&[check]),
        "\nchecks after edits (confined, in the project root)\n  **/*.py          python3 -m py_compile {file}  (timeout 30 s; from /home/u/.mewcode/config.yaml)\n"
    );
}

#[test]
fn vision_is_shown_with_who_said_so() {
    let dir = crate::test_dir::TempDir::new("doctor-vision");
    let mut cache = WindowCache::load(dir.path());
    let provider = local();
    assert_eq!(render_vision(&provider, &cache, 50_000), "      vision: no (default)\n");
    cache.record(crate::llm::window_cache::Entry {
        base_url: provider.base_url.clone(),
        model: provider.model.clone(),
        window: None,
        endpoint: None,
        note: None,
        checked_at: 50_000,
        warned: false,
        vision: Some(true),
        vision_endpoint: Some("POST /api/show".into()),
        vision_asked: true,
    });
    assert_eq!(render_vision(&provider, &cache, 50_000), "      vision: yes (discovered from POST /api/show)\n");
    let configured = ProviderConfig { vision: crate::config::Vision::configured(Some(false)), ..local() };
    assert_eq!(render_vision(&configured, &cache, 50_000), "      vision: no (configured)\n");
}
