//! `mewcode doctor`: config files, effective providers (keys masked), warnings, reachability,
//! and for OpenAI-compatible servers the context window they report and, for the provider a run
//! would use, what one small test request shows (tool calls, reasoning, usage), with the
//! provider settings that follow.
//!
//! Invariant: a front end; it prints and checks, never changes anything. Keys are never shown
//! whole. Endpoint checks run concurrently, each with its own timeout; only the selected
//! provider gets the test request (it makes the model generate a few tokens).

use crate::config::skills::Skill;
use crate::config::{Config, Level, ProviderConfig, WindowSource};
use crate::confine::{Sandbox, Status};
use crate::context::Limits;
use crate::glyphs::Glyphs;
use crate::http::net::NetEnv;
use crate::llm::capabilities::{self, Capabilities};
use crate::llm::discovery::{self, Discovered};
use crate::llm::probe::{self, LocalServer, Reachability};
use crate::llm::window_cache::WindowCache;
use crate::text::neutralize;
use crate::warning::Warning;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Everything doctor reports on, gathered by app.rs.
pub(crate) struct Input<'a> {
    pub version: &'a str,
    pub root: &'a Path,
    /// How the root was chosen (`git top level`, ...).
    pub root_kind: String,
    /// The instruction files loaded into the prompt, in prompt order.
    pub instructions: Vec<PathBuf>,
    /// The skills a run would offer (their problems are among `warnings`).
    pub skills: &'a [Skill],
    pub home: &'a Path,
    pub config: &'a Config,
    /// The provider a run would use.
    pub selected: Option<&'a str>,
    pub warnings: &'a [Warning],
    /// The local server the probe found, when nothing is configured.
    pub local: Option<&'a LocalServer>,
    /// The provider a run would build for `local` (examined like a configured one).
    pub local_provider: Option<ProviderConfig>,
    /// (level, path, state) of the permission settings files: `not found`, `found`, or for the
    /// local file whether mewcode wrote it or why its allow rules are ignored.
    pub settings_files: Vec<(String, PathBuf, String)>,
    /// The MCP servers' status after connecting to each (empty when none is configured).
    pub mcp_report: String,
    /// How commands would be confined.
    pub sandbox: &'a Sandbox,
    /// Colour escapes allowed (an unconfined sandbox is shown in red).
    pub color: bool,
    /// The locale's symbols.
    pub glyphs: &'static Glyphs,
    /// Proxy and CA settings for the window discovery and the test request.
    pub net: &'a NetEnv,
    /// What discovery remembers per endpoint (`$MEWCODE_HOME/discovery.json`), and the time
    /// (seconds since the epoch) its ages are told at.
    pub remembered: &'a WindowCache,
    pub now: u64,
}

const ENDPOINT_TIMEOUT: Duration = Duration::from_secs(5);

/// What doctor learnt about one provider's endpoint.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Findings {
    pub reachability: Reachability,
    /// None: the window was not asked (configured, or not an OpenAI-compatible server of
    /// one's own); Some(None): asked, nobody reported one.
    pub window: Option<Option<Discovered>>,
    /// The test request's outcome (the selected OpenAI-protocol provider only).
    pub capabilities: Option<Result<Capabilities, String>>,
}

/// Checks every provider's endpoint concurrently and prints the report.
#[expect(clippy::print_stdout, reason = "a front end: the report goes to stdout, and this is its one print")]
pub(crate) fn run(input: &Input) {
    // With nothing configured, the local server a run would use is examined instead.
    let providers: Vec<&ProviderConfig> = if input.config.providers.is_empty() {
        input.local_provider.iter().collect()
    } else {
        input.config.providers.iter().collect()
    };
    let findings: Vec<Findings> = std::thread::scope(|scope| {
        let handles: Vec<_> = providers
            .into_iter()
            .map(|provider| {
                let selected = input.selected == Some(provider.name.as_str()) || input.config.providers.is_empty();
                scope.spawn(move || examine(provider, selected, input.net))
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| {
                handle.join().unwrap_or(Findings {
                    reachability: Reachability::Unreachable { message: "check failed internally".to_string() },
                    window: None,
                    capabilities: None,
                })
            })
            .collect()
    });
    print!("{}", render(input, &findings));
}

/// Reachability, then (OpenAI-compatible servers of one's own) the window and, for the selected
/// provider, the test request; the three run at once.
fn examine(provider: &ProviderConfig, selected: bool, net: &NetEnv) -> Findings {
    let own_server = provider.is_own_openai_server();
    std::thread::scope(|scope| {
        let window = (own_server && provider.window_source == WindowSource::Default)
            .then(|| scope.spawn(|| discovery::discover_window(provider, net, discovery::DISCOVERY_BUDGET)));
        let test = (own_server && selected)
            .then(|| scope.spawn(|| capabilities::probe(provider, net, capabilities::PROBE_TIMEOUT)));
        let reachability = probe::check_endpoint(provider, ENDPOINT_TIMEOUT);
        Findings {
            reachability,
            window: window.map(|handle| handle.join().ok().flatten()),
            capabilities: test
                .map(|handle| handle.join().unwrap_or_else(|_| Err("the test request failed internally".to_string()))),
        }
    })
}

/// The report text (pure, so it is tested without network).
pub(crate) fn render(input: &Input, findings: &[Findings]) -> String {
    let mut out = format!(
        "mewcode {} doctor\n\nproject root  {}  ({})\nuser dir      {}\n",
        input.version,
        input.root.display(),
        input.root_kind,
        input.home.display()
    );
    out.push_str("\ninstruction files\n");
    if input.instructions.is_empty() {
        out.push_str("  none (AGENTS.md or CLAUDE.md from the project root down to here, $MEWCODE_HOME/AGENTS.md)\n");
    }
    for path in &input.instructions {
        out.push_str(&format!("  {}  (loaded)\n", path.display()));
    }
    match input.skills.len() {
        0 => out.push_str(
            "\nskills\n  none (folders with a SKILL.md in .mewcode/skills, .claude/skills, .agents/skills, \
             $MEWCODE_HOME/skills, ~/.claude/skills, ~/.agents/skills)\n",
        ),
        count => {
            out.push_str(&format!("\nskills ({count} found; only their names and descriptions are in the prompt)\n"))
        }
    }
    for skill in input.skills {
        out.push_str(&format!("  {:<16} {}\n", skill.name, neutralize(&skill.file)));
    }
    out.push_str("\nconfig files\n");
    for source in &input.config.sources {
        let level = match source.level {
            Level::User => "user",
            Level::Project => "project",
            Level::Invocation => "--config",
        };
        let state = match (source.found, source.applied) {
            (false, _) => "not found",
            (true, true) => "loaded",
            (true, false) => "found, NOT trusted: ignored (pass --trust or trust it in the REPL)",
        };
        out.push_str(&format!("  {level:<9} {}  ({state})\n", source.display));
    }
    out.push_str("\npermission settings\n");
    for (level, path, state) in &input.settings_files {
        out.push_str(&format!("  {level:<9} {}  ({})\n", path.display(), neutralize(state)));
    }
    out.push_str("\nproviders\n");
    if input.config.providers.is_empty() {
        match input.local {
            Some(server) => {
                out.push_str(&format!(
                    "  none configured; a run would use the local {} server at {} (models: {})\n",
                    server.kind,
                    server.base_url,
                    server.models.join(", ")
                ));
                if let (Some(provider), Some(found)) = (&input.local_provider, findings.first()) {
                    out.push_str(&render_findings(provider, found, input.glyphs));
                    out.push_str(&render_remembered(input.remembered, input.now, input.home, provider));
                }
            }
            None => match (&input.local_provider, findings.first()) {
                (Some(provider), Some(found)) => {
                    out.push_str(&format!(
                        "  none configured; a run would use {} from {} (model {})\n",
                        provider.base_url, provider.source, provider.model
                    ));
                    out.push_str(&render_findings(provider, found, input.glyphs));
                    out.push_str(&render_remembered(input.remembered, input.now, input.home, provider));
                }
                _ => {
                    out.push_str("  none configured, and no local server (Ollama, vLLM, llama.cpp, LM Studio) answered: see `mewcode --help`\n")
                }
            },
        }
    }
    for (index, provider) in input.config.providers.iter().enumerate() {
        let marker = if input.selected == Some(provider.name.as_str()) { "*" } else { " " };
        out.push_str(&render_provider(marker, provider, input.glyphs));
        if provider.base_url.to_ascii_lowercase().starts_with("https://") {
            let roots =
                crate::http::roots::roots_in_use(input.net.ssl_cert_file.as_deref(), provider.ca_file.as_deref());
            out.push_str(&format!("      tls roots: {roots}\n"));
        }
        let found = findings.get(index);
        let status = match found.map(|found| &found.reachability) {
            Some(Reachability::Ok { models, has_model }) => {
                let listed = match has_model {
                    Some(true) => "; the model is listed",
                    Some(false) => "; the model is NOT in the list (check the name)",
                    None => "",
                };
                let mut names: Vec<String> = models.iter().take(5).map(|name| neutralize(name)).collect();
                if models.len() > 5 {
                    names.push(input.glyphs.ellipsis.to_string());
                }
                let names = if names.is_empty() { String::new() } else { format!(": {}", names.join(", ")) };
                format!("reachable ({} models{names}{listed})", models.len())
            }
            Some(Reachability::Status { status: 401 | 403, message }) => {
                format!("answered 401/403: the key is wrong or missing; set {} ({message})", provider.api_key_hint)
            }
            Some(Reachability::Status { status, message }) => format!("answered HTTP {status}: {message}"),
            Some(Reachability::Unreachable { message }) => format!("UNREACHABLE: {message}"),
            None => "not checked".to_string(),
        };
        out.push_str(&format!("      endpoint: {status}\n"));
        out.push_str(&render_vision(provider, input.remembered, input.now));
        if let Some(found) = found {
            out.push_str(&render_findings(provider, found, input.glyphs));
        }
        out.push_str(&render_remembered(input.remembered, input.now, input.home, provider));
    }
    out.push_str("\nMCP servers\n");
    if input.config.mcp_servers.is_empty() {
        out.push_str("  none configured\n");
    } else {
        for line in input.mcp_report.lines() {
            out.push_str(&format!("  {}\n", neutralize(line)));
        }
    }
    out.push_str("\nhooks\n");
    if input.config.hooks.is_empty() {
        out.push_str("  none configured\n");
    }
    for hook in &input.config.hooks {
        let matcher = if hook.matcher.is_empty() { "*" } else { &hook.matcher };
        out.push_str(&format!("  {:<16} {matcher:<10} {}\n", hook.event.as_str(), hook.command));
    }
    out.push_str(&render_checks(&input.config.checks));
    out.push_str("\nsandbox\n");
    out.push_str(&render_sandbox(input.sandbox, input.color));
    for dir in &input.config.add_dirs {
        out.push_str(&format!("  added:         {}\n", neutralize(&dir.describe())));
    }
    out.push_str("\nwarnings\n");
    if input.warnings.is_empty() {
        out.push_str("  none\n");
    }
    for warning in input.warnings {
        out.push_str(&format!("  - {warning}\n"));
    }
    out
}

/// The sandbox section: the summary (red when commands are not confined, yellow when the kernel
/// cannot), then what it allows.
fn render_sandbox(sandbox: &Sandbox, color: bool) -> String {
    let summary = sandbox.summary();
    let code = match sandbox.status() {
        Status::Confined { .. } => None,
        Status::Unavailable { .. } => Some("33"),
        Status::Off { .. } => Some("31"),
    };
    let mut out = match code {
        Some(code) if color => format!("  \x1b[{code}m{summary}\x1b[0m\n"),
        _ => format!("  {summary}\n"),
    };
    if let Status::Unavailable { .. } = sandbox.status() {
        out.push_str("  set `sandbox: {mode: required}` to refuse to run commands unconfined, or `{mode: off}` to silence this\n");
    }
    if !matches!(sandbox.status(), Status::Off { .. }) {
        for line in sandbox.describe() {
            out.push_str(&format!("  {line}\n"));
        }
        for line in sandbox.network_lines().unwrap_or_default() {
            out.push_str(&format!("  {line}\n"));
        }
    }
    out
}

/// Whether the model accepts images and who said so: `vision: yes (configured)`, or what
/// discovery remembers the server said, or the default.
fn render_vision(provider: &ProviderConfig, remembered: &WindowCache, now: u64) -> String {
    let mut provider = provider.clone();
    if let Some(entry) = remembered.fresh(&provider.base_url, &provider.model, now)
        && let (Some(accepts), Some(endpoint)) = (entry.vision, &entry.vision_endpoint)
    {
        provider.discovered_vision(accepts, endpoint);
    }
    format!("      vision: {}\n", provider.vision().describe())
}

/// What a run would take from discovery's memory instead of asking the server: the window, where
/// it came from and its age; for a provider whose window a run asks for and nothing is
/// remembered, that the next run asks. Nothing where a run asks nothing (a configured window).
fn render_remembered(remembered: &WindowCache, now: u64, home: &Path, provider: &ProviderConfig) -> String {
    if !discovery::wants_discovery(provider) {
        return String::new();
    }
    let path = home.join(crate::llm::window_cache::FILE_NAME);
    match remembered.fresh(&provider.base_url, &provider.model, now) {
        Some(entry) => format!("      remembered: {} ({})\n", entry.describe(now), path.display()),
        None => "      remembered: nothing yet (the next run asks the server)\n".to_string(),
    }
}

/// The window the server reports, the test request's result and the settings they suggest.
fn render_findings(provider: &ProviderConfig, found: &Findings, glyphs: &Glyphs) -> String {
    let mut out = String::new();
    let mut recommended = Vec::new();
    match (&found.window, &provider.window_source) {
        (Some(Some(window)), _) => {
            let note = window.note.as_deref().map(|note| format!("; {note}")).unwrap_or_default();
            out.push_str(&format!("      window: {} from {}{note}\n", window.window, window.endpoint));
            // Only an assumed window carries a note (Ollama's default, num_ctx not set).
            if window.note.is_some() {
                recommended.push(
                    "# Ollama: give the server a larger window (OLLAMA_CONTEXT_LENGTH=32768 ollama serve, or a model \
                     with PARAMETER num_ctx 32768), then set context_window to it"
                        .to_string(),
                );
            } else {
                recommended.push(format!(
                    "context_window: {}   # what {} reports (asked at each start when unset)",
                    window.window, window.endpoint
                ));
            }
        }
        (Some(None), _) => {
            out.push_str(&format!(
                "      window: the server reported none, so {} (the {} default) is assumed\n",
                provider.context_window,
                provider.protocol.as_str()
            ));
            recommended.push("context_window: <the server's window>   # this server does not report it".to_string());
        }
        (None, WindowSource::Configured) => {
            out.push_str(&format!("      window: {} (configured)\n", provider.context_window));
        }
        (None, source) => out.push_str(&format!("      window: {} ({})\n", provider.context_window, source.describe())),
    }
    let window = match &found.window {
        Some(Some(discovered)) => discovered.window,
        Some(None) | None => provider.context_window,
    };
    if let Some((note, fitting)) = max_tokens_clamp(provider.max_tokens, window, provider.compact_at) {
        out.push_str(&format!("      {note}\n"));
        // An assumed window (Ollama's default) is to be raised on the server, not fitted to.
        let assumed = matches!(&found.window, Some(Some(discovered)) if discovered.note.is_some());
        if let Some(fitting) = fitting.filter(|_| !assumed) {
            recommended.push(format!("max_tokens: {fitting}   # what fits the window with an empty conversation"));
        }
    }
    match &found.capabilities {
        Some(Ok(capabilities)) => {
            out.push_str(&format!("      test request: {}\n", capabilities.describe(glyphs.separator)));
            recommended.extend(capabilities.recommendations());
        }
        Some(Err(message)) => out.push_str(&format!("      test request: FAILED: {}\n", neutralize(message))),
        None => {}
    }
    if !recommended.is_empty() {
        out.push_str(&format!("      recommended settings for provider {}:\n", provider.name));
        for line in recommended {
            out.push_str(&format!("        {line}\n"));
        }
    }
    out
}

/// When requests will ask for less than the configured `max_tokens` before compaction would
/// make room (the agent lowers it so prompt + max_tokens fit the window, `Limits::reply_max_tokens`):
/// a line saying so, and the value that fits an empty conversation when even that is lowered.
/// None when the cap is sent whole until compaction starts, or the window is unknown.
fn max_tokens_clamp(max_tokens: u32, window: u64, compact_at: Option<f64>) -> Option<(String, Option<u32>)> {
    let limits = Limits::for_window(window);
    let threshold = limits.auto_threshold(compact_at)?;
    let floor = (window / 16).max(1);
    let at_start = limits.reply_max_tokens(max_tokens, 0);
    if at_start < max_tokens {
        let note = format!(
            "max_tokens {max_tokens} does not fit the {window}-token window: requests ask for at most {at_start}, \
             less as the conversation grows (never below {floor})"
        );
        return Some((note, Some(at_start)));
    }
    // The largest prompt estimate for which the whole cap is still sent.
    let whole_until = window.saturating_sub(limits.safety_margin + u64::from(max_tokens));
    (whole_until < threshold).then(|| {
        let note = format!(
            "max_tokens {max_tokens} is lowered once the conversation passes about {whole_until} tokens \
             (compaction starts at {threshold}; never below {floor})"
        );
        (note, None)
    })
}

fn render_provider(marker: &str, provider: &ProviderConfig, glyphs: &Glyphs) -> String {
    let key = if provider.api_key.is_empty() && !provider.auth_token.is_empty() {
        let token = mask_key(&provider.auth_token, glyphs.ellipsis);
        format!("bearer token {token} (from {})", provider.api_key_hint)
    } else if provider.api_key.is_empty() {
        if provider.is_loopback() {
            "none (local)".to_string()
        } else {
            format!("MISSING: set {}", provider.api_key_hint)
        }
    } else {
        format!("{} (from {})", mask_key(&provider.api_key, glyphs.ellipsis), provider.api_key_hint)
    };
    format!(
        "{marker} {}  {} {}  {}\n      key: {key}\n      max_tokens {}{}  (from {})\n",
        provider.name,
        provider.protocol.as_str(),
        provider.model,
        provider.base_url,
        provider.max_tokens,
        if provider.thinking { format!("{}thinking", glyphs.separator) } else { String::new() },
        provider.source,
    )
}

/// Shows a key's first three and last four characters only when it is long enough that this
/// reveals nothing useful; short keys are fully masked.
fn mask_key(key: &str, ellipsis: &str) -> String {
    let chars: Vec<char> = key.chars().collect();
    if chars.len() < 16 {
        return "*".repeat(chars.len().clamp(4, 8));
    }
    let head: String = chars[..3].iter().collect();
    let tail: String = chars[chars.len() - 4..].iter().collect();
    format!("{head}{ellipsis}{tail}")
}

/// The checks after edits: each pattern, command, timeout and the file it came from.
fn render_checks(checks: &[crate::config::CheckConfig]) -> String {
    let mut out = "\nchecks after edits (confined, in the project root)\n".to_string();
    if checks.is_empty() {
        out.push_str("  none configured\n");
    }
    for check in checks {
        let (pattern, command) = (neutralize(check.pattern.as_str()), neutralize(&check.command));
        out.push_str(&format!("  {pattern:<16} {command}  (timeout {} s; from {})\n", check.timeout_s, check.source));
    }
    out
}

#[cfg(test)]
#[path = "doctor_tests.rs"]
mod tests;
