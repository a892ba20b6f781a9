//! Unit tests of config loading: validation messages, merge order, expansion, defaults.

use super::*;
use crate::test_dir::TempDir;
use std::collections::HashMap;

struct Fixture {
    dir: TempDir,
}

impl Fixture {
    fn new(name: &str) -> Fixture {
        let dir = TempDir::new(&format!("config-{name}"));
        dir.mkdir("home");
        dir.mkdir("proj");
        Fixture { dir }
    }
    fn write(&self, rel: &str, text: &str) {
        std::fs::write(self.dir.join(rel), text).unwrap();
    }
    fn load(
        &self,
        trusted: bool,
        extra: Option<&str>,
        env: &[(&str, &str)],
    ) -> Result<(Config, Vec<Warning>), ConfigError> {
        let env: HashMap<String, String> = env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let lookup = move |name: &str| env.get(name).cloned();
        let extra = extra.map(|rel| self.dir.join(rel));
        let home = self.dir.join("home");
        let root = self.dir.join("proj");
        load_config(&LoadOptions {
            home: &home,
            root: &root,
            extra: extra.as_deref(),
            project_trusted: trusted,
            lookup: &lookup,
        })
    }
}

fn project_error(name: &str, yaml: &str) -> String {
    let fixture = Fixture::new(name);
    fixture.write("proj/.mewcode.yaml", yaml);
    match fixture.load(true, None, &[]) {
        Err(err) => err.to_string(),
        Ok((config, _)) => panic!("expected an error, got {config:?}"),
    }
}

#[test]
fn provider_errors_name_file_and_key_path() {
    let cases = [
        (
            "providers:\n  - {name: a, protocol: anthropic, model: m}\n  - {name: b, protocol: antropic, model: m}\n",
            ".mewcode.yaml: providers[1].protocol: expected anthropic|openai, got \"antropic\"",
        ),
        ("providers:\n  - {name: a, protocol: openai}\n", ".mewcode.yaml: providers[0].model: missing model"),
        ("providers:\n  - {protocol: openai, model: m}\n", ".mewcode.yaml: providers[0].name: missing provider name"),
        ("providers: {a: 1}\n", ".mewcode.yaml: providers: expected a list, got a mapping"),
        (
            "providers:\n  - {name: a, protocol: openai, model: m, max_tokens: lots}\n",
            ".mewcode.yaml: providers[0].max_tokens: expected a whole number >= 0, got \"lots\"",
        ),
        (
            "providers:\n  - {name: a, protocol: openai, model: m, max_tokens: 0}\n",
            ".mewcode.yaml: providers[0].max_tokens: must be greater than 0",
        ),
        (
            "providers:\n  - {name: a, protocol: openai, model: m, base_url: ftp://x}\n",
            ".mewcode.yaml: providers[0].base_url: expected an http:// or https:// URL",
        ),
        (
            "providers:\n  - {name: a, protocol: openai, model: m, thinking: maybe}\n",
            ".mewcode.yaml: providers[0].thinking: expected true or false, got \"maybe\"",
        ),
        (
            "providers:\n  - {name: a, protocol: openai, model: m}\n  - {name: a, protocol: openai, model: n}\n",
            ".mewcode.yaml: providers[1].name: duplicate provider name \"a\"",
        ),
        (
            "providers:\n  - {name: a, protocol: openai, model: m, compact_at: 2}\n",
            ".mewcode.yaml: providers[0].compact_at: expected a fraction",
        ),
        (
            "providers:\n  - {name: a, protocol: openai, model: m, max_tokens_field: cap}\n",
            ".mewcode.yaml: providers[0].max_tokens_field: expected max_tokens|max_completion_tokens",
        ),
        (
            "providers:\n  - {name: a, protocol: openai, model: m, price: {input: 3}}\n",
            ".mewcode.yaml: providers[0].price.output: missing (USD per million tokens)",
        ),
        (
            "providers:\n  - {name: a, protocol: openai, model: m, price: {input: 3, output: -1}}\n",
            ".mewcode.yaml: providers[0].price.output: expected a price >= 0, got -1",
        ),
        (
            "providers:\n  - {name: a, protocol: openai, model: m, price: {in: 3, output: 1}}\n",
            ".mewcode.yaml: providers[0].price: unknown key \"in\"; expected input, output, cache_write, cache_read",
        ),
        (
            "providers:\n  - {name: a, protocol: openai, model: m, text_tool_calls: sometimes}\n",
            ".mewcode.yaml: providers[0].text_tool_calls: expected auto|off, got \"sometimes\"",
        ),
        (
            "providers:\n  - {name: a, protocol: openai, model: m, temperature: hot}\n",
            ".mewcode.yaml: providers[0].temperature: expected a number from 0 to 2, got \"hot\"",
        ),
        (
            "providers:\n  - {name: a, protocol: openai, model: m, top_p: 1.5}\n",
            ".mewcode.yaml: providers[0].top_p: expected a number from 0 to 1, got 1.5",
        ),
        (
            "providers:\n  - {name: a, protocol: openai, model: m, headers: [api-key]}\n",
            ".mewcode.yaml: providers[0].headers: expected a map of header: value, got a list",
        ),
        (
            "providers:\n  - {name: a, protocol: openai, model: m, headers: {api-key: {x: 1}}}\n",
            ".mewcode.yaml: providers[0].headers.api-key: expected a string, got a map",
        ),
        (
            "providers:\n  - {name: a, protocol: openai, model: m, extra_body: 3}\n",
            ".mewcode.yaml: providers[0].extra_body: expected a map, got 3",
        ),
        (
            "providers:\n  - {name: a, protocol: openai, model: m, extra_body: {messages: []}}\n",
            ".mewcode.yaml: providers[0].extra_body.messages: mewcode sets \"messages\" itself; extra_body may not override model, messages, tools, stream",
        ),
        ("providers: [\n", ".mewcode.yaml: invalid YAML"),
        ("- just a list\n", ".mewcode.yaml: expected a mapping at the top level"),
        (
            "default_provider: ghost\nproviders:\n  - {name: a, protocol: openai, model: m}\n",
            ".mewcode.yaml: default_provider: no provider named \"ghost\" (configured: a)",
        ),
    ];
    for (index, (yaml, expected)) in cases.iter().enumerate() {
        let message = project_error(&format!("err{index}"), yaml);
        assert!(message.starts_with(expected), "case {index}: {message:?} does not start with {expected:?}");
    }
}

#[test]
fn defaults_are_applied_per_protocol() {
    let fixture = Fixture::new("defaults");
    fixture.write(
        "home/config.yaml",
        "providers:\n  - {name: c, protocol: anthropic, model: claude}\n  - {name: o, protocol: openai, model: gpt, context_window: 64000}\n  - {name: l, protocol: openai, model: qwen, text_tool_calls: off}\n",
    );
    let (config, warnings) = fixture.load(false, None, &[("ANTHROPIC_API_KEY", "sk-ant")]).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    let claude = &config.providers[0];
    assert_eq!(claude.base_url, "https://api.anthropic.com");
    assert_eq!(claude.context_window, 200_000);
    assert_eq!(claude.max_tokens, DEFAULT_MAX_TOKENS);
    assert_eq!(claude.api_key, "sk-ant");
    assert_eq!(claude.api_key_hint, "the ANTHROPIC_API_KEY environment variable");
    let openai = &config.providers[1];
    assert_eq!(openai.base_url, "https://api.openai.com/v1");
    assert_eq!(openai.context_window, 64_000);
    assert_eq!(openai.max_tokens_field, "max_completion_tokens");
    assert_eq!(openai.api_key, "");
    assert!(openai.api_key_hint.contains("OPENAI_API_KEY"));
    assert!(openai.text_tool_calls, "text tool-call recovery defaults to auto");
    assert!(!config.providers[2].text_tool_calls);
    let (selected, warning) = select_provider(&config, Some("o")).unwrap();
    assert_eq!(selected.name, "o");
    assert!(warning.unwrap().message.contains("OPENAI_API_KEY"));
}

#[test]
fn override_order_is_invocation_then_project_then_user() {
    let fixture = Fixture::new("order");
    fixture.write(
        "home/config.yaml",
        "default_provider: u\nproviders:\n  - {name: u, protocol: openai, model: user-model, base_url: http://127.0.0.1:1/v1}\n  - {name: shared, protocol: openai, model: from-user, max_tokens: 5}\nmcp_servers:\n  s: {type: stdio, command: user-cmd}\n",
    );
    fixture.write(
        "proj/.mewcode.yaml",
        "default_provider: shared\nproviders:\n  - {name: shared, protocol: anthropic, model: from-project}\nmcp_servers:\n  s: {type: http, url: http://127.0.0.1:9/mcp}\n  t: {type: stdio, command: t}\n",
    );
    fixture.write("extra.yaml", "providers:\n  - {name: shared, protocol: openai, model: from-extra}\n");
    let (config, _) = fixture.load(true, None, &[]).unwrap();
    let shared = config.providers.iter().find(|p| p.name == "shared").unwrap();
    assert_eq!(
        (shared.model.as_str(), shared.protocol, shared.max_tokens),
        ("from-project", Protocol::Anthropic, 8192)
    );
    assert_eq!(select_provider(&config, None).unwrap().0.name, "shared");
    assert_eq!(config.mcp_servers.len(), 2);
    assert!(matches!(config.mcp_servers[0].transport, McpTransport::Http { .. }));
    let (config, _) = fixture.load(true, Some("extra.yaml"), &[]).unwrap();
    let shared = config.providers.iter().find(|p| p.name == "shared").unwrap();
    assert_eq!(shared.model, "from-extra");
    assert_eq!(shared.source, fixture.dir.join("extra.yaml").display().to_string());
    // Untrusted: the project file is ignored entirely, with a warning saying what it would enable.
    let (config, warnings) = fixture.load(false, None, &[]).unwrap();
    let shared = config.providers.iter().find(|p| p.name == "shared").unwrap();
    assert_eq!(shared.model, "from-user");
    assert_eq!(select_provider(&config, None).unwrap().0.name, "u");
    assert!(matches!(config.mcp_servers[0].transport, McpTransport::Stdio { .. }));
    assert_eq!(config.untrusted_project.len(), 3, "{:?}", config.untrusted_project);
    assert!(warnings.iter().any(|w| w.source == ".mewcode.yaml" && w.message.contains("not trusted")));
}

#[test]
fn undefined_variables_warn_once_listing_every_name() {
    let fixture = Fixture::new("vars");
    fixture.write(
        "home/config.yaml",
        "providers:\n  - {name: a, protocol: openai, model: \"${MODEL}\", api_key: \"${NOPE}\", base_url: \"${URL}\"}\nmcp_servers:\n  gh: {type: stdio, command: x, env: {T: \"${GONE}\"}}\n",
    );
    let (config, warnings) =
        fixture.load(false, None, &[("MODEL", "qwen"), ("URL", "http://localhost:11434/v1")]).unwrap();
    assert_eq!(config.providers[0].model, "qwen");
    assert_eq!(config.providers[0].base_url, "http://localhost:11434/v1");
    assert_eq!(config.providers[0].api_key, "");
    assert!(select_provider(&config, None).unwrap().1.is_none(), "loopback needs no key");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].message.ends_with("GONE, NOPE"), "{}", warnings[0]);
}

#[test]
fn bad_mcp_and_hook_entries_are_skipped_with_warnings() {
    let fixture = Fixture::new("skips");
    fixture.write(
        "home/config.yaml",
        "mcp_servers:\n  ok: {type: stdio, command: srv, args: [a, 1]}\n  nocmd: {type: stdio}\n  badtype: {type: ws, url: x}\n  \"bad name\": {type: stdio, command: x}\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - {type: command, command: ./check.sh, timeout: 5}\n        - {type: command}\n  Sometimes: []\n",
    );
    let (config, warnings) = fixture.load(false, None, &[]).unwrap();
    assert_eq!(config.mcp_servers.len(), 1);
    assert_eq!(
        config.mcp_servers[0].transport,
        McpTransport::Stdio { command: "srv".into(), args: vec!["a".into(), "1".into()], env: vec![] }
    );
    assert_eq!(config.hooks.len(), 1);
    assert_eq!(config.hooks[0].timeout_s, Some(5));
    let text: Vec<String> = warnings.iter().map(ToString::to_string).collect();
    assert_eq!(text.len(), 5, "{text:#?}");
    assert!(text.iter().any(|w| w.contains("mcp_servers.nocmd: stdio needs a command; server skipped")));
    assert!(text.iter().any(|w| w.contains("hooks.Sometimes: unknown hook event")));
}

#[test]
fn unknown_keys_are_warnings() {
    let fixture = Fixture::new("unknown");
    fixture.write("home/config.yaml", "providers:\n  - {name: a, protocol: openai, model: m, modle: x}\ncolour: red\n");
    let (_, warnings) = fixture.load(false, None, &[]).unwrap();
    let text: Vec<String> = warnings.iter().map(|w| w.message.clone()).collect();
    assert!(text.iter().any(|w| w.starts_with("colour: unknown key")), "{text:?}");
    assert!(text.iter().any(|w| w.starts_with("providers[0].modle: unknown key")), "{text:?}");
}

#[test]
fn text_tool_calls_on_an_anthropic_provider_is_a_warning() {
    let fixture = Fixture::new("text-calls-anthropic");
    fixture
        .write("home/config.yaml", "providers:\n  - {name: a, protocol: anthropic, model: m, text_tool_calls: off}\n");
    let (_, warnings) = fixture.load(false, None, &[]).unwrap();
    let text: Vec<String> = warnings.iter().map(|w| w.message.clone()).collect();
    assert_eq!(text, ["providers[0].text_tool_calls: only the openai protocol has it; ignored"]);
}

#[test]
fn missing_extra_config_is_an_error_but_missing_levels_are_not() {
    let fixture = Fixture::new("missing");
    let (config, warnings) = fixture.load(true, None, &[]).unwrap();
    assert!(config.providers.is_empty() && warnings.is_empty());
    assert_eq!(config.sources.iter().filter(|s| s.found).count(), 0);
    let err = fixture.load(true, Some("nope.yaml"), &[]).unwrap_err();
    assert!(err.to_string().contains("nope.yaml"), "{err}");
}

#[test]
fn loopback_detection() {
    for url in [
        "http://127.0.0.1:11434/v1",
        "http://localhost:8000/v1",
        "http://[::1]:8000",
        "https://127.5.5.5",
        "http://LOCALHOST",
    ] {
        assert!(is_loopback_url(url), "{url}");
    }
    for url in
        ["https://api.openai.com/v1", "http://10.0.0.1:8000", "http://localhost.evil.com", "http://127.0.0.1.nip.io"]
    {
        assert!(!is_loopback_url(url), "{url}");
    }
}

#[test]
fn request_settings_are_read_with_variables_expanded() {
    let fixture = Fixture::new("request-settings");
    fixture.write(
        "home/config.yaml",
        "providers:\n  - name: azure\n    protocol: openai\n    model: gpt\n    temperature: 0.3\n    top_p: 1\n    headers: {api-key: \"${AZURE_KEY}\", HTTP-Referer: https://example.org}\n    extra_body: {top_k: 20, chat_template_kwargs: {enable_thinking: false}}\n",
    );
    let (config, warnings) = fixture.load(false, None, &[("AZURE_KEY", "az-1")]).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    let expected = RequestSettings {
        temperature: Some(0.3),
        top_p: Some(1.0),
        headers: vec![
            ("api-key".to_string(), "az-1".to_string()),
            ("HTTP-Referer".to_string(), "https://example.org".to_string()),
        ],
        extra_body: serde_json::json!({"top_k": 20, "chat_template_kwargs": {"enable_thinking": false}})
            .as_object()
            .cloned()
            .unwrap_or_default(),
    };
    assert_eq!(config.providers[0].request, expected);
}

#[test]
fn a_providers_price_overrides_the_table_and_cache_rates_default_from_input() {
    let fixture = Fixture::new("price");
    fixture.write(
        "home/config.yaml",
        "providers:\n  - {name: a, protocol: anthropic, model: claude-sonnet-4-5, price: {input: 2, output: 10, cache_read: 0.5}}\n  - {name: b, protocol: anthropic, model: claude-sonnet-4-5}\n",
    );
    let (config, warnings) = fixture.load(false, None, &[]).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    let configured = super::price::Price { input: 2.0, output: 10.0, cache_write: 2.5, cache_read: 0.5 };
    assert_eq!(config.providers[0].price, Some(configured));
    assert_eq!(config.providers[1].price, None);
    let table = super::price::price_for(config.providers[1].price, &config.providers[1].model);
    assert_eq!(table.map(|price| (price.input, price.output)), Some((3.0, 15.0)));
}

#[test]
fn base_url_variables_fill_only_providers_without_a_base_url() {
    let fx = Fixture::new("env-base-url");
    fx.write(
        "home/config.yaml",
        "providers:\n  - {name: a, protocol: anthropic, model: m}\n  - {name: o, protocol: openai, model: m}\n  - {name: own, protocol: openai, model: m, base_url: \"http://h:1/v1\"}\n",
    );
    let (config, _) =
        fx.load(false, None, &[("ANTHROPIC_BASE_URL", "http://proxy:9/"), ("OPENAI_BASE_URL", "")]).unwrap();
    let urls: Vec<&str> = config.providers.iter().map(|provider| provider.base_url.as_str()).collect();
    assert_eq!(urls, ["http://proxy:9", "https://api.openai.com/v1", "http://h:1/v1"]);
}

#[test]
fn openai_api_base_is_read_below_openai_base_url() {
    let fx = Fixture::new("env-api-base");
    fx.write("home/config.yaml", "providers:\n  - {name: o, protocol: openai, model: m}\n");
    let (config, _) = fx.load(false, None, &[("OPENAI_API_BASE", "http://litellm:4000/v1/")]).unwrap();
    assert_eq!(config.providers[0].base_url, "http://litellm:4000/v1");
    let both = [("OPENAI_BASE_URL", "http://first:1/v1"), ("OPENAI_API_BASE", "http://second:2/v1")];
    let (config, _) = fx.load(false, None, &both).unwrap();
    assert_eq!(config.providers[0].base_url, "http://first:1/v1");
}

#[test]
fn the_auth_token_applies_to_anthropic_providers_without_a_key() {
    let fx = Fixture::new("env-auth-token");
    fx.write(
        "home/config.yaml",
        "providers:\n  - {name: a, protocol: anthropic, model: m}\n  - {name: k, protocol: anthropic, model: m, api_key: own}\n  - {name: o, protocol: openai, model: m}\n",
    );
    let (config, _) = fx.load(false, None, &[("ANTHROPIC_AUTH_TOKEN", "gw")]).unwrap();
    let tokens: Vec<&str> = config.providers.iter().map(|provider| provider.auth_token.as_str()).collect();
    assert_eq!(tokens, ["gw", "", ""]);
    assert_eq!(config.providers[0].api_key_hint, "the ANTHROPIC_AUTH_TOKEN environment variable");
    let (_, warning) = select_provider(&config, Some("a")).unwrap();
    assert!(warning.is_none(), "a token is a credential: {warning:?}");
}

#[test]
fn a_base_url_that_expands_to_nothing_is_an_error_naming_file_and_key() {
    let fx = Fixture::new("empty-base-url");
    fx.write("home/config.yaml", "providers:\n  - {name: a, protocol: openai, model: m, base_url: \"${UNSET}\"}\n");
    let err = fx.load(false, None, &[]).unwrap_err();
    assert_eq!(err.key_path, "providers[0].base_url");
    assert!(err.file.ends_with("config.yaml"), "{err}");
    assert!(err.message.contains("empty"), "{err}");
}

fn stdio_of(command: &str, args: &[&str]) -> McpTransport {
    McpTransport::Stdio { command: command.into(), args: args.iter().map(|arg| arg.to_string()).collect(), env: vec![] }
}

fn http_of(url: &str, headers: &[(&str, &str)]) -> McpTransport {
    let headers = headers.iter().map(|(name, value)| (name.to_string(), value.to_string())).collect();
    McpTransport::Http { url: url.into(), headers, ca_file: None }
}

#[test]
fn mcp_blocks_pasted_from_claude_code_and_desktop_parse_as_they_are() {
    let fixture = Fixture::new("pasted");
    // 1. no type, a command: stdio; 2. no type, a url: http; 3. type streamable-http;
    // 4. Claude's top-level mcpServers key (a JSON block is YAML too).
    fixture.write(
        "home/config.yaml",
        r#"mcp_servers:
  fs: {command: npx, args: ["-y", "@modelcontextprotocol/server-filesystem", "."]}
  docs: {url: "https://docs.example.com/mcp", headers: {Authorization: "Bearer ${T}"}}
  stream: {type: streamable-http, url: "http://127.0.0.1:9/mcp"}
mcpServers: {"github": {"command": "gh-mcp", "args": ["stdio"], "env": {"GITHUB_TOKEN": "x"}},
             "linear": {"type": "http", "url": "https://mcp.linear.app/mcp"}}
"#,
    );
    let (config, warnings) = fixture.load(false, None, &[("T", "tok")]).unwrap();
    assert_eq!(warnings, Vec::<Warning>::new());
    let servers: Vec<(&str, &McpTransport)> =
        config.mcp_servers.iter().map(|server| (server.name.as_str(), &server.transport)).collect();
    let github = McpTransport::Stdio {
        command: "gh-mcp".into(),
        args: vec!["stdio".into()],
        env: vec![("GITHUB_TOKEN".into(), "x".into())],
    };
    assert_eq!(
        servers,
        vec![
            ("docs", &http_of("https://docs.example.com/mcp", &[("Authorization", "Bearer tok")])),
            ("fs", &stdio_of("npx", &["-y", "@modelcontextprotocol/server-filesystem", "."])),
            ("github", &github),
            ("linear", &http_of("https://mcp.linear.app/mcp", &[])),
            ("stream", &http_of("http://127.0.0.1:9/mcp", &[])),
        ]
    );
    assert!(config.mcp_servers.iter().all(|server| server.trust_hints), "the user's own servers");
}

#[test]
fn mcp_entries_that_cannot_be_inferred_say_what_to_write() {
    let fixture = Fixture::new("pasted-bad");
    fixture.write(
        "home/config.yaml",
        "mcpServers:\n  both: {command: x, url: \"http://h/mcp\"}\n  neither: {args: [a]}\n  old: {type: sse, url: \"http://h/sse\"}\n  hints: {command: x, trust_hints: maybe}\n",
    );
    let (config, warnings) = fixture.load(false, None, &[]).unwrap();
    assert!(config.mcp_servers.is_empty());
    let text: Vec<String> = warnings.iter().map(|warning| warning.message.clone()).collect();
    assert_eq!(
        text,
        vec![
            "mcpServers.both: type: missing, and both command and url are given; say stdio or http; server skipped",
            "mcpServers.neither: needs a command (a stdio server) or a url (an http server); server skipped",
            "mcpServers.old: type: sse (the old HTTP+SSE transport) is not supported; use the server's Streamable HTTP endpoint (often /mcp) with type: http; server skipped",
            "mcpServers.hints: trust_hints: expected true or false, got \"maybe\"; server skipped",
        ]
    );
}

#[test]
fn a_projects_mcp_json_is_read_only_when_trusted_and_its_hints_are_never_believed() {
    let fixture = Fixture::new("mcp-json");
    fixture.write(
        "proj/.mcp.json",
        "{\n\t\"mcpServers\": {\n\t\t\"local\": {\"command\": \"srv\", \"args\": [\"${ARG}\"], \"trust_hints\": true},\n\t\t\"shared\": {\"command\": \"from-json\"}\n\t},\n\t\"other-tool\": {}\n}\n",
    );
    fixture.write("proj/.mewcode.yaml", "mcp_servers:\n  shared: {command: from-yaml}\n");
    fixture
        .write("home/config.yaml", "mcp_servers:\n  mine: {command: me}\n  off: {command: me, trust_hints: false}\n");
    let (config, warnings) = fixture.load(false, None, &[("ARG", "a")]).unwrap();
    let names: Vec<&str> = config.mcp_servers.iter().map(|server| server.name.as_str()).collect();
    assert_eq!(names, vec!["mine", "off"]);
    assert_eq!(
        config.untrusted_project,
        vec![
            "MCP server local from .mcp.json (srv ${ARG})",
            "MCP server shared from .mcp.json (from-json)",
            "MCP server shared (from-yaml)"
        ]
    );
    assert!(warnings.iter().any(|w| w.source == ".mcp.json" && w.message.contains("not trusted")), "{warnings:?}");
    let project = config.sources.iter().filter(|source| source.level == Level::Project);
    assert_eq!(
        project.map(|source| (source.display.as_str(), source.applied)).collect::<Vec<_>>(),
        vec![(".mcp.json", false), (".mewcode.yaml", false)]
    );
    let (config, warnings) = fixture.load(true, None, &[("ARG", "a")]).unwrap();
    assert_eq!(warnings, Vec::<Warning>::new());
    let servers: Vec<(&str, &McpTransport, bool, &str)> = config
        .mcp_servers
        .iter()
        .map(|server| (server.name.as_str(), &server.transport, server.trust_hints, server.source.as_str()))
        .collect();
    let home_config = fixture.dir.join("home/config.yaml").display().to_string();
    assert_eq!(
        servers,
        vec![
            ("local", &stdio_of("srv", &["a"]), false, ".mcp.json"),
            ("mine", &stdio_of("me", &[]), true, home_config.as_str()),
            ("off", &stdio_of("me", &[]), false, home_config.as_str()),
            ("shared", &stdio_of("from-yaml", &[]), false, ".mewcode.yaml"),
        ]
    );
    // A broken .mcp.json loses its servers, not the run.
    fixture.write("proj/.mcp.json", "{\"mcpServers\": ");
    let (config, warnings) = fixture.load(true, None, &[]).unwrap();
    assert_eq!(config.mcp_servers.len(), 3);
    assert!(warnings.iter().any(|w| w.source == ".mcp.json" && w.message.contains("its servers are not started")));
}

#[test]
fn only_the_users_own_config_can_put_bypass_in_the_mode_cycle() {
    let fixture = Fixture::new("bypass-cycle");
    let (config, _) = fixture.load(true, None, &[]).unwrap();
    assert!(!config.bypass_in_mode_cycle, "off by default");
    fixture.write("proj/.mewcode.yaml", "bypass_in_mode_cycle: true\n");
    let (config, warnings) = fixture.load(true, None, &[]).unwrap();
    assert!(!config.bypass_in_mode_cycle, "a trusted project still cannot set it");
    assert_eq!(
        warnings.iter().map(ToString::to_string).collect::<Vec<_>>(),
        vec![
            ".mewcode.yaml: bypass_in_mode_cycle is ignored in a project's config; only your own config.yaml can \
             put bypass in the Shift-Tab cycle"
        ]
    );
    fixture.write("home/config.yaml", "bypass_in_mode_cycle: true\n");
    let (config, _) = fixture.load(true, None, &[]).unwrap();
    assert!(config.bypass_in_mode_cycle);
    fixture.write("extra.yaml", "bypass_in_mode_cycle: false\n");
    let (config, _) = fixture.load(true, Some("extra.yaml"), &[]).unwrap();
    assert!(!config.bypass_in_mode_cycle, "--config overrides the user's file");
    fixture.write("home/config.yaml", "bypass_in_mode_cycle: sometimes\n");
    assert_eq!(
        fixture.load(true, None, &[]).unwrap_err().to_string(),
        format!(
            "{}: bypass_in_mode_cycle: expected true or false, got \"sometimes\"",
            fixture.dir.join("home/config.yaml").display()
        )
    );
}

#[test]
fn the_network_policy_loads_from_the_users_files_and_a_trusted_project_only_narrows_it() {
    let fx = Fixture::new("network-policy");
    fx.write(
        "home/config.yaml",
        "sandbox:\n  network: allowlist\n  allow_hosts:\n    - api.example.com\n    - \"*.corp.example\"\n",
    );
    fx.write("proj/.mewcode.yaml", "sandbox: {network: open, allow_hosts: [evil.example], allow_registries: false}\n");
    fx.write("extra.yaml", "sandbox: {allow_hosts: ['git.example.net:22']}\n");
    let (config, warnings) = fx.load(true, Some("extra.yaml"), &[]).unwrap();
    let hosts: Vec<String> = config.sandbox.allow_hosts.iter().map(|allowed| allowed.pattern.to_string()).collect();
    assert_eq!(hosts, ["api.example.com", "*.corp.example", "git.example.net:22"]);
    assert_eq!(config.sandbox.network_mode, NetworkMode::Allowlist);
    assert!(config.sandbox.network, "allowlist keeps the sockets until the proxy enforces it");
    assert!(!config.sandbox.allow_registries && config.sandbox.allow_git_remotes);
    let texts: Vec<String> = warnings.iter().map(ToString::to_string).collect();
    assert!(
        texts.iter().any(|text| text.starts_with(".mewcode.yaml: sandbox: a project can only tighten")
            && text.contains("network: open, allow_hosts \"evil.example\"")),
        "{texts:?}"
    );
    // A bad entry stops the load and names the file and the key path.
    fx.write("home/config.yaml", "sandbox:\n  allow_hosts: [ok.example, 'https://bad.example']\n");
    let err = fx.load(false, None, &[]).unwrap_err();
    assert_eq!((err.key_path.as_str(), err.file.ends_with("config.yaml")), ("sandbox.allow_hosts[1]", true));
    // An untrusted project's narrowing is described, not applied.
    fx.write("home/config.yaml", "");
    fx.write("proj/.mewcode.yaml", "sandbox: {network: off}\n");
    let (config, _) = fx.load(false, None, &[]).unwrap();
    assert_eq!(config.sandbox.network_mode, NetworkMode::Allowlist);
    assert!(config.untrusted_project.contains(&"sandbox network off".to_string()), "{:?}", config.untrusted_project);
}

#[test]
fn checks_merge_by_pattern_across_levels_and_an_untrusted_projects_are_only_listed() {
    let fixture = Fixture::new("checks");
    fixture.write(
        "home/config.yaml",
        "checks:\n  - {pattern: \"**/*.py\", command: \"python3 -m py_compile {file}\"}\n  - {pattern: \"*.sh\", command: \"sh -n {file}\"}\n",
    );
    fixture.write(
        "proj/.mewcode.yaml",
        "checks:\n  - {pattern: \"**/*.py\", command: \"ruff check {file}\", timeout: 60}\n",
    );
    fixture.write("extra.yaml", "checks:\n  - {pattern: \"src/**/*.rs\", command: cargo check -q}\n");
    let listed = |config: &Config| -> Vec<(String, String)> {
        config.checks.iter().map(|check| (check.command.clone(), check.source.clone())).collect()
    };
    let user = fixture.dir.join("home/config.yaml").display().to_string();
    let extra = fixture.dir.join("extra.yaml").display().to_string();
    let (config, _) = fixture.load(true, Some("extra.yaml"), &[]).unwrap();
    assert_eq!(
        listed(&config),
        [
            ("sh -n {file}".to_string(), user.clone()),
            ("ruff check {file}".to_string(), ".mewcode.yaml".to_string()),
            ("cargo check -q".to_string(), extra),
        ]
    );
    assert_eq!(config.checks[1].timeout_s, 60);
    let (config, warnings) = fixture.load(false, None, &[]).unwrap();
    assert_eq!(
        listed(&config),
        [("python3 -m py_compile {file}".to_string(), user.clone()), ("sh -n {file}".to_string(), user)]
    );
    assert_eq!(config.untrusted_project, ["check `ruff check {file}` after writing **/*.py"]);
    assert!(warnings.iter().any(|w| w.message.contains("check `ruff check {file}` after writing **/*.py")));
    // A bad glob stops the load, naming the file and the key path.
    fixture.write("home/config.yaml", "checks:\n  - {pattern: \"src/\", command: x}\n");
    let err = fixture.load(false, None, &[]).unwrap_err();
    assert_eq!(
        (err.key_path.as_str(), err.file),
        ("checks[0].pattern", fixture.dir.join("home/config.yaml").display().to_string())
    );
}
