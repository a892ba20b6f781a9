//! The tool contract, the registry that the agent calls through, and the built-in tools.
//!
//! Invariant: a tool failure is data (an `is_error` output the model reads), never a panic or an
//! `Err` that stops the turn (`execute_caught` turns a panic into one), and arguments that are not
//! valid JSON for the tool's input become "invalid arguments for X: ..." errors. Tools resolve
//! relative paths against `ToolContext::root` with `fsx::resolve_path`; the permission check of a
//! call is `permission/`'s and runs before `execute`. The one exception is the walk of `grep` and
//! `glob`, which meets files the engine never saw: every file it reads or lists passes the
//! `permission::FileGate` of `ToolContext::file_gate` (sandbox, sensitive files, deny rules), and
//! what it leaves out is only counted. Nothing here reads the process environment: the bash
//! environment is built once by the caller and handed in.
//!
//! - `mod.rs` — the `Tool` contract, `ToolOutput`, `ToolContext`, the `Registry`
//! - `read_file.rs` — `read_file`: a numbered window of a text file
//! - `read_image.rs` — an image file read, checked against the limits and encoded for a model
//! - `write_file.rs` — `write_file`: a whole file, parents created
//! - `edit_file.rs` — `edit_file`: an exact string replaced
//! - `glob.rs` — `glob`: files matching a pattern, newest first
//! - `grep/` — `grep`: contents searched with a regex, in parallel, and its output
//! - `bash.rs` — `bash`: a confined shell command and its merged output, or a background job
//! - `job.rs` — `job`: the background jobs listed, read and stopped
//! - `bash.rs` — `bash`: a confined shell command and its merged output
//! - `skill.rs` — `skill`: one of the run's skills loaded by name (its instructions and files)
//! - `lean.rs` — the lean form of a definition (small windows): a first sentence, a schema's prose cut
//! - `reads.rs` — what the conversation read: recent paths, and each file's fingerprint
//! - `live.rs` — a running tool's output line by line, its last lines for the front end's live view
//! - `walk.rs` — the parallel `.gitignore`-aware walker of `glob` and `grep`
//! - `test_support.rs` — test-only: a tool context in a `TempDir`, calling a tool

mod bash;
mod edit_file;
mod glob;
mod grep;
mod job;
pub(crate) mod lean;
mod live;
mod read_file;
pub(crate) mod read_image;
pub(crate) mod reads;
pub(crate) mod skill;
#[cfg(test)]
mod test_support;
pub(crate) mod walk;
mod write_file;

pub(crate) use crate::fsx::display_path;
pub(crate) use bash::{BashTool, HARDENED_GIT, git_config_env, watch_lines};
pub(crate) use edit_file::EditFileTool;
pub(crate) use glob::GlobTool;
pub use grep::GrepTool;
pub(crate) use job::JobTool;
pub(crate) use live::{LiveTail, Progress};
pub(crate) use read_file::ReadFileTool;
pub use reads::ReadTracker;
pub(crate) use skill::SkillTool;
pub(crate) use write_file::WriteFileTool;

use crate::cancel::CancelToken;
use crate::confine::Sandbox;
use crate::jobs::Jobs;
use crate::msg::{Image, ToolDefinition};
use crate::permission::read_filter::{FileGate, ReadFilter};
use crate::permission::sandbox::SandboxDenial;
use serde::de::DeserializeOwned;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The built-ins' names and kinds: the permission engine's table, where rules read them too.
pub(crate) use crate::permission::kind::{BASH, EDIT_FILE, GLOB, GREP, READ_FILE, ToolKind, WRITE_FILE};

/// The built-in tools in their canonical order. `bash_env` is the environment of every command
/// the bash tool runs (the caller scrubs it to PATH, HOME, LANG, TERM once, at start-up; the
/// sandbox adds its temp dir), and `sandbox` confines them.
pub(crate) fn builtin_tools(
    bash_env: Vec<(String, String)>,
    sandbox: Arc<Sandbox>,
    jobs: Arc<Jobs>,
) -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(ReadFileTool),
        Arc::new(WriteFileTool),
        Arc::new(EditFileTool),
        Arc::new(GlobTool),
        Arc::new(GrepTool),
        Arc::new(BashTool::new(bash_env, sandbox, Arc::clone(&jobs))),
        Arc::new(JobTool::new(jobs)),
    ]
}

/// What a tool returns: the text the model reads, whether it is an error, and the images that
/// follow the text (only when the model accepts images: `ToolContext::image_refusal`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolOutput {
    pub content: String,
    pub is_error: bool,
    pub images: Vec<Image>,
}

impl ToolOutput {
    /// A successful output.
    pub fn ok(content: impl Into<String>) -> ToolOutput {
        ToolOutput { content: content.into(), is_error: false, images: Vec::new() }
    }

    /// An error output the model reads and can correct itself from.
    pub fn error(content: impl Into<String>) -> ToolOutput {
        ToolOutput { content: content.into(), is_error: true, images: Vec::new() }
    }

    /// A successful output with images after its text.
    pub(crate) fn with_images(content: impl Into<String>, images: Vec<Image>) -> ToolOutput {
        ToolOutput { content: content.into(), is_error: false, images }
    }
}

/// Everything a tool may touch: the project root, the turn's cancel token and the read tracker.
#[derive(Clone, Debug)]
pub struct ToolContext {
    /// The project root (absolute, canonical); relative paths resolve against it.
    pub root: PathBuf,
    /// Cancelled when the user interrupts the turn; long tools check it.
    pub cancel: CancelToken,
    /// The session the call belongs to (a `task` sub-agent's hooks name its parent's); empty
    /// outside a session.
    pub session_id: String,
    /// Files `read_file` has shown to the model; shared by every clone of the context so that
    /// compaction can re-attach the most recently read files. One per conversation (the
    /// agent passes its `Conversation`'s).
    pub reads: ReadTracker,
    /// True when a person approved this call at the prompt; false when a rule or the mode let it
    /// through unasked (then the bash tool hardens git against the repository's own config).
    pub approved_by_user: bool,
    /// What the walks of grep and glob must leave out, from the permission engine (its deny
    /// rules); `None` still applies the built-in sandbox and sensitive-file checks.
    pub read_filter: Option<ReadFilter>,
    /// Where a tool that works for a while shows its output as it comes (a command's lines):
    /// the front end's live view. The result still carries the whole output.
    pub progress: Option<Progress>,
    /// How a command's connection to a host the network policy asks about is put to the person;
    /// None refuses it (nobody to ask).
    pub ask_host: Option<crate::permission::network::HostAsk>,
    /// Why images do not go to the model (its provider's `vision` is off, with the fix), or
    /// None when they do: `read_file` and MCP tools then return images, otherwise this text.
    pub image_refusal: Option<String>,
}

impl ToolContext {
    /// The root a write to `path` (absolute) must stay beneath: the writable added directory
    /// (`--add-dir`) where it leads, else the project.
    pub(crate) fn write_root(&self, path: &Path) -> &Path {
        self.read_filter.as_ref().and_then(|filter| filter.writable_root_of(path)).unwrap_or(&self.root)
    }

    /// A context with a fresh, empty read tracker and no rules, for a call nobody was asked about.
    pub fn new(root: PathBuf, cancel: CancelToken) -> ToolContext {
        ToolContext {
            root,
            cancel,
            session_id: String::new(),
            reads: ReadTracker::new(),
            approved_by_user: false,
            read_filter: None,
            progress: None,
            ask_host: None,
            image_refusal: Some("no model to send images to".to_string()),
        }
    }

    /// The gate every file of a walk by `tool_rule_name` from `start` must pass; an error when
    /// `start` itself resolves outside the project.
    pub(crate) fn file_gate(&self, tool_rule_name: &str, start: &Path) -> Result<FileGate, SandboxDenial> {
        match &self.read_filter {
            Some(filter) => filter.gate(tool_rule_name, start),
            None => ReadFilter::builtin(self.root.clone()).gate(tool_rule_name, start),
        }
    }
}

/// The closing line of grep and glob when their walk left files out: a count, never a name.
pub(crate) fn skipped_note(skipped: usize) -> String {
    match skipped {
        0 => String::new(),
        1 => "1 file skipped: outside the project or protected\n".to_string(),
        _ => format!("{skipped} files skipped: outside the project or protected\n"),
    }
}

/// A tool the model can call.
pub trait Tool: Send + Sync {
    /// The model-facing name (`read_file`).
    fn name(&self) -> &str;
    /// The friendly name used in permission rules (`Read`).
    fn rule_name(&self) -> &str;
    /// What the model is told the tool does.
    fn description(&self) -> &str;
    /// The JSON Schema of the input object.
    fn input_schema(&self) -> serde_json::Value;
    /// The description of the lean form (requests to a small window): one line, what a small
    /// model needs, no examples. By default the first sentence of `description`, cut at
    /// `lean::MAX_LEAN_DESCRIPTION` characters (an MCP tool's).
    fn lean_description(&self) -> String {
        lean::first_sentence(self.description(), lean::MAX_LEAN_DESCRIPTION)
    }
    /// The input schema of the lean form: the same property names, types and required list as
    /// `input_schema`, with a few words of description at most (`lean::lean_schema`). By default
    /// the full schema (a server's schema is not ours to rewrite).
    fn lean_input_schema(&self) -> serde_json::Value {
        self.input_schema()
    }
    /// True when the tool never changes anything (it may then run concurrently with others).
    fn read_only(&self) -> bool;
    /// True when the permission check may treat a call as read-only (no approval in default
    /// mode). The same as `read_only`, except for a tool whose read-only claim comes from
    /// someone the user has not vouched for (an MCP server's `readOnlyHint` from a repository's
    /// config): that claim may still batch calls, but whether a call asks is the user's choice.
    fn permission_read_only(&self) -> bool {
        self.read_only()
    }
    /// What the tool does with its arguments, for the permission engine (`permission::kind`):
    /// `Opaque` unless declared, so an undeclared tool is judged by its name only, as an exec.
    fn kind(&self) -> ToolKind {
        ToolKind::Opaque
    }
    /// Runs the tool on the model's raw JSON input.
    fn execute(&self, input_json: &str, ctx: &ToolContext) -> ToolOutput;
}

/// A set of tools that can change while the program runs (an MCP server whose tool list
/// changed). The registry asks it again only when it is refreshed, between turns.
pub(crate) trait ToolSource: Send + Sync {
    /// The tools it offers now. May do IO (re-list a server) and must not panic; on failure it
    /// returns what it offered before.
    fn tools(&self) -> Vec<Arc<dyn Tool>>;
}

/// One registration: a tool, or a source whose tools take its place in the order.
#[derive(Clone)]
enum Entry {
    Tool(Arc<dyn Tool>),
    Source(Arc<dyn ToolSource>),
}

/// The set of tools of a run, in registration order. The tools of sources are read when they
/// are registered and again at each `refresh` (the agent calls it once per turn), never in
/// between, so a batch of calls always sees one list.
#[derive(Default)]
pub struct Registry {
    entries: Vec<Entry>,
    /// The tools as of the last registration or refresh, in order, later names replacing earlier.
    current: std::sync::RwLock<Vec<Arc<dyn Tool>>>,
}

impl Clone for Registry {
    fn clone(&self) -> Registry {
        Registry { entries: self.entries.clone(), current: std::sync::RwLock::new(self.snapshot()) }
    }
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Registry {
        Registry::default()
    }

    /// A registry holding `builtin_tools(bash_env, sandbox, jobs)`.
    pub(crate) fn with_builtins(bash_env: Vec<(String, String)>, sandbox: Arc<Sandbox>, jobs: Arc<Jobs>) -> Registry {
        let mut registry = Registry::new();
        for tool in builtin_tools(bash_env, sandbox, jobs) {
            registry.register(tool);
        }
        registry
    }

    /// Adds a tool; a later tool with the same name replaces the earlier one.
    pub fn register(&mut self, tool: Arc<dyn Tool>) {
        add_replacing(&mut crate::sync::write(&self.current), vec![Arc::clone(&tool)]);
        self.entries.push(Entry::Tool(tool));
    }

    /// Adds a source of tools (its tools now, and again at each `refresh`).
    pub(crate) fn register_source(&mut self, source: Arc<dyn ToolSource>) {
        add_replacing(&mut crate::sync::write(&self.current), source.tools());
        self.entries.push(Entry::Source(source));
    }

    /// Asks every source for its tools again. Call it between turns only.
    pub fn refresh(&self) {
        let mut tools: Vec<Arc<dyn Tool>> = Vec::new();
        for entry in &self.entries {
            let added = match entry {
                Entry::Tool(tool) => vec![Arc::clone(tool)],
                Entry::Source(source) => source.tools(),
            };
            add_replacing(&mut tools, added);
        }
        *crate::sync::write(&self.current) = tools;
    }

    /// A registry of this one's read-only tools but `exclude`, that follows its sources: a
    /// read-only tool a source offers later (an MCP server that connected after start-up) is in
    /// the view after the view's next refresh. For sub-agents.
    pub(crate) fn read_only_view(&self, exclude: &str) -> Registry {
        let mut view = Registry::new();
        for entry in &self.entries {
            match entry {
                Entry::Tool(tool) if tool.read_only() && tool.name() != exclude => view.register(Arc::clone(tool)),
                Entry::Tool(_) => {}
                Entry::Source(source) => view.register_source(Arc::new(ReadOnlySource(Arc::clone(source)))),
            }
        }
        view
    }

    fn snapshot(&self) -> Vec<Arc<dyn Tool>> {
        crate::sync::read(&self.current).clone()
    }

    /// The definitions of every tool, in registration order.
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        self.snapshot().iter().map(|tool| definition_of(tool.as_ref())).collect()
    }

    /// The definitions of the read-only tools only (plan mode, sub-agents).
    pub(crate) fn read_only_definitions(&self) -> Vec<ToolDefinition> {
        self.snapshot().iter().filter(|tool| tool.read_only()).map(|tool| definition_of(tool.as_ref())).collect()
    }

    /// The lean definitions (`Tool::lean_description`, `Tool::lean_input_schema`) of every tool
    /// not named in `left_out`; with `read_only`, of the read-only ones only. Without `job`,
    /// bash's `run_in_background` is not offered either (a job nobody can read or stop).
    pub(crate) fn lean_definitions(&self, read_only: bool, left_out: &[&str]) -> Vec<ToolDefinition> {
        let offered = |tool: &&Arc<dyn Tool>| (!read_only || tool.read_only()) && !left_out.contains(&tool.name());
        let lean_definition = |tool: &Arc<dyn Tool>| {
            let mut input_schema = tool.lean_input_schema();
            if tool.name() == BASH.name
                && left_out.contains(&job::NAME)
                && let Some(properties) = input_schema["properties"].as_object_mut()
            {
                properties.remove("run_in_background");
            }
            ToolDefinition { name: tool.name().to_string(), description: tool.lean_description(), input_schema }
        };
        self.snapshot().iter().filter(offered).map(lean_definition).collect()
    }

    /// The tool called `name`, if registered.
    pub fn get(&self, name: &str) -> Option<Arc<dyn Tool>> {
        crate::sync::read(&self.current).iter().find(|tool| tool.name() == name).cloned()
    }
}

/// The read-only tools of a source.
struct ReadOnlySource(Arc<dyn ToolSource>);

impl ToolSource for ReadOnlySource {
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.0.tools().into_iter().filter(|tool| tool.read_only()).collect()
    }
}

/// Appends `added`, each replacing an earlier tool of the same name.
fn add_replacing(tools: &mut Vec<Arc<dyn Tool>>, added: Vec<Arc<dyn Tool>>) {
    for tool in added {
        tools.retain(|existing| existing.name() != tool.name());
        tools.push(tool);
    }
}

/// Runs one tool, turning a panic into an error output: one bug must not end the session.
pub(crate) fn execute_caught(tool: &dyn Tool, input_json: &str, ctx: &ToolContext) -> ToolOutput {
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| tool.execute(input_json, ctx)));
    outcome.unwrap_or_else(|_| ToolOutput::error(format!("tool {} failed internally (a bug in mewcode)", tool.name())))
}

fn definition_of(tool: &dyn Tool) -> ToolDefinition {
    ToolDefinition {
        name: tool.name().to_string(),
        description: tool.description().to_string(),
        input_schema: tool.input_schema(),
    }
}

/// Parses the model's arguments into a tool's input struct, or the error output naming the
/// problem. Blank input counts as `{}` so that the model reads which field is missing.
pub(crate) fn parse_input<T: DeserializeOwned>(tool: &str, input_json: &str) -> Result<T, ToolOutput> {
    let text = if input_json.trim().is_empty() { "{}" } else { input_json };
    serde_json::from_str(text).map_err(|err| {
        let what = if err.is_syntax() || err.is_eof() { "not valid JSON: " } else { "" };
        ToolOutput::error(format!("invalid arguments for {tool}: {what}{err}"))
    })
}

/// How many leading bytes decide whether a file is binary (the same window git and ripgrep use).
pub(crate) const BINARY_SNIFF_BYTES: usize = 8192;

/// True when `sample` (the first bytes of a file) holds a NUL byte: such files are binary.
pub(crate) fn has_nul(sample: &[u8]) -> bool {
    sample.contains(&0)
}

/// Serde helpers that accept what models actually send: numbers as JSON numbers or numeric strings
/// (`"10"`), booleans as JSON booleans or `"true"`/`"false"`. `null` counts as absent.
pub(crate) mod lenient {
    use serde::{Deserialize, Deserializer, de::Error};
    use serde_json::Value;

    /// An optional non-negative integer; a whole float (`10.0`) is accepted too.
    pub(crate) fn opt_u64<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
        match Option::<Value>::deserialize(deserializer)? {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(number)) => {
                if let Some(value) = number.as_u64() {
                    return Ok(Some(value));
                }
                match number.as_f64() {
                    Some(value) if value >= 0.0 && value.fract() == 0.0 && value < 1e18 => Ok(Some(value as u64)),
                    _ => Err(D::Error::custom(format!("expected a non-negative integer, got {number}"))),
                }
            }
            Some(Value::String(text)) => text
                .trim()
                .parse::<u64>()
                .map(Some)
                .map_err(|_| D::Error::custom(format!("expected a non-negative integer, got \"{text}\""))),
            Some(other) => Err(D::Error::custom(format!("expected a non-negative integer, got {other}"))),
        }
    }

    /// An optional boolean.
    pub(crate) fn opt_bool<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<bool>, D::Error> {
        match Option::<Value>::deserialize(deserializer)? {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(value)) => Ok(Some(value)),
            Some(Value::String(text)) if text == "true" => Ok(Some(true)),
            Some(Value::String(text)) if text == "false" => Ok(Some(false)),
            Some(other) => Err(D::Error::custom(format!("expected true or false, got {other}"))),
        }
    }
}

#[cfg(test)]
mod tests;
