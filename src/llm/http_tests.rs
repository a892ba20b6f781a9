//! Transport tests: status handling, error mapping and interruption, against a scripted server.

use super::*;
use crate::http::test_tls_server::TlsServer;
use crate::llm::test_server::{ScriptedServer, sse_stall, status};

fn client(base_url: &str) -> HttpClient {
    HttpClient::new(base_url, "the TEST_API_KEY environment variable", Duration::from_secs(5), &NetEnv::default(), &[])
        .unwrap()
}

fn post(server: &ScriptedServer) -> Result<EventStream, LlmError> {
    client(&server.base_url).exchange().post(&format!("{}/v1/messages", server.base_url), &[], b"{}")
}

#[test]
fn non_2xx_bodies_are_parsed_with_retry_after() {
    let server = ScriptedServer::start(vec![status(503, &[("retry-after", "4")], r#"{"error":{"message":"down"}}"#)]);
    let error = post(&server).err().unwrap();
    assert_eq!(
        error,
        LlmError::Server { status: 503, message: "down".to_string(), retry_after: Some(Duration::from_secs(4)) }
    );
}

#[test]
fn json_answer_to_a_streaming_request_is_an_error() {
    let json = [("content-type", "application/json")];
    let server = ScriptedServer::start(vec![
        status(200, &json, r#"{"error":{"message":"EngineCore died","type":"InternalServerError","code":500}}"#),
        status(200, &json, r#"{"id":"x","choices":[{"message":{"content":"hi"}}]}"#),
    ]);
    assert!(matches!(post(&server).err().unwrap(), LlmError::Server { status: 500, .. }));
    match post(&server).err().unwrap() {
        LlmError::Request { status: 200, message } => assert!(message.contains("ignored \"stream\": true")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn cancel_interrupts_a_blocked_read() {
    let server = ScriptedServer::start(vec![sse_stall("data: a\n\n")]);
    let exchange = client(&server.base_url).exchange();
    let mut stream = exchange.post(&format!("{}/v1/messages", server.base_url), &[], b"{}").unwrap();
    assert_eq!(stream.next_event().unwrap().map(|event| event.data), Some("a".to_string()));
    let canceller = exchange.canceller();
    let started = std::time::Instant::now();
    let cancelling = std::thread::spawn(move || canceller.cancel());
    let result = stream.next_event();
    cancelling.join().unwrap();
    assert!(result.is_err() || matches!(result, Ok(None)), "{result:?}");
    assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
}

#[test]
fn ureq_errors_map_to_messages_naming_the_host_and_proxy() {
    let direct = client("https://api.example.com/v1");
    let net = NetEnv::from_vars([("HTTPS_PROXY".to_string(), "http://proxy.corp:3128".to_string())]);
    let proxied = HttpClient::new("https://api.example.com/v1", "", Duration::from_secs(120), &net, &[]).unwrap();
    let cases: Vec<(&HttpClient, ureq::Error, &str)> = vec![
        (&direct, ureq::Error::HostNotFound, "cannot resolve api.example.com: DNS lookup failed"),
        (&proxied, ureq::Error::HostNotFound, "cannot resolve api.example.com or proxy host proxy.corp via proxy"),
        (&direct, ureq::Error::Timeout(ureq::Timeout::Connect), "connecting to api.example.com timed out after 10 s"),
        (&proxied, ureq::Error::Timeout(ureq::Timeout::PerRead), "no data from api.example.com for 120 s"),
        (
            &proxied,
            ureq::Error::ConnectProxyFailed("407".to_string()),
            "proxy http://proxy.corp:3128 refused the tunnel to api.example.com: 407",
        ),
        (
            &direct,
            ureq::Error::Tls("bad certificate"),
            "TLS with api.example.com failed: bad certificate; for a private CA set the provider's ca_file",
        ),
        (
            &direct,
            std::io::Error::from(std::io::ErrorKind::ConnectionRefused).into(),
            "connection to api.example.com:443 refused",
        ),
        (
            &direct,
            std::io::Error::from(std::io::ErrorKind::UnexpectedEof).into(),
            "api.example.com closed the connection mid-response",
        ),
    ];
    for (client, error, expected) in cases {
        let mapped = client.map_error(error);
        assert!(matches!(mapped, LlmError::Network { .. }), "{mapped:?}");
        assert!(mapped.to_string().contains(expected), "{mapped} lacks {expected}");
    }
    let bad_uri = direct.map_error(ureq::Error::BadUri("x".to_string()));
    assert!(matches!(bad_uri, LlmError::Request { status: 0, .. }));
}

#[test]
fn extra_roots_must_be_pem_certificates() {
    let source = |pem: &str| PemSource { origin: "/etc/private-ca.pem".to_string(), pem: pem.as_bytes().to_vec() };
    let no_certs = HttpClient::new("https://x", "", DEFAULT_IDLE_TIMEOUT, &NetEnv::default(), &[source("hello")]);
    assert!(no_certs.unwrap_err().to_string().contains("/etc/private-ca.pem contains no PEM certificates"));
    let garbage = "-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n";
    let invalid = HttpClient::new("https://x", "", DEFAULT_IDLE_TIMEOUT, &NetEnv::default(), &[source(garbage)]);
    assert!(invalid.is_err());
}

#[test]
fn a_missing_ca_file_is_reported_with_its_path() {
    let provider = ProviderConfig {
        base_url: "https://vllm.internal/v1".to_string(),
        ca_file: Some("/nonexistent/mewcode-ca.pem".into()),
        ..ProviderConfig::with_defaults("local", crate::config::Protocol::OpenAi, "m")
    };
    let error = HttpClient::for_provider(&provider, &NetEnv::default()).unwrap_err();
    assert!(error.to_string().contains("/nonexistent/mewcode-ca.pem"), "{error}");
}

/// A self-signed EC certificate (CN "mewcode test CA"), only ever parsed, never trusted by a server.
const TEST_CA_PEM: &str = "-----BEGIN CERTIFICATE-----
MIIBizCCATGgAwIBAgIUFNEPdSGnaRa8BTNYtgbz8ZsU1TYwCgYIKoZIzj0EAwIw
GjEYMBYGA1UEAwwPbWV3Y29kZSB0ZXN0IENBMCAXDTI2MTIwMjEzMzUyMVoYDzIx
MjYxMTA4MTMzNTIxWjAaMRgwFgYDVQQDDA9tZXdjb2RlIHRlc3QgQ0EwWTATBgcq
hkjOPQIBBggqhkjOPQMBBwNCAATxSNqhGDCdgRGa6bshO+tqIQuE77lvt0k/Gep1
D/tuNOdLBHbi28ktwRIXmqd+Iu/njm01tBCtxIae89IIMy98o1MwUTAdBgNVHQ4E
FgQUdp7lQgNnCu6qyBgbV9bd/FqCzk0wHwYDVR0jBBgwFoAUdp7lQgNnCu6qyBgb
V9bd/FqCzk0wDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNIADBFAiEAu5vf
cqYomuvZrjVdOazy4KFT46zrmjG42jzAOvzofRsCIFfTVFiLxI3oMxkBXzUlc3ca
ho6MZcGV76fGIjBi7i/w
-----END CERTIFICATE-----
";

#[test]
fn pem_roots_are_accepted_and_loopback_stays_reachable() {
    let roots = [PemSource { origin: "test".to_string(), pem: TEST_CA_PEM.as_bytes().to_vec() }];
    let server = ScriptedServer::start(vec![status(418, &[], "teapot")]);
    let client = HttpClient::new(&server.base_url, "", DEFAULT_IDLE_TIMEOUT, &NetEnv::default(), &roots).unwrap();
    let error = client.exchange().post(&server.base_url, &[], b"{}").err().unwrap();
    assert_eq!(error, LlmError::Request { status: 418, message: "teapot".to_string() });
}

#[test]
fn loopback_is_never_proxied_even_with_a_proxy_set() {
    let net = NetEnv::from_vars([("HTTP_PROXY".to_string(), "http://127.0.0.1:9".to_string())]);
    let server = ScriptedServer::start(vec![status(418, &[], "direct")]);
    let client = HttpClient::new(&server.base_url, "", DEFAULT_IDLE_TIMEOUT, &net, &[]).unwrap();
    let error = client.exchange().post(&server.base_url, &[], b"{}").err().unwrap();
    assert_eq!(error, LlmError::Request { status: 418, message: "direct".to_string() });
}

#[test]
fn a_404_names_the_url_and_the_likely_base_url_mistake() {
    let error = |url: &str| with_not_found_hint(LlmError::Request { status: 404, message: "Not Found".into() }, url);
    assert_eq!(
        error("http://h:8000/chat/completions").to_string(),
        "request rejected (404): Not Found (POST http://h:8000/chat/completions answered 404); an OpenAI-compatible base_url usually ends in /v1 (e.g. http://127.0.0.1:11434/v1): add it"
    );
    assert!(error("https://api.anthropic.com/v1/v1/messages").to_string().contains("must not end in /v1"));
    let gemini = error("https://g.example/v1beta/openai/chat/completions").to_string();
    assert!(gemini.ends_with("answered 404); check base_url"), "{gemini}");
}

#[test]
fn endpoints_carry_the_port_or_the_schemes_default() {
    assert_eq!(endpoint_of("http://127.0.0.1:11434/v1", "127.0.0.1"), "127.0.0.1:11434");
    assert_eq!(endpoint_of("https://api.example.com/v1", "api.example.com"), "api.example.com:443");
    assert_eq!(endpoint_of("http://user:pw@h/v1", "h"), "h:80");
    assert_eq!(endpoint_of("http://[::1]:8000/v1", "::1"), "[::1]:8000");
}

#[test]
fn a_failed_handshake_names_the_host_and_the_ca_file_fix() {
    let Some(server) = TlsServer::start("message") else { return };
    let idle = Some(Duration::from_secs(5));
    // The bundle alone does not know the server's test CA.
    let (bundle_only, _) = agent_config(&server.url, &NetEnv::default(), &[], idle).unwrap();
    let bundle_error = server.get(&bundle_only).unwrap_err();
    let client = client(&server.url);
    let message = client.map_error(bundle_error).to_string();
    assert!(
        message.contains("TLS with 127.0.0.1 failed: invalid peer certificate") && message.contains("ca_file"),
        "{message}"
    );
}
