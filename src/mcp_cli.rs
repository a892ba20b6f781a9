//! The front end of `mewcode mcp list`, `mcp call` and `mcp accept`: renders server statuses and tool
//! results for a person (text) or a script (`--json`); and of `mcp add` and `mcp remove`: their
//! arguments parsed (`parse_add`, `parse_remove`, pure) and the entry written to (or removed
//! from) the config file of the scope, with what was written and where said.
//!
//! Invariant: everything a server sent (names, descriptions, stderr, results) is neutralised
//! before it reaches a terminal, since servers are outside our control; JSON output carries it
//! escaped by serde. Rendering is pure (`render_*`); the `print_*` wrappers only write. The
//! servers it starts are shut down before `list` / `call` return.
#![expect(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a front end: it writes listings and results to stdout, notices to stderr"
)]

use crate::cancel::CancelToken;
use crate::config::edit::{check_server_name, has_server, load_text, plan_add, plan_remove, save_text};
use crate::config::{McpServerConfig, McpTransport};
use crate::mcp::{self, Manager, ServerState, ServerStatus, StartOptions};
use crate::text::{neutralize, truncate_chars};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// `mewcode mcp list`: connects `servers`, prints their status, shuts them down. Failed servers
/// are shown in the listing; other warnings (skipped tools) go to stderr. True when every
/// server connected.
pub(crate) fn list(servers: &[McpServerConfig], options: &StartOptions, as_json: bool) -> bool {
    let (mut manager, warnings) = Manager::start(servers, options);
    let statuses = manager.statuses();
    let failed: Vec<String> = statuses
        .iter()
        .filter(|status| matches!(status.state, ServerState::Failed { .. }))
        .map(|status| format!("mcp server {}", status.name))
        .collect();
    for warning in warnings.iter().filter(|warning| !failed.contains(&warning.source)) {
        print_notice(&format!("warning: {warning}"));
    }
    print_list(&statuses, as_json);
    manager.shutdown();
    failed.is_empty()
}

/// How `mewcode mcp call` ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum CallOutcome {
    /// The tool ran; its result is printed.
    Done,
    /// The tool ran and reported an error (`isError`); its result is printed.
    ToolError,
    /// Ctrl-C while waiting.
    Interrupted,
    /// The server could not be reached or the call failed below the tool.
    Failed(String),
}

/// `mewcode mcp call`: connects `server`, calls `tool` (its own name) with `arguments`, prints
/// the rendered result, shuts the server down.
pub(crate) fn call(
    server: &McpServerConfig,
    tool: &str,
    arguments: Value,
    options: &StartOptions,
    cancel: &CancelToken,
    stdout_is_terminal: bool,
) -> CallOutcome {
    let (mut manager, _) = Manager::start(std::slice::from_ref(server), options);
    let Some(client) = manager.client(&server.name) else {
        let (error, stderr) = match manager.statuses().into_iter().next().map(|status| status.state) {
            Some(ServerState::Failed { error, stderr } | ServerState::Stopped { error, stderr }) => (error, stderr),
            Some(ServerState::Connected { .. } | ServerState::Starting) | None => {
                ("not connected".to_string(), Vec::new())
            }
        };
        for line in stderr {
            print_notice(&format!("{} stderr: {line}", server.name));
        }
        return CallOutcome::Failed(format!("mcp server {}: {error}", server.name));
    };
    // A call by hand is still a call: a server flagged by pinning runs nothing until accepted.
    if let Some(reason) = manager.blocked(&server.name) {
        drop(client);
        manager.shutdown();
        return CallOutcome::Failed(format!("mcp server {}: {reason}", server.name));
    }
    let outcome = client.call_tool(tool, arguments, cancel);
    drop(client);
    manager.shutdown();
    match outcome {
        Ok(result) => {
            let rendered = mcp::tool::render_result(&result, None);
            if rendered.placeholders > 0 {
                print_notice("the result has content a model cannot see (shown as placeholders)");
            }
            print_result(&rendered.text, stdout_is_terminal);
            if rendered.is_error { CallOutcome::ToolError } else { CallOutcome::Done }
        }
        Err(mcp::McpError::Cancelled) => CallOutcome::Interrupted,
        Err(err) => CallOutcome::Failed(mcp::tool::call_error(&server.name, &err)),
    }
}

/// `mewcode mcp accept`: records `server`'s current tool definitions as accepted and says how
/// many. True on success; a failure is printed.
pub(crate) fn accept(server: &McpServerConfig, options: &StartOptions) -> bool {
    match mcp::accept(server, options) {
        Ok(count) => {
            let plural = if count == 1 { "" } else { "s" };
            println!(
                "accepted the current definitions of {count} tool{plural} of mcp server {}",
                neutralize(&server.name)
            );
            true
        }
        Err(err) => {
            print_notice(&format!("mcp server {}: {err}", server.name));
            false
        }
    }
}

/// Prints the listing on stdout.
fn print_list(statuses: &[ServerStatus], as_json: bool) {
    if as_json {
        println!("{}", render_list_json(statuses));
    } else {
        print!("{}", render_list_text(statuses));
    }
}

/// Prints a tool's result text on stdout (neutralised when stdout is a terminal).
fn print_result(text: &str, stdout_is_terminal: bool) {
    let text = if stdout_is_terminal { neutralize(text) } else { text.to_string() };
    if text.ends_with('\n') || text.is_empty() {
        print!("{text}");
    } else {
        println!("{text}");
    }
}

/// Prints a notice on stderr.
fn print_notice(message: &str) {
    eprintln!("mewcode: {}", neutralize(message));
}

/// One block per server: a header line, then its tools (or its error and first stderr lines, or,
/// for a server that stopped, why and its last stderr lines).
pub(crate) fn render_list_text(statuses: &[ServerStatus]) -> String {
    if statuses.is_empty() {
        return "no MCP servers configured (add mcp_servers to $MEWCODE_HOME/config.yaml or .mewcode.yaml)\n"
            .to_string();
    }
    let mut out = String::new();
    for status in statuses {
        let head = format!("{} ({}: {})", status.name, status.transport, status.target);
        match &status.state {
            ServerState::Connected { session, tools } => {
                let server = format!("{} {}", session.server_name, session.server_version);
                out.push_str(&format!(
                    "{head}: connected, protocol {}, server {}, {} tool{}\n",
                    session.protocol_version,
                    server.trim(),
                    tools.len(),
                    if tools.len() == 1 { "" } else { "s" }
                ));
                for tool in tools {
                    let flag = if tool.read_only { "  read-only" } else { "" };
                    let summary = first_line(&tool.description, 80);
                    let summary = if summary.is_empty() { String::new() } else { format!("  {summary}") };
                    out.push_str(&format!("  {}{flag}{summary}\n", tool.full_name));
                }
                if tools.iter().any(|tool| tool.read_only) {
                    out.push_str(&format!("  hints: {}\n", status.hints_note));
                }
            }
            ServerState::Starting => out.push_str(&format!("{head}: starting (its tools join when it is ready)\n")),
            ServerState::Failed { error, stderr } => {
                out.push_str(&format!("{head}: failed: {error}\n"));
                for line in stderr.iter().take(5) {
                    out.push_str(&format!("  stderr: {line}\n"));
                }
            }
            ServerState::Stopped { error, stderr } => {
                out.push_str(&format!("{head}: stopped: {error}; /mcp reconnect {} starts it again\n", status.name));
                for line in stderr.iter().skip(stderr.len().saturating_sub(5)) {
                    out.push_str(&format!("  stderr: {line}\n"));
                }
            }
        }
    }
    neutralize(&out)
}

/// `{"servers": [...]}` with one object per server.
fn render_list_json(statuses: &[ServerStatus]) -> Value {
    let servers: Vec<Value> = statuses
        .iter()
        .map(|status| {
            let mut server = json!({"name": status.name, "transport": status.transport, "target": status.target, "hints_trusted": status.hints_trusted});
            match &status.state {
                ServerState::Connected { session, tools } => {
                    server["status"] = json!("connected");
                    server["protocol_version"] = json!(session.protocol_version);
                    server["server_info"] = json!({"name": session.server_name, "version": session.server_version});
                    server["tools"] = tools
                        .iter()
                        .map(|tool| {
                            json!({"name": tool.full_name, "tool": tool.name, "read_only": tool.read_only, "description": tool.description})
                        })
                        .collect();
                }
                ServerState::Starting => server["status"] = json!("starting"),
                ServerState::Failed { error, stderr } => {
                    server["status"] = json!("failed");
                    server["error"] = json!(error);
                    server["stderr"] = json!(stderr);
                }
                ServerState::Stopped { error, stderr } => {
                    server["status"] = json!("stopped");
                    server["error"] = json!(error);
                    server["stderr"] = json!(stderr);
                }
            }
            server
        })
        .collect();
    json!({"servers": servers})
}

/// Which config file `mcp add` and `mcp remove` edit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scope {
    /// `$MEWCODE_HOME/config.yaml`: the user's own, for every project.
    User,
    /// `<root>/.mewcode.yaml`: the project's, shared with whoever clones it.
    Project,
}

impl Scope {
    fn parse(text: &str) -> Result<Scope, String> {
        match text {
            "user" => Ok(Scope::User),
            "project" => Ok(Scope::Project),
            "local" => Err("--scope local: mewcode has user and project scopes (user is yours only)".to_string()),
            other => Err(format!("--scope: expected user or project, got {other:?}")),
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Project => "project",
        }
    }
}

/// What `mcp add` was asked: a server `name` reaching `transport`, in the config of `scope`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AddRequest {
    pub name: String,
    /// None: the user's config.
    pub scope: Option<Scope>,
    pub transport: McpTransport,
    /// `--force`: replace an entry of the same name.
    pub force: bool,
}

/// The config files the two scopes edit.
pub(crate) struct ConfigFiles {
    pub user: PathBuf,
    pub project: PathBuf,
    /// The project's root (canonical): the project's file is only written beneath it.
    pub root: PathBuf,
}

impl ConfigFiles {
    fn of(&self, scope: Scope) -> &Path {
        match scope {
            Scope::User => &self.user,
            Scope::Project => &self.project,
        }
    }

    /// Writes the scope's file.
    fn save(&self, scope: Scope, text: &str) -> Result<Option<crate::warning::Warning>, String> {
        let beneath = (scope == Scope::Project).then_some(self.root.as_path());
        save_text(self.of(scope), text, beneath)
    }
}

/// The words after `mcp add`, the way MCP servers' READMEs write them (Claude Code's
/// `mcp add` included): `NAME [--scope S] [-e K=V]... -- COMMAND [ARGS...]`, `NAME COMMAND
/// [ARGS...]`, `NAME --url URL [-H 'K: V']...`, `--transport http NAME URL`. Flags go before
/// the command: everything from the command on is its own.
pub(crate) fn parse_add(words: &[String]) -> Result<AddRequest, String> {
    let is_url = |word: &str| word.starts_with("http://") || word.starts_with("https://");
    let (mut name, mut scope, mut url, mut transport_kind) = (None::<String>, None, None::<String>, None::<String>);
    let (mut env, mut headers, mut force) = (Vec::new(), Vec::new(), false);
    let mut command: Vec<String> = Vec::new();
    let mut index = 0;
    while index < words.len() {
        let word = &words[index];
        index += 1;
        if word == "--" {
            command = words[index..].to_vec();
            if command.is_empty() {
                return Err("expected the server's command after --".to_string());
            }
            break;
        }
        if !word.starts_with('-') || word == "-" {
            if name.is_none() {
                name = Some(word.clone());
                continue;
            }
            // An address where the command goes (`--transport http NAME URL`): flags may follow.
            if url.is_none() && (is_url(word) || matches!(transport_kind.as_deref(), Some("http" | "streamable-http")))
            {
                url = Some(word.clone());
                continue;
            }
            command = words[index - 1..].to_vec();
            break;
        }
        let (flag, inline) = match word.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag, Some(value.to_string())),
            _ => (word.as_str(), None),
        };
        let mut value = || -> Result<String, String> {
            if let Some(value) = inline.clone() {
                return Ok(value);
            }
            let value = words.get(index).cloned().ok_or_else(|| format!("{flag}: missing value"))?;
            index += 1;
            Ok(value)
        };
        match flag {
            "-s" | "--scope" => scope = Some(Scope::parse(&value()?)?),
            "-e" | "--env" => env.push(parse_env(&value()?)?),
            "-H" | "--header" => headers.push(parse_header(&value()?)?),
            "--url" => url = Some(value()?),
            "-t" | "--transport" => transport_kind = Some(value()?),
            "-f" | "--force" => force = true,
            "-C" | "--cwd" | "--config" | "--trust" => {
                return Err(format!("{flag}: put it before mcp (mewcode {flag} ... mcp add ...)"));
            }
            other => {
                return Err(format!(
                    "unknown flag {other} (expected --scope, --env, --header, --url, --transport, --force; the \
                     server's own flags go after --)"
                ));
            }
        }
    }
    let Some(name) = name else { return Err("expected NAME (mcp add NAME -- COMMAND [ARGS...])".to_string()) };
    check_server_name(&name)?;
    let kind = match transport_kind.as_deref() {
        None => None,
        Some("stdio") => Some(false),
        Some("http" | "streamable-http") => Some(true),
        Some("sse") => {
            return Err("--transport sse (the old HTTP+SSE transport) is not supported; use the \
                                   server's Streamable HTTP endpoint (often /mcp) with --transport http"
                .to_string());
        }
        Some(other) => return Err(format!("--transport: expected stdio or http, got {other:?}")),
    };
    let transport = match (url, command.split_first()) {
        (Some(_), Some(_)) => return Err("give either --url URL or a command, not both".to_string()),
        (None, None) => {
            return Err("expected the server's command (-- COMMAND [ARGS...]) or its address (--url URL)".to_string());
        }
        (Some(url), None) => {
            if kind == Some(false) {
                return Err("--transport stdio needs a command, not a URL".to_string());
            }
            if !is_url(&url) {
                return Err(format!("--url: expected an http:// or https:// URL, got {url:?}"));
            }
            if !env.is_empty() {
                return Err("--env is for a server mewcode starts (a command); an HTTP server takes --header".into());
            }
            McpTransport::Http { url, headers, ca_file: None }
        }
        (None, Some((program, args))) => {
            if kind == Some(true) {
                return Err("--transport http needs the server's URL".to_string());
            }
            if !headers.is_empty() {
                return Err("--header is for an HTTP server (--url); a command takes --env".to_string());
            }
            McpTransport::Stdio { command: program.clone(), args: args.to_vec(), env }
        }
    };
    Ok(AddRequest { name, scope, transport, force })
}

/// The words after `mcp remove`: `NAME [--scope user|project]`.
pub(crate) fn parse_remove(words: &[String]) -> Result<(String, Option<Scope>), String> {
    let (mut name, mut scope) = (None, None);
    let mut words = words.iter();
    while let Some(word) = words.next() {
        match word.split_once('=') {
            Some(("--scope", value)) => scope = Some(Scope::parse(value)?),
            _ if word == "--scope" || word == "-s" => {
                let value = words.next().ok_or("--scope: missing value")?;
                scope = Some(Scope::parse(value)?);
            }
            _ if word.starts_with('-') => return Err(format!("unknown flag {word} (expected --scope)")),
            _ if name.is_none() => name = Some(word.clone()),
            _ => return Err(format!("unexpected argument {word:?}")),
        }
    }
    let name = name.ok_or("expected NAME")?;
    check_server_name(&name)?;
    Ok((name, scope))
}

/// `K=V` of `--env`.
fn parse_env(text: &str) -> Result<(String, String), String> {
    let (name, value) = text.split_once('=').ok_or_else(|| format!("--env: expected NAME=VALUE, got {text:?}"))?;
    let valid = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return Err(format!("--env: {name:?} is not a variable name"));
    }
    Ok((name.to_string(), value.to_string()))
}

/// `Name: value` of `--header`.
fn parse_header(text: &str) -> Result<(String, String), String> {
    let (name, value) =
        text.split_once(':').ok_or_else(|| format!("--header: expected 'Name: value', got {text:?}"))?;
    let name = name.trim();
    if name.is_empty() || !name.bytes().all(|byte| byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte)) {
        return Err(format!("--header: {name:?} is not a header name"));
    }
    Ok((name.to_string(), value.trim().to_string()))
}

/// `mewcode mcp add`: writes the entry into the scope's file and says what and where; `Err` is
/// why nothing was written.
pub(crate) fn add(request: &AddRequest, files: &ConfigFiles) -> Result<(), String> {
    let scope = request.scope.unwrap_or(Scope::User);
    let path = files.of(scope);
    let text = load_text(path)?;
    let edit = plan_add(&text, &request.name, &request.transport, request.force)
        .map_err(|message| format!("{}: {message}", path.display()))?;
    let warning = files.save(scope, &edit.text)?;
    let verb = if request.force && has_server(&text, &request.name).unwrap_or(false) { "replaced" } else { "added" };
    println!("{verb} MCP server {} in {} ({} scope):", request.name, path.display(), scope.as_str());
    for line in edit.entry.lines() {
        println!("  {}", neutralize(line));
    }
    if edit.comments_lost {
        print_notice(&format!("{} was written anew from its parsed form: its comments were not kept", path.display()));
    }
    if let Some(warning) = warning {
        print_notice(&format!("warning: {warning}"));
    }
    let other = match scope {
        Scope::User => Scope::Project,
        Scope::Project => Scope::User,
    };
    if load_text(files.of(other)).is_ok_and(|text| has_server(&text, &request.name).unwrap_or(false)) {
        print_notice(&format!(
            "{} also has a server named {}; the project's entry wins once the project is trusted",
            files.of(other).display(),
            request.name
        ));
    }
    if scope == Scope::Project {
        println!(
            "the project's config applies once you trust the project (the REPL asks; other commands take --trust)"
        );
    }
    println!("check it with: mewcode mcp list");
    Ok(())
}

/// `mewcode mcp remove`: removes the entry from the scope's file (without a scope, from the one
/// file that has it) and says where; `Err` is why nothing was removed.
pub(crate) fn remove(name: &str, scope: Option<Scope>, files: &ConfigFiles) -> Result<(), String> {
    let scopes = match scope {
        Some(scope) => vec![scope],
        None => vec![Scope::User, Scope::Project],
    };
    let mut found = Vec::new();
    for scope in scopes {
        let text = load_text(files.of(scope))?;
        if let Some(edit) =
            plan_remove(&text, name).map_err(|message| format!("{}: {message}", files.of(scope).display()))?
        {
            found.push((scope, edit));
        }
    }
    let (scope, edit) = match found.len() {
        0 => {
            let places = match scope {
                Some(scope) => files.of(scope).display().to_string(),
                None => format!("{} or {}", files.user.display(), files.project.display()),
            };
            return Err(format!("no MCP server named {name:?} in {places}"));
        }
        1 => found.remove(0),
        _ => return Err(format!("both scopes have an MCP server named {name:?}: say --scope user or --scope project")),
    };
    let path = files.of(scope);
    let warning = files.save(scope, &edit.text)?;
    println!("removed MCP server {name} from {} ({} scope)", path.display(), scope.as_str());
    if edit.comments_lost {
        print_notice(&format!("{} was written anew from its parsed form: its comments were not kept", path.display()));
    }
    if let Some(warning) = warning {
        print_notice(&format!("warning: {warning}"));
    }
    Ok(())
}

fn first_line(text: &str, max_chars: usize) -> String {
    let line = text.lines().map(str::trim).find(|line| !line.is_empty()).unwrap_or("");
    truncate_chars(line, max_chars, "...")
}

#[cfg(test)]
#[path = "mcp_cli_tests.rs"]
mod tests;
