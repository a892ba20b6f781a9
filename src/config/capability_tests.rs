//! Unit tests of `capability.rs`: vision's default per protocol and endpoint, and precedence.

use super::*;

fn provider(protocol: Protocol, base_url: &str) -> ProviderConfig {
    ProviderConfig { base_url: base_url.to_string(), ..ProviderConfig::with_defaults("p", protocol, "m") }
}

#[test]
fn vision_defaults_on_for_anthropic_and_public_openai_off_for_own_servers() {
    let default = |protocol, url| provider(protocol, url).vision();
    assert_eq!(default(Protocol::Anthropic, "https://api.anthropic.com").describe(), "yes (default)");
    assert_eq!(default(Protocol::OpenAi, Protocol::OpenAi.default_base_url()).describe(), "yes (default)");
    assert_eq!(default(Protocol::OpenAi, "http://127.0.0.1:11434/v1").describe(), "no (default)");
}

#[test]
fn configured_vision_wins_over_what_a_server_reports() {
    let mut configured = provider(Protocol::OpenAi, "http://127.0.0.1:8080/v1");
    configured.vision = Vision::configured(Some(true));
    configured.discovered_vision(false, "GET /props");
    assert_eq!(configured.vision().describe(), "yes (configured)");
    let mut discovered = provider(Protocol::OpenAi, "http://127.0.0.1:8080/v1");
    discovered.discovered_vision(true, "GET /props");
    assert_eq!(discovered.vision().describe(), "yes (discovered from GET /props)");
}

#[test]
fn the_refusal_says_why_and_how_to_turn_it_on() {
    let own = provider(Protocol::OpenAi, "http://127.0.0.1:8080/v1");
    assert_eq!(
        own.vision().refusal("local"),
        "this model does not accept images (not reported by the server): set `vision: true` for the provider \
         local if it does"
    );
    let off = Vision { accepts: false, source: VisionSource::Configured };
    assert!(off.refusal("p").contains("(providers[p].vision is off)"), "{}", off.refusal("p"));
}
