//! The permission engine (SPEC §5): one pure decision per tool call, composed from the layers
//! in a fixed order with short-circuit — plan mode's read-only restriction, blacklist (Bash),
//! sandbox (file tools), rule deny, rule ask, self-protection, rule allow, sensitive files, mode
//! matrix.
//! When every command runs in the sandbox's namespace view ([`Engine::with_read_only_commands`]),
//! the matrix's ask for a Bash command that only reads (`read_only/`) becomes an allow in the
//! default and acceptEdits modes; every earlier layer keeps its say.
//!
//! Invariant: `Engine::check` touches nothing but the filesystem's symlinks (through the
//! sandbox, given the root as a value); it reads no environment and holds no mode, so a mode
//! switch applies from the next call. Loading settings files is not done here: rule texts
//! come in as strings per level (`RuleSet::from_texts`). The human-approval layer and hooks
//! live in the agent; they only use [`refused_by`] (and [`RefusedBy::text`]) and [`Layer::Hook`]
//! from here. A grep or glob call is checked on its search root; [`Engine::read_filter`] hands
//! the walk below it the same file decisions (sandbox, sensitive files, deny rules) to make file
//! by file.
//!
//! What a simple command does (wrappers, builtins, expansion) is read with `crate::command`,
//! the command line itself is split by `crate::shell`; nothing here parses bash.
//!
//! - `mod.rs` — the engine: the layers in order, the decision, who refused and why
//! - `blacklist/` — layer 1: the catastrophic command families, checked on the structure
//! - `sandbox.rs` — layer 2: a path argument resolves to the project or beneath it (or an added directory)
//! - `rules/` — layer 3: the user's allow and deny rules, their syntax and their matchers
//! - `policy.rs` — layer 4 and the fixed policies: the mode matrix, control files, sensitive files
//! - `read_only/` — which commands only read, so the mode matrix's ask may be lifted
//! - `read_filter.rs` — the file decisions of `check`, made for each file a grep or glob walk meets
//! - `kind.rs` — what a tool does with its arguments, and so what its rules match
//! - `hosts.rs` — the network policy for commands: may a command reach this host (allow, ask, deny)
//! - `network.rs` — the network policy at work: the command proxy's decision, questions, what was refused
//! - `store.rs` — the settings files' rule texts, and changing their lists ("always", `/permissions`)
//! - `book.rs` — the session's rules with their sources, numbered as `/permissions` lists them
//! - `tests.rs` — unit tests of the engine
//! - `sandbox_tests.rs` — unit tests of sandbox.rs
//! - `read_filter_tests.rs` — unit tests of read_filter.rs
//! - `store_tests.rs` — unit tests of store.rs
//! - `book_tests.rs` — unit tests of book.rs
//! - `hosts_tests.rs` — unit tests of hosts.rs
//! - `network_tests.rs` — unit tests of network.rs

pub(crate) mod blacklist;
pub(crate) mod book;
pub(crate) mod hosts;
pub(crate) mod kind;
pub(crate) mod network;
pub(crate) mod policy;
pub(crate) mod read_filter;
pub(crate) mod read_only;
pub(crate) mod rules;
pub(crate) mod sandbox;
pub(crate) mod store;

use crate::config::AddDir;
use crate::mode::Mode;
use crate::special_paths;
use kind::{TargetKind, ToolKind};
use policy::ToolClass;
pub(crate) use read_filter::{FileGate, ReadFilter};
use rules::command_rules;
use rules::{CallTarget, CallView, Level, PathTarget, RuleDecision, RuleSet};
use sandbox::SandboxDenial;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// What happens to a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    Allow,
    Ask,
    Deny,
}

/// Which layer decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layer {
    Blacklist,
    Sandbox,
    Rule,
    Mode,
    Hook,
}

/// A decision with where it came from; `check` prints it as JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    pub decision: Decision,
    pub layer: Layer,
    /// The rule level, when a rule decided.
    pub level: Option<Level>,
    pub reason: String,
}

impl Decision {
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Ask => "ask",
            Decision::Deny => "deny",
        }
    }
}

impl Layer {
    pub fn as_str(self) -> &'static str {
        match self {
            Layer::Blacklist => "blacklist",
            Layer::Sandbox => "sandbox",
            Layer::Rule => "rule",
            Layer::Mode => "mode",
            Layer::Hook => "hook",
        }
    }
}

impl Check {
    fn new(decision: Decision, layer: Layer, reason: impl Into<String>) -> Check {
        Check { decision, layer, level: None, reason: reason.into() }
    }

    /// The object `mewcode check` prints (SPEC §1.1).
    pub(crate) fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "decision": self.decision.as_str(),
            "layer": self.layer.as_str(),
            "level": self.level.map(Level::as_str),
            "reason": self.reason,
        })
    }
}

/// Who stopped a call, and so the stable prefix of the text the model reads (SPEC §1.1). The one
/// place these prefixes are spelled; front ends and scripts read the kind, never the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefusedBy {
    /// Not refused for good: a person, another mode or an allow rule would let it run
    /// (`needs approval:`). Plan mode's refusal is one too: a mode switch lifts it.
    Approval,
    Blacklist,
    Sandbox,
    /// A deny rule, with the level of the settings file it came from.
    Rule(Option<Level>),
    Hook,
    User,
}

impl RefusedBy {
    /// What the model is told: the prefix, then `reason`.
    pub fn text(self, reason: &str) -> String {
        match self {
            RefusedBy::Approval => format!("needs approval: {reason}"),
            RefusedBy::Rule(level) => format!("denied by rule ({}): {reason}", level.map_or("unknown", Level::as_str)),
            by => format!("denied by {}: {reason}", by.as_str()),
        }
    }

    /// The name scripts see (`permission_denials[].by` in `-p` json).
    pub fn as_str(self) -> &'static str {
        match self {
            RefusedBy::Approval => "approval",
            RefusedBy::Blacklist => "blacklist",
            RefusedBy::Sandbox => "sandbox",
            RefusedBy::Rule(_) => "rule",
            RefusedBy::Hook => "hook",
            RefusedBy::User => "user",
        }
    }
}

/// Who refused the call `check` decided, or None when it was allowed.
pub(crate) fn refused_by(check: &Check) -> Option<RefusedBy> {
    Some(match (check.decision, check.layer) {
        (Decision::Allow, _) => return None,
        (Decision::Deny, Layer::Blacklist) => RefusedBy::Blacklist,
        (Decision::Deny, Layer::Sandbox) => RefusedBy::Sandbox,
        (Decision::Deny, Layer::Rule) => RefusedBy::Rule(check.level),
        (Decision::Deny, Layer::Hook) => RefusedBy::Hook,
        // The mode matrix never denies; the one mode refusal is plan mode's (`plan_mode_check`),
        // which a mode switch lifts, hence its prefix.
        (Decision::Deny, Layer::Mode) | (Decision::Ask, _) => RefusedBy::Approval,
    })
}

/// Plan mode runs read-only tools only. The agent loop offers the model nothing else, and
/// refuses any other call before the permission layers are consulted; `Engine::check` (and so
/// `mewcode check --mode plan`) starts with the same decision. This is the one place it is
/// made. `tool` is the name shown in the reason.
pub(crate) fn plan_mode_check(mode: Mode, tool: &str, read_only: bool) -> Option<Check> {
    (mode == Mode::Plan && !read_only).then(|| {
        let reason = format!("{tool} is not available in plan mode (read-only tools only); present the plan instead");
        Check::new(Decision::Deny, Layer::Mode, reason)
    })
}

/// Whether a PreToolUse hook's "allow" may run a call this check decided: only where the mode
/// matrix would have asked a person. A hook never lifts a deny, nor the asks of self-protection
/// and sensitive files (layer sandbox), which hold even under a broad allow rule.
pub(crate) fn hook_may_allow(check: &Check) -> bool {
    check.decision == Decision::Ask && check.layer == Layer::Mode
}

/// One call as the engine sees it: the friendly (or MCP full) name, the raw JSON input, and
/// what the tool declares it does (which decides the checks, not the name).
#[derive(Clone, Copy, Debug)]
pub struct CallInfo<'a> {
    pub rule_name: &'a str,
    pub input: &'a str,
    pub kind: ToolKind,
}

impl<'a> CallInfo<'a> {
    /// A call of the tool a rule would name `rule_name`, with that tool's kind
    /// (`kind::kind_of_rule_tool`: a built-in's own, else opaque).
    pub fn named(rule_name: &'a str, input: &'a str) -> CallInfo<'a> {
        CallInfo { rule_name, input, kind: kind::kind_of_rule_tool(rule_name) }
    }
}

/// Why a read-only command ran without asking (the reason `check` gives).
const READ_ONLY_REASON: &str = "read-only command, confined by the sandbox's view";

/// The engine: the project root, the home directory for `~`, the rules, and whether commands
/// run in the sandbox's view — all values.
#[derive(Clone, Debug)]
pub struct Engine {
    root: PathBuf,
    home: Option<PathBuf>,
    /// The directories added besides the project (`--add-dir`, `add_dirs:`), canonical.
    added: Arc<[AddDir]>,
    rules: RuleSet,
    /// Every command runs in the sandbox's namespace view, so read-only ones need no approval.
    read_only_commands: bool,
}

impl Engine {
    /// `root` should be canonical (the sandbox canonicalises it again anyway).
    pub fn new(root: PathBuf, home: Option<PathBuf>, rules: RuleSet) -> Engine {
        Engine { root, home, added: Arc::from([]), rules, read_only_commands: false }
    }

    /// Tells the engine whether every command runs in the sandbox's namespace view (nothing
    /// outside the project writable, secrets not mounted, control files read-only). Only then
    /// do read-only commands run without asking in the default and acceptEdits modes: the
    /// reader is a string check, the view is what holds when it is wrong.
    pub fn with_read_only_commands(mut self, in_view: bool) -> Engine {
        self.read_only_commands = in_view;
        self
    }

    /// The engine whose file tools may also reach `added` (read, and write unless read-only):
    /// the same checks apply there, self-protection relative to the added directory.
    pub(crate) fn with_added_dirs(mut self, added: &[AddDir]) -> Engine {
        self.added = added.into();
        self
    }

    /// The same engine over other rules (an "always allow" answer was added).
    pub(crate) fn with_rules(&self, rules: RuleSet) -> Engine {
        Engine { rules, ..self.clone() }
    }

    /// Decides one call; see the module doc for the layer order. Plan mode's refusal of a tool
    /// that is not read-only comes first, as in the agent loop.
    pub fn check(&self, mode: Mode, call: &CallInfo<'_>, read_only: bool) -> Check {
        if let Some(refusal) = plan_mode_check(mode, call.rule_name, read_only) {
            return refusal;
        }
        let class = policy::classify(call.kind, read_only);
        let input: Option<serde_json::Value> = serde_json::from_str(call.input).ok();
        let field = |name: &str| input.as_ref().and_then(|value| value.get(name));
        let (searches_root, pattern_based) = match call.kind {
            ToolKind::ReadsPath { root_by_default, pattern } => (root_by_default, pattern),
            _ => (false, false),
        };
        match call.kind.target() {
            TargetKind::Command => {
                let Some(command) = field("command").and_then(|value| value.as_str()) else {
                    return Check::new(Decision::Deny, Layer::Sandbox, "unparseable command argument");
                };
                self.check_command(mode, call.rule_name, command, class)
            }
            TargetKind::Path => {
                let path = match field("path") {
                    Some(serde_json::Value::String(path)) => path.clone(),
                    // Searches (Glob, Grep) search the root when no path is given.
                    None | Some(serde_json::Value::Null) if searches_root && input.is_some() => ".".to_string(),
                    _ if input.is_none() => {
                        let reason = "unparseable path argument: the arguments are not valid JSON";
                        return Check::new(Decision::Deny, Layer::Sandbox, reason);
                    }
                    _ => return Check::new(Decision::Deny, Layer::Sandbox, "unparseable path argument"),
                };
                if pattern_based
                    && let Some(pattern) = field("pattern").and_then(|value| value.as_str())
                    && pattern.split('/').any(|part| part == "..")
                {
                    return Check::new(
                        Decision::Deny,
                        Layer::Sandbox,
                        format!("glob pattern {pattern}: .. may leave the project"),
                    );
                }
                if pattern_based
                    && let Some(pattern) = field("pattern").and_then(|value| value.as_str())
                    && let Err(denial) = self.locate(&glob_base(&path, pattern), false)
                {
                    return Check::new(Decision::Deny, Layer::Sandbox, format!("glob pattern {pattern}: {denial}"));
                }
                self.check_path_call(mode, call.rule_name, &path, class)
            }
            TargetKind::None => {
                let view = CallView { tool: call.rule_name, target: CallTarget::None };
                self.after_rules(mode, rules::check_rules(&self.rules, &view), class, None, false, None)
            }
        }
    }

    fn check_command(&self, mode: Mode, tool: &str, command: &str, class: ToolClass) -> Check {
        if let Some(hit) = blacklist::check_blacklist(command) {
            return Check::new(Decision::Deny, Layer::Blacklist, hit.reason);
        }
        let view = CallView { tool, target: CallTarget::Command { command, root: &self.root } };
        let decision = rules::check_rules(&self.rules, &view);
        let protected = policy::bash_touches_protected(command, &self.root).then(|| {
            "writes to control files always ask: the command may write .git, hooks, editor tasks, \
             .envrc, AGENTS.md or another file that runs code later (see the README)"
                .to_string()
        });
        let risk = command_rules::analyze(command, &self.root).risk().map(str::to_string);
        let check = self.after_rules(mode, decision, class, protected, false, risk);
        // Only the mode matrix's ask is lifted: a deny, a rule's allow, and the asks of
        // self-protection (layer sandbox) stand. Plan mode refused Bash before this point.
        let lifted = self.read_only_commands
            && matches!(mode, Mode::Default | Mode::AcceptEdits)
            && (check.decision, check.layer) == (Decision::Ask, Layer::Mode)
            && read_only::check(command, &self.root).is_ok();
        if lifted { Check::new(Decision::Allow, Layer::Mode, READ_ONLY_REASON) } else { check }
    }

    fn check_path_call(&self, mode: Mode, tool: &str, raw: &str, class: ToolClass) -> Check {
        let (resolved, base) = match self.locate(raw, class == ToolClass::Write) {
            Ok(found) => found,
            Err(denial) => return Check::new(Decision::Deny, Layer::Sandbox, format!("{raw}: {denial}")),
        };
        let lexical = self.lexical(raw);
        let target = PathTarget { resolved, lexical, root: self.root.clone(), home: self.home.clone() };
        let spellings = [&target.resolved, &target.lexical];
        // Control files and session logs are judged relative to the root the file is under.
        let relative =
            |path: &&PathBuf| path.strip_prefix(&base).map(Path::to_path_buf).unwrap_or_else(|_| path.to_path_buf());
        let protected = (class == ToolClass::Write)
            .then(|| spellings.iter().map(relative).find_map(|path| special_paths::protected_spot(&path)))
            .flatten()
            .map(|(name, why)| format!("writes to control files always ask: {name} ({why})"));
        let sensitive = spellings.iter().any(|path| special_paths::is_sensitive_path(path))
            || spellings.iter().map(relative).any(|path| special_paths::is_session_log(&path));
        let view = CallView { tool, target: CallTarget::Path(target.clone()) };
        self.after_rules(mode, rules::check_rules(&self.rules, &view), class, protected, sensitive, None)
    }

    /// Where a path argument leads, and the root it is under: the project, or the added
    /// directory holding it (the deepest, when added directories nest). A path elsewhere, and a
    /// write into a read-only added directory, are refused with why.
    fn locate(&self, raw: &str, writes: bool) -> Result<(PathBuf, PathBuf), String> {
        match sandbox::check_path(&self.root, raw, self.home.as_deref()) {
            Ok(resolved) => Ok((resolved, self.root.clone())),
            Err(SandboxDenial::Outside(resolved)) => match sandbox::added_dir_holding(&self.added, &resolved) {
                Some(dir) if writes && !dir.writable => Err(format!(
                    "{} was added read-only ({}): nothing there may be written",
                    dir.path.display(),
                    dir.source
                )),
                Some(dir) => Ok((resolved, dir.path.clone())),
                None if self.added.is_empty() => Err(SandboxDenial::Outside(resolved).to_string()),
                None => {
                    Err(format!("path resolves outside the project and the added directories: {}", resolved.display()))
                }
            },
            Err(denial) => Err(denial.to_string()),
        }
    }

    /// Rule deny → rule ask → self-protection → rule allow → sensitive files → mode matrix.
    fn after_rules(
        &self,
        mode: Mode,
        decision: RuleDecision,
        class: ToolClass,
        protected: Option<String>,
        sensitive: bool,
        risk: Option<String>,
    ) -> Check {
        let allowed_by = match decision {
            RuleDecision::Deny { level, rule } => {
                return Check { decision: Decision::Deny, layer: Layer::Rule, level: Some(level), reason: rule };
            }
            // The user's own "ask me first": in every mode, bypass too, over every allow rule.
            RuleDecision::Ask { level, rule } => {
                let reason = format!("the ask rule {rule} ({}) asks first", level.as_str());
                return Check { decision: Decision::Ask, layer: Layer::Rule, level: Some(level), reason };
            }
            RuleDecision::Allow { level, rule } => Some((level, rule)),
            RuleDecision::NoMatch => None,
        };
        if let Some(reason) = protected
            && mode != Mode::Bypass
        {
            return Check::new(Decision::Ask, Layer::Sandbox, reason);
        }
        if let Some((level, rule)) = allowed_by {
            return Check { decision: Decision::Allow, layer: Layer::Rule, level: Some(level), reason: rule };
        }
        if sensitive && mode != Mode::Bypass {
            return Check::new(
                Decision::Ask,
                Layer::Sandbox,
                "sensitive file (secrets or keys): its content would reach the model",
            );
        }
        let (allowed, reason) = policy::mode_allows(mode, class);
        match (allowed, risk) {
            (true, _) => Check::new(Decision::Allow, Layer::Mode, reason),
            (false, Some(risk)) => Check::new(Decision::Ask, Layer::Mode, format!("{reason} ({risk})")),
            (false, None) => Check::new(Decision::Ask, Layer::Mode, reason),
        }
    }

    /// The path as written, joined to the root (or home) and cleaned without following links.
    fn lexical(&self, raw: &str) -> PathBuf {
        let joined = match (raw.strip_prefix("~/").or(if raw == "~" { Some("") } else { None }), &self.home) {
            (Some(rest), Some(home)) => home.join(rest),
            _ => self.root.join(raw),
        };
        let mut cleaned = PathBuf::from("/");
        for component in joined.components() {
            match component {
                Component::ParentDir => {
                    cleaned.pop();
                }
                Component::Normal(name) => cleaned.push(name),
                Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
            }
        }
        cleaned
    }

    /// What the walks of grep and glob must leave out of the files they meet below a search root
    /// this engine allowed: the sandbox and sensitive files as in `check`, and the deny rules of
    /// Read, Grep and Glob at every level (SPEC §5; see `read_filter`).
    pub(crate) fn read_filter(&self) -> ReadFilter {
        ReadFilter::from_rules(self.root.clone(), self.home.clone(), &self.rules).with_added_dirs(&self.added)
    }

    /// The exact rules "always allow" would persist for this call: one per Bash sub-command
    /// (none when rules can never allow the command), one for a path or a bare tool name.
    pub(crate) fn always_allow_rules(&self, call: &CallInfo<'_>) -> Vec<String> {
        let input: Option<serde_json::Value> = serde_json::from_str(call.input).ok();
        let field = |name: &str| input.as_ref().and_then(|value| value.get(name)).and_then(|value| value.as_str());
        match call.kind.target() {
            TargetKind::Command => field("command")
                .map(|command| command_rules::analyze(command, &self.root).exact_targets())
                .unwrap_or_default()
                .iter()
                .map(|target| rules::exact_rule_for(call.rule_name, target))
                .collect(),
            TargetKind::Path => {
                let Some((resolved, _)) = field("path").and_then(|raw| self.locate(raw, false).ok()) else {
                    return Vec::new();
                };
                let relative = resolved.strip_prefix(&self.root).map(Path::to_path_buf).unwrap_or(resolved);
                relative.to_str().map(|target| rules::exact_rule_for(call.rule_name, target)).into_iter().collect()
            }
            TargetKind::None => vec![call.rule_name.to_string()],
        }
    }
}

/// The directory a glob pattern starts from: its leading components without glob characters.
fn glob_base(path: &str, pattern: &str) -> String {
    let base: Vec<&str> = pattern.split('/').take_while(|part| !part.contains(['*', '?', '[', '{'])).collect();
    let base = base.join("/");
    if pattern.starts_with('/') {
        if base.is_empty() { "/".into() } else { base }
    } else if base.is_empty() {
        path.to_string()
    } else {
        format!("{}/{base}", path.trim_end_matches('/'))
    }
}

#[cfg(test)]
mod tests;
